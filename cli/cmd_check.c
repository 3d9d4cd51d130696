/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `tfprof-analyze check NEW [--baseline BASE
 * [--max-regression PCT]] [--fail-if EXPR] [--fail-on CLASS]`: the CI gate.
 * Each option may be repeated; every condition is checked and reported
 * ("ok:" or "FAIL:" with its figures, and why a regression tripped, in
 * text, json or markdown); exit 1 when any fails, else 0. A step time
 * regression counts only when it is significant (its confidence interval
 * excludes 0): one inside the noise is reported and does not fail. With
 * too few steps on a side for an interval, the limit alone decides. A run
 * with nothing to gate on (no steps, no verdict for --fail-on) is an
 * error, never a pass.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "job_load.h"
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

/* A metric look-up that keeps the first name it did not know: the one
 * that failed an evaluation (the rules ask for a name as they meet it). */
struct noting_lookup {
        tpa_metric_fn fn;
        void         *ctx;
        char          unknown[64];
};

static bool noting_metric_fn(void *ctx, const char *name, size_t len, double *out)
{
        struct noting_lookup *l = ctx;

        if (l->fn(l->ctx, name, len, out))
                return true;
        if (l->unknown[0] == '\0' && len < sizeof(l->unknown)) {
                memcpy(l->unknown, name, len);
                l->unknown[len] = '\0';
        }
        return false;
}

/* The metrics `expr` names, with their values for the run: what a --fail-if
 * line shows beside "true" or "false". Words that are no metric of the run
 * (and, or, not, function and threshold names) are left out. */
static void expr_metrics(tpa_check *k, const tpa_rules *rules, tpa_metric_fn fn, void *ctx)
{
        const char *p = k->expr;

        while (*p != '\0' && k->metric_count < TPA_CHECK_METRICS_MAX) {
                const char *start = p;
                size_t len;
                double v, t;
                bool seen = false;

                if (*p >= '0' && *p <= '9') {   /* a number and its unit: 20%, 1.5ms */
                        while (*p != '\0' && (isalnum((unsigned char)*p) || *p == '.' ||
                                              *p == '%'))
                                p++;
                        continue;
                }
                if (!isalpha((unsigned char)*p) && *p != '_') {
                        p++;
                        continue;
                }
                while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
                        p++;
                len = (size_t)(p - start);
                if (len >= sizeof(k->metrics[0].name))
                        continue;
                for (size_t i = 0; i < k->metric_count; i++)
                        seen |= strlen(k->metrics[i].name) == len &&
                                memcmp(k->metrics[i].name, start, len) == 0;
                memcpy(k->metrics[k->metric_count].name, start, len);
                k->metrics[k->metric_count].name[len] = '\0';
                if (seen || tpa_rules_threshold(rules, k->metrics[k->metric_count].name, &t) ||
                    !fn(ctx, start, len, &v))
                        continue;
                k->metrics[k->metric_count++].value = v;
        }
}

/* The report in the format asked for; an exit code. */
static int write_checks(FILE *fp, const cli_args *args, const tpa_check *checks, size_t n)
{
        tpa_error err = TPA_ERROR_INIT;

        if (args->format == NULL || strcmp(args->format, "text") == 0)
                tpa_report_check_text(fp, checks, n);
        else if (strcmp(args->format, "markdown") == 0)
                tpa_report_check_markdown(fp, checks, n, args->inputs[0]);
        else if (tpa_report_check_json(fp, checks, n, args->inputs[0], &err) < 0)
                return cli_report_error(&err, NULL);
        return EXIT_OK;
}

/* The checks' report to -o (or stdout), then the exit status: 1 when one
 * tripped. */
static int emit_checks(const cli_args *args, const tpa_check *checks, size_t n, bool tripped)
{
        cli_out out;
        int rc;

        if ((rc = cli_out_begin(&out, args->output)) != EXIT_OK)
                return rc;
        if ((rc = write_checks(out.fp, args, checks, n)) != EXIT_OK) {
                cli_out_discard(&out);
                return rc;
        }
        rc = cli_out_commit(&out);
        return rc == EXIT_OK && tripped ? EXIT_GATE : rc;
}

/* check of a job: several inputs (or --ranks) are the ranks of one job,
 * reports or traces, and each --fail-if is evaluated over the job metrics
 * (doc/metrics.md): `--fail-if 'straggler_excess > 10%'`. */
static int check_job(const cli_args *args)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *rules = NULL;
        tpa_check *checks = NULL;
        cli_job j = { 0 };
        bool tripped = false;
        int rc;

        if (args->baseline_count + args->fail_on_count > 0 || args->fail_if_count == 0) {
                cli_errorf("check of several ranks takes --fail-if over the job metrics "
                           "only");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (args->format != NULL && strcmp(args->format, "html") == 0)
                return usage("check writes text, json or markdown, not", args->format);
        if ((rc = cli_load_rules(&rules, args)) != EXIT_OK)
                return rc;
        if ((rc = cli_load_job(&j, args, rules)) != EXIT_OK)
                goto done;
        if (j.job->step_count == 0) {
                cli_errorf("nothing to gate on: no step is kept by any rank");
                rc = EXIT_INPUT;
                goto done;
        }
        if ((checks = calloc((size_t)args->fail_if_count, sizeof(*checks))) == NULL) {
                cli_errorf("out of memory");
                rc = EXIT_INTERNAL;
                goto done;
        }
        for (int i = 0; i < args->fail_if_count; i++) {
                tpa_check *k = &checks[i];
                double v;

                if (tpa_rules_eval(rules, args->fail_if[i], tpa_job_metric_fn, j.job, &v,
                                   &err) < 0) {
                        rc = cli_report_error(&err, "--fail-if");
                        goto done;
                }
                k->kind = TPA_CHECK_EXPR;
                k->expr = args->fail_if[i];
                k->tripped = v != 0;
                tripped |= k->tripped;
                expr_metrics(k, rules, tpa_job_metric_fn, j.job);
        }
        rc = emit_checks(args, checks, (size_t)args->fail_if_count, tripped);
done:
        free(checks);
        cli_job_free(&j);
        tpa_rules_free(rules);
        return rc;
}

int cmd_check(const cli_args *args)
{
        tpa_compare_options co = TPA_COMPARE_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *rules = NULL;
        tpa_run *base[CLI_BASELINE_MAX] = { NULL }, *cur = NULL;
        tpa_comparison *cmp[CLI_BASELINE_MAX] = { NULL };
        tpa_check *checks = NULL;
        double max = DEFAULT_MAX_REGRESSION, v;
        size_t n = 0;
        bool tripped = false;
        int rc;

        /* TF1 timelines given together (a ProfilerHook folder) are the
         * steps of one run, as analyze reads them; other inputs are ranks */
        bool tf1 = args->input_count > 1 && !args->ranks &&
                   cli_tf1_timelines(args->inputs, args->input_count);

        if (!tf1 && (args->input_count > 1 || args->ranks))
                return check_job(args);
        if (args->input_count < 1) {
                cli_errorf("check takes one input, NEW (%d given)", args->input_count);
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (args->format != NULL && strcmp(args->format, "html") == 0)
                return usage("check writes text, json or markdown, not", args->format);
        if (args->max_regression != NULL && !parse_pct(args->max_regression, &max))
                return usage("--max-regression takes a percentage such as 5%, not",
                             args->max_regression);
        if (args->max_regression != NULL && args->baseline_count == 0) {
                cli_errorf("--max-regression needs --baseline");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (args->baseline_count + args->fail_if_count + args->fail_on_count == 0) {
                cli_errorf("check needs --baseline, --fail-if or --fail-on");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if ((rc = cli_load_rules(&rules, args)) != EXIT_OK)
                return rc;
        for (int i = 0; i < args->fail_on_count; i++) {
                if (!known_class(rules, args->fail_on[i])) {
                        rc = usage("--fail-on: unknown class", args->fail_on[i]);
                        class_list(rules);
                        goto done;
                }
        }
        checks = calloc((size_t)(args->baseline_count + args->fail_if_count +
                                 args->fail_on_count), sizeof(*checks));
        if (checks == NULL) {
                cli_errorf("out of memory");
                rc = EXIT_INTERNAL;
                goto done;
        }
        if ((rc = tf1 ? cli_load_run_paths(&cur, args->inputs, args->input_count, args, rules)
                      : cli_load_run(&cur, args->inputs[0], args, rules)) != EXIT_OK)
                goto done;
        /* a run with no verdict (no training steps in it) has nothing to
         * gate on: an error, never a pass */
        if (cur->no_verdict != NULL) {
                cli_errorf("%s: nothing to gate on: %s", args->inputs[0], cur->no_verdict);
                rc = EXIT_INPUT;
                goto done;
        }
        if (args->fail_on_count > 0 && cur->run_class == NULL) {
                cli_errorf("%s: the run has no verdict: nothing for --fail-on to gate on",
                           args->inputs[0]);
                rc = EXIT_INPUT;
                goto done;
        }
        /* Every condition is checked, in the order of the options' kinds,
         * and each reports: one that trips does not hide the others. */
        for (int i = 0; i < args->baseline_count; i++) {
                tpa_check *k = &checks[n++];

                if ((rc = cli_load_run(&base[i], args->baseline[i], args, rules)) != EXIT_OK)
                        goto done;
                /* a baseline with no verdict (no training steps in it) has
                 * no step time to hold NEW to: an error, as for NEW */
                if (base[i]->no_verdict != NULL) {
                        cli_errorf("%s: nothing to compare against: %s", args->baseline[i],
                                   base[i]->no_verdict);
                        rc = EXIT_INPUT;
                        goto done;
                }
                /* one step for a whole trace against iterations compares a
                 * profile's length with a step's: an error, never a verdict */
                if (base[i]->no_markers != cur->no_markers) {
                        cli_errorf("%s: one step for the whole trace (no step marker or "
                                   "iteration found) against %s's steps: not comparable; "
                                   "mark the steps (--step-marker, prof.step())",
                                   base[i]->no_markers ? args->baseline[i] : args->inputs[0],
                                   base[i]->no_markers ? args->inputs[0] : args->baseline[i]);
                        rc = EXIT_INPUT;
                        goto done;
                }
                if (tpa_compare(&cmp[i], base[i], cur, &co, &err) < 0) {
                        rc = cli_report_error(&err, NULL);
                        goto done;
                }
                k->kind = TPA_CHECK_REGRESSION;
                k->baseline = args->baseline[i];
                k->cmp = cmp[i];
                k->max_regression = max;
                /* Above the limit and outside the noise; with too few steps
                 * for a noise estimate, the limit alone decides. */
                k->tripped = cmp[i]->median.rel > max && cmp[i]->median.significant;
        }
        for (int i = 0; i < args->fail_if_count; i++) {
                tpa_check *k = &checks[n++];

                struct noting_lookup look = { .fn = tpa_run_metric_fn, .ctx = cur };

                if (tpa_rules_eval(rules, args->fail_if[i], noting_metric_fn, &look, &v,
                                   &err) < 0) {
                        const char *lacked = cur->ops_partial
                                                     ? cli_report_lacks_metric(cur, look.unknown)
                                                     : NULL;

                        /* a metric of this version that a saved report of
                         * an earlier one lacks: the input's fault, named */
                        if (err.code == TPA_ERULE && lacked != NULL) {
                                cli_errorf("%s: the saved report has no metric '%s' (an earlier "
                                           "tfprof-analyze wrote it): analyze the trace again "
                                           "to gate on it", args->inputs[0], lacked);
                                rc = EXIT_INPUT;
                        } else {
                                rc = cli_report_error(&err, "--fail-if");
                        }
                        goto done;
                }
                k->kind = TPA_CHECK_EXPR;
                k->expr = args->fail_if[i];
                k->tripped = v != 0;
                expr_metrics(k, rules, tpa_run_metric_fn, cur);
        }
        for (int i = 0; i < args->fail_on_count; i++) {
                tpa_check *k = &checks[n++];

                k->kind = TPA_CHECK_CLASS;
                k->class_name = args->fail_on[i];
                k->run_class = cur->run_class;
                k->tripped = strcmp(cur->run_class, args->fail_on[i]) == 0;
        }
        for (size_t i = 0; i < n; i++)
                tripped |= checks[i].tripped;
        rc = emit_checks(args, checks, n, tripped);
done:
        free(checks);
        for (int i = 0; i < CLI_BASELINE_MAX; i++) {
                tpa_comparison_free(cmp[i]);
                tpa_run_free(base[i]);
        }
        tpa_run_free(cur);
        tpa_rules_free(rules);
        return rc;
}
