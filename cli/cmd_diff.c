/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `tfprof-analyze diff BASE NEW`: compare two runs (traces or
 * saved JSON reports): step time change with a confidence interval, group
 * shifts, class changes, top-op changes. Exit 0 whatever the change; check
 * is the gate.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "run_load.h"

int cmd_diff(const cli_args *args)
{
        tpa_compare_options co = TPA_COMPARE_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *rules = NULL;
        tpa_run *base = NULL, *cur = NULL;
        tpa_comparison *c = NULL;
        cli_out out;
        int rc;

        if (args->input_count != 2) {
                /* a logdir run of several hosts is an input per host */
                cli_errorf("diff takes two inputs, BASE and NEW (%d given%s)", args->input_count,
                           args->ranks ? ": a logdir's run of several hosts is one per host; "
                                         "give one host's trace of each" : "");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (args->format != NULL && strcmp(args->format, "html") == 0) {
                cli_errorf("diff writes text, json or markdown, not html");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if ((rc = cli_load_rules(&rules, args)) != EXIT_OK)
                return rc;
        if ((rc = cli_load_run(&base, args->inputs[0], args, rules)) != EXIT_OK ||
            (rc = cli_load_run(&cur, args->inputs[1], args, rules)) != EXIT_OK)
                goto done;
        if (tpa_compare(&c, base, cur, &co, &err) < 0) {
                rc = cli_report_error(&err, NULL);
                goto done;
        }
        if ((rc = cli_out_begin(&out, args->output)) != EXIT_OK)
                goto done;
        if (args->format != NULL && strcmp(args->format, "json") == 0) {
                if (tpa_report_diff_json(out.fp, c, args->inputs[0], args->inputs[1],
                                         &err) < 0) {
                        cli_out_discard(&out);
                        rc = cli_report_error(&err, NULL);
                        goto done;
                }
        } else if (args->format != NULL && strcmp(args->format, "markdown") == 0) {
                tpa_report_diff_markdown(out.fp, c, args->inputs[0], args->inputs[1]);
        } else {
                tpa_report_diff_text(out.fp, c, args->inputs[0], args->inputs[1]);
        }
        rc = cli_out_commit(&out);
done:
        tpa_comparison_free(c);
        tpa_run_free(base);
        tpa_run_free(cur);
        tpa_rules_free(rules);
        return rc;
}
