/* SPDX-License-Identifier: MIT */
/*
 * test_partition.c - partition.c: each nanosecond of a step in one bucket, on CPU-only,
 * single and multi-device traces of every dialect, on small traces built in memory
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

static void test_partition__kernel_and_input_gap(void)
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
        tap_eq((int64_t)a->step_count, 1, "test_partition__kernel_and_input_gap: one step");
        tap_streq(a->step_source, "ProfilerStep#N", "test_partition__kernel_and_input_gap: source");
        tap_eq(s->number, 1, "test_partition__kernel_and_input_gap: numbered as the trace");
        tap_eq(s->step_time, 100 * US, "test_partition__kernel_and_input_gap: step time");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 50 * US, "test_partition__kernel_and_input_gap: compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 40 * US, "test_partition__kernel_and_input_gap: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 5 * US, "test_partition__kernel_and_input_gap: launch");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 5 * US, "test_partition__kernel_and_input_gap: python");
        ok(sums_to_one(s), "test_partition__kernel_and_input_gap: fractions sum to 1");
        ok(fabs(metric(a, 0, "input_frac") - 0.4) < 1e-12, "test_partition__kernel_and_input_gap: input_frac");
        ok(fabs(metric(a, -1, "input_frac") - 0.4) < 1e-12, "test_partition__kernel_and_input_gap: run input_frac");
        tap_eq((int64_t)metric(a, 0, "gap_count"), 1, "test_partition__kernel_and_input_gap: one gap");
        tap_eq((int64_t)metric(a, 0, "gap_max_ns"), 50 * US, "test_partition__kernel_and_input_gap: gap length");
        tap_eq((int64_t)metric(a, 0, "launch_count"), 1, "test_partition__kernel_and_input_gap: launches");
        ok(fabs(metric(a, 0, "gain_input_frac") - 0.4) < 1e-12, "test_partition__kernel_and_input_gap: what-if");
        tap_eq(s->driver_track, b.host, "test_partition__kernel_and_input_gap: driving thread");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_partition__copy_under_kernel(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_step *s;
        size_t c;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#0", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        c = ev(&b, b.gpu0, TPA_KIND_COPY_H2D, "Memcpy HtoD", 30, 50, 0, 0);
        tpa_trace__set_aux(b.tr, c, TPA_AUX_BYTES, 1000000, NULL);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 50 * US, "test_partition__copy_under_kernel: compute wins");
        tap_eq(s->bucket_ns[TPA_BUCKET_H2D], 30 * US, "test_partition__copy_under_kernel: h2d exposed");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 20 * US, "test_partition__copy_under_kernel: host compute");
        ok(sums_to_one(s), "test_partition__copy_under_kernel: fractions sum to 1");
        tap_eq((int64_t)metric(a, 0, "h2d_count"), 1, "test_partition__copy_under_kernel: h2d count");
        tap_eq((int64_t)metric(a, 0, "h2d_bytes"), 1000000, "test_partition__copy_under_kernel: bytes");
        ok(fabs(metric(a, 0, "h2d_gbps") - 20.0) < 1e-9, "test_partition__copy_under_kernel: GB/s");
        ok(fabs(metric(a, 0, "copy_exposed_frac") - 0.3) < 1e-12,
           "test_partition__copy_under_kernel: exposed fraction");
        tap_eq((int64_t)metric(a, 0, "small_copy_count"), 0, "test_partition__copy_under_kernel: not small");
        tap_eq(a->copies[0].exposed, 30 * US, "test_partition__copy_under_kernel: run exposed");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_partition__sync_while_idle(void)
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
        tap_eq(s->bucket_ns[TPA_BUCKET_SYNC_HOST_WAIT], 40 * US, "test_partition__sync_while_idle: host wait");
        tap_eq(s->bucket_ns[TPA_BUCKET_SYNC_COLLECTIVE], 10 * US, "test_partition__sync_while_idle: collective");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 10 * US, "test_partition__sync_while_idle: python rest");
        ok(fabs(metric(a, 0, "sync_frac") - 0.5) < 1e-12, "test_partition__sync_while_idle: sync_frac");
        ok(sums_to_one(s), "test_partition__sync_while_idle: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_partition__python_gap(void)
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
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 30 * US, "test_partition__python_gap: python");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 20 * US, "test_partition__python_gap: host compute");
        /* 10-40 between the ops, 50-100 after the last (the kernel runs) */
        tap_eq((int64_t)metric(a, 0, "host_gap_count"), 2, "test_partition__python_gap: two host gaps");
        tap_eq((int64_t)metric(a, 0, "host_gap_ns"), 80 * US, "test_partition__python_gap: their length");
        ok(fabs(metric(a, 0, "host_gap_per_ms") - 20.0) < 1e-9, "test_partition__python_gap: per ms");
        ok(sums_to_one(s), "test_partition__python_gap: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Python at a step's edges is a Python gap as much as Python between its
 * ops: a batch made in Python before the first op, logging after the
 * last. CPU-only, the gaps then add up to the python bucket. */
static void test_partition__python_gap_edges(void)
{
        tb b = mk(0);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#5", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mul", 10, 30, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::mul", 50, 10, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 60 * US,
               "test_partition__python_gap_edges: python");
        tap_eq((int64_t)metric(a, 0, "host_gap_count"), 3,
               "test_partition__python_gap_edges: before, between, after the ops");
        tap_eq((int64_t)metric(a, 0, "host_gap_ns"), 60 * US,
               "test_partition__python_gap_edges: as long as the python bucket");
        tap_eq((int64_t)metric(a, 0, "host_gap_median_ns"), 10 * US,
               "test_partition__python_gap_edges: median");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_partition__cpu_only(void)
{
        tb b = mk(0);
        tpa_analysis *a;
        const tpa_step *s;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "aten::conv2d", 0, 60, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "enumerate(DataLoader)", 60, 20, 0, 0);
        a = run(&b, NULL, 0);
        s = &a->steps[0];
        ok(a->cpu_only && a->device_count == 0, "test_partition__cpu_only: no device");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 60 * US, "test_partition__cpu_only: host ops are compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 20 * US, "test_partition__cpu_only: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 20 * US, "test_partition__cpu_only: python");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 0, "test_partition__cpu_only: no host compute");
        tap_eq((int64_t)metric(a, 0, "cpu_only"), 1, "test_partition__cpu_only: metric");
        ok(sums_to_one(s), "test_partition__cpu_only: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A CPU-only TF2 step whose tf.function calls a tf.py_function (probe run
 * p03_pyfunc, TF 2.21: 20 ms of a 22 ms step): the op EagerPyFunc runs
 * Python under the GIL on tf_Compute, inside the executor's scope, while
 * the python3 thread sits in the function's call. Made up so that, in us:
 * the Python the op runs is [5, 85) = 80, host python, not compute; the
 * MatMul [88, 96) = 8 is the compute; the runtime's scopes left, 12, are
 * launch. The step is host-bound and the advice names the py_function,
 * not Python between tf.function calls nor the runtime's dispatch. */
static void test_partition__cpu_only_tf_py_function(void)
{
        static const char json[] =
                "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
                "{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"python3\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"tf_Compute/42\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"train 1\","
                "\"args\":{\"group_id\":\"1\",\"step_num\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"step\","
                "\"args\":{\"group_id\":\"1\",\"tf_function_call\":\"notTraced-nonXla\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":2,\"dur\":96,"
                "\"name\":\"ExecutorState::Process\",\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":5,\"dur\":80,\"name\":\"EagerPyFunc\","
                "\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":88,\"dur\":8,\"name\":\"MatMul\","
                "\"args\":{\"group_id\":\"1\"}}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a;
        const tpa_step *s;

        a = analyze_default(tr);
        if (!ok(a != NULL && a->step_count == 1 && a->cpu_only,
                "test_partition__cpu_only_tf_py_function: one CPU-only step")) {
                tpa_analysis_free(a);
                tpa_trace_free(tr);
                return;
        }
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 80 * US,
               "test_partition__cpu_only_tf_py_function: the op's Python is host python");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 8 * US,
               "test_partition__cpu_only_tf_py_function: compute is the MatMul only");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 12 * US,
               "test_partition__cpu_only_tf_py_function: the runtime's scopes are launch");
        ok(sums_to_one(s), "test_partition__cpu_only_tf_py_function: fractions sum to 1");
        ok(metric(a, 0, "host_py_op_frac") == 0.8,
           "test_partition__cpu_only_tf_py_function: host_py_op_frac");
        tap_streq(a->run_class, "host-bound", "test_partition__cpu_only_tf_py_function: host-bound");
        ok(has_finding(a, "host_py_function") && !has_finding(a, "host_python_tf_function") &&
           !has_finding(a, "host_overhead"),
           "test_partition__cpu_only_tf_py_function: the advice names the py_function");
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A CPU-only TF2 loop that saves a checkpoint every few steps (probe run
 * p06_gan, TF 2.21: tf.train.Checkpoint.save() shows as "EagerLocalExecute:
 * SaveV2", 14 ms a save, with the runtime's scopes and no op inside). Made
 * up so that, in us: step 1 [0, 100) calls the function [0, 20) (MatMul
 * [2, 18): compute 16, launch 4), then saves [30, 90): 60 of checkpoint
 * I/O, host setup, not the runtime's dispatch; python 20. Step 2 [100, 150)
 * trains only: compute 42, launch 4, python 4. The run's checkpoint share
 * is time-weighted, 60 of 150 us (a median would say 0.3). */
static void test_partition__cpu_only_tf_checkpoint(void)
{
        static const char json[] =
                "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
                "{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"python3\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"tf_Compute/42\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"train 1\","
                "\"args\":{\"group_id\":\"1\",\"step_num\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":20,\"name\":\"step\","
                "\"args\":{\"group_id\":\"1\",\"tf_function_call\":\"notTraced-nonXla\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":2,\"dur\":16,\"name\":\"MatMul\","
                "\"args\":{\"group_id\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":30,\"dur\":60,"
                "\"name\":\"EagerLocalExecute: SaveV2\"},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":31,\"dur\":58,"
                "\"name\":\"KernelAndDeviceFunc::Run\"},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":100,\"dur\":50,\"name\":\"train 2\","
                "\"args\":{\"group_id\":\"2\",\"step_num\":\"2\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":100,\"dur\":46,\"name\":\"step\","
                "\"args\":{\"group_id\":\"2\",\"tf_function_call\":\"notTraced-nonXla\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":102,\"dur\":42,\"name\":\"MatMul\","
                "\"args\":{\"group_id\":\"2\"}}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a;
        const tpa_step *s;

        a = analyze_default(tr);
        if (!ok(a != NULL && a->step_count == 2 && a->kept_count == 2 && a->cpu_only,
                "test_partition__cpu_only_tf_checkpoint: two CPU-only steps")) {
                tpa_analysis_free(a);
                tpa_trace_free(tr);
                return;
        }
        s = &a->steps[0];
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_SETUP], 60 * US,
               "test_partition__cpu_only_tf_checkpoint: the save is host setup");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 4 * US,
               "test_partition__cpu_only_tf_checkpoint: launch is the function's scope only");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 16 * US,
               "test_partition__cpu_only_tf_checkpoint: compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 20 * US,
               "test_partition__cpu_only_tf_checkpoint: python");
        ok(sums_to_one(s), "test_partition__cpu_only_tf_checkpoint: fractions sum to 1");
        ok(metric(a, 0, "host_checkpoint_frac") == 0.6 && metric(a, 1, "host_checkpoint_frac") == 0,
           "test_partition__cpu_only_tf_checkpoint: host_checkpoint_frac per step");
        ok(fabs(metric(a, -1, "host_checkpoint_frac") - 0.4) < 1e-9,
           "test_partition__cpu_only_tf_checkpoint: the run's, time-weighted");
        ok(has_finding(a, "host_checkpoint") && !has_finding(a, "host_overhead") &&
           !has_finding(a, "host_setup"),
           "test_partition__cpu_only_tf_checkpoint: the advice names checkpoints");
        tpa_analysis_free(a);
        tpa_trace_free(tr);
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
static void test_partition__cpu_only_tf_input(void)
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
                "\"args\":{\"group_id\":\"1\",\"tf_function_call\":\"notTraced-nonXla\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":92,\"dur\":5,\"name\":\"MatMul\","
                "\"args\":{\"group_id\":\"1\"}}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a;
        const tpa_step *s;

        a = analyze_default(tr);
        if (!ok(a != NULL && a->step_count == 1 && a->cpu_only,
                "test_partition__cpu_only_tf_input: one CPU-only step")) {
                tpa_analysis_free(a);
                tpa_trace_free(tr);
                return;
        }
        s = &a->steps[0];
        tap_eq(kind_of(tr, "EagerLocalExecute: IteratorGetNext"), TPA_KIND_INPUT,
               "test_partition__cpu_only_tf_input: the eager IteratorGetNext scope is input");
        tap_eq(kind_of(tr, "TFE_Py_FastPathExecute_C"), TPA_KIND_LAUNCH,
               "test_partition__cpu_only_tf_input: the C API entry is a runtime scope");
        tap_eq(kind_of(tr, "KernelAndDeviceFunc::Run"), TPA_KIND_LAUNCH,
               "test_partition__cpu_only_tf_input: the function runner is a runtime scope");
        tap_eq(kind_of(tr, "EagerPyFunc"), TPA_KIND_INPUT,
               "test_partition__cpu_only_tf_input: an op on a tf.data thread is input");
        tap_eq(kind_of(tr, "MatMul"), TPA_KIND_HOST_OP,
               "test_partition__cpu_only_tf_input: an op on tf_Compute is an op");
        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 86 * US, "test_partition__cpu_only_tf_input: input");
        tap_eq(kind_of(tr, "step"), TPA_KIND_LAUNCH,
               "test_partition__cpu_only_tf_input: Python's call of a tf.function is a scope");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 5 * US,
               "test_partition__cpu_only_tf_input: compute is the op only");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 8 * US,
               "test_partition__cpu_only_tf_input: runtime scopes outside the wait and the op "
               "are launch");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 1 * US,
               "test_partition__cpu_only_tf_input: python");
        ok(sums_to_one(s), "test_partition__cpu_only_tf_input: fractions sum to 1");
        tap_streq(a->run_class, "input-bound", "test_partition__cpu_only_tf_input: input-bound");
        tap_eq((int64_t)metric(a, -1, "framework_tf"), 1,
               "test_partition__cpu_only_tf_input: framework_tf");
        tap_eq((int64_t)metric(a, -1, "framework_pytorch"), 0,
               "test_partition__cpu_only_tf_input: not framework_pytorch");
        ok(has_finding(a, "input_py_function") && !has_finding(a, "input_pipeline") &&
           !has_finding(a, "input_loader") && !has_finding(a, "input_prefetch"),
           "test_partition__cpu_only_tf_input: tf.data advice only, for its py_function");
        ok(a->device_op_count == 1 && strcmp(a->device_ops[0].name, "MatMul") == 0,
           "test_partition__cpu_only_tf_input: the one compute op is the op, not the call");
        for (size_t i = 0; i < a->device_op_count; i++)
                ok(strcmp(a->device_ops[i].name, "EagerPyFunc") != 0 &&
                   strcmp(a->device_ops[i].name, "InstantiatedCapturedFunction::Run") != 0,
                   "test_partition__cpu_only_tf_input: input work is no compute op (%s)",
                   a->device_ops[i].name);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* What a TF2 trace's tf.data pipeline shows, by its stages' names: a
 * prefetch, a stage in parallel (any of them), Python in a map; none in a
 * Kineto trace that happens to hold those names. */
static void test_partition__tf_data_facts(void)
{
        enum { PF = TPA_FACT_TF_DATA_PREFETCH, PAR = TPA_FACT_TF_DATA_PARALLEL,
               PY = TPA_FACT_TF_PY_FUNCTION, GEN = TPA_FACT_TF_DATA_GENERATOR };
        static const struct {
                const char *names[2];
                unsigned    want;
        } cases[] = {
                { { "Iterator::Prefetch", "Iterator::ParallelInterleaveV4" }, PF | PAR },
                { { "Iterator::MapAndBatch", "PyFuncStateless" }, PAR | PY },
                { { "Iterator::Map", "EagerPyFunc" }, PY },
                { { "Iterator::Map", "Iterator::Batch" }, 0 },
                /* Dataset.from_generator, as TF 2.21 names it */
                { { "Iterator::FlatMap", "Iterator::Generator" }, GEN },
        };

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                for (int kineto = 0; kineto < 2; kineto++) {
                        char json[1024];
                        tpa_trace *tr;

                        snprintf(json, sizeof(json), "%s{\"ph\":\"X\",\"pid\":7,\"tid\":3,"
                                 "\"ts\":1,\"dur\":5,\"cat\":\"cpu_op\",\"name\":\"%s\"},"
                                 "{\"ph\":\"X\",\"pid\":7,\"tid\":3,\"ts\":2,\"dur\":3,"
                                 "\"cat\":\"cpu_op\",\"name\":\"%s\"}]}",
                                 kineto ? "{\"schemaVersion\":1,\"traceEvents\":["
                                        : "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":7,"
                                          "\"name\":\"process_name\",\"args\":"
                                          "{\"name\":\"/host:CPU\"}},",
                                 cases[c].names[0], cases[c].names[1]);
                        tr = read_json(json);
                        if (ok(tr != NULL && tpa_trace_dialect(tr) == (kineto
                                                                     ? TPA_DIALECT_KINETO
                                                                     : TPA_DIALECT_TF2),
                               "test_partition__tf_data_facts: read, dialect"))
                                tap_eq((int64_t)(tpa_trace_facts(tr) & (PF | PAR | PY | GEN)),
                                       kineto ? 0 : (int64_t)cases[c].want,
                                       "test_partition__tf_data_facts: %s, %s (%s)",
                                       cases[c].names[0], cases[c].names[1],
                                       kineto ? "Kineto" : "TF2");
                        tpa_trace_free(tr);
                }
        }
}

/* CPU-only, with TF group ids: input work no step waits on (group 0, a
 * prefetch thread) is neither input nor compute; an op nested in an input
 * event on the same thread is input; a runtime scope (launch kind, no
 * correlation id) with no op inside is launch. In us: input [0, 10) = 10,
 * compute [10, 50) = 40, launch [50, 70) = 20, python [70, 100) = 30 (the
 * background prefetch on the other thread does not hide the gap). */
static void test_partition__cpu_only_background_input(void)
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
               "test_partition__cpu_only_background_input: input");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 40 * US,
               "test_partition__cpu_only_background_input: compute (no nested or background)");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 20 * US,
               "test_partition__cpu_only_background_input: launch");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 30 * US,
               "test_partition__cpu_only_background_input: python");
        ok(sums_to_one(s), "test_partition__cpu_only_background_input: fractions sum to 1");
        ok(a->device_op_count == 1 && strcmp(a->device_ops[0].name, "MatMul") == 0,
           "test_partition__cpu_only_background_input: the one compute op is MatMul");
        tap_eq((int64_t)metric(a, 0, "framework_tf"), 0,
               "test_partition__cpu_only_background_input: no dialect, not framework_tf");
        tap_eq((int64_t)metric(a, 0, "framework_pytorch"), 0,
               "test_partition__cpu_only_background_input: nor framework_pytorch");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* A Keras fit as an XSpace shows it, with no TF group ids: the step
 * waits for its batch on the thread tf.data takes it on (input [0, 30) us),
 * while a producer thread fills the pipeline ahead all step long; the
 * function's op runs [40, 60); Python's call of the function spans
 * [0, 90) (launch where nothing else runs: [30, 40) and [60, 90)), Python
 * [90, 100). The producer's work is no wait, as TF's groups say where a
 * trace has them (the same events, grouped as the JSON xprof makes of an
 * XSpace groups them: the same answer). */
static void test_partition__cpu_only_producer_thread(void)
{
        for (int grouped = 0; grouped < 2; grouped++) {
                char json[2048];
                const char *g = grouped ? ",\"group_id\":\"1\"" : "";
                tpa_trace *tr;
                tpa_analysis *a;

                snprintf(json, sizeof(json),
                         "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\","
                         "\"args\":{\"name\":\"/host:CPU\"}},"
                         "{\"ph\":\"M\",\"pid\":701,\"tid\":1,\"name\":\"thread_name\","
                         "\"args\":{\"name\":\"python\"}},"
                         "{\"ph\":\"M\",\"pid\":701,\"tid\":2,\"name\":\"thread_name\","
                         "\"args\":{\"name\":\"tf_data_iterator_get_next/5\"}},"
                         "{\"ph\":\"M\",\"pid\":701,\"tid\":3,\"name\":\"thread_name\","
                         "\"args\":{\"name\":\"tf_data_iterator_resource/6\"}},"
                         "{\"ph\":\"M\",\"pid\":701,\"tid\":4,\"name\":\"thread_name\","
                         "\"args\":{\"name\":\"tf_Compute/7\"}},"
                         "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":100,"
                         "\"name\":\"train 1\",\"args\":{\"step_num\":\"1\"%s}},"
                         "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":90,"
                         "\"name\":\"multi_step_on_iterator\","
                         "\"args\":{\"tf_function_call\":\"notTraced-nonXla\"%s}},"
                         "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":0,\"dur\":30,"
                         "\"name\":\"IteratorGetNextOp::DoCompute\",\"args\":{\"x\":0%s}},"
                         "{\"ph\":\"X\",\"pid\":701,\"tid\":3,\"ts\":0,\"dur\":100,"
                         "\"name\":\"Iterator::MapAndBatch\"},"
                         "{\"ph\":\"X\",\"pid\":701,\"tid\":4,\"ts\":40,\"dur\":20,"
                         "\"name\":\"MatMul\",\"args\":{\"x\":0%s}}]}", g, g, g, g);
                tr = read_json(json);
                a = analyze_with_rules(tr, NULL);
                if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
                       "test_partition__cpu_only_producer_thread: one CPU-only step (%s)",
                       grouped ? "grouped" : "no groups")) {
                        const tpa_step *s = &a->steps[0];
                        tap_eq(s->bucket_ns[TPA_BUCKET_INPUT], 30 * US,
                               "test_partition__cpu_only_producer_thread: input is the wait "
                               "(%s)", grouped ? "grouped" : "no groups");
                        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 20 * US,
                               "test_partition__cpu_only_producer_thread: compute is the op "
                               "(%s)", grouped ? "grouped" : "no groups");
                        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 40 * US,
                               "test_partition__cpu_only_producer_thread: the call around it "
                               "is launch (%s)", grouped ? "grouped" : "no groups");
                        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 10 * US,
                               "test_partition__cpu_only_producer_thread: python (%s)",
                               grouped ? "grouped" : "no groups");
                }
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* A loop whose tf.function retraces every call (a Python value among its
 * arguments), CPU-only: the tracing (tf.function-graph_building) and what
 * runs inside it on its thread (convert_to_tensor) are host setup, not
 * compute, and host_compile_frac says so; every step compiles, so none is
 * warm-up for it, and the finding names the retrace. In us, each step of
 * 100: the call 0..95, its tracing 5..55 (a convert_to_tensor 10..20 in
 * it), the function's MatMul 60..90 on TF's thread. */
static void test_partition__cpu_only_retrace(void)
{
        char json[8192];
        size_t len = 0;
        tpa_trace *tr;
        tpa_analysis *a = NULL;
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;     /* --warmup auto */
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;

        len += (size_t)snprintf(json + len, sizeof(json) - len,
                "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\","
                "\"args\":{\"name\":\"/host:CPU\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":1,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"python\"}},"
                "{\"ph\":\"M\",\"pid\":701,\"tid\":4,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"tf_Compute/7\"}}");
        for (int k = 0; k < 4; k++)
                len += (size_t)snprintf(json + len, sizeof(json) - len,
                        ",{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":%d,\"dur\":100,"
                        "\"name\":\"train %d\",\"args\":{\"step_num\":\"%d\"}},"
                        "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":%d,\"dur\":95,"
                        "\"name\":\"train_step\",\"args\":{\"tf_function_call\":\"traced\"}},"
                        "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":%d,\"dur\":50,"
                        "\"name\":\"tf.function-graph_building\"},"
                        "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":%d,\"dur\":10,"
                        "\"name\":\"convert_to_tensor\"},"
                        "{\"ph\":\"X\",\"pid\":701,\"tid\":4,\"ts\":%d,\"dur\":30,"
                        "\"name\":\"MatMul\",\"args\":{\"x\":0}}",
                        100 * k, k, k, 100 * k, 100 * k + 5, 100 * k + 10, 100 * k + 60);
        snprintf(json + len, sizeof(json) - len, "]}");
        tr = read_json(json);
        if (tpa_rules_new_default(&rules, &err) < 0 ||
            (o.rules = rules, tpa_analyze(&a, tr, &o, &err)) < 0)
                printf("# test_partition__cpu_only_retrace: %s\n", err.msg);
        if (ok(a != NULL && a->step_count == 4 && a->cpu_only && a->kept_count == 4,
               "test_partition__cpu_only_retrace: four CPU-only steps, all kept")) {
                const tpa_step *s = &a->steps[1];
                tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 30 * US,
                       "test_partition__cpu_only_retrace: compute is the MatMul");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_SETUP], 50 * US,
                       "test_partition__cpu_only_retrace: the tracing is setup");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_LAUNCH], 15 * US,
                       "test_partition__cpu_only_retrace: the call around it is launch");
                tap_eq((int64_t)(metric(a, -1, "host_compile_frac") * 100 + 0.5), 50,
                       "test_partition__cpu_only_retrace: host_compile_frac");
                ok(!a->steps[0].excluded && !a->all_kept,
                   "test_partition__cpu_only_retrace: no warm-up: every step compiles");
                ok(has_finding(a, "host_compile_tf") && !has_finding(a, "host_setup"),
                   "test_partition__cpu_only_retrace: the advice names the retrace");
        }
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(tr);
}

/* A gloo rank on a CPU: the collective's dispatcher op on the training
 * thread (c10d::barrier, c10d::allreduce_) blocks for the other ranks, a
 * collective, not compute; the op before it computes. */
static void test_partition__kineto_cpu_collective(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":30},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::barrier\","
                "\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":50},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::allreduce_\","
                "\"pid\":1,\"tid\":1,\"ts\":80,\"dur\":20}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_with_rules(tr, NULL);

        if (ok(a != NULL && a->step_count == 1, "test_partition__kineto_cpu_collective: one step")) {
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_COMPUTE], 30 * US,
                       "test_partition__kineto_cpu_collective: compute, the mm alone");
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_SYNC_COLLECTIVE], 70 * US,
                       "test_partition__kineto_cpu_collective: the calls are collective");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A gloo rank on a CPU whose collective runs inside a framework op on the
 * same thread (probe run t05_fsdp2, torch 2.13: FSDP2's
 * c10d::_allgather_base_ inside the engine's scope of AddmmBackward0, 14%
 * of step time counted as compute): the op waits in the collective, which
 * wins over the op's compute for its time; ops inside the collective (its
 * copies) compute. A collective on another thread beside an op computing
 * is overlap: compute. In us, on the training thread 1: the backward
 * [0, 60) holds the mm [0, 10) and the all-gather [10, 50), which holds a
 * copy [20, 25); then an mm [60, 90). On gloo's thread 2: the all-gather's
 * ring [30, 40) with a copy [32, 34), an all-reduce [80, 95). Compute
 * [0, 10) + [20, 25) + [32, 34) + [50, 90) = 57, collective [10, 20) +
 * [25, 32) + [34, 50) + [90, 95) = 38, python [95, 100) = 5 (compute 90,
 * collective 5 before). */
static void test_partition__kineto_cpu_collective_nested(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\","
                "\"name\":\"autograd::engine::evaluate_function: AddmmBackward0\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":60},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::_allgather_base_\","
                "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\","
                "\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":30},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_gather\","
                "\"pid\":1,\"tid\":2,\"ts\":30,\"dur\":10},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\","
                "\"pid\":1,\"tid\":2,\"ts\":32,\"dur\":2},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_reduce\","
                "\"pid\":1,\"tid\":2,\"ts\":80,\"dur\":15}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_with_rules(tr, NULL);

        if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
               "test_partition__kineto_cpu_collective_nested: one CPU-only step")) {
                const tpa_step *s = &a->steps[0];
                tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 57 * US,
                       "test_partition__kineto_cpu_collective_nested: compute, but for the "
                       "collective inside the op");
                tap_eq(s->bucket_ns[TPA_BUCKET_SYNC_COLLECTIVE], 38 * US,
                       "test_partition__kineto_cpu_collective_nested: the collective wins over "
                       "the op around it on its thread");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 5 * US,
                       "test_partition__kineto_cpu_collective_nested: python");
                ok(sums_to_one(s), "test_partition__kineto_cpu_collective_nested: fractions "
                   "sum to 1");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A pipeline stage on gloo that posts its sends and goes on (probe run
 * out_gpipe0, torch 2.13's ScheduleGPipe: the first stage sleeping 20 ms a
 * micro-batch, 4 ms of its 90 ms step blocked in P2P waits, read as 73%
 * collective and sync-bound, its 81 ms lead over the last stage as 19 ms):
 * PyTorch records each isend as "gloo:send" from its posting to the end of
 * its wait, on the posting thread. Work in flight is no wait: the span
 * counts from the end of the thread's last event inside it. In us, on
 * thread 1: an mm [0, 10), a send posted [10, 12) whose work runs
 * [11, 90); the next micro-batch's sleep (a user's record_function)
 * [12, 50), mm [50, 60), a send posted [60, 62), its work [61, 95); the
 * waits end at 90 and 95. Compute 20, collective [10, 12) + [60, 95) = 37,
 * python [12, 50) + [95, 100) = 43 (collective 75, python 5 before); the
 * rank's collective time is the same 37, and the sends' time in the top
 * ops their waits, [62, 95) (84 before, the sleep's time in their self). */
static void test_partition__kineto_p2p_in_flight(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"gloo\","
                "\"rank\":0,\"world_size\":2},\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::send\","
                "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":2},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:send\","
                "\"pid\":1,\"tid\":1,\"ts\":11,\"dur\":79},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"straggle\","
                "\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":38},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::send\","
                "\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":2},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:send\","
                "\"pid\":1,\"tid\":1,\"ts\":61,\"dur\":34}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_with_rules(tr, NULL);
        tpa_rank *r = NULL;

        if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
               "test_partition__kineto_p2p_in_flight: one CPU-only step")) {
                const tpa_step *s = &a->steps[0];
                tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 20 * US,
                       "test_partition__kineto_p2p_in_flight: compute");
                tap_eq(s->bucket_ns[TPA_BUCKET_SYNC_COLLECTIVE], 37 * US,
                       "test_partition__kineto_p2p_in_flight: collective, the waits alone");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 43 * US,
                       "test_partition__kineto_p2p_in_flight: the sleep with sends in flight "
                       "is python");
                ok(sums_to_one(s), "test_partition__kineto_p2p_in_flight: fractions sum to 1");
                size_t found = 0;
                for (size_t k = 0; k < a->device_op_total; k++) {
                        const tpa_op_stat *o = &a->device_ops[k];
                        if (strcmp(o->name, "gloo:send") != 0)
                                continue;
                        found++;
                        tap_eq(o->time, 33 * US,
                               "test_partition__kineto_p2p_in_flight: the sends' top-op time, "
                               "the waits [62, 95)");
                        tap_eq(o->self, 33 * US,
                               "test_partition__kineto_p2p_in_flight: their self time");
                }
                tap_eq((int64_t)found, 1, "test_partition__kineto_p2p_in_flight: the sends, "
                       "a top op");
        }
        if (ok(a != NULL && tpa_rank_from_trace(&r, tr, a, "p2p.json", NULL) == 0 &&
               r->step_count == 1, "test_partition__kineto_p2p_in_flight: the rank"))
                tap_eq(r->steps[0].collective, 37 * US,
                       "test_partition__kineto_p2p_in_flight: the rank's collective time");
        tpa_rank_free(r);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A Kineto CPU-only step: framework_pytorch, DataLoader advice only, and
 * the collate op inside the DataLoader call is input, not compute. */
static void test_partition__kineto_framework(void)
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
        tpa_analysis *a;

        a = analyze_default(tr);
        if (ok(a != NULL && a->step_count == 1, "test_partition__kineto_framework: one step")) {
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_INPUT], 70 * US,
                       "test_partition__kineto_framework: input includes the nested collate");
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_COMPUTE], 30 * US,
                       "test_partition__kineto_framework: compute");
                tap_eq((int64_t)metric(a, -1, "framework_pytorch"), 1,
                       "test_partition__kineto_framework: framework_pytorch");
                tap_eq((int64_t)metric(a, -1, "framework_tf"), 0,
                       "test_partition__kineto_framework: not framework_tf");
                ok(has_finding(a, "input_loader") && !has_finding(a, "input_pipeline") &&
                   !has_finding(a, "input_prefetch"),
                   "test_partition__kineto_framework: DataLoader advice only");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A Kineto CPU-only step whose loss goes through a torch.autograd.Function
 * written in Python (probe run t03_pyback30, torch 2.13: 30 ms of Python
 * in its backward, of a 60 ms step). PyTorch records the Function's apply
 * as "PyBack", its backward node as "PyBackBackward" inside the engine's
 * scope; built-in nodes are numbered (AddmmBackward0). Made up so that, in
 * us: the mm [0, 20) and the addmm's backward [25, 45) compute; the
 * Function's forward [20, 25) holds the mul [21, 23) (2 compute, 3
 * python); its backward [50, 95) holds the mul [90, 92) (2 compute, 43
 * python). Compute 44, python 46 + 10 Python between ops (host_py_op_frac
 * 0.5: the Functions' spans, the ops in them too, as tf.py_function's);
 * the Functions' Python was compute before. Host-bound, and the advice
 * names the Function, not torch.compile. */
static void test_partition__kineto_py_autograd_function(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"PyBack\","
                "\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\","
                "\"pid\":1,\"tid\":1,\"ts\":21,\"dur\":2},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\","
                "\"name\":\"autograd::engine::evaluate_function: AddmmBackward0\","
                "\"pid\":1,\"tid\":1,\"ts\":25,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"AddmmBackward0\","
                "\"pid\":1,\"tid\":1,\"ts\":25,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\","
                "\"name\":\"autograd::engine::evaluate_function: PyBackBackward\","
                "\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":45},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"PyBackBackward\","
                "\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":45},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\","
                "\"pid\":1,\"tid\":1,\"ts\":90,\"dur\":2}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a;
        const tpa_step *s;

        a = analyze_default(tr);
        if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
               "test_partition__kineto_py_autograd_function: one CPU-only step")) {
                s = &a->steps[0];
                tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 44 * US,
                       "test_partition__kineto_py_autograd_function: compute, the ops in it");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 56 * US,
                       "test_partition__kineto_py_autograd_function: the Function's Python");
                ok(sums_to_one(s), "test_partition__kineto_py_autograd_function: sums to 1");
                ok(metric(a, 0, "host_py_op_frac") == 0.5,
                   "test_partition__kineto_py_autograd_function: host_py_op_frac (%g)",
                   metric(a, 0, "host_py_op_frac"));
                tap_streq(a->run_class, "host-bound",
                          "test_partition__kineto_py_autograd_function: host-bound");
                ok(has_finding(a, "host_py_autograd") && !has_finding(a, "host_python_torch"),
                   "test_partition__kineto_py_autograd_function: the advice names the Function");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A GPU model's backward pass runs on the autograd engine's thread (tid
 * 2), while the thread driving the step (tid 1) waits in backward() with
 * no op of its own, from 40 to 100 us: no Python gap of the driver, no
 * python bucket; the engine's time between its nodes (80-90, the device
 * idle) is CPU time, with its ops' and the driver's (41 us, launches
 * aside). The Python before the call (30-40), after it
 * (100-120) and after the optimizer (160-200) stay Python: 70 us, where
 * the driver's hole from 20 to 120 was Python all through (97 us). */
static void test_partition__kineto_backward_thread(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":200},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":3,\"args\":{\"correlation\":1}},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\","
                "\"name\":\"autograd::engine::evaluate_function: MmBackward0\","
                "\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"MmBackward0\","
                "\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":1,\"tid\":2,\"ts\":45,\"dur\":3,\"args\":{\"correlation\":2}},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\","
                "\"name\":\"autograd::engine::evaluate_function: "
                "torch::autograd::AccumulateGrad\",\"pid\":1,\"tid\":2,\"ts\":90,\"dur\":10},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Optimizer.step#SGD.step\","
                "\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":30},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":1,\"tid\":1,\"ts\":125,\"dur\":3,\"args\":{\"correlation\":3}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,"
                "\"ts\":10,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,"
                "\"ts\":50,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgd\",\"pid\":0,\"tid\":7,"
                "\"ts\":130,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_default(tr);
        const tpa_step *s;

        if (ok(a != NULL && a->step_count == 1 && !a->cpu_only,
               "test_partition__kineto_backward_thread: one GPU step")) {
                s = &a->steps[0];
                tap_eq(s->step_time, 200 * US, "test_partition__kineto_backward_thread: step time");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 70 * US,
                       "test_partition__kineto_backward_thread: Python around backward() only");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 41 * US,
                       "test_partition__kineto_backward_thread: the engine's CPU time");
                ok(sums_to_one(s), "test_partition__kineto_backward_thread: sums to 1");
                ok(metric(a, 0, "host_gap_count") == 3 &&
                   metric(a, 0, "host_gap_max_ns") == 50 * US,
                   "test_partition__kineto_backward_thread: 3 Python gaps, the longest "
                   "50 us (%g, %g)", metric(a, 0, "host_gap_count"),
                   metric(a, 0, "host_gap_max_ns"));
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A TF1 Session.run on CPU (the shape of testdata/tf1_timeline.json: 45
 * small ops on one executor thread, 2-5 us apart, ~300 us a step). A TF1
 * trace records no thread that drives the step (no Python thread), so it
 * has no python bucket and the gaps between ops are idle (doc/design.md 5.3),
 * with no Python-gap finding. Ten 5 us ops 2 us apart: compute 50 of 68
 * us, idle 18 us. */
static void test_partition__tf1_executor_gaps(void)
{
        char json[4096];
        size_t len;
        tpa_trace *tr;
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
        a = analyze_default(tr);
        if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
               "test_partition__tf1_executor_gaps: one CPU-only step")) {
                const tpa_step *s = &a->steps[0];
                tap_eq(s->step_time, 68 * US, "test_partition__tf1_executor_gaps: step time");
                tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 50 * US,
                       "test_partition__tf1_executor_gaps: compute");
                tap_eq(s->bucket_ns[TPA_BUCKET_IDLE], 18 * US,
                       "test_partition__tf1_executor_gaps: the gaps are idle");
                tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 0,
                       "test_partition__tf1_executor_gaps: no python bucket");
                tap_streq(a->run_class, "compute-bound",
                          "test_partition__tf1_executor_gaps: compute-bound");
                ok(!has_finding(a, "python_gaps") && has_finding(a, "unexplained_idle"),
                   "test_partition__tf1_executor_gaps: no Python-gap finding");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

static void test_partition__two_devices(void)
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
        tap_eq((int64_t)a->device_count, 2, "test_partition__two_devices: two devices");
        tap_streq(a->device_names[0], "/device:GPU:0", "test_partition__two_devices: ordered by ordinal");
        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 75 * US, "test_partition__two_devices: mean compute");
        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_COMPUTE], 25 * US, "test_partition__two_devices: mean host");
        tap_eq(s->device_ns[TPA_BUCKET_COMPUTE], 50 * US, "test_partition__two_devices: GPU:0 row");
        tap_eq(s->slowest_device, 1, "test_partition__two_devices: slowest named");
        ok(sums_to_one(s), "test_partition__two_devices: fractions sum to 1");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* With keep_spans, each device's spans tile the step window in time order,
 * joined where the bucket does not change, and add up to its row of
 * device_ns; without, there are none. */
static void test_partition__spans(void)
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
        ok(tpa_analyze(&a, b.tr, &o, &err) == 0, "test_partition__spans: analyze");
        s = &a->steps[0];
        tap_eq((int64_t)s->span_count, 3, "test_partition__spans: two on GPU:0, one on GPU:1");
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
        ok(tiled, "test_partition__spans: each device's spans tile the window");
        ok(summed, "test_partition__spans: and add up to its bucket times");
        tap_eq(s->spans[1].bucket, TPA_BUCKET_HOST_COMPUTE, "test_partition__spans: GPU:0 idle");
        tpa_analysis_free(a);
        a = run(&b, NULL, 0);
        ok(a->steps[0].spans == NULL && a->steps[0].span_count == 0,
           "test_partition__spans: none unless asked");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Many steps on two devices, each device's intervals searched from where
 * the step before's were: GPU:0 runs k % 4 + 1 kernels of 10 us in step
 * k, GPU:1 one of 30 us in every third step (the steps between have none
 * to find); every step's rows are their own kernels' time. */
static void test_partition__many_steps(void)
{
        tb b = mk(2);
        tpa_analysis *a;
        bool rows = true;

        for (int k = 0; k < 40; k++) {
                size_t i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", k * 100, 100, 0, 0);
                tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                ev(&b, b.host, TPA_KIND_HOST_OP, "aten::add", k * 100, 100, 0, 0);
                for (int j = 0; j <= k % 4; j++)
                        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", k * 100 + 5 + 20 * j, 10, 0, 0);
                if (k % 3 == 0)
                        ev(&b, b.gpu1, TPA_KIND_KERNEL, "k", k * 100 + 50, 30, 0, 0);
        }
        a = run(&b, NULL, 0);
        rows = a->step_count == 40;
        for (size_t k = 0; rows && k < a->step_count; k++) {
                const tpa_ns *d0 = a->steps[k].device_ns, *d1 = d0 + TPA_BUCKET__COUNT;
                rows = d0[TPA_BUCKET_COMPUTE] == (tpa_ns)(k % 4 + 1) * 10 * US &&
                       d1[TPA_BUCKET_COMPUTE] == (k % 3 == 0 ? 30 * US : 0) &&
                       sums_to_one(&a->steps[k]);
        }
        ok(rows, "test_partition__many_steps: each step's rows, on both devices");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* xprof's trace viewer adds a "ThreadpoolListener::Region" around the
 * executor on each compute thread of the Chrome trace it makes of an
 * XSpace: a runtime scope like the executor's, not an op, so CPU-only the
 * compute is the op inside it (20 of the 100 us step), as the XSpace,
 * which has no such event, says. In us. */
static void test_partition__threadpool_region(void)
{
        static const char json[] =
                "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\","
                "\"args\":{\"name\":\"/host:CPU\"}},{\"ph\":\"M\",\"pid\":701,\"tid\":1,"
                "\"name\":\"thread_name\",\"args\":{\"name\":\"python3\"}},{\"ph\":\"M\","
                "\"pid\":701,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":"
                "\"tf_Compute/1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"train 1\","
                "\"args\":{\"step_num\":\"1\"}},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":10,\"dur\":80,"
                "\"name\":\"ThreadpoolListener::Region\"},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":11,\"dur\":78,"
                "\"name\":\"ExecutorState::Process\"},"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":2,\"ts\":30,\"dur\":20,\"name\":\"MatMul\"}"
                "]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_with_rules(tr, NULL);

        tap_eq(kind_of(tr, "ThreadpoolListener::Region"), TPA_KIND_LAUNCH,
               "test_partition__threadpool_region: a runtime scope");
        if (ok(a != NULL && a->step_count == 1 && a->cpu_only,
               "test_partition__threadpool_region: one CPU-only step"))
                tap_eq(a->steps[0].bucket_ns[TPA_BUCKET_COMPUTE], 20 * US,
                       "test_partition__threadpool_region: the op is the compute");
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* torch.compile's frame scopes on a CPU-only trace: "Torch-Compiled Region"
 * spans the call of a compiled frame, its graphs run inside as "## Call
 * CompiledFxGraph ... ##", and the rest of the region is Python (a train
 * step compiled whole: the eager code after a graph break, a logging
 * call). The region is no op: that Python is python, not compute. Without
 * a graph's own scope (torch before 2.5), the region alone covers an
 * inference graph's kernels and stays an op. A compiled inference loop
 * (no CompiledFunction) is compiled too. */
static void test_partition__dynamo_region(void)
{
        for (int graphs = 1; graphs >= 0; graphs--) {
                char json[2048];
                tpa_trace *tr;
                tpa_analysis *a;
                const tpa_step *s;

                snprintf(json, sizeof(json),
                         "{\"traceEvents\":["
                         "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                         "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"TorchDynamo Cache Lookup\","
                         "\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3},"
                         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Torch-Compiled Region: 0/0\","
                         "\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":90},"
                         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\","
                         "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
                         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                         "\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":20}"
                         "]}", graphs ? "## Call CompiledFxGraph fabc ##" : "aten::addmm");
                tr = read_json(json);
                a = analyze_with_rules(tr, NULL);
                if (!ok(a != NULL && a->step_count == 1 && a->cpu_only,
                        "test_partition__dynamo_region: one CPU-only step")) {
                        tpa_analysis_free(a);
                        tpa_trace_free(tr);
                        return;
                }
                s = &a->steps[0];
                if (graphs) {
                        tap_eq(kind_of(tr, "Torch-Compiled Region: 0/0"), TPA_KIND_ANNOTATION,
                               "test_partition__dynamo_region: the region is no op");
                        tap_eq(kind_of(tr, "TorchDynamo Cache Lookup"), TPA_KIND_ANNOTATION,
                               "test_partition__dynamo_region: nor the guards' lookup");
                        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 30 * US,
                               "test_partition__dynamo_region: compute is the graph's call");
                        tap_eq(s->bucket_ns[TPA_BUCKET_HOST_PYTHON], 70 * US,
                               "test_partition__dynamo_region: the region's rest is python");
                } else {
                        tap_eq(kind_of(tr, "Torch-Compiled Region: 0/0"), TPA_KIND_HOST_OP,
                               "test_partition__dynamo_region: no graph scope: the region "
                               "covers the compiled code");
                        tap_eq(s->bucket_ns[TPA_BUCKET_COMPUTE], 93 * US,
                               "test_partition__dynamo_region: no graph scope: compute");
                }
                tap_eq((int64_t)metric(a, -1, "torch_compiled"), 1,
                       "test_partition__dynamo_region: compiled, no CompiledFunction (%s)",
                       graphs ? "graph scope" : "region only");
                ok(sums_to_one(s), "test_partition__dynamo_region: fractions sum to 1");
                tpa_analysis_free(a);
                tpa_trace_free(tr);
        }
}

/* XLA's collectives on a CPU are HLO instructions named by opcode
 * ("all-reduce", "all-reduce.3", an async pair's "all-reduce-start.1"),
 * collectives; a compiler pass named after one ("all-reduce-promotion",
 * which a TF XLA trace shows as it compiles) is no collective, and a
 * trace with no collective keeps XLA's executor scope as it is. */
static void test_partition__xla_collective_names(void)
{
        static const struct {
                const char *name;
                int         kind;
        } cases[] = {
                { "all-reduce", TPA_KIND_COLLECTIVE },
                { "all-reduce.3", TPA_KIND_COLLECTIVE },
                { "all-reduce-start.1", TPA_KIND_COLLECTIVE },
                { "all-gather-done", TPA_KIND_COLLECTIVE },
                { "collective-permute.12", TPA_KIND_COLLECTIVE },
                { "all-reduce-promotion", TPA_KIND_HOST_OP },
                { "all-reduce.", TPA_KIND_HOST_OP },
                { "all-gather.2x", TPA_KIND_HOST_OP },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char json[1024];
                tpa_trace *tr;

                snprintf(json, sizeof(json),
                         "{\"traceEvents\":["
                         "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
                         "\"args\":{\"name\":\"/host:CPU\"}},"
                         "{\"ph\":\"X\",\"name\":\"ThunkExecutor::Execute\",\"pid\":1,"
                         "\"tid\":2,\"ts\":1,\"dur\":9},"
                         "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":1,\"tid\":2,\"ts\":2,"
                         "\"dur\":3}]}", cases[i].name);
                tr = read_json(json);
                if (!ok(tr != NULL && tpa_trace_event_count(tr) == 2,
                        "test_partition__xla_collective_names: %s: read", cases[i].name)) {
                        tpa_trace_free(tr);
                        continue;
                }
                tap_eq(tpa_trace_events(tr)[1].kind, cases[i].kind,
                       "test_partition__xla_collective_names: %s", cases[i].name);
                tap_eq(tpa_trace_events(tr)[0].kind,
                       cases[i].kind == TPA_KIND_COLLECTIVE ? TPA_KIND_LAUNCH : TPA_KIND_HOST_OP,
                       "test_partition__xla_collective_names: %s: the executor's scope",
                       cases[i].name);
                tpa_trace_free(tr);
        }
}

/* DeepEP's kernels are its ranks' all-to-all (deepseek-ai/profile-data's
 * train.json, H800, EP64: dispatch, combine and notify kernels run 87.6%
 * of the step on their own stream, alone 3.2%): collectives, not
 * compute, which a GEMM beside them still is. */
static void test_partition__deep_ep_kernels(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":27,\"ts\":0,\"dur\":10,"
                "\"name\":\"void dpsk::ep::internode::combine<false, 8>(int4*, float*)\","
                "\"args\":{\"device\":0,\"stream\":27}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":27,\"ts\":20,\"dur\":10,"
                "\"name\":\"void deep_ep::intranode::dispatch<8, 768>(int4*)\","
                "\"args\":{\"device\":0,\"stream\":27}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10,"
                "\"name\":\"void cutlass::device_kernel<dpsk::grouped_gemm>(int)\","
                "\"args\":{\"device\":0,\"stream\":7}}"
                "]}";
        tpa_trace *tr = read_json(json);

        if (!ok(tr != NULL, "test_partition__deep_ep_kernels: read"))
                return;
        tap_eq(kind_of(tr, "void dpsk::ep::internode::combine<false, 8>(int4*, float*)"),
               TPA_KIND_COLLECTIVE, "test_partition__deep_ep_kernels: DeepSeek's combine");
        tap_eq(kind_of(tr, "void deep_ep::intranode::dispatch<8, 768>(int4*)"),
               TPA_KIND_COLLECTIVE, "test_partition__deep_ep_kernels: DeepEP's dispatch");
        tap_eq(kind_of(tr, "void cutlass::device_kernel<dpsk::grouped_gemm>(int)"),
               TPA_KIND_KERNEL, "test_partition__deep_ep_kernels: a GEMM computes");
        tpa_trace_free(tr);
}

int main(void)
{
        test_partition__cpu_only_retrace();
        test_partition__xla_collective_names();
        test_partition__tf_data_facts();
        test_partition__kernel_and_input_gap();
        test_partition__copy_under_kernel();
        test_partition__sync_while_idle();
        test_partition__python_gap();
        test_partition__python_gap_edges();
        test_partition__cpu_only();
        test_partition__cpu_only_tf_input();
        test_partition__cpu_only_tf_py_function();
        test_partition__cpu_only_tf_checkpoint();
        test_partition__threadpool_region();
        test_partition__cpu_only_background_input();
        test_partition__cpu_only_producer_thread();
        test_partition__kineto_framework();
        test_partition__kineto_cpu_collective();
        test_partition__kineto_cpu_collective_nested();
        test_partition__kineto_p2p_in_flight();
        test_partition__kineto_py_autograd_function();
        test_partition__kineto_backward_thread();
        test_partition__deep_ep_kernels();
        test_partition__tf1_executor_gaps();
        test_partition__two_devices();
        test_partition__spans();
        test_partition__many_steps();
        test_partition__dynamo_region();
        return tap_done();
}
