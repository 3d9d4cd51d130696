/* SPDX-License-Identifier: MIT */
/*
 * test_fixtures.c - the verdicts on the real CPU-only fixtures in testdata/
 * (tools/make_fixtures_{tf,torch}.py: TF 2.21, torch 2.13, TF1 graph mode
 * via tf.compat.v1): each fixture's run class, its input fraction in a band
 * around the figure its README row gives (and, for TF2, around XProf's own
 * input_pipeline verdict on the same XSpace), the framework-specific advice,
 * and the same answer from an .xplane.pb and the .trace.json.gz xprof made
 * of it. Bands, not exact figures: the goldens in tests/cli/analyze pin
 * those.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tpa/tpa.h>

#include "tap.h"

typedef struct fixture {
        const char *file;
        const char *cls;                /* run class */
        double      input_lo, input_hi; /* run input fraction, % */
        const char *group;              /* a group that must be at least ... */
        double      group_min;          /* ... this many % */
        const char *finding;            /* an advice that must fire, or NULL */
        const char *not_finding;        /* the other framework's, must not */
} fixture;

/*
 * Why each band:
 * - tf2_input_bound: a py_function sleeping 40 ms in a tf.data map, no
 *   prefetch. XProf: HIGHLY input-bound, 86.1% input; IteratorGetNext on the
 *   step thread is 86.4% of step time (README row). The advice is about
 *   the py_function (the GIL), not the missing prefetch. Of the rest, the
 *   TF ops are 0.5% (README row): the step function's call around them is
 *   the runtime's (host), not compute.
 * - tf2_compute_bound: MLP 512-2048-2048-4 from cached, prefetched data.
 *   XProf: NOT input-bound, 1.0% input.
 * - tf2_host_bound: eager (mul, add) on 8-element tensors. XProf says
 *   POTENTIALLY input-bound with 49.5% because it counts unexplained CPU
 *   time as possibly input; we differ on purpose: that time is the step
 *   thread in Python and in eager dispatch, i.e. host overhead.
 * - torch_input_bound: DataLoader(num_workers=0) with an 8 ms __getitem__:
 *   enumerate(DataLoader) is 91.2% of step time (README row).
 * - torch_input_workers: the same samples read by two worker processes:
 *   enumerate(DataLoader)#_MultiProcessingDataLoaderIter is 88.1% of step
 *   time (README row); the advice is for workers that lag, not to add some.
 * - torch_compute_bound, torch_host_bound: in-memory data; 1.1% and 0.0%
 *   DataLoader, union of CPU ops 95.3% and 34.1%.
 * - tf2_keras_fit, tf2_custom_loop: Keras 3 model.fit, and a custom loop
 *   calling a @tf.function train_step, profiled for 5 batches with no step
 *   marker (XProf: "No step time measured"). Their 5 calls of
 *   multi_step_on_iterator and of the train_step function are the steps.
 *   The ops of a 16-16-4 MLP on 8 samples take microseconds: most of each
 *   step is TF's runtime around them (the function's call, its executor),
 *   a fifth Python between the calls, and the advice is fewer, larger
 *   ops. Both also wait for the next batch a little, the custom loop in
 *   its Python loop too.
 * - tf2_keras_callback: the fit profiled by Keras' TensorBoard callback
 *   (profile_batch) from its first batch, which wraps each batch it
 *   profiles in a "Profiled batch" span with its step number: those are
 *   the steps, the first tracing the function (warm-up), and the
 *   callback's work after the last batch (summaries, the profiler's stop)
 *   is no step's. Like tf2_keras_fit, most of each step is TF's runtime.
 * - tf2_keras_spe: the fit compiled with steps_per_execution=3, 3 batches
 *   a call: the same MLP, the same runtime around its ops; a sixth of each
 *   step waits for the three batches it takes (IteratorGetNextAsOptional).
 * - tf2_eager_loop: that loop without tf.function: no function call marks
 *   the iterations, Python's next batch from tf.data does; most of each
 *   step is Python dispatching the ops one by one, so the advice is to
 *   compile the step.
 * - torch_annotated: no step marker, no optimizer, no DataLoader: each
 *   iteration of a small MLP in the user's record_function("train_step");
 *   about a third of each is Python between the ops.
 * - torch_epoch_eval, torch_parts: the same MLP, profiled an epoch and its
 *   evaluation without prof.step() (the training steps alone count), and
 *   with each part of an iteration in a span of its own; a third of each
 *   step is Python, the batches made ahead take no time to load.
 * - jax_input, jax_host, jax_batch (tools/make_fixtures_jax.py): plain-JAX
 *   loops profiled by jax.profiler.trace, whose Python tracer writes each
 *   Python call as "$file.py:line func": those are Python, not ops. In
 *   jax_input the batch is next() of a generator sleeping 30 ms:
 *   "$builtins next" is 86.5% of step time (README row; XProf: "NOT
 *   input-bound, 0.0%"); jax_host dispatches 15 tiny jitted calls a step
 *   (PjitFunction 78.5%, XLA's ops 5.1%); jax_batch runs a 256-1024-1024-4
 *   MLP, XLA's ops 83.7%; jax_anno is jax_input with each step in the
 *   user's TraceAnnotation('iteration'), $builtins next 91.4%; jax_pmap
 *   averages a gradient over two CPU devices (jax_collectives()). The
 *   advice is neither TF's nor PyTorch's.
 * - tf1_*: a 45-op MLP Session.run of ~300 us on one CPU executor thread:
 *   ~30% of it lies between ops. A TF1 trace records no Python thread, so
 *   that time is idle (doc/design.md 5.3), and the ops make it compute-bound;
 *   the unexplained_idle finding says the trace may miss a thread.
 */
static const fixture fixtures[] = {
        { "tf2_input_bound.trace.json.gz", "input-bound", 81, 91, "host", 5,
          "input_py_function", "input_pipeline" },
        { "tf2_input_bound.xplane.pb", "input-bound", 81, 91, "host", 5,
          "input_py_function", "input_pipeline" },
        { "tf2_compute_bound.trace.json.gz", "compute-bound", 0, 5, "compute", 90, NULL,
          "input_loader" },
        { "tf2_compute_bound.xplane.pb", "compute-bound", 0, 5, "compute", 90, NULL,
          "input_loader" },
        { "tf2_host_bound.trace.json.gz", "host-bound", 0, 5, "host", 50,
          "host_python_tf", "host_python_torch" },
        { "tf2_host_bound.xplane.pb", "host-bound", 0, 5, "host", 50,
          "host_python_tf", "host_python_torch" },
        { "tf2_keras_fit.xplane.pb", "host-bound", 0, 10, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_keras_fit.trace.json.gz", "host-bound", 0, 10, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_custom_loop.xplane.pb", "host-bound", 0, 20, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_custom_loop.trace.json.gz", "host-bound", 0, 20, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_keras_callback.xplane.pb", "host-bound", 0, 10, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_keras_callback.trace.json.gz", "host-bound", 0, 10, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_keras_spe.xplane.pb", "host-bound", 0, 25, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_keras_spe.trace.json.gz", "host-bound", 0, 25, "host", 50,
          "host_overhead", "host_python_tf" },
        { "tf2_eager_loop.xplane.pb", "host-bound", 0, 10, "host", 60,
          "host_python_tf", "host_python_tf_function" },
        { "tf2_eager_loop.trace.json.gz", "host-bound", 0, 10, "host", 60,
          "host_python_tf", "host_python_tf_function" },
        { "torch_input_bound.trace.json.gz", "input-bound", 86, 96, "compute", 2,
          "input_loader", "input_pipeline" },
        { "torch_input_workers.trace.json.gz", "input-bound", 83, 93, "compute", 2,
          "input_loader_workers", "input_loader" },
        { "torch_compute_bound.trace.json.gz", "compute-bound", 0, 5, "compute", 90, NULL,
          "input_pipeline" },
        { "torch_host_bound.trace.json.gz", "host-bound", 0, 5, "host", 50,
          "host_python_torch", "host_python_tf" },
        { "torch_annotated.trace.json.gz", "host-bound", 0, 1, "host", 20,
          "host_python_torch", "host_python_tf" },
        { "torch_epoch_eval.trace.json.gz", "host-bound", 0, 10, "host", 20,
          "host_python_torch", "input_loader" },
        { "torch_parts.trace.json.gz", "host-bound", 0, 1, "host", 20,
          "host_python_torch", "host_python_tf" },
        { "jax_input.xplane.pb", "input-bound", 80, 92, "compute", 0,
          "input_prefetch", "input_pipeline" },
        { "jax_input.trace.json.gz", "input-bound", 80, 92, "compute", 0,
          "input_prefetch", "input_pipeline" },
        { "jax_host.xplane.pb", "host-bound", 0, 2, "host", 70,
          "host_overhead", "host_python_tf" },
        { "jax_host.trace.json.gz", "host-bound", 0, 2, "host", 70,
          "host_overhead", "host_python_tf" },
        { "jax_batch.xplane.pb", "compute-bound", 0, 2, "compute", 90, NULL,
          "input_pipeline" },
        { "jax_batch.trace.json.gz", "compute-bound", 0, 2, "compute", 90, NULL,
          "input_pipeline" },
        { "jax_anno.xplane.pb", "input-bound", 85, 95, "compute", 0,
          "input_prefetch", "input_pipeline" },
        { "jax_anno.trace.json.gz", "input-bound", 85, 95, "compute", 0,
          "input_prefetch", "input_pipeline" },
        { "tf1_step1.runmeta.pb", "compute-bound", 0, 1, "compute", 60,
          "unexplained_idle", "host_python_tf" },
        { "tf1_step2.runmeta.pb", "compute-bound", 0, 1, "compute", 60,
          "unexplained_idle", "host_python_tf" },
        { "tf1_steps.tfevents", "compute-bound", 0, 1, "compute", 60,
          "unexplained_idle", "host_python_tf" },
        { "tf1_timeline.json", "compute-bound", 0, 1, "compute", 60,
          "unexplained_idle", "host_python_tf" },
};

static const char *const group_names[] = {
        "compute", "transfer", "sync", "input", "host", "host_compute", "idle",
};

static tpa_analysis *analyze(const char *file, const tpa_rules *rules, tpa_trace **trp)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;
        tpa_trace *tr = NULL;

        ao.rules = rules;
        if (tpa_trace_new(&tr, &err) < 0 || tpa_read_path(tr, tap_testdata(file), &ro, &err) < 0 ||
            tpa_analyze(&a, tr, &ao, &err) < 0) {
                printf("# %s: %s\n", file, err.msg);
                tpa_trace_free(tr);
                return NULL;
        }
        *trp = tr;
        return a;
}

static double group_pct(const tpa_analysis *a, const char *name)
{
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                if (strcmp(group_names[g], name) == 0)
                        return a->run_group_frac[g] * 100.0;
        return -1;
}

static bool has_finding(const tpa_analysis *a, const char *name)
{
        for (size_t i = 0; i < a->finding_count; i++)
                if (strcmp(a->findings[i].name, name) == 0)
                        return true;
        return false;
}

static void check(const fixture *f, const tpa_rules *rules)
{
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(f->file, rules, &tr);
        double in, g;

        if (!ok(a != NULL && a->run_class != NULL, "%s: analyzed", f->file))
                return;
        in = group_pct(a, "input");
        g = group_pct(a, f->group);
        tap_streq(a->run_class, f->cls, "%s: class", f->file);
        ok(in >= f->input_lo && in <= f->input_hi, "%s: input %.1f%% in [%.0f, %.0f]", f->file,
           in, f->input_lo, f->input_hi);
        ok(g >= f->group_min, "%s: %s %.1f%% >= %.0f%%", f->file, f->group, g, f->group_min);
        ok(a->cpu_only, "%s: CPU-only", f->file);
        if (f->finding != NULL)
                ok(has_finding(a, f->finding), "%s: advice %s", f->file, f->finding);
        ok(!has_finding(a, f->not_finding), "%s: no %s", f->file, f->not_finding);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* An .xplane.pb and the Chrome JSON xprof converted from it: same class,
 * input and compute within a point (the converter drops some events; only
 * the JSON has TF's group ids, which tell the pipeline's work ahead of
 * the step from the step's wait for it). */
static void same_answer(const char *xplane, const char *json, const tpa_rules *rules)
{
        tpa_trace *t1 = NULL, *t2 = NULL;
        tpa_analysis *a1 = analyze(xplane, rules, &t1), *a2 = analyze(json, rules, &t2);

        if (ok(a1 != NULL && a2 != NULL && a1->run_class && a2->run_class,
               "%s and %s: analyzed", xplane, json)) {
                double d = fabs(group_pct(a1, "input") - group_pct(a2, "input"));
                double dc = fabs(group_pct(a1, "compute") - group_pct(a2, "compute"));
                tap_streq(a1->run_class, a2->run_class, "%s: same class as the JSON", xplane);
                ok(d <= 1.0, "%s: input within 1 point of the JSON (%.2f)", xplane, d);
                ok(dc <= 1.0, "%s: compute within 1 point of the JSON (%.2f)", xplane, dc);
                tap_eq((int64_t)a1->kept_count, (int64_t)a2->kept_count,
                       "%s: same kept steps as the JSON", xplane);
        }
        tpa_analysis_free(a1);
        tpa_analysis_free(a2);
        tpa_trace_free(t1);
        tpa_trace_free(t2);
}

/* On a CPU, compute is the TF ops that ran: as their scripts measured
 * them (testdata/README.md: "TF ops", over the profile), within a point.
 * The Python calls of the step's tf.function around them are not ops. */
static void op_compute(const tpa_rules *rules)
{
        static const struct {
                const char *file;
                double      ops;
        } f[] = {
                { "tf2_input_bound.xplane.pb", 0.5 }, { "tf2_input_bound.trace.json.gz", 0.5 },
                { "tf2_compute_bound.xplane.pb", 95.8 },
                { "tf2_compute_bound.trace.json.gz", 95.8 },
        };

        for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
                tpa_trace *tr = NULL;
                tpa_analysis *a = analyze(f[i].file, rules, &tr);
                double c = a != NULL ? group_pct(a, "compute") : -1;

                ok(fabs(c - f[i].ops) <= 1.0, "%s: compute %.1f%%, TF ops %.1f%%", f[i].file, c,
                   f[i].ops);
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A profile with no step marker, whose steps are the calls of the train
 * function (of an eager loop, its next batch): the 5 batches profiled, the median step within 10% of the
 * median time from one call's start to the next (testdata/README.md),
 * not the function's execution alone (about a third of it). */
static void call_steps(const char *file, const char *source, double call_to_call_us,
                       const tpa_rules *rules)
{
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);
        double us;

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        us = (double)a->step_time_median / 1000;
        tap_streq(a->step_source, source, "%s: step source", file);
        tap_eq((int64_t)a->step_count, 5, "%s: a step per batch profiled", file);
        ok(!a->no_markers, "%s: not one step for the trace", file);
        ok(fabs(us / call_to_call_us - 1) <= 0.10, "%s: median step %.1f us, call to call "
           "%.1f us", file, us, call_to_call_us);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A profile with no step marker whose iterations the user wrapped in
 * record_function("train_step"): a step per span, each from its start to
 * the next one's as the script timed them (testdata/README.md; the first
 * span starts later than the script's clock, the profiler's first
 * record_function costing more), and the last to its own end. */
static void annotated_steps(const tpa_rules *rules)
{
        static const double gap_us[] = { 2786.7, 1304.2, 947.7, 1029.4 };
        const char *file = "torch_annotated.trace.json.gz";
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_streq(a->step_source, "detected iterations: train_step", "%s: step source", file);
        if (ok(a->step_count == 5, "%s: a step per span (%zu)", file, a->step_count)) {
                for (size_t k = 0; k < 4; k++) {
                        double us = (double)a->steps[k].step_time / 1000;
                        ok(fabs(us / gap_us[k] - 1) <= (k == 0 ? 0.10 : 0.02),
                           "%s: step %zu %.1f us, timed %.1f us", file, k, us, gap_us[k]);
                }
                const tpa_event *e = tpa_trace_events(tr);
                tpa_ns end = 0;
                for (size_t i = 0; i < tpa_trace_event_count(tr); i++)
                        if (strcmp(tpa_trace_str(tr, e[i].name), "train_step") == 0 &&
                            e[i].ts + e[i].dur > end)
                                end = e[i].ts + e[i].dur;
                tap_eq(a->steps[4].end, end, "%s: the last step ends with its span", file);
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A profile of an epoch and its evaluation, no marker: the DataLoader's
 * next batch marks the steps, the training ones kept, each within 5% of
 * the time from one batch's start to the next as the script timed it
 * (testdata/README.md); the evaluation's batches and the training loader's
 * last call train nothing and are excluded, the evaluation loader's last
 * a tail. */
static void epoch_steps(const tpa_rules *rules)
{
        static const double gap_us[] = { 1276.3, 987.8, 786.7, 989.8, 941.0, 1137.7 };
        const char *file = "torch_epoch_eval.trace.json.gz";
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_streq(a->step_source, "detected iterations: enumerate(DataLoader)#"
                  "_SingleProcessDataLoaderIter.__next__", "%s: step source", file);
        if (ok(a->step_count == 12, "%s: a step per DataLoader call (%zu)", file,
               a->step_count)) {
                for (size_t k = 0; k < 6; k++)
                        ok(!a->steps[k].excluded &&
                           fabs((double)a->steps[k].step_time / 1000 / gap_us[k] - 1) <= 0.05,
                           "%s: training step %zu %.1f us, timed %.1f us", file, k,
                           (double)a->steps[k].step_time / 1000, gap_us[k]);
                for (size_t k = 6; k < 11; k++)
                        ok(a->steps[k].excluded && strstr(a->steps[k].reason, "no backward"),
                           "%s: step %zu trains nothing (%s)", file, k, a->steps[k].reason);
                tap_eq((int64_t)a->kept_count, 6, "%s: the training steps kept", file);
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* Each part of each iteration in a span of its own, none around the
 * whole: the first part marks the iterations, each step within 5% of the
 * script's timing, the last running to the loop's end. */
static void parts_steps(const tpa_rules *rules)
{
        static const double gap_us[] = { 1037.8, 992.7, 795.2, 917.7, 789.3 };
        const char *file = "torch_parts.trace.json.gz";
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_streq(a->step_source, "detected iterations: forward", "%s: step source", file);
        if (ok(a->step_count == 5, "%s: a step per iteration (%zu)", file, a->step_count))
                for (size_t k = 0; k < 5; k++)
                        ok(fabs((double)a->steps[k].step_time / 1000 / gap_us[k] - 1) <= 0.05,
                           "%s: step %zu %.1f us, timed %.1f us", file, k,
                           (double)a->steps[k].step_time / 1000, gap_us[k]);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* Keras' fit compiled with steps_per_execution=3: a call of its train
 * function (the step the trace marks) takes 3 batches, as its 9
 * IteratorGetNextAsOptional over 3 calls show (testdata/README.md); the
 * note says so, and the time of one batch is a third of the median step. */
static void batches_note(const char *file, const tpa_rules *rules)
{
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);
        char want[200];

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_eq((int64_t)a->step_count, 3, "%s: a step per call", file);
        snprintf(want, sizeof(want), "each step takes 3 batches (Keras' steps_per_execution, "
                 "or a loop in the step's tf.function): %.1f us a batch",
                 (double)a->step_time_median / 3 / 1000);
        tap_streq(a->step_note, want, "%s: the note", file);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* Keras 3's TensorBoard callback wraps each batch it profiles in a
 * "Profiled batch" span carrying the batch's number: a step each, numbered
 * as Keras numbers the batches (0-4), each exactly its span (no device
 * work runs past it on a CPU). The first traces the train function: its
 * tf.function-graph_building events make it warm-up. */
static void profiled_batches(const char *file, const tpa_rules *rules)
{
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);
        const tpa_event *e;
        size_t k = 0;

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_streq(a->step_source, "TF host step markers", "%s: step source", file);
        e = tpa_trace_events(tr);
        for (size_t i = 0; i < tpa_trace_event_count(tr); i++) {
                if (strcmp(tpa_trace_str(tr, e[i].name), "Profiled batch") != 0)
                        continue;
                if (k < a->step_count) {
                        tap_eq(a->steps[k].number, (int64_t)k, "%s: step %zu's number",
                               file, k);
                        tap_eq(a->steps[k].step_time, e[i].dur, "%s: step %zu is its span",
                               file, k);
                }
                k++;
        }
        tap_eq((int64_t)a->step_count, 5, "%s: a step per profiled batch", file);
        tap_eq((int64_t)k, 5, "%s: five spans", file);
        ok(a->step_count > 0 && a->steps[0].excluded &&
           strstr(a->steps[0].reason, "compilation or tracing") != NULL,
           "%s: the first batch traces the function (%s)", file,
           a->step_count > 0 ? a->steps[0].reason : "");
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* Keras 3's TensorBoard callback on the JAX backend wraps each batch it
 * profiles in a TraceAnnotation "Profiled batch <i>", the number in the
 * name and no step_num: a step each, numbered so, each exactly its span,
 * as the script timed them (README row: 53.3, 65.3, 35.8, 119.7, 30.1 ms). */
static void jax_profiled_batches(const char *file, const tpa_rules *rules)
{
        static const double ms[5] = { 53.3, 65.3, 35.8, 119.7, 30.1 };
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_streq(a->step_source, "TF host step markers", "%s: step source", file);
        if (ok(a->step_count == 5, "%s: a step per profiled batch (%zu)", file, a->step_count))
                for (size_t k = 0; k < 5; k++) {
                        double got = (double)a->steps[k].step_time / 1e6;
                        tap_eq(a->steps[k].number, (int64_t)k, "%s: step %zu's number", file, k);
                        ok(fabs(got - ms[k]) <= 0.2, "%s: step %zu: %.2f ms, the script's %.1f",
                           file, k, got, ms[k]);
                }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A user's jax.profiler.TraceAnnotation("iteration") around each step:
 * no XLA op (it holds the step's Python and dispatch) but the iterations'
 * span, each step as the script timed it (README row: 30.9, 34.7, 39.4,
 * 30.6, 33.5 ms), the batch's wait input. */
static void jax_annotated_iterations(const char *file, const tpa_rules *rules)
{
        static const double ms[5] = { 30.9, 34.7, 39.4, 30.6, 33.5 };
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        tap_streq(a->step_source, "detected iterations: iteration", "%s: step source", file);
        if (ok(a->step_count == 5, "%s: a step per iteration (%zu)", file, a->step_count))
                for (size_t k = 0; k < 5; k++) {
                        double got = (double)a->steps[k].step_time / 1e6;
                        ok(fabs(got - ms[k]) <= 0.2, "%s: step %zu: %.2f ms, the script's %.1f",
                           file, k, got, ms[k]);
                }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* jax.pmap over two CPU devices averaging its gradient by lax.pmean: XLA's
 * "all-reduce" (and the "Rendezvous" in it, where one device waits for
 * the other) is the collective, not an op, and the thunk executor's
 * scopes around it hide it no more. The README row: all-reduce spans
 * 60.2% of the steps' time, and 9-24% (18% over steps 1-4) has an
 * all-reduce and no other XLA op running (the kept steps); before, the
 * collective read 0.0% and compute 89.7%. Each step as the script timed
 * it (11.4, 2.0, 2.3, 2.5, 1.8 ms). */
static void jax_collectives(const char *file, const tpa_rules *rules)
{
        static const double ms[5] = { 11.4, 2.0, 2.3, 2.5, 1.8 };
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);
        double c;

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        c = a->run_frac[TPA_BUCKET_SYNC_COLLECTIVE] * 100.0;
        ok(c >= 12.0 && c <= 30.0, "%s: collective %.1f%% in [12, 30]", file, c);
        ok(a->run_frac[TPA_BUCKET_COMPUTE] <= 0.80, "%s: compute %.1f%% <= 80%%", file,
           a->run_frac[TPA_BUCKET_COMPUTE] * 100.0);
        if (ok(a->step_count == 5, "%s: 5 steps (%zu)", file, a->step_count))
                for (size_t k = 0; k < 5; k++) {
                        double got = (double)a->steps[k].step_time / 1e6;
                        ok(fabs(got - ms[k]) <= 0.1, "%s: step %zu: %.2f ms, the script's %.1f",
                           file, k, got, ms[k]);
                }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A JAX loop with no jax.block_until_ready in its step marker: the markers
 * span the dispatches (0.04-0.25 ms), the ops run after the loop (the
 * README row: the script waited 31.4 ms for the last step's parameters
 * after it). No verdict on the dispatches (it was "host-bound, fewer,
 * larger ops"): the note gives the work after the steps. */
static void jax_async(const char *file, const tpa_rules *rules)
{
        tpa_trace *tr = NULL;
        tpa_analysis *a = analyze(file, rules, &tr);
        double ms;

        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        ok(a->no_verdict != NULL && a->run_class == NULL, "%s: no verdict (%s)", file,
           a->run_class != NULL ? a->run_class : "none");
        ok(strstr(a->step_note, "runs after them") != NULL, "%s: note '%s'", file, a->step_note);
        ok(sscanf(a->step_note, "the steps' work runs after them: %lf ms", &ms) == 1 &&
           fabs(ms - 31.4) <= 1.0, "%s: the work after the steps as the script's wait, 31.4 ms",
           file);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* What the traces show of how the program ran: TF running tf.functions
 * that Python called (the TF2 fixtures whose step is a tf.function, not the
 * eager one), a tf.data prefetch and py_function as their scripts build
 * them, a DataLoader with worker processes (not one without). */
static void facts(const tpa_rules *rules)
{
        enum { TFF = TPA_FACT_TF_FUNCTION, LW = TPA_FACT_LOADER_WORKERS,
               PF = TPA_FACT_TF_DATA_PREFETCH, PY = TPA_FACT_TF_PY_FUNCTION,
               TC = TPA_FACT_TORCH_COMPILED, JX = TPA_FACT_JAX };
        static const struct {
                const char *file;
                unsigned    want;
        } f[] = {
                { "tf2_keras_fit.xplane.pb", TFF | PF },
                { "tf2_custom_loop.trace.json.gz", TFF | PF },
                { "tf2_eager_loop.xplane.pb", PF },
                { "tf2_compute_bound.xplane.pb", TFF | PF },
                { "tf2_input_bound.trace.json.gz", TFF | PY },
                { "tf2_host_bound.xplane.pb", 0 }, { "tf2_host_bound.trace.json.gz", 0 },
                { "torch_input_workers.trace.json.gz", LW }, { "torch_input_bound.trace.json.gz", 0 },
                { "torch_host_bound.trace.json.gz", 0 }, { "tf1_timeline.json", 0 },
                { "torch_compiled.trace.json.gz", TC },
                { "jax_input.xplane.pb", JX }, { "jax_host.trace.json.gz", JX },
                { "jax_batch.xplane.pb", JX },
        };

        for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
                tpa_trace *tr = NULL;
                tpa_analysis *a = analyze(f[i].file, rules, &tr);

                if (ok(a != NULL, "%s: analyzed", f[i].file))
                        tap_eq((int64_t)tpa_trace_facts(tr), (int64_t)f[i].want, "%s: facts",
                               f[i].file);
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* PyTorch's own TensorBoard plugin on the ProfilerStep fixtures, per step
 * (tools/tb_plugin_steps.py, torch-tb-profiler 0.4.3; its steps=, times=
 * and cpuop= fields): step time, DataLoader share and CpuOp share. On a
 * CPU-only trace its step windows and priorities are ours, so they are our
 * step time (to the microsecond it prints), input and compute (to the 0.1
 * point it prints). */
static const struct tb_plugin {
        const char *file;
        double      ms[3], loader[3], cpuop[3];
} tb_plugin[] = {
        { "torch_input_bound.trace.json.gz", { 72.040, 76.877, 67.475 },
          { 91.3, 85.4, 97.7 }, { 7.4, 13.2, 1.1 } },
        { "torch_input_workers.trace.json.gz", { 37.090, 0.773, 74.814 },
          { 96.6, 10.7, 84.8 }, { 1.7, 26.5, 14.1 } },
        { "torch_compute_bound.trace.json.gz", { 37.751, 43.752, 59.326 },
          { 1.3, 1.2, 0.9 }, { 94.3, 95.3, 94.6 } },
        { "torch_host_bound.trace.json.gz", { 1.806, 1.529, 2.342 },
          { 0.0, 0.0, 0.0 }, { 31.7, 34.3, 35.7 } },
};

static void tb_plugin_steps(const tpa_rules *rules)
{
        for (size_t i = 0; i < sizeof(tb_plugin) / sizeof(tb_plugin[0]); i++) {
                const struct tb_plugin *t = &tb_plugin[i];
                tpa_trace *tr = NULL;
                tpa_analysis *a = analyze(t->file, rules, &tr);

                if (!ok(a != NULL && a->step_count == 3, "%s: the plugin's 3 steps", t->file)) {
                        tpa_analysis_free(a);
                        tpa_trace_free(tr);
                        continue;
                }
                for (size_t k = 0; k < 3; k++) {
                        const tpa_step *s = &a->steps[k];
                        double ms = (double)s->step_time / 1e6;
                        double in = 100.0 * s->frac[TPA_BUCKET_INPUT];
                        double cpu = 100.0 * s->frac[TPA_BUCKET_COMPUTE];
                        ok(fabs(ms - t->ms[k]) <= 0.0005, "%s: step %zu: %.4f ms, plugin %.3f",
                           t->file, k, ms, t->ms[k]);
                        ok(fabs(in - t->loader[k]) <= 0.05 + 1e-9, "%s: step %zu: input %.2f%%, "
                           "plugin's DataLoader %.1f%%", t->file, k, in, t->loader[k]);
                        ok(fabs(cpu - t->cpuop[k]) <= 0.05 + 1e-9, "%s: step %zu: compute %.2f%%, "
                           "plugin's CpuOp %.1f%%", t->file, k, cpu, t->cpuop[k]);
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

int main(void)
{
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;

        if (!ok(tpa_rules_new_default(&rules, &err) == 0, "default rules load"))
                return tap_done();
        for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
                check(&fixtures[i], rules);
        op_compute(rules);
        tb_plugin_steps(rules);
        same_answer("tf2_input_bound.xplane.pb", "tf2_input_bound.trace.json.gz", rules);
        same_answer("tf2_compute_bound.xplane.pb", "tf2_compute_bound.trace.json.gz", rules);
        same_answer("tf2_host_bound.xplane.pb", "tf2_host_bound.trace.json.gz", rules);
        same_answer("tf2_keras_fit.xplane.pb", "tf2_keras_fit.trace.json.gz", rules);
        same_answer("tf2_custom_loop.xplane.pb", "tf2_custom_loop.trace.json.gz", rules);
        same_answer("tf2_eager_loop.xplane.pb", "tf2_eager_loop.trace.json.gz", rules);
        same_answer("tf2_keras_callback.xplane.pb", "tf2_keras_callback.trace.json.gz", rules);
        same_answer("tf2_keras_spe.xplane.pb", "tf2_keras_spe.trace.json.gz", rules);
        batches_note("tf2_keras_spe.xplane.pb", rules);
        batches_note("tf2_keras_spe.trace.json.gz", rules);
        epoch_steps(rules);
        parts_steps(rules);
        same_answer("jax_input.xplane.pb", "jax_input.trace.json.gz", rules);
        same_answer("jax_host.xplane.pb", "jax_host.trace.json.gz", rules);
        same_answer("jax_batch.xplane.pb", "jax_batch.trace.json.gz", rules);
        jax_profiled_batches("jax_batch.xplane.pb", rules);
        jax_profiled_batches("jax_batch.trace.json.gz", rules);
        same_answer("jax_anno.xplane.pb", "jax_anno.trace.json.gz", rules);
        jax_annotated_iterations("jax_anno.xplane.pb", rules);
        jax_annotated_iterations("jax_anno.trace.json.gz", rules);
        same_answer("jax_pmap.xplane.pb", "jax_pmap.trace.json.gz", rules);
        jax_collectives("jax_pmap.xplane.pb", rules);
        jax_collectives("jax_pmap.trace.json.gz", rules);
        jax_async("jax_async.xplane.pb", rules);
        jax_async("jax_async.trace.json.gz", rules);
        profiled_batches("tf2_keras_callback.xplane.pb", rules);
        profiled_batches("tf2_keras_callback.trace.json.gz", rules);
        facts(rules);
        annotated_steps(rules);
        for (int j = 0; j < 2; j++) {
                static const char *const ext[2] = { "xplane.pb", "trace.json.gz" };
                char fit[64], loop[64], eager[64];
                snprintf(fit, sizeof(fit), "tf2_keras_fit.%s", ext[j]);
                snprintf(loop, sizeof(loop), "tf2_custom_loop.%s", ext[j]);
                snprintf(eager, sizeof(eager), "tf2_eager_loop.%s", ext[j]);
                call_steps(fit, "detected iterations: EagerLocalExecute: "
                           "__inference_multi_step_on_iterator_213", 962.4, rules);
                call_steps(loop, "detected iterations: EagerLocalExecute: "
                           "__inference_train_step_160", 686.4, rules);
                call_steps(eager, "detected iterations: EagerLocalExecute: IteratorGetNext",
                           5288.2, rules);
        }
        tpa_rules_free(rules);
        return tap_done();
}
