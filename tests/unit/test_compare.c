/* SPDX-License-Identifier: MIT */
/*
 * test_compare.c - the comparison of two runs: the bootstrap interval on
 * known samples (identical, shifted 10% with low noise, too few steps),
 * its determinism, group shifts, class and top-op changes, and the JSON
 * report loader's errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "analysis/results_build.h"
#include "tap.h"

/* 1 ms +- noise (deterministic: a fixed LCG). */
static void sample(tpa_ns *v, size_t n, double scale, double noise, uint32_t seed)
{
        for (size_t i = 0; i < n; i++) {
                seed = seed * 1664525u + 1013904223u;
                double u = (double)(seed >> 8) / 16777216.0 - 0.5;     /* -0.5 .. 0.5 */
                v[i] = (tpa_ns)(1e6 * scale * (1.0 + noise * u));
        }
}

static void test_compare__identical(void)
{
        tpa_ns a[30];
        tpa_change c;

        sample(a, 30, 1.0, 0.05, 1);
        ok(tpa_compare__quantile(&c, a, 30, a, 30, 0.5, NULL, NULL) == 0, "identical: runs");
        ok(c.rel == 0, "identical: change is 0 (%g)", c.rel);
        ok(c.ci_lo <= 0 && c.ci_hi >= 0, "identical: CI [%g, %g] holds 0", c.ci_lo, c.ci_hi);
        ok(!c.significant && !c.too_few, "identical: not significant");
}

static void test_compare__same_distribution(void)
{
        tpa_ns a[25], b[25];
        tpa_change c;

        sample(a, 25, 1.0, 0.10, 7);
        sample(b, 25, 1.0, 0.10, 99);
        ok(tpa_compare__quantile(&c, a, 25, b, 25, 0.5, NULL, NULL) == 0, "same: runs");
        ok(!c.significant, "same distribution, other draws: not significant (%+.3f, CI %+.3f"
           " .. %+.3f)", c.rel, c.ci_lo, c.ci_hi);
}

static void test_compare__shift(void)
{
        tpa_ns a[20], b[20];
        tpa_change c, c2, c90;

        sample(a, 20, 1.0, 0.02, 3);
        sample(b, 20, 1.1, 0.02, 4);
        ok(tpa_compare__quantile(&c, a, 20, b, 20, 0.5, NULL, NULL) == 0, "shift: runs");
        ok(fabs(c.rel - 0.10) < 0.02, "shift: change ~ +10%% (%g)", c.rel);
        ok(c.significant && c.ci_lo > 0.05 && c.ci_hi < 0.15, "shift: significant, CI "
           "[%g, %g] excludes 0 and holds 10%%", c.ci_lo, c.ci_hi);
        ok(tpa_compare__quantile(&c2, a, 20, b, 20, 0.5, NULL, NULL) == 0 &&
           c2.ci_lo == c.ci_lo && c2.ci_hi == c.ci_hi, "shift: the interval is deterministic");
        ok(tpa_compare__quantile(&c90, b, 20, a, 20, 0.9, NULL, NULL) == 0 &&
           c90.significant && c90.rel < 0, "shift: p90 the other way is a significant drop");
        {
                tpa_compare_options o = TPA_COMPARE_OPTIONS_INIT;
                o.seed = 12345;
                ok(tpa_compare__quantile(&c2, a, 20, b, 20, 0.5, &o, NULL) == 0 &&
                   c2.significant && c2.rel == c.rel, "shift: another seed, same verdict");
        }
}

static void test_compare__too_few(void)
{
        tpa_ns a[2] = { 1000000, 1000000 }, b[2] = { 1200000, 1200000 };
        tpa_change c;
        tpa_error err = TPA_ERROR_INIT;

        ok(tpa_compare__quantile(&c, a, 2, b, 2, 0.5, NULL, NULL) == 0, "too few: runs");
        ok(c.too_few && c.significant && fabs(c.rel - 0.2) < 1e-9,
           "too few: point estimate only (%g)", c.rel);
        ok(tpa_compare__quantile(&c, a, 0, b, 2, 0.5, NULL, &err) == TPA_EINVAL,
           "empty sample: TPA_EINVAL");
}

static tpa_run *make_run(double scale, const char *cls, const char *const *ops, size_t nops,
                         double input_frac)
{
        tpa_run *r;

        if (tpa_run__new(&r, NULL) < 0)
                abort();
        r->steps = calloc(10, sizeof(*r->steps));
        r->ops = calloc(nops + 1, sizeof(*r->ops));
        for (size_t i = 0; i < 10; i++) {
                tpa_ns t;
                sample(&t, 1, scale, 0.01, (uint32_t)i + 11);
                r->steps[i].number = (int64_t)i;
                r->steps[i].step_time = t;
                r->steps[i].class_name = strdup(cls);
                r->steps[i].group_frac[TPA_GROUP_INPUT] = input_frac;
                r->steps[i].group_frac[TPA_GROUP_COMPUTE] = 1 - input_frac;
        }
        r->step_count = 10;
        r->run_group_frac[TPA_GROUP_INPUT] = input_frac;
        r->run_group_frac[TPA_GROUP_COMPUTE] = 1 - input_frac;
        r->run_class = strdup(cls);
        for (size_t i = 0; i < nops; i++) {
                r->ops[i].name = strdup(ops[i]);
                r->ops[i].time = (tpa_ns)(1e6 * (double)(i + 1) * scale);
                r->ops[i].count = 10;
        }
        r->op_count = nops;
        return r;
}

static void test_compare__runs(void)
{
        static const char *const base_ops[] = { "matmul", "conv", "gone" };
        static const char *const new_ops[] = { "matmul", "conv", "fresh" };
        tpa_run *base = make_run(1.0, "input-bound", base_ops, 3, 0.6);
        tpa_run *cur = make_run(1.5, "compute-bound", new_ops, 3, 0.1);
        tpa_comparison *c = NULL;
        size_t added = 0, removed = 0, slower = 0;

        ok(tpa_compare(&c, base, cur, NULL, NULL) == 0, "runs: compare");
        ok(c->median.significant && c->median.rel > 0.4, "runs: +50%% is significant (%g)",
           c->median.rel);
        ok(fabs(c->shift_pp[TPA_GROUP_INPUT] + 50) < 1e-9, "runs: input shift -50 pp (%g)",
           c->shift_pp[TPA_GROUP_INPUT]);
        ok(c->class_changed, "runs: class changed");
        tap_eq((int64_t)c->class_count, 2, "runs: two classes");
        tap_streq(c->classes[0].name, "compute-bound", "runs: classes sorted by name");
        tap_eq((int64_t)c->classes[0].new_count, 10, "runs: 10 compute-bound steps in NEW");
        for (size_t i = 0; i < c->op_count; i++) {
                added += c->ops[i].kind == TPA_OP_ADDED;
                removed += c->ops[i].kind == TPA_OP_REMOVED;
                slower += c->ops[i].kind == TPA_OP_SLOWER;
        }
        ok(added == 1 && removed == 1 && slower == 2, "runs: 1 added, 1 removed, 2 slower");
        tap_streq(c->ops[0].name, "fresh", "runs: added first");
        tpa_comparison_free(c);
        {
                double v = 0;
                base->metrics = calloc(1, sizeof(*base->metrics));
                base->metrics[0].value = 0.6;
                base->metrics[0].name = strdup("input_frac");
                base->metric_count = 1;
                ok(tpa_run_metric_fn(base, "input_frac", 10, &v) && v == 0.6,
                   "run metric lookup");
                ok(!tpa_run_metric_fn(base, "input_fra", 9, &v), "run metric: exact names");
        }
        tpa_run_free(base);
        tpa_run_free(cur);
}

static void test_compare__load_errors(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_run *r = NULL;
        static const char bad_syntax[] = "{\"schema\": \"tfprof-analyze/report/v3\", \"x\": [1,}";
        static const char bad_schema[] = "{\"schema\": \"tfprof-analyze/report/v9\"}";
        static const char no_summary[] = "{\"schema\": \"tfprof-analyze/report/v3\"}";
        int rc;

        ok(tpa_report_sniff("  {\n \"schema\" : \"tfprof-analyze/report/v1", 41),
           "sniff: leading schema key, ours");
        /* torch.profiler.ExecutionTraceObserver's file: no report of ours */
        ok(!tpa_report_sniff("{\n  \"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 1", 44),
           "sniff: an execution trace's schema is not ours");
        ok(!tpa_report_sniff("{\"schema\": 1", 12), "sniff: a schema that names no tool");
        ok(!tpa_report_sniff("{\"traceEvents\": []}", 19), "sniff: a trace is not a report");
        rc = tpa_report_load_memory(&r, bad_syntax, sizeof(bad_syntax) - 1, &err);
        ok(rc == TPA_EFORMAT && err.has_offset && err.offset >= 45 && err.offset <= 50,
           "syntax error at offset %llu: %s", (unsigned long long)err.offset, err.msg);
        ok(tpa_report_load_memory(&r, bad_schema, sizeof(bad_schema) - 1, &err) ==
           TPA_EFORMAT && strstr(err.msg, "v9") != NULL, "wrong schema: %s", err.msg);
        ok(tpa_report_load_memory(&r, no_summary, sizeof(no_summary) - 1, &err) ==
           TPA_EFORMAT && strstr(err.msg, "summary") != NULL, "missing key: %s", err.msg);
        ok(r == NULL, "*out untouched on failure");
}

/* A run from a real analysis carries every run metric the rules see, and a
 * JSON report of it reads back to the same steps, classes, ops, metrics. */
static void test_compare__from_analysis(void)
{
        static const char *const names[] = { "step_time_ns", "input_frac", "gain_input_frac",
                                             "step_time_p90_ns", "kept_steps", "h2d_gbps" };
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        tpa_rules *rules = NULL;
        tpa_analysis *a = NULL;
        tpa_run *r = NULL, *back = NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *fp;
        double v, w;

        if (tpa_trace_new(&tr, &err) < 0 || tpa_rules_new_default(&rules, &err) < 0 ||
            tpa_read_path(tr, tap_testdata("kineto_small.json"), NULL, &err) < 0) {
                ok(false, "read kineto_small.json: %s", err.msg);
                return;
        }
        ao.rules = rules;
        ok(tpa_analyze(&a, tr, &ao, &err) == 0, "analyze: %s", err.msg);
        ok(tpa_run_from_analysis(&r, a, &err) == 0, "run from analysis");
        ok(r->metric_count >= 70, "run metrics: %zu", r->metric_count);
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                ok(tpa_run_metric_fn(r, names[i], strlen(names[i]), &v) &&
                   tpa_analysis_metric(a, -1, names[i], strlen(names[i]), &w) && v == w,
                   "run metric %s = the analysis's", names[i]);
        fp = open_memstream(&buf, &len);
        ok(tpa_report_json(fp, tr, a, "k.json", &err) == 0, "json report");
        fclose(fp);
        ok(tpa_report_load_memory(&back, buf, len, &err) == 0, "loads back: %s", err.msg);
        if (back != NULL) {
                tap_eq((int64_t)back->step_count, (int64_t)r->step_count, "same kept steps");
                for (size_t i = 0; i < r->step_count && i < back->step_count; i++)
                        ok(back->steps[i].step_time == r->steps[i].step_time &&
                           back->steps[i].number == r->steps[i].number,
                           "step %zu: same number and time", i);
                tap_streq(back->run_class, r->run_class, "same run class");
                tap_eq((int64_t)back->op_count, (int64_t)r->op_count, "same top ops");
                tap_eq((int64_t)back->metric_count, (int64_t)r->metric_count, "same metrics");
                tap_eq(back->step_time_median, r->step_time_median, "same median");
        }
        tpa_run_free(back);
        tpa_run_free(r);
        free(buf);
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(tr);
}

int main(void)
{
        test_compare__identical();
        test_compare__same_distribution();
        test_compare__shift();
        test_compare__too_few();
        test_compare__runs();
        test_compare__load_errors();
        test_compare__from_analysis();
        return tap_done();
}
