/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `tfprof-analyze check NEW [--baseline BASE
 * [--max-regression PCT]] [--fail-if EXPR] [--fail-on CLASS]`: the CI gate.
 * Each condition prints one line on stdout, "ok:" or "FAIL:" with the
 * figures; exit 1 when any fails, else 0. A step time regression counts
 * only when it is significant (its confidence interval excludes 0): one
 * inside the noise is reported and does not fail.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "run_load.h"

#define DEFAULT_MAX_REGRESSION 0.05

static int usage(const char *msg, const char *arg)
{
        cli_errorf("%s '%s'", msg, arg);
        fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
        return EXIT_USAGE;
}

/* "5%", "5" (both percent) or "2.5%"; >= 0. */
static bool parse_pct(const char *s, double *out)
{
        char *end;
        double v;

        errno = 0;
        v = strtod(s, &end);
        if (end == s || errno != 0 || !isfinite(v) || v < 0)
                return false;
        if (*end == '%')
                end++;
        if (*end != '\0')
                return false;
        *out = v / 100.0;
        return true;
}

static bool known_class(const tpa_rules *r, const char *name)
{
        for (size_t i = 0; i < tpa_rules_class_count(r); i++)
                if (strcmp(tpa_rules_class_name(r, i), name) == 0)
                        return true;
        return false;
}

static void class_list(const tpa_rules *r)
{
        fprintf(stderr, "tfprof-analyze: the classes are:");
        for (size_t i = 0; i < tpa_rules_class_count(r); i++)
                fprintf(stderr, "%s %s", i ? "," : "", tpa_rules_class_name(r, i));
        fputc('\n', stderr);
}

static bool check_regression(FILE *fp, const tpa_comparison *c, double max)
{
        const tpa_change *m = &c->median;
        char ci[80] = "";

        if (!m->too_few)
                snprintf(ci, sizeof(ci), ", 95%% CI %+.1f%% .. %+.1f%%", m->ci_lo * 100,
                         m->ci_hi * 100);
        if (m->rel <= max) {
                fprintf(fp, "ok: median step time %+.1f%% (%.0f -> %.0f ns%s) is within the "
                        "%.1f%% limit\n", m->rel * 100, m->base_ns, m->new_ns, ci, max * 100);
                return false;
        }
        if (!m->significant) {
                fprintf(fp, "ok: median step time %+.1f%% (%.0f -> %.0f ns%s) exceeds the "
                        "%.1f%% limit but is inside the noise (not significant); not "
                        "failing\n", m->rel * 100, m->base_ns, m->new_ns, ci, max * 100);
                return false;
        }
        fprintf(fp, "FAIL: median step time regressed %+.1f%% (%.0f -> %.0f ns%s), above the "
                "%.1f%% limit%s\n", m->rel * 100, m->base_ns, m->new_ns, ci, max * 100,
                m->too_few ? " (too few steps to estimate noise)" : "");
        return true;
}

int cmd_check(const cli_args *args)
{
        tpa_compare_options co = TPA_COMPARE_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *rules = NULL;
        tpa_run *base = NULL, *cur = NULL;
        tpa_comparison *c = NULL;
        double max = DEFAULT_MAX_REGRESSION, v;
        bool tripped = false;
        cli_out out;
        int rc;

        if (args->input_count != 1) {
                cli_errorf("check takes one input, NEW (%d given)", args->input_count);
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (args->format != NULL && strcmp(args->format, "text") != 0)
                return usage("check writes text only, not", args->format);
        if (args->max_regression != NULL && !parse_pct(args->max_regression, &max))
                return usage("--max-regression takes a percentage such as 5%, not",
                             args->max_regression);
        if (args->max_regression != NULL && args->baseline == NULL) {
                cli_errorf("--max-regression needs --baseline");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (args->baseline == NULL && args->fail_if == NULL && args->fail_on == NULL) {
                cli_errorf("check needs --baseline, --fail-if or --fail-on");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if ((rc = cli_load_rules(&rules, args)) != EXIT_OK)
                return rc;
        if (args->fail_on != NULL && !known_class(rules, args->fail_on)) {
                rc = usage("--fail-on: unknown class", args->fail_on);
                class_list(rules);
                goto done;
        }
        if ((rc = cli_load_run(&cur, args->inputs[0], args, rules)) != EXIT_OK)
                goto done;
        if (args->baseline != NULL &&
            (rc = cli_load_run(&base, args->baseline, args, rules)) != EXIT_OK)
                goto done;
        if (base != NULL && tpa_compare(&c, base, cur, &co, &err) < 0) {
                rc = cli_report_error(&err, NULL);
                goto done;
        }
        if ((rc = cli_out_begin(&out, args->output)) != EXIT_OK)
                goto done;
        if (c != NULL)
                tripped |= check_regression(out.fp, c, max);
        if (args->fail_if != NULL) {
                if (tpa_rules_eval(rules, args->fail_if, tpa_run_metric_fn, cur, &v, &err) < 0) {
                        cli_out_discard(&out);
                        rc = cli_report_error(&err, "--fail-if");
                        goto done;
                }
                fprintf(out.fp, "%s: --fail-if '%s' is %s\n", v != 0 ? "FAIL" : "ok",
                        args->fail_if, v != 0 ? "true" : "false");
                tripped |= v != 0;
        }
        if (args->fail_on != NULL) {
                bool hit = cur->run_class != NULL && strcmp(cur->run_class, args->fail_on) == 0;
                fprintf(out.fp, "%s: the run is %s%s\n", hit ? "FAIL" : "ok",
                        cur->run_class != NULL ? cur->run_class : "not classified",
                        hit ? " (--fail-on)" : "");
                tripped |= hit;
        }
        rc = cli_out_commit(&out);
        if (rc == EXIT_OK && tripped)
                rc = EXIT_GATE;
done:
        tpa_comparison_free(c);
        tpa_run_free(base);
        tpa_run_free(cur);
        tpa_rules_free(rules);
        return rc;
}
