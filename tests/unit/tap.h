/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a tiny TAP producer for the unit tests: each check prints
 * "ok N - name" or "not ok N - name"; tap_done() prints the plan and
 * returns the exit status.
 */
#ifndef TPA_TEST_TAP_H
#define TPA_TEST_TAP_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __GNUC__
#define TAP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TAP_PRINTF(a, b)
#endif

bool tap_ok(bool cond, const char *fmt, ...) TAP_PRINTF(2, 3);
/* Like tap_ok for integers, printing both sides on failure. */
bool tap_eq(int64_t got, int64_t want, const char *fmt, ...) TAP_PRINTF(3, 4);
bool tap_streq(const char *got, const char *want, const char *fmt, ...) TAP_PRINTF(3, 4);
void tap_skip(const char *why);
int  tap_done(void);
/* Path of a file under testdata/ (TPA_TESTDATA), in a static buffer. */
const char *tap_testdata(const char *name);
/* The corpus folder (TPA_CORPUS) or NULL when it is absent. */
const char *tap_corpus(void);
/* The next of a repeatable stream of pseudo-random numbers (xorshift64)
 * from *state, which must not be 0. */
uint64_t tap_rand(uint64_t *state);

#define ok tap_ok

#endif
