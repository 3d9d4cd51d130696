/* SPDX-License-Identifier: MIT */
/*
 * test_intervals.c - intervals.c: the union of merged interval lists against a
 * brute-force answer, on small traces built in memory
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

#include "analysis_fixture.h"
#include "tap.h"

/* ---- interval lists --------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252u;

static uint64_t rng(void)
{
        return tap_rand(&rng_state);
}

/* tpa_ivl__union() of k merged lists is what pushing all their intervals
 * into one list and merging it gives: for 1 to 40 lists (past the 16 it
 * takes in one pass), empty ones, touching, nested and far apart ones. */
static void test_intervals__ivl_union(void)
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
        ok(all, "test_intervals__ivl_union: the union of 1 to 40 lists is their merged pushes");
}

/* tpa_ivl__covers_near() says what tpa_ivl__covered() does of every
 * window over a merged list: all of it covered, or not; with its hint
 * kept from query to query, queries in any order. */
static void test_intervals__covers(void)
{
        bool all = true;

        for (int round = 0; round < 50 && all; round++) {
                tpa_ivl_list l = { 0 };
                tpa_error err = TPA_ERROR_INIT;
                size_t n = rng() % 60, hint = 0;
                tpa_ns t = 0;

                for (size_t i = 0; i < n; i++) {
                        tpa_ns s = t + (tpa_ns)(rng() % 20);
                        tpa_ns e = s + 1 + (tpa_ns)(rng() % 30);
                        t = rng() % 3 == 0 ? e : s;
                        tpa_ivl__append(&l, s, e, &err);
                }
                tpa_ivl__merge(&l);
                for (int q = 0; q < 400 && all; q++) {
                        tpa_ns s = (tpa_ns)(rng() % (uint64_t)(t + 40)) - 5;
                        tpa_ns e = s + (tpa_ns)(rng() % 25);
                        bool want = tpa_ivl__covered(&l, s, e) == e - s;
                        all = tpa_ivl__covers_near(&l, s, e, &hint) == want;
                        if (!all)
                                printf("# round %d: [%" PRId64 ", %" PRId64 ") over %zu "
                                       "intervals\n", round, s, e, l.n);
                }
                tpa_ivl__free(&l);
        }
        ok(all, "test_intervals__covers: a window is covered when covered() gives all of it");
}

/* tpa_ivl__join() gives what tpa_ivl__union2() does, in the first list's
 * block: lists apart, interleaved, one after the other, either empty. */
static void test_intervals__join(void)
{
        bool all = true;

        for (int round = 0; round < 300 && all; round++) {
                tpa_ivl_list a = { 0 }, b = { 0 }, want = { 0 };
                tpa_error err = TPA_ERROR_INIT;
                tpa_ns t_a = (tpa_ns)(rng() % 500), t_b = (tpa_ns)(rng() % 2000);
                size_t na = rng() % 5 == 0 ? 0 : rng() % 200;
                size_t nb = rng() % 5 == 0 ? 0 : rng() % 200;

                for (size_t i = 0; i < na + nb; i++) {
                        tpa_ns *t = i < na ? &t_a : &t_b;
                        tpa_ns s = *t + (tpa_ns)(rng() % 30);
                        tpa_ns e = s + 1 + (tpa_ns)(rng() % 20);
                        *t = rng() % 3 == 0 ? e : s;
                        tpa_ivl__append(i < na ? &a : &b, s, e, &err);
                }
                tpa_ivl__merge(&a);
                tpa_ivl__merge(&b);
                all = tpa_ivl__union2(&want, &a, &b, &err) == 0 &&
                      tpa_ivl__join(&a, &b, &err) == 0 && b.v == NULL && b.n == 0 &&
                      a.n == want.n &&
                      (want.n == 0 || memcmp(a.v, want.v, want.n * sizeof(*want.v)) == 0);
                if (!all)
                        printf("# round %d: %zu and %zu intervals\n", round, na, nb);
                tpa_ivl__free(&a);
                tpa_ivl__free(&b);
                tpa_ivl__free(&want);
        }
        ok(all, "test_intervals__join: joining in place gives the union of the two lists");
}

/* tpa_ivl__join_lent() gives what tpa_ivl__union2() does, with the second
 * list in room the first's block lent it, as the channels' halves are:
 * right after the first list's intervals or further on (the first merged
 * into fewer than its room), lists apart or interleaved, either empty; the
 * first shrinks when the union fills less than half of its block. */
static void test_intervals__join_lent(void)
{
        bool all = true;

        for (int round = 0; round < 400 && all; round++) {
                tpa_ivl_list a = { 0 }, b = { 0 }, want = { 0 }, alone = { 0 };
                tpa_error err = TPA_ERROR_INIT;
                tpa_ns t_a = (tpa_ns)(rng() % 500), t_b = (tpa_ns)(rng() % 2000);
                size_t na = rng() % 5 == 0 ? 0 : rng() % 200;
                size_t nb = rng() % 5 == 0 ? 0 : rng() % 200;
                size_t gap = rng() % 3 == 0 ? 0 : rng() % 50, spare = rng() % 3 * na;

                a.cap = na + gap + nb + spare;
                a.v = malloc((a.cap ? a.cap : 1) * sizeof(*a.v));
                b.v = a.v + na + gap;           /* lent: a's own room, then b's */
                b.cap = nb;
                for (size_t i = 0; a.v != NULL && i < na + nb; i++) {
                        tpa_ns *t = i < na ? &t_a : &t_b;
                        tpa_ns s = *t + (tpa_ns)(rng() % 30);
                        tpa_ns e = s + 1 + (tpa_ns)(rng() % 20);
                        *t = rng() % 3 == 0 ? e : s;
                        tpa_ivl__push(i < na ? &a : &b, s, e, &err);
                        tpa_ivl__append(&alone, s, e, &err);
                }
                tpa_ivl__merge_keep(&a);
                tpa_ivl__merge_keep(&b);
                all = a.v != NULL && b.v >= a.v + a.n && b.cap == nb &&
                      tpa_ivl__union2(&want, &a, &b, &err) == 0 &&
                      tpa_ivl__join_lent(&a, &b, &err) == 0 && b.v == NULL && b.n == 0 &&
                      a.n == want.n &&
                      (want.n == 0 || memcmp(a.v, want.v, want.n * sizeof(*want.v)) == 0) &&
                      (a.n >= (na + gap + nb + spare) / 2 || a.cap == (a.n ? a.n : 1));
                /* and the union of all the intervals pushed, merged */
                tpa_ivl__merge(&alone);
                all = all && alone.n == a.n &&
                      (a.n == 0 || memcmp(a.v, alone.v, a.n * sizeof(*a.v)) == 0);
                if (!all)
                        printf("# round %d: %zu and %zu intervals, %zu apart\n", round, na, nb,
                               gap);
                tpa_ivl__free(&a);
                tpa_ivl__free(&want);
                tpa_ivl__free(&alone);
        }
        ok(all, "test_intervals__join_lent: joining lent room gives the union of the two lists");
}

/* tpa_ivl__merge() gives the union whatever the order the intervals come
 * in: one run of starts in order, a few runs (threads one after another),
 * many (each in reverse), or shuffled; against a timeline of small times
 * marked by hand. */
static void test_intervals__merge_orders(void)
{
        bool all = true;

        for (int round = 0; round < 200 && all; round++) {
                enum { T = 600 };
                bool busy[T] = { false }, got[T] = { false };
                tpa_ivl_list l = { 0 };
                tpa_error err = TPA_ERROR_INIT;
                size_t n = rng() % 400, runs = 1 + rng() % 40;
                int order = round % 4;

                for (size_t i = 0; i < n; i++) {
                        tpa_ns s = (tpa_ns)(rng() % (T - 30)), e = s + 1 + (tpa_ns)(rng() % 25);
                        tpa_ivl__append(&l, s, e, &err);
                        for (tpa_ns t = s; t < e; t++)
                                busy[t] = true;
                }
                /* the order: sorted, sorted in `runs` runs, reversed, shuffled */
                for (size_t i = 1; order != 3 && i < l.n; i++)
                        for (size_t j = i; j > 0 && l.v[j - 1].s > l.v[j].s; j--) {
                                tpa_ivl x = l.v[j];
                                l.v[j] = l.v[j - 1];
                                l.v[j - 1] = x;
                        }
                if (order == 1 && l.n > 0) {    /* rotate each of `runs` blocks */
                        size_t b = l.n / runs + 1;
                        for (size_t at = 0; at < l.n; at += b) {
                                size_t m = at + b < l.n ? b : l.n - at, r = rng() % m;
                                tpa_ivl *tmp = malloc(m * sizeof(*tmp));
                                for (size_t i = 0; tmp != NULL && i < m; i++)
                                        tmp[i] = l.v[at + (i + r) % m];
                                if (tmp != NULL)
                                        memcpy(l.v + at, tmp, m * sizeof(*tmp));
                                free(tmp);
                        }
                } else if (order == 2) {
                        for (size_t i = 0; i < l.n / 2; i++) {
                                tpa_ivl x = l.v[i];
                                l.v[i] = l.v[l.n - 1 - i];
                                l.v[l.n - 1 - i] = x;
                        }
                } else if (order == 3) {
                        for (size_t i = l.n; i > 1; i--) {
                                size_t j = rng() % i;
                                tpa_ivl x = l.v[i - 1];
                                l.v[i - 1] = l.v[j];
                                l.v[j] = x;
                        }
                }
                tpa_ivl__merge(&l);
                for (size_t i = 0; i < l.n; i++)
                        for (tpa_ns t = l.v[i].s; t < l.v[i].e && t < T; t++)
                                got[t] = true;
                all = memcmp(got, busy, sizeof(busy)) == 0;
                for (size_t i = 1; i < l.n && all; i++)
                        all = l.v[i - 1].e < l.v[i].s;          /* merged: apart */
                if (!all)
                        printf("# round %d (order %d): %zu intervals\n", round, order, n);
                tpa_ivl__free(&l);
        }
        ok(all, "test_intervals__merge_orders: the union, whatever the order of the intervals");
}

int main(void)
{
        test_intervals__ivl_union();
        test_intervals__covers();
        test_intervals__join();
        test_intervals__join_lent();
        test_intervals__merge_orders();
        return tap_done();
}
