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

int main(void)
{
        test_intervals__ivl_union();
        test_intervals__covers();
        test_intervals__join();
        return tap_done();
}
