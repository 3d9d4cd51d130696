/* SPDX-License-Identifier: MIT */
/*
 * intervals.h - (library-internal) merged lists of half-open time
 * intervals, the currency of the analysis: each device and host channel's
 * busy time is one, and the partition, metrics and steps query them by
 * time. Also a galloping search for queries in about time order.
 */
#ifndef TPA_INTERVALS_H
#define TPA_INTERVALS_H

#include <tpa/common.h>

/* A half-open interval [s, e). */
typedef struct tpa_ivl {
        tpa_ns s, e;
} tpa_ivl;

/* Sorted, disjoint, non-touching intervals after tpa_ivl__merge(). */
typedef struct tpa_ivl_list {
        tpa_ivl *v;
        size_t   n, cap;
} tpa_ivl_list;

/* Add [s, e) to the list, in a new interval (out of line: it may grow). */
int    tpa_ivl__append(tpa_ivl_list *l, tpa_ns s, tpa_ns e, tpa_error *err);

/* Add [s, e) to the list; an instant adds nothing. Inline: called for every
 * event, most of which join the last interval. */
static inline int tpa_ivl__push(tpa_ivl_list *l, tpa_ns s, tpa_ns e, tpa_error *err)
{
        if (e <= s)
                return 0;               /* instants are no busy time */
        if (l->n > 0 && s >= l->v[l->n - 1].s && s <= l->v[l->n - 1].e) {
                /* Memory and speed (bench/): lists are only used merged, and
                 * nested or back-to-back events (most, in read order) join the
                 * last interval to the same union; this kept ~50 bytes per
                 * event of raw intervals at the peak of tpa_analyze(). */
                if (e > l->v[l->n - 1].e)
                        l->v[l->n - 1].e = e;
                return 0;
        }
        if (l->n < l->cap) {            /* no call while there is room */
                l->v[l->n++] = (tpa_ivl){ s, e };
                return 0;
        }
        return tpa_ivl__append(l, s, e, err);
}
void   tpa_ivl__merge(tpa_ivl_list *l);
/* As tpa_ivl__merge(), the block kept whole: room for a join to come. */
void   tpa_ivl__merge_keep(tpa_ivl_list *l);
/* What tpa_ivl__merge() does to the block of a list merged already: less
 * than half of it used, the rest given back. */
void   tpa_ivl__trim(tpa_ivl_list *l);
/* The union of the k merged lists in[0..k) into *out (whatever it held
 * is dropped, not freed), merged. */
int    tpa_ivl__union(tpa_ivl_list *out, const tpa_ivl_list *in, size_t k, tpa_error *err);
/* The union of two merged lists into *out (whatever it held is dropped,
 * not freed), merged. */
int    tpa_ivl__union2(tpa_ivl_list *out, const tpa_ivl_list *a, const tpa_ivl_list *b,
                       tpa_error *err);
/* The union of the merged lists *to and *from into *to, in its own block
 * (grown), merged; *from is freed. No third block: the intervals of *to
 * that end before *from starts stay as they are, the rest moves to the end
 * of the block and merges with *from into the room before it. On failure
 * both are as they were. */
int    tpa_ivl__join(tpa_ivl_list *to, tpa_ivl_list *from, tpa_error *err);
/* As tpa_ivl__join(), for a merged list `from` whose intervals lie in to's
 * block after to's own (at to->n or later: room to's block lent it, which
 * *from neither grows nor frees); *from is emptied, not freed. On failure
 * both are as they were. */
int    tpa_ivl__join_lent(tpa_ivl_list *to, tpa_ivl_list *from, tpa_error *err);
void   tpa_ivl__free(tpa_ivl_list *l);
/* Index of the first interval whose end is after t. */
size_t tpa_ivl__first_after(const tpa_ivl_list *l, tpa_ns t);
/* The first i in [0, n) for which before(ctx, i) is false, n if none
 * (`before` is true, then false, along the indexes), searched out from
 * `hint`, a guess such as the answer to the query before: by steps doubling
 * away from it, then by halves. Queries in about order cost O(log
 * distance), not O(log n). Inline, so that `before` is inlined too. */
static inline size_t tpa_analysis__gallop(size_t n, size_t hint,
                                          bool (*before)(const void *ctx, size_t i),
                                          const void *ctx)
{
        size_t lo, hi, step = 1;

        if (hint > n)
                hint = n;
        if (hint < n && before(ctx, hint)) {
                lo = hint + 1;
                while (lo + step <= n && before(ctx, lo + step - 1)) {
                        lo += step;
                        step *= 2;
                }
                hi = lo + step <= n ? lo + step - 1 : n;
        } else {
                hi = hint;
                while (hi >= step && !before(ctx, hi - step)) {
                        hi -= step;
                        step *= 2;
                }
                lo = hi >= step ? hi - step + 1 : 0;
        }
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (before(ctx, mid))
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* A time to search a list for, and tpa_analysis__gallop()'s test. */
struct tpa_ivl_query {
        const tpa_ivl_list *l;
        tpa_ns              t;
};

static inline bool tpa_ivl__ends_by(const void *ctx, size_t i)
{
        const struct tpa_ivl_query *q = ctx;
        return q->l->v[i].e <= q->t;
}

/* As tpa_ivl__first_after(), searching out from *hint (the answer of the
 * query before), which it updates: queries in about time order cost
 * O(log distance) instead of a search of the whole list. Inline: asked of
 * most host events. */
static inline size_t tpa_ivl__first_after_near(const tpa_ivl_list *l, tpa_ns t, size_t *hint)
{
        struct tpa_ivl_query q = { l, t };
        size_t k = *hint;

        /* the answer a few intervals on (mostly): no gallop */
        if (k < l->n && (k == 0 || l->v[k - 1].e <= t))
                for (size_t end = k + 4 < l->n ? k + 4 : l->n; k < end; k++)
                        if (l->v[k].e > t)
                                return *hint = k;
        *hint = tpa_analysis__gallop(l->n, k, tpa_ivl__ends_by, &q);
        return *hint;
}
/* Time in [s, e) covered by the list. */
tpa_ns tpa_ivl__covered(const tpa_ivl_list *l, tpa_ns s, tpa_ns e);
/* As tpa_ivl__covered(), with a hint as tpa_ivl__first_after_near()'s. */
tpa_ns tpa_ivl__covered_near(const tpa_ivl_list *l, tpa_ns s, tpa_ns e, size_t *hint);
/* True when the (merged) list covers all of [s, e): tpa_ivl__covered_near()
 * would give e - s. One interval holds it, or none does: no sum over the
 * intervals inside. */
static inline bool tpa_ivl__covers_near(const tpa_ivl_list *l, tpa_ns s, tpa_ns e, size_t *hint)
{
        size_t k;

        if (e <= s)
                return true;
        k = tpa_ivl__first_after_near(l, s, hint);
        return k < l->n && l->v[k].s <= s && l->v[k].e >= e;
}

#endif
