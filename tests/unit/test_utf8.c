/* SPDX-License-Identifier: MIT */
/*
 * test_utf8.c - model/utf8.h: the valid prefix, the repair (U+FFFD per
 * maximal subpart, Unicode 3.9 Table 3-8), and interning with the count in
 * the trace's health, messages made one line of UTF-8, and names cut
 * between characters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf8.h"
#include "tap.h"

#define R "\xef\xbf\xbd"        /* U+FFFD */

static void test_utf8__valid_prefix(void)
{
        static const struct { const char *s; size_t want; } cases[] = {
                { "", 0 }, { "plain ascii, longer than eight bytes", 36 },
                { "caf\xc3\xa9", 5 }, { "\xe2\x82\xac \xf0\x9f\x98\x80", 8 },
                { "\xf4\x8f\xbf\xbf", 4 },              /* U+10FFFF */
                { "ab\xff", 2 }, { "ab\x80", 2 }, { "a\xc3", 1 },
                { "\xc0\xaf", 0 },                      /* overlong '/' */
                { "\xe0\x80\xaf", 0 },                  /* overlong */
                { "x\xed\xa0\x80", 1 },                 /* surrogate D800 */
                { "\xf4\x90\x80\x80", 0 },              /* past U+10FFFF */
                { "\xf5\x80\x80\x80", 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                tap_eq((int64_t)tpa_utf8__valid_prefix(cases[i].s, strlen(cases[i].s)),
                       (int64_t)cases[i].want, "test_utf8__valid_prefix: case %zu", i + 1);
}

static void test_utf8__repair(void)
{
        static const struct { const char *s, *want; } cases[] = {
                /* Unicode 3.9, Table 3-8 */
                { "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
                  "a" R R R "b" R "c" R R "d" },
                { "\xc0\xaf", R R }, { "\xe0\x80\xaf", R R R }, { "\xed\xa0\x80", R R R },
                { "\xf4\x90\x80\x80", R R R R }, { "ok\xe2\x82", "ok" R },
                { "caf\xc3\xa9\xff", "caf\xc3\xa9" R }, { "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
        };
        char out[64];

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t n = tpa_utf8__repair(out, cases[i].s, strlen(cases[i].s));
                out[n] = '\0';
                tap_streq(out, cases[i].want, "test_utf8__repair: case %zu", i + 1);
                tap_eq((int64_t)tpa_utf8__valid_prefix(out, n), (int64_t)n,
                       "test_utf8__repair: case %zu is valid after", i + 1);
        }
}

static void test_utf8__intern(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        tpa_str a, b, c, d;
        char *big;
        size_t bigl = 5000;

        if (!tap_ok(tpa_trace_new(&tr, &err) == 0, "test_utf8__intern: a trace"))
                return;
        tap_eq(tpa_utf8__intern(tr, &a, "kernel_name_ascii", 17, 10, &err), 0,
               "test_utf8__intern: ASCII");
        tap_eq(tpa_utf8__intern(tr, &b, "caf\xc3\xa9", 5, 20, &err), 0,
               "test_utf8__intern: valid UTF-8");
        tap_eq((int64_t)tpa_trace_health_c(tr)->invalid_utf8, 0,
               "test_utf8__intern: ... neither counts");
        tap_eq(tpa_utf8__intern(tr, &c, "0123456789\xff", 11, 30, &err), 0,
               "test_utf8__intern: invalid past the first 8 bytes");
        tap_streq(tpa_trace_str(tr, c), "0123456789" R, "test_utf8__intern: ... repaired");
        tap_eq(tpa_utf8__intern(tr, &d, "0123456789\xfe", 11, 40, &err), 0,
               "test_utf8__intern: another");
        tap_ok(c == d, "test_utf8__intern: both repair to one interned string");
        big = malloc(bigl);
        if (big != NULL) {
                memset(big, 'x', bigl);
                big[bigl - 1] = '\xc3';         /* cut: the heap path */
                tap_eq(tpa_utf8__intern(tr, &d, big, bigl, 50, &err), 0,
                       "test_utf8__intern: a long invalid string");
                tap_eq((int64_t)tpa_trace_str_len(tr, d), (int64_t)(bigl - 1 + 3),
                       "test_utf8__intern: ... repaired whole");
                free(big);
        }
        tap_eq((int64_t)tpa_trace_health_c(tr)->invalid_utf8, 3,
               "test_utf8__intern: 3 strings repaired");
        tap_eq((int64_t)tpa_trace_health_c(tr)->invalid_utf8_at, 30,
               "test_utf8__intern: ... the first at 30");
        tpa_trace_free(tr);
}

/* A NUL in a name (JSON's "\u0000") would end it in every report, which
 * read names as C strings: it is stored as U+FFFD, and counted, whether it
 * is in the first 8 bytes or past them. */
static void test_utf8__intern_nul(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        tpa_str a, b, c;

        if (!tap_ok(tpa_trace_new(&tr, &err) == 0, "test_utf8__intern_nul: a trace"))
                return;
        tap_eq(tpa_utf8__intern(tr, &a, "a\0b", 3, 10, &err), 0, "test_utf8__intern_nul: short");
        tap_streq(tpa_trace_str(tr, a), "a" R "b", "test_utf8__intern_nul: ... replaced");
        tap_eq(tpa_utf8__intern(tr, &b, "0123456789\0x", 12, 20, &err), 0,
               "test_utf8__intern_nul: past the first 8 bytes");
        tap_streq(tpa_trace_str(tr, b), "0123456789" R "x", "test_utf8__intern_nul: ... replaced");
        tap_eq(tpa_utf8__intern(tr, &c, "caf\xc3\xa9\0", 6, 30, &err), 0,
               "test_utf8__intern_nul: after valid UTF-8");
        tap_streq(tpa_trace_str(tr, c), "caf\xc3\xa9" R, "test_utf8__intern_nul: ... replaced");
        tap_eq((int64_t)tpa_trace_health_c(tr)->invalid_utf8, 3,
               "test_utf8__intern_nul: 3 strings repaired");
        tpa_trace_free(tr);
}

/* A message becomes one line of UTF-8 in place; so does every tpa_error,
 * even one whose fixed size cut a quoted name inside a character. */
static void test_utf8__one_line(void)
{
        static const struct { const char *in, *want; } cases[] = {
                { "", "" }, { "plain", "plain" }, { "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },
                { "a\nb\tc\x7f", "a?b?c?" }, { "ab\xff", "ab?" }, { "x\xc3", "x?" },
                { "\xe2\x82", "??" }, { "\xc0\xaf/", "?" "?/" }, { "\xed\xa0\x80z", "???z" },
                { "\xf0\x9f\x98\x80\x80\xc3\xa9", "\xf0\x9f\x98\x80?\xc3\xa9" },
        };
        tpa_error err = TPA_ERROR_INIT;
        char name[400], buf[64];

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                snprintf(buf, sizeof(buf), "%s", cases[i].in);
                tpa_utf8__one_line(buf);
                tap_streq(buf, cases[i].want, "test_utf8__one_line: case %zu", i);
        }
        /* "xy" and 198 e-acutes: the message's 199 bytes end inside one */
        memcpy(name, "xy", 2);
        for (size_t i = 0; i < 198; i++)
                memcpy(name + 2 + 2 * i, "\xc3\xa9", 2);
        name[398] = '\0';
        tpa_error_setf(&err, TPA_EFORMAT, "%s", name);
        tap_eq((int64_t)tpa_utf8__valid_prefix(err.msg, strlen(err.msg)),
               (int64_t)strlen(err.msg), "test_utf8__one_line: a cut message is valid UTF-8");
        tap_ok(strlen(err.msg) == sizeof(err.msg) - 1 && err.msg[strlen(err.msg) - 1] == '?',
               "test_utf8__one_line: ... its last half character a '?'");
}

/* A cut for "..." falls between characters: at the last boundary at or
 * before n, whatever the characters' lengths (1 to 4 bytes). */
static void test_utf8__cut(void)
{
        /* "a", e-acute, "b", the euro sign, a musical G clef, "c", a CJK ideograph */
        static const char s[] = "a\xc3\xa9" "b\xe2\x82\xac" "\xf0\x9d\x84\x9e" "c\xe4\xb8\x80";
        static const size_t bound[] = { 0, 1, 3, 4, 7, 11, 12, 15 };
        size_t bad = 0, len = sizeof(s) - 1;

        for (size_t n = 0; n <= len; n++) {
                size_t want = 0;
                for (size_t k = 0; k < sizeof(bound) / sizeof(bound[0]); k++)
                        if (bound[k] <= n)
                                want = bound[k];
                if (tpa_utf8__cut(s, n) != want && bad++ < 5)
                        printf("#   n %zu: got %zu, want %zu\n", n,
                               tpa_utf8__cut(s, n), want);
        }
        tap_eq((int64_t)bad, 0, "test_utf8__cut: every length of a string of "
               "1- to 4-byte characters");
}

int main(void)
{
        test_utf8__valid_prefix();
        test_utf8__repair();
        test_utf8__intern();
        test_utf8__intern_nul();
        test_utf8__one_line();
        test_utf8__cut();
        return tap_done();
}
