/* SPDX-License-Identifier: MIT */
/*
 * rank.c - what the cross-rank view needs from one analysed trace
 * (tpa/job.h): its place in the job, collective time per step, the
 * comm/compute overlap, kernel launch delay and per-stream queue depth.
 * The last three follow HTA's definitions (get_comm_comp_overlap,
 * get_cuda_kernel_launch_stats, get_queue_length_summary) so the figures
 * can be checked against it (tests/cli/job/expect_hta.txt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/job.h>

#include "analysis_internal.h"
#include "p2p.h"
#include "results_build.h"

typedef struct span {
        tpa_ns lo, hi;
} span;

/*
 * The sorts here are a byte of the key at a time, least significant first,
 * and skip the bytes that are the same in every key (speed, bench/: with
 * qsort() and bsearch()'s callbacks, this file was nearly all of a Kineto
 * trace's JSON report). They are stable, as glibc's qsort() is where it
 * has the memory (a merge sort), so every figure is as it was.
 */
typedef struct keyed {
        uint64_t key, val;
} keyed;

/* The order of a signed time as an unsigned key. */
static uint64_t ns_key(tpa_ns t)
{
        return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* a[0..n) by key, through tmp[0..n); returns the one of the two that
 * holds them sorted. */
static keyed *sort_keyed(keyed *a, keyed *tmp, size_t n)
{
        for (unsigned shift = 0; shift < 64 && n > 0; shift += 8) {
                size_t count[257] = { 0 };
                keyed *swap;

                for (size_t i = 0; i < n; i++)
                        count[(a[i].key >> shift & 0xff) + 1]++;
                if (count[(a[0].key >> shift & 0xff) + 1] == n)
                        continue;
                for (int b = 0; b < 256; b++)
                        count[b + 1] += count[b];
                for (size_t i = 0; i < n; i++)
                        tmp[count[a[i].key >> shift & 0xff]++] = a[i];
                swap = a;
                a = tmp;
                tmp = swap;
        }
        return a;
}

/* v[0..n) ascending, through tmp[0..n); returns the one that holds them. */
static uint64_t *sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
        TPA_RADIX_SORT(v, tmp, n);
        return v;
}

/* Sort `s` and merge it in place into disjoint spans; returns the count,
 * or SIZE_MAX for no memory. */
static size_t merge(span *s, size_t n)
{
        keyed *a, *sorted;
        size_t k = 0;

        if (n == 0)
                return 0;
        if ((a = malloc(2 * n * sizeof(*a))) == NULL)
                return SIZE_MAX;
        for (size_t i = 0; i < n; i++)
                a[i] = (keyed){ ns_key(s[i].lo), (uint64_t)s[i].hi };
        sorted = sort_keyed(a, a + n, n);
        for (size_t i = 0; i < n; i++)
                s[i] = (span){ (tpa_ns)(sorted[i].key ^ (UINT64_C(1) << 63)),
                               (tpa_ns)sorted[i].val };
        free(a);
        for (size_t i = 0; i < n; i++) {
                if (k > 0 && s[i].lo <= s[k - 1].hi) {
                        if (s[i].hi > s[k - 1].hi)
                                s[k - 1].hi = s[i].hi;
                } else {
                        s[k++] = s[i];
                }
        }
        return k;
}

/* The length of the intersection of two merged span lists. */
static tpa_ns intersect(const span *a, size_t na, const span *b, size_t nb)
{
        tpa_ns sum = 0;
        size_t i = 0, k = 0;

        while (i < na && k < nb) {
                tpa_ns lo = a[i].lo > b[k].lo ? a[i].lo : b[k].lo;
                tpa_ns hi = a[i].hi < b[k].hi ? a[i].hi : b[k].hi;
                if (hi > lo)
                        sum += hi - lo;
                if (a[i].hi < b[k].hi)
                        i++;
                else
                        k++;
        }
        return sum;
}

static tpa_ns total(const span *s, size_t n)
{
        tpa_ns sum = 0;

        for (size_t i = 0; i < n; i++)
                sum += s[i].hi - s[i].lo;
        return sum;
}

static bool on_stream(const tpa_trace *tr, const tpa_event *ev)
{
        return tpa_trace_thread_c(tr, ev->track)->role == TPA_TRACK_STREAM;
}

static bool is_comm(const tpa_trace *tr, const tpa_event *ev, bool cpu_only)
{
        return ev->kind == TPA_KIND_COLLECTIVE && (cpu_only || on_stream(tr, ev));
}

static bool is_comp(const tpa_trace *tr, const tpa_event *ev, bool cpu_only)
{
        if (cpu_only)
                return ev->kind == TPA_KIND_HOST_OP;
        return ev->kind == TPA_KIND_KERNEL && on_stream(tr, ev);
}

/* The spans of the events `keep` says yes to, merged; *out NULL when none.
 * A point-to-point work's span from where it blocks its thread (the n
 * waits w, p2p.h), as the analysis takes it. */
static int collect(span **out, size_t *count, const tpa_trace *tr, bool cpu_only,
                   bool (*keep)(const tpa_trace *, const tpa_event *, bool),
                   const tpa_p2p_wait *w, size_t nw, tpa_error *err)
{
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), k = 0;
        span *s = NULL;

        for (size_t i = 0; i < n; i++)
                k += keep(tr, &ev[i], cpu_only);
        if (k > 0 && (s = malloc(k * sizeof(*s))) == NULL)
                return tpa_error_oom(err);
        k = 0;
        for (size_t i = 0; i < n; i++)
                if (keep(tr, &ev[i], cpu_only))
                        s[k++] = (span){ tpa_p2p__from(w, nw, i, ev[i].ts),
                                         ev[i].ts + ev[i].dur };
        *out = s;
        if ((*count = merge(s, k)) == SIZE_MAX)
                return tpa_error_oom(err);
        return 0;
}

/* Collective time in each step window: windows and merged spans are both
 * in time order, so one pass over each. */
static void step_collectives(tpa_rank *r, const tpa_analysis *a, const span *c, size_t nc)
{
        size_t k = 0;

        for (size_t i = 0; i < a->step_count; i++) {
                const tpa_step *st = &a->steps[i];
                tpa_ns sum = 0;

                while (k > 0 && c[k - 1].hi > st->start)
                        k--;            /* windows never overlap, but be safe */
                while (k < nc && c[k].hi <= st->start)
                        k++;
                for (size_t j = k; j < nc && c[j].lo < st->end; j++) {
                        tpa_ns lo = c[j].lo > st->start ? c[j].lo : st->start;
                        tpa_ns hi = c[j].hi < st->end ? c[j].hi : st->end;
                        sum += hi - lo;
                }
                r->steps[i].collective = sum;
        }
}

/* ---- launches ------------------------------------------------------------- */

typedef struct launch {
        uint32_t corr;
        uint32_t track;                 /* the device event's, once matched */
        tpa_ns   ts, end;
} launch;

/* The launch with id c in l[0..n) (by id): where several share it, the
 * one a bisection from the middle meets first, as glibc's bsearch() did;
 * SIZE_MAX: none. */
static size_t find_corr(const launch *l, size_t n, uint32_t c)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (c < l[mid].corr)
                        hi = mid;
                else if (c > l[mid].corr)
                        lo = mid + 1;
                else
                        return mid;
        }
        return SIZE_MAX;
}

static char *stream_name(const tpa_trace *tr, uint32_t track)
{
        const tpa_thread *th = tpa_trace_thread_c(tr, track);
        const tpa_process *p = tpa_trace_process_c(tr, th->process);
        char buf[160], id[32];

        if (tpa_id_is_number(th->tid))
                snprintf(id, sizeof(id), "%lld", (long long)th->tid.num);
        else
                snprintf(id, sizeof(id), "%.30s", tpa_trace_str(tr, th->tid.str));
        if (p->device >= 0)
                snprintf(buf, sizeof(buf), "GPU:%d stream %s", (int)p->device, id);
        else
                snprintf(buf, sizeof(buf), "%.80s stream %s", tpa_trace_str(tr, p->name), id);
        return strdup(buf);
}

/* Per-stream queue depth from the matched launches: each launch (+1) and
 * each kernel start (-1) in order of stream, then time, launches first at
 * the same time. */
static int queues(tpa_rank *r, const tpa_trace *tr, const launch *l, size_t n,
                  const tpa_event *ev, const size_t *dev_of, tpa_error *err)
{
        /* val: the launch's index, times two, plus one for its kernel */
        keyed *a = malloc(4 * n * sizeof(*a)), *q;
        size_t streams = 0;

        if (a == NULL)
                return tpa_error_oom(err);
        /* the launches first, so that they stay first at a time (stable) */
        for (size_t i = 0; i < n; i++) {
                a[i] = (keyed){ ns_key(l[i].ts), 2 * (uint64_t)i };
                a[n + i] = (keyed){ ns_key(ev[dev_of[i]].ts), 2 * (uint64_t)i + 1 };
        }
        q = sort_keyed(a, a + 2 * n, 2 * n);
        for (size_t i = 0; i < 2 * n; i++)
                q[i].key = l[q[i].val / 2].track;
        q = sort_keyed(q, q == a ? a + 2 * n : a, 2 * n);
        for (size_t i = 0; i < 2 * n; i++)
                streams += i == 0 || q[i].key != q[i - 1].key;
        r->streams = calloc(streams + 1, sizeof(*r->streams));
        if (r->streams == NULL) {
                free(a);
                return tpa_error_oom(err);
        }
        for (size_t i = 0; i < 2 * n;) {
                tpa_rank_stream *s = &r->streams[r->stream_count++];
                int64_t depth = 0, sum = 0, max = 0;
                size_t j = i;

                for (; j < 2 * n && q[j].key == q[i].key; j++) {
                        depth += q[j].val % 2 ? -1 : +1;
                        sum += depth;
                        if (depth > max)
                                max = depth;
                }
                s->queue_mean = (double)sum / (double)(j - i);
                s->queue_max = max;
                if ((s->name = stream_name(tr, (uint32_t)q[i].key)) == NULL) {
                        free(a);
                        return tpa_error_oom(err);
                }
                i = j;
        }
        free(a);
        return 0;
}

/* Launch delay and queue depth: each device event with a correlation id
 * is matched to the launch call carrying the same id. A call can launch
 * several (a CUDA or HIP graph's kernels all carry its id): each counts. */
static int launches(tpa_rank *r, const tpa_trace *tr, tpa_error *err)
{
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), nl = 0, nd = 0, nm = 0;
        launch *l = NULL, *m = NULL;
        keyed *by = NULL, *sorted;
        size_t *dev_of = NULL;
        uint64_t *delay = NULL, *ds;
        int rc = 0;

        for (size_t i = 0; i < n; i++) {
                nl += ev[i].kind == TPA_KIND_LAUNCH && ev[i].corr != 0;
                nd += ev[i].kind != TPA_KIND_LAUNCH && ev[i].corr != 0 && on_stream(tr, &ev[i]);
        }
        if (nl == 0 || nd == 0)
                return 0;
        l = malloc(nl * sizeof(*l));
        by = malloc(2 * nl * sizeof(*by));
        m = malloc(nd * sizeof(*m));
        dev_of = malloc(nd * sizeof(*dev_of));
        delay = malloc(2 * nd * sizeof(*delay));
        if (l == NULL || by == NULL || m == NULL || dev_of == NULL || delay == NULL) {
                rc = tpa_error_oom(err);
                goto done;
        }
        /* the launches by id, those with the same id in trace order */
        nl = 0;
        for (size_t i = 0; i < n; i++)
                if (ev[i].kind == TPA_KIND_LAUNCH && ev[i].corr != 0)
                        by[nl++] = (keyed){ ev[i].corr, i };
        sorted = sort_keyed(by, by + nl, nl);
        for (size_t k = 0; k < nl; k++) {
                const tpa_event *e = &ev[sorted[k].val];

                l[k] = (launch){ e->corr, 0, e->ts, e->ts + e->dur };
        }
        for (size_t i = 0; i < n; i++) {
                size_t hit;

                if (ev[i].corr == 0 || !on_stream(tr, &ev[i]) || ev[i].kind == TPA_KIND_LAUNCH)
                        continue;
                if ((hit = find_corr(l, nl, ev[i].corr)) == SIZE_MAX)
                        continue;
                m[nm] = l[hit];
                m[nm].track = ev[i].track;
                dev_of[nm] = i;
                delay[nm++] = ev[i].ts - l[hit].end > 0 ? (uint64_t)(ev[i].ts - l[hit].end) : 0;
        }
        if (nm == 0)
                goto done;
        ds = sort_u64(delay, delay + nd, nm);
        r->launch_count = nm;
        r->launch_delay_median = (tpa_ns)(nm % 2 ? ds[nm / 2] : (ds[nm / 2 - 1] + ds[nm / 2]) / 2);
        r->launch_delay_p90 = (tpa_ns)ds[(size_t)((double)(nm - 1) * 0.9 + 0.5)];
        r->launch_delay_max = (tpa_ns)ds[nm - 1];
        rc = queues(r, tr, m, nm, ev, dev_of, err);
done:
        free(l);
        free(by);
        free(m);
        free(dev_of);
        free(delay);
        return rc;
}

/* ---- tpa_rank --------------------------------------------------------------- */

int tpa_rank__new(tpa_rank **out, tpa_error *err)
{
        tpa_rank *r = calloc(1, sizeof(*r));

        if (r == NULL)
                return tpa_error_oom(err);
        r->rank = -1;
        r->world_size = -1;
        r->wall_start_ns = r->wall_end_ns = -1;
        *out = r;
        return 0;
}

void tpa_rank_free(tpa_rank *r)
{
        if (r == NULL)
                return;
        for (size_t i = 0; i < r->step_count; i++)
                free(r->steps[i].class_name);
        for (size_t i = 0; i < r->stream_count; i++)
                free(r->streams[i].name);
        free(r->steps);
        free(r->streams);
        free(r->path);
        free(r->backend);
        free(r);
}

int tpa_rank__from_steps(tpa_rank **out, const tpa_trace *tr, const tpa_analysis *a,
                         const char *path, tpa_error *err)
{
        const tpa_dist_info *d = tpa_trace_dist(tr);
        tpa_rank *r;
        int rc;

        if ((rc = tpa_rank__new(&r, err)) < 0)
                return rc;
        r->rank = d->rank;
        r->world_size = d->world_size;
        if (d->wall_base_ns >= 0 && a->step_count > 0) {
                r->wall_start_ns = d->wall_base_ns + a->steps[0].start;
                r->wall_end_ns = d->wall_base_ns + a->steps[a->step_count - 1].end;
        }
        if ((path != NULL && (r->path = strdup(path)) == NULL) ||
            (d->backend[0] != '\0' && (r->backend = strdup(d->backend)) == NULL) ||
            (r->steps = calloc(a->step_count + 1, sizeof(*r->steps))) == NULL) {
                rc = tpa_error_oom(err);
                goto fail;
        }
        for (size_t i = 0; i < a->step_count; i++) {
                const tpa_step *s = &a->steps[i];
                tpa_rank_step *t = &r->steps[r->step_count++];

                t->number = s->number;
                t->step_time = s->step_time;
                t->excluded = s->excluded;
                if (s->class_name != NULL && (t->class_name = strdup(s->class_name)) == NULL) {
                        rc = tpa_error_oom(err);
                        goto fail;
                }
        }
        *out = r;
        return 0;
fail:
        tpa_rank_free(r);
        return rc;
}

int tpa_rank_from_trace(tpa_rank **out, const tpa_trace *tr, const tpa_analysis *a,
                        const char *path, tpa_error *err)
{
        span *comm = NULL, *comp = NULL;
        size_t ncomm = 0, ncomp = 0, np2p = 0;
        tpa_p2p_wait *p2p = NULL;
        tpa_rank *r;
        int rc;

        if ((rc = tpa_rank__from_steps(&r, tr, a, path, err)) < 0)
                return rc;
        if ((rc = tpa_p2p__waits(tr, &p2p, &np2p, err)) < 0 ||
            (rc = collect(&comm, &ncomm, tr, a->cpu_only, is_comm, p2p, np2p, err)) < 0 ||
            (rc = collect(&comp, &ncomp, tr, a->cpu_only, is_comp, NULL, 0, err)) < 0)
                goto fail;
        free(p2p);
        p2p = NULL;
        step_collectives(r, a, comm, ncomm);
        r->comm_ns = total(comm, ncomm);
        r->overlap_ns = intersect(comm, ncomm, comp, ncomp);
        if ((rc = launches(r, tr, err)) < 0)
                goto fail;
        free(comm);
        free(comp);
        *out = r;
        return 0;
fail:
        free(p2p);
        free(comm);
        free(comp);
        tpa_rank_free(r);
        return rc;
}
