/* SPDX-License-Identifier: MIT */
/*
 * steps.c - find the steps (doc/design.md 5.1): the first source that applies
 * of --step-marker, ProfilerStep#N, TF host markers, the TF2 device Steps
 * line, other step events, detected iterations (a top-level host event
 * that recurs once per training iteration), TF group ids; else one step
 * for the whole trace. Each window runs from its marker's start to the
 * later of its end and the end of the device work it launched (by
 * correlation id or group id), clipped so windows never overlap. Markers
 * found by --step-marker, by detection and TF groups mark boundaries: a
 * step runs from one's start to the next one's.
 */
#include <ctype.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "model/utf8.h"

typedef tpa_marker marker;
typedef tpa_marker_list marker_list;

static int push(marker_list *l, const marker *m, tpa_error *err)
{
        if (tpa_analysis__room((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 16, err) < 0)
                return TPA_ENOMEM;
        l->v[l->n++] = *m;
        return 0;
}

/* The number at the end of a name: "train 12", "ProfilerStep#3". */
static bool trailing_number(const char *s, size_t len, int64_t *out)
{
        size_t i = len;
        int64_t v = 0;

        while (i > 0 && isdigit((unsigned char)s[i - 1]))
                i--;
        if (i == len || len - i > 15)
                return false;
        for (size_t k = i; k < len; k++)
                v = v * 10 + (s[k] - '0');
        *out = v;
        return true;
}

static bool is_host_track(const tpa_actx *c, uint32_t track)
{
        return track < c->ntracks && c->track_cls[track] == TRACK_HOST;
}

/* Event i as a marker: its window, thread and number, when it has one. */
static marker marker_at(const tpa_actx *c, size_t i)
{
        const tpa_event *e = &c->ev[i];
        const char *name = tpa_trace_str(c->tr, e->name);
        marker m = { .s = e->ts, .e = e->ts + e->dur, .group = e->group, .track = e->track,
                     .host = is_host_track(c, e->track) };
        int64_t v;

        if (tpa_trace_get_aux(c->tr, i, TPA_AUX_STEP_NUM, &v)) {
                m.number = v;
                m.numbered = true;
        } else if (trailing_number(name, tpa_trace_str_len(c->tr, e->name), &v)) {
                m.number = v;
                m.numbered = true;
        } else if (e->group != 0 && c->track_cls[e->track] != TRACK_HOST) {
                m.number = (int64_t)e->group - 1;
                m.numbered = true;
        }
        return m;
}

static int add_marker(const tpa_actx *c, marker_list *l, size_t i, tpa_error *err)
{
        marker m = marker_at(c, i);

        return push(l, &m, err);
}

static int cmp_marker(const void *pa, const void *pb)
{
        const marker *x = pa, *y = pb;

        if (x->numbered && y->numbered && x->number != y->number)
                return x->number < y->number ? -1 : 1;
        if (x->s != y->s)
                return x->s < y->s ? -1 : 1;
        return (x->e > y->e) - (x->e < y->e);
}

static int cmp_marker_start(const void *pa, const void *pb)
{
        const marker *x = pa, *y = pb;

        if (x->s != y->s)
                return x->s < y->s ? -1 : 1;
        return (x->e > y->e) - (x->e < y->e);
}

/* Sort the markers of l by cmp, unless they are in that order already:
 * they mostly come so, in the order they ran (speed, bench/: the sorts of
 * a run's markers, a call of cmp per comparison, were a sixteenth of the
 * steps' first stage). A stable sort (glibc's qsort() merges) leaves
 * them as they are too. */
static void sort_markers(marker_list *l, int (*cmp)(const void *, const void *))
{
        for (size_t i = 1; i < l->n; i++)
                if (cmp(&l->v[i - 1], &l->v[i]) > 0) {
                        qsort(l->v, l->n, sizeof(*l->v), cmp);
                        return;
                }
}

/* Markers that carry the same number are one step seen twice (a host
 * marker and its device annotation, two host markers at once, the Steps
 * lines of devices that ran the step together): keep one window, their
 * union, and prefer the host marker's thread. Two host markers of one
 * number that lie apart are two steps: a count that restarts (Keras' batch
 * index each epoch, a loop's step_num per epoch); so are two devices' Steps
 * markers of one number that lie apart (each device numbers its own steps:
 * their union would span the time between them, read as Python; XProf
 * times each device's step on its own). Then every marker is numbered by
 * the order they ran in, from the first one's number, and the note says
 * so. Unnumbered markers get their order. */
static void dedup(tpa_analysis *a, marker_list *l)
{
        size_t w = 0, repeats = 0, apart = 0;
        bool all_numbered = true;

        for (size_t i = 0; i < l->n; i++)
                all_numbered &= l->v[i].numbered;
        if (!all_numbered) {
                sort_markers(l, cmp_marker_start);
                for (size_t i = 0; i < l->n; i++) {
                        l->v[i].number = (int64_t)i;
                        l->v[i].numbered = false;
                }
                return;
        }
        sort_markers(l, cmp_marker);
        for (size_t i = 0; i < l->n; i++) {
                marker *m = &l->v[i];
                if (w > 0 && l->v[w - 1].number == m->number &&
                    (m->s < l->v[w - 1].e || m->host != l->v[w - 1].host)) {
                        marker *k = &l->v[w - 1];
                        if (m->s < k->s)
                                k->s = m->s;
                        if (m->e > k->e)
                                k->e = m->e;
                        if (!k->host && m->host) {
                                k->host = true;
                                k->track = m->track;
                        }
                        if (k->group == 0)
                                k->group = m->group;
                        continue;
                }
                if (w > 0 && l->v[w - 1].number == m->number) {
                        if (m->host)
                                repeats++;
                        else
                                apart++;
                }
                l->v[w++] = *m;
        }
        l->n = w;
        sort_markers(l, cmp_marker_start);
        if (repeats + apart == 0)
                return;
        for (size_t i = 1; i < l->n; i++)
                l->v[i].number = l->v[0].number + (int64_t)i;
        /* a device's Steps marker spans its own work: reaching it to the
         * end of its group's work would take in the other devices' run of
         * the number, apart in time */
        for (size_t i = 0; i < l->n && apart > 0; i++)
                if (!l->v[i].host)
                        l->v[i].group = 0;
        if (repeats > 0)
                snprintf(a->step_note, sizeof(a->step_note),
                         "step numbers repeat (%zu markers: a count that restarts each epoch): "
                         "numbered in the order they ran, from %" PRId64,
                         repeats + apart, l->v[0].number);
        else
                snprintf(a->step_note, sizeof(a->step_note),
                         "devices ran steps of one number apart in time (Steps line markers "
                         "apart: %zu): each a step of its own, numbered in the order they "
                         "ran, from %" PRId64, apart, l->v[0].number);
}

static int from_regex(tpa_actx *c, marker_list *l, tpa_error *err)
{
        size_t ns = tpa_trace_str_count(c->tr);
        unsigned char *memo = calloc(ns ? ns : 1, 1);   /* 0 unknown, 1 match, 2 no */
        regex_t re;
        int r = 0, rc;

        if (memo == NULL)
                return tpa_error_oom(err);
        rc = regcomp(&re, c->opts->step_marker, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
                char msg[120];
                regerror(rc, &re, msg, sizeof(msg));
                free(memo);
                return tpa_error_setf(err, TPA_EINVAL, "bad --step-marker '%s': %s",
                                      c->opts->step_marker, msg);
        }
        for (size_t i = 0; i < c->n && r == 0; i++) {
                tpa_str s = c->ev[i].name;
                if (s >= ns)
                        continue;
                if (memo[s] == 0)
                        memo[s] = regexec(&re, tpa_trace_str(c->tr, s), 0, NULL, 0) == 0
                                  ? 1 : 2;
                if (memo[s] == 1)
                        r = add_marker(c, l, i, err);
        }
        regfree(&re);
        free(memo);
        return r;
}

static bool is_profiler_step_name(const char *s)
{
        return s[0] == 'P' && strncmp(s, "ProfilerStep#", 13) == 0;
}

/* Asked of every event: by the table of names when there is one. */
static inline bool is_profiler_step(const tpa_actx *c, size_t i)
{
        tpa_str name = c->ev[i].name;

        if (c->profiler_step != NULL && name < c->str_count)
                return c->profiler_step[name / 64] >> (name % 64) & 1;
        return is_profiler_step_name(tpa_trace_str(c->tr, name));
}

int tpa_analysis__name_markers(tpa_actx *c, tpa_error *err)
{
        c->str_count = tpa_trace_str_count(c->tr);
        /* a bit per string (memory: a large trace has millions of strings,
         * and the peak is the analysis's) */
        c->profiler_step = calloc(c->str_count / 64 + 1, sizeof(*c->profiler_step));
        if (c->profiler_step == NULL)
                return tpa_error_oom(err);
        for (size_t s = 0; s < c->str_count; s++)
                if (is_profiler_step_name(tpa_trace_str(c->tr, (tpa_str)s))) {
                        c->profiler_step[s / 64] |= UINT64_C(1) << (s % 64);
                        c->has_profiler_step = true;
                }
        return 0;
}

static bool is_steps_line(const tpa_actx *c, size_t i)
{
        uint32_t t = c->ev[i].track;

        return t < c->ntracks && c->track_cls[t] == TRACK_STEPS && c->ev[i].dur > 0;
}

static bool is_step_event(const tpa_actx *c, size_t i)
{
        return c->ev[i].kind == TPA_KIND_STEP;
}

static const char *const source_name[SRC__COUNT] = {
        "ProfilerStep#N", "TF host step markers", "TF Steps line", "step events",
};

/* The sources event i is a marker of, a bit each. Inline, with the tests
 * it makes, for the pass over every event. */
static inline unsigned marker_sources(const tpa_actx *c, size_t i)
{
        bool profiler = is_profiler_step(c, i);
        unsigned bits = profiler ? 1u << SRC_PROFILER_STEP : 0;

        /* TF host step markers: step events but ProfilerStep#N, host ones only */
        if (is_step_event(c, i) && !profiler && is_host_track(c, c->ev[i].track))
                bits |= 1u << SRC_HOST_STEP;
        if (is_steps_line(c, i))
                bits |= 1u << SRC_STEPS_LINE;
        if (is_step_event(c, i))
                bits |= 1u << SRC_STEP_EVENT;
        return bits;
}

int tpa_analysis__collect_markers(const tpa_actx *c, size_t lo, size_t hi,
                                  tpa_marker_list *l, tpa_error *err)
{
        int r;

        for (size_t i = lo; i < hi; i++) {
                unsigned bits = marker_sources(c, i);
                marker m;

                if (bits == 0)
                        continue;
                /* once for the sources it is a marker of (speed, bench/:
                 * its look-up of the step number, twice for most) */
                m = marker_at(c, i);
                for (int k = 0; bits != 0; k++, bits >>= 1)
                        if ((bits & 1) && (r = push(&l[k], &m, err)) < 0)
                                return r;
        }
        return 0;
}

/* Take the markers of the sources in `want` (bits) into l[source], as
 * tpa_analysis__collect_markers() found them in find_devices_and_markers()'
 * pass over the events (speed, bench/: a pass here, and one per source before, was
 * a third of the steps' time, on the longer of the two threads that build
 * lists and steps); host ones when a list has any: its device ones go
 * after. */
static void take_markers(tpa_actx *c, unsigned want, marker_list *l)
{
        for (int k = 0; k < SRC__COUNT; k++) {
                bool any_host = false;
                size_t w = 0;

                if (!(want & 1u << k))
                        continue;
                l[k] = c->markers[k];
                c->markers[k] = (marker_list){ 0 };
                for (size_t j = 0; j < l[k].n; j++)
                        any_host = any_host || l[k].v[j].host;
                if (!any_host)
                        continue;
                for (size_t j = 0; j < l[k].n; j++)
                        if (l[k].v[j].host)
                                l[k].v[w++] = l[k].v[j];
                l[k].n = w;
        }
}

/* One step per TF group id that has device work (or any work, CPU-only). */
static int from_groups(tpa_actx *c, marker_list *l, tpa_error *err)
{
        uint32_t maxg = 0;
        marker *g;
        int r = 0;

        for (size_t i = 0; i < c->n; i++)
                if (c->ev[i].group > maxg)
                        maxg = c->ev[i].group;
        if (maxg == 0)
                return 0;
        g = calloc((size_t)maxg + 1, sizeof(*g));
        if (g == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < c->n; i++) {
                const tpa_event *e = &c->ev[i];
                int32_t d;
                int cls = tpa_analysis__event_class(c, i, &d);
                marker *m = &g[e->group];

                if (e->group == 0 || cls == EV_SKIP)
                        continue;
                if (cls == EV_DEVICE || c->a->cpu_only)
                        m->numbered = true;     /* has the work that makes a step */
                if (m->e == 0 && m->s == 0) {
                        m->s = e->ts;
                        m->e = e->ts + e->dur;
                } else {
                        if (e->ts < m->s)
                                m->s = e->ts;
                        if (e->ts + e->dur > m->e)
                                m->e = e->ts + e->dur;
                }
        }
        for (uint32_t k = 1; k <= maxg && r == 0; k++) {
                if (!g[k].numbered)
                        continue;
                g[k].number = (int64_t)k - 1;
                g[k].group = k;
                g[k].track = UINT32_MAX;
                r = push(l, &g[k], err);
        }
        free(g);
        return r;
}

typedef tpa_kv kv;

static int cmp_kv(const void *pa, const void *pb)
{
        const kv *x = pa, *y = pb;

        if (x->key != y->key)
                return x->key < y->key ? -1 : 1;
        return (x->end < y->end) - (x->end > y->end);      /* latest end first */
}

/* Sort v[0..n) with cmp_kv and `tmp` of n / 2 + 1 entries: a merge sort
 * that skips merging halves already in order. Correlation ids grow with
 * time, so the table comes nearly sorted: this costs about n compares and
 * half the scratch memory of qsort's merge sort (bench/). */
static void sort_kv(kv *v, kv *tmp, size_t n)
{
        size_t mid = n / 2, i, j, k;

        if (n <= 16) {
                for (i = 1; i < n; i++) {
                        kv x = v[i];
                        for (j = i; j > 0 && cmp_kv(&v[j - 1], &x) > 0; j--)
                                v[j] = v[j - 1];
                        v[j] = x;
                }
                return;
        }
        sort_kv(v, tmp, mid);
        sort_kv(v + mid, tmp, n - mid);
        if (cmp_kv(&v[mid - 1], &v[mid]) <= 0)
                return;
        memcpy(tmp, v, mid * sizeof(*v));
        for (i = 0, j = mid, k = 0; i < mid; k++) {
                if (j < n && cmp_kv(&v[j], &tmp[i]) < 0)
                        v[k] = v[j++];
                else
                        v[k] = tmp[i++];
        }
}

static void sort_kvs(kv *v, size_t n)
{
        kv *tmp = n > 0 ? malloc((n / 2 + 1) * sizeof(*tmp)) : NULL;

        if (tmp != NULL)
                sort_kv(v, tmp, n);
        else if (n > 0)
                qsort(v, n, sizeof(*v), cmp_kv);
        free(tmp);
}

/* Sort v[0..n) by key with `tmp` of n / 2 + 1 entries: sort_kv()'s merge
 * sort. Entries of one key may come in any order: corr_find() takes the
 * latest end of them all. */
static void sort_corr(tpa_corr *v, tpa_corr *tmp, size_t n)
{
        size_t mid = n / 2, i, j, k;

        if (n <= 16) {
                for (i = 1; i < n; i++) {
                        tpa_corr x = v[i];
                        for (j = i; j > 0 && v[j - 1].key > x.key; j--)
                                v[j] = v[j - 1];
                        v[j] = x;
                }
                return;
        }
        sort_corr(v, tmp, mid);
        sort_corr(v + mid, tmp, n - mid);
        if (v[mid - 1].key <= v[mid].key)
                return;
        memcpy(tmp, v, mid * sizeof(*v));
        for (i = 0, j = mid, k = 0; i < mid; k++) {
                if (j < n && v[j].key < tmp[i].key)
                        v[k] = v[j++];
                else
                        v[k] = tmp[i++];
        }
}

static int cmp_corr(const void *pa, const void *pb)
{
        const tpa_corr *x = pa, *y = pb;

        return (x->key > y->key) - (x->key < y->key);
}

/* The groups' table only: the ids' table waits for corr_ids(), which
 * mostly needs it in no order. */
void tpa_analysis__ext_sort(tpa_ext *x)
{
        sort_kvs(x->grp, x->ng);
}

/* Part `part`'s table of ids sorted, for the searches of ext_find(). */
static int corr_sort_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        tpa_ext *x = &c->ext[part];
        tpa_corr *tmp = x->nc > 0 ? malloc((x->nc / 2 + 1) * sizeof(*tmp)) : NULL;

        (void)arg;
        (void)err;
        if (tmp != NULL)
                sort_corr(x->corr, tmp, x->nc);
        else if (x->nc > 0)
                qsort(x->corr, x->nc, sizeof(*x->corr), cmp_corr);
        free(tmp);
        return 0;
}

/* A search by key in a table of kv or tpa_corr entries, which both
 * begin with their uint32_t key: `stride` bytes apart. */
struct key_query {
        const unsigned char *v;
        size_t               stride;
        uint32_t             key;
};

static bool key_below(const void *ctx, size_t i)
{
        const struct key_query *q = ctx;
        uint32_t k;

        memcpy(&k, q->v + i * q->stride, sizeof(k));
        return k < q->key;
}

/* The first entry of `key` or after it. The search starts out from
 * *hint, the entry found last, which it updates: host events come in
 * about time order, and correlation ids grow with time, so the next key is
 * mostly a few entries on (a search of the whole table per launch was a
 * third of the steps' time on the 1 GB bench trace). */
static size_t key_find(const void *v, size_t stride, size_t n, uint32_t key, size_t *hint)
{
        struct key_query q = { v, stride, key };

        return *hint = tpa_analysis__gallop(n, *hint, key_below, &q);
}

/* The latest device end for `key`, or -1. */
static tpa_ns kv_find(const kv *v, size_t n, uint32_t key, size_t *hint)
{
        size_t i = key_find(v, sizeof(*v), n, key, hint);

        return i < n && v[i].key == key ? v[i].end : -1;
}

/* As kv_find(), in a table of device events by correlation id: the
 * latest end of the events with `key` (mostly one), or -1. */
static tpa_ns corr_find(const tpa_corr *v, size_t n, uint32_t key, size_t *hint)
{
        size_t i = key_find(v, sizeof(*v), n, key, hint);
        tpa_ns end = -1;

        for (; i < n && v[i].key == key; i++) {
                tpa_ns t = (tpa_ns)((uint64_t)v[i].end_hi << 32 | v[i].end_lo);
                if (t > end)
                        end = t;
        }
        return end;
}

/* Where a pass in about time order stands among the markers (sorted by
 * start): times in [from, to) have the same last marker starting at or
 * before them, k (-1: none), whose window ends at `end`. */
typedef struct marker_hint {
        tpa_ns from, to, end;
        long   k;
} marker_hint;

#define MARKER_HINT_INIT { INT64_MAX, INT64_MIN, INT64_MIN, -1 }

/* The last marker starting at or before t whose window holds t, or -1:
 * by the hint when t lies in its reach, else by a search that moves it
 * (speed, bench/: a test of the marker found last through the list, and
 * of the next one's start, per launch was over a quarter of the launches'
 * pass). */
static inline long marker_of(const marker_list *l, tpa_ns t, marker_hint *h)
{
        if (!(h->from <= t && t < h->to)) {
                size_t lo = 0, hi = l->n;
                while (lo < hi) {
                        size_t mid = lo + (hi - lo) / 2;
                        if (l->v[mid].s <= t)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                *h = (marker_hint){ lo > 0 ? l->v[lo - 1].s : INT64_MIN,
                                    lo < l->n ? l->v[lo].s : INT64_MAX,
                                    lo > 0 ? l->v[lo - 1].e : INT64_MIN, (long)lo - 1 };
        }
        return t < h->end ? h->k : -1;
}

/* p, shrunk to `size` bytes (at least 1); p itself when realloc fails. */
static void *shrink(void *p, size_t size)
{
        void *q = realloc(p, size ? size : 1);
        return q != NULL ? q : p;
}

/* Free the tables (part 0's blocks hold part 1's). */
static void ext_free(tpa_actx *c)
{
        free(c->corr_end);
        c->corr_end = NULL;
        free(c->ext[0].corr);
        free(c->ext[0].grp);
        free(c->ext[0].host);
        memset(c->ext, 0, sizeof(c->ext));
}

/* A slot per event: a large block is mapped page by page as it is
 * written, so the slots never used cost no memory. The tables are written
 * once, in the first pass, and freed before the analysis' peak of memory.
 * In 4 KB pages, as all of the analysis' memory: a 2 MB page asked for
 * with MADV_HUGEPAGE is one trap for 512 but may stall it (compaction,
 * or a hypervisor that backs the guest's memory only when touched, or
 * took back what the guest freed): the analysis' time then varied widely
 * from run to run, and was no faster in the median (bench/). */
int tpa_analysis__ext_new(tpa_actx *c, tpa_error *err)
{
        tpa_ext *x = c->ext;
        size_t n1 = c->n ? c->n : 1, half = c->n / 2;

        if (c->n > UINT32_MAX)
                return tpa_error_setf(err, TPA_ELIMIT, "%zu events, more than the analysis "
                                      "takes (%lu)", c->n, (unsigned long)UINT32_MAX);
        x[0].corr = malloc(n1 * sizeof(*x[0].corr));
        x[0].grp = malloc(n1 * sizeof(*x[0].grp));
        x[0].host = malloc(n1 * sizeof(*x[0].host));
        if (x[0].corr == NULL || x[0].grp == NULL || x[0].host == NULL) {
                ext_free(c);
                return tpa_error_oom(err);
        }
        x[1] = (tpa_ext){ x[0].corr + half, x[0].grp + half, x[0].host + half, 0, 0, 0 };
        return 0;
}

/* The look-ups by correlation id ready: when the ids of both parts'
 * tables span no more than the events, the latest end of each id in
 * c->corr_end, and a launch's look-up is one read (speed, bench/: two
 * searches of the tables per launch were most of the steps'
 * instructions, and the tables' sort a tenth); else, or without memory
 * for it, the tables sorted (each part on its thread) for searches.
 * Memory: a slot per id, freed with the tables. */
static int corr_ids(tpa_actx *c, tpa_error *err)
{
        const tpa_ext *x = c->ext;
        uint32_t lo = UINT32_MAX, hi = 0;
        size_t n;

        for (int p = 0; p < 2; p++)
                for (size_t i = 0; i < x[p].nc; i++) {
                        if (x[p].corr[i].key < lo)
                                lo = x[p].corr[i].key;
                        if (x[p].corr[i].key > hi)
                                hi = x[p].corr[i].key;
                }
        if (lo > hi)
                return 0;               /* no ids */
        if ((n = (size_t)(hi - lo) + 1) > c->n ||
            (c->corr_end = malloc(n * sizeof(*c->corr_end))) == NULL)
                return tpa_analysis__in_two(c, corr_sort_part, NULL, err);
        tpa_analysis__populate(c->corr_end, n * sizeof(*c->corr_end));
        memset(c->corr_end, 0xff, n * sizeof(*c->corr_end));   /* -1: none */
        for (int p = 0; p < 2; p++)
                for (size_t i = 0; i < x[p].nc; i++) {
                        tpa_ns t = (tpa_ns)((uint64_t)x[p].corr[i].end_hi << 32 |
                                            x[p].corr[i].end_lo);
                        tpa_ns *slot = &c->corr_end[x[p].corr[i].key - lo];
                        if (t > *slot)
                                *slot = t;
                }
        c->corr_lo = lo;
        c->corr_n = n;
        return 0;
}

/* The latest end of key in both parts' tables (sorted), or -1; near[]
 * holds each part's hint for kv_find(). Not joined into one table:
 * moving part 1's up to part 0's costs a copy of the whole (bench/). */
static tpa_ns ext_search(const tpa_actx *c, bool grp, uint32_t key, size_t near[2])
{
        const tpa_ext *x = c->ext;
        tpa_ns end[2];

        for (int p = 0; p < 2; p++) {
                /* a key outside the part's range of keys is not there: no
                 * search (speed, bench/: the ids grow with time, and the
                 * launches of one half have their work in that half) */
                if (grp ? x[p].ng == 0 || key < x[p].grp[0].key ||
                          key > x[p].grp[x[p].ng - 1].key
                        : x[p].nc == 0 || key < x[p].corr[0].key ||
                          key > x[p].corr[x[p].nc - 1].key)
                        end[p] = -1;
                else
                        end[p] = grp ? kv_find(x[p].grp, x[p].ng, key, &near[p])
                                     : corr_find(x[p].corr, x[p].nc, key, &near[p]);
        }
        return end[0] > end[1] ? end[0] : end[1];
}

/* As ext_search(), by the table by id when there is one (corr_ids()).
 * Inline: asked of every launch. */
static inline tpa_ns ext_find(const tpa_actx *c, bool grp, uint32_t key, size_t near[2])
{
        if (!grp && c->corr_end != NULL)
                return (uint32_t)(key - c->corr_lo) < c->corr_n
                       ? c->corr_end[key - c->corr_lo] : -1;
        return ext_search(c, grp, key, near);
}

/*
 * The first host marker's window starts when the device is done with work
 * launched before it: kernels of the step before the profile still running
 * when the first marker starts are that step's time, not this one's (the
 * rule between steps, applied to the step the trace did not catch). It
 * moves to the latest end of device work running at its start that ends
 * before the first device work the marker launched starts. PyTorch's TensorBoard plugin starts its
 * first step the same way. The channels' pass shows every device event to
 * tpa_analysis__settle_see(), in two parts, each of which finds the first
 * device work it sees (by the correlation ids of the host events in the
 * window, or the marker's group) and keeps the ends that may come before
 * it; settle_first() then moves the start. Speed (bench/): two passes of
 * their own were a third of the steps' time.
 */
int tpa_analysis__settle_see(tpa_settle *st, const tpa_event *e, tpa_error *err)
{
        tpa_ns end = e->ts + e->dur;
        bool before;

        if (e->ts < st->first &&
            ((st->group != 0 && e->group == st->group) ||
             (e->corr != 0 &&
              bsearch(&e->corr, st->ids, st->ni, sizeof(*st->ids), tpa_analysis__cmp_u32))))
                st->first = e->ts;
        /* `first` only falls, and never rises above `bound`: an end at or
         * past either never counts */
        if (end <= st->s || end >= st->first || end >= st->bound)
                return 0;
        /* the step before's for sure: running at the start, or launched
         * before it; else (its launch missing) settle_first() decides */
        before = e->ts < st->s ||
                 (e->corr != 0 &&
                  bsearch(&e->corr, st->pre, st->npre, sizeof(*st->pre), tpa_analysis__cmp_u32));
        if (before) {
                if (tpa_analysis__room((void **)&st->ends, &st->cap, st->ne,
                                       sizeof(*st->ends), 256, err) < 0)
                        return TPA_ENOMEM;
                st->ends[st->ne++] = end;
                return 0;
        }
        if (tpa_analysis__room((void **)&st->orphans, &st->ocap, st->no, sizeof(*st->orphans),
                               256, err) < 0)
                return TPA_ENOMEM;
        st->orphans[st->no++] = (tpa_ivl){ e->ts, end };
        return 0;
}

static int cmp_ivl_start(const void *pa, const void *pb)
{
        const tpa_ivl *x = pa, *y = pb;

        return (x->s > y->s) - (x->s < y->s);
}

/* Device work whose launch the trace lacks, starting inside the first
 * window, is the step before's when it runs on from the window's start
 * (from its start, or from the step before's other work) without a pause
 * longer than this: the queue that step left. An isolated copy later in
 * the window is the window's own, its launch lost. */
#define ORPHAN_GAP_NS 1000000

/* Move the start of m, the first window (extended), by both parts. */
static void settle_first(marker *m, tpa_settle st[2])
{
        tpa_ns first = st[0].first < st[1].first ? st[0].first : st[1].first;
        tpa_ns start = m->s;

        if (first == INT64_MAX)
                return;
        for (int p = 0; p < 2; p++)
                for (size_t i = 0; i < st[p].ne; i++)
                        if (st[p].ends[i] > start && st[p].ends[i] < first)
                                start = st[p].ends[i];
        for (int p = 0; p < 2; p++)
                if (st[p].no > 1)
                        qsort(st[p].orphans, st[p].no, sizeof(*st[p].orphans), cmp_ivl_start);
        /* the orphans of both parts, in start order, while they chain on */
        for (size_t i = 0, j = 0; i < st[0].no || j < st[1].no;) {
                const tpa_ivl *o = j >= st[1].no ||
                                   (i < st[0].no && st[0].orphans[i].s <= st[1].orphans[j].s)
                                   ? &st[0].orphans[i++] : &st[1].orphans[j++];
                if (o->s > start + ORPHAN_GAP_NS)
                        break;
                if (o->e > start && o->e < first)
                        start = o->e;
        }
        if (start < m->e)
                m->s = start;
}

static void settle_free(tpa_settle *st)
{
        if (st == NULL)
                return;
        free(st[0].ids);        /* the parts share them */
        free(st[0].pre);
        for (int p = 0; p < 2; p++) {
                free(st[p].ends);
                free(st[p].orphans);
        }
        free(st);
}

void *tpa_analysis__spare(tpa_actx *c, size_t size)
{
        int best = -1;
        void *p;

        for (int k = 0; k < 2; k++)
                if (c->spare[k] != NULL && c->spare_size[k] >= size &&
                    (best < 0 || c->spare_size[k] < c->spare_size[best]))
                        best = k;
        if (best < 0)
                return malloc(size ? size : 1);
        /* cut in place: the pages kept are the block's first */
        p = c->spare[best];
        c->spare[best] = NULL;
        return shrink(p, size);
}

void tpa_analysis__spare_free(tpa_actx *c)
{
        for (int k = 0; k < 2; k++) {
                free(c->spare[k]);
                c->spare[k] = NULL;
        }
}

void tpa_analysis__steps_free(tpa_actx *c)
{
        ext_free(c);
        tpa_analysis__spare_free(c);
        free(c->windows.v);
        c->windows = (marker_list){ 0 };
        settle_free(c->settle);
        c->settle = NULL;
        free(c->lost);
        c->lost = NULL;
        c->lost_n = 0;
}

/* The settling of the first window, m, whose host events with a
 * correlation id are ids[0..ni) (sorted; taken). `bound` is a time the
 * first device work it launched starts by: the least latest end of the
 * work of each id and of its group, found in the tables. The channels'
 * pass looks no further (most device events), and a part that does not
 * see that work keeps no ends past it. With no such work there is nothing
 * to settle. */
static int settle_new(tpa_actx *c, const marker *m, uint32_t *ids, size_t ni, uint32_t *pre,
                      size_t npre, tpa_error *err)
{
        tpa_ns bound = INT64_MAX, end;
        size_t near[2] = { 0, 0 };

        for (size_t i = 0; i < ni; i++)
                if ((end = ext_find(c, false, ids[i], near)) >= 0 && end < bound)
                        bound = end;
        near[0] = near[1] = 0;
        if (m->group != 0 && (end = ext_find(c, true, m->group, near)) >= 0 &&
            end < bound)
                bound = end;
        if (bound == INT64_MAX) {
                free(ids);
                free(pre);
                return 0;
        }
        c->settle = calloc(2, sizeof(*c->settle));
        if (c->settle == NULL) {
                free(ids);
                free(pre);
                return tpa_error_oom(err);
        }
        for (int p = 0; p < 2; p++)
                c->settle[p] = (tpa_settle){ .s = m->s, .group = m->group, .ids = ids,
                                             .ni = ni, .pre = pre, .npre = npre,
                                             .first = INT64_MAX, .bound = bound };
        return 0;
}

/*
 * The launches (host events with a correlation id, from the tables):
 * - each extends the window of the marker it falls in to the end of the
 *   device work it launched (windows of l, which may be empty, extended in
 *   ext[], by the marker's group already);
 * - those whose device work never came are kept for warm-up, which looks
 *   for a trailing step cut off (speed: it then needs no pass of its own
 *   over the events): their indexes go in the host table's
 *   block, which nothing needs after, each over an entry read already;
 * - the host events in the first window give the settling its ids, when
 *   ids is not NULL.
 * Each part of the tables on a thread of its own (speed: a large
 * trace has a launch per kernel): part 1 extends its
 * own copy of the windows' ends, and its lost launches and ids go in its
 * own blocks; the caller joins them (launches()).
 */
struct launch_job {
        const marker_list *l;
        tpa_ns            *ext[2];      /* part 0's: the caller's */
        uint32_t          *ids[2];      /* NULL: no settling */
        uint32_t          *pre[2];      /* ids of host events before the first window */
        size_t             ni[2], npre[2], lost[2];
};

/* How many events ahead a walk by index asks for the one it will read. */
#define PREFETCH 16

static int launches_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        struct launch_job *job = arg;
        const marker_list *l = job->l;
        const tpa_ext *x = c->ext;
        const tpa_event *ev = c->ev;
        const uint32_t *host = x[part].host;
        size_t nh = x[part].nh;
        tpa_ns *ext = job->ext[part];
        uint32_t *ids = job->ids[part], *pre = job->pre[part], *lost = x[part].host;
        /* the first window, whose host events give the settling its ids,
         * and those before it its ids before (e0: at least s0, so that
         * one test tells the events after both apart) */
        tpa_ns s0 = l->n > 0 ? l->v[0].s : 0;
        tpa_ns e0 = l->n > 0 && l->v[0].e > s0 ? l->v[0].e : s0;
        size_t near[2] = { 0, 0 }, w = 0, ni = 0, npre = 0;
        marker_hint hint = MARKER_HINT_INIT;

        (void)err;
        for (size_t j = 0; j < nh; j++) {
                uint32_t i = host[j];           /* before lost[w] overwrites it */
                const tpa_event *h = &ev[i];
                bool launch = h->kind == TPA_KIND_LAUNCH;
                long k = marker_of(l, h->ts, &hint);
                tpa_ns end;

                /* the events lie apart: asked for ahead, not waited for */
                if (j + PREFETCH < nh)
                        __builtin_prefetch(&ev[host[j + PREFETCH]]);

                if (ids != NULL && h->ts < e0) {
                        if (h->ts >= s0)
                                ids[ni++] = h->corr;
                        else
                                pre[npre++] = h->corr;
                }
                if (k < 0 && !launch)
                        continue;
                end = ext_find(c, false, h->corr, near);
                if (k >= 0 && end > ext[k])
                        ext[k] = end;
                if (launch && end < 0)
                        lost[w++] = i;
        }
        job->ni[part] = ni;
        job->npre[part] = npre;
        job->lost[part] = w;
        return 0;
}

/* The launches' two parts, joined as one pass over part 0's table, then
 * part 1's, would leave them: ids and lost launches in that order, each
 * window's end the latest of both. */
static int launches(tpa_actx *c, const marker_list *l, tpa_ns *ext, uint32_t *ids,
                    size_t *ni, uint32_t *pre, size_t *npre, tpa_error *err)
{
        tpa_ext *x = c->ext;
        struct launch_job job = { l, { ext, NULL }, { ids, NULL }, { pre, NULL }, { 0, 0 },
                                  { 0, 0 }, { 0, 0 } };
        int r;

        /* part 1's ends start at nothing: the max of both is the same */
        job.ext[1] = malloc((l->n ? l->n : 1) * sizeof(*job.ext[1]));
        if (job.ext[1] == NULL)
                return tpa_error_oom(err);
        for (size_t k = 0; k < l->n; k++)
                job.ext[1][k] = INT64_MIN;
        job.ids[1] = ids != NULL ? ids + x[0].nh : NULL;
        job.pre[1] = pre != NULL ? pre + x[0].nh : NULL;
        if ((r = tpa_analysis__in_two(c, launches_part, &job, err)) < 0) {
                free(job.ext[1]);
                return r;
        }
        for (size_t k = 0; k < l->n; k++)
                if (job.ext[1][k] > ext[k])
                        ext[k] = job.ext[1][k];
        free(job.ext[1]);
        if (ids != NULL) {
                memmove(ids + job.ni[0], job.ids[1], job.ni[1] * sizeof(*ids));
                memmove(pre + job.npre[0], job.pre[1], job.npre[1] * sizeof(*pre));
        }
        *ni = job.ni[0] + job.ni[1];
        *npre = job.npre[0] + job.npre[1];
        /* the lost launches' starts, part 0's then part 1's */
        c->lost = malloc((job.lost[0] + job.lost[1] + 1) * sizeof(*c->lost));
        if (c->lost == NULL)
                return tpa_error_oom(err);
        for (int p = 0; p < 2; p++)
                for (size_t j = 0; j < job.lost[p]; j++)
                        c->lost[c->lost_n++] = c->ev[x[p].host[j]].ts;
        free(x[0].host);
        x[0].host = x[1].host = NULL;
        x[0].nh = x[1].nh = 0;
        return 0;
}

/* Extend each window to the device work its marker launched: device events
 * whose correlation id a host event inside the marker carries, and device
 * events of the marker's group; and find the lost launches (launches()).
 * Sorted tables keep it O(n log n); they come from
 * find_devices_and_markers()' pass (speed, bench/: two passes of their
 * own, one to make them and one to look them up, were the longer of the
 * two threads that built the lists and the steps). The first marker's
 * window settles when it is a host marker. */
static int extend(tpa_actx *c, marker_list *l, tpa_error *err)
{
        size_t near[2] = { 0, 0 }, ni = 0, npre = 0, nh = c->ext[0].nh + c->ext[1].nh;
        int r;
        bool settle = l->n > 0 && l->v[0].host;
        uint32_t *ids = settle ? malloc((nh ? nh : 1) * sizeof(*ids)) : NULL;
        uint32_t *pre = settle ? malloc((nh ? nh : 1) * sizeof(*pre)) : NULL;
        tpa_ns *ext = calloc(l->n ? l->n : 1, sizeof(*ext));

        if (ext == NULL || (settle && (ids == NULL || pre == NULL))) {
                free(ext);
                free(ids);
                free(pre);
                return tpa_error_oom(err);
        }
        for (size_t k = 0; k < l->n; k++) {
                tpa_ns g = l->v[k].group != 0 ? ext_find(c, true, l->v[k].group, near)
                                              : -1;
                ext[k] = g > l->v[k].e ? g : l->v[k].e;
        }
        if ((r = launches(c, l, ext, ids, &ni, pre, &npre, err)) < 0) {
                free(ext);
                free(ids);
                free(pre);
                return r;
        }
        for (size_t k = 0; k < l->n; k++)
                l->v[k].e = ext[k];
        free(ext);
        if (!settle)
                return 0;
        qsort(ids, ni, sizeof(*ids), tpa_analysis__cmp_u32);
        qsort(pre, npre, sizeof(*pre), tpa_analysis__cmp_u32);
        return settle_new(c, &l->v[0], ids, ni, shrink(pre, npre * sizeof(*pre)), npre, err);
}

/*
 * Detected iterations (design.md 5.1), for a trace with no step marker: the
 * first of these names, by the order an iteration runs them, that a host
 * thread runs twice or more. Each is a boundary: DataLoader's next batch,
 * the optimizer's zero_grad and step (PyTorch's autograd API, without
 * ProfilerStep#N), the train function of Keras without the profiler's
 * step markers: Keras 2's train_function. From LATE_NAMES on, the names
 * count only when no tf.function call does (below): Keras 3 (TF 2.16 on)
 * compiles multi_step_on_iterator or, in its first releases,
 * one_step_on_iterator (one call runs steps_per_execution steps), but its
 * test and predict functions have the same Python names, and a fit that
 * evaluates would count their calls too; the runtime names the two
 * functions apart ("__inference_multi_step_on_iterator_211", "..._316").
 * Last, a tf.data iterator's next batch taken by Python in an eager loop
 * (no tf.function: the loop's ops run one by one, none once an
 * iteration); a compiled step takes its batches inside, as many a call as
 * the call runs steps.
 */
static const char *const iteration_names[] = {
        "enumerate(DataLoader)#", "Optimizer.zero_grad#", "Optimizer.step#",
        "train_function", "__inference_train_function",
        "multi_step_on_iterator", "one_step_on_iterator",
        "EagerLocalExecute: IteratorGetNext",
};
#define ITERATION_NAMES (sizeof(iteration_names) / sizeof(iteration_names[0]))
enum { OPT_ZERO_GRAD = 1, OPT_STEP = 2, LATE_NAMES = 5 };

/*
 * Else a tf.function called from Python, whatever its name (a custom
 * training loop's step): TF runs each call as "EagerLocalExecute:
 * __inference_<name>_<id>" on the calling thread (TF 2.3 to 2.21 at
 * least), one name per concrete function. A tf.function retraced (a new
 * input shape, a Python value among its arguments) gets a new concrete
 * function, a new <id>, for the same Python function: its concrete
 * functions that train (below) are one function, whose calls are the
 * loop's iterations (a loop that retraced every fourth step
 * counted only the calls of one of them, a quarter of its steps; one that
 * retraced every step had no function called twice). Of the functions a
 * host thread calls twice or more, the one of most time is the
 * iteration's: a loop's other functions (metrics, logging every k steps)
 * and Keras' evaluation (a forward pass a step) are shorter. The first
 * TF_FUNCTIONS concrete functions met are weighed.
 */
#define TF_CALL "EagerLocalExecute: __inference_"
enum { TF_FUNCTIONS = 128, MEMO_FN0 = ITERATION_NAMES + 1, MEMO_NONE = 0xff };

struct tf_function {
        tpa_str  name;
        size_t   calls;
        tpa_ns   time;
        size_t   group;         /* the first function of its Python name (and training state) */
        size_t   gcalls;        /* the calls of its group */
        tpa_ns   gtime;         /* the time of its group */
};

/* The Python name in a concrete function's name, "EagerLocalExecute:
 * __inference_<name>_<id>": <name>, its length in *len. */
static const char *python_name(const char *s, size_t *len)
{
        size_t n, e;

        s += strlen(TF_CALL);
        n = e = strlen(s);
        while (e > 0 && isdigit((unsigned char)s[e - 1]))
                e--;
        if (e < n && e > 1 && s[e - 1] == '_')
                n = e - 1;
        *len = n;
        return s;
}

/* Each function's group: the first function of its Python name; with
 * trains (non-NULL), of those that train only, each other function being
 * a group of its own (Keras' test function has the train function's
 * Python name, and where no call shows a training op the two are told
 * apart by time alone, as before). The groups' calls and time. O(n^2)
 * over at most TF_FUNCTIONS names. */
static void group_functions(const tpa_actx *c, struct tf_function *f, size_t n,
                            const bool *trains)
{
        for (size_t k = 0; k < n; k++) {
                size_t lk, lj;
                const char *pk = python_name(tpa_trace_str(c->tr, f[k].name), &lk);

                f[k].group = k;
                for (size_t j = 0; j < k; j++) {
                        const char *pj = python_name(tpa_trace_str(c->tr, f[j].name), &lj);
                        if (f[j].group == j && lj == lk && memcmp(pj, pk, lk) == 0 &&
                            (trains == NULL || (trains[j] && trains[k]))) {
                                f[k].group = j;
                                break;
                        }
                }
                f[k].gcalls = 0;
                f[k].gtime = 0;
        }
        for (size_t k = 0; k < n; k++) {
                f[f[k].group].gcalls += f[k].calls;
                f[f[k].group].gtime += f[k].time;
        }
        for (size_t k = 0; k < n; k++) {
                f[k].gcalls = f[f[k].group].gcalls;
                f[k].gtime = f[f[k].group].gtime;
        }
}

/* The group of most time called twice or more, or n; of those that train
 * (trains[k]), when one does. */
static size_t main_function(const struct tf_function *f, size_t n, const bool *trains)
{
        size_t best = n;
        bool any = false;

        for (size_t k = 0; k < n; k++)
                any |= f[k].gcalls >= 2 && trains[k];
        for (size_t k = 0; k < n; k++)
                if (f[k].group == k && f[k].gcalls >= 2 && (!any || trains[k]) &&
                    (best == n || f[k].gtime > f[best].gtime))
                        best = k;
        return best;
}

/* A TF op of a training step: a gradient ("ReluGrad", "BiasAddGrad",
 * "Conv2DBackpropFilter") or an optimizer's update ("ResourceApplyAdam",
 * Keras 3's "AssignSubVariableOp"); the name may be "scope/op:Type". */
static bool is_train_op(const char *s)
{
        const char *t = strrchr(s, ':');
        size_t n;

        t = t != NULL ? t + 1 : s;
        n = strlen(t);
        return (n > 4 && strcmp(t + n - 4, "Grad") == 0) || strstr(t, "Backprop") != NULL ||
               strncmp(t, "ResourceApply", 13) == 0 ||
               strncmp(t, "ResourceSparseApply", 19) == 0 ||
               strcmp(t, "AssignSubVariableOp") == 0;
}

struct call {
        tpa_ns s, e;
        size_t fn;
};

static int cmp_call(const void *pa, const void *pb)
{
        const struct call *x = pa, *y = pb;

        return (x->s > y->s) - (x->s < y->s);
}

/* What training_functions() knows of a name: not looked at yet, neither,
 * a training op, or (TRAIN_FN + k) function k's. */
enum { TRAIN_NEW, TRAIN_NO, TRAIN_OP, TRAIN_FN };

/* trains[k]: a call of function k (of a group called twice or more)
 * holds a training op. Keras 3 runs fit's train and test functions under one Python name;
 * an evaluation that compiles its test function inside the profile, or
 * whose batches are larger, outweighs the training steps. The names are
 * looked at once each, through `memo` (a test per event of each
 * function's name was the pass's cost on a long trace). */
static void training_functions(const tpa_actx *c, const struct tf_function *f, size_t nfn,
                               bool *trains)
{
        size_t ns = tpa_trace_str_count(c->tr), n = 0, m = 0;
        uint8_t *memo;
        struct call *v;

        for (size_t k = 0; k < nfn; k++)
                n += f[k].gcalls >= 2 ? f[k].calls : 0;
        if (n == 0 || nfn > UINT8_MAX - TRAIN_FN || (v = malloc(n * sizeof(*v))) == NULL)
                return;
        if ((memo = calloc(ns ? ns : 1, 1)) == NULL) {
                free(v);
                return;
        }
        for (size_t k = 0; k < nfn; k++)
                if (f[k].gcalls >= 2 && f[k].name < ns)
                        memo[f[k].name] = (uint8_t)(TRAIN_FN + k);
        for (size_t i = 0; i < c->n && m < n; i++) {
                tpa_str s = c->ev[i].name;
                if (s < ns && memo[s] >= TRAIN_FN && is_host_track(c, c->ev[i].track))
                        v[m++] = (struct call){ c->ev[i].ts, c->ev[i].ts + c->ev[i].dur,
                                                (size_t)(memo[s] - TRAIN_FN) };
        }
        qsort(v, m, sizeof(*v), cmp_call);
        for (size_t i = 0; i < c->n; i++) {
                tpa_str s = c->ev[i].name;
                size_t lo = 0, hi = m;
                if (s >= ns)
                        continue;
                if (memo[s] == TRAIN_NEW)
                        memo[s] = is_train_op(tpa_trace_str(c->tr, s)) ? TRAIN_OP : TRAIN_NO;
                if (memo[s] != TRAIN_OP &&
                    (memo[s] < TRAIN_FN || !is_train_op(tpa_trace_str(c->tr, s))))
                        continue;
                while (lo < hi) {       /* the last call starting at or before it */
                        size_t mid = (lo + hi) / 2;
                        if (v[mid].s <= c->ev[i].ts)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo > 0 && c->ev[i].ts < v[lo - 1].e)
                        trains[v[lo - 1].fn] = true;
        }
        free(memo);
        free(v);
}

/*
 * Else the record_function() span a user put around each iteration
 * (Kineto's user_annotation: an annotation on a host thread). A name fits
 * that recurs three times or more (a benchmark's warm-up and measured runs,
 * a pair, are no loop) on one host thread and no other (a pool of threads
 * serving requests runs the same span on each at once: no iteration), and
 * whose first span starts within one iteration of its thread's first
 * event (the longest time from one of its spans to the next, the first
 * iteration being often slow; spans around an evaluation after the
 * training start later). Of the names that fit, the one of most spans
 * among those of at least half the most time: the spans around each step,
 * rather than the one around each epoch that holds them or those around
 * each layer, a part of a step. A span that starts inside the one before
 * of its name is not counted.
 */
enum { ANN_CALLS = 3 };

struct span {
        tpa_str  name;
        uint32_t track;
        tpa_ns   s, e;
};

struct ann_name {
        tpa_str  name;
        uint32_t track;
        size_t   calls;
        tpa_ns   time;
        tpa_ns   s0, e0;        /* the first counted span's start and end */
        bool     fits;
};

/* by name, thread, start, the longer first (it holds the other) */
static int cmp_span(const void *pa, const void *pb)
{
        const struct span *x = pa, *y = pb;

        if (x->name != y->name)
                return x->name < y->name ? -1 : 1;
        if (x->track != y->track)
                return x->track < y->track ? -1 : 1;
        if (x->s != y->s)
                return x->s < y->s ? -1 : 1;
        return (x->e < y->e) - (x->e > y->e);
}

/* A span a user put, not a frame of the profiler's Python tracer
 * ("$file.py:line func", parse/classify.c): a Python function called once
 * a batch (Keras' "pythonify_logs") marks no iteration. */
static bool user_span(const tpa_actx *c, const tpa_event *e)
{
        return e->kind == TPA_KIND_ANNOTATION && e->dur > 0 && is_host_track(c, e->track) &&
               tpa_trace_str(c->tr, e->name)[0] != '$';
}

/* The annotation spans of host threads, sorted (cmp_span), into *out (NULL
 * when there are fewer than ANN_CALLS), and per thread the start of its
 * first event into first[] (the same pass). Returns their count or -1. */
static long annotation_spans(const tpa_actx *c, struct span **out, tpa_ns *first)
{
        struct span *v;
        size_t n = 0;

        *out = NULL;
        for (size_t t = 0; t < c->ntracks; t++)
                first[t] = INT64_MAX;
        for (size_t i = 0; i < c->n; i++) {
                const tpa_event *e = &c->ev[i];
                if (e->track < c->ntracks && e->ts < first[e->track])
                        first[e->track] = e->ts;
                n += user_span(c, e);
        }
        if (n < ANN_CALLS)
                return 0;
        if ((v = malloc(n * sizeof(*v))) == NULL)
                return -1;
        n = 0;
        for (size_t i = 0; i < c->n; i++) {
                const tpa_event *e = &c->ev[i];
                if (user_span(c, e))
                        v[n++] = (struct span){ e->name, e->track, e->ts, e->ts + e->dur };
        }
        qsort(v, n, sizeof(*v), cmp_span);
        *out = v;
        return (long)n;
}

/* The spans of one name and thread from sp[i] on: into *f their calls,
 * time and whether the name fits (above); first: per thread, its first
 * event's start. Returns the index after them. */
static size_t weigh(const struct span *sp, size_t nsp, size_t i, const tpa_ns *first,
                    struct ann_name *f)
{
        size_t from = i;
        tpa_ns start = sp[i].s, prev = 0, end = INT64_MIN, longest = 0, end0 = sp[i].e;

        *f = (struct ann_name){ .name = sp[i].name, .track = sp[i].track };
        for (; i < nsp && sp[i].name == f->name && sp[i].track == f->track; i++) {
                if (sp[i].s < end)      /* inside the one before */
                        continue;
                if (f->calls++ > 0 && sp[i].s - prev > longest)
                        longest = sp[i].s - prev;
                prev = sp[i].s;
                end = sp[i].e;
                f->time += sp[i].e - sp[i].s;
        }
        f->s0 = start;
        f->e0 = end0;
        /* sorted by name: another thread's spans of it would be next to these */
        f->fits = f->calls >= ANN_CALLS && start - first[f->track] <= longest &&
                  (from == 0 || sp[from - 1].name != f->name) &&
                  (i == nsp || sp[i].name != f->name);
        return i;
}

/* The name (and its thread, *track) of the iterations a user marked, or
 * TPA_STR_EMPTY; *wraps: its spans hold whole iterations. */
static int annotated_iterations(const tpa_actx *c, tpa_str *name, uint32_t *track,
                                bool *wraps, tpa_error *err)
{
        struct span *sp = NULL;
        struct ann_name f, best = { .calls = 0 }, chosen;
        tpa_ns *first = malloc((c->ntracks ? c->ntracks : 1) * sizeof(*first)), most = 0;
        long nsp = first != NULL ? annotation_spans(c, &sp, first) : -1;

        *name = TPA_STR_EMPTY;
        *wraps = false;
        if (nsp <= 0) {
                free(first);
                return nsp < 0 ? tpa_error_oom(err) : 0;
        }
        for (size_t i = 0; i < (size_t)nsp;) {
                i = weigh(sp, (size_t)nsp, i, first, &f);
                if (f.fits && f.time > most)
                        most = f.time;
        }
        for (size_t i = 0; i < (size_t)nsp;) {
                i = weigh(sp, (size_t)nsp, i, first, &f);
                if (f.fits && 2 * f.time >= most &&
                    (f.calls > best.calls || (f.calls == best.calls && f.time > best.time)))
                        best = f;
        }
        /* Spans around parts of each iteration (a user's "forward",
         * "backward", "update"): another name of as many spans on the
         * thread, however light, whose first span lies apart from the
         * chosen one's (a layer's lies inside it). They mark
         * boundaries, by the part that starts first: the last step runs
         * on to the end of its thread, for the tail rule to judge. Spans
         * around whole iterations wrap them: the last ends with its span. */
        chosen = best;
        *wraps = chosen.calls > 0;
        for (size_t i = 0; chosen.calls > 0 && i < (size_t)nsp;) {
                i = weigh(sp, (size_t)nsp, i, first, &f);
                if (!f.fits || f.calls != chosen.calls ||
                    f.track != chosen.track || f.name == chosen.name ||
                    (f.s0 < chosen.e0 && chosen.s0 < f.e0))
                        continue;
                *wraps = false;
                if (f.s0 < best.s0)
                        best = f;
        }
        if (best.calls > 0) {
                *name = best.name;
                *track = best.track;
        }
        free(first);
        free(sp);
        return 0;
}

/*
 * The optimizer's calls name its class ("Optimizer.zero_grad#Adam.zero_grad"),
 * and a loop of two optimizers (a GAN's discriminator and generator) calls
 * each once an iteration: of the names of the picked call, the one of most
 * calls marks the iterations (the first met on a tie), not every optimizer's.
 * Two optimizers of one class have one name, twice an iteration: a user's
 * span around each iteration that holds the calls is the marker then, as it
 * is whenever there is one (optimizer_spans()).
 */
enum { OPTIMIZER_NAMES = 16 };

struct opt_name {
        tpa_str name;
        size_t  pick, calls;
        tpa_ns  first;
};

/* Count one call of optimizer name s (iteration name `pick`) into o[*n]. */
static void count_optimizer(struct opt_name *o, size_t *n, tpa_str s, size_t pick, tpa_ns ts)
{
        size_t k = 0;

        while (k < *n && o[k].name != s)
                k++;
        if (k == *n) {
                if (*n == OPTIMIZER_NAMES)
                        return;
                o[(*n)++] = (struct opt_name){ s, pick, 0, ts };
        }
        o[k].calls++;
        if (ts < o[k].first)
                o[k].first = ts;
}

static int cmp_ns(const void *pa, const void *pb)
{
        tpa_ns x = *(const tpa_ns *)pa, y = *(const tpa_ns *)pb;

        return (x > y) - (x < y);
}

/* True when the spans named `span` on thread `track` hold the optimizer's
 * calls (memo[name] == pick + 1): every span but one holds one at least (a
 * profile may cut the last iteration short). A user's spans around parts
 * of an iteration, or around micro-batches of which one in several updates,
 * do not. Returns -1 on no memory. */
static int optimizer_spans(const tpa_actx *c, tpa_str span, uint32_t track,
                           const uint8_t *memo, size_t pick)
{
        size_t n = 0, ns = tpa_trace_str_count(c->tr), held = 0;
        tpa_ns *v, *e;
        bool *hold;

        for (size_t i = 0; i < c->n; i++)
                n += c->ev[i].name == span && c->ev[i].track == track;
        if (n == 0)
                return 0;
        v = malloc(2 * n * sizeof(*v));
        hold = calloc(n, sizeof(*hold));
        if (v == NULL || hold == NULL) {
                free(v);
                free(hold);
                return -1;
        }
        n = 0;
        for (size_t i = 0; i < c->n; i++)
                if (c->ev[i].name == span && c->ev[i].track == track)
                        v[n++] = c->ev[i].ts;
        qsort(v, n, sizeof(*v), cmp_ns);
        e = v + n;      /* each span's end, by the order of the starts */
        for (size_t k = 0; k < n; k++)
                e[k] = INT64_MIN;
        for (size_t i = 0; i < c->n; i++) {
                size_t lo = 0, hi = n;
                if (c->ev[i].name != span || c->ev[i].track != track)
                        continue;
                while (lo < hi) {
                        size_t mid = (lo + hi) / 2;
                        if (v[mid] < c->ev[i].ts)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo < n && c->ev[i].ts + c->ev[i].dur > e[lo])
                        e[lo] = c->ev[i].ts + c->ev[i].dur;
        }
        for (size_t i = 0; i < c->n; i++) {
                tpa_str s = c->ev[i].name;
                size_t lo = 0, hi = n;
                if (s >= ns || memo[s] != pick + 1 || c->ev[i].track != track)
                        continue;
                while (lo < hi) {       /* the last span starting at or before it */
                        size_t mid = (lo + hi) / 2;
                        if (v[mid] <= c->ev[i].ts)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo > 0 && c->ev[i].ts < e[lo - 1] && !hold[lo - 1]) {
                        hold[lo - 1] = true;
                        held++;
                }
        }
        free(v);
        free(hold);
        return held + 1 >= n && held > 0;
}

/*
 * Two optimizers of one class (a GAN's discriminator and generator, both
 * Adam) have one name, called twice an iteration, and no user's span may
 * hold the iteration: each call marked a step, two steps of half an
 * iteration each, one the discriminator's update, one the generator's. The
 * two update different parameters, and the events nested in their calls
 * differ in number (Adam's step over 8 tensors or 6: 208 events or 156);
 * one optimizer's calls nest as many events each time, whatever else its
 * iterations do (a log every other step, micro-batches of which one in
 * several updates: each call marks the update still). So between one marked
 * call and the next, the events nested in the optimizer's calls are
 * counted, and when the counts repeat with period k (2 to OPT_PERIOD) and
 * not 1, every k-th call marks an iteration, from the first. The first
 * period may differ (an optimizer's first step makes its state), and the
 * last window (the profile may cut it short); 3k + 1 calls or more, all on
 * one thread. Returns k (1: as they are) and keeps every k-th marker;
 * -1 on no memory.
 */
enum { OPT_PERIOD = 8 };

static int optimizer_period(const tpa_actx *c, marker_list *l, const uint8_t *memo,
                            tpa_error *err)
{
        size_t n = l->n, m = 0, ns = tpa_trace_str_count(c->tr), *sig, k = 1, w = 0;
        uint32_t track = n > 0 ? l->v[0].track : UINT32_MAX;
        struct call *call;

        if (n < 3 * 2 + 1)
                return 1;
        for (size_t i = 0; i < n; i++)
                if (l->v[i].track != track)
                        return 1;
        qsort(l->v, n, sizeof(*l->v), cmp_marker_start);
        for (size_t i = 0; i < c->n; i++) {
                tpa_str s = c->ev[i].name;
                m += c->ev[i].track == track && s < ns &&
                     (memo[s] == OPT_ZERO_GRAD + 1 || memo[s] == OPT_STEP + 1);
        }
        call = malloc(m * sizeof(*call));
        sig = calloc(n, sizeof(*sig));
        if (call == NULL || sig == NULL) {
                free(call);
                free(sig);
                return tpa_error_oom(err);
        }
        m = 0;
        for (size_t i = 0; i < c->n; i++) {
                tpa_str s = c->ev[i].name;
                if (c->ev[i].track == track && s < ns &&
                    (memo[s] == OPT_ZERO_GRAD + 1 || memo[s] == OPT_STEP + 1))
                        call[m++] = (struct call){ c->ev[i].ts, c->ev[i].ts + c->ev[i].dur, 0 };
        }
        qsort(call, m, sizeof(*call), cmp_call);
        for (size_t i = 0; i < c->n; i++) {
                const tpa_event *e = &c->ev[i];
                size_t lo = 0, hi = m, at;
                if (e->track != track || (e->name < ns && (memo[e->name] == OPT_ZERO_GRAD + 1 ||
                                                           memo[e->name] == OPT_STEP + 1)))
                        continue;
                while (lo < hi) {       /* the last call starting at or before it */
                        size_t mid = (lo + hi) / 2;
                        if (call[mid].s <= e->ts)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo == 0 || e->ts >= call[lo - 1].e)
                        continue;
                at = lo - 1;
                lo = 0;
                hi = n;
                while (lo < hi) {       /* the last marker starting at or before it */
                        size_t mid = (lo + hi) / 2;
                        if (l->v[mid].s <= call[at].s)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo > 0)
                        sig[lo - 1]++;
        }
        for (k = 1; k <= OPT_PERIOD && 3 * k + 1 <= n; k++) {
                bool same = true;
                for (size_t i = k; i + k + 1 < n && same; i++)
                        same = sig[i] == sig[i + k];
                if (same)
                        break;
        }
        if (k > OPT_PERIOD || 3 * k + 1 > n)
                k = 1;
        if (k > 1) {
                for (size_t i = 0; i < n; i += k)
                        l->v[w++] = l->v[i];
                l->n = w;
        }
        free(call);
        free(sig);
        return (int)k;
}

/*
 * An optimizer's step given a closure calls it inside its own call, the
 * closure's zero_grad with it: LBFGS calls its closure up to max_iter
 * times a step (5 zero_grads in one Optimizer.step#LBFGS.step), and SGD or
 * Adam given one once. Such a zero_grad is part of the iteration the step
 * marks, no boundary of one: counted, 5 steps of a fifth of an iteration
 * each. The optimizer's step calls, fn = their thread, sorted by (thread,
 * start), each `e` raised to the latest end of the calls before it on its
 * thread, so that one search tells whether a span lies inside one.
 */
static int cmp_thread_call(const void *pa, const void *pb)
{
        const struct call *x = pa, *y = pb;

        if (x->fn != y->fn)
                return (x->fn > y->fn) - (x->fn < y->fn);
        return (x->s > y->s) - (x->s < y->s);
}

static void step_calls_sort(struct call *call, size_t m)
{
        qsort(call, m, sizeof(*call), cmp_thread_call);
        for (size_t i = 1; i < m; i++)
                if (call[i].fn == call[i - 1].fn && call[i - 1].e > call[i].e)
                        call[i].e = call[i - 1].e;
}

/* True when event e lies inside an optimizer's step call of its thread. */
static bool inside_step_call(const struct call *call, size_t m, const tpa_event *e)
{
        size_t lo = 0, hi = m;

        while (lo < hi) {       /* the last call on e's thread starting at or before it */
                size_t mid = (lo + hi) / 2;
                if (call[mid].fn < e->track || (call[mid].fn == e->track && call[mid].s <= e->ts))
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo > 0 && call[lo - 1].fn == e->track && e->ts + e->dur <= call[lo - 1].e;
}

/* by thread, then start */
static int cmp_span_track(const void *pa, const void *pb)
{
        const struct span *x = pa, *y = pb;

        if (x->track != y->track)
                return x->track < y->track ? -1 : 1;
        return (x->s > y->s) - (x->s < y->s);
}

/*
 * The markers of a tf.function's calls start where Python called it: the
 * call's own event (TF2's 'tf_function_call' stat), named as the function,
 * spans the tracing of a call that retraces (tf.function-graph_building,
 * tens of ms) before the runtime runs it (EagerLocalExecute). From the
 * runtime's start, a retrace fell in the step before the one that
 * retraced, and that step kept the new function's first, slow run. A call
 * of the marker's thread and of the function's Python name py[0, len)
 * that encloses the marker moves its start. A search per marker.
 */
static int to_python_calls(const tpa_actx *c, marker_list *l, const char *py, size_t len,
                           tpa_error *err)
{
        struct span *v = NULL;
        size_t n = 0, cap = 0;
        int64_t f;
        int r = 0;

        for (size_t i = 0; tpa_trace_next_aux(c->tr, TPA_AUX_FLAGS, &i, &f); i++) {
                const tpa_event *e = &c->ev[i];
                if (!(f & TPA_FLAG_TF_CALL) || !is_host_track(c, e->track) ||
                    tpa_trace_str_len(c->tr, e->name) != len ||
                    memcmp(tpa_trace_str(c->tr, e->name), py, len) != 0)
                        continue;
                if (tpa_analysis__room((void **)&v, &cap, n, sizeof(*v), 16, err) < 0) {
                        r = TPA_ENOMEM;
                        break;
                }
                v[n++] = (struct span){ e->name, e->track, e->ts, e->ts + e->dur };
        }
        if (r == 0 && n > 0) {
                qsort(v, n, sizeof(*v), cmp_span_track);
                for (size_t k = 0; k < l->n; k++) {
                        marker *m = &l->v[k];
                        size_t lo = 0, hi = n;
                        while (lo < hi) {       /* past the last call at or before m */
                                size_t mid = (lo + hi) / 2;
                                if (v[mid].track < m->track ||
                                    (v[mid].track == m->track && v[mid].s <= m->s))
                                        lo = mid + 1;
                                else
                                        hi = mid;
                        }
                        if (lo > 0 && v[lo - 1].track == m->track && v[lo - 1].e >= m->e)
                                m->s = v[lo - 1].s;
                }
        }
        free(v);
        return r;
}

/* *wraps: the markers found are a user's spans around whole iterations. */
static int detect(tpa_actx *c, marker_list *l, bool *wraps, tpa_error *err)
{
        size_t ns = tpa_trace_str_count(c->tr), count[ITERATION_NAMES] = { 0 };
        /* 0 unknown, k + 1, MEMO_FN0 + function, or MEMO_NONE */
        uint8_t *memo = calloc(ns ? ns : 1, 1);
        struct tf_function fn[TF_FUNCTIONS];
        struct opt_name opt[OPTIMIZER_NAMES];
        size_t pick = ITERATION_NAMES, first = 0, nfn = 0, nopt = 0, fgroup = TF_FUNCTIONS;
        tpa_str function = TPA_STR_EMPTY;       /* or a user's annotation */
        tpa_str only = TPA_STR_EMPTY;           /* the optimizer's name */
        uint32_t track = UINT32_MAX;            /* the annotation's thread */
        struct call *scall = NULL;              /* the optimizer's step calls */
        size_t nscall = 0, scap = 0;
        int r = 0, period = 1;

        if (memo == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < c->n; i++) {
                tpa_str s = c->ev[i].name;
                if (s >= ns || !is_host_track(c, c->ev[i].track))
                        continue;
                if (memo[s] == 0) {
                        const char *name = tpa_trace_str(c->tr, s);
                        memo[s] = MEMO_NONE;
                        for (size_t k = 0; k < ITERATION_NAMES; k++)
                                if (strncmp(name, iteration_names[k],
                                            strlen(iteration_names[k])) == 0)
                                        memo[s] = (uint8_t)(k + 1);
                        if (memo[s] == MEMO_NONE && nfn < TF_FUNCTIONS &&
                            strncmp(name, TF_CALL, strlen(TF_CALL)) == 0) {
                                memo[s] = (uint8_t)(MEMO_FN0 + nfn);
                                fn[nfn++] = (struct tf_function){ .name = s };
                        }
                }
                if (memo[s] >= MEMO_FN0 && memo[s] != MEMO_NONE) {
                        size_t k = memo[s] - MEMO_FN0;
                        fn[k].calls++;
                        fn[k].time += c->ev[i].dur;
                } else if (memo[s] != MEMO_NONE) {
                        count[memo[s] - 1]++;
                        if (memo[s] == OPT_ZERO_GRAD + 1 || memo[s] == OPT_STEP + 1)
                                count_optimizer(opt, &nopt, s, memo[s] - 1u, c->ev[i].ts);
                        if (memo[s] == OPT_STEP + 1) {
                                if (tpa_analysis__room((void **)&scall, &scap, nscall,
                                                       sizeof(*scall), 16, err) < 0) {
                                        free(scall);
                                        free(memo);
                                        return TPA_ENOMEM;
                                }
                                scall[nscall++] = (struct call){ c->ev[i].ts,
                                                                 c->ev[i].ts + c->ev[i].dur,
                                                                 c->ev[i].track };
                        }
                }
        }
        /* a closure's zero_grads, inside the step's call, mark nothing */
        if (nscall > 0 && count[OPT_ZERO_GRAD] > 0) {
                step_calls_sort(scall, nscall);
                for (size_t i = 0; i < c->n; i++) {
                        tpa_str s = c->ev[i].name;
                        if (s < ns && memo[s] == OPT_ZERO_GRAD + 1 &&
                            is_host_track(c, c->ev[i].track) &&
                            inside_step_call(scall, nscall, &c->ev[i])) {
                                count[OPT_ZERO_GRAD]--;
                                for (size_t k = 0; k < nopt; k++)
                                        if (opt[k].name == s && opt[k].calls > 0)
                                                opt[k].calls--;
                        }
                }
        }
        for (size_t k = 0; k < LATE_NAMES && pick == ITERATION_NAMES; k++)
                if (count[k] >= 2)
                        pick = k;
        if (pick == OPT_ZERO_GRAD || pick == OPT_STEP) {
                struct opt_name *best = NULL;
                tpa_str ann = TPA_STR_EMPTY;
                uint32_t atrack = UINT32_MAX;
                bool awraps = false;
                for (size_t k = 0; k < nopt; k++)
                        if (opt[k].pick == pick &&
                            (best == NULL || opt[k].calls > best->calls ||
                             (opt[k].calls == best->calls && opt[k].first < best->first)))
                                best = &opt[k];
                only = best != NULL && nopt < OPTIMIZER_NAMES ? best->name : TPA_STR_EMPTY;
                r = annotated_iterations(c, &ann, &atrack, &awraps, err);
                if (r == 0 && ann != TPA_STR_EMPTY && awraps && ann < ns &&
                    memo[ann] == MEMO_NONE) {
                        int h = optimizer_spans(c, ann, atrack, memo, pick);
                        if (h < 0)
                                r = tpa_error_oom(err);
                        else if (h > 0) {
                                function = ann;
                                track = atrack;
                                *wraps = true;
                                pick = ITERATION_NAMES;
                        }
                }
        }
        if (pick == ITERATION_NAMES && function == TPA_STR_EMPTY) {
                bool trains[TF_FUNCTIONS] = { false };
                size_t called = 0;
                group_functions(c, fn, nfn, NULL);
                for (size_t k = 0; k < nfn; k++)
                        called += fn[k].gcalls >= 2;
                if (called >= 2)
                        training_functions(c, fn, nfn, trains);
                group_functions(c, fn, nfn, trains);
                fgroup = main_function(fn, nfn, trains);
                if (fgroup < nfn)
                        function = fn[fgroup].name;
        }
        for (size_t k = LATE_NAMES; k < ITERATION_NAMES && pick == ITERATION_NAMES &&
                                    function == TPA_STR_EMPTY; k++)
                if (count[k] >= 2)
                        pick = k;
        if (pick == ITERATION_NAMES && function == TPA_STR_EMPTY)
                r = annotated_iterations(c, &function, &track, wraps, err);
        for (size_t i = 0; i < c->n && r == 0 && (pick < ITERATION_NAMES ||
                                                   function != TPA_STR_EMPTY); i++) {
                tpa_str s = c->ev[i].name;
                bool hit = fgroup < nfn ? s < ns && memo[s] >= MEMO_FN0 && memo[s] != MEMO_NONE &&
                                          fn[memo[s] - MEMO_FN0].group == fgroup
                           : function != TPA_STR_EMPTY ? s == function
                                                       : s < ns && memo[s] == pick + 1 &&
                                                         (only == TPA_STR_EMPTY || s == only);
                if (hit && function == TPA_STR_EMPTY && pick == OPT_ZERO_GRAD &&
                    inside_step_call(scall, nscall, &c->ev[i]))
                        hit = false;
                if (hit && is_host_track(c, c->ev[i].track) &&
                    (track == UINT32_MAX || c->ev[i].track == track)) {
                        if (l->n == 0)
                                first = i;
                        r = add_marker(c, l, i, err);
                        l->v[l->n - 1].numbered = false;
                }
        }
        if (r == 0 && fgroup < nfn && l->n > 0) {
                size_t len;
                const char *py = python_name(tpa_trace_str(c->tr, fn[fgroup].name), &len);
                r = to_python_calls(c, l, py, len, err);
        }
        if (r == 0 && function == TPA_STR_EMPTY && (pick == OPT_ZERO_GRAD || pick == OPT_STEP)) {
                period = optimizer_period(c, l, memo, err);
                r = period < 0 ? period : 0;
        }
        free(memo);
        free(scall);
        c->loader_steps = r == 0 && l->n > 0 && pick == 0 && function == TPA_STR_EMPTY;
        if (r == 0 && l->n > 0) {
                tpa_analysis *a = c->a;
                size_t conc = 0;
                for (size_t k = 0; fgroup < nfn && k < nfn; k++)
                        conc += fn[k].group == fgroup;
                if (conc > 1)
                        snprintf(a->step_source_buf, sizeof(a->step_source_buf),
                                 "detected iterations: %s and %zu retraces of it (a "
                                 "tf.function's concrete functions)",
                                 tpa_trace_str(c->tr, c->ev[first].name), conc - 1);
                else if (period > 1)
                        snprintf(a->step_source_buf, sizeof(a->step_source_buf),
                                 "detected iterations: %s, one call in %d (optimizers of "
                                 "one class, whose calls repeat every %d)",
                                 tpa_trace_str(c->tr, c->ev[first].name), period, period);
                else
                        snprintf(a->step_source_buf, sizeof(a->step_source_buf),
                                 "detected iterations: %s",
                                 tpa_trace_str(c->tr, c->ev[first].name));
                tpa_utf8__trim(a->step_source_buf);
                a->step_source = a->step_source_buf;
        }
        return r;
}

/* The later of `end` and the end of the last event of thread `track`. */
static tpa_ns thread_end(const tpa_actx *c, uint32_t track, tpa_ns end)
{
        for (size_t i = 0; i < c->n; i++)
                if (c->ev[i].track == track && c->ev[i].ts + c->ev[i].dur > end)
                        end = c->ev[i].ts + c->ev[i].dur;
        return end;
}

/* The span of the whole trace as one step: from the first to the last
 * event of a host thread or a device, never the profiler's own marks, which
 * are no work: Kineto's "Record Window End", an instant the profiler puts
 * when it stops (often tens of ms after the last event: a step of the whole
 * trace ran on that long with nothing in it, all of it Python), its
 * "PyTorch Profiler" span on a track of no role. An instant of no kind
 * marks a point and extends nothing. Without such events, every event. */
static bool work_span(const tpa_actx *c, tpa_ns *start, tpa_ns *end)
{
        tpa_ns lo = INT64_MAX, hi = INT64_MIN;

        for (size_t i = 0; i < c->n; i++) {
                const tpa_event *e = &c->ev[i];

                if (e->track >= c->ntracks || c->track_cls[e->track] < TRACK_HOST ||
                    (e->dur == 0 && e->kind == TPA_KIND_OTHER))
                        continue;
                if (e->ts < lo)
                        lo = e->ts;
                if (e->ts + e->dur > hi)
                        hi = e->ts + e->dur;
        }
        if (lo == INT64_MAX)
                return tpa_trace_span(c->tr, start, end);
        *start = lo;
        *end = hi;
        return true;
}

/* Markers that mark boundaries (--step-marker, detected iterations): a
 * step runs from one's start to the next one's, the last to the later of
 * its own end and the end of the last event of its thread (the rest of the
 * iteration it starts; a step the profile cut short is the warm-up's to
 * find, as a tail), or, where the markers wrap whole iterations (a user's
 * span around each), to its own end: what the thread runs after the last
 * iteration (an evaluation, the profiler stopping) is no step's. A marker
 * that starts inside the one before (a nested match) marks nothing. l is
 * sorted by start. */
static void to_boundaries(const tpa_actx *c, marker_list *l, bool wraps)
{
        size_t w = 0;

        for (size_t i = 0; i < l->n; i++)
                if (w == 0 || l->v[i].s >= l->v[w - 1].e || l->v[i].track != l->v[w - 1].track)
                        l->v[w++] = l->v[i];
        l->n = w;
        for (size_t i = 0; i + 1 < l->n; i++)
                l->v[i].e = l->v[i + 1].s;
        if (l->n > 0 && !wraps)
                l->v[l->n - 1].e = thread_end(c, l->v[l->n - 1].track, l->v[l->n - 1].e);
}

/* Steps by TF group: a group holds what the runtime ran for one iteration
 * (a function's execution and its ops), not the Python that calls it, so
 * a group marks a boundary too: each step runs to the next one's start,
 * the Python between in it, the last to the later of its own end and the
 * end of the last event of the host thread its first event ran on (as
 * to_boundaries() ends a name's last step). Unlike a name's markers, a
 * group that starts inside the one before is a step of its own (pipelined
 * steps), whose start ends that one. l is sorted by start. */
static void groups_to_boundaries(const tpa_actx *c, marker_list *l)
{
        marker *last = &l->v[l->n - 1];
        uint32_t track = UINT32_MAX;
        tpa_ns first = INT64_MAX;

        for (size_t i = 0; i + 1 < l->n; i++)
                l->v[i].e = l->v[i + 1].s;
        for (size_t i = 0; i < c->n; i++)
                if (c->ev[i].group == last->group && c->ev[i].ts < first &&
                    is_host_track(c, c->ev[i].track)) {
                        first = c->ev[i].ts;
                        track = c->ev[i].track;
                }
        if (track != UINT32_MAX)
                last->e = thread_end(c, track, last->e);
}

/* Whether TF host markers leave out the batch fetch: a loop written
 * `for x in dataset:` with the marker around the step's call takes each
 * batch between two markers, where tf.data's next batch (input work on the
 * markers' thread) runs, so the wait for input, often most of the
 * iteration, lies in no marker's window. True when it runs in half of the
 * gaps or more; the markers then mark boundaries. l is sorted by start. */
static const char fetch_short[] = "the markers leave out the batch fetch: each step runs to "
                                  "the next one's start";

static bool fetch_between(const tpa_actx *c, const marker_list *l, size_t *gaps)
{
        size_t n = 0;

        /* the host threads' input, merged, from the first look: a search
         * per gap, no pass over the events */
        for (size_t k = 0; k + 1 < l->n; k++) {
                const marker *m = &l->v[k], *next = &l->v[k + 1];
                const tpa_ivl_list *inp;
                size_t i;

                if (m->track != next->track || m->track >= c->ntracks || m->e >= next->s)
                        continue;
                inp = &c->inp[m->track];
                i = tpa_ivl__first_after(inp, m->e);
                n += i < inp->n && inp->v[i].s < next->s;
        }
        *gaps = n;
        return n > 0 && 2 * n + 1 >= l->n;
}

/* Into *l (empty), the markers of the first source in [from, to] that
 * found some, naming it; every list of found[] is left empty. Returns r. */
static int use_first(tpa_analysis *a, marker_list *l, marker_list *found, int from, int to,
                     int r)
{
        for (int k = 0; k < SRC__COUNT; k++) {
                if (r == 0 && l->n == 0 && k >= from && k <= to && found[k].n > 0) {
                        a->step_source = source_name[k];
                        *l = found[k];
                } else {
                        free(found[k].v);
                }
                found[k] = (marker_list){ 0 };
        }
        return r;
}

int tpa_analysis__steps_begin(tpa_actx *c, tpa_error *err)
{
        marker_list l = { 0 }, found[SRC__COUNT] = { { 0 } };
        tpa_analysis *a = c->a;
        bool boundaries = false, groups = false, wraps = false;
        int r = corr_ids(c, err);

        if (r == 0 && c->opts->step_marker != NULL) {
                a->step_source = "--step-marker";
                r = from_regex(c, &l, err);
                boundaries = l.n > 0;
                if (r == 0 && l.n == 0) {
                        snprintf(a->step_note, sizeof(a->step_note),
                                 "no event matches --step-marker '%s'", c->opts->step_marker);
                        tpa_utf8__trim(a->step_note);
                }
        }
        if (r == 0 && l.n == 0) {
                /* the first of the first three sources that has markers;
                 * looked for together */
                take_markers(c, 1u << SRC_PROFILER_STEP | 1u << SRC_HOST_STEP |
                             1u << SRC_STEPS_LINE, found);
                r = use_first(a, &l, found, SRC_PROFILER_STEP, SRC_STEPS_LINE, r);
        }
        /* the "train N" markers the RunMetadata reader wrote, or the reader
         * of several TF1 timelines, a step per Session.run: said as what
         * they are */
        if (a->step_source == source_name[SRC_HOST_STEP] &&
            (tpa_trace_format(c->tr) == TPA_FORMAT_STEPSTATS ||
             tpa_trace_format(c->tr) == TPA_FORMAT_STEPSTATS_TEXT ||
             tpa_trace_format(c->tr) == TPA_FORMAT_TFEVENTS))
                a->step_source = "RunMetadata: a step per Session.run";
        else if (a->step_source == source_name[SRC_HOST_STEP] &&
                 tpa_trace_dialect(c->tr) == TPA_DIALECT_TF1)
                a->step_source = "TF1 traces: a step per Session.run";
        if (r == 0 && l.n == 0) {
                take_markers(c, 1u << SRC_STEP_EVENT, found);
                r = use_first(a, &l, found, SRC_STEP_EVENT, SRC_STEP_EVENT, r);
        }
        /* the iterations a known function marks before the TF groups: an
         * XSpace holds no group ids, and the Chrome trace made of it must
         * give the same steps */
        if (r == 0 && l.n == 0 && tpa_trace_dialect(c->tr) != TPA_DIALECT_TF1) {
                r = detect(c, &l, &wraps, err);
                boundaries = l.n > 0;
        }
        if (r == 0 && l.n == 0) {
                a->step_source = "TF group ids";
                r = from_groups(c, &l, err);
                groups = l.n > 0;
        }
        if (r == 0 && l.n > 0)
                dedup(a, &l);
        if (r == 0 && a->step_source == source_name[SRC_HOST_STEP] && !boundaries) {
                size_t gaps;
                if (fetch_between(c, &l, &gaps)) {
                        size_t len = strlen(a->step_note), room = sizeof(a->step_note) - len;
                        boundaries = true;
                        if (len == 0)
                                snprintf(a->step_note, sizeof(a->step_note),
                                         "the step markers leave out the batch fetch (tf.data's "
                                         "next batch runs between them, in %zu of %zu gaps): "
                                         "steps run from one marker's start to the next's",
                                         gaps, l.n - 1);
                        else if ((size_t)snprintf(NULL, 0, "; %s", fetch_short) < room)
                                snprintf(a->step_note + len, room, "; %s", fetch_short);
                }
        }
        if (r == 0 && l.n > 0 && boundaries && !wraps) {
                size_t gaps;
                c->fetch_between = fetch_between(c, &l, &gaps);
        }
        if (r == 0 && l.n > 0 && boundaries)
                to_boundaries(c, &l, wraps);
        if (r == 0 && groups)
                groups_to_boundaries(c, &l);
        /* a user's spans end their last step themselves */
        c->boundaries = l.n > 0 && ((boundaries && !wraps) || groups);
        if (r == 0)             /* no markers: the lost launches still */
                r = extend(c, &l, err);
        if (r == 0 && l.n == 0) {
                tpa_ns s, e;
                marker m = { .track = UINT32_MAX };
                a->step_source = "none: one step for the whole trace";
                a->no_markers = true;
                /* timeline.Timeline renders one RunMetadata: one Session.run,
                 * one step by construction, nothing to warn about */
                if (tpa_trace_dialect(c->tr) == TPA_DIALECT_TF1 && a->step_note[0] == '\0') {
                        a->step_source = "TF1 timeline: one Session.run";
                        a->no_markers = false;
                }
                if (work_span(c, &s, &e) && e > s) {
                        m.s = s;
                        m.e = e;
                        r = push(&l, &m, err);
                } else {
                        a->step_source = "none: no timed events";
                        a->no_markers = false;
                }
        }
        /* the ids' tables, written in the first pass and here: spares
         * for the channels' largest lists, next */
        c->spare[0] = c->ext[0].corr;
        c->spare_size[0] = (c->n ? c->n : 1) * sizeof(*c->ext[0].corr);
        c->spare[1] = c->corr_end;
        c->spare_size[1] = c->corr_n * sizeof(*c->corr_end);
        c->ext[0].corr = NULL;
        c->corr_end = NULL;
        ext_free(c);
        for (int k = 0; k < SRC__COUNT; k++) {  /* the sources not taken */
                free(c->markers[k].v);
                c->markers[k] = (marker_list){ 0 };
        }
        if (r < 0) {
                free(l.v);
                return r;
        }
        c->windows = l;
        return 0;
}

/* Half of the steps from the windows: zero, then the window's figures
 * (speed, bench/: the steps' first touch, a page fault per ten steps,
 * kept one core busy while the other waited). */
static int steps_from_windows(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        const marker_list *l = arg;
        tpa_analysis *a = c->a;
        size_t lo, hi;

        (void)err;
        tpa_analysis__half(l->n, part, &lo, &hi);
        if (hi > lo) {
                tpa_analysis__populate(a->steps + lo, (hi - lo) * sizeof(*a->steps));
                memset(a->steps + lo, 0, (hi - lo) * sizeof(*a->steps));
        }
        for (size_t i = lo; i < hi; i++) {
                tpa_step *st = &a->steps[i];
                st->number = l->v[i].number;
                st->start = l->v[i].s;
                st->end = l->v[i].e;
                st->step_time = st->end - st->start;
                st->slowest_device = -1;
                st->driver_track = UINT32_MAX;
                c->marker_track[i] = l->v[i].host ? l->v[i].track : UINT32_MAX;
        }
        return 0;
}

int tpa_analysis__steps_end(tpa_actx *c, tpa_error *err)
{
        marker_list l = c->windows;
        tpa_analysis *a = c->a;
        size_t w = 0;
        int r;

        c->windows = (marker_list){ 0 };
        if (c->settle != NULL)
                settle_first(&l.v[0], c->settle);
        settle_free(c->settle);
        c->settle = NULL;
        /*
         * Clip so windows never overlap, keeping each step's own device work
         * in its window: a step whose kernels still run when the next marker
         * starts pushes the next window's start back to their end (the time
         * the host spent early on the next step, e.g. loading its batch, is
         * hidden under this step's device work). PyTorch's TensorBoard
         * plugin draws step boundaries the same way. Empty windows go.
         */
        for (size_t i = 0; i < l.n; i++) {
                if (w > 0 && l.v[i].s < l.v[w - 1].e)
                        l.v[i].s = l.v[w - 1].e;
                if (l.v[i].e > l.v[i].s)
                        l.v[w++] = l.v[i];
        }
        l.n = w;
        a->steps = malloc((l.n ? l.n : 1) * sizeof(*a->steps));
        c->marker_track = calloc(l.n ? l.n : 1, sizeof(*c->marker_track));
        if (a->steps == NULL || c->marker_track == NULL) {
                free(l.v);
                return tpa_error_oom(err);
        }
        if (l.n == 0)
                memset(a->steps, 0, sizeof(*a->steps));
        r = tpa_analysis__in_two(c, steps_from_windows, &l, err);
        a->step_count = l.n;
        free(l.v);
        return r;
}

/*
 * What a TF2 step holds when it takes several batches: Keras' train
 * function with steps_per_execution K (or a loop of a user's in a
 * tf.function) takes each batch as an optional, "IteratorGetNextAsOptional"
 * (a plain step takes one "IteratorGetNext"). Where the kept steps take two
 * or more (the median), the note says so, and the time per batch: the
 * step is what the trace marks, K of the batches Keras counts.
 */
void tpa_analysis__batches_note(tpa_actx *c)
{
        static const char *const names[] = {
                "IteratorGetNextAsOptionalOp::DoCompute", "IteratorGetNextAsOptional",
        };
        tpa_analysis *a = c->a;
        tpa_str id[2];
        bool has[2];
        double *per = NULL, k;
        size_t m = 0;
        long hint = -1, s;

        for (int j = 0; j < 2; j++)
                has[j] = tpa_trace_find_str(c->tr, &id[j], names[j], strlen(names[j]));
        if (!(has[0] || has[1]) || a->step_count == 0 || a->step_note[0] != '\0' ||
            (per = calloc(a->step_count, sizeof(*per))) == NULL)
                return;
        for (size_t i = 0; i < c->n; i++)
                if (((has[0] && c->ev[i].name == id[0]) || (has[1] && c->ev[i].name == id[1])) &&
                    (s = tpa_analysis__step_of(a, c->ev[i].ts, &hint)) >= 0)
                        per[s]++;
        for (size_t i = 0; i < a->step_count; i++)
                if (!a->steps[i].excluded)
                        per[m++] = per[i];
        k = tpa_analysis__quantile(per, m, 0.5);
        if (k >= 2) {
                double b = (double)a->step_time_median / k;
                snprintf(a->step_note, sizeof(a->step_note), "each step takes %.0f batches "
                         "(Keras' steps_per_execution, or a loop in the step's tf.function): "
                         "%.*f %s a batch", k, b >= 1e6 ? 2 : 1, b >= 1e6 ? b / 1e6 : b / 1e3,
                         b >= 1e6 ? "ms" : "us");
        }
        free(per);
}
