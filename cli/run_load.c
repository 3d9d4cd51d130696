/* SPDX-License-Identifier: MIT */
/*
 * run_load.c - load what diff and check compare. An input whose first key
 * is "schema" is a saved JSON report (tpa_report_load); anything else is a
 * trace, read and analysed with the same options as analyze.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                tpa_rules_free(r);
                return cli_report_error(&err, args->rules);
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

/* True when the file starts like a saved report. stdin is never sniffed
 * (it cannot be rewound): '-' is a trace. */
static bool is_report(const char *path)
{
        char head[512];
        size_t n;
        FILE *fp;

        if (strcmp(path, "-") == 0 || (fp = fopen(path, "rb")) == NULL)
                return false;
        n = fread(head, 1, sizeof(head), fp);
        fclose(fp);
        return tpa_report_sniff(head, n);
}

int cli_load_run(tpa_run **out, const char *path, const cli_args *args,
                 const tpa_rules *rules)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        tpa_analysis *a = NULL;
        int rc;

        if (is_report(path)) {
                if (tpa_report_load(out, path, &err) < 0)
                        return cli_report_error(&err, path);
                return EXIT_OK;
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
        if (tpa_trace_new(&tr, &err) < 0)
                return cli_report_error(&err, path);
        rc = tpa_read_path(tr, path, &ro, &err);
        cli_progress_done();
        if (rc < 0) {
                rc = cli_report_error(&err, path);
                tpa_trace_free(tr);
                return rc;
        }
        cli_print_warnings(tr, path);
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
        rc = tpa_run_from_analysis(out, a, &err);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
        if (rc < 0)
                return cli_report_error(&err, path);
        return EXIT_OK;
}
