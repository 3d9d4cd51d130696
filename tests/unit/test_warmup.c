/* SPDX-License-Identifier: MIT */
/*
 * test_warmup.c - warmup.c: warm-up steps and a trailing step cut off, on small traces built in memory
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

static void steps_of(tb *b, const double *times, int n)
{
        double t = 0;
        for (int i = 0; i < n; i++) {
                char name[32];
                snprintf(name, sizeof(name), "ProfilerStep#%d", i);
                ev(b, b->host, TPA_KIND_STEP, name, t, times[i], 0, 0);
                ev(b, b->gpu0, TPA_KIND_KERNEL, "k", t, times[i] / 2, 0, 0);
                t += times[i];
        }
}

static void test_warmup__warmup(void)
{
        static const double flat[] = { 100, 100, 100, 100, 100 };
        static const double slow[] = { 300, 100, 102, 98, 100 };
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        steps_of(&b, flat, 5);
        i = ev(&b, b.host, TPA_KIND_OTHER, "__inference_train_function_1", 10, 5, 0, 0);
        tpa_trace__add_flags(b.tr, i, TPA_FLAG_COMPILE, NULL);
        a = run(&b, NULL, -1);
        ok(a->steps[0].excluded && strstr(a->steps[0].reason, "compil"),
           "test_warmup__warmup: compile evidence excludes step 0");
        ok(!a->steps[1].excluded, "test_warmup__warmup: step 1 kept");
        tap_eq((int64_t)a->kept_count, 4, "test_warmup__warmup: four kept");
        tpa_analysis_free(a);
        a = run(&b, NULL, 2);
        ok(a->steps[1].excluded && !a->steps[2].excluded, "test_warmup__warmup: --warmup 2");
        tpa_analysis_free(a);
        a = run(&b, NULL, 9);
        ok(a->all_kept && a->kept_count == 5, "test_warmup__warmup: all would go: all kept");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        steps_of(&b, slow, 5);
        a = run(&b, NULL, -1);
        ok(a->steps[0].excluded && strstr(a->steps[0].reason, "median"),
           "test_warmup__warmup: 3x slower first step excluded");
        tap_eq((int64_t)a->kept_count, 4, "test_warmup__warmup: the rest kept");
        tap_eq(a->step_time_median, 100 * US, "test_warmup__warmup: median of kept");
        tap_eq(a->step_time_max, 102 * US, "test_warmup__warmup: max of kept");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A slow first step that recurs (an evaluation every third step: 18 ms,
 * and 17.4 ms later) is the steady state's, not warm-up; one far slower
 * than the later slow step (60 ms against 17.4 ms, past warmup.ratio of
 * it) still is. In ms, last step longer so that no tail is in play. */
static void test_warmup__recurring_slow_step(void)
{
        static const double periodic[] = { 18, 4, 4, 17.4, 4.4, 3.8, 4 };
        static const double once[] = { 60, 4, 4, 17.4, 4.4, 3.8, 4 };

        for (int c = 0; c < 2; c++) {
                double ms[7];
                tb b = mk(1);
                tpa_analysis *a;

                for (int i = 0; i < 7; i++)
                        ms[i] = (c == 0 ? periodic : once)[i] * 1000;
                steps_of(&b, ms, 7);
                a = run(&b, NULL, -1);
                ok(a->steps[0].excluded == (c == 1), "test_warmup__recurring_slow_step: %s "
                   "(%s)", c == 0 ? "a slow step that recurs is kept" : "far slower is warm-up",
                   a->steps[0].reason);
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* A warm-up of two steps, the second the slower (a tf.data pipeline
 * refilling its buffers while the train step runs: 4.6 ms, 7.5 ms, then
 * 2.1 ms steps; real, a TF2 custom loop with a parallel map): the second is
 * no slow step that recurs, and both are warm-up. In ms. */
static void test_warmup__two_step_warmup(void)
{
        static const double ms0[] = { 4.6, 7.5, 2.1, 2.06, 2.04, 2.4, 1.9, 2.1 };
        double ms[8];
        tb b = mk(1);
        tpa_analysis *a;

        for (int i = 0; i < 8; i++)
                ms[i] = ms0[i] * 1000;
        steps_of(&b, ms, 8);
        a = run(&b, NULL, -1);
        ok(a->steps[0].excluded && a->steps[1].excluded && !a->steps[2].excluded,
           "test_warmup__two_step_warmup: both leading slow steps excluded (%s; %s)",
           a->steps[0].reason, a->steps[1].reason);
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The profiler stopped as a step began (its schedule one step into a
 * cycle's active part): a ProfilerStep#N with no work in it is excluded,
 * "empty" (a tail when the warm-up rules run: they see it first), even by
 * --warmup 0, and stays so; a trace of nothing else has no verdict. In us. */
static void test_warmup__empty_step(void)
{
        static const double flat[] = { 100, 100, 100 };
        tb b = mk(1);
        tpa_analysis *a;

        steps_of(&b, flat, 3);
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#3", 300, 0.02, 0, 0);
        for (int auto_ = 0; auto_ < 2; auto_++) {
                a = run(&b, NULL, auto_ ? -1 : 0);
                if (ok(a->step_count == 4, "test_warmup__empty_step: four steps (%zu)",
                       a->step_count))
                        ok(a->steps[3].excluded && a->kept_count == 3 &&
                           strstr(a->steps[3].reason, auto_ ? "tail" : "empty") != NULL,
                           "test_warmup__empty_step: %s: the last goes (%s)",
                           auto_ ? "auto" : "--warmup 0", a->steps[3].reason);
                tpa_analysis_free(a);
        }
        tpa_trace_free(b.tr);

        b = mk(1);
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#7", 0, 18.8, 0, 0);
        a = run(&b, NULL, -1);
        tap_eq((int64_t)a->kept_count, 0, "test_warmup__empty_step: alone, not kept back");
        ok(!a->all_kept && a->no_verdict != NULL && strstr(a->no_verdict, "empty") != NULL,
           "test_warmup__empty_step: no verdict (%s)", a->no_verdict ? a->no_verdict : "");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The loop ran on a thread the profiler did not record (probe run
 * t01_main, torch 2.13: the profiler entered on the main thread, which
 * called prof.step() while a threading.Thread trained): eight
 * ProfilerStep#N of 13-19 ms with no op in any. Each is empty, the first
 * too (not a warm-up: it holds nothing), those before the last saying why
 * they may be; the run has no verdict and says where the work went, not
 * that the profiler stopped as a step began. In us. */
static void test_warmup__empty_steps_other_thread(void)
{
        static const double ms[] = { 19.2, 14.0, 12.8, 13.7, 17.3, 16.0, 12.7, 19.0 };
        tb b = mk(1);
        tpa_analysis *a;
        double t = 0;
        bool why = true;

        for (int i = 0; i < 8; i++) {
                char name[32];
                snprintf(name, sizeof(name), "ProfilerStep#%d", i + 2);
                ev(&b, b.host, TPA_KIND_STEP, name, t, ms[i] * 1000, 0, 0);
                t += ms[i] * 1000;
        }
        a = run(&b, NULL, -1);
        tap_eq((int64_t)a->kept_count, 0, "test_warmup__empty_steps_other_thread: none kept");
        for (int i = 0; i < 7; i++)
                why = why && a->steps[i].excluded && strstr(a->steps[i].reason, "thread") != NULL;
        ok(why, "test_warmup__empty_steps_other_thread: each before the last says why (%s)",
           a->steps[0].reason);
        ok(a->no_verdict != NULL && strstr(a->no_verdict, "thread") != NULL,
           "test_warmup__empty_steps_other_thread: no verdict, a thread unrecorded (%s)",
           a->no_verdict ? a->no_verdict : "");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Compilation by name, as the readers flag it (the Chrome JSON reader
 * here; the XSpace reader asks the same table): TF's tracing of a
 * tf.function and XLA's compilers (TF 2.16 on), torch.compile's and older
 * TF's, in the first of four equal steps, exclude it; the compiled code
 * running does not. */
static void test_warmup__compile_names(void)
{
        static const struct {
                const char *name;
                bool        compiles;
        } names[] = {
                { "tf.function-graph_building", true }, { "JitCompiler::Compile", true },
                { "CpuCompiler::RunBackend", true }, { "FusionCompiler::Compile", true },
                { "inductor_compile", true }, { "XlaCompile", true },
                { "CpuExecutable::ExecuteAsyncOnStream", false },
                { "Torch-Compiled Region: 0/0", false },
        };

        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
                char json[2048];
                size_t len = 0;
                tpa_trace *tr;
                tpa_analysis *a;

                len += (size_t)snprintf(json + len, sizeof(json) - len, "{\"traceEvents\":[");
                for (int i = 0; i < 4; i++)
                        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
                                "\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":100},"
                                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,"
                                "\"tid\":1,\"ts\":%d,\"dur\":50}", i ? "," : "", i, i * 100,
                                i == 0 ? names[k].name : "aten::mm", i * 100 + 10);
                snprintf(json + len, sizeof(json) - len, "]}");
                tr = read_json(json);
                a = NULL;
                if (tr != NULL) {
                        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                        tpa_error err = TPA_ERROR_INIT;
                        if (tpa_analyze(&a, tr, &o, &err) < 0)
                                printf("# %s\n", err.msg);
                }
                if (ok(a != NULL && a->step_count == 4, "test_warmup__compile_names: %s: "
                       "four steps", names[k].name))
                        ok(a->steps[0].excluded == names[k].compiles &&
                           (!names[k].compiles || strstr(a->steps[0].reason, "compil")),
                           "test_warmup__compile_names: %s %s", names[k].name,
                           names[k].compiles ? "compiles" : "runs compiled code");
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A recompilation mid-run (torch.compile, a new shape: the loader's last,
 * smaller batch) is excluded like the warm-up: its compile scopes are
 * framework ops, the compute of a CPU-only trace, and its seconds would
 * make the run's breakdown and top ops the compiler's; nor is it a slow
 * step that recurs, which would keep a slow first step. A compile in
 * every step is the steady state and stays. */
static void test_warmup__recompilation(void)
{
        for (int every = 0; every < 2; every++) {
                char json[4096];
                size_t len = 0;
                tpa_trace *tr;
                tpa_analysis *a = NULL;

                len += (size_t)snprintf(json + len, sizeof(json) - len, "{\"traceEvents\":[");
                for (int i = 0, ts = 0, dur; i < 8; i++, ts += dur) {
                        bool comp = every || i == 5;
                        dur = comp ? 5000 : !every && i == 0 ? 400 : 100;
                        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
                                "\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},"
                                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,"
                                "\"tid\":1,\"ts\":%d,\"dur\":50}", i ? "," : "", i, ts, dur,
                                ts + 10);
                        if (comp)
                                len += (size_t)snprintf(json + len, sizeof(json) - len,
                                        ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                                        "\"inductor_compile\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                                        "\"dur\":4800}", ts + 70);
                }
                snprintf(json + len, sizeof(json) - len, "]}");
                tr = read_json(json);
                if (tr != NULL) {
                        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                        tpa_error err = TPA_ERROR_INIT;
                        if (tpa_analyze(&a, tr, &o, &err) < 0)
                                printf("# %s\n", err.msg);
                }
                if (ok(a != NULL && a->step_count == 8, "test_warmup__recompilation: eight steps"))
                        ok(every ? !a->steps[5].excluded && !a->steps[3].excluded
                                 : a->steps[5].excluded &&
                                           strstr(a->steps[5].reason, "recompil") != NULL &&
                                           !a->steps[4].excluded && !a->steps[6].excluded,
                           "test_warmup__recompilation: %s", every ? "a compile in every step "
                           "stays" : "the step that recompiles is excluded");
                if (!every && a != NULL && a->step_count == 8)
                        ok(a->steps[0].excluded && strstr(a->steps[0].reason, "warm-up") != NULL,
                           "test_warmup__recompilation: the slow first step is warm-up still, "
                           "the recompilation no slow step that recurs");
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

static void test_warmup__trailing_cut_off(void)
{
        static const double flat[] = { 100, 100, 100 };
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        steps_of(&b, flat, 3);
        i = ev(&b, b.host, TPA_KIND_HOST_OP, "never closed", 250, 50, 0, 0);
        tpa_trace__add_flags(b.tr, i, TPA_FLAG_UNCLOSED, NULL);
        a = run(&b, NULL, -1);
        ok(a->steps[2].excluded && strstr(a->steps[2].reason, "cut off"),
           "test_warmup__trailing_cut_off: last step excluded");
        ok(!a->steps[0].excluded && !a->steps[1].excluded,
           "test_warmup__trailing_cut_off: others kept");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        steps_of(&b, flat, 3);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 210, 5, 77, 0);
        a = run(&b, NULL, -1);
        ok(a->steps[2].excluded, "test_warmup__trailing_cut_off: launch with no kernel");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A trace file cut short inside its events (a killed process): PyTorch
 * writes a step's ops in time order, so its last step read lost its end,
 * whatever was read of it: 3 of 5 iterations of a DQN loop, the third with
 * its backward pass and optimizer step gone, was kept with a third of its
 * ops (or called "after the loop": no backward pass). A file cut after its
 * events array ended (in the trailing traceName) lost no event: kept. */
static void test_warmup__truncated_file(void)
{
        for (int c = 0; c < 3; c++) {   /* 0: whole, 1: cut in the events, 2: after them */
                tb b = mk(0);
                tpa_analysis *a;
                tpa_health *h = tpa_trace__health(b.tr);

                for (int k = 0; k < 3; k++) {
                        char name[32];
                        double t = k * 100.0;
                        snprintf(name, sizeof(name), "ProfilerStep#%d", k);
                        ev(&b, b.host, TPA_KIND_STEP, name, t, 100, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::addmm", t + 10, 30, 0, 0);
                        if (k < 2 || c != 1)
                                ev(&b, b.host, TPA_KIND_HOST_OP,
                                   "autograd::engine::evaluate_function: AddmmBackward0",
                                   t + 40, 40, 0, 0);
                }
                h->truncated = c > 0;
                h->truncated_at = c > 0 ? 4096 : 0;
                h->events_whole = c == 2;
                a = run(&b, NULL, -1);
                if (ok(a->step_count == 3, "test_warmup__truncated_file: %d: 3 steps (%zu)", c,
                       a->step_count)) {
                        ok(!a->steps[0].excluded && !a->steps[1].excluded,
                           "test_warmup__truncated_file: %d: the first two kept", c);
                        ok(a->steps[2].excluded == (c == 1) &&
                           (c != 1 || strstr(a->steps[2].reason, "cut off: the trace file "
                                             "ends early") != NULL),
                           "test_warmup__truncated_file: %d: the last %s (%s)", c,
                           c == 1 ? "cut off" : "kept", a->steps[2].reason);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* No marker: a DataLoader's next batch marks the iterations, CPU-only, in
 * us. Four train (a backward pass, and the optimizer's step every
 * `every` iterations), then the evaluation loader's three batches (a
 * forward pass each) unless `eval` is 0; `train` 0: no iteration trains
 * (an inference loop). */
static tpa_analysis *loader_loop(int train, int every, int eval)
{
        tb b = mk(0);
        tpa_analysis *a;
        int k;

        for (k = 0; k < 4 + eval; k++) {
                double t = k * 100.0;
                ev(&b, b.host, TPA_KIND_INPUT,
                   "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 10, 0, 0);
                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::addmm", t + 10, 30, 0, 0);
                if (k >= 4 || !train)
                        continue;
                ev(&b, b.host, TPA_KIND_HOST_OP,
                   "autograd::engine::evaluate_function: AddmmBackward0", t + 40, 40, 0, 0);
                if (k % every == every - 1)
                        ev(&b, b.host, TPA_KIND_ANNOTATION, "Optimizer.step#SGD.step", t + 80,
                           10, 0, 0);
        }
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::addmm", k * 100.0, 30, 0, 0);
        a = run(&b, NULL, -1);
        tpa_trace_free(b.tr);
        return a;
}

/* A profile of an epoch and the evaluation after it: the evaluation's
 * batches are no training steps. Gradient accumulation (a backward pass
 * each iteration, the optimizer every fourth) and an inference loop (no
 * iteration trains) exclude nothing. */
static void test_warmup__evaluation_batches(void)
{
        tpa_analysis *a = loader_loop(1, 1, 3);

        if (ok(a->step_count == 7, "test_warmup__evaluation_batches: a step per batch (%zu)",
               a->step_count)) {
                for (size_t k = 0; k < 7; k++)
                        ok(a->steps[k].excluded == (k >= 4) &&
                           (k < 4 || strstr(a->steps[k].reason, "no backward pass") != NULL),
                           "test_warmup__evaluation_batches: step %zu %s (%s)", k,
                           k < 4 ? "trains" : "evaluates", a->steps[k].reason);
        }
        tpa_analysis_free(a);
        for (int c = 0; c < 2; c++) {
                a = c == 0 ? loader_loop(1, 4, 0) : loader_loop(0, 1, 3);
                for (size_t k = 0; k + 1 < a->step_count; k++)
                        ok(!a->steps[k].excluded, "test_warmup__evaluation_batches: %s: "
                           "step %zu kept (%s)", c == 0 ? "accumulation" : "inference", k,
                           a->steps[k].reason);
                tpa_analysis_free(a);
        }
}

/* The profiler's schedule still recording as the loop ends: the step the
 * last prof.step() began holds what the script did next (a checkpoint, a
 * barrier, DDP's join), no iteration; it is excluded where the steps
 * before it train, and kept in an inference loop. CPU-only, in us. */
static void test_warmup__after_the_loop(void)
{
        for (int train = 0; train < 2; train++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 5; k++) {
                        char name[32];
                        double t = k * 100.0;
                        snprintf(name, sizeof(name), "ProfilerStep#%d", k);
                        ev(&b, b.host, TPA_KIND_STEP, name, t, k < 4 ? 100 : 300, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::addmm", t + 10, 30, 0, 0);
                        if (k < 4 && train)
                                ev(&b, b.host, TPA_KIND_HOST_OP,
                                   "autograd::engine::evaluate_function: AddmmBackward0",
                                   t + 40, 40, 0, 0);
                }
                /* the checkpoint after the loop */
                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::copy_", 420, 250, 0, 0);
                a = run(&b, NULL, -1);
                if (ok(a->step_count == 5, "test_warmup__after_the_loop: 5 steps (%zu)",
                       a->step_count)) {
                        for (size_t k = 0; k < 4; k++)
                                ok(!a->steps[k].excluded, "test_warmup__after_the_loop: %s: "
                                   "step %zu kept (%s)", train ? "training" : "inference", k,
                                   a->steps[k].reason);
                        ok(a->steps[4].excluded == (train == 1) &&
                           (!train || strstr(a->steps[4].reason, "after the loop") != NULL),
                           "test_warmup__after_the_loop: %s: the last step %s (%s)",
                           train ? "training" : "inference", train ? "excluded" : "kept",
                           a->steps[4].reason);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* Lightning's PyTorchProfiler calls prof.step() after each training_step
 * and each validation_step: ProfilerStep#N marks the validation batches
 * between training steps too. Steps with no backward pass or optimizer
 * step where others have one are an evaluation's batches: excluded, in
 * the middle as at the end. An inference loop (no step trains) keeps all. */
static void test_warmup__evaluation_profiler_steps(void)
{
        /* 1: training, 0: validation */
        static const int kind[] = { 1, 1, 1, 0, 0, 0, 1, 1, 1, 0 };
        const size_t n = sizeof(kind) / sizeof(kind[0]);

        for (int train = 0; train < 2; train++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (size_t k = 0; k < n; k++) {
                        char name[32];
                        double t = k * 100.0;
                        snprintf(name, sizeof(name), "ProfilerStep#%zu", k);
                        ev(&b, b.host, TPA_KIND_STEP, name, t, kind[k] ? 100 : 40, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::addmm", t + 5, 30, 0, 0);
                        if (kind[k] && train)
                                ev(&b, b.host, TPA_KIND_HOST_OP,
                                   "autograd::engine::evaluate_function: AddmmBackward0",
                                   t + 40, 40, 0, 0);
                }
                a = run(&b, NULL, -1);
                if (ok(a->step_count == n, "test_warmup__evaluation_profiler_steps: %zu steps "
                       "(%zu)", n, a->step_count)) {
                        for (size_t k = 0; k < n; k++)
                                ok(a->steps[k].excluded == (train && !kind[k]),
                                   "test_warmup__evaluation_profiler_steps: %s: step %zu "
                                   "%s (%s)", train ? "training" : "inference", k,
                                   train && !kind[k] ? "excluded" : "kept", a->steps[k].reason);
                        if (train)
                                ok(strstr(a->steps[3].reason, "evaluation") != NULL &&
                                   strstr(a->steps[9].reason, "after the loop") != NULL,
                                   "test_warmup__evaluation_profiler_steps: reasons (%s; %s)",
                                   a->steps[3].reason, a->steps[9].reason);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* tf.summary.trace_on(profiler=True) around a loop whose tf.function's
 * call marks the iterations (boundaries), the batch fetch outside it: each
 * window holds its call and the next batch's wait, the last one its call
 * and trace_export's summary ops, as long as an iteration. It is no
 * iteration: excluded. With the fetch in every window (the iterator read
 * inside the function), the last is kept. CPU-only, in us. */
static void test_warmup__no_fetch_after_the_loop(void)
{
        for (int inside = 0; inside < 2; inside++) {
                tb b = mk(0);
                tpa_analysis *a;

                for (int k = 0; k < 6; k++) {
                        double t = k * 100.0;
                        ev(&b, b.host, TPA_KIND_HOST_OP, "train_step", t, 10, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "MatMul", t + 1, 8, 0, 0);
                        if (k < 5 || inside)
                                ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext",
                                   t + (inside ? 2 : 15), inside ? 5 : 80, 0, 0);
                }
                /* trace_export's summary ops */
                ev(&b, b.host, TPA_KIND_HOST_OP, "WriteSummary", 515, 80, 0, 0);
                a = run(&b, "^train_step$", -1);
                if (ok(a->step_count == 6, "test_warmup__no_fetch_after_the_loop: 6 steps (%zu)",
                       a->step_count)) {
                        for (size_t k = 0; k < 5; k++)
                                ok(!a->steps[k].excluded, "test_warmup__no_fetch_after_the_loop: "
                                   "step %zu kept (%s)", k, a->steps[k].reason);
                        ok(a->steps[5].excluded == !inside &&
                           (inside || strstr(a->steps[5].reason, "no batch fetch") != NULL),
                           "test_warmup__no_fetch_after_the_loop: fetch %s: the last step %s "
                           "(%s)", inside ? "inside" : "between", inside ? "kept" : "excluded",
                           a->steps[5].reason);
                }
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* An epoch that fills tf.data's cache (each step waits for a slow map)
 * then one that reads it, both profiled: the first epoch's steps, slow by
 * their time alone and waiting for input half of it, are a phase of the
 * run, not a warm-up, when they are four or more and over a quarter of
 * the steps: kept, with a note. Three such steps of thirteen, or six that
 * wait for nothing (cold caches), stay a warm-up. In us. */
static void test_warmup__slow_phase_kept(void)
{
        static const int slow_of[] = { 3, 6, 6 }, input_of[] = { 1, 1, 0 };
        double times[16];

        for (int c = 0; c < 3; c++) {
                int slow = slow_of[c], n = slow + 10;
                bool phase = slow >= 4 && input_of[c];
                tb b = mk(1);
                tpa_analysis *a;
                size_t kept = 0;

                for (int k = 0; k < n; k++)
                        times[k] = k < slow ? 200 : 10;
                steps_of(&b, times, n);
                for (int k = 0; input_of[c] && k < slow; k++)
                        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", k * 200.0 + 100, 100,
                           0, 0);
                a = run(&b, NULL, -1);
                for (size_t k = 0; k < a->step_count; k++)
                        kept += !a->steps[k].excluded;
                ok(kept == (size_t)(phase ? n : n - slow),
                   "test_warmup__slow_phase_kept: %d slow steps%s of %d: %s (%zu kept)", slow,
                   input_of[c] ? " waiting for input" : "", n,
                   phase ? "a phase, kept" : "a warm-up", kept);
                ok((strstr(a->step_note, "6 slow steps at the start, waiting for input, are a "
                           "phase") != NULL) == phase,
                   "test_warmup__slow_phase_kept: %d slow steps: the note: %s", slow,
                   a->step_note);
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* The last ProfilerStep#N of a profile stopped as its `with` block
 * closes after the loop runs on to the profiler's stop (the PyTorch
 * profiler's own ResNet-50 sample: 202.6 ms, 80.4 ms of it with nothing
 * recorded, where the steps before took 118-123 ms): a tail, when the
 * stretch at its end where nothing is recorded, a quarter of the median
 * or more, holds its excess; a last step as slow with ops to its end is
 * a slow step, kept. In us. */
static void test_warmup__profiler_stop_tail(void)
{
        for (int quiet = 0; quiet < 2; quiet++) {
                char json[4096];
                size_t len = 0;
                tpa_error err = TPA_ERROR_INIT;
                tpa_trace *tr;
                tpa_analysis *a;

                len += (size_t)snprintf(json + len, sizeof(json) - len,
                                        "{\"schemaVersion\": 1, \"traceEvents\": [");
                for (int k = 0; k < 6; k++) {
                        int at = 100 * k, dur = k == 5 ? 200 : 100;
                        int work = k == 5 && !quiet ? 185 : 80;
                        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                                "\"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, "
                                "\"ts\": %d, \"dur\": %d},"
                                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                                "\"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d}",
                                k ? "," : "", k, at, dur, at + 5, work);
                }
                snprintf(json + len, sizeof(json) - len, "]}");
                tr = read_json(json);
                a = NULL;
                if (tr == NULL || tpa_analyze(&a, tr, NULL, &err) < 0)
                        printf("# %s\n", err.msg);
                if (ok(a != NULL && a->step_count == 6,
                       "test_warmup__profiler_stop_tail: %d: 6 steps", quiet)) {
                        const tpa_step *last = &a->steps[5];
                        if (quiet)
                                ok(last->excluded && strstr(last->reason, "nothing recorded "
                                                            "anywhere in its last 0.1 ms"),
                                   "test_warmup__profiler_stop_tail: quiet end: a tail (%s)",
                                   last->reason);
                        else
                                ok(!last->excluded,
                                   "test_warmup__profiler_stop_tail: ops to its end: kept (%s)",
                                   last->reason);
                        ok(!a->steps[4].excluded,
                           "test_warmup__profiler_stop_tail: %d: the step before kept", quiet);
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

int main(void)
{
        test_warmup__warmup();
        test_warmup__compile_names();
        test_warmup__recompilation();
        test_warmup__trailing_cut_off();
        test_warmup__truncated_file();
        test_warmup__evaluation_batches();
        test_warmup__recurring_slow_step();
        test_warmup__two_step_warmup();
        test_warmup__empty_step();
        test_warmup__empty_steps_other_thread();
        test_warmup__after_the_loop();
        test_warmup__evaluation_profiler_steps();
        test_warmup__no_fetch_after_the_loop();
        test_warmup__slow_phase_kept();
        test_warmup__profiler_stop_tail();
        return tap_done();
}
