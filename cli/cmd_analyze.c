/* SPDX-License-Identifier: MIT */
/*
 * cmd_analyze.c - the default command: load the rules, read each trace,
 * analyse it and render the text report; several inputs are several hosts
 * or runs, each reported, then a short table over all of them.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "job_load.h"
#include "output.h"
#include "render.h"
#include "run_load.h"

/* --fail-on-severity: EXIT_GATE when a run finding reaches `level`, a
 * name the option parser checked; runs[i] is NULL for a saved report,
 * whose findings are saved[i]'s. */
static int gate(const char *level, const tpa_analysis *const *runs,
                const tpa_run *const *saved, size_t n)
{
        static const char *const names[] = { "info", "warning", "error" };
        int min = -1;

        for (int i = 0; i < 3; i++)
                if (strcmp(level, names[i]) == 0)
                        min = i;
        assert(min >= 0);
        for (size_t i = 0; i < n; i++) {
                for (size_t k = 0; runs[i] != NULL && k < runs[i]->finding_count; k++)
                        if ((int)runs[i]->findings[k].severity >= min) {
                                cli_errorf("finding '%s' reaches --fail-on-severity %s",
                                           runs[i]->findings[k].name, level);
                                return EXIT_GATE;
                        }
                for (size_t k = 0; saved[i] != NULL && k < saved[i]->finding_count; k++)
                        if ((int)saved[i]->findings[k].severity >= min) {
                                cli_errorf("finding '%s' reaches --fail-on-severity %s",
                                           saved[i]->findings[k].name, level);
                                return EXIT_GATE;
                        }
        }
        return EXIT_OK;
}

static bool is_run_metadata(const tpa_trace *tr)
{
        tpa_format f = tr != NULL ? tpa_trace_format(tr) : TPA_FORMAT_AUTO;

        return f == TPA_FORMAT_STEPSTATS || f == TPA_FORMAT_STEPSTATS_TEXT;
}

/* "PATH (+N more RunMetadata files)" (or TF1 timelines), in memory of its
 * own in *slot (the path whole, however long); NULL when there is none. */
static const char *joined_label(char **slot, const char *path, int more, const tpa_trace *tr)
{
        size_t size = strlen(path) + 64;

        if ((*slot = malloc(size)) != NULL)
                snprintf(*slot, size, "%s (+%d more %s)", path, more,
                         cli_is_tf1_timeline(tr) ? "TF1 timelines" : "RunMetadata files");
        return *slot;
}

/* The short table over several inputs, of those analysed here (a saved
 * report has no analysis to put in it). */
static int aggregate(FILE *fp, tpa_analysis *const *runs, const char *const *names, size_t n)
{
        const tpa_analysis **r = calloc(n, sizeof(*r));
        const char **p = calloc(n, sizeof(*p));
        size_t k = 0;

        if (r == NULL || p == NULL) {
                free(r);
                free(p);
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        for (size_t i = 0; i < n; i++) {
                if (runs[i] == NULL)
                        continue;
                r[k] = runs[i];
                p[k++] = names[i];
        }
        if (k > 1)
                tpa_report_text_aggregate(fp, r, p, k);
        free(r);
        free(p);
        return EXIT_OK;
}

/* The job view after the per-rank reports, when the inputs are the ranks
 * of one job (doc/design.md 5.6): --ranks, or every input, trace or saved
 * report, says its rank and no two say the same. In place of the short
 * table in text, a last document in JSON. *shown: it was written. */
static int job_view(FILE *fp, const cli_args *args, tpa_trace *const *traces,
                    tpa_analysis *const *runs, const char *const *names, size_t n,
                    bool *shown)
{
        tpa_error err = TPA_ERROR_INIT;
        cli_job j = { 0 };
        int rc = EXIT_OK;

        *shown = false;
        if (n < 2 && !args->ranks)
                return EXIT_OK;
        if ((j.ranks = calloc(n, sizeof(*j.ranks))) == NULL) {
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
                if (traces[i] != NULL
                    ? tpa_rank_from_trace(&j.ranks[i], traces[i], runs[i], names[i], &err) < 0
                    : tpa_report_load_rank(&j.ranks[i], names[i], &err) < 0)
                        rc = cli_report_error(&err, names[i]);
                j.count += rc == EXIT_OK;
        }
        if (rc == EXIT_OK && cli_ranks_are_a_job(args, (const tpa_rank *const *)j.ranks, n)) {
                if ((rc = cli_job_build(&j)) == EXIT_OK) {
                        fputc('\n', fp);
                        rc = cli_render_job(fp, args, j.job);
                        *shown = rc == EXIT_OK;
                }
        } else if (rc == EXIT_OK) {
                /* ranks among inputs that say none (a stray file beside a
                 * job's traces): why there is no job view, and the way */
                size_t stated = 0, first_none = n;
                for (size_t i = 0; i < n; i++) {
                        stated += j.ranks[i]->rank >= 0;
                        if (j.ranks[i]->rank < 0 && first_none == n)
                                first_none = i;
                }
                if (stated >= 2 && first_none < n)
                        fprintf(stderr, "tfprof-analyze: note: no job view: %zu inputs say "
                                "their rank, %s does not (--ranks takes all as the ranks "
                                "of one job)\n", stated, names[first_none]);
        }
        cli_job_free(&j);
        return rc;
}

/* The reports of cmd_analyze, one slot each: an input, or a part of a
 * merged one. */
struct slots {
        tpa_trace    **traces;
        tpa_analysis **runs;
        tpa_run      **saved;   /* a saved report, in place of a trace */
        const char   **names;   /* what each report is called */
        char         **labels;  /* names made here, owned */
        int           *joined;  /* RunMetadata files read into each trace */
        size_t         cap;
};

static bool slots_grow(struct slots *s, size_t need)
{
        size_t old = s->cap;
        void *p;

        if (need <= old)
                return true;
#define GROW(a) do {                                                            \
                if ((p = realloc(s->a, need * sizeof(*s->a))) == NULL)          \
                        return false;                                           \
                s->a = p;                                                       \
                memset(s->a + old, 0, (need - old) * sizeof(*s->a));            \
        } while (0)
        GROW(traces);
        GROW(runs);
        GROW(saved);
        GROW(names);
        GROW(labels);
        GROW(joined);
#undef GROW
        s->cap = need;
        return true;
}

/* A file `merge` wrote is reported as its inputs were (doc/design.md 5.6):
 * each part analysed alone, "FILE (INPUT)", then the job view when the
 * parts are ranks. `tr` is taken over. The slots from *n on, `more` of
 * them kept for the inputs still to read. */
/* The inputs of a merged trace that hold something; 0 when it is no merge
 * or when a process is no input's (its events would be in no part). */
static size_t merged_inputs(const tpa_trace *tr)
{
        size_t k = 0;

        for (uint32_t i = 0; i < tpa_trace_process_count(tr); i++)
                if (tpa_trace_process_c(tr, i)->input == 0)
                        return 0;
        for (size_t i = 0; i < tpa_trace_input_count(tr); i++)
                k += tpa_trace_input(tr, i)->name != TPA_STR_EMPTY;
        return k;
}

static int add_parts(struct slots *s, int *n, tpa_trace *tr, const char *path, size_t more)
{
        size_t k = tpa_trace_input_count(tr);
        tpa_error err = TPA_ERROR_INIT;
        int rc = EXIT_OK;

        if (!slots_grow(s, (size_t)*n + k + more)) {
                tpa_trace_free(tr);
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        for (size_t i = 0; i < k && rc == EXIT_OK; i++) {
                const tpa_input_info *in = tpa_trace_input(tr, i);
                const char *what = tpa_trace_str(tr, in->name);
                size_t len = strlen(path) + strlen(what) + 4;
                char *label;

                if (in->name == TPA_STR_EMPTY)
                        continue;               /* an index no process had */
                label = malloc(len);

                if (label == NULL) {
                        cli_errorf("out of memory");
                        rc = EXIT_INTERNAL;
                        break;
                }
                snprintf(label, len, "%s (%s)", path, what);
                s->labels[*n] = label;
                s->names[*n] = label;
                if (tpa_trace_split_input(tr, i, &s->traces[*n], &err) < 0)
                        rc = cli_report_error(&err, path);
                (*n)++;
        }
        tpa_trace_free(tr);
        return rc;
}

/* The traces and their analyses outlive the command: the process ends
 * after it, and freeing them block by block is work the system does at
 * once on exit (speed: a measurable part of the run on a large trace). Held
 * here, they stay reachable, so leak checkers do not count them (as git's
 * UNLEAK() does); volatile, so that the stores are not dropped as dead. */
static tpa_trace **volatile kept_traces;
static tpa_analysis **volatile kept_runs;

int cmd_analyze(const cli_args *args)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *rules = NULL;
        struct slots s = { 0 };
        cli_out out;
        bool job_shown;
        int rc, n = 0, passed = 0;

        if (args->input_count == 0) {
                cli_errorf("no trace given");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if ((rc = cli_load_rules(&rules, args)) != EXIT_OK)
                return rc;
        ro.strict = args->strict;
        ro.max_events = args->max_events;
        if (cli_show_progress(args->progress_forced, args->no_progress)) {
                ro.progress = cli_progress;
                ro.progress_ctx = NULL;
        }
        ao.step_marker = args->step_marker;
        ao.warmup = args->warmup == NULL || strcmp(args->warmup, "auto") == 0
                    ? -1 : atoi(args->warmup);
        ao.rules = rules;
        ao.top_n = args->top;
        ao.keep_spans = args->format != NULL && strcmp(args->format, "html") == 0;
        if (!slots_grow(&s, (size_t)args->input_count)) {
                cli_errorf("out of memory");
                rc = EXIT_INTERNAL;
                goto done;
        }
        rc = cli_out_begin(&out, args->output);
        if (rc != 0)
                goto done;
        /* Read. RunMetadata files and TF1 timelines are one step each:
         * consecutive ones on the command line are several steps of one run
         * (doc/design.md 3), so they go into one trace, reported under the
         * first file's name. */
        for (int i = 0; i < args->input_count; i++) {
                const char *path = args->inputs[i];
                tpa_trace *tr = NULL;

                if (strcmp(path, "-") != 0 && cli_is_report(path)) {
                        /* Our own JSON report: shown again, not read as
                         * a trace of no events. */
                        if (tpa_report_load(&s.saved[n], path, &err) < 0) {
                                rc = cli_report_error(&err, path);
                                break;
                        }
                        /* its findings, which --fail-on-severity gates on,
                         * are the earlier build's */
                        cli_note_older_report(s.saved[n], path);
                        s.names[n++] = path;
                        continue;
                }
                if (tpa_trace_new(&tr, &err) < 0) {
                        rc = cli_report_error(&err, path);
                        break;
                }
                rc = tpa_read_path(tr, path, &ro, &err);
                cli_progress_done();
                if (rc < 0 && err.code == TPA_ENOTTRACE && args->listed != NULL &&
                    args->listed[i]) {
                        /* a folder's JSON that is no trace (an execution
                         * trace, a memory timeline beside the traces) */
                        tpa_trace_free(tr);
                        cli_warnf("%s: warning: passed over: %s", path, err.msg);
                        err = (tpa_error)TPA_ERROR_INIT;
                        rc = EXIT_OK;
                        passed++;
                        continue;
                }
                if (rc < 0) {
                        tpa_trace_free(tr);
                        rc = cli_report_error(&err, path);
                        break;
                }
                if (tpa_trace_format(tr) == TPA_FORMAT_TFEVENTS &&
                    tpa_trace_event_count(tr) == 0) {
                        /* A TensorBoard events file of scalars: the user
                         * meant its profile run, not an empty report. */
                        cli_errorf("%s: %s: nothing to analyze", path, cli_no_events_reason(tr));
                        tpa_trace_free(tr);
                        rc = EXIT_INPUT;
                        break;
                }
                cli_print_warnings(tr, path);
                if (n > 0 && ((is_run_metadata(tr) && is_run_metadata(s.traces[n - 1])) ||
                              (cli_is_tf1_timeline(tr) && cli_is_tf1_timeline(s.traces[n - 1]) &&
                               strcmp(path, "-") != 0))) {
                        tpa_trace_free(tr);
                        rc = tpa_read_path(s.traces[n - 1], path, &ro, &err);
                        if (rc < 0) {
                                rc = cli_report_error(&err, path);
                                break;
                        }
                        s.joined[n - 1]++;
                        continue;
                }
                if (merged_inputs(tr) > 1) {
                        rc = add_parts(&s, &n, tr, path, (size_t)(args->input_count - i - 1));
                        if (rc != EXIT_OK)
                                break;
                        continue;
                }
                s.traces[n] = tr;
                s.names[n] = path;
                n++;
        }
        if (rc == EXIT_OK && n == 0 && passed > 0) {
                cli_errorf("no trace among the inputs: %d file%s passed over", passed,
                           passed == 1 ? "" : "s");
                rc = EXIT_INPUT;
        }
        for (int i = 0; rc == EXIT_OK && i < n; i++) {
                const char *path = s.names[i];

                if (s.saved[i] != NULL) {
                        if (i > 0)
                                fputc('\n', out.fp);
                        rc = cli_render_saved(out.fp, args, s.saved[i], path);
                        continue;
                }
                if (s.joined[i] > 0) {
                        s.names[i] = path = joined_label(&s.labels[i], path, s.joined[i],
                                                         s.traces[i]);
                        if (path == NULL) {
                                cli_errorf("out of memory");
                                rc = EXIT_INTERNAL;
                                break;
                        }
                }
                if (tpa_analyze(&s.runs[i], s.traces[i], &ao, &err) < 0) {
                        if (err.code == TPA_EINVAL) {
                                cli_errorf("%s", err.msg);
                                fprintf(stderr, "Try 'tfprof-analyze --help' for more "
                                        "information.\n");
                                rc = EXIT_USAGE;
                        } else {
                                rc = cli_report_error(&err, err.code == TPA_ERULE
                                                      ? args->rules : path);
                        }
                        break;
                }
                cli_print_step_note(s.runs[i], path);
                if (i > 0)
                        fputc('\n', out.fp);
                rc = cli_render(out.fp, args, s.traces[i], s.runs[i], path);
        }
        if (rc != EXIT_OK) {
                cli_out_discard(&out);
                goto done;
        }
        if ((rc = job_view(out.fp, args, s.traces, s.runs, s.names, (size_t)n, &job_shown)) !=
            EXIT_OK) {
                cli_out_discard(&out);
                goto done;
        }
        if (!job_shown && n > 1 && cli_render_is_text(args) &&
                   (rc = aggregate(out.fp, s.runs, s.names, (size_t)n)) != EXIT_OK) {
                cli_out_discard(&out);
                goto done;
        }
        rc = cli_out_commit(&out);
        if (rc == EXIT_OK && args->fail_on_severity != NULL)
                rc = gate(args->fail_on_severity, (const tpa_analysis *const *)s.runs,
                          (const tpa_run *const *)s.saved, (size_t)n);
done:
        for (int i = 0; s.saved != NULL && i < n; i++)
                tpa_run_free(s.saved[i]);
        free(s.saved);
        for (int i = 0; s.labels != NULL && i < n; i++)
                free(s.labels[i]);
        kept_traces = s.traces;
        kept_runs = s.runs;
        free(s.names);
        free(s.joined);
        free(s.labels);
        tpa_rules_free(rules);
        return rc;
}
