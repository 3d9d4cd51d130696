/* SPDX-License-Identifier: MIT */
/*
 * test_step_windows.c - steps.c: which markers make the steps and each step's window
 * (tests/corpus/test_steps.c checks the same on real traces), on small traces built in memory
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
#include "model/trace_build.h"

#include "analysis_fixture.h"
#include "tap.h"

static void test_steps__profiler_steps(void)
{
        tb b = mk(1);
        uint32_t ann;
        tpa_analysis *a;

        ann = mk_thread(b.tr, tpa_trace__thread(b.tr, b.gpu0)->process, 8, TPA_TRACK_ANNOTATION);
        for (int i = 0; i < 3; i++) {
                char name[32];
                snprintf(name, sizeof(name), "ProfilerStep#%d", 7 + i);
                ev(&b, b.host, TPA_KIND_STEP, name, 100.0 * i, 100, 0, 0);
                ev(&b, ann, TPA_KIND_ANNOTATION, name, 100.0 * i + 5, 90, 0, 0);
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 100.0 * i + 10, 80, 0, 0);
        }
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->step_count, 3, "test_steps__profiler_steps: device copies not counted");
        tap_eq(a->steps[0].number, 7, "test_steps__profiler_steps: first is #7");
        tap_eq(a->steps[2].number, 9, "test_steps__profiler_steps: last is #9");
        tap_eq(a->steps[1].start, 100 * US, "test_steps__profiler_steps: window start");
        tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_COMPUTE], 80 * US,
               "test_steps__profiler_steps: annotations are not busy time");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_steps__tf_train_markers(void)
{
        tb b = mk(1);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "train 12", 0, 50, 0, 0);
        ev(&b, b.host, TPA_KIND_STEP, "train 13", 50, 50, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 10, 20, 0, 0);
        a = run(&b, NULL, 0);
        tap_streq(a->step_source, "TF host step markers", "test_steps__tf_train_markers: source");
        tap_eq((int64_t)a->step_count, 2, "test_steps__tf_train_markers: two steps");
        tap_eq(a->steps[0].number, 12, "test_steps__tf_train_markers: numbered 12");
        tap_eq(a->steps[1].number, 13, "test_steps__tf_train_markers: numbered 13");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_steps__tf2_steps_line(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        i = ev(&b, b.steps, TPA_KIND_STEP, "EagerKernelExecute 0", 10, 40, 0, 1);
        tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, 4, NULL);
        ev(&b, b.steps, TPA_KIND_STEP, "EagerKernelExecute 1", 60, 40, 0, 2);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 10, 40, 0, 1);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 60, 20, 0, 2);
        ev(&b, b.host, TPA_KIND_HOST_OP, "op", 0, 100, 0, 0);
        a = run(&b, NULL, 0);
        tap_streq(a->step_source, "TF Steps line", "test_steps__tf2_steps_line: source");
        tap_eq((int64_t)a->step_count, 2, "test_steps__tf2_steps_line: two steps");
        tap_eq(a->steps[0].number, 4, "test_steps__tf2_steps_line: step_num aux");
        tap_eq(a->steps[1].number, 1, "test_steps__tf2_steps_line: number from the name");
        tap_eq(a->steps[0].step_time, 40 * US, "test_steps__tf2_steps_line: window");
        tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_HOST_COMPUTE], 20 * US,
               "test_steps__tf2_steps_line: host compute");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_steps__step_marker_regex(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 300, 0, 0);
        ev(&b, b.host, TPA_KIND_OTHER, "my_iter", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_OTHER, "my_iter", 100, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_OTHER, "my_iter", 200, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_OTHER, "other", 200, 100, 0, 0);
        a = run(&b, "^my_it(er)$", 0);
        tap_streq(a->step_source, "--step-marker", "test_steps__step_marker_regex: source");
        tap_eq((int64_t)a->step_count, 3, "test_steps__step_marker_regex: three steps");
        tap_eq(a->steps[2].number, 2, "test_steps__step_marker_regex: numbered in order");
        tpa_analysis_free(a);
        o.step_marker = "([";
        ok(tpa_analyze(&a, b.tr, &o, &err) == TPA_EINVAL && strstr(err.msg, "--step-marker"),
           "test_steps__step_marker_regex: bad regex is a usage error");
        tpa_trace_free(b.tr);
}

static void test_steps__no_markers(void)
{
        tb b = mk(1);
        tpa_analysis *a;

        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 10, 20, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "op", 0, 50, 0, 0);
        a = run(&b, NULL, -1);
        ok(a->no_markers, "test_steps__no_markers: said");
        tap_eq((int64_t)a->step_count, 1, "test_steps__no_markers: one step");
        tap_eq(a->steps[0].step_time, 50 * US, "test_steps__no_markers: the whole trace");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Kineto's marks of its own window are no work: "Record Window End" (an
 * instant under pid "" tid "", here 40 ms after the last event, as the
 * profiler stopping puts it) and the "PyTorch Profiler" span; the step of
 * the whole trace ends with the last op. In us. */
static void test_steps__no_markers_window_end(void)
{
        static const char json[] =
                "{\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\","
                "\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":0,\"dur\":50020},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":5,"
                "\"tid\":5,\"ts\":10,\"dur\":10000,\"args\":{}},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":5,\"tid\":5,\"ts\":20,\"dur\":10,\"args\":{\"correlation\":1}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                "\"ts\":40,\"dur\":9000,\"args\":{\"correlation\":1}},"
                "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\","
                "\"s\":\"t\",\"pid\":5,\"tid\":5,\"ts\":15},"
                "{\"ph\":\"i\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\","
                "\"ts\":50010}]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_with_rules(tr, NULL);

        if (ok(a != NULL && a->no_markers && a->step_count == 1,
               "test_steps__no_markers_window_end: one step")) {
                tap_eq(a->steps[0].start, 10 * US,
                       "test_steps__no_markers_window_end: starts with the first op");
                tap_eq(a->steps[0].step_time, 10000 * US,
                       "test_steps__no_markers_window_end: ends with the last");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* --step-marker marks boundaries: a step runs from one match's start to
 * the next one's, the last to its thread's last event; a pattern that
 * matches nothing is a note naming it, and the trace's own markers decide. */
static void test_steps__boundary_markers(void)
{
        tb b = mk(0);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#7", 0, 290, 0, 0);
        for (int k = 0; k < 3; k++) {
                ev(&b, b.host, TPA_KIND_HOST_OP, "load_batch", k * 100, 5, 0, 0);
                ev(&b, b.host, TPA_KIND_HOST_OP, "forward", k * 100 + 10, 80, 0, 0);
        }
        a = run(&b, "^load_batch$", 0);
        if (ok(a != NULL && a->step_count == 3, "test_steps__boundary_markers: three steps")) {
                tap_eq(a->steps[0].start, 0, "test_steps__boundary_markers: first start");
                tap_eq(a->steps[0].step_time, 100 * US,
                       "test_steps__boundary_markers: start to the next start");
                tap_eq(a->steps[1].step_time, 100 * US,
                       "test_steps__boundary_markers: second step");
                tap_eq(a->steps[2].end, 290 * US,
                       "test_steps__boundary_markers: the last to its thread's last event");
                tap_streq(a->step_note, "", "test_steps__boundary_markers: no note");
        }
        tpa_analysis_free(a);
        a = run(&b, "^nosuch$", 0);
        if (ok(a != NULL, "test_steps__boundary_markers: no match analysed")) {
                ok(strstr(a->step_note, "'^nosuch$'") != NULL,
                   "test_steps__boundary_markers: the note names the pattern (%s)",
                   a->step_note);
                tap_streq(a->step_source, "ProfilerStep#N",
                          "test_steps__boundary_markers: the trace's markers decide");
                tap_eq((int64_t)a->step_count, 1,
                       "test_steps__boundary_markers: one ProfilerStep");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* No marker: the iterations are detected, by the first recurring name in
 * iteration order (DataLoader before the optimizer), as boundaries; the
 * same steps on one thread and on two. */
static void test_steps__detected_iterations(void)
{
        tb b = mk(1);
        tpa_analysis *a[2];
        uint32_t corr = 1;

        for (int k = 0; k < 4; k++) {
                double t = k * 100;
                ev(&b, b.host, TPA_KIND_INPUT,
                   "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 20, 0, 0);
                ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", t + 25, 5, corr, 0);
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "gemm", t + 30, 50, corr++, 0);
                ev(&b, b.host, TPA_KIND_ANNOTATION, "Optimizer.step#SGD.step", t + 85, 10, 0, 0);
        }
        for (int th = 0; th < 2; th++) {
                tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                o.warmup = 0;
                o.threads = th + 1;
                a[th] = NULL;
                if (tpa_analyze(&a[th], b.tr, &o, &err) < 0)
                        printf("# %s\n", err.msg);
        }
        if (ok(a[0] != NULL && a[1] != NULL && a[0]->step_count == 4,
               "test_steps__detected_iterations: four steps")) {
                bool same = a[1]->step_count == a[0]->step_count;
                ok(strncmp(a[0]->step_source, "detected iterations: enumerate(DataLoader)#", 43)
                   == 0, "test_steps__detected_iterations: says what it used (%s)",
                   a[0]->step_source);
                ok(!a[0]->no_markers, "test_steps__detected_iterations: not one step");
                for (size_t k = 0; k < 4; k++) {
                        tap_eq(a[0]->steps[k].start, (tpa_ns)k * 100 * US,
                               "test_steps__detected_iterations: step %zu starts", k);
                        same = same && a[1]->steps[k].start == a[0]->steps[k].start &&
                               a[1]->steps[k].end == a[0]->steps[k].end;
                }
                tap_eq(a[0]->steps[0].step_time, 100 * US,
                       "test_steps__detected_iterations: start to the next start");
                ok(same, "test_steps__detected_iterations: the same on two threads");
        }
        tpa_analysis_free(a[0]);
        tpa_analysis_free(a[1]);
        tpa_trace_free(b.tr);
}

/* Two optimizers an iteration (a GAN's discriminator and generator), in
 * us: the optimizer of most calls marks the iterations, not each one's
 * calls; two of one class have one name, and a user's span around each
 * iteration that holds their calls marks them; one around a part of each
 * (no optimizer call in it) does not. */
static void test_steps__two_optimizers(void)
{
        for (int c = 0; c < 4; c++) {
                /* 0: SGD and Adam, 1: Adam twice in "iteration" spans,
                 * 2: Adam twice in "forward" spans, 3: SGD and Adam in
                 * spans around the discriminator's half */
                const char *d = c == 0 || c == 3 ? "SGD" : "Adam";
                char zd[64], sd[64];
                tb b = mk(0);
                tpa_analysis *a;
                snprintf(zd, sizeof(zd), "Optimizer.zero_grad#%s.zero_grad", d);
                snprintf(sd, sizeof(sd), "Optimizer.step#%s.step", d);
                for (int k = 0; k < 4; k++) {
                        double t = 10 + k * 100.0;
                        if (c == 1)
                                ev(&b, b.host, TPA_KIND_ANNOTATION, "iteration", t, 90, 0, 0);
                        if (c == 2)
                                ev(&b, b.host, TPA_KIND_ANNOTATION, "forward", t + 5, 10, 0, 0);
                        if (c == 3)
                                ev(&b, b.host, TPA_KIND_ANNOTATION, "discriminator", t, 45, 0, 0);
                        ev(&b, b.host, TPA_KIND_ANNOTATION, zd, t, 2, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 5, 25, 0, 0);
                        ev(&b, b.host, TPA_KIND_ANNOTATION, sd, t + 35, 5, 0, 0);
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "Optimizer.zero_grad#Adam.zero_grad",
                           t + 45, 2, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 50, 30, 0, 0);
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "Optimizer.step#Adam.step", t + 82,
                           5, 0, 0);
                }
                a = run(&b, NULL, 0);
                tpa_trace_free(b.tr);
                if (c == 2) {   /* two optimizers of one name: no telling */
                        tap_streq(a->step_source, "detected iterations: Optimizer.zero_grad#"
                                  "Adam.zero_grad", "test_steps__two_optimizers: not a part's");
                        tpa_analysis_free(a);
                        continue;
                }
                tap_streq(a->step_source, c == 1 ? "detected iterations: iteration"
                                                 : "detected iterations: Optimizer.zero_grad#"
                                                   "SGD.zero_grad",
                          "test_steps__two_optimizers: %d: source", c);
                if (ok(a->step_count == 4, "test_steps__two_optimizers: %d: a step per "
                       "iteration (%zu)", c, a->step_count)) {
                        tap_eq(a->steps[1].start, 110 * US,
                               "test_steps__two_optimizers: %d: the iteration starts it", c);
                        tap_eq(a->steps[1].step_time, 100 * US,
                               "test_steps__two_optimizers: %d: to the next", c);
                }
                tpa_analysis_free(a);
        }
}

/* LBFGS calls its closure several times inside each step, the closure's
 * zero_grad with it (torch 2.13: 5 Optimizer.zero_grad#LBFGS.zero_grad in
 * each Optimizer.step#LBFGS.step, max_iter=5): the step's call marks the
 * iteration, not each closure's zero_grad. A plain loop's zero_grad, before
 * the step's call, still marks it. In us. */
static void test_steps__closure_zero_grad(void)
{
        for (int c = 0; c < 2; c++) {   /* 0: LBFGS's closure, 1: SGD, no closure */
                tb b = mk(0);
                tpa_analysis *a;
                for (int k = 0; k < 4; k++) {
                        double t = 10 + k * 100.0;
                        if (c == 1) {
                                ev(&b, b.host, TPA_KIND_ANNOTATION,
                                   "Optimizer.zero_grad#SGD.zero_grad", t, 2, 0, 0);
                                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 5, 70, 0, 0);
                                ev(&b, b.host, TPA_KIND_ANNOTATION, "Optimizer.step#SGD.step",
                                   t + 80, 10, 0, 0);
                                continue;
                        }
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "Optimizer.step#LBFGS.step", t, 90,
                           0, 0);
                        for (int j = 0; j < 5; j++) {
                                ev(&b, b.host, TPA_KIND_ANNOTATION,
                                   "Optimizer.zero_grad#LBFGS.zero_grad", t + 2 + j * 17, 1, 0, 0);
                                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 4 + j * 17, 14,
                                   0, 0);
                        }
                }
                a = run(&b, NULL, 0);
                tpa_trace_free(b.tr);
                tap_streq(a->step_source, c == 0 ? "detected iterations: Optimizer.step#LBFGS.step"
                                                 : "detected iterations: Optimizer.zero_grad#"
                                                   "SGD.zero_grad",
                          "test_steps__closure_zero_grad: %d: source", c);
                if (ok(a->step_count == 4, "test_steps__closure_zero_grad: %d: a step per "
                       "iteration (%zu)", c, a->step_count)) {
                        tap_eq(a->steps[1].start, 110 * US,
                               "test_steps__closure_zero_grad: %d: the iteration starts it", c);
                        tap_eq(a->steps[1].step_time, 100 * US,
                               "test_steps__closure_zero_grad: %d: to the next", c);
                }
                tpa_analysis_free(a);
        }
}

/* Two optimizers of one class (both Adam), no span around the iteration:
 * the calls of one name come twice an iteration, and the events nested in
 * them differ (the discriminator's step over more tensors): one call in
 * two marks an iteration; a WGAN's three critic updates a generator's,
 * one in four. In us. One optimizer's calls nest as many events each (its
 * first may make its state), whatever its iterations do apart (a log every
 * other one): each call is an iteration still; and two of one class whose
 * calls nest as many events cannot be told apart. */
static void test_steps__same_class_optimizers(void)
{
        static const char *const zg = "Optimizer.zero_grad#Adam.zero_grad",
                                 *const st = "Optimizer.step#Adam.step";

        for (int c = 0; c < 5; c++) {
                /* 0: D and G (4 and 3 nested), 1: the same, their first
                 * steps nest more, 2: one optimizer, logs every other
                 * iteration, 3: D and G of 3 nested each, 4: D three
                 * times, then G */
                tb b = mk(0);
                tpa_analysis *a;
                int calls = c == 2 ? 1 : c == 4 ? 4 : 2;
                size_t want = c == 3 ? 16 : 8;
                double span = 100.0 / calls;
                for (int k = 0; k < 8; k++) {
                        for (int q = 0; q < calls; q++) {
                                double t = 10 + k * 100.0 + q * span;
                                int nest = q == calls - 1 && calls > 1 && c != 3 ? 3 : 4;
                                if (c == 3)
                                        nest = 3;
                                if (c == 1 && k == 0)
                                        nest += 2;
                                ev(&b, b.host, TPA_KIND_ANNOTATION, zg, t, 1, 0, 0);
                                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 2,
                                   span / 2 - 2, 0, 0);
                                ev(&b, b.host, TPA_KIND_ANNOTATION, st, t + span / 2,
                                   span / 2 - 2, 0, 0);
                                for (int j = 0; j < nest; j++)
                                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add_",
                                           t + span / 2 + 0.1 + j * 0.2, 0.1, 0, 0);
                        }
                        if (c == 2 && k % 2 == 1)
                                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::item", 10 + k * 100.0 + 98,
                                   1, 0, 0);
                }
                a = run(&b, NULL, 0);
                tpa_trace_free(b.tr);
                if (ok(a->step_count == want, "test_steps__same_class_optimizers: %d: %zu steps "
                       "(%zu)", c, want, a->step_count) && want == 8) {
                        tap_eq(a->steps[2].start, 210 * US,
                               "test_steps__same_class_optimizers: %d: the first call starts it", c);
                        tap_eq(a->steps[2].step_time, 100 * US,
                               "test_steps__same_class_optimizers: %d: to the next", c);
                }
                if (c == 4)
                        tap_streq(a->step_source, "detected iterations: Optimizer.zero_grad#"
                                  "Adam.zero_grad, one call in 4 (optimizers of one class, "
                                  "whose calls repeat every 4)",
                                  "test_steps__same_class_optimizers: the source says so");
                tpa_analysis_free(a);
        }
}

/* Keras 3 (TF 2.16 on) compiles model.fit's step into multi_step_on_iterator,
 * its first releases into one_step_on_iterator. Called once a step on the
 * Python thread, each call a boundary; without them, one step for the
 * trace. */
static void test_steps__keras3_functions(void)
{
        static const char *const names[] = {
                "multi_step_on_iterator", "one_step_on_iterator", "multi_step_on_iterator_extra",
        };

        for (size_t n = 0; n <= sizeof(names) / sizeof(names[0]); n++) {
                const char *name = n < sizeof(names) / sizeof(names[0]) ? names[n]
                                                                        : "train_step_x";
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 3; k++) {
                        ev(&b, b.host, TPA_KIND_OTHER, name, k * 100.0 + 10, 60, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", k * 100.0 + 20, 40, 0, 0);
                }
                a = run(&b, NULL, 0);
                if (n == sizeof(names) / sizeof(names[0])) {
                        ok(a->no_markers && a->step_count == 1,
                           "test_steps__keras3_functions: another name is no iteration");
                } else if (ok(a->step_count == 3, "test_steps__keras3_functions: %s: three "
                              "steps (%zu)", name, a->step_count)) {
                        char want[96];
                        snprintf(want, sizeof(want), "detected iterations: %s", name);
                        tap_streq(a->step_source, want, "test_steps__keras3_functions: source");
                        tap_eq(a->steps[0].step_time, 100 * US,
                               "test_steps__keras3_functions: %s: call to call", name);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* A Keras 3 fit that evaluates: its test function has the train function's
 * Python name (multi_step_on_iterator) but another runtime name; the
 * train function's calls (most time) are the steps, each evaluation inside
 * the train step it follows. */
static void test_steps__keras3_evaluates(void)
{
        tb b = mk(0);
        tpa_analysis *a;
        double t = 0;

        for (int k = 0; k < 6; k++) {
                bool eval = k == 3 || k == 4;   /* after the third train call */
                const char *fn = eval ? "EagerLocalExecute: __inference_multi_step_on_iterator_316"
                                      : "EagerLocalExecute: __inference_multi_step_on_iterator_211";
                double len = eval ? 30 : 80;
                ev(&b, b.host, TPA_KIND_OTHER, "multi_step_on_iterator", t, len + 10, 0, 0);
                ev(&b, b.host, TPA_KIND_LAUNCH, fn, t + 5, len, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 6, len - 2, 0, 0);
                t += len + 20;
        }
        a = run(&b, NULL, 0);
        if (ok(a->step_count == 4, "test_steps__keras3_evaluates: four train steps (%zu)",
               a->step_count)) {
                tap_streq(a->step_source, "detected iterations: EagerLocalExecute: "
                          "__inference_multi_step_on_iterator_211",
                          "test_steps__keras3_evaluates: the train function");
                tap_eq(a->steps[2].step_time, (100 + 50 + 50) * US,
                       "test_steps__keras3_evaluates: the evaluation in the third step");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Keras 3 runs fit's train and test functions under one Python name; an
 * evaluation of larger batches (or that compiles inside the profile) has
 * the most time. The function whose calls hold training ops (a gradient,
 * an optimizer's update) marks the steps, not the heavier one. In us:
 * four train calls of 50, then two evaluation calls of 150. */
static void test_steps__train_function_first(void)
{
        tb b = mk(0);
        tpa_analysis *a;

        for (int k = 0; k < 4; k++) {
                double t = k * 100.0;
                ev(&b, b.host, TPA_KIND_OTHER,
                   "EagerLocalExecute: __inference_multi_step_on_iterator_9", t, 50, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 5, 20, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "ReluGrad", t + 25, 5, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "AssignSubVariableOp", t + 35, 5, 0, 0);
        }
        for (int k = 0; k < 2; k++) {
                double t = 400 + k * 200.0;
                ev(&b, b.host, TPA_KIND_OTHER,
                   "EagerLocalExecute: __inference_multi_step_on_iterator_12", t, 150, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 5, 140, 0, 0);
        }
        a = run(&b, NULL, 0);
        tap_streq(a->step_source, "detected iterations: EagerLocalExecute: "
                  "__inference_multi_step_on_iterator_9",
                  "test_steps__train_function_first: the train function");
        tap_eq((int64_t)a->step_count, 4, "test_steps__train_function_first: four steps");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A Keras train function with steps_per_execution 4 takes four batches a
 * call (IteratorGetNextAsOptional each): the note says each step is four
 * batches, and the time of one (100 us a step: 25.0 us); one a call, or
 * none (a step takes its batch as IteratorGetNext), says nothing. */
static void test_steps__batches_per_step(void)
{
        static const int per[] = { 4, 1, 0 };

        for (size_t c = 0; c < sizeof(per) / sizeof(per[0]); c++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 5; k++) {
                        double t = k * 100.0;
                        ev(&b, b.host, TPA_KIND_OTHER,
                           "EagerLocalExecute: __inference_multi_step_on_iterator_9", t, 90, 0, 0);
                        for (int j = 0; j < per[c]; j++)
                                ev(&b, b.host2, TPA_KIND_INPUT,
                                   "IteratorGetNextAsOptionalOp::DoCompute", t + 5 + 20 * j, 5,
                                   0, 0);
                        if (per[c] == 0)
                                ev(&b, b.host2, TPA_KIND_INPUT, "IteratorGetNextOp::DoCompute",
                                   t + 5, 5, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 10, 80, 0, 0);
                }
                ev(&b, b.host, TPA_KIND_OTHER, "keras_callbacks", 490, 10, 0, 0);
                a = run(&b, NULL, 0);
                if (per[c] == 4)
                        tap_streq(a->step_note, "each step takes 4 batches (Keras' "
                                  "steps_per_execution, or a loop in the step's tf.function): "
                                  "25.0 us a batch", "test_steps__batches_per_step: 4 a call");
                else
                        tap_streq(a->step_note, "", "test_steps__batches_per_step: %d a call: "
                                  "no note", per[c]);
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* A custom loop's tf.function, whatever its Python name, runs as
 * "EagerLocalExecute: __inference_<name>_<id>": of the functions called
 * twice or more, the one of most time marks the iterations (not the
 * shorter metrics update of every step, nor a function called once); a
 * name of the list comes first. */
static void test_steps__tf_function_calls(void)
{
        for (int listed = 0; listed < 2; listed++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 4; k++) {
                        double t = k * 100.0;
                        ev(&b, b.host, TPA_KIND_OTHER, "EagerLocalExecute: __inference_metrics_7",
                           t + 5, 10, 0, 0);
                        ev(&b, b.host, TPA_KIND_OTHER,
                           "EagerLocalExecute: __inference_train_step_42", t + 20, 50, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 25, 40, 0, 0);
                        if (listed)
                                ev(&b, b.host, TPA_KIND_OTHER, "train_function", t + 80, 5, 0, 0);
                }
                ev(&b, b.host, TPA_KIND_OTHER, "EagerLocalExecute: __inference_save_3", 390, 250,
                   0, 0);
                a = run(&b, NULL, 0);
                if (ok(a->step_count == 4, "test_steps__tf_function_calls: four steps (%zu)",
                       a->step_count)) {
                        tap_streq(a->step_source, listed
                                  ? "detected iterations: train_function"
                                  : "detected iterations: EagerLocalExecute: "
                                    "__inference_train_step_42",
                                  "test_steps__tf_function_calls: source");
                        tap_eq(a->steps[1].start, (listed ? 180 : 120) * US,
                               "test_steps__tf_function_calls: the call starts its step");
                        tap_eq(a->steps[0].step_time, 100 * US,
                               "test_steps__tf_function_calls: call to call");
                        tap_eq(a->steps[0].number, 0,
                               "test_steps__tf_function_calls: numbered in order, not by id");
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* A tf.function retraced (a new input shape, a Python value among its
 * arguments) runs as a new concrete function, "__inference_train_step_<id>"
 * of another id: the calls of its concrete functions that train are the
 * iterations, not those of one of them (a retrace every third call: a
 * third of the steps), nor none (a retrace every call: no concrete
 * function called twice, the whole trace one step). Each step starts at
 * Python's call of the function (its 'tf_function_call' event), which
 * holds the tracing of a call that retraces: from the runtime's start
 * (EagerLocalExecute), the retrace fell in the step before. In us: calls
 * of 100, those that retrace 300, their tracing 200 of it. */
static void test_steps__retraced_function(void)
{
        for (int every = 3; every >= 1; every -= 2) {
                tb b = mk(0);
                tpa_analysis *a;
                double t = 0;
                char fn[64], want[160];

                for (int k = 0; k < 8; k++) {
                        bool retrace = k % every == 0 && k > 0;
                        double trace = retrace ? 200 : 0;
                        size_t i = ev(&b, b.host, TPA_KIND_LAUNCH, "train_step", t, 90 + trace,
                                      0, 0);
                        tpa_trace__set_aux(b.tr, i, TPA_AUX_FLAGS,
                                           TPA_FLAG_TF_CALL | (retrace ? TPA_FLAG_COMPILE : 0),
                                           NULL);
                        if (retrace)
                                ev(&b, b.host, TPA_KIND_HOST_OP, "tf.function-graph_building",
                                   t + 2, trace - 4, 0, 0);
                        snprintf(fn, sizeof(fn), "EagerLocalExecute: __inference_train_step_%d",
                                 10 * (1 + k / every));
                        ev(&b, b.host, TPA_KIND_LAUNCH, fn, t + trace + 5, 80, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + trace + 6, 50, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "ReluGrad", t + trace + 60, 20, 0, 0);
                        t += 100 + trace;
                }
                a = run(&b, NULL, 0);
                if (ok(a->step_count == 8, "test_steps__retraced_function: every %d: eight "
                       "steps (%zu)", every, a->step_count)) {
                        snprintf(want, sizeof(want), "detected iterations: EagerLocalExecute: "
                                 "__inference_train_step_10 and %d retraces of it (a "
                                 "tf.function's concrete functions)", every == 3 ? 2 : 7);
                        tap_streq(a->step_source, want,
                                  "test_steps__retraced_function: every %d: source", every);
                        tap_eq(a->steps[3].start, (every == 3 ? 300 : 700) * US,
                               "test_steps__retraced_function: every %d: the call starts "
                               "its step", every);
                        tap_eq(a->steps[3].step_time, (every == 3 ? 300 : 300) * US,
                               "test_steps__retraced_function: every %d: the retrace in its "
                               "own step", every);
                        tap_eq(a->steps[2].step_time, (every == 3 ? 100 : 300) * US,
                               "test_steps__retraced_function: every %d: the step before",
                               every);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* Keras 3's TensorBoard callback (profile_batch) wraps each batch it
 * profiles in a "Profiled batch" span carrying the batch's step_num: TF
 * host step markers, read from the JSON by the dialect tables; without a
 * step number the name marks nothing. On the JAX backend the span is
 * "Profiled batch 3", the number in its name: markers too. In us. */
static void test_steps__keras_profiled_batch(void)
{
        for (int numbered = 1; numbered >= 0; numbered--) {
                char json[2048];
                size_t len = 0;
                tpa_trace *tr;
                tpa_analysis *a;

                len += (size_t)snprintf(json + len, sizeof(json) - len,
                        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\","
                        "\"args\":{\"name\":\"/host:CPU\"}},{\"ph\":\"M\",\"pid\":7,\"tid\":1,"
                        "\"name\":\"thread_name\",\"args\":{\"name\":\"python\"}}");
                for (int k = 0; k < 3; k++)
                        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":%d,"
                                "\"name\":\"Profiled batch\"%s%d\"}},{\"ph\":\"X\",\"pid\":7,"
                                "\"tid\":2,\"ts\":%d,\"dur\":40,\"name\":\"MatMul\"}",
                                k * 100, 90 - k, numbered ? ",\"args\":{\"step_num\":\""
                                : ",\"args\":{\"x\":\"", k + 3, k * 100 + 20);
                snprintf(json + len, sizeof(json) - len, "]}");
                tr = read_json(json);
                a = analyze_with_rules(tr, NULL);
                if (numbered && ok(a != NULL && a->step_count == 3,
                                   "test_steps__keras_profiled_batch: a step per span")) {
                        tap_streq(a->step_source, "TF host step markers",
                                  "test_steps__keras_profiled_batch: source");
                        tap_eq(a->steps[2].number, 5,
                               "test_steps__keras_profiled_batch: numbered as Keras does");
                        tap_eq(a->steps[1].step_time, 89 * US,
                               "test_steps__keras_profiled_batch: the span's own length");
                } else if (!numbered) {
                        ok(kind_of(tr, "Profiled batch") != TPA_KIND_STEP,
                           "test_steps__keras_profiled_batch: no step number, no marker");
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
                if (!numbered)
                        continue;
                /* on the JAX backend: a TraceAnnotation "Profiled batch 3",
                 * the number in the name */
                len = (size_t)snprintf(json, sizeof(json),
                        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\","
                        "\"args\":{\"name\":\"/host:CPU\"}},{\"ph\":\"M\",\"pid\":7,\"tid\":1,"
                        "\"name\":\"thread_name\",\"args\":{\"name\":\"python\"}}");
                for (int k = 0; k < 3; k++)
                        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":%d,"
                                "\"name\":\"Profiled batch %d\"},{\"ph\":\"X\",\"pid\":7,"
                                "\"tid\":2,\"ts\":%d,\"dur\":40,\"name\":\"dot\"}",
                                k * 100, 90 - k, k + 3, k * 100 + 20);
                snprintf(json + len, sizeof(json) - len, "]}");
                tr = read_json(json);
                a = analyze_with_rules(tr, NULL);
                if (ok(a != NULL && a->step_count == 3,
                       "test_steps__keras_profiled_batch: JAX's named spans, a step each")) {
                        tap_eq(a->steps[2].number, 5,
                               "test_steps__keras_profiled_batch: JAX: the number in the name");
                        tap_eq(a->steps[1].step_time, 89 * US,
                               "test_steps__keras_profiled_batch: JAX: the span's own length");
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A count that restarts: Keras' TensorBoard callback numbers each batch it
 * profiles by its index in the epoch, so a profile_batch range across an
 * epoch's end holds "Profiled batch" 5, 6, 7 then 0, 1, 2, 5, 6 again (and
 * a loop's Trace('train', step_num=batch) per epoch the same). Host markers
 * of one number that lie apart are two steps, numbered in the order they
 * ran; two of one number at once are one step. In us. */
static void test_steps__numbers_repeat(void)
{
        static const int num[] = { 5, 6, 7, 0, 1, 2, 3, 4, 5, 6 };
        tb b = mk(0);
        tpa_analysis *a;
        size_t i;

        for (int k = 0; k < 10; k++) {
                i = ev(&b, b.host, TPA_KIND_STEP, "Profiled batch", k * 100.0, 90, 0, 0);
                tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, num[k], NULL);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", k * 100.0 + 10, 60, 0, 0);
        }
        /* step 7 seen twice at once, on the other thread */
        i = ev(&b, b.host2, TPA_KIND_STEP, "train", 205, 80, 0, 0);
        tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, 7, NULL);
        a = run(&b, NULL, 0);
        if (ok(a->step_count == 10, "test_steps__numbers_repeat: ten steps (was %zu)",
               a->step_count)) {
                tap_eq(a->steps[0].number, 5, "test_steps__numbers_repeat: from the first's number");
                tap_eq(a->steps[9].number, 14, "test_steps__numbers_repeat: in the order they ran");
                tap_eq(a->steps[8].start, 800 * US, "test_steps__numbers_repeat: the second 5");
                tap_eq(a->steps[8].step_time, 90 * US,
                       "test_steps__numbers_repeat: one batch long, no union with the first 5");
                tap_eq(a->steps[2].step_time, 90 * US,
                       "test_steps__numbers_repeat: two markers at once are one step");
        }
        ok(strstr(a->step_note, "step numbers repeat (2 markers") != NULL,
           "test_steps__numbers_repeat: the note says so: %s", a->step_note);
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The Steps lines of two devices that ran step 0 apart in time (XProf's
 * own demo of a multi-worker GPU profile: GPU:4's step 0 at 1.79 s, GPU:6's
 * at 2.44 s, 20 ms each), and a third GPU whose only work, one copy, comes
 * after both. Each device's run is a step of its own, as XProf times it,
 * not one window over both (that read the time between them as Python);
 * and a device idle all through a step is no part of its mean: each step
 * computes 15 of its 20 us. Two devices' markers of one number that
 * overlap stay one step. In us. */
static void test_steps__device_steps_apart(void)
{
        tb b = mk(1);
        uint32_t g1 = mk_proc(b.tr, 2, "/device:GPU:1", TPA_PROC_DEVICE, 1);
        uint32_t s1 = mk_thread(b.tr, g1, 7, TPA_TRACK_STREAM);
        uint32_t l1 = mk_thread(b.tr, g1, 99, TPA_TRACK_STEPS);
        uint32_t g2 = mk_proc(b.tr, 3, "/device:GPU:2", TPA_PROC_DEVICE, 2);
        uint32_t s2 = mk_thread(b.tr, g2, 7, TPA_TRACK_STREAM);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_HOST_OP, "op", 90, 30, 0, 1);
        ev(&b, b.steps, TPA_KIND_STEP, "0", 100, 20, 0, 1);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 100, 15, 0, 1);
        ev(&b, b.host, TPA_KIND_HOST_OP, "op", 790, 30, 0, 1);
        ev(&b, l1, TPA_KIND_STEP, "0", 800, 20, 0, 1);
        ev(&b, s1, TPA_KIND_KERNEL, "k", 800, 15, 0, 1);
        ev(&b, s2, TPA_KIND_COPY_H2D, "MemcpyH2D", 950, 1, 0, 0);
        a = run(&b, NULL, 0);
        if (ok(a->step_count == 2, "test_steps__device_steps_apart: two steps (was %zu)",
               a->step_count)) {
                tap_eq(a->steps[0].step_time, 20 * US,
                       "test_steps__device_steps_apart: GPU:0's step alone");
                tap_eq(a->steps[1].start, 800 * US, "test_steps__device_steps_apart: GPU:1's");
                tap_eq(a->steps[1].step_time, 20 * US,
                       "test_steps__device_steps_apart: no reach to GPU:0's group work");
                tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_COMPUTE], 15 * US,
                       "test_steps__device_steps_apart: the mean of the device that worked");
                ok(a->steps[0].frac[TPA_BUCKET_COMPUTE] > 0.749 &&
                   a->steps[0].frac[TPA_BUCKET_COMPUTE] < 0.751,
                   "test_steps__device_steps_apart: computes 75%% (was %.3f)",
                   a->steps[0].frac[TPA_BUCKET_COMPUTE]);
                ok(metric(a, 0, "gap_total_ns") < 5.5 * US,
                   "test_steps__device_steps_apart: idle devices add no gaps (%.0f ns)",
                   metric(a, 0, "gap_total_ns"));
        }
        ok(strstr(a->step_note, "apart in time") != NULL,
           "test_steps__device_steps_apart: the note says so: %s", a->step_note);
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        g1 = mk_proc(b.tr, 2, "/device:GPU:1", TPA_PROC_DEVICE, 1);
        s1 = mk_thread(b.tr, g1, 7, TPA_TRACK_STREAM);
        l1 = mk_thread(b.tr, g1, 99, TPA_TRACK_STEPS);
        ev(&b, b.steps, TPA_KIND_STEP, "0", 100, 20, 0, 1);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 100, 15, 0, 1);
        ev(&b, l1, TPA_KIND_STEP, "0", 105, 20, 0, 1);
        ev(&b, s1, TPA_KIND_KERNEL, "k", 105, 15, 0, 1);
        a = run(&b, NULL, 0);
        if (ok(a->step_count == 1, "test_steps__device_steps_apart: together, one step (was %zu)",
               a->step_count))
                tap_eq(a->steps[0].step_time, 25 * US,
                       "test_steps__device_steps_apart: the union of the two");
        ok(a->step_note[0] == '\0', "test_steps__device_steps_apart: no note: %s", a->step_note);
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* `for x in dataset: with Trace('train', step_num=s): step(x)`: the marker
 * leaves out the batch fetch, which runs between two markers on their
 * thread (tf.data's next batch, input). The markers then mark boundaries:
 * each step runs to the next one's start, the wait for input in it. With
 * the fetch inside the markers, as TF's guide writes the loop, each
 * window is its marker. In us. */
static void test_steps__markers_leave_out_fetch(void)
{
        for (int inside = 0; inside < 2; inside++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 5; k++) {
                        size_t i = ev(&b, b.host, TPA_KIND_STEP, "train", k * 100.0 + 80, 20, 0, 0);
                        tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                        ev(&b, b.host, TPA_KIND_INPUT, "EagerLocalExecute: IteratorGetNext",
                           k * 100.0 + (inside ? 81 : 2), inside ? 10 : 75, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", k * 100.0 + 91, 8, 0, 0);
                }
                a = run(&b, NULL, 0);
                tap_streq(a->step_source, "TF host step markers",
                          "test_steps__markers_leave_out_fetch: source");
                if (!ok(a->step_count == 5, "test_steps__markers_leave_out_fetch: five steps")) {
                        tpa_analysis_free(a);
                        tpa_trace_free(b.tr);
                        continue;
                }
                if (inside) {
                        tap_eq(a->steps[1].step_time, 20 * US,
                               "test_steps__markers_leave_out_fetch: fetch inside: the marker");
                        tap_streq(a->step_note, "",
                                  "test_steps__markers_leave_out_fetch: fetch inside: no note");
                } else {
                        tap_eq(a->steps[1].start, 180 * US,
                               "test_steps__markers_leave_out_fetch: from the marker's start");
                        tap_eq(a->steps[1].step_time, 100 * US,
                               "test_steps__markers_leave_out_fetch: to the next one's");
                        tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_INPUT], 75 * US,
                               "test_steps__markers_leave_out_fetch: the wait for input in it");
                        ok(strstr(a->step_note, "leave out the batch fetch") != NULL,
                           "test_steps__markers_leave_out_fetch: the note says so: %s",
                           a->step_note);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* JAX's Python tracer (jax.profiler.trace) in a TF2 trace: each Python
 * call an event "$file.py:line func". They are Python, no ops: Python's
 * next item of an iterator is input, jax.block_until_ready a wait for the
 * device, the rest annotations; JAX's dispatch of a jitted function
 * launches. A 100 us iteration of which next() takes 60 and XLA's op 10 is
 * input-bound, not compute; and the Python function called once an
 * iteration (or once a batch in Keras' loop) marks no step. In us. */
static void test_steps__python_tracer(void)
{
        char json[4096];
        size_t len = 0;
        tpa_trace *tr;
        tpa_analysis *a;

        len += (size_t)snprintf(json + len, sizeof(json) - len,
                "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\","
                "\"args\":{\"name\":\"/host:CPU\"}},{\"ph\":\"M\",\"pid\":7,\"tid\":1,"
                "\"name\":\"thread_name\",\"args\":{\"name\":\"python\"}}");
        for (int k = 0; k < 3; k++) {
                int t = k * 100;
                len += (size_t)snprintf(json + len, sizeof(json) - len,
                        ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":100,"
                        "\"name\":\"$loop.py:10 one\"}"
                        ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":60,"
                        "\"name\":\"$builtins next\"}"
                        ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":59,"
                        "\"name\":\"$time sleep\"}"
                        ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":15,"
                        "\"name\":\"PjitFunction(train_step)\"}"
                        ",{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":%d,\"dur\":15,"
                        "\"name\":\"$api.py:2479 block_until_ready\"}"
                        ",{\"ph\":\"X\",\"pid\":7,\"tid\":2,\"ts\":%d,\"dur\":10,"
                        "\"name\":\"dot\"}",
                        t, t, t, t + 62, t + 78, t + 80);
        }
        snprintf(json + len, sizeof(json) - len, "]}");
        tr = read_json(json);
        a = analyze_with_rules(tr, NULL);
        tap_eq(kind_of(tr, "$builtins next"), TPA_KIND_INPUT,
               "test_steps__python_tracer: next() is input");
        tap_eq(kind_of(tr, "$time sleep"), TPA_KIND_ANNOTATION,
               "test_steps__python_tracer: a C function Python calls is Python");
        tap_eq(kind_of(tr, "$loop.py:10 one"), TPA_KIND_ANNOTATION,
               "test_steps__python_tracer: a Python function is Python");
        tap_eq(kind_of(tr, "$api.py:2479 block_until_ready"), TPA_KIND_SYNC,
               "test_steps__python_tracer: block_until_ready waits");
        tap_eq(kind_of(tr, "PjitFunction(train_step)"), TPA_KIND_LAUNCH,
               "test_steps__python_tracer: a jitted function's dispatch launches");
        tap_eq(kind_of(tr, "dot"), TPA_KIND_HOST_OP, "test_steps__python_tracer: XLA's op");
        if (ok(a != NULL && a->step_count == 1,
               "test_steps__python_tracer: no step from a Python function")) {
                const tpa_step *st = &a->steps[0];
                tap_eq(st->bucket_ns[TPA_BUCKET_INPUT], 180 * US,
                       "test_steps__python_tracer: next() is the input");
                tap_eq(st->bucket_ns[TPA_BUCKET_COMPUTE], 30 * US,
                       "test_steps__python_tracer: XLA's op alone computes");
                tap_eq(st->bucket_ns[TPA_BUCKET_HOST_PYTHON], 30 * US,
                       "test_steps__python_tracer: the rest of the function is Python");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* An eager loop (no tf.function): its ops run one by one, several of each
 * an iteration; Python's next batch from tf.data marks the iterations,
 * unless a tf.function is called once an iteration (it takes its batches
 * inside, as many a call as the call runs steps). In us. */
static void test_steps__eager_next_batch(void)
{
        for (int compiled = 0; compiled < 2; compiled++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 4; k++) {
                        double t = k * 100.0;
                        ev(&b, b.host, TPA_KIND_INPUT, "EagerLocalExecute: IteratorGetNext",
                           t + 10, 5, 0, 0);
                        if (compiled) {
                                ev(&b, b.host, TPA_KIND_OTHER,
                                   "EagerLocalExecute: __inference_train_step_42", t + 20, 60,
                                   0, 0);
                                continue;
                        }
                        for (int op = 0; op < 3; op++)
                                ev(&b, b.host, TPA_KIND_HOST_OP, "EagerLocalExecute: MatMul",
                                   t + 20 + op * 20, 10, 0, 0);
                }
                a = run(&b, NULL, 0);
                tap_streq(a->step_source, compiled
                          ? "detected iterations: EagerLocalExecute: __inference_train_step_42"
                          : "detected iterations: EagerLocalExecute: IteratorGetNext",
                          "test_steps__eager_next_batch: %s", compiled ? "compiled" : "eager");
                if (ok(a->step_count == 4, "test_steps__eager_next_batch: four steps (%zu)",
                       a->step_count))
                        tap_eq(a->steps[1].start, (compiled ? 120 : 110) * US,
                               "test_steps__eager_next_batch: the call starts its step");
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* No marker, no known name: the span a user put around each iteration
 * (record_function, an annotation on the host thread), in us. Each step
 * runs from one span's start to the next's, the last to its own end (what
 * the thread runs after it, an evaluation, is no step's). Not the spans
 * around each layer (more spans, a part of the time), nor those around
 * each epoch (fewer spans, that hold the steps'); not a span that starts
 * long after the thread's first event (an evaluation's batches after the
 * training), nor one that other threads run too (a pool serving
 * requests), nor one that runs only twice, counting no span inside one of
 * its name. */
static tpa_analysis *annotated(tb *b)
{
        tpa_analysis *a = run(b, NULL, 0);
        tpa_trace_free(b->tr);
        return a;
}

static void test_steps__annotated_iterations(void)
{
        const char *none = "none: one step for the whole trace";
        tpa_analysis *a;
        tb b = mk(0);

        /* four iterations of three epochs, in train_step spans */
        for (int k = 0; k < 12; k++) {
                double t = 10 + k * 100.0;
                if (k % 4 == 0)
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "epoch", t - 5, 395, 0, 0);
                ev(&b, b.host, TPA_KIND_ANNOTATION, "train_step", t, 80, 0, 0);
                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 5, 60, 0, 0);
                ev(&b, b.host, TPA_KIND_ANNOTATION, "layer", t + 10, 10, 0, 0);
                ev(&b, b.host, TPA_KIND_ANNOTATION, "layer", t + 30, 10, 0, 0);
        }
        ev(&b, b.host, TPA_KIND_HOST_OP, "evaluate", 1200, 300, 0, 0);
        a = annotated(&b);
        tap_streq(a->step_source, "detected iterations: train_step",
                  "test_steps__annotated_iterations: source");
        if (ok(a->step_count == 12, "test_steps__annotated_iterations: a step per span (%zu)",
               a->step_count)) {
                tap_eq(a->steps[1].start, 110 * US,
                       "test_steps__annotated_iterations: the span starts its step");
                tap_eq(a->steps[0].step_time, 100 * US,
                       "test_steps__annotated_iterations: to the next span's start");
                tap_eq(a->steps[11].end, 1190 * US,
                       "test_steps__annotated_iterations: the last to its own end");
        }
        tpa_analysis_free(a);

        /* a last span that runs long is a step all the same: it ends itself */
        b = mk(0);
        for (int k = 0; k < 4; k++)
                ev(&b, b.host, TPA_KIND_ANNOTATION, "train_step", 10 + k * 100.0,
                   k < 3 ? 80 : 200, 0, 0);
        a = run(&b, NULL, -1);
        tpa_trace_free(b.tr);
        if (ok(a->step_count == 4, "test_steps__annotated_iterations: four steps (%zu)",
               a->step_count))
                ok(!a->steps[3].excluded, "test_steps__annotated_iterations: a long last "
                   "span is no tail (%s)", a->steps[3].reason);
        tpa_analysis_free(a);

        /* spans around the parts of each iteration, no span around it
         * whole: the part that starts it marks where each iteration
         * starts (not the heaviest part), and the last runs to the end of
         * the thread's work, not of its span */
        for (int heavy = 0; heavy < 2; heavy++) {       /* backward most of each */
                double fw = heavy ? 15 : 30, bw = heavy ? 55 : 35;
                b = mk(0);
                for (int k = 0; k < 4; k++) {
                        double t = 10 + k * 100.0;
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "forward", t, fw, 0, 0);
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "backward", t + fw + 5, bw, 0, 0);
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "update", t + 75, 10, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t + 85, 10, 0, 0);
                }
                a = run(&b, NULL, 0);
                tpa_trace_free(b.tr);
                tap_streq(a->step_source, "detected iterations: forward",
                          "test_steps__annotated_iterations: parts: the first part");
                if (ok(a->step_count == 4, "test_steps__annotated_iterations: parts: four "
                       "steps (%zu)", a->step_count)) {
                        tap_eq(a->steps[1].start, 110 * US,
                               "test_steps__annotated_iterations: parts: a step starts with it");
                        tap_eq(a->steps[3].end, 405 * US, "test_steps__annotated_iterations: "
                               "parts: the last to the thread's end");
                }
                tpa_analysis_free(a);
        }

        /* an evaluation's batches, more time, after the training */
        b = mk(0);
        for (int k = 0; k < 3; k++)
                ev(&b, b.host, TPA_KIND_ANNOTATION, "train_step", 10 + k * 100.0, 80, 0, 0);
        for (int k = 0; k < 4; k++)
                ev(&b, b.host, TPA_KIND_ANNOTATION, "eval_batch", 400 + k * 100.0, 90, 0, 0);
        a = annotated(&b);
        tap_streq(a->step_source, "detected iterations: train_step",
                  "test_steps__annotated_iterations: not the evaluation's");
        tpa_analysis_free(a);

        /* the same span on two threads, or only twice (each holding a
         * recursive call of its own, which is no span of its own) */
        for (int twice = 0; twice < 2; twice++) {
                b = mk(0);
                for (int k = 0; k < 3 - twice; k++) {
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "handle", 10 + k * 100.0, 80, 0, 0);
                        if (!twice)
                                ev(&b, b.host2, TPA_KIND_ANNOTATION, "handle", 20 + k * 100.0,
                                   80, 0, 0);
                        else
                                ev(&b, b.host, TPA_KIND_ANNOTATION, "handle", 30 + k * 100.0,
                                   20, 0, 0);
                }
                a = annotated(&b);
                tap_streq(a->step_source, none, "test_steps__annotated_iterations: %s",
                          twice ? "two spans" : "a pool of threads");
                tpa_analysis_free(a);
        }
}

/* Steps by TF group (no marker): a group holds the runtime's work for an
 * iteration, not the Python between calls, so each step runs to the next
 * group's start and the last to the end of the last event of the thread
 * its first event ran on. A group that starts inside the one before (the
 * next step's input read early) is still a step. CPU-only, in us: groups
 * 1-3 run [10, 50), [110, 150), [210, 250); Python on the host thread to
 * 280; group 4 starts at 240, inside group 3. */
static void test_steps__group_boundaries(void)
{
        tb b = mk(0);
        tpa_analysis *a;

        for (uint32_t g = 1; g <= 3; g++) {
                double t = (g - 1) * 100.0;
                ev(&b, b.host, TPA_KIND_LAUNCH, "FunctionRun", t + 10, 10, 0, g);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 20, 30, 0, g);
        }
        ev(&b, b.host, TPA_KIND_OTHER, "keras_callbacks", 260, 20, 0, 0);
        a = run(&b, NULL, 0);
        tap_streq(a->step_source, "TF group ids", "test_steps__group_boundaries: source");
        if (ok(a->step_count == 3, "test_steps__group_boundaries: three steps (%zu)",
               a->step_count)) {
                tap_eq(a->steps[0].start, 10 * US, "test_steps__group_boundaries: first start");
                tap_eq(a->steps[0].step_time, 100 * US,
                       "test_steps__group_boundaries: to the next group's start");
                tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_HOST_PYTHON] +
                       a->steps[1].bucket_ns[TPA_BUCKET_HOST_LAUNCH], 70 * US,
                       "test_steps__group_boundaries: the Python between is in the step");
                tap_eq(a->steps[2].end, 280 * US,
                       "test_steps__group_boundaries: the last to its thread's last event");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(0);
        for (uint32_t g = 1; g <= 4; g++)
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", (g - 1) * 100.0 + 10, 60, 0, g);
        ev(&b, b.host2, TPA_KIND_INPUT, "Iterator::GetNext", 240, 40, 0, 4);
        a = run(&b, NULL, 0);
        if (ok(a->step_count == 4, "test_steps__group_boundaries: a group inside the one "
               "before is a step (%zu)", a->step_count)) {
                tap_eq(a->steps[2].end, 240 * US,
                       "test_steps__group_boundaries: ended by the next group's start");
                tap_eq(a->steps[3].start, 240 * US,
                       "test_steps__group_boundaries: which starts its step");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A last step far shorter than the rest with almost no device work is the
 * profiler stopping inside it: excluded, "tail" (the verdict would come
 * from it otherwise when warm-up takes the others). */
static void test_steps__tail_step(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        for (int k = 0; k < 4; k++) {
                double t = k * 1000, len = k < 3 ? 900 : 40;
                i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t, len, 0, 0);
                tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t, len, 0, 0);
                if (k < 3)
                        ev(&b, b.gpu0, TPA_KIND_KERNEL, "gemm", t + 10, 800, 0, 0);
        }
        a = run(&b, NULL, -1);
        if (ok(a != NULL && a->step_count == 4, "test_steps__tail_step: four steps")) {
                ok(a->steps[3].excluded && strncmp(a->steps[3].reason, "tail", 4) == 0,
                   "test_steps__tail_step: the last is a tail (%s)", a->steps[3].reason);
                tap_eq((int64_t)a->kept_count, 3, "test_steps__tail_step: three kept");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Steps marked by boundaries (here a custom loop's tf.function calls,
 * CPU-only): the last has no marker to end it, the end of its thread's work
 * does; under half the steps before, the profile stopped inside it, device
 * work or not, and over warmup.ratio (1.5) times them, the thread ran on
 * past the iteration (a callback stopping the profiler): a tail either
 * way. At 0.6 and 1.4 of them, or with ProfilerStep#N spans (their own end
 * is known), it stays. */
static void test_steps__boundary_tail(void)
{
        static const char *const shorter = "tail: under half the steps before, and no "
                                           "marker ends it";
        static const char *const longer = "tail: runs on past the steps before, and no "
                                          "marker ends it";
        static const struct {
                bool        spans;
                double      last;       /* us, against 100 */
                const char *why;        /* NULL: kept */
        } cases[] = {
                { false, 40, shorter }, { false, 60, NULL }, { true, 40, NULL },
                { false, 160, longer }, { false, 140, NULL }, { true, 160, NULL },
        };

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 5; k++) {
                        double t = k * 100.0, len = k < 4 ? 100 : cases[c].last;
                        if (cases[c].spans) {
                                size_t i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t, len,
                                              0, 0);
                                tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                        } else {
                                ev(&b, b.host, TPA_KIND_LAUNCH,
                                   "EagerLocalExecute: __inference_train_step_9", t, 20, 0, 0);
                        }
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 1, len - 2, 0, 0);
                        ev(&b, b.host, TPA_KIND_OTHER, "python", t + len - 1, 1, 0, 0);
                }
                a = run(&b, NULL, -1);
                if (ok(a->step_count == 5, "test_steps__boundary_tail: %zu: five steps", c))
                        ok(a->steps[4].excluded == (cases[c].why != NULL) &&
                           (cases[c].why == NULL || strcmp(a->steps[4].reason, cases[c].why) == 0),
                           "test_steps__boundary_tail: %s, %.0f%%: %s", cases[c].spans ? "spans"
                           : "boundaries", cases[c].last, cases[c].why ? "a tail" : "kept");
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* A last step marked by boundaries, over warmup.ratio (1.5) times the
 * median of the steps before, is no tail when one of those steps is as far
 * past it and the last is within warmup.ratio of that one: the run's own
 * spread (Keras 3 on torch, a DataLoader marking the steps, on a loaded
 * machine: the last batch, 19 ms against a median of 11.6 ms, with one of
 * 19.5 ms before it). Much longer than that one, it is still a tail.
 * Boundaries, CPU-only, in us. */
static void test_steps__tail_like_a_slow_step(void)
{
        static const double len[] = { 100, 100, 100, 100, 170, 100, 100 };
        static const double lasts[] = { 160, 300 };

        for (size_t c = 0; c < 2; c++) {
                tb b = mk(0);
                tpa_analysis *a;
                double t = 0;

                for (int k = 0; k < 8; k++) {
                        double l = k < 7 ? len[k] : lasts[c];
                        ev(&b, b.host, TPA_KIND_LAUNCH,
                           "EagerLocalExecute: __inference_train_step_9", t, 20, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 1, l - 2, 0, 0);
                        ev(&b, b.host, TPA_KIND_OTHER, "python", t + l - 1, 1, 0, 0);
                        t += l;
                }
                a = run(&b, NULL, -1);
                if (ok(a->step_count == 8, "test_steps__tail_like_a_slow_step: eight steps"))
                        ok(a->steps[7].excluded == (c == 1),
                           "test_steps__tail_like_a_slow_step: last %.0f us: %s (%s)", lasts[c],
                           c == 1 ? "a tail" : "kept", a->steps[7].reason);
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* The tail's yardstick is the later half of the steps before the last:
 * a first step that compiled for long and a slow second one would make
 * a steady last step (100 us, as steps 2 and 3) look under half of the
 * median of all four (250 us). Boundaries, CPU-only, in us. */
static void test_steps__tail_after_warmup(void)
{
        static const double len[] = { 1600, 400, 100, 100, 100 };
        tb b = mk(0);
        tpa_analysis *a;
        double t = 0;

        for (int k = 0; k < 5; k++) {
                ev(&b, b.host, TPA_KIND_LAUNCH, "EagerLocalExecute: __inference_train_step_9", t,
                   20, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 1, len[k] - 2, 0, 0);
                ev(&b, b.host, TPA_KIND_OTHER, "python", t + len[k] - 1, 1, 0, 0);
                t += len[k];
        }
        a = run(&b, NULL, -1);
        if (ok(a->step_count == 5, "test_steps__tail_after_warmup: five steps"))
                ok(!a->steps[4].excluded && a->steps[0].excluded && a->steps[1].excluded,
                   "test_steps__tail_after_warmup: the last kept, the first two warm-up (%s)",
                   a->steps[4].reason);
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The first window's start moves past the step before's device work only:
 * work queued by it (no launch in the trace) that runs on from the start
 * moves it; an isolated copy 57 ms in whose launch the trace lacks does
 * not (it is the window's own). */
static void test_steps__orphan_copy(void)
{
        for (int queued = 0; queued < 2; queued++) {
                tb b = mk(1);
                tpa_analysis *a;

                ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100000, 0, 0);
                if (queued)
                        ev(&b, b.gpu0, TPA_KIND_KERNEL, "backward_of_step_0", 100, 4900, 3, 0);
                ev(&b, b.gpu0, TPA_KIND_COPY_D2H, "Memcpy DtoH (Device -> Pageable)", 57000, 100,
                   9, 0);
                ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 60000, 5, 7, 0);
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "gemm", 61000, 39000, 7, 0);
                a = run(&b, NULL, 0);
                if (queued)
                        tap_eq(a->steps[0].start, 5000 * US,
                               "test_steps__orphan_copy: queued work of the step before "
                               "moves the start");
                else
                        tap_eq(a->steps[0].start, 0,
                               "test_steps__orphan_copy: a copy whose launch is missing "
                               "moves no start");
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

static void test_steps__extend_by_correlation(void)
{
        tb b = mk(1);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 50, 0, 0);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 10, 5, 7, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 60, 60, 7, 0);
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#2", 100, 50, 0, 0);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 110, 5, 8, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 160, 40, 8, 0);
        a = run(&b, NULL, 0);
        /* step 1's kernel runs to 120 us, past step 2's marker at 100 us:
         * the kernel stays in step 1, step 2 starts when it ends */
        tap_eq(a->steps[0].end, 120 * US, "test_steps__extend_by_correlation: extended to its kernel");
        tap_eq(a->steps[1].start, 120 * US, "test_steps__extend_by_correlation: next start pushed");
        tap_eq(a->steps[1].end, 200 * US, "test_steps__extend_by_correlation: extended to its kernel");
        tap_eq(a->steps[1].step_time, 80 * US, "test_steps__extend_by_correlation: step time");
        ok(sums_to_one(&a->steps[0]) && sums_to_one(&a->steps[1]),
           "test_steps__extend_by_correlation: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Device work launched before the first marker (the step the profile did
 * not catch) still runs when it starts: the first window starts when that
 * work ends, not before; input work from then on counts as usual. */
static void test_steps__first_step_settles(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        double v = -1;

        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k_before", 0, 30, 5, 0);
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 10, 90, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
           10, 40, 0, 0);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 50, 5, 7, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 55, 45, 7, 0);
        a = run(&b, NULL, 0);
        tap_eq(a->steps[0].start, 30 * US, "test_steps__first_step_settles: starts after earlier work");
        tap_eq(a->steps[0].step_time, 70 * US, "test_steps__first_step_settles: step time");
        tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_INPUT], 20 * US,
               "test_steps__first_step_settles: exposed input");
        ok(tpa_analysis_metric(a, 0, "input_host_frac", 15, &v) && v > 0.2857 && v < 0.2858,
           "test_steps__first_step_settles: host input work 20 of 70 us");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        /* no device work of its own seen: the marker's start stands */
        b = mk(1);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k_before", 0, 30, 5, 0);
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 10, 90, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq(a->steps[0].start, 10 * US, "test_steps__first_step_settles: no own device work");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The steps' tables come from find_devices()' pass in two halves of the
 * events, and the first window settles in the channels' pass, in halves
 * too: with the marker and its launches in the first half and all device
 * work far into the second, the window still settles, extends by
 * correlation and finds the lost launch, on one thread and on two. */
static void test_steps__steps_across_parts(void)
{
        for (int threads = 1; threads <= 2; threads++) {
                tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                tpa_analysis *a = NULL;
                tb b = mk(1);

                ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 10, 90, 0, 0);
                ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 50, 5, 7, 0);
                ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#2", 200, 50, 0, 0);
                ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 210, 5, 9, 0);
                for (int i = 0; i < 150000; i++)
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "filler", 1000 + i * 0.01, 0.005, 0, 0);
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "k_before", 0, 30, 5, 0);
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 55, 65, 7, 0);
                o.threads = threads;
                o.warmup = -1;
                if (tpa_analyze(&a, b.tr, &o, &err) < 0) {
                        printf("# tpa_analyze: %s\n", err.msg);
                        ok(false, "test_steps__steps_across_parts: analysis");
                        tpa_trace_free(b.tr);
                        continue;
                }
                tap_eq(a->step_count, 2, "test_steps__steps_across_parts: steps");
                tap_eq(a->steps[0].start, 30 * US,
                       "test_steps__steps_across_parts: settled after earlier work");
                tap_eq(a->steps[0].end, 120 * US,
                       "test_steps__steps_across_parts: extended to its kernel");
                ok(a->steps[1].excluded && strstr(a->steps[1].reason, "missing") != NULL,
                   "test_steps__steps_across_parts: a launch without its kernel cuts off "
                   "the last step");
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

int main(void)
{
        test_steps__profiler_steps();
        test_steps__tf_train_markers();
        test_steps__tf2_steps_line();
        test_steps__step_marker_regex();
        test_steps__no_markers();
        test_steps__no_markers_window_end();
        test_steps__boundary_markers();
        test_steps__detected_iterations();
        test_steps__two_optimizers();
        test_steps__closure_zero_grad();
        test_steps__same_class_optimizers();
        test_steps__keras3_functions();
        test_steps__tf_function_calls();
        test_steps__retraced_function();
        test_steps__batches_per_step();
        test_steps__train_function_first();
        test_steps__keras3_evaluates();
        test_steps__keras_profiled_batch();
        test_steps__numbers_repeat();
        test_steps__device_steps_apart();
        test_steps__markers_leave_out_fetch();
        test_steps__python_tracer();
        test_steps__eager_next_batch();
        test_steps__annotated_iterations();
        test_steps__group_boundaries();
        test_steps__tail_step();
        test_steps__boundary_tail();
        test_steps__tail_after_warmup();
        test_steps__tail_like_a_slow_step();
        test_steps__orphan_copy();
        test_steps__extend_by_correlation();
        test_steps__first_step_settles();
        test_steps__steps_across_parts();
        return tap_done();
}
