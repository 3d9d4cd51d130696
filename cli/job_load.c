/* SPDX-License-Identifier: MIT */
/*
 * job_load.c - the ranks of one job from reports or traces (job_load.h),
 * and the job view in the format asked for. A trace is analysed and let
 * go at once, so a job of many ranks needs the memory of one trace.
 */
#include <stdlib.h>
#include <string.h>

#include "job_load.h"
#include "output.h"
#include "run_load.h"

/* One trace read and analysed into a rank; an exit code. A file listed
 * from a folder that is no trace is passed over: *out stays NULL. */
static int rank_from_trace(tpa_rank **out, const char *path, bool listed,
                           const cli_args *args, const tpa_rules *rules)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;
        tpa_trace *tr = NULL;
        int rc = EXIT_OK;

        ro.strict = args->strict;
        ro.max_events = args->max_events;
        ao.step_marker = args->step_marker;
        ao.warmup = args->warmup == NULL || strcmp(args->warmup, "auto") == 0
                    ? -1 : atoi(args->warmup);
        ao.rules = rules;
        if (tpa_trace_new(&tr, &err) < 0 || tpa_read_path(tr, path, &ro, &err) < 0) {
                if (listed && err.code == TPA_ENOTTRACE)
                        cli_warnf("%s: warning: passed over: %s", path, err.msg);
                else
                        rc = cli_report_error(&err, path);
        } else if (tpa_analyze(&a, tr, &ao, &err) < 0 ||
                   tpa_rank_from_trace(out, tr, a, path, &err) < 0) {
                rc = cli_report_error(&err, err.code == TPA_ERULE ? args->rules : path);
        } else {
                cli_print_warnings(tr, path);
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
        return rc;
}

int cli_job_build(cli_job *j)
{
        tpa_error err = TPA_ERROR_INIT;

        if (tpa_job_build(&j->job, (const tpa_rank *const *)j->ranks, j->count, &err) < 0)
                return cli_report_error(&err, NULL);
        return EXIT_OK;
}

int cli_load_job(cli_job *out, const cli_args *args, const tpa_rules *rules)
{
        cli_job j = { 0 };
        int rc = EXIT_OK;

        if (args->input_count == 0) {
                cli_errorf("no report or trace given");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if ((j.ranks = calloc((size_t)args->input_count, sizeof(*j.ranks))) == NULL) {
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        for (int i = 0; i < args->input_count && rc == EXIT_OK; i++) {
                const char *path = args->inputs[i];
                tpa_error err = TPA_ERROR_INIT;

                if (strcmp(path, "-") != 0 && cli_is_report(path)) {
                        if (tpa_report_load_rank(&j.ranks[j.count], path, &err) < 0)
                                rc = cli_report_error(&err, path);
                } else {
                        rc = rank_from_trace(&j.ranks[j.count], path,
                                             args->listed != NULL && args->listed[i], args,
                                             rules);
                }
                j.count += rc == EXIT_OK && j.ranks[j.count] != NULL;
        }
        if (rc == EXIT_OK)
                rc = cli_job_build(&j);
        if (rc != EXIT_OK) {
                cli_job_free(&j);
                return rc;
        }
        *out = j;
        return EXIT_OK;
}

void cli_job_free(cli_job *j)
{
        tpa_job_free(j->job);
        for (size_t i = 0; j->ranks != NULL && i < j->count; i++)
                tpa_rank_free(j->ranks[i]);
        free(j->ranks);
        memset(j, 0, sizeof(*j));
}

int cli_render_job(FILE *fp, const cli_args *args, const tpa_job *job)
{
        tpa_error err = TPA_ERROR_INIT;

        if (args->format == NULL || strcmp(args->format, "text") == 0)
                tpa_report_job_text(fp, job);
        else if (strcmp(args->format, "markdown") == 0)
                tpa_report_job_markdown(fp, job);
        else if (strcmp(args->format, "html") == 0)
                tpa_report_job_html(fp, job);
        else if (tpa_report_job_json(fp, job, &err) < 0)
                return cli_report_error(&err, NULL);
        return EXIT_OK;
}

bool cli_ranks_are_a_job(const cli_args *args, const tpa_rank *const *ranks, size_t n)
{
        if (args->ranks)
                return true;
        if (n < 2)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (ranks[i]->rank < 0)
                        return false;
                for (size_t k = 0; k < i; k++)
                        if (ranks[k]->rank == ranks[i]->rank)
                                return false;
        }
        return true;
}
