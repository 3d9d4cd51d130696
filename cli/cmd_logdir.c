/* SPDX-License-Identifier: MIT */
/*
 * cmd_logdir.c - TensorBoard logdirs on the command line: `tfprof-analyze
 * DIR` analyzes each host of the newest profile run (--run NAME picks
 * another, and a note says there are others) and aggregates them, as
 * several inputs are; diff and check
 * take its host trace as a trace; --list-runs lists the runs. --run with
 * no logdir among the inputs is a usage error. A directory with no profile runs goes to the reader as it is:
 * a folder of RunMetadata or tfevents files is one trace, a step per file.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tpa/analysis.h>
#include <tpa/logdir.h>
#include <tpa/read.h>

#include "cmd_logdir.h"
#include "commands.h"
#include "output.h"

static int list_runs(const char *dir, const tpa_logdir *ld)
{
        const tpa_logdir_run *newest = tpa_logdir_find_run(ld, NULL);

        printf("%s: %zu profile run%s (newest last)\n", dir, ld->run_count,
               ld->run_count == 1 ? "" : "s");
        for (size_t r = 0; r < ld->run_count; r++) {
                const tpa_logdir_run *run = &ld->runs[r];
                printf("  %s%s  %s\n", run->name, run == newest ? " (newest)" : "", run->label);
                for (size_t h = 0; h < run->host_count; h++) {
                        const char *p = run->hosts[h].path, *base = strrchr(p, '/');
                        printf("      %s\n", base != NULL ? base + 1 : p);
                }
        }
        return EXIT_OK;
}

/* The largest run (its host traces' bytes together) hollow_run() reads:
 * a cycle that holds one empty step is a few kilobytes, and a run larger
 * than this has work in it (reading it twice would not pay). */
enum { HOLLOW_MAX_BYTES = 1 << 20 };

/* True when every host trace of `run` holds steps and each of them is
 * empty (doc/design.md 5.2): the last cycle of a repeating PyTorch
 * schedule, when the loop ended as the profiler began it. Such a run has
 * no verdict; the newest run is the one a user means only when it has a
 * step. A run that cannot be read is not hollow: the read of the run says
 * why. */
static bool hollow_run(const tpa_logdir_run *run, const cli_args *args)
{
        uint64_t bytes = 0;
        bool hollow = run->host_count > 0;

        for (size_t h = 0; h < run->host_count; h++) {
                struct stat st;
                if (stat(run->hosts[h].path, &st) != 0)
                        return false;
                bytes += (uint64_t)st.st_size;
        }
        if (bytes > HOLLOW_MAX_BYTES)
                return false;
        for (size_t h = 0; h < run->host_count && hollow; h++) {
                tpa_read_options ro = TPA_READ_OPTIONS_INIT;
                tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                tpa_analysis *a = NULL;
                tpa_trace *tr = NULL;

                ao.step_marker = args->step_marker;
                hollow = tpa_trace_new(&tr, &err) == 0 &&
                         tpa_read_path(tr, run->hosts[h].path, &ro, &err) == 0 &&
                         tpa_analyze(&a, tr, &ao, &err) == 0 &&
                         a->step_count > 0 && a->kept_count == 0;
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
        return hollow;
}

/* The run a logdir stands for without --run: the newest that is not
 * hollow (above), or the newest when all are; *skipped counts the runs
 * passed over. */
static const tpa_logdir_run *newest_run(const tpa_logdir *ld, const cli_args *args,
                                        size_t *skipped)
{
        const tpa_logdir_run *newest = tpa_logdir_find_run(ld, NULL), *run = newest;

        *skipped = 0;
        while (run != NULL && hollow_run(run, args)) {
                if (run == ld->runs) {
                        *skipped = 0;
                        return newest;
                }
                run--;
                (*skipped)++;
        }
        return run;
}

/* The note on stderr when the logdir `in` has runs besides `run`, the
 * one taken. */
static void note_run(const char *in, const tpa_logdir *ld, const tpa_logdir_run *run,
                     size_t skipped, const char *more)
{
        const tpa_logdir_run *newest = &ld->runs[ld->run_count - 1];

        if (skipped > 1)
                fprintf(stderr, "%s: profile run %s, the newest of %zu with a step (%s and "
                        "the %zu before it: empty steps only, the profiler stopped as it "
                        "began; %s)\n", in, run->name, ld->run_count, newest->name,
                        skipped - 1, more);
        else if (skipped == 1)
                fprintf(stderr, "%s: profile run %s, the newest of %zu with a step (%s: "
                        "empty steps only, the profiler stopped as it began; %s)\n", in,
                        run->name, ld->run_count, newest->name, more);
        else if (ld->run_count > 1)
                fprintf(stderr, "%s: profile run %s, the newest of %zu (%s)\n", in, run->name,
                        ld->run_count, more);
}

static bool ends_with(const char *s, const char *tail)
{
        size_t n = strlen(s), k = strlen(tail);

        return n >= k && strcmp(s + n - k, tail) == 0;
}

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder that is no logdir, as the traces (or reports) of the ranks of
 * one job: its .json and .json.gz files (every file with --ranks), sorted
 * by name, appended to *inputs and owned by e. 0 files: *added is 0 and
 * the folder goes to the reader as before (RunMetadata or tfevents). */
static int rank_files(const char *dir, bool any, cli_expanded *e, const char ***inputs,
                      size_t *n, size_t *cap, size_t *added)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char **found = NULL;
        size_t count = 0, room = 0, others = 0;
        int rc = EXIT_OK;

        *added = 0;
        if (d == NULL)
                return EXIT_OK;         /* the reader says why */
        while (rc == EXIT_OK && (de = readdir(d)) != NULL) {
                size_t len = strlen(dir) + strlen(de->d_name) + 2;
                char *p;

                if (de->d_name[0] == '.')
                        continue;
                if (!any && !ends_with(de->d_name, ".json") && !ends_with(de->d_name, ".json.gz")) {
                        /* RunMetadata, XSpace or tfevents beside them */
                        others += ends_with(de->d_name, ".pb") ||
                                  strstr(de->d_name, "tfevents") != NULL;
                        continue;
                }
                if ((p = malloc(len)) == NULL) {
                        rc = EXIT_INTERNAL;
                        break;
                }
                snprintf(p, len, "%s/%s", dir, de->d_name);
                if (tpa_logdir_is_dir(p)) {
                        free(p);
                        continue;
                }
                if (count == room) {
                        char **f = realloc(found, (room = room ? room * 2 : 16) * sizeof(*f));
                        if (f == NULL) {
                                free(p);
                                rc = EXIT_INTERNAL;
                                break;
                        }
                        found = f;
                }
                found[count++] = p;
        }
        closedir(d);
        if (rc == EXIT_OK && count > 0) {
                const char **pi = realloc(*inputs, (*cap + count) * sizeof(**inputs));
                char **po = realloc(e->paths, (e->count + count) * sizeof(*e->paths));
                if (pi != NULL)
                        *inputs = pi;
                if (po != NULL)
                        e->paths = po;
                if (pi == NULL || po == NULL)
                        rc = EXIT_INTERNAL;
        }
        if (rc != EXIT_OK) {
                for (size_t i = 0; i < count; i++)
                        free(found[i]);
                free(found);
                cli_errorf("out of memory");
                return rc;
        }
        if (count == 0)
                return EXIT_OK;         /* found is NULL: nothing to sort */
        if (others > 0)
                fprintf(stderr, "%s: %zu .json file%s read as its traces; %zu .pb or tfevents "
                        "file%s there not read (give %s by name)\n", dir, count,
                        count == 1 ? "" : "s", others, others == 1 ? "" : "s",
                        others == 1 ? "it" : "them");
        qsort(found, count, sizeof(*found), by_name);
        *cap += count;
        for (size_t i = 0; i < count; i++) {
                e->paths[e->count++] = found[i];
                (*inputs)[(*n)++] = found[i];
        }
        *added = count;
        free(found);
        return EXIT_OK;
}

/* A --baseline that is a logdir stands for the host trace of its newest
 * profile run, as NEW does (check compares one run with one run: a run of
 * several hosts is refused). A directory that is no logdir goes to the
 * reader as it is. */
static int expand_baseline(const char **slot, const cli_args *args, cli_expanded *own)
{
        const char *in = *slot;
        tpa_error err = TPA_ERROR_INIT;
        const tpa_logdir_run *run;
        size_t skipped;
        tpa_logdir *ld;
        char **po, *p;

        if (strcmp(in, "-") == 0 || !tpa_logdir_is_dir(in))
                return EXIT_OK;
        if (tpa_logdir_scan(&ld, in, &err) < 0)
                return err.code == TPA_EFORMAT ? EXIT_OK : cli_report_error(&err, in);
        for (size_t w = 0; w < ld->warning_count; w++)
                cli_warnf("%s: warning: %s", in, ld->warnings[w]);
        run = newest_run(ld, args, &skipped);
        if (run == NULL || run->host_count != 1) {
                cli_errorf("--baseline %s: the newest profile run has %zu hosts; give one "
                           "host's trace or a saved report", in, run ? run->host_count : 0);
                tpa_logdir_free(ld);
                return EXIT_USAGE;
        }
        note_run(in, ld, run, skipped, "--list-runs");
        p = strdup(run->hosts[0].path);
        po = p != NULL ? realloc(own->paths, (own->count + 1) * sizeof(*own->paths)) : NULL;
        tpa_logdir_free(ld);
        if (po == NULL) {
                free(p);
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        own->paths = po;
        own->paths[own->count++] = p;
        *slot = p;
        return EXIT_OK;
}

int cli_logdir_expand(const cli_args *args, cli_expanded *out, bool *listed)
{
        cli_expanded *own = out;
        const char **inputs;
        size_t n = 0, cap = (size_t)args->input_count + 1, nfold = 0;
        size_t (*fold)[2] = calloc(cap, sizeof(*fold));  /* folders' inputs [lo, hi) */
        bool any_dir = false, any_logdir = false;
        int rc = EXIT_OK;

        memset(out, 0, sizeof(*out));
        out->args = *args;
        out->args.inputs = NULL;
        *listed = false;
        inputs = calloc(cap, sizeof(*inputs));
        if (inputs == NULL || fold == NULL) {
                free(inputs);
                free(fold);
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        for (int i = 0; i < args->input_count && rc == EXIT_OK; i++) {
                const char *in = args->inputs[i];
                tpa_error err = TPA_ERROR_INIT;
                const tpa_logdir_run *run;
                size_t skipped = 0;
                tpa_logdir *ld;

                if (strcmp(in, "-") == 0 || !tpa_logdir_is_dir(in)) {
                        inputs[n++] = in;
                        continue;
                }
                any_dir = true;
                if (tpa_logdir_scan(&ld, in, &err) < 0) {
                        /* Not a logdir: a folder of traces or reports of
                         * any name is the ranks of one job (for analyze,
                         * check and aggregate); a folder of
                         * RunMetadata or tfevents files is read as one
                         * trace, a step per file. */
                        size_t added = 0;
                        /* diff's BASE and NEW are a run each: the
                         * folder stays one input (cli_load_run()) */
                        if (err.code == TPA_EFORMAT && args->cmd == CMD_DIFF) {
                                inputs[n++] = in;
                                continue;
                        }
                        if (err.code == TPA_EFORMAT && !args->list_runs) {
                                rc = rank_files(in, args->ranks, own, &inputs, &n, &cap,
                                                &added);
                                if (added == 0)
                                        inputs[n++] = in;
                                else
                                        memcpy(fold[nfold++], (size_t[2]){ n - added, n },
                                               sizeof(fold[0]));
                                continue;
                        }
                        rc = cli_report_error(&err, in);
                        break;
                }
                any_logdir = true;
                for (size_t w = 0; w < ld->warning_count; w++)
                        cli_warnf("%s: warning: %s", in, ld->warnings[w]);
                if (args->list_runs) {
                        rc = list_runs(in, ld);
                        tpa_logdir_free(ld);
                        continue;
                }
                run = args->run != NULL ? tpa_logdir_find_run(ld, args->run)
                                        : newest_run(ld, args, &skipped);
                if (run == NULL) {
                        cli_errorf("%s: no profile run '%s' (see --list-runs)", in, args->run);
                        tpa_logdir_free(ld);
                        rc = EXIT_USAGE;
                        break;
                }
                /* the others are no less the user's: say they are there */
                if (args->run == NULL)
                        note_run(in, ld, run, skipped, "--list-runs; --run NAME for another");
                {
                        const char **pi = realloc(inputs, (cap + run->host_count) *
                                                  sizeof(*inputs));
                        char **po = realloc(own->paths, (own->count + run->host_count) *
                                            sizeof(*own->paths));
                        if (pi != NULL)
                                inputs = pi;
                        if (po != NULL)
                                own->paths = po;
                        if (pi == NULL || po == NULL) {
                                tpa_logdir_free(ld);
                                cli_errorf("out of memory");
                                rc = EXIT_INTERNAL;
                                break;
                        }
                        cap += run->host_count;
                }
                /* The hosts of one profile run are the ranks of one job
                 * (doc/design.md 5.6), numbered in host name order. */
                if (run->host_count > 1)
                        out->args.ranks = true;
                for (size_t h = 0; h < run->host_count; h++) {
                        char *p = strdup(run->hosts[h].path);
                        if (p == NULL) {
                                rc = EXIT_INTERNAL;
                                break;
                        }
                        own->paths[own->count++] = p;
                        inputs[n++] = p;
                }
                tpa_logdir_free(ld);
        }
        for (int i = 0; i < args->baseline_count && rc == EXIT_OK && !args->list_runs; i++)
                rc = expand_baseline(&out->args.baseline[i], args, own);
        /* a trace found in a baseline logdir is read too */
        if (rc == EXIT_OK && args->baseline_count > 0 && own->count > 0)
                rc = cli_check_output(args->output, out->args.baseline,
                                      out->args.baseline_count);
        if (rc == EXIT_OK && args->list_runs) {
                *listed = true;
                if (!any_dir) {
                        cli_errorf("--list-runs needs a TensorBoard logdir");
                        fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                        rc = EXIT_USAGE;
                }
        }
        if (rc == EXIT_OK && args->run != NULL && !any_logdir) {
                cli_errorf("--run '%s' picks a profile run of a TensorBoard logdir, and no "
                           "input is one", args->run);
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                rc = EXIT_USAGE;
        }
        /* A trace found in a logdir is an input too. */
        if (rc == EXIT_OK && own->count > 0)
                rc = cli_check_output(args->output, inputs, (int)n);
        if (rc == EXIT_OK && nfold > 0) {
                if ((own->listed = calloc(n, sizeof(*own->listed))) == NULL) {
                        cli_errorf("out of memory");
                        rc = EXIT_INTERNAL;
                }
                for (size_t f = 0; own->listed != NULL && f < nfold; f++)
                        for (size_t k = fold[f][0]; k < fold[f][1]; k++)
                                own->listed[k] = true;
                out->args.listed = own->listed;
        }
        free(fold);
        out->args.inputs = inputs;
        out->args.input_count = (int)n;
        return rc;
}

void cli_logdir_free(cli_expanded *e)
{
        for (size_t i = 0; i < e->count; i++)
                free(e->paths[i]);
        free(e->paths);
        free(e->args.inputs);
        free(e->listed);
        memset(e, 0, sizeof(*e));
}

int cli_run_with_logdirs(int (*cmd)(const cli_args *), const cli_args *args)
{
        cli_expanded e;
        bool listed;
        int rc;

        rc = cli_logdir_expand(args, &e, &listed);
        if (rc == EXIT_OK && !listed)
                rc = cmd(&e.args);
        cli_logdir_free(&e);
        return rc;
}
