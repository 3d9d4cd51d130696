/* SPDX-License-Identifier: MIT */
/*
 * cmd_analyze.c - the default command: read each trace and report on it.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"

int cmd_analyze(const cli_args *args)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        cli_out out;
        int rc;

        if (args->input_count == 0) {
                cli_errorf("no trace given");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        ro.strict = args->strict;
        ro.max_events = args->max_events;
        if (cli_show_progress(args->progress_forced, args->no_progress)) {
                ro.progress = cli_progress;
                ro.progress_ctx = NULL;
        }
        rc = cli_out_begin(&out);
        if (rc != 0)
                return rc;
        for (int i = 0; i < args->input_count; i++) {
                const char *path = args->inputs[i];

                if (tpa_trace_new(&tr, &err) < 0) {
                        cli_out_discard(&out);
                        return cli_report_error(&err, path);
                }
                rc = tpa_read_path(tr, path, &ro, &err);
                cli_progress_done();
                if (rc < 0) {
                        rc = cli_report_error(&err, path);
                        tpa_trace_free(tr);
                        cli_out_discard(&out);
                        return rc;
                }
                cli_print_warnings(tr, path);
                if (i > 0)
                        fputc('\n', out.fp);
                tpa_report_read_summary(out.fp, tr, path);
                tpa_trace_free(tr);
        }
        return cli_out_commit(&out, args->output);
}
