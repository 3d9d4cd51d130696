/* SPDX-License-Identifier: MIT */
/*
 * test_analysis.c - steps, warm-up, the partition, gaps and the run summary
 * on small traces built in memory, whose right answers are known by
 * construction (times below are in microseconds).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>
#include <tpa/analysis.h>

#include "analysis/analysis_internal.h"
#include "tap.h"

#define US 1000

typedef struct tb {
        tpa_trace *tr;
        uint32_t   host, host2, gpu0, gpu1, steps;
} tb;

static uint32_t mk_proc(tpa_trace *tr, int64_t pid, const char *name, int role, int dev)
{
        uint32_t p;
        tpa_str s;

        tpa_trace_get_process(tr, &p, (tpa_id){ .num = pid }, NULL);
        tpa_trace_intern(tr, &s, name, strlen(name), NULL);
        tpa_trace_process(tr, p)->name = s;
        tpa_trace_process(tr, p)->role = (uint8_t)role;
        tpa_trace_process(tr, p)->device = dev;
        return p;
}

static uint32_t mk_thread(tpa_trace *tr, uint32_t p, int64_t tid, int role)
{
        uint32_t t;

        tpa_trace_get_thread(tr, &t, p, (tpa_id){ .num = tid }, NULL);
        tpa_trace_thread(tr, t)->role = (uint8_t)role;
        return t;
}

/* A host process with two threads and, when gpus > 0, GPU processes with
 * one stream each (and a Steps line on GPU 0). */
static tb mk(int gpus)
{
        tb b;
        uint32_t hp;

        memset(&b, 0, sizeof(b));
        tpa_trace_new(&b.tr, NULL);
        hp = mk_proc(b.tr, 501, "/host:CPU", TPA_PROC_HOST, -1);
        b.host = mk_thread(b.tr, hp, 1, TPA_TRACK_HOST);
        b.host2 = mk_thread(b.tr, hp, 2, TPA_TRACK_HOST);
        if (gpus > 0) {
                uint32_t g0 = mk_proc(b.tr, 1, "/device:GPU:0", TPA_PROC_DEVICE, 0);
                b.gpu0 = mk_thread(b.tr, g0, 7, TPA_TRACK_STREAM);
                b.steps = mk_thread(b.tr, g0, 99, TPA_TRACK_STEPS);
        }
        if (gpus > 1) {
                uint32_t g1 = mk_proc(b.tr, 2, "/device:GPU:1", TPA_PROC_DEVICE, 1);
                b.gpu1 = mk_thread(b.tr, g1, 7, TPA_TRACK_STREAM);
        }
        return b;
}

static size_t ev(tb *b, uint32_t track, int kind, const char *name, double ts_us,
                 double dur_us, uint32_t corr, uint32_t group)
{
        tpa_event e;
        size_t idx;

        memset(&e, 0, sizeof(e));
        tpa_trace_intern(b->tr, &e.name, name, strlen(name), NULL);
        e.ts = (tpa_ns)(ts_us * US);
        e.dur = (tpa_ns)(dur_us * US);
        e.track = track;
        e.kind = (unsigned)kind;
        e.corr = corr;
        e.group = group;
        tpa_trace_add_event(b->tr, &e, &idx, NULL);
        return idx;
}

static tpa_analysis *run(tb *b, const char *marker, int warmup)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a = NULL;
        tpa_error err = TPA_ERROR_INIT;

        o.step_marker = marker;
        o.warmup = warmup;
        if (tpa_analyze(&a, b->tr, &o, &err) < 0)
                printf("# tpa_analyze: %s\n", err.msg);
        return a;
}

static bool sums_to_one(const tpa_step *s)
{
        double f = 0;
        tpa_ns ns = 0;

        for (int k = 0; k < TPA_BUCKET__COUNT; k++) {
                f += s->frac[k];
                ns += s->bucket_ns[k];
        }
        return fabs(f - 1.0) < 1e-12 && ns == s->step_time;
}

static double metric(const tpa_analysis *a, int step, const char *name)
{
        double v = -1;

        if (!tpa_analysis_metric(a, step, name, strlen(name), &v))
                printf("# unknown metric %s\n", name);
        return v;
}

static void test_analysis__kernel_and_input_gap(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
           0, 40, 0, 0);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 40, 5, 1, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "gemm", 50, 50, 1, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq((int64_t)a->step_count, 1, "test_analysis__kernel_and_input_gap: one step");
        tap_streq(a->step_source, "ProfilerStep#N", "test_analysis__kernel_and_input_gap: source");
        tap_eq(s->number, 1, "test_analysis__kernel_and_input_gap: numbered as the trace");
        tap_eq(s->step_time, 100 * US, "test_analysis__kernel_and_input_gap: step time");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 50 * US, "test_analysis__kernel_and_input_gap: compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 40 * US, "test_analysis__kernel_and_input_gap: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 5 * US, "test_analysis__kernel_and_input_gap: launch");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 5 * US, "test_analysis__kernel_and_input_gap: python");
        ok(sums_to_one(s), "test_analysis__kernel_and_input_gap: fractions sum to 1");
        ok(fabs(metric(a, 0, "input_frac") - 0.4) < 1e-12, "test_analysis__kernel_and_input_gap: input_frac");
        ok(fabs(metric(a, -1, "input_frac") - 0.4) < 1e-12, "test_analysis__kernel_and_input_gap: run input_frac");
        tap_eq((int64_t)metric(a, 0, "gap_count"), 1, "test_analysis__kernel_and_input_gap: one gap");
        tap_eq((int64_t)metric(a, 0, "gap_max_ns"), 50 * US, "test_analysis__kernel_and_input_gap: gap length");
        tap_eq((int64_t)metric(a, 0, "launch_count"), 1, "test_analysis__kernel_and_input_gap: launches");
        ok(fabs(metric(a, 0, "gain_input_frac") - 0.4) < 1e-12, "test_analysis__kernel_and_input_gap: what-if");
        tap_eq(s->driver_track, b.host, "test_analysis__kernel_and_input_gap: driving thread");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__copy_under_kernel(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_step *s;
        size_t c;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#0", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        c = ev(&b, b.gpu0, TPA_KIND_COPY_H2D, "Memcpy HtoD", 30, 50, 0, 0);
        tpa_trace_set_aux(b.tr, c, TPA_AUX_BYTES, 1000000, NULL);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 50 * US, "test_analysis__copy_under_kernel: compute wins");
        tap_eq(s->bucket_ns[TPA_BUCKET_H2D], 30 * US, "test_analysis__copy_under_kernel: h2d exposed");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 20 * US, "test_analysis__copy_under_kernel: host compute");
        ok(sums_to_one(s), "test_analysis__copy_under_kernel: fractions sum to 1");
        tap_eq((int64_t)metric(a, 0, "h2d_count"), 1, "test_analysis__copy_under_kernel: h2d count");
        tap_eq((int64_t)metric(a, 0, "h2d_bytes"), 1000000, "test_analysis__copy_under_kernel: bytes");
        ok(fabs(metric(a, 0, "h2d_gbps") - 20.0) < 1e-9, "test_analysis__copy_under_kernel: GB/s");
        ok(fabs(metric(a, 0, "copy_exposed_frac") - 0.3) < 1e-12,
           "test_analysis__copy_under_kernel: exposed fraction");
        tap_eq((int64_t)metric(a, 0, "small_copy_count"), 0, "test_analysis__copy_under_kernel: not small");
        tap_eq(a->copies[0].exposed, 30 * US, "test_analysis__copy_under_kernel: run exposed");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__sync_while_idle(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#0", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 20, 0, 0);
        ev(&b, b.host, TPA_KIND_SYNC, "cudaStreamSynchronize", 10, 50, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_COLLECTIVE, "ncclAllReduce", 70, 10, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 80, 20, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_SYNC_HOST_WAIT], 40 * US, "test_analysis__sync_while_idle: host wait");
        tap_eq(s->bucket_ns[TPA_BUCKET_SYNC_COLLECTIVE], 10 * US, "test_analysis__sync_while_idle: collective");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 10 * US, "test_analysis__sync_while_idle: python rest");
        ok(fabs(metric(a, 0, "sync_frac") - 0.5) < 1e-12, "test_analysis__sync_while_idle: sync_frac");
        ok(sums_to_one(s), "test_analysis__sync_while_idle: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__python_gap(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#5", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mul", 0, 10, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mul", 40, 10, 0, 0);
        ev(&b, b.host2, TPA_KIND_HOST_OP, "aten::other_thread", 15, 5, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 50, 50, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 30 * US, "test_analysis__python_gap: python");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 20 * US, "test_analysis__python_gap: host compute");
        tap_eq((int64_t)metric(a, 0, "host_gap_count"), 1, "test_analysis__python_gap: one host gap");
        tap_eq((int64_t)metric(a, 0, "host_gap_ns"), 30 * US, "test_analysis__python_gap: its length");
        ok(fabs(metric(a, 0, "host_gap_per_ms") - 10.0) < 1e-9, "test_analysis__python_gap: per ms");
        ok(sums_to_one(s), "test_analysis__python_gap: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__cpu_only(void)
{
        tb b = mk(0);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::conv2d", 0, 60, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "enumerate(DataLoader)", 60, 20, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        ok(a->cpu_only && a->device_count == 0, "test_analysis__cpu_only: no device");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 60 * US, "test_analysis__cpu_only: host ops are compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 20 * US, "test_analysis__cpu_only: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 20 * US, "test_analysis__cpu_only: python");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 0, "test_analysis__cpu_only: no host compute");
        tap_eq((int64_t)metric(a, 0, "cpu_only"), 1, "test_analysis__cpu_only: metric");
        ok(sums_to_one(s), "test_analysis__cpu_only: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A trace read from JSON text, so that the dialect tables classify it. */
static tpa_trace *read_json(const char *json)
{
        tpa_trace *tr = NULL;
        tpa_error err = TPA_ERROR_INIT;

        if (tpa_trace_new(&tr, &err) < 0 ||
            tpa_read_memory(tr, json, strlen(json), "test.json", NULL, &err) < 0) {
                printf("# read: %s\n", err.msg);
                tpa_trace_free(tr);
                return NULL;
        }
        return tr;
}

static tpa_analysis *analyze_with_rules(const tpa_trace *tr, tpa_rules *rules)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a = NULL;
        tpa_error err = TPA_ERROR_INIT;

        o.rules = rules;
        o.warmup = 0;
        if (tr == NULL || tpa_analyze(&a, tr, &o, &err) < 0) {
                printf("# tpa_analyze: %s\n", tr ? err.msg : "no trace");
                return NULL;
        }
        return a;
}

/* The kind the reader gave the first event named `name`, or -1. */
static int kind_of(const tpa_trace *tr, const char *name)
{
        const tpa_event *e = tpa_trace_events(tr);

        for (size_t i = 0; i < tpa_trace_event_count(tr); i++)
                if (strcmp(tpa_trace_str(tr, e[i].name), name) == 0)
                        return (int)e[i].kind;
        return -1;
}

static bool has_finding(const tpa_analysis *a, const char *name)
{
        for (size_t i = 0; i < a->finding_count; i++)
                if (strcmp(a->findings[i].name, name) == 0)
                        return true;
        return false;
}

/* A CPU-only TF2 step shaped like testdata/tf2_input_bound (TF 2.21: a
 * tf.function fed by tf.data whose map runs a py_function): the python3
 * thread waits in IteratorGetNext under the eager runtime's scopes while a
 * tf.data thread runs the map function, then calls the function whose ops
 * run on tf_Compute. Made up so that, in us: input is the IteratorGetNext
 * scope [2, 88) = 86 (the map ops nested in it and the tf.data thread's work
 * are input, not compute); compute is the function call [90, 99) = 9; the
 * runtime scope around the wait, [0, 2) and [88, 90), is launch = 4; the
 * python3 thread runs nothing in [99, 100) = 1. XProf's figure for the real
 * fixture: 86.1% input. */
static void test_analysis__cpu_only_tf_input(void)
{
        static const char json[] =
                "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
                "{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"python3\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"tf_Compute/42\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":3,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"tf_data_private_threadpool/-7\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"train 1\","
                "\"args\":{\"group_id\":\"1\",\"step_num\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":90,"
                "\"name\":\"TFE_Py_FastPathExecute_C\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":1,\"dur\":88,"
                "\"name\":\"EagerExecute\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":2,\"dur\":86,"
                "\"name\":\"EagerLocalExecute: IteratorGetNext\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":3,\"dur\":84,"
                "\"name\":\"KernelAndDeviceFunc::Run\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":4,\"dur\":82,"
                "\"name\":\"IteratorGetNextOp::DoCompute\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":5,\"dur\":80,"
                "\"name\":\"Iterator::Map\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":6,\"dur\":78,"
                "\"name\":\"InstantiatedCapturedFunction::Run\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":3,\"ts\":6,\"dur\":78,"
                "\"name\":\"ThreadpoolListener::Region\"},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":3,\"ts\":7,\"dur\":76,"
                "\"name\":\"ExecutorState::Process\"},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":3,\"ts\":8,\"dur\":74,\"name\":\"EagerPyFunc\","
                "\"args\":{\"is_eager\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":90,\"dur\":9,\"name\":\"step\","
                "\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":92,\"dur\":5,\"name\":\"MatMul\","
                "\"args\":{\"group_id\":\"1\"}}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a;
        const tpa_step *s;

        tpa_rules_new_default(&rules, &err);
        a = analyze_with_rules(tr, rules);
        if (!ok(a != NULL && a->step_count == 1 && a->cpu_only,
                "test_analysis__cpu_only_tf_input: one CPU-only step")) {
                tpa_analysis_free(a);
                tpa_rules_free(rules);
                tpa_trace_free(tr);
                return;
        }
        s = &a->steps[0];
        tap_eq(kind_of(tr, "EagerLocalExecute: IteratorGetNext"), TPA_KIND_INPUT,
               "test_analysis__cpu_only_tf_input: the eager IteratorGetNext scope is input");
        tap_eq(kind_of(tr, "TFE_Py_FastPathExecute_C"), TPA_KIND_LAUNCH,
               "test_analysis__cpu_only_tf_input: the C API entry is a runtime scope");
        tap_eq(kind_of(tr, "KernelAndDeviceFunc::Run"), TPA_KIND_LAUNCH,
               "test_analysis__cpu_only_tf_input: the function runner is a runtime scope");
        tap_eq(kind_of(tr, "EagerPyFunc"), TPA_KIND_INPUT,
               "test_analysis__cpu_only_tf_input: an op on a tf.data thread is input");
        tap_eq(kind_of(tr, "MatMul"), TPA_KIND_HOST_OP,
               "test_analysis__cpu_only_tf_input: an op on tf_Compute is an op");
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 86 * US, "test_analysis__cpu_only_tf_input: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 9 * US,
               "test_analysis__cpu_only_tf_input: compute is the function call only");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 4 * US,
               "test_analysis__cpu_only_tf_input: runtime scope outside the wait is launch");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 1 * US,
               "test_analysis__cpu_only_tf_input: python");
        ok(sums_to_one(s), "test_analysis__cpu_only_tf_input: fractions sum to 1");
        tap_streq(a->run_class, "input-bound", "test_analysis__cpu_only_tf_input: input-bound");
        tap_eq((int64_t)metric(a, -1, "framework_tf"), 1,
               "test_analysis__cpu_only_tf_input: framework_tf");
        tap_eq((int64_t)metric(a, -1, "framework_pytorch"), 0,
               "test_analysis__cpu_only_tf_input: not framework_pytorch");
        ok(has_finding(a, "input_pipeline") && !has_finding(a, "input_loader") &&
           !has_finding(a, "input_prefetch"),
           "test_analysis__cpu_only_tf_input: tf.data advice only");
        ok(a->device_op_count >= 1 && strcmp(a->device_ops[0].name, "step") == 0,
           "test_analysis__cpu_only_tf_input: top compute op is the function call");
        for (size_t i = 0; i < a->device_op_count; i++)
                ok(strcmp(a->device_ops[i].name, "EagerPyFunc") != 0 &&
                   strcmp(a->device_ops[i].name, "InstantiatedCapturedFunction::Run") != 0,
                   "test_analysis__cpu_only_tf_input: input work is no compute op (%s)",
                   a->device_ops[i].name);
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(tr);
}

/* CPU-only, with TF group ids: input work no step waits on (group 0, a
 * prefetch thread) is neither input nor compute; an op nested in an input
 * event on the same thread is input; a runtime scope (launch kind, no
 * correlation id) with no op inside is launch. In us: input [0, 10) = 10,
 * compute [10, 50) = 40, launch [50, 70) = 20, python [70, 100) = 30 (the
 * background prefetch on the other thread does not hide the gap). */
static void test_analysis__cpu_only_background_input(void)
{
        tb b = mk(0);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "train 1", 0, 100, 0, 1);
        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", 0, 10, 0, 1);
        ev(&b, b.host, TPA_KIND_HOST_OP, "Cast", 2, 3, 0, 1);
        ev(&b, b.host, TPA_KIND_HOST_OP, "MatMul", 10, 40, 0, 1);
        ev(&b, b.host, TPA_KIND_LAUNCH, "EagerExecute", 50, 20, 0, 1);
        ev(&b, b.host2, TPA_KIND_INPUT, "Iterator::Prefetch", 20, 80, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 10 * US,
               "test_analysis__cpu_only_background_input: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 40 * US,
               "test_analysis__cpu_only_background_input: compute (no nested or background)");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 20 * US,
               "test_analysis__cpu_only_background_input: launch");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 30 * US,
               "test_analysis__cpu_only_background_input: python");
        ok(sums_to_one(s), "test_analysis__cpu_only_background_input: fractions sum to 1");
        ok(a->device_op_count == 1 && strcmp(a->device_ops[0].name, "MatMul") == 0,
           "test_analysis__cpu_only_background_input: the one compute op is MatMul");
        tap_eq((int64_t)metric(a, 0, "framework_tf"), 0,
               "test_analysis__cpu_only_background_input: no dialect, not framework_tf");
        tap_eq((int64_t)metric(a, 0, "framework_pytorch"), 0,
               "test_analysis__cpu_only_background_input: nor framework_pytorch");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A Kineto CPU-only step: framework_pytorch, DataLoader advice only, and
 * the collate op inside the DataLoader call is input, not compute. */
static void test_analysis__kineto_framework(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\","
                "\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":70},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::stack\","
                "\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":8},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":30}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a;

        tpa_rules_new_default(&rules, &err);
        a = analyze_with_rules(tr, rules);
        if (ok(a != NULL && a->step_count == 1, "test_analysis__kineto_framework: one step")) {
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_INPUT], 70 * US,
                       "test_analysis__kineto_framework: input includes the nested collate");
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_COMPUTE], 30 * US,
                       "test_analysis__kineto_framework: compute");
                tap_eq((int64_t)metric(a, -1, "framework_pytorch"), 1,
                       "test_analysis__kineto_framework: framework_pytorch");
                tap_eq((int64_t)metric(a, -1, "framework_tf"), 0,
                       "test_analysis__kineto_framework: not framework_tf");
                ok(has_finding(a, "input_loader") && !has_finding(a, "input_pipeline") &&
                   !has_finding(a, "input_prefetch"),
                   "test_analysis__kineto_framework: DataLoader advice only");
        }
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(tr);
}

/* A TF1 Session.run on CPU (the shape of testdata/tf1_timeline.json: 45
 * small ops on one executor thread, 2-5 us apart, ~300 us a step). A TF1
 * trace records no thread that drives the step (no Python thread), so it
 * has no python bucket and the gaps between ops are idle (doc/design.md 5.3),
 * with no Python-gap finding. Ten 5 us ops 2 us apart: compute 50 of 68
 * us, idle 18 us. */
static void test_analysis__tf1_executor_gaps(void)
{
        char json[4096];
        size_t len;
        tpa_trace *tr;
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a;

        len = (size_t)snprintf(json, sizeof(json), "{\"traceEvents\":["
                "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":"
                "\"/job:localhost/replica:0/task:0/device:CPU:0 Compute\"}}");
        for (int k = 0; k < 10; k++)
                len += (size_t)snprintf(json + len, sizeof(json) - len,
                                        ",{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":%d,\"dur\":5,"
                                        "\"name\":\"MatMul\",\"args\":{\"op\":\"MatMul\"}}",
                                        7 * k);
        snprintf(json + len, sizeof(json) - len, "]}");
        tr = read_json(json);
        tpa_rules_new_default(&rules, &err);
        a = analyze_with_rules(tr, rules);
        if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
               "test_analysis__tf1_executor_gaps: one CPU-only step")) {
                const tpa_step *s = &a->steps[0];
                tap_eq(s->step_time, 68 * US, "test_analysis__tf1_executor_gaps: step time");
                tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 50 * US,
                       "test_analysis__tf1_executor_gaps: compute");
                tap_eq(s->bucket_ns[TPA_BUCKET_IDLE], 18 * US,
                       "test_analysis__tf1_executor_gaps: the gaps are idle");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 0,
                       "test_analysis__tf1_executor_gaps: no python bucket");
                tap_streq(a->run_class, "compute-bound",
                          "test_analysis__tf1_executor_gaps: compute-bound");
                ok(!has_finding(a, "python_gaps") && has_finding(a, "unexplained_idle"),
                   "test_analysis__tf1_executor_gaps: no Python-gap finding");
        }
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(tr);
}

static void test_analysis__two_devices(void)
{
        tb b = mk(2);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", 0, 100, 0, 0);
        ev(&b, b.gpu1, TPA_KIND_KERNEL, "k", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq((int64_t)a->device_count, 2, "test_analysis__two_devices: two devices");
        tap_streq(a->device_names[0], "/device:GPU:0", "test_analysis__two_devices: ordered by ordinal");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 75 * US, "test_analysis__two_devices: mean compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 25 * US, "test_analysis__two_devices: mean host");
        tap_eq(s->device_ns[TPA_BUCKET_COMPUTE], 50 * US, "test_analysis__two_devices: GPU:0 row");
        tap_eq(s->slowest_device, 1, "test_analysis__two_devices: slowest named");
        ok(sums_to_one(s), "test_analysis__two_devices: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* With keep_spans, each device's spans tile the step window in time order,
 * joined where the bucket does not change, and add up to its row of
 * device_ns; without, there are none. */
static void test_analysis__spans(void)
{
        tb b = mk(2);
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;
        const tpa_step *s;
        bool tiled = true, summed = true;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", 0, 100, 0, 0);
        ev(&b, b.gpu1, TPA_KIND_KERNEL, "k", 0, 60, 0, 0);
        ev(&b, b.gpu1, TPA_KIND_KERNEL, "k", 60, 40, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        o.warmup = 0;
        o.keep_spans = true;
        ok(tpa_analyze(&a, b.tr, &o, &err) == 0, "test_analysis__spans: analyze");
        s = &a->steps[0];
        tap_eq((int64_t)s->span_count, 3, "test_analysis__spans: two on GPU:0, one on GPU:1");
        for (int d = 0; d < 2; d++) {
                tpa_ns at = s->start, sum[TPA_BUCKET__COUNT] = { 0 };
                for (size_t i = 0; i < s->span_count; i++) {
                        const tpa_span *sp = &s->spans[i];
                        if (sp->device != d)
                                continue;
                        tiled &= sp->start == at && sp->end > sp->start;
                        at = sp->end;
                        sum[sp->bucket] += sp->end - sp->start;
                }
                tiled &= at == s->end;
                for (int k = 0; k < TPA_BUCKET__COUNT; k++)
                        summed &= sum[k] == s->device_ns[d * TPA_BUCKET__COUNT + k];
        }
        ok(tiled, "test_analysis__spans: each device's spans tile the window");
        ok(summed, "test_analysis__spans: and add up to its bucket times");
        tap_eq(s->spans[1].bucket, TPA_BUCKET_HOST_COMPUTE, "test_analysis__spans: GPU:0 idle");
        tpa_analysis_free(a);
        a = run(&b, NULL, 0);
        ok(a->steps[0].spans == NULL && a->steps[0].span_count == 0,
           "test_analysis__spans: none unless asked");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__profiler_steps(void)
{
        tb b = mk(1);
        uint32_t ann;
        tpa_analysis *a;

        ann = mk_thread(b.tr, tpa_trace_thread(b.tr, b.gpu0)->process, 8, TPA_TRACK_ANNOTATION);
        for (int i = 0; i < 3; i++) {
                char name[32];
                snprintf(name, sizeof(name), "ProfilerStep#%d", 7 + i);
                ev(&b, b.host, TPA_KIND_STEP, name, 100.0 * i, 100, 0, 0);
                ev(&b, ann, TPA_KIND_ANNOTATION, name, 100.0 * i + 5, 90, 0, 0);
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 100.0 * i + 10, 80, 0, 0);
        }
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->step_count, 3, "test_analysis__profiler_steps: device copies not counted");
        tap_eq(a->steps[0].number, 7, "test_analysis__profiler_steps: first is #7");
        tap_eq(a->steps[2].number, 9, "test_analysis__profiler_steps: last is #9");
        tap_eq(a->steps[1].start, 100 * US, "test_analysis__profiler_steps: window start");
        tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_COMPUTE], 80 * US,
               "test_analysis__profiler_steps: annotations are not busy time");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__tf_train_markers(void)
{
        tb b = mk(1);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "train 12", 0, 50, 0, 0);
        ev(&b, b.host, TPA_KIND_STEP, "train 13", 50, 50, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 10, 20, 0, 0);
        a = run(&b, NULL, 0);
        tap_streq(a->step_source, "TF host step markers", "test_analysis__tf_train_markers: source");
        tap_eq((int64_t)a->step_count, 2, "test_analysis__tf_train_markers: two steps");
        tap_eq(a->steps[0].number, 12, "test_analysis__tf_train_markers: numbered 12");
        tap_eq(a->steps[1].number, 13, "test_analysis__tf_train_markers: numbered 13");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__tf2_steps_line(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        i = ev(&b, b.steps, TPA_KIND_STEP, "EagerKernelExecute 0", 10, 40, 0, 1);
        tpa_trace_set_aux(b.tr, i, TPA_AUX_STEP_NUM, 4, NULL);
        ev(&b, b.steps, TPA_KIND_STEP, "EagerKernelExecute 1", 60, 40, 0, 2);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 10, 40, 0, 1);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 60, 20, 0, 2);
        ev(&b, b.host, TPA_KIND_HOST_OP, "op", 0, 100, 0, 0);
        a = run(&b, NULL, 0);
        tap_streq(a->step_source, "TF Steps line", "test_analysis__tf2_steps_line: source");
        tap_eq((int64_t)a->step_count, 2, "test_analysis__tf2_steps_line: two steps");
        tap_eq(a->steps[0].number, 4, "test_analysis__tf2_steps_line: step_num aux");
        tap_eq(a->steps[1].number, 1, "test_analysis__tf2_steps_line: number from the name");
        tap_eq(a->steps[0].step_time, 40 * US, "test_analysis__tf2_steps_line: window");
        tap_eq(a->steps[1].bucket_ns[TPA_BUCKET_HOST_COMPUTE], 20 * US,
               "test_analysis__tf2_steps_line: host compute");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__step_marker_regex(void)
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
        tap_streq(a->step_source, "--step-marker", "test_analysis__step_marker_regex: source");
        tap_eq((int64_t)a->step_count, 3, "test_analysis__step_marker_regex: three steps");
        tap_eq(a->steps[2].number, 2, "test_analysis__step_marker_regex: numbered in order");
        tpa_analysis_free(a);
        o.step_marker = "([";
        ok(tpa_analyze(&a, b.tr, &o, &err) == TPA_EINVAL && strstr(err.msg, "--step-marker"),
           "test_analysis__step_marker_regex: bad regex is a usage error");
        tpa_trace_free(b.tr);
}

static void test_analysis__no_markers(void)
{
        tb b = mk(1);
        tpa_analysis *a;

        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 10, 20, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "op", 0, 50, 0, 0);
        a = run(&b, NULL, -1);
        ok(a->no_markers, "test_analysis__no_markers: said");
        tap_eq((int64_t)a->step_count, 1, "test_analysis__no_markers: one step");
        tap_eq(a->steps[0].step_time, 50 * US, "test_analysis__no_markers: the whole trace");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* --step-marker marks boundaries: a step runs from one match's start to
 * the next one's, the last to its thread's last event; a pattern that
 * matches nothing is a note naming it, and the trace's own markers decide. */
static void test_analysis__boundary_markers(void)
{
        tb b = mk(0);
        tpa_analysis *a;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#7", 0, 290, 0, 0);
        for (int k = 0; k < 3; k++) {
                ev(&b, b.host, TPA_KIND_HOST_OP, "load_batch", k * 100, 5, 0, 0);
                ev(&b, b.host, TPA_KIND_HOST_OP, "forward", k * 100 + 10, 80, 0, 0);
        }
        a = run(&b, "^load_batch$", 0);
        if (ok(a != NULL && a->step_count == 3, "test_analysis__boundary_markers: three steps")) {
                tap_eq(a->steps[0].start, 0, "test_analysis__boundary_markers: first start");
                tap_eq(a->steps[0].step_time, 100 * US,
                       "test_analysis__boundary_markers: start to the next start");
                tap_eq(a->steps[1].step_time, 100 * US,
                       "test_analysis__boundary_markers: second step");
                tap_eq(a->steps[2].end, 290 * US,
                       "test_analysis__boundary_markers: the last to its thread's last event");
                tap_streq(a->step_note, "", "test_analysis__boundary_markers: no note");
        }
        tpa_analysis_free(a);
        a = run(&b, "^nosuch$", 0);
        if (ok(a != NULL, "test_analysis__boundary_markers: no match analysed")) {
                ok(strstr(a->step_note, "'^nosuch$'") != NULL,
                   "test_analysis__boundary_markers: the note names the pattern (%s)",
                   a->step_note);
                tap_streq(a->step_source, "ProfilerStep#N",
                          "test_analysis__boundary_markers: the trace's markers decide");
                tap_eq((int64_t)a->step_count, 1,
                       "test_analysis__boundary_markers: one ProfilerStep");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* No marker: the iterations are detected, by the first recurring name in
 * iteration order (DataLoader before the optimizer), as boundaries; the
 * same steps on one thread and on two. */
static void test_analysis__detected_iterations(void)
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
               "test_analysis__detected_iterations: four steps")) {
                bool same = a[1]->step_count == a[0]->step_count;
                ok(strncmp(a[0]->step_source, "detected iterations: enumerate(DataLoader)#", 43)
                   == 0, "test_analysis__detected_iterations: says what it used (%s)",
                   a[0]->step_source);
                ok(!a[0]->no_markers, "test_analysis__detected_iterations: not one step");
                for (size_t k = 0; k < 4; k++) {
                        tap_eq(a[0]->steps[k].start, (tpa_ns)k * 100 * US,
                               "test_analysis__detected_iterations: step %zu starts", k);
                        same = same && a[1]->steps[k].start == a[0]->steps[k].start &&
                               a[1]->steps[k].end == a[0]->steps[k].end;
                }
                tap_eq(a[0]->steps[0].step_time, 100 * US,
                       "test_analysis__detected_iterations: start to the next start");
                ok(same, "test_analysis__detected_iterations: the same on two threads");
        }
        tpa_analysis_free(a[0]);
        tpa_analysis_free(a[1]);
        tpa_trace_free(b.tr);
}

/* A last step far shorter than the rest with almost no device work is the
 * profiler stopping inside it: excluded, "tail" (the verdict would come
 * from it otherwise when warm-up takes the others). */
static void test_analysis__tail_step(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        for (int k = 0; k < 4; k++) {
                double t = k * 1000, len = k < 3 ? 900 : 40;
                i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t, len, 0, 0);
                tpa_trace_set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mm", t, len, 0, 0);
                if (k < 3)
                        ev(&b, b.gpu0, TPA_KIND_KERNEL, "gemm", t + 10, 800, 0, 0);
        }
        a = run(&b, NULL, -1);
        if (ok(a != NULL && a->step_count == 4, "test_analysis__tail_step: four steps")) {
                ok(a->steps[3].excluded && strncmp(a->steps[3].reason, "tail", 4) == 0,
                   "test_analysis__tail_step: the last is a tail (%s)", a->steps[3].reason);
                tap_eq((int64_t)a->kept_count, 3, "test_analysis__tail_step: three kept");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The first window's start moves past the step before's device work only:
 * work queued by it (no launch in the trace) that runs on from the start
 * moves it; an isolated copy 57 ms in whose launch the trace lacks does
 * not (it is the window's own). */
static void test_analysis__orphan_copy(void)
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
                               "test_analysis__orphan_copy: queued work of the step before "
                               "moves the start");
                else
                        tap_eq(a->steps[0].start, 0,
                               "test_analysis__orphan_copy: a copy whose launch is missing "
                               "moves no start");
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

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

static void test_analysis__warmup(void)
{
        static const double flat[] = { 100, 100, 100, 100, 100 };
        static const double slow[] = { 300, 100, 102, 98, 100 };
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        steps_of(&b, flat, 5);
        i = ev(&b, b.host, TPA_KIND_OTHER, "__inference_train_function_1", 10, 5, 0, 0);
        tpa_trace_add_flags(b.tr, i, TPA_FLAG_COMPILE, NULL);
        a = run(&b, NULL, -1);
        ok(a->steps[0].excluded && strstr(a->steps[0].reason, "compil"),
           "test_analysis__warmup: compile evidence excludes step 0");
        ok(!a->steps[1].excluded, "test_analysis__warmup: step 1 kept");
        tap_eq((int64_t)a->kept_count, 4, "test_analysis__warmup: four kept");
        tpa_analysis_free(a);
        a = run(&b, NULL, 2);
        ok(a->steps[1].excluded && !a->steps[2].excluded, "test_analysis__warmup: --warmup 2");
        tpa_analysis_free(a);
        a = run(&b, NULL, 9);
        ok(a->all_kept && a->kept_count == 5, "test_analysis__warmup: all would go: all kept");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        steps_of(&b, slow, 5);
        a = run(&b, NULL, -1);
        ok(a->steps[0].excluded && strstr(a->steps[0].reason, "median"),
           "test_analysis__warmup: 3x slower first step excluded");
        tap_eq((int64_t)a->kept_count, 4, "test_analysis__warmup: the rest kept");
        tap_eq(a->step_time_median, 100 * US, "test_analysis__warmup: median of kept");
        tap_eq(a->step_time_max, 102 * US, "test_analysis__warmup: max of kept");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__trailing_cut_off(void)
{
        static const double flat[] = { 100, 100, 100 };
        tb b = mk(1);
        tpa_analysis *a;
        size_t i;

        steps_of(&b, flat, 3);
        i = ev(&b, b.host, TPA_KIND_HOST_OP, "never closed", 250, 50, 0, 0);
        tpa_trace_add_flags(b.tr, i, TPA_FLAG_UNCLOSED, NULL);
        a = run(&b, NULL, -1);
        ok(a->steps[2].excluded && strstr(a->steps[2].reason, "cut off"),
           "test_analysis__trailing_cut_off: last step excluded");
        ok(!a->steps[0].excluded && !a->steps[1].excluded,
           "test_analysis__trailing_cut_off: others kept");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        steps_of(&b, flat, 3);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 210, 5, 77, 0);
        a = run(&b, NULL, -1);
        ok(a->steps[2].excluded, "test_analysis__trailing_cut_off: launch with no kernel");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__extend_by_correlation(void)
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
        tap_eq(a->steps[0].end, 120 * US, "test_analysis__extend_by_correlation: extended to its kernel");
        tap_eq(a->steps[1].start, 120 * US, "test_analysis__extend_by_correlation: next start pushed");
        tap_eq(a->steps[1].end, 200 * US, "test_analysis__extend_by_correlation: extended to its kernel");
        tap_eq(a->steps[1].step_time, 80 * US, "test_analysis__extend_by_correlation: step time");
        ok(sums_to_one(&a->steps[0]) && sums_to_one(&a->steps[1]),
           "test_analysis__extend_by_correlation: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Device work launched before the first marker (the step the profile did
 * not catch) still runs when it starts: the first window starts when that
 * work ends, not before; input work from then on counts as usual. */
static void test_analysis__first_step_settles(void)
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
        tap_eq(a->steps[0].start, 30 * US, "test_analysis__first_step_settles: starts after earlier work");
        tap_eq(a->steps[0].step_time, 70 * US, "test_analysis__first_step_settles: step time");
        tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_INPUT], 20 * US,
               "test_analysis__first_step_settles: exposed input");
        ok(tpa_analysis_metric(a, 0, "input_host_frac", 15, &v) && v > 0.2857 && v < 0.2858,
           "test_analysis__first_step_settles: host input work 20 of 70 us");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        /* no device work of its own seen: the marker's start stands */
        b = mk(1);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k_before", 0, 30, 5, 0);
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 10, 90, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq(a->steps[0].start, 10 * US, "test_analysis__first_step_settles: no own device work");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* TF1 timelines name a process per stream of one GPU: one device, not one
 * per stream (each stream's idle time would be averaged in); a merged
 * file's inputs, told apart by their labels, stay apart. */
static void test_analysis__device_processes(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        uint32_t s13 = mk_thread(b.tr, mk_proc(b.tr, 13, "/device:GPU:0/stream:13 Compute",
                                               TPA_PROC_DEVICE, 0), 0, TPA_TRACK_STREAM);

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        ev(&b, s13, TPA_KIND_KERNEL, "k2", 50, 50, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->device_count, 1, "test_analysis__device_processes: one GPU");
        tap_streq(a->device_names[0], "GPU:0", "test_analysis__device_processes: named by ordinal");
        ok(a->steps[0].frac[TPA_BUCKET_COMPUTE] == 1.0,
           "test_analysis__device_processes: its streams together are always busy");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        {
                uint32_t p = mk_proc(b.tr, 2, "/device:GPU:0", TPA_PROC_DEVICE, 0);
                tpa_str l;
                uint32_t t = mk_thread(b.tr, p, 7, TPA_TRACK_STREAM);
                tpa_trace_intern(b.tr, &l, "b.json", 6, NULL);
                tpa_trace_process(b.tr, p)->label = l;
                ev(&b, t, TPA_KIND_KERNEL, "k2", 50, 50, 0, 0);
        }
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->device_count, 2, "test_analysis__device_processes: merged inputs apart");
        tap_streq(a->device_names[1], "/device:GPU:0 [b.json]",
                  "test_analysis__device_processes: the label tells them apart");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Input work hidden under a kernel: input_host_frac counts it, input not. */
static void test_analysis__input_host(void)
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
           "test_analysis__input_host: all host input work");
        ok(tpa_analysis_metric(a, 0, "input_frac", 10, &exposed) && exposed == 0.2,
           "test_analysis__input_host: the exposed part");
        ok(tpa_analysis_metric(a, -1, "input_host_frac", 15, &host) && host == 0.6,
           "test_analysis__input_host: run median");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__gap_host_events(void)
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
        tap_eq((int64_t)a->gap_count, 2, "test_analysis__gap_host_events: two gaps");
        tap_eq(a->gaps[0].len, 40 * US, "test_analysis__gap_host_events: longest first");
        tap_eq(a->gaps[0].offset, 10 * US, "test_analysis__gap_host_events: offset");
        tap_streq(a->gaps[0].host[0].name, "IteratorGetNext", "test_analysis__gap_host_events: top event");
        ok(a->gaps[0].host[0].frac == 1.0, "test_analysis__gap_host_events: its share");
        tap_streq(a->gaps[0].host[1].name, "Foo", "test_analysis__gap_host_events: then Foo");
        ok(a->gaps[0].host[1].frac == 0.25, "test_analysis__gap_host_events: Foo's share");
        tap_streq(a->gaps[1].host[0].name, "IteratorGetNext", "test_analysis__gap_host_events: second gap");
        ok(a->gaps[1].host[0].frac > 0.74 && a->gaps[1].host[0].frac < 0.76,
           "test_analysis__gap_host_events: partial overlap");
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

static void test_analysis__top_gaps(void)
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
                                ok(false, "test_analysis__top_gaps: analysis");
                                continue;
                        }
                        tap_eq((int64_t)a->step_count, STEPS, "test_analysis__top_gaps: steps");
                        tap_eq((int64_t)a->gap_count, (int64_t)n,
                               "test_analysis__top_gaps: top %d, %d thread(s): how many",
                               tops[t], threads);
                        for (size_t i = 0; i < n && i < a->gap_count; i++)
                                bad += a->gaps[i].len != want[i].len ||
                                       a->gaps[i].start != want[i].start ||
                                       a->gaps[i].device != want[i].device;
                        tap_eq((int64_t)bad, 0,
                               "test_analysis__top_gaps: top %d, %d thread(s): in order",
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
static void test_analysis__nested_gaps(void)
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
        if (!ok(a != NULL && a->gap_count == 2, "test_analysis__nested_gaps: two gaps")) {
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
                return;
        }
        tap_eq(a->gaps[0].len, 40 * US, "test_analysis__nested_gaps: the outer first");
        tap_streq(a->gaps[0].host[0].name, "OuterLate",
                  "test_analysis__nested_gaps: outer: the event after the inner gap");
        tap_streq(a->gaps[0].host[1].name, "Both", "test_analysis__nested_gaps: outer: both");
        ok(a->gaps[0].host[2].name == NULL || strcmp(a->gaps[0].host[2].name, "Neither") != 0,
           "test_analysis__nested_gaps: outer: not the event after it");
        tap_streq(a->gaps[1].host[0].name, "Both", "test_analysis__nested_gaps: inner: both");
        ok(a->gaps[1].host[1].name == NULL, "test_analysis__nested_gaps: inner: only that one");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__rules(void)
{
        tb b = mk(1);
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a = NULL;
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", 0, 40, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 40, 60, 0, 0);
        ok(tpa_rules_new_default(&rules, &err) == 0, "test_analysis__rules: default rules");
        o.rules = rules;
        o.warmup = 0;
        ok(tpa_analyze(&a, b.tr, &o, &err) == 0, "test_analysis__rules: analyze");
        if (a != NULL) {
                tap_streq(a->steps[0].class_name, "input-bound", "test_analysis__rules: step class");
                tap_streq(a->run_class, "input-bound", "test_analysis__rules: run class");
                ok(a->finding_count > 0, "test_analysis__rules: findings");
        }
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(b.tr);
}

/* ---- interval lists --------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252u;

static uint64_t rng(void)
{
        return tap_rand(&rng_state);
}

/* tpa_ivl__union() of k merged lists is what pushing all their intervals
 * into one list and merging it gives: for 1 to 40 lists (past the 16 it
 * takes in one pass), empty ones, touching, nested and far apart ones. */
static void test_analysis__ivl_union(void)
{
        bool all = true;

        for (size_t k = 1; k <= 40 && all; k++) {
                for (int round = 0; round < 20 && all; round++) {
                        tpa_ivl_list in[40], want = { 0 }, got = { 0 };
                        tpa_error err = TPA_ERROR_INIT;

                        memset(in, 0, sizeof(in));
                        for (size_t j = 0; j < k; j++) {
                                size_t n = rng() % 4 == 0 ? 0 : rng() % 300;
                                tpa_ns t = (tpa_ns)(rng() % 1000);
                                for (size_t i = 0; i < n; i++) {
                                        tpa_ns s = t + (tpa_ns)(rng() % 50);
                                        tpa_ns e = s + 1 + (tpa_ns)(rng() % 40);
                                        t = rng() % 3 == 0 ? e : s;     /* touching or nested */
                                        tpa_ivl__append(&in[j], s, e, &err);
                                        tpa_ivl__append(&want, s, e, &err);
                                }
                                tpa_ivl__merge(&in[j]);
                        }
                        tpa_ivl__merge(&want);
                        got.n = 12345;  /* dropped, as documented */
                        all = tpa_ivl__union(&got, in, k, &err) == 0 && got.n == want.n &&
                              (want.n == 0 ||
                               memcmp(got.v, want.v, want.n * sizeof(*want.v)) == 0);
                        if (!all)
                                printf("# %zu lists, round %d: %zu intervals, want %zu\n", k,
                                       round, got.n, want.n);
                        for (size_t j = 0; j < k; j++)
                                tpa_ivl__free(&in[j]);
                        tpa_ivl__free(&want);
                        tpa_ivl__free(&got);
                }
        }
        ok(all, "test_analysis__ivl_union: the union of 1 to 40 lists is their merged pushes");
}

/* ---- one thread or two: the same result ------------------------------------ */

/* The JSON, Markdown and text reports (every figure the tool prints) and
 * every step metric. */
static char *render(const tpa_trace *tr, const tpa_analysis *a, size_t *len)
{
        char *buf = NULL;
        FILE *fp = open_memstream(&buf, len);

        if (fp == NULL)
                return NULL;
        tpa_report_json(fp, tr, a, "t", NULL);
        tpa_report_markdown(fp, tr, a, "t");
        tpa_report_text(fp, tr, a, "t");
        for (size_t k = 0; k < a->step_count; k++) {
                for (size_t i = 0; i < tpa_analysis_metric_count(); i++) {
                        const char *name = tpa_analysis_metric_name(i);
                        double v;
                        if (tpa_analysis_metric(a, (int)k, name, strlen(name), &v))
                                fprintf(fp, "%zu %s %a\n", k, name, v);
                }
                for (size_t d = 0; d < a->device_count * TPA_BUCKET__COUNT; d++)
                        fprintf(fp, "%zu dev %" PRId64 "\n", k, a->steps[k].device_ns[d]);
        }
        fclose(fp);
        return buf;
}

/* The analysis' census of the events adds up to the trace's events. */
static bool census_adds_up(const tpa_trace *tr, const tpa_analysis *a)
{
        size_t n = tpa_trace_event_count(tr), nt = tpa_trace_thread_count(tr);
        const tpa_event *ev = tpa_trace_events(tr);
        uint64_t kinds = 0, tracks = 0, on_tracks = 0;

        if (a->events_by_track == NULL)
                return false;
        for (int k = 0; k < TPA_KIND__COUNT; k++)
                kinds += a->events_by_kind[k];
        for (size_t t = 0; t < nt; t++)
                tracks += a->events_by_track[t];
        for (size_t i = 0; i < n; i++)
                on_tracks += ev[i].track < nt;
        return kinds == n && tracks == on_tracks;
}

/* Analyze `tr` on one thread and on two (whatever its size); true when
 * both give the same bytes, and the same again when the report counts
 * the events itself (an analysis without memory for its census). */
static bool same_both_ways(const tpa_trace *tr, const tpa_rules *rules, const char *what)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a[2] = { NULL, NULL };
        tpa_error err = TPA_ERROR_INIT;
        char *out[3] = { NULL, NULL, NULL };
        size_t len[3] = { 0, 0, 0 };
        bool same;

        o.rules = rules;
        for (int t = 0; t < 2; t++) {
                o.threads = t + 1;
                if (tpa_analyze(&a[t], tr, &o, &err) < 0)
                        printf("# %s, %d thread(s): %s\n", what, t + 1, err.msg);
                else
                        out[t] = render(tr, a[t], &len[t]);
        }
        if (a[1] != NULL && census_adds_up(tr, a[1])) {
                free(a[1]->events_by_track);
                a[1]->events_by_track = NULL;
                out[2] = render(tr, a[1], &len[2]);
        }
        same = out[0] != NULL && out[1] != NULL && out[2] != NULL && len[0] == len[1] &&
               len[0] == len[2] && memcmp(out[0], out[1], len[0]) == 0 &&
               memcmp(out[0], out[2], len[0]) == 0;
        if (!same)
                printf("# %s: %zu bytes on one thread, %zu on two, %zu without the census\n",
                       what, len[0], len[1], len[2]);
        for (int t = 0; t < 3; t++)
                free(out[t]);
        for (int t = 0; t < 2; t++)
                tpa_analysis_free(a[t]);
        return same;
}

/* The steps' tables come from find_devices()' pass in two halves of the
 * events, and the first window settles in the channels' pass, in halves
 * too: with the marker and its launches in the first half and all device
 * work far into the second, the window still settles, extends by
 * correlation and finds the lost launch, on one thread and on two. */
static void test_analysis__steps_across_parts(void)
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
                        ok(false, "test_analysis__steps_across_parts: analysis");
                        tpa_trace_free(b.tr);
                        continue;
                }
                tap_eq(a->step_count, 2, "test_analysis__steps_across_parts: steps");
                tap_eq(a->steps[0].start, 30 * US,
                       "test_analysis__steps_across_parts: settled after earlier work");
                tap_eq(a->steps[0].end, 120 * US,
                       "test_analysis__steps_across_parts: extended to its kernel");
                ok(a->steps[1].excluded && strstr(a->steps[1].reason, "missing") != NULL,
                   "test_analysis__steps_across_parts: a launch without its kernel cuts off "
                   "the last step");
                tpa_analysis_free(a);
                tpa_trace_free(b.tr);
        }
}

/* Many steps on two GPUs with everything the analysis looks at: markers,
 * launches and their kernels by correlation id, copies with sizes, syncs,
 * input work, a compiling first step and a cut-off last one. */
static void test_analysis__threaded_same(void)
{
        static const char *const files[] = {
                "synth_tf2.trace.json.gz", "kineto_small.json", "tf1_timeline.json",
                "synth_tf1_timeline.json", "torch_compiled.trace.json.gz",
                "torch_input_bound.trace.json.gz", "tf2_host_bound.xplane.pb",
                "tf2_input_bound.trace.json.gz", "tf1_steps.tfevents",
        };
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;
        size_t i;

        ok(tpa_rules_new_default(&rules, &err) == 0, "test_analysis__threaded_same: rules");
        /* 41 steps; 7130 (200 k events: the metrics' host side in several
         * chunks of 64 k events taken by either thread; the JSON report's
         * steps in 446 chunks of 16 on two threads, the last one short and
         * the second thread's) */
        for (int round = 0; round < 2; round++) {
                int steps = round == 0 ? 41 : 7130;
                tb b = mk(2);
                uint32_t corr = 1;

                for (int k = 0; k < steps; k++) {
                        double t0 = k * 1000.0, len = k == 0 ? 900 : 600 + (k % 7) * 10;
                        uint32_t g = b.gpu0;

                        i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t0, len, 0, 0);
                        tpa_trace_set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                        if (k == 0)
                                tpa_trace_add_flags(b.tr, i, TPA_FLAG_COMPILE, NULL);
                        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", t0 + 5, 40 + k % 5, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "Prefetch", t0 + 2, 30, 0, 0);
                        for (int j = 0; j < 12; j++, corr++) {
                                double at = t0 + 50 + j * 45;
                                g = j % 3 == 2 ? b.gpu1 : b.gpu0;
                                ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", at, 4, corr, 0);
                                if (k == steps - 1 && j > 8)
                                        continue;       /* cut off at the end of the trace */
                                i = ev(&b, g, j % 4 == 1 ? TPA_KIND_COPY_H2D : TPA_KIND_KERNEL,
                                       j % 4 == 1 ? "MemcpyH2D" : j % 2 ? "conv" : "matmul",
                                       at + 6, 20 + (j * 7 + k) % 30, corr, 0);
                                if (j % 4 == 1)
                                        tpa_trace_set_aux(b.tr, i, TPA_AUX_BYTES,
                                                          4096 << (j % 8), NULL);
                        }
                        ev(&b, b.host, TPA_KIND_SYNC, "cudaStreamSynchronize", t0 + 600, 30, 0, 0);
                }
                ok(same_both_ways(b.tr, rules, "generated"),
                   "test_analysis__threaded_same: a generated trace of %d steps, one thread or two",
                   steps);
                ok(same_both_ways(b.tr, NULL, "generated, no rules"),
                   "test_analysis__threaded_same: ... without rules");
                tpa_trace_free(b.tr);
        }
        for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                tpa_read_options ro = TPA_READ_OPTIONS_INIT;
                tpa_trace *tr = NULL;

                if (tpa_trace_new(&tr, &err) < 0 ||
                    tpa_read_path(tr, tap_testdata(files[i]), &ro, &err) < 0)
                        printf("# %s: %s\n", files[i], err.msg);
                ok(same_both_ways(tr, rules, files[i]),
                   "test_analysis__threaded_same: %s, one thread or two", files[i]);
                tpa_trace_free(tr);
        }
        tpa_rules_free(rules);
}

/* The row of op `name` in a top table, or NULL. */
static const tpa_op_stat *top_op(const tpa_op_stat *ops, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(ops[i].name, name) == 0)
                        return &ops[i];
        return NULL;
}

/* The self column of a top table, as a share of its base. */
static double self_sum(const tpa_op_stat *ops, size_t n)
{
        double f = 0;

        for (size_t i = 0; i < n; i++)
                f += ops[i].self_frac;
        return f;
}

/* An op nested in another of its name on the same thread counts once in
 * its total: aten::add [10, 60) around aten::add [20, 50) ran 50 us, not
 * 80; its self time is 50 us too (20 outside, 30 inside). In us, with
 * the device busy only after the host ops. */
static void test_analysis__top_ops_same_name(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_op_stat *o;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", 10, 50, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", 20, 30, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 80, 10, 0, 0);
        a = run(&b, NULL, 0);
        o = top_op(a->host_ops, a->host_op_count, "aten::add");
        ok(o != NULL, "test_analysis__top_ops_same_name: in the host table");
        if (o != NULL) {
                tap_eq(o->time, 50 * US, "test_analysis__top_ops_same_name: total counted once");
                tap_eq(o->self, 50 * US, "test_analysis__top_ops_same_name: self");
                tap_eq((int64_t)o->count, 2, "test_analysis__top_ops_same_name: both events");
                ok(fabs(o->frac - 0.5) < 1e-12 && fabs(o->self_frac - 0.5) < 1e-12,
                   "test_analysis__top_ops_same_name: 50%% of the step, total and self");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Nested ops of other names: the parent's self time is its time less its
 * children's, whatever their channel (a launch in an op), and the self
 * column sums to the time the thread ran ops. In us: outer [10, 70),
 * inner [20, 40), a launch [50, 55); self 35, 20 and 5. */
static void test_analysis__top_ops_nested(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_op_stat *outer, *inner, *launch;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "outer", 10, 60, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "inner", 20, 20, 0, 0);
        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", 50, 5, 7, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 80, 10, 7, 0);
        a = run(&b, NULL, 0);
        outer = top_op(a->host_ops, a->host_op_count, "outer");
        inner = top_op(a->host_ops, a->host_op_count, "inner");
        launch = top_op(a->host_ops, a->host_op_count, "cudaLaunchKernel");
        ok(outer != NULL && inner != NULL && launch != NULL,
           "test_analysis__top_ops_nested: three host ops");
        if (outer != NULL && inner != NULL && launch != NULL) {
                tap_eq(outer->time, 60 * US, "test_analysis__top_ops_nested: outer total");
                tap_eq(outer->self, 35 * US, "test_analysis__top_ops_nested: outer self");
                tap_eq(inner->self, 20 * US, "test_analysis__top_ops_nested: inner self");
                tap_eq(launch->self, 5 * US, "test_analysis__top_ops_nested: launch self");
                ok(a->host_ops == outer, "test_analysis__top_ops_nested: by self time first");
        }
        ok(fabs(self_sum(a->host_ops, a->host_op_count) - 0.6) < 1e-12,
           "test_analysis__top_ops_nested: the self column sums to 60%% (%.4f)",
           self_sum(a->host_ops, a->host_op_count));
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Events of one thread that overlap without nesting (b starts in a and
 * ends after it): the later one has the time they share, so the self
 * column is the thread's busy time once. In us: a [10, 50), b [30, 70):
 * self 20 and 40, totals 40 and 40. */
static void test_analysis__top_ops_overlap(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_op_stat *x, *y;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "a", 10, 40, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "b", 30, 40, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 80, 10, 0, 0);
        a = run(&b, NULL, 0);
        x = top_op(a->host_ops, a->host_op_count, "a");
        y = top_op(a->host_ops, a->host_op_count, "b");
        ok(x != NULL && y != NULL && x->self == 20 * US && y->self == 40 * US &&
           x->time == 40 * US && y->time == 40 * US,
           "test_analysis__top_ops_overlap: the later event has the shared time");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The host table counts time the device idles, nested ops subtracted from
 * that too. In us: outer [10, 70), inner [20, 40), a kernel [30, 60):
 * outer exposed 30 ([10, 30) and [60, 70)), inner 10 ([20, 30)), outer's
 * self 20. */
static void test_analysis__top_ops_host_exposed(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_op_stat *outer, *inner;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "outer", 10, 60, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "inner", 20, 20, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 30, 30, 0, 0);
        a = run(&b, NULL, 0);
        outer = top_op(a->host_ops, a->host_op_count, "outer");
        inner = top_op(a->host_ops, a->host_op_count, "inner");
        ok(outer != NULL && inner != NULL, "test_analysis__top_ops_host_exposed: two host ops");
        if (outer != NULL && inner != NULL) {
                tap_eq(outer->time, 30 * US, "test_analysis__top_ops_host_exposed: outer total");
                tap_eq(outer->self, 20 * US, "test_analysis__top_ops_host_exposed: outer self");
                tap_eq(inner->time, 10 * US, "test_analysis__top_ops_host_exposed: inner total");
                tap_eq(inner->self, 10 * US, "test_analysis__top_ops_host_exposed: inner self");
        }
        ok(a->device_op_count == 1 && a->device_ops[0].self == a->device_ops[0].time &&
           a->device_ops[0].time == 30 * US,
           "test_analysis__top_ops_host_exposed: a kernel's self time is its time");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* CPU-only, the framework ops are the device table, and they nest as host
 * ops do; time two threads compute at once is theirs half each in the self
 * column, which then sums to the time any thread computed. In us: MatMul
 * [10, 50) around Conv [20, 30) on one thread, Other [20, 40) on another:
 * MatMul's self 10 + 5 + 10, Conv's 5, Other's 10; 40 in all. */
static void test_analysis__top_ops_cpu_only(void)
{
        tb b = mk(0);
        tpa_analysis *a;
        const tpa_op_stat *mm, *conv, *other;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "MatMul", 10, 40, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "Conv", 20, 10, 0, 0);
        ev(&b, b.host2, TPA_KIND_HOST_OP, "Other", 20, 20, 0, 0);
        a = run(&b, NULL, 0);
        mm = top_op(a->device_ops, a->device_op_count, "MatMul");
        conv = top_op(a->device_ops, a->device_op_count, "Conv");
        other = top_op(a->device_ops, a->device_op_count, "Other");
        ok(a->cpu_only && mm != NULL && conv != NULL && other != NULL,
           "test_analysis__top_ops_cpu_only: three compute ops");
        if (mm != NULL && conv != NULL && other != NULL) {
                tap_eq(mm->time, 40 * US, "test_analysis__top_ops_cpu_only: MatMul total");
                tap_eq(mm->self, 25 * US, "test_analysis__top_ops_cpu_only: MatMul self");
                tap_eq(conv->self, 5 * US, "test_analysis__top_ops_cpu_only: Conv self, shared");
                tap_eq(other->time, 20 * US, "test_analysis__top_ops_cpu_only: Other total");
                tap_eq(other->self, 10 * US, "test_analysis__top_ops_cpu_only: Other self, shared");
        }
        ok(fabs(self_sum(a->device_ops, a->device_op_count) - 0.4) < 1e-12,
           "test_analysis__top_ops_cpu_only: the self column sums to 40%% (%.4f)",
           self_sum(a->device_ops, a->device_op_count));
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Events far out of time order (a lane written backwards) give the same
 * tables as in order: the lanes' sort as they are built runs out of moves
 * and a merge sort finishes. */
static void test_analysis__top_ops_out_of_order(void)
{
        tpa_analysis *a[2] = { NULL, NULL };
        tpa_trace *tr[2] = { NULL, NULL };
        bool same = true;

        for (int back = 0; back < 2; back++) {
                tb b = mk(1);
                tr[back] = b.tr;
                ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 10000, 0, 0);
                for (int j = 0; j < 300; j++) {
                        int k = back ? 299 - j : j;
                        ev(&b, b.host, TPA_KIND_HOST_OP, "outer", 10 + k * 30, 20, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, k % 2 ? "inner" : "outer",
                           15 + k * 30, 5, 0, 0);
                }
                ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 9500, 10, 0, 0);
                a[back] = run(&b, NULL, 0);
        }
        for (size_t i = 0; i < a[0]->host_op_count && i < 2; i++)
                same = same && a[1]->host_op_count == a[0]->host_op_count &&
                       strcmp(a[0]->host_ops[i].name, a[1]->host_ops[i].name) == 0 &&
                       a[0]->host_ops[i].self == a[1]->host_ops[i].self &&
                       a[0]->host_ops[i].time == a[1]->host_ops[i].time;
        /* outer: 20 us each, an outer nested in half of them counted once,
         * self 15 us around an inner, else 20 */
        ok(same && a[0]->host_op_count == 2 && a[0]->host_ops[0].time == 300 * 20 * US &&
           a[0]->host_ops[0].self == 150 * 15 * US + 150 * 20 * US,
           "test_analysis__top_ops_out_of_order: the same tables, written backwards");
        for (int back = 0; back < 2; back++) {
                tpa_analysis_free(a[back]);
                tpa_trace_free(tr[back]);
        }
}

/* The top tables on one thread and on two are the same, on a trace of
 * nested ops on two threads in many steps (the parts take half of the
 * steps each) and 120 k events (the host side in chunks either part
 * takes). */
static void test_analysis__top_ops_threads(void)
{
        tpa_analysis *a[2] = { NULL, NULL };
        tb b = mk(1);
        bool same;

        for (int k = 0; k < 3000; k++) {
                double t0 = k * 1000.0;
                size_t i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t0, 900, 0, 0);
                tpa_trace_set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                for (int j = 0; j < 6; j++) {
                        double at = t0 + 10 + j * 140;
                        ev(&b, b.host, TPA_KIND_HOST_OP, j % 2 ? "aten::add" : "aten::mul", at,
                           120, 0, 0);
                        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", at + 10 + k % 7, 50, 0, 0);
                        ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", at + 70, 5,
                           (uint32_t)(k * 6 + j + 1), 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "backward", at + 30, 60 + j, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "aten::mul", at + 40, 10, 0, 0);
                        ev(&b, b.gpu0, TPA_KIND_KERNEL, j % 3 ? "gemm" : "relu", at + 80, 50 + j,
                           (uint32_t)(k * 6 + j + 1), 0);
                }
        }
        for (int t = 0; t < 2; t++) {
                tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                o.threads = t + 1;
                o.top_n = 10;
                o.warmup = 0;
                if (tpa_analyze(&a[t], b.tr, &o, &err) < 0)
                        printf("# tpa_analyze: %s\n", err.msg);
        }
        same = a[0] != NULL && a[1] != NULL && a[0]->host_op_count == a[1]->host_op_count &&
               a[0]->device_op_count == a[1]->device_op_count;
        for (size_t i = 0; same && i < a[0]->host_op_count; i++)
                same = strcmp(a[0]->host_ops[i].name, a[1]->host_ops[i].name) == 0 &&
                       a[0]->host_ops[i].time == a[1]->host_ops[i].time &&
                       a[0]->host_ops[i].self == a[1]->host_ops[i].self &&
                       a[0]->host_ops[i].count == a[1]->host_ops[i].count;
        for (size_t i = 0; same && i < a[0]->device_op_count; i++)
                same = strcmp(a[0]->device_ops[i].name, a[1]->device_ops[i].name) == 0 &&
                       a[0]->device_ops[i].time == a[1]->device_ops[i].time &&
                       a[0]->device_ops[i].self == a[1]->device_ops[i].self;
        ok(same, "test_analysis__top_ops_threads: the same tables on one thread and on two");
        ok(a[1] != NULL && a[1]->host_op_count > 0 &&
           a[1]->host_ops[0].self < a[1]->host_ops[0].time &&
           self_sum(a[1]->host_ops, a[1]->host_op_count) <= 1.0,
           "test_analysis__top_ops_threads: nested time subtracted, the self column <= 100%%");
        tpa_analysis_free(a[0]);
        tpa_analysis_free(a[1]);
        tpa_trace_free(b.tr);
}

int main(void)
{
        test_analysis__kernel_and_input_gap();
        test_analysis__copy_under_kernel();
        test_analysis__sync_while_idle();
        test_analysis__python_gap();
        test_analysis__cpu_only();
        test_analysis__cpu_only_tf_input();
        test_analysis__cpu_only_background_input();
        test_analysis__kineto_framework();
        test_analysis__tf1_executor_gaps();
        test_analysis__two_devices();
        test_analysis__spans();
        test_analysis__profiler_steps();
        test_analysis__tf_train_markers();
        test_analysis__tf2_steps_line();
        test_analysis__step_marker_regex();
        test_analysis__no_markers();
        test_analysis__boundary_markers();
        test_analysis__detected_iterations();
        test_analysis__tail_step();
        test_analysis__orphan_copy();
        test_analysis__warmup();
        test_analysis__trailing_cut_off();
        test_analysis__extend_by_correlation();
        test_analysis__first_step_settles();
        test_analysis__steps_across_parts();
        test_analysis__input_host();
        test_analysis__device_processes();
        test_analysis__gap_host_events();
        test_analysis__top_gaps();
        test_analysis__nested_gaps();
        test_analysis__rules();
        test_analysis__ivl_union();
        test_analysis__threaded_same();
        test_analysis__top_ops_same_name();
        test_analysis__top_ops_nested();
        test_analysis__top_ops_overlap();
        test_analysis__top_ops_host_exposed();
        test_analysis__top_ops_cpu_only();
        test_analysis__top_ops_out_of_order();
        test_analysis__top_ops_threads();
        return tap_done();
}
