/* SPDX-License-Identifier: MIT */
/*
 * top_ops.c - the top-op tables of doc/design.md 5.4: each op's total time
 * (where its events cover, one nested in another of its name counted once)
 * and self time (nested ops subtracted, time that lanes share split among
 * them, so that the column sums to at most the table's base), from the
 * events the metrics' pass marked, lane by lane and step by step.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

/* A loop's body made once per caller, with its constants folded in; a
 * cold path kept out of the hot loop that would pay for its registers. */
#ifdef __GNUC__
#define NEST_INLINE inline __attribute__((always_inline))
#define NOINLINE    __attribute__((noinline))
#else
#define NEST_INLINE inline
#define NOINLINE
#endif

/* The name op event i is known by: its framework op when the trace says.
 * `op`: its TPA_AUX_OP extra (0: none); `nstr`: op_names(). */
static inline tpa_str op_name(const tpa_actx *c, uint32_t i, int64_t op, size_t nstr)
{
        return op > 0 && (size_t)op < nstr ? (tpa_str)op : c->ev[i].name;
}

/* op_name()'s `nstr`: the trace's strings, or 0 when it names no
 * framework op at all, and the nesting pass then looks none up (speed,
 * bench/: a look-up per event of the CPU-only table of a TF2 profile). */
static size_t op_names(const tpa_trace *tr)
{
        size_t i = 0;
        int64_t v;

        return tpa_trace_next_aux(tr, TPA_AUX_OP, &i, &v) ? tpa_trace_str_count(tr) : 0;
}

/* Time and count of an op, on the device or exposed on the host: the
 * total, where its events on a lane cover (one nested in another of its
 * name counts once), and the self time, where no other op of the table
 * nested in it runs. `cover_end` is the end of the time its events covered
 * so far on the lane of thread `cover_track` - 1, for the nesting pass. */
typedef struct op_acc {
        tpa_ns   time, self;
        uint64_t count;
        tpa_ns   cover_end;
        uint32_t cover_track;
} op_acc;

/* Per name (a slot per string of the trace), and the names it holds, in
 * the order first met: only those are summed and ranked (speed, bench/:
 * the 1 GB trace has 1.1 M strings and few op names; a scan of each
 * table, 18 MB, faulted in every page of it). */
typedef struct op_table {
        op_acc  *acc;
        tpa_str *seen;          /* room for every string */
        size_t   nseen;
} op_table;

/* The tables, by name: the host's and the device's, per part. */
struct tpa_top_tables {
        op_table t[2][2];
};

static int op_table_new(op_table *t, size_t ns)
{
        t->acc = calloc(ns ? ns : 1, sizeof(*t->acc));
        t->seen = malloc((ns ? ns : 1) * sizeof(*t->seen));
        t->nseen = 0;
        return t->acc != NULL && t->seen != NULL ? 0 : -1;
}

static void op_table_free(op_table *t)
{
        free(t->acc);
        free(t->seen);
}

static inline op_acc *op_slot(op_table *t, tpa_str name)
{
        if (t->acc[name].count == 0)
                t->seen[t->nseen++] = name;
        return &t->acc[name];
}

static inline void op_add(op_table *t, tpa_str name, tpa_ns time, tpa_ns self, uint64_t count)
{
        op_acc *o = op_slot(t, name);

        o->time += time;
        o->self += self;
        o->count += count;
}

/* By self time, then total time, then name: the self column is the one
 * that sums to at most the table's base. */
static int cmp_op(const void *pa, const void *pb)
{
        const tpa_op_stat *x = pa, *y = pb;
        if (x->self != y->self)
                return x->self > y->self ? -1 : 1;
        if (x->time != y->time)
                return x->time > y->time ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* The ops of table t with time, ranked (cmp_op: a total order, so the
 * order met does not matter). */
static int top_ops(tpa_actx *c, const op_table *t, double total, tpa_op_stat **out,
                   size_t *count, size_t *all, tpa_error *err)
{
        size_t n = 0, top = c->opts->top_n > 0 ? (size_t)c->opts->top_n : 5;
        tpa_op_stat *v;

        for (size_t k = 0; k < t->nseen; k++)
                n += t->acc[t->seen[k]].time > 0;
        v = calloc(n ? n : 1, sizeof(*v));
        if (v == NULL)
                return tpa_error_oom(err);
        n = 0;
        for (size_t k = 0; k < t->nseen; k++) {
                const op_acc *o = &t->acc[t->seen[k]];
                if (o->time <= 0)
                        continue;
                v[n].name = tpa_trace_str(c->tr, t->seen[k]);
                v[n].time = o->time;
                v[n].self = o->self;
                v[n].count = o->count;
                v[n].frac = total > 0 ? (double)o->time / total : 0;
                v[n].self_frac = total > 0 ? (double)o->self / total : 0;
                n++;
        }
        qsort(v, n, sizeof(*v), cmp_op);
        *out = v;
        *count = n < top ? n : top;
        if (all != NULL)
                *all = n;
        return 0;
}

/* Where event i starts to count: its start, but for a point-to-point
 * work of gloo, whose span counts from where it blocks its thread (p2p.h),
 * as in the partition. `p2p`: the trace has such works (c->np2p > 0), in a
 * local of the caller's (speed, bench/: read from c in the loops, where
 * stores may alias it, every event paid for the look). */
static inline tpa_ns op_start(const tpa_actx *c, size_t i, bool p2p)
{
        const tpa_event *e = &c->ev[i];

        return p2p && e->kind == TPA_KIND_COLLECTIVE ? tpa_p2p__from(c->p2p, c->np2p, i, e->ts)
                                                     : e->ts;
}

/* Start, then the longer first (a parent before what nests in it), then
 * name: the order of a lane's events, total up to equal ones. */
static inline bool op_before(const tpa_actx *c, uint32_t i, uint32_t j, bool p2p)
{
        const tpa_event *x = &c->ev[i], *y = &c->ev[j];
        tpa_ns xs = op_start(c, i, p2p), ys = op_start(c, j, p2p);

        if (xs != ys)
                return xs < ys;
        if (x->ts + x->dur - xs != y->ts + y->dur - ys)
                return x->ts + x->dur - xs > y->ts + y->dur - ys;
        return x->name < y->name;
}

/* The events of thread tk that half h of the marks holds. */
static size_t marked(const tpa_top_lanes *L, size_t tk, int h)
{
        return L->count[0][2 * tk + (size_t)h] + L->count[1][2 * tk + (size_t)h];
}

/* The lanes from the marks, each sorted (op_before()) as its events come,
 * in event order: read order is about time order, and an event out of
 * place moves back past the lane's few events before it, still in the
 * cache. Each half of the marks fills its own part of every lane, on a
 * part of its own (lanes_fill()), and lanes_end() joins the two parts.
 * Past a budget of moves (events far out of order), the rest is only
 * appended and L->sorted is false. Here: the lanes' places. */
static int lanes_begin(tpa_top_lanes *L, const tpa_actx *c, tpa_error *err)
{
        size_t m = 0, *lane = calloc(c->ntracks + 1, sizeof(*lane));
        uint32_t *idx;

        if (lane == NULL)
                return tpa_error_oom(err);
        if (c->n > UINT32_MAX) {
                free(lane);
                return tpa_error_setf(err, TPA_ELIMIT, "%zu events, more than the top ops "
                                      "take (%lu)", c->n, (unsigned long)UINT32_MAX);
        }
        L->lane = lane;
        L->nlane = 0;
        for (size_t tk = 0; tk < c->ntracks; tk++) {
                size_t k = marked(L, tk, 0) + marked(L, tk, 1);
                lane[tk] = L->nlane;
                L->nlane += k > 0;
                m += k;
        }
        /* L->idx: NULL, or the block of the table before (tpa_top__tables()) */
        if ((idx = realloc(L->idx, (m ? m : 1) * sizeof(*idx))) != NULL)
                L->idx = idx;
        L->at = calloc(L->nlane + 1, sizeof(*L->at));
        L->pos[0] = malloc((L->nlane + 1) * sizeof(*L->pos[0]));
        L->pos[1] = malloc((L->nlane + 1) * sizeof(*L->pos[1]));
        L->mid = malloc((L->nlane + 1) * sizeof(*L->mid));
        if (idx == NULL || L->at == NULL || L->pos[0] == NULL || L->pos[1] == NULL ||
            L->mid == NULL)
                return tpa_error_oom(err);
        for (size_t tk = 0; tk < c->ntracks; tk++)
                if (marked(L, tk, 0) + marked(L, tk, 1) > 0) {
                        L->at[lane[tk] + 1] = marked(L, tk, 0) + marked(L, tk, 1);
                        L->mid[lane[tk]] = marked(L, tk, 0);
                }
        for (size_t l = 0; l < L->nlane; l++) {
                L->at[l + 1] += L->at[l];
                L->mid[l] += L->at[l];
                L->pos[0][l] = L->at[l];
                L->pos[1][l] = L->mid[l];
        }
        return 0;
}

/* Event i, of lane l, starting at s, into slot j of L or before it, in
 * the slots of half h of the marks, past the events it goes before;
 * *budget: the moves left. Out of line: few events come here. */
static NOINLINE void lane_move(tpa_top_lanes *L, const tpa_actx *c, int h, uint32_t i,
                               size_t l, size_t j, tpa_ns s, tpa_ns *tail, size_t *budget,
                               bool p2p)
{
        size_t last = j, first = h == 0 ? L->at[l] : L->mid[l];

        for (; j > first && *budget > 0 && op_before(c, i, L->idx[j - 1], p2p);
             j--, (*budget)--)
                L->idx[j] = L->idx[j - 1];
        L->idx[j] = i;
        if (j == last)
                tail[l] = s;
}

/* Event i into its lane of L, in the slots of half h of the marks;
 * tail[l]: the start of the lane's last event there (INT64_MIN: none yet),
 * *budget: the moves left. An event that starts after it goes last, with
 * no look at the event before (speed, bench/: most do). */
static inline void lane_put(tpa_top_lanes *L, const tpa_actx *c, int h, uint32_t i,
                            tpa_ns *tail, size_t *budget, bool p2p)
{
        size_t l = L->lane[c->ev[i].track], j = L->pos[h][l]++;
        tpa_ns s = op_start(c, i, p2p);

        tpa_analysis__ahead(c, i);
        if (s > tail[l]) {
                tail[l] = s;
                L->idx[j] = i;
        } else {
                lane_move(L, c, h, i, l, j, s, tail, budget, p2p);
        }
}

/* The table in hand of the passes below: 0 the host's, 1 the device's.
 * The tables are made one after the other, each freeing its lanes before
 * the next fills its own (memory, bench/: both tables' lanes at once were
 * the analysis' peak). */
struct top_job {
        tpa_top *t;
        int      k;
};

static tpa_top_lanes *job_lanes(const struct top_job *j)
{
        return j->k == 0 ? &j->t->host : &j->t->dev;
}

/* Half `part` of the marks of the table in hand into its lanes. */
static int lanes_fill(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        const struct top_job *j = arg;
        tpa_top_lanes *L = job_lanes(j);
        size_t words = c->n / 64 + 1, half = L->half / 64;
        size_t lo = part == 0 ? 0 : half, hi = part == 0 ? half : words;
        size_t budget = L->at[L->nlane] + 64;
        tpa_ns *tail = malloc((L->nlane + 1) * sizeof(*tail));
        bool p2p = c->np2p > 0;

        if (tail == NULL)
                return tpa_error_oom(err);
        for (size_t l = 0; l < L->nlane; l++)
                tail[l] = INT64_MIN;
        for (size_t w = lo; w < hi; w++) {
                uint32_t i0 = (uint32_t)(w * 64);
                for (uint64_t bits = L->mark[w]; bits != 0; bits &= bits - 1)
                        lane_put(L, c, part, i0 + (uint32_t)__builtin_ctzll(bits), tail,
                                 &budget, p2p);
        }
        j->t->spent[j->k][part] = budget == 0;
        free(tail);
        return 0;
}

/* Join the two halves' parts of each lane: the second's first events
 * that go before the first's last move back among them, as they would
 * have in one pass. The marks go. */
static void lanes_end(tpa_top_lanes *L, const tpa_actx *c)
{
        size_t budget = (L->nlane ? L->at[L->nlane] : 0) + 64;
        bool p2p = c->np2p > 0;

        for (size_t l = 0; l < L->nlane && L->sorted; l++) {
                size_t m = L->mid[l];
                uint32_t last;

                if (m == L->at[l] || m == L->at[l + 1])
                        continue;
                last = L->idx[m - 1];
                /* the second part is sorted: past its first event that is
                 * not before the first part's last, all are in place */
                for (size_t k = m; k < L->at[l + 1] && op_before(c, L->idx[k], last, p2p);
                     k++) {
                        uint32_t i = L->idx[k];
                        size_t j = k;
                        for (; j > L->at[l] && budget > 0 &&
                               op_before(c, i, L->idx[j - 1], p2p);
                             j--, budget--)
                                L->idx[j] = L->idx[j - 1];
                        L->idx[j] = i;
                }
                if (budget == 0)
                        L->sorted = false;
        }
        free(L->pos[0]);
        free(L->pos[1]);
        free(L->mid);
        free(L->lane);
        free(L->mark);
        free(L->count[0]);
        free(L->count[1]);
        L->pos[0] = L->pos[1] = L->mid = L->lane = NULL;
        L->mark = NULL;
        L->count[0] = L->count[1] = NULL;
}

/* Sort a lane's events: bottom-up merge sort through tmp (room for n). */
static void sort_lane(const tpa_actx *c, uint32_t *v, size_t n, uint32_t *tmp, bool p2p)
{
        for (size_t w = 1; w < n; w *= 2) {     /* runs of w, then 2w */
                for (size_t lo = 0; lo < n; lo += 2 * w) {
                        size_t m = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
                        size_t i = lo, j = m, o = lo;
                        while (i < m || j < hi)
                                tmp[o++] = j == hi || (i < m && !op_before(c, v[j], v[i], p2p))
                                           ? v[i++] : v[j++];
                }
                memcpy(v, tmp, n * sizeof(*v));
        }
}

/* Sort the lanes of a part's half of the events (lanes whole), unless
 * lanes_build() did. */
static int sort_lanes(const tpa_actx *c, const tpa_top_lanes *L, int part, tpa_error *err)
{
        size_t m = L->nlane ? L->at[L->nlane] : 0, l0 = 0, l1, most = 0;
        uint32_t *tmp;

        if (L->sorted)
                return 0;
        while (l0 < L->nlane && L->at[l0 + 1] <= m / 2)
                l0++;
        l1 = part == 0 ? l0 : L->nlane;
        l0 = part == 0 ? 0 : l0;
        for (size_t l = l0; l < l1; l++)
                if (L->at[l + 1] - L->at[l] > most)
                        most = L->at[l + 1] - L->at[l];
        if ((tmp = malloc((most ? most : 1) * sizeof(*tmp))) == NULL)
                return tpa_error_oom(err);
        for (size_t l = l0; l < l1; l++)
                sort_lane(c, L->idx + L->at[l], L->at[l + 1] - L->at[l], tmp, c->np2p > 0);
        free(tmp);
        return 0;
}

/* How many events ahead a walk of a lane asks for the one it will read. */
#define PREFETCH 64

/* The host table counts of an op's time only what the device union
 * leaves exposed. Its nesting pass works in exposed time: time t of the
 * step in hand maps to x(t), t less the device's time from the step's
 * start to t, and what the table counts of [s, e) is x(e) - x(s). Each
 * start and end is mapped once, as lane_spans() reads it, and the loops
 * that nest the events and share their time only subtract (speed,
 * bench/: the covered time at each start and end, carried beside it
 * through the nesting and the zones, made the nesting loop twice as
 * long). x(start) = start, x(t) <= t, and x never falls: times keep
 * their order, an op's cover end from a step before stays at most the
 * step's start, and a span the device covers all of shrinks to a point,
 * of which the table counts nothing anyway. The device table's x(t) is t.
 *
 * Where k >= 2 lanes of a group (the host threads; a device's streams)
 * run ops at once, [s, e) (in x: found in real time, where the lanes
 * meet, then mapped): each has 1/k of that time in the self column. `cut`
 * is what the zones of the step before it take off. */
typedef struct share_zone {
        tpa_ns  s, e;
        int64_t k;
        tpa_ns  cut;
} share_zone;

/* An op event open on its lane, in the nesting pass; e: its end, in x. */
typedef struct nest_open {
        tpa_ns  e, self;
        tpa_str name;
} nest_open;

/* A part's nesting pass over a table's lanes, a step at a time. */
struct nest {
        const tpa_actx      *c;
        const tpa_top_lanes *L;
        op_table            *t;
        const tpa_step      *step;      /* in hand */
        tpa_ivl             *span;      /* the step's events' starts and ends (op_start(),
                                           clipped to the step), lane by lane */
        tpa_ivl             *xspan;     /* the host table's: span's in x */
        size_t               nspan, spancap;
        share_zone          *zone;      /* of the group in hand, in the step, in x */
        size_t               nzone, zcap;
        const tpa_ivl_list  *dev;       /* the host table's: the device union; else NULL */
        const tpa_ivl       *dv;        /* dev's intervals from the first that ends after
                                           the step's start to the first that ends after
                                           its end, or one that ends never (in dvbuf) */
        size_t               ndv;
        tpa_ivl             *dvbuf;
        size_t               dvcap;
        tpa_ns              *cov;       /* cov[k]: the device's time from the step's start
                                           to dv[k]'s start (< 0 before the start); then
                                           x(t) = min(t, dv[k].s) - cov[k], dv[k] the first
                                           that ends after t */
        size_t               covcap;
        size_t               near;      /* the hint into dev of the step's start */
        nest_open           *stack;
        size_t               cap;
        tpa_ns              *buf;       /* the zones' scratch: 4 arrays of a step's events */
        size_t               bufcap;
        int64_t             *ops;       /* the device table's: the step's events' framework
                                           ops, as n->span holds them (op_name()) */
        size_t               opcap;
        size_t               nstr;      /* op_names(), for op_name() */
};

/* Room for `need` elements of `elem` bytes in *v, of *cap: grown to twice
 * the need when short of it. */
static int reserve(void **v, size_t *cap, size_t need, size_t elem, tpa_error *err)
{
        void *p;

        if (need <= *cap)
                return 0;
        if ((p = realloc(*v, 2 * need * elem)) == NULL)
                return tpa_error_oom(err);
        *v = p;
        *cap = 2 * need;
        return 0;
}

/* A time to search intervals for, and tpa_analysis__gallop()'s test. */
struct dev_query {
        const tpa_ivl *v;
        tpa_ns         t;
};

static bool dev_ends_by(const void *ctx, size_t i)
{
        const struct dev_query *q = ctx;
        return q->v[i].e <= q->t;
}

/* The first of the merged intervals v[0..n) from k on that ends after t,
 * when none before k does: mostly k itself or one of the next few. */
static inline size_t dev_after(const tpa_ivl *v, size_t n, size_t k, tpa_ns t)
{
        struct dev_query q = { v, t };

        for (size_t end = k + 4 < n ? k + 4 : n; k < end; k++)
                if (v[k].e > t)
                        return k;
        return tpa_analysis__gallop(n, k, dev_ends_by, &q);
}

/* x(t) (struct nest) of a time t of the step in hand, on the host table,
 * dv[k] the first interval that ends after t. */
static inline tpa_ns x_of(const tpa_ivl *dv, const tpa_ns *cov, size_t k, tpa_ns t)
{
        return (t < dv[k].s ? t : dv[k].s) - cov[k];
}

/* What zone z takes off [s, e), in x. */
static inline tpa_ns zone_cut(const share_zone *z, tpa_ns s, tpa_ns e)
{
        tpa_ns a = s > z->s ? s : z->s, b = e < z->e ? e : z->e;

        if (b <= a)
                return 0;
        return (b - a) - (b - a) / z->k;
}

/* A time to search the zones for, and tpa_analysis__gallop()'s tests. */
struct zone_query {
        const share_zone *z;
        tpa_ns            t;
};

static bool zone_ends_by(const void *ctx, size_t i)
{
        const struct zone_query *q = ctx;
        return q->z[i].e <= q->t;
}

static bool zone_starts_before(const void *ctx, size_t i)
{
        const struct zone_query *q = ctx;
        return q->z[i].s < q->t;
}

/* What the table counts of [s, e) (in x) in the self column, among the
 * zones z[0..nz), z[zf] the first that ends after the start of the event
 * in hand (s is at least that): each zone's time over its k lanes,
 * rounded down, so that a parent's is at least the sum of its children's.
 * Zones wholly inside come from the running sum of their cuts. Mostly
 * z[zf] is the first and the last zone to meet [s, e), and nothing is
 * searched. */
static tpa_ns op_share(const share_zone *z, size_t nz, size_t zf, tpa_ns s, tpa_ns e)
{
        tpa_ns share = e - s;
        size_t z0 = zf, z1;

        if (z0 == nz || z[z0].s >= e)
                return share;
        if (z[z0].e <= s) {
                struct zone_query q = { z, s };
                z0 = tpa_analysis__gallop(nz, z0, zone_ends_by, &q);
                if (z0 == nz || z[z0].s >= e)
                        return share;
        }
        /* after the last: mostly one of the next few, looked at in turn
         * (speed, bench/: the gallop's steps cost more) */
        for (z1 = z0 + 1; z1 < nz && z1 < z0 + 8 && z[z1].s < e; z1++)
                ;
        if (z1 == z0 + 8 && z1 < nz && z[z1].s < e) {
                struct zone_query q = { z, e };
                z1 = tpa_analysis__gallop(nz, z1, zone_starts_before, &q);
        }
        share -= zone_cut(&z[z0], s, e);
        if (z1 - 1 > z0)
                share -= z[z1 - 1].cut - z[z0 + 1].cut + zone_cut(&z[z1 - 1], s, e);
        return share;
}

/* op_share(), whose time [s, e) lies mostly in no zone or inside z[zf],
 * where zone_cut() leaves 1/k of it: that without a call. */
static inline tpa_ns share_of(const share_zone *z, size_t nz, size_t zf, tpa_ns s, tpa_ns e)
{
        if (zf == nz || z[zf].s >= e)
                return e - s;
        if (z[zf].s <= s && z[zf].e >= e)
                return (e - s) / z[zf].k;
        return op_share(z, nz, zf, s, e);
}

/* The events idx[lo..hi) of one lane in the step in hand into the table,
 * sp[0..hi - lo) their spans, in x. Each event is the child of the events
 * open at its start on the lane, the latest started first: its time is
 * theirs no longer, each up to its end (an event that overlaps its
 * parent's end without nesting goes on to the parent's parent). In an
 * op's total, time already covered by another event of its name on the
 * lane is not counted again. `ops`: their framework ops (NULL: none, or
 * the host table); `host`: the host table's lanes (a constant in each
 * caller). */
static NEST_INLINE int nest_lane(struct nest *n, const tpa_ivl *sp, const int64_t *ops,
                                 size_t lo, size_t hi, const bool host, tpa_error *err)
{
        const tpa_actx *c = n->c;
        const uint32_t *idx = n->L->idx;
        const share_zone *z = n->zone;
        size_t nz = n->nzone, zf = 0, depth = 0;
        uint32_t lane = (uint32_t)c->ev[idx[lo]].track + 1;    /* as op_acc keeps it */
        op_acc *acc = n->t->acc;
        nest_open *stack;

        if (reserve((void **)&n->stack, &n->cap, hi - lo, sizeof(*n->stack), err) < 0)
                return TPA_ENOMEM;
        stack = n->stack;
        for (size_t r = lo; r < hi; r++, sp++) {
                uint32_t i = idx[r];
                tpa_str name = host || ops == NULL ? c->ev[i].name
                                                   : op_name(c, i, ops[r - lo], n->nstr);
                tpa_ns s = sp->s, e = sp->e, at = s, from, share;
                op_acc *o;

                while (depth > 0 && stack[depth - 1].e <= s) {
                        depth--;
                        acc[stack[depth].name].self += stack[depth].self;
                }
                while (zf < nz && z[zf].e <= s)
                        zf++;
                share = share_of(z, nz, zf, s, e);
                if (depth > 0 && stack[depth - 1].e >= e) {
                        /* nested in the last one open, mostly: all of it */
                        stack[depth - 1].self -= share;
                        at = e;
                }
                for (size_t j = depth; j-- > 0 && at < e;) {
                        nest_open *p = &stack[j];
                        tpa_ns to = p->e < e ? p->e : e;
                        if (p->e <= at)
                                continue;       /* ended, under one still open */
                        p->self -= at == s && to == e ? share : share_of(z, nz, zf, at, to);
                        at = to;
                }
                o = op_slot(n->t, name);
                from = o->cover_track == lane && o->cover_end > s ? o->cover_end : s;
                if (from < e)
                        o->time += e - from;
                if (o->cover_track != lane || o->cover_end < e) {
                        o->cover_track = lane;
                        o->cover_end = e;
                }
                o->count++;
                stack[depth++] = (nest_open){ e, share, name };
        }
        while (depth > 0) {
                depth--;
                acc[stack[depth].name].self += stack[depth].self;
        }
        return 0;
}

/* nest_lane() of the host table, and of the device's: each its own
 * loop, with its own registers (speed, bench/: one loop for both kept
 * most of its state on the stack). */
static NOINLINE int nest_host_lane(struct nest *n, const tpa_ivl *sp, const int64_t *ops,
                                   size_t lo, size_t hi, tpa_error *err)
{
        return nest_lane(n, sp, ops, lo, hi, true, err);
}

static NOINLINE int nest_device_lane(struct nest *n, const tpa_ivl *sp, const int64_t *ops,
                                     size_t lo, size_t hi, tpa_error *err)
{
        return nest_lane(n, sp, ops, lo, hi, false, err);
}

/* As nest_lane(), for a lane whose events in the step are apart (a
 * device's kernels on a stream), where no other lane shares its time:
 * each event's time is its self time and its total. */
static void flat_lane(struct nest *n, const tpa_ivl *sp, const int64_t *ops, size_t lo,
                      size_t hi)
{
        const tpa_actx *c = n->c;
        const uint32_t *idx = n->L->idx;
        op_table *t = n->t;
        size_t nstr = n->nstr;

        for (size_t r = lo; r < hi; r++, sp++) {
                uint32_t i = idx[r];
                tpa_str name = ops == NULL ? c->ev[i].name : op_name(c, i, ops[r - lo], nstr);
                tpa_ns value = sp->e - sp->s;
                op_acc *o = op_slot(t, name);

                o->time += value;
                o->self += value;
                o->count++;
        }
}

/* The group of lane l: its device's index for a stream, else 0 (the host
 * threads; a CPU-only trace's, its pseudo-device). */
static size_t lane_group(const struct nest *n, size_t l)
{
        int32_t t;

        if (n->L->host)
                return 0;
        t = n->c->track_cls[n->c->ev[n->L->idx[n->L->at[l]]].track];
        return t < 0 ? 0 : (size_t)t;
}

/* The sorted runs v[at[i]..at[i + 1]) for i < nrun, merged in pairs round
 * by round through tmp (room for at[nrun]); returns the sorted array, v or
 * tmp. at[] is overwritten. */
static tpa_ns *merge_runs(tpa_ns *v, tpa_ns *tmp, size_t *at, size_t nrun)
{
        while (nrun > 1) {
                size_t w = 0;
                tpa_ns *x;
                for (size_t k = 0; k < nrun; k += 2) {
                        size_t i = at[k], m = at[k + 1], end = k + 1 < nrun ? at[k + 2] : m;
                        size_t j = m, o = i;
                        while (i < m || j < end)
                                tmp[o++] = j == end || (i < m && v[i] <= v[j]) ? v[i++] : v[j++];
                        at[w++] = at[k];
                }
                at[w] = at[nrun];
                nrun = w;
                x = v;
                v = tmp;
                tmp = x;
        }
        return v;
}

/* Up to this many times (the unions' starts or ends of a step's lanes, a
 * few, mostly) are sorted by insertion: merge_runs()' rounds cost more. */
#define SMALL_SORT 16

/* Sort v[0..n) by insertion. */
static void sort_small(tpa_ns *v, size_t n)
{
        for (size_t i = 1; i < n; i++) {
                tpa_ns x = v[i];
                size_t j = i;
                for (; j > 0 && v[j - 1] > x; j--)
                        v[j] = v[j - 1];
                v[j] = x;
        }
}

/* True when no two of the lanes lane[0..nl) are busy at once in the step
 * in hand, by the spans of their events there, [first[l], last[l]). */
static bool spans_apart(const size_t *lane, size_t nl, const tpa_ns *first, const tpa_ns *last)
{
        for (size_t p = 0; p < nl; p++)
                for (size_t q = p + 1; q < nl; q++)
                        if (first[lane[p]] < last[lane[q]] && first[lane[q]] < last[lane[p]])
                                return false;
        return true;
}

/* The zones of the step in hand from its lanes lane[0..nl), of one group,
 * whose events there are idx[cur[l]..end[l]), with spans from
 * n->span[off[l]], within [first[l], last[l]): each lane's union, then the
 * times when k >= 2 lanes are busy (none when the spans are apart: a
 * device's copies before and after its kernels). `runs`: room for
 * 2 (nl + 1). */
static int step_zones(struct nest *n, const size_t *lane, size_t nl, const size_t *cur,
                      const size_t *end, const size_t *off, const tpa_ns *first,
                      const tpa_ns *last, size_t *runs, tpa_error *err)
{
        size_t nev = 0, nu = 0, k = 0, i = 0, j = 0, nz = 0, hint = 0;
        tpa_ns *st, *en, prev = 0, cut = 0;

        n->nzone = 0;
        if (nl < 2 || spans_apart(lane, nl, first, last))
                return 0;
        for (size_t q = 0; q < nl; q++)
                nev += end[lane[q]] - cur[lane[q]];
        if (reserve((void **)&n->buf, &n->bufcap, 4 * nev, sizeof(*n->buf), err) < 0)
                return TPA_ENOMEM;
        st = n->buf;
        en = n->buf + nev;
        for (size_t q = 0; q < nl; q++) {
                const tpa_ivl *sp = n->span + off[lane[q]];
                size_t m = end[lane[q]] - cur[lane[q]];
                tpa_ns last_end = sp[0].e;
                runs[q] = nu;
                st[nu] = sp[0].s;
                for (size_t r = 1; r < m; r++) {
                        if (sp[r].s > last_end) {
                                en[nu++] = last_end;
                                st[nu] = sp[r].s;
                        }
                        last_end = sp[r].e > last_end ? sp[r].e : last_end;
                }
                en[nu++] = last_end;
        }
        runs[nl] = nu;
        if (nu <= SMALL_SORT) {
                sort_small(st, nu);
                sort_small(en, nu);
        } else {
                memcpy(runs + nl + 1, runs, (nl + 1) * sizeof(*runs));
                st = merge_runs(st, n->buf + 2 * nev, runs, nl);
                en = merge_runs(en, n->buf + 3 * nev, runs + nl + 1, nl);
        }
        if (reserve((void **)&n->zone, &n->zcap, 2 * nu + 1, sizeof(*n->zone), err) < 0)
                return TPA_ENOMEM;
        /* the number of lanes busy from one start or end to the next (an
         * end before a start at the same time: intervals are half-open) */
        while (i < nu || j < nu) {
                tpa_ns t = i < nu && st[i] < en[j] ? st[i] : en[j];
                if (k >= 2 && t > prev) {
                        if (nz > 0 && n->zone[nz - 1].e == prev && n->zone[nz - 1].k == (int64_t)k)
                                n->zone[nz - 1].e = t;
                        else
                                n->zone[nz++] = (share_zone){ prev, t, (int64_t)k, 0 };
                }
                if (i < nu && st[i] < en[j]) {
                        i++;
                        k++;
                } else {
                        j++;
                        k--;
                }
                prev = t;
        }
        n->nzone = nz;
        if (nz > 0 && n->dev != NULL)
                hint = dev_after(n->dv, n->ndv, 0, n->zone[0].s);
        for (size_t q = 0; q < nz; q++) {
                share_zone *zn = &n->zone[q];
                tpa_ns part;
                if (n->dev != NULL) {
                        hint = dev_after(n->dv, n->ndv, hint, zn->s);
                        zn->s = x_of(n->dv, n->cov, hint, zn->s);
                        hint = dev_after(n->dv, n->ndv, hint, zn->e);
                        zn->e = x_of(n->dv, n->cov, hint, zn->e);
                }
                part = zn->e - zn->s;
                zn->cut = cut;
                cut += part - part / zn->k;
        }
        return 0;
}

/* The first event of lane l from time t on. */
static size_t lane_from(const struct nest *n, size_t l, tpa_ns t)
{
        size_t lo = n->L->at[l], hi = n->L->at[l + 1];
        bool p2p = n->c->np2p > 0;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (op_start(n->c, n->L->idx[mid], p2p) < t)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* n->dv and n->cov for the step in hand, on the host table: the device
 * union's intervals from the first that ends after the step's start to
 * the first that ends after its end (an interval at the end of time when
 * none does: a copy, at the trace's end), where every time of the step
 * finds the first interval that ends after it. */
static int cov_step(struct nest *n, tpa_error *err)
{
        const tpa_ivl_list *l = n->dev;
        tpa_ns start = n->step->start;
        size_t k0 = tpa_ivl__first_after_near(l, start, &n->near), m;
        tpa_ns sum = k0 < l->n && l->v[k0].s < start ? l->v[k0].s - start : 0;

        m = k0 + (k0 < l->n ? dev_after(l->v + k0, l->n - k0, 0, n->step->end) : 0);
        n->ndv = m - k0 + 1;
        if (reserve((void **)&n->cov, &n->covcap, n->ndv, sizeof(*n->cov), err) < 0)
                return TPA_ENOMEM;
        if (m < l->n) {
                n->dv = l->v + k0;
        } else {
                if (reserve((void **)&n->dvbuf, &n->dvcap, n->ndv, sizeof(*n->dvbuf), err) < 0)
                        return TPA_ENOMEM;
                if (m > k0)     /* l->v: NULL when the union is empty */
                        memcpy(n->dvbuf, l->v + k0, (m - k0) * sizeof(*n->dvbuf));
                n->dvbuf[m - k0] = (tpa_ivl){ INT64_MAX, INT64_MAX };
                n->dv = n->dvbuf;
        }
        for (size_t k = 0; k < m - k0; k++) {
                n->cov[k] = sum;
                sum += n->dv[k].e - n->dv[k].s;
        }
        n->cov[m - k0] = sum;
        return 0;
}

/* Room in n->span (and n->xspan, on the host table) for `need` spans. */
static int spans_reserve(struct nest *n, size_t need, tpa_error *err)
{
        size_t cap = n->spancap;
        void *p;

        if (reserve((void **)&n->span, &n->spancap, need, sizeof(*n->span), err) < 0)
                return TPA_ENOMEM;
        if (n->dev == NULL || n->spancap == cap)
                return 0;
        if ((p = realloc(n->xspan, n->spancap * sizeof(*n->xspan))) == NULL)
                return tpa_error_oom(err);
        n->xspan = p;
        return 0;
}

/* Lane l's events in the step in hand, from idx[cur] on, into n->span,
 * and in x into n->xspan on the host table (`host`, a constant in each
 * caller); returns the first past them. Their span is [*first, *last);
 * *apart: none starts before the last one ends. */
static NEST_INLINE size_t lane_spans(struct nest *n, size_t l, size_t cur, tpa_ns *first,
                                     tpa_ns *last, bool *apart, const bool host,
                                     tpa_error *err)
{
        const tpa_actx *c = n->c;
        const uint32_t *idx = n->L->idx;
        const tpa_ivl *dv = n->dv;
        const tpa_ns *cov = n->cov;
        size_t r = cur, hi = n->L->at[l + 1], o = n->nspan, k = 0;
        tpa_ns step_end = n->step->end, lst = op_start(c, idx[cur], c->np2p > 0);
        bool p2p = c->np2p > 0, ap = true;

        *first = lst;
        if (host)
                k = dev_after(dv, n->ndv, 0, lst);
        /* as many events as n->span has room for, then more room */
        for (;;) {
                size_t stop = hi - r < n->spancap - o ? hi : r + (n->spancap - o);
                tpa_ivl *sp = n->span + o, *xp = host ? n->xspan + o : NULL;
                for (; r < stop; r++, sp++) {
                        uint32_t i = idx[r];
                        const tpa_event *ev = &c->ev[i];
                        tpa_ns s = op_start(c, i, p2p), e = ev->ts + ev->dur;
                        /* the first read of a lane's events, which lie apart in
                         * the trace: asked for ahead, not a wait for memory each */
                        if (r + PREFETCH < hi)
                                __builtin_prefetch(&c->ev[idx[r + PREFETCH]]);
                        if (s >= step_end)
                                break;
                        e = e < step_end ? e : step_end;
                        ap &= s >= lst;
                        lst = e > lst ? e : lst;
                        *sp = (tpa_ivl){ s, e };
                        if (host) {
                                /* the starts come in order; e is at least s */
                                size_t ke;
                                while (dv[k].e <= s)
                                        k++;
                                ke = dv[k].e > e ? k : dev_after(dv, n->ndv, k + 1, e);
                                *xp++ = (tpa_ivl){ x_of(dv, cov, k, s), x_of(dv, cov, ke, e) };
                        }
                }
                o = (size_t)(sp - n->span);
                if (r < stop || r == hi)
                        break;
                if (spans_reserve(n, o + 1, err) < 0)
                        return SIZE_MAX;
        }
        n->nspan = o;
        *last = lst;
        *apart = ap;
        return r;
}

/* The nesting pass of a part: its half of the steps, in order, into table
 * t. No event nests across steps (each is clipped to its own), so a step
 * takes the lanes with events in it, a list per step kept as their next
 * events come (not every lane at every step: a trace may have many threads
 * and many steps). */
static int nest_steps(const tpa_actx *c, const tpa_top_lanes *L, op_table *t, int part,
                      tpa_error *err)
{
        const tpa_analysis *a = c->a;
        struct nest n = { .c = c, .L = L, .t = t, .nstr = op_names(c->tr) };
        size_t lo, hi, nl = L->nlane, ng = L->host ? 1 : c->ndev;
        size_t *cur = malloc((nl + 1) * sizeof(*cur)), *end = malloc((nl + 1) * sizeof(*end));
        size_t *next = malloc((nl + 1) * sizeof(*next)), *cursor = calloc(nl + 1, sizeof(*cursor));
        size_t *act = malloc((nl + 1) * sizeof(*act)), *grp = malloc((nl + 1) * sizeof(*grp));
        size_t *runs = malloc((2 * nl + 2) * sizeof(*runs)), *head;
        size_t *off = malloc((nl + 1) * sizeof(*off));
        tpa_ns *first = malloc((nl + 1) * sizeof(*first)), *last = malloc((nl + 1) * sizeof(*last));
        bool *apart = malloc((nl + 1) * sizeof(*apart));
        bool p2p = c->np2p > 0;
        int r = 0;

        tpa_analysis__half(a->step_count, part, &lo, &hi);
        head = malloc((hi - lo + 1) * sizeof(*head));
        if (cur == NULL || end == NULL || next == NULL || cursor == NULL || act == NULL ||
            grp == NULL || runs == NULL || head == NULL || off == NULL || first == NULL ||
            last == NULL || apart == NULL) {
                r = tpa_error_oom(err);
                goto out;
        }
        n.dev = L->host ? &c->dev_all : NULL;
        /* room from the start: lane_spans() adds to n.span, never NULL */
        if ((r = spans_reserve(&n, 64, err)) < 0)
                goto out;
        for (size_t k = lo; k < hi; k++)
                head[k - lo] = SIZE_MAX;
        /* each lane into the list of the step of its next event */
        for (size_t l = 0; l < nl && lo < hi; l++) {
                long k;
                cur[l] = lane_from(&n, l, a->steps[lo].start);
                if (cur[l] < L->at[l + 1] &&
                    (k = tpa_analysis__step_of(a, op_start(c, L->idx[cur[l]], p2p), NULL)) >= 0 &&
                    (size_t)k < hi) {
                        next[l] = head[(size_t)k - lo];
                        head[(size_t)k - lo] = l;
                }
        }
        for (size_t k = lo; k < hi && r == 0; k++) {
                size_t na = 0;
                /* a lane's next event starts at or after the step's end:
                 * mostly in the next step (speed, bench/: this step, as
                 * the hint, left a search of the steps per step) */
                long hint = (long)k + 1;
                n.step = &a->steps[k];
                n.nspan = 0;
                if (n.dev != NULL && (r = cov_step(&n, err)) < 0)
                        break;
                /* each lane's events in the step, their span, and whether
                 * they are apart */
                for (size_t l = head[k - lo]; l != SIZE_MAX && r == 0; l = next[l]) {
                        act[na++] = l;
                        off[l] = n.nspan;
                        end[l] = L->host ? lane_spans(&n, l, cur[l], &first[l], &last[l],
                                                      &apart[l], true, err)
                                         : lane_spans(&n, l, cur[l], &first[l], &last[l],
                                                      &apart[l], false, err);
                        if (end[l] == SIZE_MAX)
                                r = TPA_ENOMEM;
                }
                /* the device table's framework ops, a lane's run at a time
                 * (speed, bench/: a call per event read the extras' index
                 * anew each time) */
                if (r == 0 && !L->host && n.nstr > 0 &&
                    (r = reserve((void **)&n.ops, &n.opcap, n.nspan, sizeof(*n.ops), err)) == 0)
                        for (size_t q = 0; q < na; q++)
                                tpa_trace_get_aux_run(c->tr, L->idx + cur[act[q]],
                                                      end[act[q]] - cur[act[q]], TPA_AUX_OP,
                                                      &cursor[act[q]], 0, n.ops + off[act[q]]);
                for (size_t g = 0; g < ng && r == 0; g++) {
                        size_t ngl = 0;
                        for (size_t q = 0; q < na; q++)
                                if (lane_group(&n, act[q]) == g)
                                        grp[ngl++] = act[q];
                        if (ngl == 0 || (r = step_zones(&n, grp, ngl, cur, end, off, first, last,
                                                        runs, err)) < 0)
                                continue;
                        for (size_t q = 0; q < ngl && r == 0; q++) {
                                size_t l = grp[q];
                                const int64_t *ops = n.ops != NULL ? n.ops + off[l] : NULL;
                                const tpa_ivl *sp = (L->host ? n.xspan : n.span) + off[l];
                                if (apart[l] && n.nzone == 0)
                                        flat_lane(&n, sp, ops, cur[l], end[l]);
                                else
                                        r = (L->host ? nest_host_lane : nest_device_lane)(
                                                &n, sp, ops, cur[l], end[l], err);
                        }
                }
                for (size_t q = 0; q < na && r == 0; q++) {
                        size_t l = act[q];
                        long ks;
                        cur[l] = end[l];
                        if (cur[l] < L->at[l + 1] &&
                            (ks = tpa_analysis__step_of(a, op_start(c, L->idx[cur[l]], p2p),
                                                        &hint)) >= 0 &&
                            (size_t)ks < hi) {
                                next[l] = head[(size_t)ks - lo];
                                head[(size_t)ks - lo] = l;
                        }
                }
        }
out:
        free(cur);
        free(end);
        free(next);
        free(cursor);
        free(act);
        free(grp);
        free(runs);
        free(head);
        free(off);
        free(first);
        free(last);
        free(apart);
        free(n.span);
        free(n.xspan);
        free(n.zone);
        free(n.stack);
        free(n.buf);
        free(n.dvbuf);
        free(n.cov);
        free(n.ops);
        return r;
}

int tpa_top__new(tpa_top *t, const tpa_actx *c, tpa_error *err)
{
        tpa_top_lanes *L[2] = { &t->host, &t->dev };
        size_t ns = tpa_trace_str_count(c->tr);

        memset(t, 0, sizeof(*t));
        t->host.host = true;
        if ((t->tables = calloc(1, sizeof(*t->tables))) == NULL ||
            (t->hidden[0] = calloc(ns ? ns : 1, sizeof(*t->hidden[0]))) == NULL ||
            (t->hidden[1] = calloc(ns ? ns : 1, sizeof(*t->hidden[1]))) == NULL) {
                tpa_top__free(t);
                return tpa_error_oom(err);
        }
        for (int k = 0; k < 2; k++) {
                L[k]->mark = calloc(c->n / 64 + 1, sizeof(*L[k]->mark));
                L[k]->count[0] = calloc(2 * (c->ntracks + 1), sizeof(*L[k]->count[0]));
                L[k]->count[1] = calloc(2 * (c->ntracks + 1), sizeof(*L[k]->count[1]));
                L[k]->half = (c->n / 64 + 1) / 2 * 64;
                if (L[k]->mark == NULL || L[k]->count[0] == NULL || L[k]->count[1] == NULL ||
                    op_table_new(&t->tables->t[k][0], ns) < 0 ||
                    op_table_new(&t->tables->t[k][1], ns) < 0) {
                        tpa_top__free(t);
                        return tpa_error_oom(err);
                }
        }
        return 0;
}

void tpa_top__free(tpa_top *t)
{
        tpa_top_lanes *L[2] = { &t->host, &t->dev };

        for (int k = 0; k < 2; k++) {
                free(L[k]->mark);
                free(L[k]->count[0]);
                free(L[k]->count[1]);
                free(L[k]->lane);
                free(L[k]->pos[0]);
                free(L[k]->pos[1]);
                free(L[k]->mid);
                free(L[k]->idx);
                free(L[k]->at);
                for (int p = 0; t->tables != NULL && p < 2; p++)
                        op_table_free(&t->tables->t[k][p]);
        }
        free(t->tables);
        free(t->hidden[0]);
        free(t->hidden[1]);
        memset(t, 0, sizeof(*t));
}

/* Half of the lanes of the table in hand, sorted, when lanes_fill() ran
 * out of moves (events far out of time order). */
static int sort_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        return sort_lanes(c, job_lanes(arg), part, err);
}

/* Half of the steps, into the part's table in hand. */
static int nest_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        const struct top_job *j = arg;

        return nest_steps(c, job_lanes(j), &j->t->tables->t[j->k][part], part, err);
}

int tpa_top__tables(tpa_actx *c, tpa_top *t, double kept_time, tpa_error *err)
{
        tpa_analysis *a = c->a;
        int r;

        for (int k = 0; k < 2; k++) {
                struct top_job j = { t, k };
                tpa_top_lanes *L = job_lanes(&j);

                if ((r = lanes_begin(L, c, err)) < 0 ||
                    (r = tpa_analysis__in_two(c, lanes_fill, &j, err)) < 0)
                        return r;
                L->sorted = !t->spent[k][0] && !t->spent[k][1];
                lanes_end(L, c);
                if ((r = tpa_analysis__in_two(c, sort_part, &j, err)) < 0 ||
                    (r = tpa_analysis__in_two(c, nest_part, &j, err)) < 0)
                        return r;
                /* The host table's lanes' block goes to the device table's,
                 * pages already faulted in (speed, bench/: a block of its
                 * own was as many fresh pages again, a moment after). */
                if (k == 0)
                        t->dev.idx = L->idx;
                else
                        free(L->idx);
                free(L->at);
                L->idx = NULL;
                L->at = NULL;
        }
        /* the parts' sums (integers: in any order the same) */
        for (int k = 0; k < 2; k++)
                for (size_t j = 0; j < t->tables->t[k][1].nseen; j++) {
                        tpa_str name = t->tables->t[k][1].seen[j];
                        const op_acc *o = &t->tables->t[k][1].acc[name];
                        op_add(&t->tables->t[k][0], name, o->time, o->self, o->count);
                }
        /* the hidden host ops of the names in the host table (the others
         * have no time there, and no row) */
        for (size_t j = 0; j < t->tables->t[0][0].nseen; j++) {
                tpa_str name = t->tables->t[0][0].seen[j];
                t->tables->t[0][0].acc[name].count += t->hidden[0][name] + t->hidden[1][name];
        }
        if ((r = top_ops(c, &t->tables->t[1][0], kept_time * (double)c->ndev, &a->device_ops,
                         &a->device_op_count, &a->device_op_total, err)) < 0)
                return r;
        return top_ops(c, &t->tables->t[0][0], kept_time, &a->host_ops, &a->host_op_count, NULL,
                       err);
}
