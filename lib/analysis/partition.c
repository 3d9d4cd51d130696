/* SPDX-License-Identifier: MIT */
/*
 * partition.c - the partition of step time (doc/design.md 5.3). For each step
 * and device, the boundaries of the merged channel intervals that touch the
 * window are sorted and swept; each span between two boundaries goes to the
 * first bucket whose channel is active, in priority order: compute,
 * transfer (h2d, d2h, d2d, p2p), sync (collective running, else the host
 * waiting in a sync call), input, host launch, host setup, host python (no
 * framework event on the driving thread), host compute, idle. Every ns of the window
 * lands in exactly one bucket. Several devices: each is partitioned, the
 * step keeps the per-device figures and their mean, and names the slowest
 * (the most compute and transfer time). O(n log n) over the whole trace.
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
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

enum {
        B_KERNEL = 0, B_H2D, B_D2H, B_D2D, B_P2P, B_COLL,       /* = device channels */
        B_SYNC, B_INPUT, B_LAUNCH, B_SETUP, B_OP,               /* = host channels */
        B_FW, B__COUNT
};

typedef struct edge {
        tpa_ns   t;
        int      ch;
        int      delta;
} edge;

typedef struct edges {
        edge  *v;
        size_t n, cap;
        edge  *tmp;             /* sort_edges() scratch */
        size_t tmp_cap;
} edges;

static bool edge_before(const edge *x, const edge *y)
{
        return x->t < y->t || (x->t == y->t && x->ch < y->ch);
}

static size_t run_end(const edge *v, size_t i, size_t n)
{
        while (++i < n && !edge_before(&v[i], &v[i - 1]))
                ;
        return i;
}

/*
 * Sort the edges by time (then channel). They come as one sorted run per
 * channel list (merged intervals, in order), so merging neighbouring runs
 * until one is left costs n log(runs) compares, inline; qsort's callbacks
 * were three quarters of the partition's instructions (bench/).
 */
static int sort_edges(edges *E, tpa_error *err)
{
        edge *src = E->v, *dst;
        size_t n = E->n;

        if (E->tmp_cap < n) {
                edge *t = realloc(E->tmp, n * sizeof(*t));
                if (t == NULL)
                        return tpa_error_oom(err);
                E->tmp = t;
                E->tmp_cap = n;
        }
        dst = E->tmp;
        for (;;) {
                size_t i = 0, runs = 0;
                while (i < n) {
                        size_t mid = run_end(src, i, n), end, a, b, k;
                        runs += mid == n ? 1 : 2;
                        if (mid == n) {
                                memcpy(dst + i, src + i, (n - i) * sizeof(*src));
                                break;
                        }
                        end = run_end(src, mid, n);
                        for (a = i, b = mid, k = i; a < mid && b < end; k++)
                                dst[k] = edge_before(&src[b], &src[a]) ? src[b++] : src[a++];
                        memcpy(dst + k, src + a, (mid - a) * sizeof(*src));
                        memcpy(dst + k + (mid - a), src + b, (end - b) * sizeof(*src));
                        i = end;
                }
                if (runs <= 1)          /* src was sorted already */
                        break;
                edge *t = src;
                src = dst;
                dst = t;
        }
        /* the sorted edges are in src; dst holds the previous pass */
        if (src != E->v)
                memcpy(E->v, src, n * sizeof(*src));
        return 0;
}

static int add_list(edges *E, const tpa_ivl_list *l, int ch, tpa_ns ws, tpa_ns we,
                    tpa_error *err)
{
        for (size_t i = tpa_ivl__first_after(l, ws); i < l->n && l->v[i].s < we; i++) {
                tpa_ns s = l->v[i].s > ws ? l->v[i].s : ws;
                tpa_ns e = l->v[i].e < we ? l->v[i].e : we;
                if (E->n + 2 > E->cap) {
                        size_t cap = E->cap ? E->cap * 2 : 64;
                        edge *v = realloc(E->v, cap * sizeof(*v));
                        if (v == NULL)
                                return tpa_error_oom(err);
                        E->v = v;
                        E->cap = cap;
                }
                E->v[E->n++] = (edge){ s, ch, +1 };
                E->v[E->n++] = (edge){ e, ch, -1 };
        }
        return 0;
}

static tpa_bucket pick(const int *on, bool has_driver)
{
        if (on[B_KERNEL]) return TPA_BUCKET_COMPUTE;
        if (on[B_H2D])    return TPA_BUCKET_H2D;
        if (on[B_D2H])    return TPA_BUCKET_D2H;
        if (on[B_D2D])    return TPA_BUCKET_D2D;
        if (on[B_P2P])    return TPA_BUCKET_P2P;
        if (on[B_COLL])   return TPA_BUCKET_SYNC_COLLECTIVE;
        if (on[B_SYNC])   return TPA_BUCKET_SYNC_HOST_WAIT;
        if (on[B_INPUT])  return TPA_BUCKET_INPUT;
        if (on[B_LAUNCH]) return TPA_BUCKET_HOST_LAUNCH;
        if (on[B_SETUP])  return TPA_BUCKET_HOST_SETUP;
        if (has_driver && !on[B_FW]) return TPA_BUCKET_HOST_PYTHON;
        if (on[B_OP])     return TPA_BUCKET_HOST_COMPUTE;
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

/* Give [t0, t1) to bucket b: its sum, and its span when they are kept. */
static int give(span_out *so, tpa_ns *out, tpa_ns t0, tpa_ns t1, tpa_bucket b,
                tpa_error *err)
{
        tpa_step *s = so->s;
        tpa_span *last;

        out[b] += t1 - t0;
        if (s == NULL)
                return 0;
        last = s->span_count > 0 ? &s->spans[s->span_count - 1] : NULL;
        if (last != NULL && last->device == so->device && last->bucket == b &&
            last->end == t0) {
                last->end = t1;
                return 0;
        }
        if (s->span_count == so->cap) {
                size_t cap = so->cap ? so->cap * 2 : 16;
                tpa_span *v = realloc(s->spans, cap * sizeof(*v));
                if (v == NULL)
                        return tpa_error_oom(err);
                s->spans = v;
                so->cap = cap;
        }
        s->spans[s->span_count++] = (tpa_span){ t0, t1, so->device, b };
        return 0;
}

static int sweep(const tpa_actx *c, edges *E, size_t d, const tpa_step *s, uint32_t drv,
                 tpa_ns *out, span_out *so, tpa_error *err)
{
        int on[B__COUNT] = { 0 };
        tpa_ns cur = s->start;
        int r = 0;

        E->n = 0;
        for (int ch = 0; ch < DEV_CH__COUNT && r == 0; ch++)
                r = add_list(E, &c->dev[d * DEV_CH__COUNT + (size_t)ch], ch, s->start, s->end,
                             err);
        for (int ch = 0; ch < HOST_CH__COUNT && r == 0; ch++)
                r = add_list(E, &c->host[ch], B_SYNC + ch, s->start, s->end, err);
        if (r == 0 && drv != UINT32_MAX)
                r = add_list(E, &c->fw[drv], B_FW, s->start, s->end, err);
        if (r < 0)
                return r;
        if (E->n > 0 && (r = sort_edges(E, err)) < 0)
                return r;
        so->device = (int)d;
        for (size_t i = 0; i < E->n && r == 0; i++) {
                if (E->v[i].t > cur) {
                        r = give(so, out, cur, E->v[i].t, pick(on, drv != UINT32_MAX), err);
                        cur = E->v[i].t;
                }
                on[E->v[i].ch] += E->v[i].delta;
        }
        if (r == 0 && s->end > cur)
                r = give(so, out, cur, s->end, pick(on, drv != UINT32_MAX), err);
        return r;
}

/* Partition step k, with `E` as scratch. */
static int partition_step(tpa_actx *c, edges *E, size_t k, tpa_error *err)
{
        tpa_analysis *a = c->a;
        tpa_step *s = &a->steps[k];
        tpa_ns sum[TPA_BUCKET__COUNT] = { 0 }, given = 0, best_busy = -1;
        double total;
        int big = 0, r = 0;
        span_out so = { .s = c->opts->keep_spans ? s : NULL };

        s->device_ns = calloc(c->ndev * TPA_BUCKET__COUNT, sizeof(*s->device_ns));
        if (s->device_ns == NULL)
                return tpa_error_oom(err);
        s->driver_track = driver_of(c, k);
        for (size_t d = 0; d < c->ndev && r == 0; d++) {
                tpa_ns *row = &s->device_ns[d * TPA_BUCKET__COUNT], busy;
                r = sweep(c, E, d, s, s->driver_track, row, &so, err);
                busy = row[TPA_BUCKET_COMPUTE] + row[TPA_BUCKET_H2D] +
                       row[TPA_BUCKET_D2H] + row[TPA_BUCKET_D2D] + row[TPA_BUCKET_P2P];
                if (!a->cpu_only && busy > best_busy) {
                        best_busy = busy;
                        s->slowest_device = (int)d;
                }
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        sum[b] += row[b];
        }
        /* mean over devices; the rounding remainder goes to the largest */
        total = (double)s->step_time * (double)c->ndev;
        for (int b = 0; b < TPA_BUCKET__COUNT; b++) {
                s->bucket_ns[b] = sum[b] / (tpa_ns)c->ndev;
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
        edges E = { 0 };
        size_t lo, hi;
        int r = 0;

        (void)arg;
        tpa_analysis__half(c->a->step_count, part, &lo, &hi);
        for (size_t k = lo; k < hi && r == 0; k++)
                r = partition_step(c, &E, k, err);
        free(E.v);
        free(E.tmp);
        return r;
}

int tpa_analysis__partition(tpa_actx *c, tpa_error *err)
{
        return tpa_analysis__in_two(c, partition_part, NULL, err);
}
