/* SPDX-License-Identifier: MIT */
/*
 * intervals.c - the merged interval lists every analysis stage queries:
 * append, sort and merge, the union of several lists, and the searches and
 * coverage sums over a merged list (design.md 5.3's boundary sweep rests on
 * them).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"

int tpa_ivl__append(tpa_ivl_list *l, tpa_ns s, tpa_ns e, tpa_error *err)
{
        if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 16;
                tpa_ivl *v = realloc(l->v, cap * sizeof(*v));
                if (v == NULL)
                        return tpa_error_oom(err);
                l->v = v;
                l->cap = cap;
        }
        l->v[l->n++] = (tpa_ivl){ s, e };
        return 0;
}

static int cmp_ivl(const void *pa, const void *pb)
{
        const tpa_ivl *x = pa, *y = pb;

        if (x->s != y->s)
                return x->s < y->s ? -1 : 1;
        return (x->e > y->e) - (x->e < y->e);
}

/* The end of the run of starts in order that begins at v[i]. */
static size_t run_end(const tpa_ivl *v, size_t i, size_t n)
{
        while (++i < n && v[i].s >= v[i - 1].s)
                ;
        return i;
}

/* Merge the runs a[0..na) and a[na..na + nb) (each by start) in place,
 * through tmp, which takes the shorter of them: n / 2 entries at most. */
static void merge_two(tpa_ivl *a, size_t na, size_t nb, tpa_ivl *tmp)
{
        tpa_ivl *b = a + na;

        if (na <= nb) {                 /* a aside, forward */
                size_t i = 0, j = 0, k = 0;
                memcpy(tmp, a, na * sizeof(*a));
                while (i < na && j < nb)
                        a[k++] = b[j].s < tmp[i].s ? b[j++] : tmp[i++];
                memcpy(a + k, tmp + i, (na - i) * sizeof(*a));
        } else {                        /* b aside, backward */
                size_t i = na, j = nb, k = na + nb;
                memcpy(tmp, b, nb * sizeof(*a));
                while (i > 0 && j > 0)
                        a[--k] = a[i - 1].s > tmp[j - 1].s ? a[--i] : tmp[--j];
                memcpy(a + k - j, tmp, j * sizeof(*a));
        }
}

/* Sort v[0..n) by (s, e), stable, with `tmp` of n / 2 entries: a merge sort
 * that skips merging two halves already in order, so the nearly sorted lists
 * that traces give cost about n compares. Speed (bench/): qsort's compare
 * callback made this ~30% of tpa_analyze(). */
static void sort_halves(tpa_ivl *v, tpa_ivl *tmp, size_t n)
{
        size_t mid = n / 2, i, j, k;

        if (n <= 16) {
                for (i = 1; i < n; i++) {
                        tpa_ivl x = v[i];
                        for (j = i; j > 0 && cmp_ivl(&v[j - 1], &x) > 0; j--)
                                v[j] = v[j - 1];
                        v[j] = x;
                }
                return;
        }
        sort_halves(v, tmp, mid);
        sort_halves(v + mid, tmp, n - mid);
        if (cmp_ivl(&v[mid - 1], &v[mid]) <= 0)
                return;
        memcpy(tmp, v, mid * sizeof(*v));
        for (i = 0, j = mid, k = 0; i < mid; k++) {
                if (j < n && cmp_ivl(&v[j], &tmp[i]) < 0)
                        v[k] = v[j++];
                else
                        v[k] = tmp[i++];
        }
}

/* Sort v[0..n) by start, with `tmp` of n / 2 + 1 entries. A list of a
 * few long runs of starts in order (a channel fed by several threads, a
 * thread's events in end order, as XSpace lines give them) has its
 * neighbouring runs merged, round by round: n log(runs) moves, where
 * sort_halves() costs n log n (bench/). Many short runs (disorder here
 * and there) go to sort_halves(). The order of equal starts is any: the
 * lists are only used merged, and their union is the same. */
static void sort_ivl(tpa_ivl *v, tpa_ivl *tmp, size_t n)
{
        size_t runs = 0;

        for (size_t i = 0; i < n && runs <= 32; i = run_end(v, i, n))
                runs++;
        if (runs > 32) {
                sort_halves(v, tmp, n);
                return;
        }
        while (runs > 1) {
                size_t i = 0;
                runs = 0;
                while (i < n) {
                        size_t mid = run_end(v, i, n), end;
                        runs++;
                        if (mid == n)
                                break;
                        end = run_end(v, mid, n);
                        merge_two(v + i, mid - i, end - mid, tmp);
                        i = end;
                }
        }
}

/* Memory (bench/): a list using less than half of its block gives back
 * the rest. */
static void give_back_slack(tpa_ivl_list *l)
{
        if (l->n < l->cap / 2) {
                tpa_ivl *v = realloc(l->v, (l->n ? l->n : 1) * sizeof(*v));
                if (v != NULL) {
                        l->v = v;
                        l->cap = l->n ? l->n : 1;
                }
        }
}

void tpa_ivl__trim(tpa_ivl_list *l)
{
        give_back_slack(l);
}

void tpa_ivl__merge(tpa_ivl_list *l)
{
        tpa_ivl__merge_keep(l);
        give_back_slack(l);
}

void tpa_ivl__merge_keep(tpa_ivl_list *l)
{
        size_t w = 0;
        tpa_ivl *tmp;

        if (l->n == 0)
                return;
        tmp = malloc((l->n / 2 + 1) * sizeof(*tmp));
        if (tmp != NULL)
                sort_ivl(l->v, tmp, l->n);
        else
                qsort(l->v, l->n, sizeof(*l->v), cmp_ivl);
        for (size_t i = 1; i < l->n; i++) {
                if (l->v[i].s <= l->v[w].e) {
                        if (l->v[i].e > l->v[w].e)
                                l->v[w].e = l->v[i].e;
                } else {
                        l->v[++w] = l->v[i];
                }
        }
        l->n = w + 1;
        free(tmp);
}

/* The number of intervals of src[0..n) that start at or before t: by
 * steps doubling from the front (the runs taken are mostly short), then
 * by halves. */
static size_t starts_by(const tpa_ivl *src, size_t n, tpa_ns t)
{
        size_t lo = 0, hi = 1;

        while (hi < n && src[hi - 1].s <= t) {
                lo = hi;
                hi *= 2;
        }
        if (hi > n)
                hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (src[mid].s <= t)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* Append the merged run src[0..n) to v[0..w) (merged, and whose starts
 * are at or before src's), joining as tpa_ivl__merge() does; returns the
 * new length. The run's first intervals may join the last one of v; after
 * the first that does not, none can (a merged run does not touch itself),
 * so the rest is copied whole. */
static size_t join_run(tpa_ivl *v, size_t w, const tpa_ivl *src, size_t n)
{
        size_t i = 0;

        while (i < n && w > 0 && src[i].s <= v[w - 1].e) {
                if (src[i].e > v[w - 1].e)
                        v[w - 1].e = src[i].e;
                i++;
        }
        if (i < n)              /* an empty list may have no block (UBSan) */
                memmove(v + w, src + i, (n - i) * sizeof(*v));  /* src may lie in v, ahead */
        return w + n - i;
}

/* The union of the merged lists a[0..na) and b[0..nb) appended to v[0..w)
 * as join_run() appends; returns the new length. a may lie in v at w or
 * after, as long as it starts nb or more past w (or b, na or more past
 * w): each interval is written where all of that list that is left lies
 * ahead of it. */
static size_t merge_runs_into(tpa_ivl *v, size_t w, const tpa_ivl *a, size_t na,
                              const tpa_ivl *b, size_t nb)
{
        size_t i = 0, j = 0;

        while (i < na && j < nb) {
                size_t k;
                if (a[i].s <= b[j].s) {
                        k = i + starts_by(a + i, na - i, b[j].s);
                        w = join_run(v, w, a + i, k - i);
                        i = k;
                } else {
                        k = j + starts_by(b + j, nb - j, a[i].s);
                        w = join_run(v, w, b + j, k - j);
                        j = k;
                }
        }
        /* what is left of one list; an empty one may have no block,
         * where a + i would be arithmetic on a null pointer (UBSan) */
        if (i < na)
                w = join_run(v, w, a + i, na - i);
        return j < nb ? join_run(v, w, b + j, nb - j) : w;
}

/* The union of two merged lists into *out, merged: runs of either list
 * in start order, copied whole (speed: a device's kernels are long runs
 * of intervals with a few copies between them). */
int tpa_ivl__union2(tpa_ivl_list *out, const tpa_ivl_list *a, const tpa_ivl_list *b,
                    tpa_error *err)
{
        size_t w, total = a->n + b->n;
        tpa_ivl *v = malloc((total ? total : 1) * sizeof(*v));

        if (v == NULL)
                return tpa_error_oom(err);
        w = merge_runs_into(v, 0, a->v, a->n, b->v, b->n);
        out->v = v;
        out->n = w;
        out->cap = total ? total : 1;
        give_back_slack(out);
        return 0;
}

static int cmp_list_size(const void *pa, const void *pb)
{
        const tpa_ivl_list *x = pa, *y = pb;

        return (x->n > y->n) - (x->n < y->n);
}

int tpa_ivl__union(tpa_ivl_list *out, const tpa_ivl_list *in, size_t k, tpa_error *err)
{
        /* The non-empty lists, smallest first, united in pairs, round by
         * round: a big list (kernels) is copied once or twice, not once per
         * small one. lst[] holds the round's lists: the inputs' (borrowed)
         * and then unions (own[]). */
        tpa_ivl_list *lst = malloc((k ? k : 1) * sizeof(*lst));
        bool *own = calloc(k ? k : 1, sizeof(*own));
        size_t m = 0;
        int r = 0;

        memset(out, 0, sizeof(*out));
        if (lst == NULL || own == NULL) {
                free(lst);
                free(own);
                return tpa_error_oom(err);
        }
        for (size_t j = 0; j < k; j++)
                if (in[j].n > 0)
                        lst[m++] = in[j];
        qsort(lst, m, sizeof(*lst), cmp_list_size);
        while (m > 1 && r == 0) {
                size_t w = 0;
                for (size_t j = 0; j + 1 < m; j += 2) {
                        tpa_ivl_list u;
                        if ((r = tpa_ivl__union2(&u, &lst[j], &lst[j + 1], err)) < 0)
                                break;
                        if (own[j])
                                tpa_ivl__free(&lst[j]);
                        if (own[j + 1])
                                tpa_ivl__free(&lst[j + 1]);
                        own[j] = own[j + 1] = false;
                        lst[w] = u;             /* w <= j: read already */
                        own[w++] = true;
                }
                if (r < 0)
                        break;
                if (m % 2 == 1) {               /* the odd one out, the largest */
                        lst[w] = lst[m - 1];
                        own[w++] = own[m - 1];
                }
                for (size_t j = w; j < m; j++)
                        own[j] = false;         /* moved or freed */
                m = w;
        }
        if (r == 0 && m == 1) {
                if (own[0]) {
                        *out = lst[0];
                        own[0] = false;
                } else if ((out->v = malloc(lst[0].n * sizeof(*out->v))) == NULL) {
                        r = tpa_error_oom(err);
                } else {
                        memcpy(out->v, lst[0].v, lst[0].n * sizeof(*out->v));
                        out->n = out->cap = lst[0].n;
                }
        }
        for (size_t j = 0; j < m; j++)
                if (own[j])
                        tpa_ivl__free(&lst[j]);
        free(lst);
        free(own);
        return r;
}

/* The number of intervals of the merged v[0..n) that end before t. */
static size_t ends_before(const tpa_ivl *v, size_t n, tpa_ns t)
{
        size_t k = 0, hi = n;

        while (k < hi) {
                size_t mid = k + (hi - k) / 2;
                if (v[mid].e < t)
                        k = mid + 1;
                else
                        hi = mid;
        }
        return k;
}

int tpa_ivl__join(tpa_ivl_list *to, tpa_ivl_list *from, tpa_error *err)
{
        size_t n = to->n + from->n, k;
        tpa_ivl *v = to->v;

        if (from->n == 0) {
                tpa_ivl__free(from);
                return 0;
        }
        if (n > to->cap) {
                if ((v = realloc(to->v, n * sizeof(*v))) == NULL)
                        return tpa_error_oom(err);
                to->v = v;
                to->cap = n;
        }
        /* the intervals of *to that end before *from starts stay; the
         * rest moves to the end of the block, and the two merge into
         * the room after those (merge_runs_into()) */
        k = ends_before(v, to->n, from->v[0].s);
        memmove(v + k + from->n, v + k, (to->n - k) * sizeof(*v));
        to->n = merge_runs_into(v, k, v + k + from->n, to->n - k, from->v, from->n);
        tpa_ivl__free(from);
        give_back_slack(to);
        return 0;
}

int tpa_ivl__join_lent(tpa_ivl_list *to, tpa_ivl_list *from, tpa_error *err)
{
        size_t n0 = to->n, n1 = from->n;
        size_t k = n1 > 0 ? ends_before(to->v, n0, from->v[0].s) : n0;
        tpa_ivl *v = to->v, *tail = NULL;

        assert(n1 == 0 || (from->v >= v + n0 && from->v + n1 <= v + to->cap));
        /* the intervals of *to that reach *from's first go aside */
        if (n1 > 0 && k < n0 && (tail = malloc((n0 - k) * sizeof(*tail))) == NULL)
                return tpa_error_oom(err);
        if (n1 > 0)
                memmove(v + n0, from->v, n1 * sizeof(*v));
        memset(from, 0, sizeof(*from));
        if (tail == NULL) {
                to->n = n0 + n1;        /* apart: the two in turn are the union */
        } else {
                /* the two merge into the room after those that stay */
                memcpy(tail, v + k, (n0 - k) * sizeof(*v));
                to->n = merge_runs_into(v, k, tail, n0 - k, v + n0, n1);
                free(tail);
        }
        give_back_slack(to);
        return 0;
}

void tpa_ivl__free(tpa_ivl_list *l)
{
        free(l->v);
        memset(l, 0, sizeof(*l));
}

size_t tpa_ivl__first_after(const tpa_ivl_list *l, tpa_ns t)
{
        size_t lo = 0, hi = l->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (l->v[mid].e <= t)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* Time in [s, e) covered by intervals i... of a merged list, i the first
 * that ends after s: each interval from it that starts before e overlaps
 * [s, e), so no test of the overlap. */
static tpa_ns covered_from(const tpa_ivl_list *l, size_t i, tpa_ns s, tpa_ns e)
{
        tpa_ns sum = 0;

        for (; i < l->n && l->v[i].s < e; i++) {
                tpa_ns a = l->v[i].s > s ? l->v[i].s : s;
                tpa_ns b = l->v[i].e < e ? l->v[i].e : e;
                sum += b - a;
        }
        return sum;
}

tpa_ns tpa_ivl__covered(const tpa_ivl_list *l, tpa_ns s, tpa_ns e)
{
        return covered_from(l, tpa_ivl__first_after(l, s), s, e);
}

tpa_ns tpa_ivl__covered_near(const tpa_ivl_list *l, tpa_ns s, tpa_ns e, size_t *hint)
{
        return covered_from(l, tpa_ivl__first_after_near(l, s, hint), s, e);
}

