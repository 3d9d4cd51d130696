/* SPDX-License-Identifier: MIT */
/*
 * test_metrics.c - metrics.c: input host time, device idle gaps and the host events
 * that overlapped them, on small traces built in memory
 * (analysis_fixture.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>
#include <tpa/analysis.h>

#include "analysis/analysis_internal.h"

#include "analysis_fixture.h"
#include "tap.h"

/* Input work hidden under a kernel: input_host_frac counts it, input not. */
static void test_metrics__input_host(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        double host = -1, exposed = -1;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", 0, 60, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 40, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 60, 40, 0, 0);
        a = run(&b, NULL, 0);
        ok(tpa_analysis_metric(a, 0, "input_host_frac", 15, &host) && host == 0.6,
           "test_metrics__input_host: all host input work");
        ok(tpa_analysis_metric(a, 0, "input_frac", 10, &exposed) && exposed == 0.2,
           "test_metrics__input_host: the exposed part");
        ok(tpa_analysis_metric(a, -1, "input_host_frac", 15, &host) && host == 0.6,
           "test_metrics__input_host: run median");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_metrics__gap_host_events(void)
{
        tb b = mk(1);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 10, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 90, 10, 0, 0);
        ev(&b, b.host2, TPA_KIND_INPUT, "IteratorGetNext", 10, 70, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "Foo", 20, 10, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "tiny", 50, 0.001, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->gap_count, 2, "test_metrics__gap_host_events: two gaps");
        tap_eq(a->gaps[0].len, 40 * US, "test_metrics__gap_host_events: longest first");
        tap_eq(a->gaps[0].offset, 10 * US, "test_metrics__gap_host_events: offset");
        tap_streq(a->gaps[0].host[0].name, "IteratorGetNext", "test_metrics__gap_host_events: top event");
        ok(a->gaps[0].host[0].frac == 1.0, "test_metrics__gap_host_events: its share");
        tap_streq(a->gaps[0].host[1].name, "Foo", "test_metrics__gap_host_events: then Foo");
        ok(a->gaps[0].host[1].frac == 0.25, "test_metrics__gap_host_events: Foo's share");
        tap_streq(a->gaps[1].host[0].name, "IteratorGetNext", "test_metrics__gap_host_events: second gap");
        ok(a->gaps[1].host[0].frac > 0.74 && a->gaps[1].host[0].frac < 0.76,
           "test_metrics__gap_host_events: partial overlap");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The run's top gaps, as many as asked, the same as every gap sorted:
 * longest first, then earliest, then by device. 300 steps on two GPUs,
 * one hole each per step, of 12 lengths (so that many tie on length),
 * GPU 1's at GPU 0's start and length every third step (a tie on both). */
struct want_gap {
        tpa_ns len, start;
        int    device;
};

static int cmp_want(const void *pa, const void *pb)
{
        const struct want_gap *x = pa, *y = pb;

        if (x->len != y->len)
                return x->len > y->len ? -1 : 1;
        if (x->start != y->start)
                return x->start < y->start ? -1 : 1;
        return x->device - y->device;
}

static void test_metrics__top_gaps(void)
{
        enum { STEPS = 300 };
        static struct want_gap want[2 * STEPS];
        static const int tops[] = { 1, 5, 37, 1000 };
        size_t nw = 0;
        tb b = mk(2);

        for (int k = 0; k < STEPS; k++) {
                double t0 = k * 1000.0;
                char name[32];

                snprintf(name, sizeof(name), "ProfilerStep#%d", k);
                ev(&b, b.host, TPA_KIND_STEP, name, t0, 1000, 0, 0);
                for (int d = 0; d < 2; d++) {
                        int len = 10 + (k * 7 + d * 3 * (k % 3 != 0)) % 12 * 5;
                        int at = d == 1 && k % 3 == 0 ? 100 : 100 + d * 50 + k % 5 * 10;

                        ev(&b, d ? b.gpu1 : b.gpu0, TPA_KIND_KERNEL, "k", t0, at, 0, 0);
                        ev(&b, d ? b.gpu1 : b.gpu0, TPA_KIND_KERNEL, "k", t0 + at + len,
                           1000 - at - len, 0, 0);
                        want[nw++] = (struct want_gap){ (tpa_ns)len * US,
                                                        (tpa_ns)(t0 + at) * US, d };
                }
        }
        qsort(want, nw, sizeof(want[0]), cmp_want);
        for (size_t t = 0; t < sizeof(tops) / sizeof(tops[0]); t++) {
                for (int threads = 1; threads <= 2; threads++) {
                        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                        tpa_error err = TPA_ERROR_INIT;
                        tpa_analysis *a = NULL;
                        size_t n = (size_t)tops[t] < nw ? (size_t)tops[t] : nw, bad = 0;

                        o.threads = threads;
                        o.warmup = 0;
                        o.top_n = tops[t];
                        if (tpa_analyze(&a, b.tr, &o, &err) < 0) {
                                printf("# tpa_analyze: %s\n", err.msg);
                                ok(false, "test_metrics__top_gaps: analysis");
                                continue;
                        }
                        tap_eq((int64_t)a->step_count, STEPS, "test_metrics__top_gaps: steps");
                        tap_eq((int64_t)a->gap_count, (int64_t)n,
                               "test_metrics__top_gaps: top %d, %d thread(s): how many",
                               tops[t], threads);
                        for (size_t i = 0; i < n && i < a->gap_count; i++)
                                bad += a->gaps[i].len != want[i].len ||
                                       a->gaps[i].start != want[i].start ||
                                       a->gaps[i].device != want[i].device;
                        tap_eq((int64_t)bad, 0,
                               "test_metrics__top_gaps: top %d, %d thread(s): in order",
                               tops[t], threads);
                        tpa_analysis_free(a);
                }
        }
        tpa_trace_free(b.tr);
}

/* The host events that explain a gap, when the top gaps of two devices
 * nest: an event inside the outer gap after the inner one ends still
 * overlaps the outer one (metrics.c asks the latest end of the gaps that
 * start before an event, not the end of the last of them). */
static void test_metrics__nested_gaps(void)
{
        tb b = mk(2);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 10, 0, 0);      /* GPU 0 idle 10-50 */
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 50, 50, 0, 0);
        ev(&b, b.gpu1, TPA_KIND_KERNEL, "k", 0, 30, 0, 0);      /* GPU 1 idle 30-40 */
        ev(&b, b.gpu1, TPA_KIND_KERNEL, "k", 40, 60, 0, 0);
        ev(&b, b.host2, TPA_KIND_HOST_OP, "Both", 35, 2, 0, 0);
        ev(&b, b.host2, TPA_KIND_HOST_OP, "OuterLate", 42, 4, 0, 0);
        ev(&b, b.host2, TPA_KIND_HOST_OP, "Neither", 60, 10, 0, 0);
        a = run(&b, NULL, 0);
        if (!ok(a != NULL && a->gap_count == 2, "test_metrics__nested_gaps: two gaps")) {
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
                return;
        }
        tap_eq(a->gaps[0].len, 40 * US, "test_metrics__nested_gaps: the outer first");
        tap_streq(a->gaps[0].host[0].name, "OuterLate",
                  "test_metrics__nested_gaps: outer: the event after the inner gap");
        tap_streq(a->gaps[0].host[1].name, "Both", "test_metrics__nested_gaps: outer: both");
        ok(a->gaps[0].host[2].name == NULL || strcmp(a->gaps[0].host[2].name, "Neither") != 0,
           "test_metrics__nested_gaps: outer: not the event after it");
        tap_streq(a->gaps[1].host[0].name, "Both", "test_metrics__nested_gaps: inner: both");
        ok(a->gaps[1].host[1].name == NULL, "test_metrics__nested_gaps: inner: only that one");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A Kineto trace with no step marker and no work in it (PyTorch's
 * export_chrome_trace() after its schedule's cycle had ended: the
 * profiler's own span and instants alone) has no verdict; with one op in
 * it, it has. */
static void test_metrics__nothing_recorded(void)
{
        for (int op = 0; op < 2; op++) {
                char json[1024];
                tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                tpa_analysis *a = NULL;
                tpa_trace *tr;
                snprintf(json, sizeof(json),
                         "{\"schemaVersion\": 1, \"traceEvents\": ["
                         "{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", "
                         "\"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": 100, \"dur\": 200},"
                         "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", "
                         "\"pid\": \"\", \"tid\": \"\", \"ts\": 310}%s]}",
                         op ? ",{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                              "\"pid\": 7, \"tid\": 7, \"ts\": 120, \"dur\": 50}" : "");
                tr = read_json(json);
                o.warmup = 0;
                if (tr == NULL || tpa_analyze(&a, tr, &o, &err) < 0)
                        printf("# %s\n", err.msg);
                if (op)
                        ok(a != NULL && a->no_verdict == NULL,
                           "test_metrics__nothing_recorded: an op: a verdict");
                else
                        ok(a != NULL && a->no_verdict != NULL &&
                           strstr(a->no_verdict, "recorded no") != NULL,
                           "test_metrics__nothing_recorded: no verdict (%s)",
                           a != NULL && a->no_verdict != NULL ? a->no_verdict : "none");
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A Kineto trace whose host launched kernels (cudaLaunchKernel with a
 * correlation id) but holds no device activity (the records dropped, the
 * device not recorded) is no CPU-only run: its host ops are the device's
 * dispatch, not its compute. No verdict, the launches counted; with its
 * kernels, a GPU trace as any other. */
static void test_metrics__device_unrecorded(void)
{
        for (int kernels = 0; kernels < 2; kernels++) {
                char json[2048], dev[512] = "";
                tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                tpa_analysis *a = NULL;
                tpa_trace *tr;

                if (kernels)
                        snprintf(dev, sizeof(dev),
                                 ",{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", "
                                 "\"pid\": 0, \"tid\": 7, \"ts\": 130, \"dur\": 60, "
                                 "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11}},"
                                 "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", "
                                 "\"pid\": 0, \"tid\": 7, \"ts\": 330, \"dur\": 60, "
                                 "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 12}}");
                snprintf(json, sizeof(json),
                         "{\"schemaVersion\": 1, \"traceEvents\": ["
                         "{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                         "\"name\": \"ProfilerStep#1\", \"pid\": 9, \"tid\": 9, "
                         "\"ts\": 100, \"dur\": 200},"
                         "{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                         "\"name\": \"ProfilerStep#2\", \"pid\": 9, \"tid\": 9, "
                         "\"ts\": 300, \"dur\": 200},"
                         "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                         "\"pid\": 9, \"tid\": 9, \"ts\": 110, \"dur\": 30},"
                         "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
                         "\"name\": \"cudaLaunchKernel\", \"pid\": 9, \"tid\": 9, "
                         "\"ts\": 120, \"dur\": 10, \"args\": {\"correlation\": 11}},"
                         "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                         "\"pid\": 9, \"tid\": 9, \"ts\": 310, \"dur\": 30},"
                         "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
                         "\"name\": \"cudaLaunchKernel\", \"pid\": 9, \"tid\": 9, "
                         "\"ts\": 320, \"dur\": 10, \"args\": {\"correlation\": 12}}%s]}",
                         dev);
                tr = read_json(json);
                o.warmup = 0;
                if (tr == NULL || tpa_analyze(&a, tr, &o, &err) < 0)
                        printf("# %s\n", err.msg);
                if (kernels) {
                        ok(a != NULL && !a->cpu_only && a->unrecorded_launches == 0 &&
                           a->no_verdict == NULL,
                           "test_metrics__device_unrecorded: with its kernels: a GPU trace");
                } else {
                        ok(a != NULL && a->cpu_only && a->unrecorded_launches == 2,
                           "test_metrics__device_unrecorded: 2 launches, no device (%zu)",
                           a != NULL ? a->unrecorded_launches : 0);
                        ok(a != NULL && a->no_verdict != NULL &&
                           strstr(a->no_verdict, "not in the trace") != NULL,
                           "test_metrics__device_unrecorded: no verdict (%s)",
                           a != NULL && a->no_verdict != NULL ? a->no_verdict : "none");
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A launch call of a millisecond or more is the runtime loading the
 * kernel on its first use (a public A100 trace of one forward pass: one
 * cudaLaunchKernel of 322 ms, 16 over 1 ms held 440 of its 446 ms of
 * launch time): the advice says so, not CUDA graphs. Ten launches of
 * 100 us with the device idle between are launch cost, and so are ten of
 * 1.5 ms (a profiler replaying each kernel for its counters: CUPTI's range
 * profiler). */
static void test_metrics__slow_launches(void)
{
        for (int slow = 0; slow < 3; slow++) {
                char json[8192];
                size_t len;
                tpa_trace *tr;
                tpa_analysis *a;

                len = (size_t)snprintf(json, sizeof(json), "{\"schemaVersion\": 1, "
                                       "\"traceEvents\": [");
                for (int k = 0; k < 10; k++) {
                        int at = (slow == 2 ? 1600 : 200) * k;
                        int dur = slow == 2 || (slow == 1 && k == 0) ? 1500 : 100;
                        if (slow == 1 && k > 0)
                                at += 1400;
                        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                "%s{\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
                                "\"name\": \"cudaLaunchKernel\", \"pid\": 9, \"tid\": 9, "
                                "\"ts\": %d, \"dur\": %d, \"args\": {\"correlation\": %d}},"
                                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                                "\"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 50, "
                                "\"args\": {\"device\": 0, \"stream\": 7, "
                                "\"correlation\": %d}}",
                                k ? "," : "", at, dur, k + 1, at + dur + 10, k + 1);
                }
                snprintf(json + len, sizeof(json) - len, "]}");
                tr = read_json(json);
                a = analyze_default(tr);
                if (ok(a != NULL && a->step_count == 1 && !a->cpu_only,
                       "test_metrics__slow_launches: %d: one GPU step", slow)) {
                        ok(metric(a, 0, "launch_slow_ns") == (slow == 2 ? 10 : slow) * 1500 * US,
                           "test_metrics__slow_launches: %d: launch_slow_ns (%g)", slow,
                           metric(a, 0, "launch_slow_ns"));
                        ok(has_finding(a, "host_launch_first_use") == (slow == 1) &&
                           has_finding(a, "host_launch_cuda") == (slow != 1),
                           "test_metrics__slow_launches: %d: %s", slow,
                           slow == 1 ? "first use, not launch cost" : "launch cost");
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* One long Python stretch a step (a generator that sleeps before the
 * step's first op) is the longest Python gap, and the finding names it,
 * not torch.compile's advice; many short gaps are not one stretch, nor is
 * one stretch under stretch.min (Python's own pace between ops). A
 * Kineto trace, read from JSON so that it is PyTorch's. Case 0: six ops,
 * 1 ms of Python before each; 1: 6 ms of Python, then 4 of ops; 2: the
 * same in steps of 100 us (a stretch of 60 us). */
static void test_metrics__python_stretch(void)
{
        for (int c = 0; c < 3; c++) {
                int u = c == 2 ? 1 : 100;       /* us per unit of the shape */
                char json[4096];
                size_t n = 0;
                tpa_analysis *a;
                tpa_trace *tr;
                double most = -1, frac = -1;
#define OP(name, ts, dur) \
        n += (size_t)snprintf(json + n, sizeof(json) - n, ",{\"ph\": \"X\", \"cat\": " \
                              "\"cpu_op\", \"name\": \"%s\", \"pid\": 7, \"tid\": 7, " \
                              "\"ts\": %d, \"dur\": %d}", name, ts, dur)
                n += (size_t)snprintf(json, sizeof(json), "{\"schemaVersion\": 1, "
                                      "\"traceEvents\": [{\"ph\": \"M\", \"name\": "
                                      "\"process_name\", \"pid\": 7, \"args\": {\"name\": "
                                      "\"python\"}}");
                for (int k = 0; k < 4; k++) {
                        int t = (1000 + k * 100) * u;
                        char step[32];
                        snprintf(step, sizeof(step), "ProfilerStep#%d", k + 1);
                        n += (size_t)snprintf(json + n, sizeof(json) - n, ",{\"ph\": \"X\", "
                                              "\"cat\": \"user_annotation\", \"name\": "
                                              "\"%s\", \"pid\": 7, \"tid\": 7, \"ts\": %d, "
                                              "\"dur\": %d}", step, t, 100 * u);
                        if (c > 0) {
                                OP("aten::mm", t + 60 * u, 40 * u);
                        } else {
                                for (int j = 0; j < 6; j++)
                                        OP("aten::mm", t + (10 + j * 15) * u, 5 * u);
                                OP("aten::add", t + 95 * u, 5 * u);
                        }
                }
#undef OP
                snprintf(json + n, sizeof(json) - n, "]}");
                tr = read_json(json);
                a = analyze_default(tr);
                ok(a != NULL && tpa_analysis_metric(a, -1, "host_gap_max_ns", 15, &most) &&
                   most == (c > 0 ? 60 : 10) * u * US,
                   "test_metrics__python_stretch: %d: the longest gap", c);
                ok(a != NULL && tpa_analysis_metric(a, -1, "host_gap_max_frac", 17, &frac) &&
                   fabs(frac - (c > 0 ? 0.6 : 0.1)) < 1e-9,
                   "test_metrics__python_stretch: %d: its share", c);
                ok(a != NULL && has_finding(a, "host_python_stretch") == (c == 1) &&
                   has_finding(a, "host_python_torch") == (c != 1),
                   "test_metrics__python_stretch: %d: the finding", c);
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A checkpoint every third step: a stretch of 300 units with no op in
 * those steps, none in the others (5 units of Python at each edge of the
 * op). The run's longest gap is weighed as its Python time is, over the
 * kept time: (4 * 5 + 2 * 305) / 1200 of it, 105 units a step on average;
 * the median (5 units) read 'torch.compile' for the run. In 100 us units. */
static void test_metrics__python_stretch_some_steps(void)
{
        char json[4096];
        size_t n = 0;
        tpa_analysis *a;
        tpa_trace *tr;
        double most = -1, frac = -1;
        int t = 100000;

        n += (size_t)snprintf(json, sizeof(json), "{\"schemaVersion\": 1, \"traceEvents\": "
                              "[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, "
                              "\"args\": {\"name\": \"python\"}}");
        for (int k = 0; k < 6; k++) {
                int len = k % 3 == 2 ? 400 : 100;
                n += (size_t)snprintf(json + n, sizeof(json) - n, ",{\"ph\": \"X\", \"cat\": "
                                      "\"user_annotation\", \"name\": \"ProfilerStep#%d\", "
                                      "\"pid\": 7, \"tid\": 7, \"ts\": %d, \"dur\": %d}", k + 1,
                                      t, len * 100);
                n += (size_t)snprintf(json + n, sizeof(json) - n, ",{\"ph\": \"X\", \"cat\": "
                                      "\"cpu_op\", \"name\": \"aten::mm\", \"pid\": 7, "
                                      "\"tid\": 7, \"ts\": %d, \"dur\": %d}", t + 500, 9000);
                t += len * 100;
        }
        snprintf(json + n, sizeof(json) - n, "]}");
        tr = read_json(json);
        a = analyze_default(tr);
        if (a != NULL && a->step_count == 6) {
                tpa_analysis_metric(a, -1, "host_gap_max_ns", 15, &most);
                tpa_analysis_metric(a, -1, "host_gap_max_frac", 17, &frac);
        }
        ok(fabs(most - 105 * 100 * US) < 1,
           "test_metrics__python_stretch_some_steps: the longest gap, a step (%.0f)", most);
        ok(fabs(frac - 630.0 / 1200) < 1e-9,
           "test_metrics__python_stretch_some_steps: its share of the kept time (%.4f)", frac);
        ok(a != NULL && has_finding(a, "host_python_stretch") &&
           !has_finding(a, "host_python_torch"),
           "test_metrics__python_stretch_some_steps: the stretch, not torch.compile");
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* Work after the steps is no sign of asynchronous dispatch on a CPU but
 * for JAX (testdata/jax_async): a PyTorch loop of three 1 ms steps, then
 * 50 ms of ops after it, on the thread that ran the steps (an evaluation)
 * or on another, keeps its verdict. */
static void test_metrics__work_after_steps(void)
{
        for (int other = 0; other < 2; other++) {
                char json[8192];
                size_t n = 0;
                tpa_analysis *a;
                tpa_trace *tr;

                n += (size_t)snprintf(json, sizeof(json), "{\"schemaVersion\": 1, "
                                      "\"traceEvents\": [{\"ph\": \"M\", \"name\": "
                                      "\"process_name\", \"pid\": 7, \"args\": {\"name\": "
                                      "\"python\"}}");
                for (int k = 0; k < 3; k++)
                        n += (size_t)snprintf(json + n, sizeof(json) - n,
                                              ",{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                                              "\"name\": \"ProfilerStep#%d\", \"pid\": 7, "
                                              "\"tid\": 7, \"ts\": %d, \"dur\": 1000},"
                                              "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                                              "\"aten::mm\", \"pid\": 7, \"tid\": 7, \"ts\": %d, "
                                              "\"dur\": 900}", k + 1, 1000 + k * 1000,
                                              1050 + k * 1000);
                for (int j = 0; j < 50; j++)
                        n += (size_t)snprintf(json + n, sizeof(json) - n,
                                              ",{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                                              "\"aten::addmm\", \"pid\": 7, \"tid\": %d, "
                                              "\"ts\": %d, \"dur\": 950}", other ? 8 : 7,
                                              4010 + j * 1000);
                snprintf(json + n, sizeof(json) - n, "]}");
                tr = read_json(json);
                a = analyze_default(tr);
                ok(a != NULL && a->no_verdict == NULL && a->kept_count == 3,
                   "test_metrics__work_after_steps: %s: a verdict on the 3 steps (%s)",
                   other ? "another thread" : "the steps' thread",
                   a != NULL && a->no_verdict != NULL ? a->no_verdict : "-");
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

int main(void)
{
        test_metrics__input_host();
        test_metrics__gap_host_events();
        test_metrics__top_gaps();
        test_metrics__nested_gaps();
        test_metrics__nothing_recorded();
        test_metrics__device_unrecorded();
        test_metrics__slow_launches();
        test_metrics__work_after_steps();
        test_metrics__python_stretch();
        test_metrics__python_stretch_some_steps();
        return tap_done();
}
