/* SPDX-License-Identifier: MIT */
/*
 * run_load.c - load what diff and check compare. An input whose first key
 * is "schema" is a saved JSON report (tpa_report_load); anything else is a
 * trace, read and analysed with the same options as analyze.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "run_load.h"

int cli_load_rules(tpa_rules **out, const cli_args *args)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *r = NULL;

        if (tpa_rules_new_default(&r, &err) < 0)
                return cli_report_error(&err, "rules/default.tpr");
        if (args->rules != NULL &&
            tpa_rules_load_file(r, args->rules, args->rules_replace, &err) < 0) {
                int rc = cli_report_error(&err, args->rules);
                tpa_rules_free(r);
                /* a rule file that is missing or unreadable is a rules
                 * problem (4) like a bad one; only out of memory is not */
                return err.code == TPA_ENOMEM ? rc : EXIT_RULES;
        }
        for (int i = 0; i < args->define_count; i++) {
                if (tpa_rules_set_threshold(r, args->define[i], &err) < 0) {
                        tpa_rules_free(r);
                        if (err.code == TPA_EINVAL) {
                                cli_errorf("--set %s: %s", args->define[i], err.msg);
                                fprintf(stderr, "Try 'tfprof-analyze --help' for more "
                                        "information.\n");
                                return EXIT_USAGE;
                        }
                        return cli_report_error(&err, args->define[i]);
                }
        }
        *out = r;
        return EXIT_OK;
}

const char *cli_no_events_reason(const tpa_trace *tr)
{
        if (tpa_trace_format(tr) == TPA_FORMAT_TFEVENTS)
                return "the tfevents file holds no RunMetadata (scalars or summaries only)";
        return "the trace has no timed events";
}

bool cli_is_report(const char *path)
{
        struct stat st;

        /* Only a regular file can be read twice: a fifo or a pipe
         * (<(zcat trace.json.gz), /dev/stdin) would lose what this read to
         * the trace reader, or block it for a writer that has gone. */
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                return false;
        /* gzip-compressed too: a report kept as r.json.gz, read as a
         * trace, was one of no events */
        return tpa_report_is_file(path);   /* unreadable: the trace reader says why */
}

/* A run with no kept steps has nothing to compare or gate on: doc/design.md
 * 5.5 makes that an error, never a pass. */
static int refuse_empty(tpa_run **out, const char *path, const char *why)
{
        if ((*out)->step_count > 0)
                return EXIT_OK;
        cli_errorf("%s: %s: nothing to compare or gate on", path, why);
        tpa_run_free(*out);
        *out = NULL;
        return EXIT_INPUT;
}

static bool has_metric(const tpa_run *r, const char *name)
{
        for (size_t i = 0; i < r->metric_count; i++)
                if (strcmp(r->metrics[i].name, name) == 0)
                        return true;
        return false;
}

const char *cli_report_lacks(const tpa_run *r, size_t *count)
{
        const char *first = NULL;

        *count = 0;
        for (size_t i = 0; i < tpa_analysis_metric_count(); i++) {
                const char *n = tpa_analysis_metric_name(i);

                if (has_metric(r, n))
                        continue;
                if (first == NULL)
                        first = n;
                (*count)++;
        }
        return first;
}

const char *cli_report_lacks_metric(const tpa_run *r, const char *name)
{
        for (size_t i = 0; i < tpa_analysis_metric_count(); i++) {
                const char *n = tpa_analysis_metric_name(i);

                if (strcmp(n, name) == 0)
                        return has_metric(r, n) ? NULL : n;
        }
        return NULL;
}

/* A saved report that lacks metrics this version writes came from an
 * earlier tfprof-analyze, whose breakdown, classes and findings of the same
 * trace may differ from this one's: said, so that a change between them is
 * not taken for the run's. */
void cli_note_older_report(const tpa_run *r, const char *path)
{
        size_t lacks;
        const char *first = cli_report_lacks(r, &lacks);

        if (first != NULL)
                cli_warnf("%s: warning: written by an earlier tfprof-analyze: it lacks %zu "
                          "metric%s of this version ('%s'%s); its breakdown, classes and "
                          "findings may differ from this version's on the same trace: "
                          "analyze the trace again to compare like with like", path, lacks,
                          lacks == 1 ? "" : "s", first, lacks == 1 ? "" : ", ...");
}

/* A saved report, loaded: refused without kept steps, noted when older. */
static int loaded_report(tpa_run **out, const char *path)
{
        int rc = refuse_empty(out, path, "the report has no kept steps");

        if (rc == EXIT_OK)
                cli_note_older_report(*out, path);
        return rc;
}

/* stdin, a fifo or a pipe cannot be rewound after sniffing: read it
 * whole. */
static int slurp(FILE *in, const char *path, char **out, size_t *size)
{
        size_t len = 0, cap = 0;
        char *buf = NULL;

        for (;;) {
                if (len == cap) {
                        char *b = realloc(buf, cap = cap ? cap * 2 : 1 << 16);
                        if (b == NULL) {
                                free(buf);
                                cli_errorf("out of memory reading stdin");
                                return EXIT_INTERNAL;
                        }
                        buf = b;
                }
                size_t n = fread(buf + len, 1, cap - len, in);
                len += n;
                if (n == 0)
                        break;
        }
        if (ferror(in)) {
                free(buf);
                cli_errorf("%s: read error: %s", path, strerror(errno));
                return EXIT_INPUT;
        }
        *out = buf;
        *size = len;
        return EXIT_OK;
}

bool cli_is_tf1_timeline(const tpa_trace *tr)
{
        return tr != NULL && tpa_trace_format(tr) == TPA_FORMAT_CHROME_JSON &&
               tpa_trace_dialect(tr) == TPA_DIALECT_TF1;
}

/* The largest file cli_tf1_timelines() reads to see what it is: a
 * Session.run's timeline is kilobytes to megabytes, and a rank's trace of
 * gigabytes must not be read twice to learn it is none. */
enum { TIMELINE_MAX_BYTES = 64 << 20 };

bool cli_tf1_timelines(const char *const *paths, int n)
{
        for (int i = 0; i < n; i++) {
                tpa_error err = TPA_ERROR_INIT;
                tpa_trace *tr = NULL;
                struct stat st;
                bool yes;

                if (strcmp(paths[i], "-") == 0 || stat(paths[i], &st) != 0 ||
                    !S_ISREG(st.st_mode) || st.st_size > TIMELINE_MAX_BYTES ||
                    cli_is_report(paths[i]))
                        return false;
                yes = tpa_trace_new(&tr, &err) == 0 &&
                      tpa_read_path(tr, paths[i], NULL, &err) == 0 && cli_is_tf1_timeline(tr);
                tpa_trace_free(tr);
                if (!yes)
                        return false;
        }
        return n > 0;
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

/* A folder that is no logdir, given where one run is meant (a --baseline,
 * diff's BASE or NEW): its .json and .json.gz traces, as analyze reads
 * the folder. One trace is the run; several are one run only when they
 * are TF1 timelines (a step each); none leaves the folder to the reader
 * (RunMetadata or tfevents files). */
static int load_dir(tpa_run **out, const char *dir, const cli_args *args,
                    const tpa_rules *rules, bool *done)
{
        char **files = NULL;
        size_t n = 0, others = 0;
        DIR *d;
        struct dirent *de;
        int rc = EXIT_OK;

        *done = false;
        if ((d = opendir(dir)) == NULL)
                return EXIT_OK;         /* the reader says why */
        while ((de = readdir(d)) != NULL) {
                struct stat st;
                char **f;
                char *p;
                size_t len;

                if (de->d_name[0] == '.')
                        continue;
                if (!ends_with(de->d_name, ".json") && !ends_with(de->d_name, ".json.gz")) {
                        /* RunMetadata, XSpace or tfevents beside them */
                        others += ends_with(de->d_name, ".pb") ||
                                  strstr(de->d_name, "tfevents") != NULL;
                        continue;
                }
                len = strlen(dir) + strlen(de->d_name) + 2;
                if ((p = malloc(len)) == NULL ||
                    (f = realloc(files, (n + 1) * sizeof(*files))) == NULL) {
                        free(p);
                        rc = EXIT_INTERNAL;
                        break;
                }
                files = f;
                snprintf(p, len, "%s/%s", dir, de->d_name);
                if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
                        free(p);
                        continue;
                }
                files[n++] = p;
        }
        closedir(d);
        if (rc != EXIT_OK) {
                cli_errorf("out of memory");
        } else if (n > 0) {
                *done = true;
                if (others > 0)
                        fprintf(stderr, "%s: %zu .json file%s read as its traces; %zu .pb or "
                                "tfevents file%s there not read (give %s by name)\n", dir, n,
                                n == 1 ? "" : "s", others, others == 1 ? "" : "s",
                                others == 1 ? "it" : "them");
                qsort(files, n, sizeof(*files), by_name);
                if (n == 1 || cli_tf1_timelines((const char *const *)files, (int)n)) {
                        rc = cli_load_run_paths(out, (const char *const *)files, (int)n, args,
                                                rules);
                } else {
                        cli_errorf("%s: %zu traces in this folder, and one run is compared; "
                                   "give one trace or a saved report", dir, n);
                        rc = EXIT_USAGE;
                }
        }
        for (size_t i = 0; i < n; i++)
                free(files[i]);
        free(files);
        return rc;
}

int cli_load_run(tpa_run **out, const char *path, const cli_args *args,
                 const tpa_rules *rules)
{
        struct stat st;

        if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                bool done;
                int rc = load_dir(out, path, args, rules, &done);
                if (done || rc != EXIT_OK)
                        return rc;
        }
        return cli_load_run_paths(out, &path, 1, args, rules);
}

int cli_load_run_paths(tpa_run **out, const char *const *paths, int count,
                       const cli_args *args, const tpa_rules *rules)
{
        const char *path = paths[0];

        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        tpa_analysis *a = NULL;
        char *in = NULL;
        size_t in_size = 0;
        struct stat st;
        int rc;

        if (strcmp(path, "-") == 0 ||
            (stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))) {
                FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");

                if (fp == NULL) {
                        cli_errorf("%s: cannot open: %s", path, strerror(errno));
                        return EXIT_INPUT;
                }
                rc = slurp(fp, path, &in, &in_size);
                if (fp != stdin)
                        fclose(fp);
                if (rc != EXIT_OK)
                        return rc;
                if (tpa_report_sniff_memory(in, in_size)) {
                        rc = tpa_report_load_memory(out, in, in_size, &err);
                        free(in);
                        if (rc < 0)
                                return cli_report_error(&err, path);
                        return loaded_report(out, path);
                }
        } else if (cli_is_report(path)) {
                if (tpa_report_load(out, path, &err) < 0)
                        return cli_report_error(&err, path);
                return loaded_report(out, path);
        }
        ro.strict = args->strict;
        ro.max_events = args->max_events;
        if (cli_show_progress(args->progress_forced, args->no_progress))
                ro.progress = cli_progress;
        ao.step_marker = args->step_marker;
        ao.warmup = args->warmup == NULL || strcmp(args->warmup, "auto") == 0
                    ? -1 : atoi(args->warmup);
        ao.rules = rules;
        ao.top_n = args->top;
        if (tpa_trace_new(&tr, &err) < 0) {
                free(in);
                return cli_report_error(&err, path);
        }
        if (in != NULL)
                rc = tpa_read_memory(tr, in, in_size, path, &ro, &err);
        else
                rc = tpa_read_path(tr, path, &ro, &err);
        free(in);
        cli_progress_done();
        if (rc < 0) {
                rc = cli_report_error(&err, path);
                tpa_trace_free(tr);
                return rc;
        }
        cli_print_warnings(tr, path);
        /* TF1 timelines given together: a step each, one run (as analyze) */
        for (int i = 1; i < count; i++) {
                if (tpa_read_path(tr, paths[i], &ro, &err) < 0) {
                        rc = cli_report_error(&err, paths[i]);
                        tpa_trace_free(tr);
                        return rc;
                }
        }
        if (tpa_analyze(&a, tr, &ao, &err) < 0) {
                if (err.code == TPA_EINVAL) {
                        cli_errorf("%s", err.msg);
                        fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                        rc = EXIT_USAGE;
                } else {
                        rc = cli_report_error(&err, err.code == TPA_ERULE ? args->rules : path);
                }
                tpa_trace_free(tr);
                return rc;
        }
        cli_print_step_note(a, path);
        rc = tpa_run_from_analysis(out, a, &err);
        tpa_analysis_free(a);
        if (rc < 0) {
                tpa_trace_free(tr);
                return cli_report_error(&err, path);
        }
        rc = refuse_empty(out, path, cli_no_events_reason(tr));
        tpa_trace_free(tr);
        return rc;
}
