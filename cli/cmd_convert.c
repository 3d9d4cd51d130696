/* SPDX-License-Identifier: MIT */
/*
 * cmd_convert.c - `convert IN... -o OUT.json[.gz]`: RunMetadata, tfevents,
 * XSpace (or any trace we read) to Chrome trace JSON, as TF's Timeline API
 * does without TensorFlow. Several inputs read into one trace: several
 * RunMetadata files become several steps. A logdir among the inputs stands
 * for the hosts of its newest run.
 */
#include <stdio.h>
#include <string.h>

#include <tpa/chrome_writer.h>

#include "cmd_logdir.h"
#include "commands.h"
#include "output.h"
#include "run_load.h"

/* Read every input into `tr`; print warnings. Returns an exit code. */
static int read_inputs(tpa_trace *tr, const cli_args *args, const char *const *paths, int n)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;

        ro.strict = args->strict;
        ro.max_events = args->max_events;
        for (int i = 0; i < n; i++) {
                size_t before = tpa_trace_event_count(tr);

                /* a saved report holds no events: no trace to write */
                if (strcmp(paths[i], "-") != 0 && cli_is_report(paths[i])) {
                        cli_errorf("%s: a saved report, not a trace: nothing to convert "
                                   "(analyze shows it)", paths[i]);
                        return EXIT_INPUT;
                }
                if (tpa_read_path(tr, paths[i], &ro, &err) < 0)
                        return cli_report_error(&err, paths[i]);
                /* A TensorBoard events file of scalars: refused as analyze
                 * refuses it, not written out as an empty trace and exit 0 */
                if (tpa_trace_format(tr) == TPA_FORMAT_TFEVENTS &&
                    tpa_trace_event_count(tr) == before) {
                        cli_errorf("%s: %s: nothing to convert", paths[i],
                                   cli_no_events_reason(tr));
                        return EXIT_INPUT;
                }
                cli_print_warnings(tr, paths[i]);
        }
        return EXIT_OK;
}

static int convert(const cli_args *args)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w = NULL;
        tpa_trace *tr = NULL;
        cli_out out;
        int rc;

        if (args->input_count == 0) {
                cli_errorf("convert: no trace given");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (tpa_trace_new(&tr, &err) < 0)
                return cli_report_error(&err, NULL);
        rc = read_inputs(tr, args, args->inputs, args->input_count);
        if (rc != EXIT_OK)
                goto out;
        if ((rc = cli_out_begin_chrome(&out, &w, args->output)) != EXIT_OK)
                goto out;
        if (tpa_chrome_writer_add(w, tr, NULL, &err) < 0) {
                cli_out_discard_chrome(&out, w);
                rc = cli_out_error(&err);
                goto out;
        }
        rc = cli_out_commit_chrome(&out, w);
out:
        tpa_trace_free(tr);
        return rc;
}

/* A logdir among the inputs stands for the hosts of its newest run. */
int cmd_convert(const cli_args *args)
{
        cli_expanded e;
        bool listed;
        int rc = cli_logdir_expand(args, &e, &listed);

        if (rc == EXIT_OK)
                rc = convert(&e.args);
        cli_logdir_free(&e);
        return rc;
}
