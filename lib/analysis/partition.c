/* SPDX-License-Identifier: MIT */
/*
 * partition.c - the partition of step time (doc/design.md 5.3). For each step
 * and device, the boundaries of the merged channel intervals that touch the
 * window are swept in time order; each span between two boundaries goes to the
 * first bucket whose channel is active, in priority order: compute,
 * transfer (h2d, d2h, d2d, p2p), sync (collective running, else the host
 * waiting in a sync call), input, host python run by an op (tf.py_function),
 * host setup of a checkpoint's I/O, host setup of tracing and compiling,
 * host launch, host setup, host python (no
 * framework event on the driving thread), host compute, idle. Every ns of
 * the window lands in exactly one bucket. Several devices: each is partitioned, the
 * step keeps the per-device figures and their mean, and names the slowest
 * (the most compute and transfer time). O(n) over the whole trace, and a
 * search per list and step.
 * On request the spans themselves are kept too, for the HTML timeline.
 *
 * Decision: a collective running while the host also waits in a sync call
 * is sync_collective (the device is busy communicating).
 *
 * Decision: host_python is "the driving thread runs no framework event",
 * whatever runs there, and only where a thread drives the step (a step
 * marker's, or the host thread with the most framework time). A TF1
 * RunMetadata or Timeline has none: it records the executor's threads, and
 * time with no op anywhere is idle (doc/design.md 5.3).
 *
 * Decision: an op that runs Python (tf.py_function, tf.numpy_function:
 * EagerPyFunc, PyFunc, PyFuncStateless; a torch.autograd.Function written
 * in Python, "F" and "FBackward") outside the input pipeline is host
 * python too, ahead of the launch scopes around it: it is Python under the
 * GIL that TF's runtime calls, not math, on a CPU-only trace as on one with
 * a device (doc/design.md 5.3).
 *
 * Decision: a checkpoint's I/O (the ops SaveV2, RestoreV2,
 * MergeV2Checkpoints and the eager runtime's scopes of them, "EagerLocal
 * Execute: SaveV2") is host setup, ahead of the launch scopes around it:
 * the runtime writing or reading files besides the step's work, which no
 * fewer or larger ops shorten; CPU-only it is neither compute nor the
 * runtime's dispatch (launch).
 *
 * Decision: tracing and compiling (tf.function-graph_building, TF's
 * TraceFunction, XLA's XlaCompile and compilers, torch.compile's
 * dynamo_timed scopes) and every event inside such a span on its thread
 * (the convert_to_tensor calls of a trace) is host setup, ahead of the
 * launch scopes around it: the runtime building the step, not running it.
 * CPU-only it was compute, and a loop that retraced its tf.function every
 * step (a Python value among its arguments) read compute 68%, host launch
 * 32%, "fewer, larger ops", where tracing took half of every step.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

enum {
        B_KERNEL = 0, B_H2D, B_D2H, B_D2D, B_P2P, B_COLL,       /* = device channels */
        B_SYNC, B_INPUT, B_PYOP, B_CKPT, B_COMPILE, B_LAUNCH, B_SETUP, B_OP, /* = host channels */
        B_FW, B__COUNT
};

/* The lists a sweep reads, one per B_ channel: where each stands. Its
 * next boundary is in sweep()'s nx[]: the interval's start while off, its
 * end (clipped) while on. */
typedef struct cursor {
        const tpa_ivl_list *l;
        size_t              k;          /* the interval in hand */
        unsigned            bit;        /* 1 << its B_ channel */
} cursor;

/* The bucket of a time when the channels of `on` (a bit per B_ channel)
 * are busy: the first in priority order. B_KERNEL to B_SETUP are in that
 * order already. */
static tpa_bucket pick(unsigned on, bool has_driver)
{
        static const tpa_bucket first[B_SETUP + 1] = {
                TPA_BUCKET_COMPUTE, TPA_BUCKET_H2D, TPA_BUCKET_D2H, TPA_BUCKET_D2D,
                TPA_BUCKET_P2P, TPA_BUCKET_SYNC_COLLECTIVE, TPA_BUCKET_SYNC_HOST_WAIT,
                TPA_BUCKET_INPUT, TPA_BUCKET_HOST_PYTHON, TPA_BUCKET_HOST_SETUP,
                TPA_BUCKET_HOST_SETUP, TPA_BUCKET_HOST_LAUNCH, TPA_BUCKET_HOST_SETUP,
        };
        unsigned top = on & ((1u << (B_SETUP + 1)) - 1);

        if (top != 0)
                return first[__builtin_ctz(top)];
        if (has_driver && !(on & 1u << B_FW)) return TPA_BUCKET_HOST_PYTHON;
        /* the driver in the framework with no op of a channel: waiting
         * in backward() between the autograd engine's nodes (analysis.c:
         * drivers_take_backward()), the engine's CPU time */
        if (on & (1u << B_OP | 1u << B_FW))   return TPA_BUCKET_HOST_COMPUTE;
        return TPA_BUCKET_IDLE;
}

/* The thread driving a step: the host thread holding its marker, else the
 * host thread with the most framework time in the window; none in a TF1
 * trace (Timeline, RunMetadata), which records the executor's threads and
 * no Python thread: there, time with no op anywhere is idle, not Python. */
static uint32_t driver_of(const tpa_actx *c, size_t k)
{
        const tpa_step *s = &c->a->steps[k];
        uint32_t best = UINT32_MAX;
        tpa_ns best_t = 0;

        if (tpa_trace_dialect(c->tr) == TPA_DIALECT_TF1)
                return UINT32_MAX;
        if (c->marker_track[k] != UINT32_MAX)
                return c->marker_track[k];
        for (size_t t = 0; t < c->ntracks; t++) {
                tpa_ns v;
                if (c->fw[t].n == 0)
                        continue;
                v = tpa_ivl__covered(&c->fw[t], s->start, s->end);
                if (v > best_t) {
                        best_t = v;
                        best = (uint32_t)t;
                }
        }
        return best;
}

/* A step's spans as the sweeps give them, when the options keep them. */
typedef struct span_out {
        tpa_step *s;            /* NULL: spans are not kept */
        size_t    cap;
        int       device;
} span_out;

/* The span [t0, t1) of bucket b into the step's (kept) spans: the last
 * one made longer when it is of the same device and bucket and ends at t0. */
static int keep_span(span_out *so, tpa_ns t0, tpa_ns t1, tpa_bucket b, tpa_error *err)
{
        tpa_step *s = so->s;
        tpa_span *last = s->span_count > 0 ? &s->spans[s->span_count - 1] : NULL;

        if (last != NULL && last->device == so->device && last->bucket == b &&
            last->end == t0) {
                last->end = t1;
                return 0;
        }
        if (tpa_analysis__room((void **)&s->spans, &so->cap, s->span_count,
                               sizeof(*s->spans), 16, err) < 0)
                return TPA_ENOMEM;
        s->spans[s->span_count++] = (tpa_span){ t0, t1, so->device, b };
        return 0;
}

/* Give [t0, t1) to bucket b: its sum, and its span when they are kept.
 * Inline: once per span of the sweeps. */
static inline int give(span_out *so, tpa_ns *out, tpa_ns t0, tpa_ns t1, tpa_bucket b,
                       tpa_error *err)
{
        out[b] += t1 - t0;
        return so->s == NULL ? 0 : keep_span(so, t0, t1, b, err);
}

/*
 * A run of boundaries of one list alone, u's: from *t, a boundary of u's
 * where every other list's next one is at `rest` or later, each span up
 * to the next boundary of u's to the bucket of the channels on, u's on or
 * off. The other channels stand, so the buckets are two, picked once
 * (speed, bench/: most boundaries come from one list in a row, and a
 * pick() and a look at the lists per boundary were most of the
 * partition's instructions). Stops at `rest`, or where u's list drops out
 * of the window (not turned there); *t, *on and *nx then stand at that
 * time, for the sweep's look at every list.
 */
static int run_alone(cursor *u, tpa_ns *t, unsigned *on, tpa_ns *nx, tpa_ns rest,
                     tpa_ns we, bool has_driver, span_out *so, tpa_ns *out, tpa_error *err)
{
        tpa_bucket b_off = pick(*on & ~u->bit, has_driver);
        tpa_bucket b_on = pick(*on | u->bit, has_driver);
        const tpa_ivl *v = u->l->v;
        size_t k = u->k, n = u->l->n;
        bool is_on = (*on & u->bit) != 0;
        tpa_ns at = *t, next = *nx, end, off_ns = 0, on_ns = 0;
        int r = 0;

        /* from the start of interval k, on to its end; from its end, off
         * to the next one's start */
        while (r == 0) {
                if (!is_on) {
                        next = v[k].e < we ? v[k].e : we;
                        end = next < rest ? next : rest;
                        on_ns += end - at;
                        if (so->s != NULL)
                                r = keep_span(so, at, end, b_on, err);
                        at = end;
                        is_on = true;
                        if (next >= rest || r < 0)
                                break;  /* the others' next boundary comes first */
                }
                /* at the end of interval k: the whole intervals that end
                 * before `rest` (so before `we`) at once, when no span is
                 * kept: their lengths on, the time between them off
                 * (speed, bench/: most of a run is such intervals, and
                 * their two spans each, with the tests of both, were
                 * half of the partition's instructions) */
                if (so->s == NULL && k + 1 < n && v[k + 1].e < rest) {
                        const tpa_ivl *i = &v[k + 1], *last = &v[n - 1];
                        tpa_ns from = at, on_from = on_ns;

                        for (;; i++) {
                                on_ns += i->e - i->s;
                                if (i == last || i[1].e >= rest)
                                        break;
                        }
                        k = (size_t)(i - v);
                        at = next = i->e;
                        off_ns += at - from - (on_ns - on_from);
                }
                if (k + 1 == n || v[k + 1].s >= we)
                        break;          /* the list drops out: the sweep's */
                next = v[++k].s;
                end = next < rest ? next : rest;
                off_ns += end - at;
                if (so->s != NULL)
                        r = keep_span(so, at, end, b_off, err);
                at = end;
                is_on = false;
                if (next >= rest)
                        break;
        }
        out[b_off] += off_ns;
        out[b_on] += on_ns;
        u->k = k;
        *on = is_on ? *on | u->bit : *on & ~u->bit;
        *nx = next;
        *t = at;
        return r;
}

/*
 * The sweep of step s on device d: from the window's start to its end,
 * from one start or end of an interval of any list to the next, each span
 * to the bucket of the channels busy in it. The lists are merged, so each
 * channel is busy or not, and a cursor per list says which and until
 * when: no boundaries gathered and sorted (speed, bench/: their sort was
 * most of the partition's instructions). Each list's first interval in
 * the window is searched out from where the step before's was, near[] (a
 * part's steps come in time order; speed, bench/: a search of the whole
 * list per step and list waited for memory at each of its last halvings).
 */
static int sweep(const tpa_actx *c, size_t d, const tpa_step *s, uint32_t drv,
                 tpa_ns *out, span_out *so, size_t *near, tpa_error *err)
{
        cursor cur[B__COUNT];
        /* each cursor's next boundary, apart: the look at every cursor per
         * boundary reads them alone (speed, bench/) */
        tpa_ns nx[B__COUNT];
        size_t n = 0, j = SIZE_MAX;
        unsigned on = 0;
        tpa_ns t = s->start, we = s->end, next = we, rest = we;
        bool has_driver = drv != UINT32_MAX;
        int r = 0;

        for (int ch = 0; ch < B__COUNT; ch++) {
                const tpa_ivl_list *l = ch < DEV_CH__COUNT
                        ? &c->dev[d * DEV_CH__COUNT + (size_t)ch]
                        : ch < B_FW ? &c->host[ch - B_SYNC] : has_driver ? &c->fw[drv] : NULL;
                size_t k;

                if (l == NULL || l->n == 0)
                        continue;
                k = tpa_ivl__first_after_near(l, t, &near[ch]);
                if (k == l->n || l->v[k].s >= we)
                        continue;
                cur[n] = (cursor){ l, k, 1u << ch };
                nx[n] = l->v[k].s;
                if (l->v[k].s <= t) {
                        on |= 1u << ch;
                        nx[n] = l->v[k].e < we ? l->v[k].e : we;
                }
                if (nx[n] < next)
                        next = nx[n];
                n++;
        }
        so->device = (int)d;
        while (t < we && r == 0) {
                r = give(so, out, t, next, pick(on, has_driver), err);
                t = next;
                /* the boundary is list j's alone: its run (the others'
                 * next boundary is `rest` still) */
                if (r == 0 && j < n && nx[j] == t && rest > t)
                        r = run_alone(&cur[j], &t, &on, &nx[j], rest, we, has_driver, so, out,
                                      err);
                /* the lists with a boundary here change state, those past
                 * the window drop out; the next boundary of the rest, the
                 * list it is of (j, when one alone) and the others' next */
                next = rest = we;
                j = SIZE_MAX;
                for (size_t i = 0; i < n; i++) {
                        if (nx[i] == t) {
                                cursor *u = &cur[i];
                                if (on & u->bit) {
                                        on &= ~u->bit;
                                        if (++u->k == u->l->n || u->l->v[u->k].s >= we) {
                                                *u = cur[--n];
                                                nx[i--] = nx[n];
                                                continue;
                                        }
                                        nx[i] = u->l->v[u->k].s;
                                } else {
                                        on |= u->bit;
                                        nx[i] = u->l->v[u->k].e < we ? u->l->v[u->k].e : we;
                                }
                        }
                        if (nx[i] < next) {
                                rest = next;
                                next = nx[i];
                                j = i;
                        } else if (nx[i] < rest) {
                                rest = nx[i];
                        }
                }
        }
        return r;
}

/* Partition step k; near: the sweeps' hints, B__COUNT per device. */
static int partition_step(tpa_actx *c, size_t k, size_t *near, tpa_error *err)
{
        tpa_analysis *a = c->a;
        tpa_step *s = &a->steps[k];
        tpa_ns sum[TPA_BUCKET__COUNT] = { 0 }, all[TPA_BUCKET__COUNT] = { 0 };
        tpa_ns given = 0, best_busy = -1;
        size_t nbusy = 0;
        double total;
        int big = 0, r = 0;
        span_out so = { .s = c->opts->keep_spans ? s : NULL };

        s->device_ns = calloc(c->ndev * TPA_BUCKET__COUNT, sizeof(*s->device_ns));
        if (s->device_ns == NULL)
                return tpa_error_oom(err);
        s->driver_track = driver_of(c, k);
        for (size_t d = 0; d < c->ndev && r == 0; d++) {
                tpa_ns *row = &s->device_ns[d * TPA_BUCKET__COUNT], busy;
                r = sweep(c, d, s, s->driver_track, row, &so, &near[d * B__COUNT], err);
                busy = row[TPA_BUCKET_COMPUTE] + row[TPA_BUCKET_H2D] +
                       row[TPA_BUCKET_D2H] + row[TPA_BUCKET_D2D] + row[TPA_BUCKET_P2P] +
                       row[TPA_BUCKET_SYNC_COLLECTIVE];
                if (!a->cpu_only && busy > best_busy) {
                        best_busy = busy;
                        s->slowest_device = (int)d;
                }
                nbusy += busy > 0;
                for (int b = 0; b < TPA_BUCKET__COUNT; b++) {
                        all[b] += row[b];
                        sum[b] += busy > 0 ? row[b] : 0;
                }
        }
        /* mean over the devices that worked in the step (a device idle all
         * through it, one that ran none of it, would dilute the others'
         * figures: GPUs of a host that the job did not use, the Steps line
         * of one device that ran its step apart from another's); over all
         * when none did; the rounding remainder goes to the largest */
        if (nbusy == 0) {
                nbusy = c->ndev;
                memcpy(sum, all, sizeof(sum));
        }
        total = (double)s->step_time * (double)nbusy;
        for (int b = 0; b < TPA_BUCKET__COUNT; b++) {
                s->bucket_ns[b] = sum[b] / (tpa_ns)nbusy;
                s->frac[b] = (double)sum[b] / total;
                given += s->bucket_ns[b];
                if (s->bucket_ns[b] > s->bucket_ns[big])
                        big = b;
        }
        s->bucket_ns[big] += s->step_time - given;
        return r;
}

/* Steps are partitioned each on its own: half of them per part. */
static int partition_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        size_t lo, hi, *near = calloc(c->ndev * B__COUNT, sizeof(*near));
        int r = 0;

        (void)arg;
        if (near == NULL)
                return tpa_error_oom(err);
        tpa_analysis__half(c->a->step_count, part, &lo, &hi);
        for (size_t k = lo; k < hi && r == 0; k++)
                r = partition_step(c, k, near, err);
        free(near);
        return r;
}

int tpa_analysis__partition(tpa_actx *c, tpa_error *err)
{
        return tpa_analysis__in_two(c, partition_part, NULL, err);
}
