/* SPDX-License-Identifier: MIT */
/*
 * test_top_ops.c - top_ops.c: self and total time of the top ops, on small traces built in memory
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
static void test_top_ops__top_ops_same_name(void)
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
        ok(o != NULL, "test_top_ops__top_ops_same_name: in the host table");
        if (o != NULL) {
                tap_eq(o->time, 50 * US, "test_top_ops__top_ops_same_name: total counted once");
                tap_eq(o->self, 50 * US, "test_top_ops__top_ops_same_name: self");
                tap_eq((int64_t)o->count, 2, "test_top_ops__top_ops_same_name: both events");
                ok(fabs(o->frac - 0.5) < 1e-12 && fabs(o->self_frac - 0.5) < 1e-12,
                   "test_top_ops__top_ops_same_name: 50%% of the step, total and self");
        }
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Nested ops of other names: the parent's self time is its time less its
 * children's, whatever their channel (a launch in an op), and the self
 * column sums to the time the thread ran ops. In us: outer [10, 70),
 * inner [20, 40), a launch [50, 55); self 35, 20 and 5. */
static void test_top_ops__top_ops_nested(void)
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
           "test_top_ops__top_ops_nested: three host ops");
        if (outer != NULL && inner != NULL && launch != NULL) {
                tap_eq(outer->time, 60 * US, "test_top_ops__top_ops_nested: outer total");
                tap_eq(outer->self, 35 * US, "test_top_ops__top_ops_nested: outer self");
                tap_eq(inner->self, 20 * US, "test_top_ops__top_ops_nested: inner self");
                tap_eq(launch->self, 5 * US, "test_top_ops__top_ops_nested: launch self");
                ok(a->host_ops == outer, "test_top_ops__top_ops_nested: by self time first");
        }
        ok(fabs(self_sum(a->host_ops, a->host_op_count) - 0.6) < 1e-12,
           "test_top_ops__top_ops_nested: the self column sums to 60%% (%.4f)",
           self_sum(a->host_ops, a->host_op_count));
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Events of one thread that overlap without nesting (b starts in a and
 * ends after it): the later one has the time they share, so the self
 * column is the thread's busy time once. In us: a [10, 50), b [30, 70):
 * self 20 and 40, totals 40 and 40. */
static void test_top_ops__top_ops_overlap(void)
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
           "test_top_ops__top_ops_overlap: the later event has the shared time");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* The host table counts time the device idles, nested ops subtracted from
 * that too. In us: outer [10, 70), inner [20, 40), a kernel [30, 60):
 * outer exposed 30 ([10, 30) and [60, 70)), inner 10 ([20, 30)), outer's
 * self 20. */
static void test_top_ops__top_ops_host_exposed(void)
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
        ok(outer != NULL && inner != NULL, "test_top_ops__top_ops_host_exposed: two host ops");
        if (outer != NULL && inner != NULL) {
                tap_eq(outer->time, 30 * US, "test_top_ops__top_ops_host_exposed: outer total");
                tap_eq(outer->self, 20 * US, "test_top_ops__top_ops_host_exposed: outer self");
                tap_eq(inner->time, 10 * US, "test_top_ops__top_ops_host_exposed: inner total");
                tap_eq(inner->self, 10 * US, "test_top_ops__top_ops_host_exposed: inner self");
        }
        ok(a->device_op_count == 1 && a->device_ops[0].self == a->device_ops[0].time &&
           a->device_ops[0].time == 30 * US,
           "test_top_ops__top_ops_host_exposed: a kernel's self time is its time");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* CPU-only, the framework ops are the device table, and they nest as host
 * ops do; time two threads compute at once is theirs half each in the self
 * column, which then sums to the time any thread computed. In us: MatMul
 * [10, 50) around Conv [20, 30) on one thread, Other [20, 40) on another:
 * MatMul's self 10 + 5 + 10, Conv's 5, Other's 10; 40 in all. */
static void test_top_ops__top_ops_cpu_only(void)
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
           "test_top_ops__top_ops_cpu_only: three compute ops");
        if (mm != NULL && conv != NULL && other != NULL) {
                tap_eq(mm->time, 40 * US, "test_top_ops__top_ops_cpu_only: MatMul total");
                tap_eq(mm->self, 25 * US, "test_top_ops__top_ops_cpu_only: MatMul self");
                tap_eq(conv->self, 5 * US, "test_top_ops__top_ops_cpu_only: Conv self, shared");
                tap_eq(other->time, 20 * US, "test_top_ops__top_ops_cpu_only: Other total");
                tap_eq(other->self, 10 * US, "test_top_ops__top_ops_cpu_only: Other self, shared");
        }
        ok(fabs(self_sum(a->device_ops, a->device_op_count) - 0.4) < 1e-12,
           "test_top_ops__top_ops_cpu_only: the self column sums to 40%% (%.4f)",
           self_sum(a->device_ops, a->device_op_count));
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Time two threads run ops at once is theirs half each in the self
 * column, however many times they meet in a step (here 20 stretches of
 * ops in it, past the insertion sort of a few). In us: a at [10, 30) +
 * 40 j and b at [20, 40) + 40 j, j < 10: each has 10 alone and 5 of the
 * 10 they share, 150 in all; 300 together, the time either ran. */
static void test_top_ops__top_ops_shared_many(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_op_stat *x, *y;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 1000, 0, 0);
        for (int j = 0; j < 10; j++) {
                ev(&b, b.host, TPA_KIND_HOST_OP, "a", 10 + 40 * j, 20, 0, 0);
                ev(&b, b.host2, TPA_KIND_HOST_OP, "b", 20 + 40 * j, 20, 0, 0);
        }
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 900, 10, 0, 0);
        a = run(&b, NULL, 0);
        x = top_op(a->host_ops, a->host_op_count, "a");
        y = top_op(a->host_ops, a->host_op_count, "b");
        ok(x != NULL && y != NULL, "test_top_ops__top_ops_shared_many: two host ops");
        if (x != NULL && y != NULL) {
                tap_eq(x->time, 200 * US, "test_top_ops__top_ops_shared_many: a total");
                tap_eq(x->self, 150 * US, "test_top_ops__top_ops_shared_many: a self");
                tap_eq(y->time, 200 * US, "test_top_ops__top_ops_shared_many: b total");
                tap_eq(y->self, 150 * US, "test_top_ops__top_ops_shared_many: b self");
        }
        ok(fabs(self_sum(a->host_ops, a->host_op_count) - 0.3) < 1e-12,
           "test_top_ops__top_ops_shared_many: the self column sums to 30%% (%.4f)",
           self_sum(a->host_ops, a->host_op_count));
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* An op the device hides counts in its row's count, not in its time; an
 * op the device always hides has no row. In us: x at [10, 20) and
 * [30, 40) under a kernel [5, 45), and at [60, 70) with none; y only at
 * [12, 18), under the kernel. */
static void test_top_ops__top_ops_hidden_count(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        const tpa_op_stat *x;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "x", 10, 10, 0, 0);
        ev(&b, b.host2, TPA_KIND_HOST_OP, "y", 12, 6, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "x", 30, 10, 0, 0);
        ev(&b, b.host, TPA_KIND_HOST_OP, "x", 60, 10, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 5, 40, 0, 0);
        a = run(&b, NULL, 0);
        x = top_op(a->host_ops, a->host_op_count, "x");
        ok(x != NULL && x->time == 10 * US && x->self == 10 * US && x->count == 3,
           "test_top_ops__top_ops_hidden_count: three events, the time of one");
        ok(top_op(a->host_ops, a->host_op_count, "y") == NULL,
           "test_top_ops__top_ops_hidden_count: no row for an op always hidden");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

/* Events far out of time order (a lane written backwards) give the same
 * tables as in order: the lanes' sort as they are built runs out of moves
 * and a merge sort finishes. */
static void test_top_ops__top_ops_out_of_order(void)
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
           "test_top_ops__top_ops_out_of_order: the same tables, written backwards");
        for (int back = 0; back < 2; back++) {
                tpa_analysis_free(a[back]);
                tpa_trace_free(tr[back]);
        }
}

/* The top tables on one thread and on two are the same, on a trace of
 * nested ops on two threads in many steps (the parts take half of the
 * steps each) and 120 k events (the host side in chunks either part
 * takes). */
static void test_top_ops__top_ops_threads(void)
{
        tpa_analysis *a[2] = { NULL, NULL };
        tb b = mk(1);
        bool same;

        for (int k = 0; k < 3000; k++) {
                double t0 = k * 1000.0;
                size_t i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t0, 900, 0, 0);
                tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
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
        ok(same, "test_top_ops__top_ops_threads: the same tables on one thread and on two");
        ok(a[1] != NULL && a[1]->host_op_count > 0 &&
           a[1]->host_ops[0].self < a[1]->host_ops[0].time &&
           self_sum(a[1]->host_ops, a[1]->host_op_count) <= 1.0,
           "test_top_ops__top_ops_threads: nested time subtracted, the self column <= 100%%");
        tpa_analysis_free(a[0]);
        tpa_analysis_free(a[1]);
        tpa_trace_free(b.tr);
}

int main(void)
{
        test_top_ops__top_ops_same_name();
        test_top_ops__top_ops_nested();
        test_top_ops__top_ops_overlap();
        test_top_ops__top_ops_host_exposed();
        test_top_ops__top_ops_cpu_only();
        test_top_ops__top_ops_shared_many();
        test_top_ops__top_ops_hidden_count();
        test_top_ops__top_ops_out_of_order();
        test_top_ops__top_ops_threads();
        return tap_done();
}
