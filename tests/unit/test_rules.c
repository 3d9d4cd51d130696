/* SPDX-License-Identifier: MIT */
/*
 * test_rules.c - the rule language: values with units, precedence, every
 * parse error with its line:column, classes (first match), findings and
 * templates, extending and replacing the default set, --set, the default
 * rules on synthetic metric sets, and random bytes that must not crash.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tpa/tpa.h>

#include "rules/rules_internal.h"
#include "tap.h"

/* A metric table for the callback: name=value pairs. */
typedef struct metric {
        const char *name;
        double      value;
} metric;

typedef struct metrics {
        const metric *items;
        size_t        count;
        double        fallback;  /* (double)NAN: unknown names fail */
} metrics;

static bool lookup(void *ctx, const char *name, size_t len, double *out)
{
        const metrics *m = ctx;

        for (size_t i = 0; i < m->count; i++)
                if (strlen(m->items[i].name) == len && memcmp(m->items[i].name, name, len) == 0) {
                        *out = m->items[i].value;
                        return true;
                }
        if (isnan(m->fallback))
                return false;
        *out = m->fallback;
        return true;
}

#define METRICS(arr) { arr, sizeof(arr) / sizeof(arr[0]), (double)NAN }

static tpa_rules *empty_rules(void)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;

        /* An empty replacement leaves an empty set. */
        if (tpa_rules_new_default(&r, &err) < 0)
                return NULL;
        {
                char path[] = "/tmp/tpa_rules_emptyXXXXXX";
                int fd = mkstemp(path);

                if (fd >= 0) {
                        close(fd);
                        tpa_rules_load_file(r, path, true, &err);
                        unlink(path);
                }
        }
        return r;
}

static double eval(const tpa_rules *r, const char *expr, metrics *m, int *rc)
{
        tpa_error err = TPA_ERROR_INIT;
        double v = (double)NAN;

        *rc = tpa_rules_eval(r, expr, lookup, m, &v, &err);
        if (*rc < 0)
                printf("#   %s: %u:%u: %s\n", expr, err.line, err.column, err.msg);
        return v;
}

static void test_rules__values(void)
{
        static const struct { const char *text; double want; } cases[] = {
                { "20%", 0.2 }, { "10us", 10000 }, { "5ms", 5e6 }, { "1.5", 1.5 },
                { "64KiB", 65536 }, { "1MiB", 1048576 }, { "2GiB", 2147483648.0 },
                { "1MB", 1e6 }, { "3KB", 3000 }, { "2s", 2e9 }, { "7ns", 7 },
                { "12B", 12 }, { "1e3", 1000 }, { "2.5e-1", 0.25 }, { "0.5%", 0.005 },
                { "-3ms", -3e6 },
        };
        static const char *const bad[] = { "", "us", "1.", "10 us", "10usx", "1%%", "0x10",
                                           "5m", ".5", "1e" };
        double v;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                v = (double)NAN;
                ok(tpa_rules__parse_value(cases[i].text, strlen(cases[i].text), &v) &&
                   fabs(v - cases[i].want) <= 1e-9 * fabs(cases[i].want),
                   "test_rules__values: '%s' is %g (got %g)", cases[i].text, cases[i].want, v);
        }
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                ok(!tpa_rules__parse_value(bad[i], strlen(bad[i]), &v),
                   "test_rules__values: '%s' is not a value", bad[i]);
}

static void test_rules__precedence(void)
{
        static const struct { const char *expr; double want; } cases[] = {
                { "1 + 2 * 3", 7 }, { "(1 + 2) * 3", 9 }, { "2 - 3 - 4", -5 },
                { "8 / 2 / 2", 2 }, { "-2 * 3", -6 }, { "- -2", 2 }, { "+4", 4 },
                { "1 < 2 and 3 > 4 or 1", 1 }, { "1 or 0 and 0", 1 },
                { "not 1 < 0", 1 }, { "not 0 and 0", 0 }, { "not not 5", 1 },
                { "1 + 1 == 2", 1 }, { "3 != 3", 0 }, { "2 <= 2", 1 }, { "2 >= 3", 0 },
                { "min(3, 1, 2)", 1 }, { "max(1, 5, 2)", 5 }, { "abs(-2.5)", 2.5 },
                { "min(4)", 4 }, { "max(1, min(9, 7)) * 2", 14 },
                { "1 / 0", 0 }, { "5 / (2 - 2) + 1", 1 }, { "10us / 1ms", 0.01 },
                { "20% * 5", 1 }, { "a + b * c", 7 }, { "gap.min", 10000 },
                { "a > 0 or nope", 1 }, { "a < 0 and nope", 0 },
                { "  a # a comment", 1 }, { "(a)# comment", 1 },
        };
        static const metric ms[] = { { "a", 1 }, { "b", 2 }, { "c", 3 } };
        metrics m = METRICS(ms);
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        int rc;

        tpa_rules_new_default(&r, &err);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                double v = eval(r, cases[i].expr, &m, &rc);

                ok(rc == 0 && fabs(v - cases[i].want) < 1e-12,
                   "test_rules__precedence: '%s' is %g (got %g)", cases[i].expr, cases[i].want, v);
        }
        tpa_rules_free(r);
}

/* Load `text` into a fresh default set and expect an error at line:column
 * whose message contains `msg`. */
static void expect_error(const char *text, uint32_t line, uint32_t column, const char *msg)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        int rc;

        tpa_rules_new_default(&r, &err);
        rc = tpa_rules_load_string(r, text, strlen(text), "user.tpr", &err);
        if (!ok(rc == TPA_ERULE && err.line == line && err.column == column &&
                strstr(err.msg, msg) != NULL && err.path != NULL &&
                strcmp(err.path, "user.tpr") == 0,
                "test_rules__errors: %u:%u: %s", line, column, msg))
                printf("#   got rc %d at %u:%u: %s\n", rc, err.line, err.column, err.msg);
        /* A failed load leaves the set as it was. */
        ok(tpa_rules_class_count(r) == 6, "test_rules__errors: set unchanged after '%s'", msg);
        tpa_rules_free(r);
}

static void test_rules__errors(void)
{
        expect_error("class a when x and", 1, 19, "expected an expression after 'and'");
        expect_error("class a when x and\n\n", 1, 19, "expected an expression after 'and'");
        expect_error("class a when x or\nclass b when 1", 1, 18,
                     "expected an expression after 'or'");
        expect_error("class a when mean(x)", 1, 14, "unknown function 'mean'");
        expect_error("finding f info when 1 : \"abc", 1, 25, "unterminated string");
        expect_error("finding f info when 1 : \"abc\ndef\"", 1, 25, "unterminated string");
        expect_error("finding f fatal when 1 : \"x\"", 1, 11,
                     "unknown severity 'fatal' (info, warning, error)");
        expect_error("threshold x = 10 us", 1, 18, "expected an operator or a new statement");
        expect_error("threshold x = 10usx", 1, 17, "unknown unit 'usx'");
        expect_error("threshold x 10", 1, 13, "expected '=' after the threshold name");
        expect_error("threshold = 10", 1, 11, "expected a threshold name");
        expect_error("threshold x = abc", 1, 15, "expected a number after '='");
        expect_error("threshold x. = 1", 1, 12, "a name cannot end with '.'");
        expect_error("class when x", 1, 7, "expected a class name");
        expect_error("class a x", 1, 9, "expected 'when'");
        expect_error("class a when", 1, 13, "expected an expression after 'when'");
        expect_error("class a when (1 + 2", 1, 20, "expected ')'");
        expect_error("class a when 1 +", 1, 17, "expected an expression after '+'");
        expect_error("class a when 1 < 2 < 3", 1, 20, "comparisons do not chain");
        expect_error("class a when abs(1, 2)", 1, 14, "'abs' takes 1 argument");
        expect_error("class a when min()", 1, 14, "'min' needs at least 1 argument");
        expect_error("class a when min(1 2)", 1, 20, "expected ',' or ')'");
        expect_error("class a when max(1,)", 1, 20, "expected an expression after ','");
        expect_error("class a when x @ y", 1, 16, "unexpected character '@'");
        expect_error("class a when x ! y", 1, 16, "unexpected character '!'");
        expect_error("class a when x\x01", 1, 15, "unexpected byte 0x01");
        expect_error("\n  bogus", 2, 3, "expected 'threshold', 'class' or 'finding'");
        expect_error("finding f info when 1", 1, 22, "expected 'gain' or ':' after the condition");
        expect_error("finding f info when 1 gain 2 \"m\"", 1, 30, "expected ':' after the gain");
        expect_error("finding f info when 1 :", 1, 24, "expected a message in double quotes");
        expect_error("finding f info when 1 : \"{x:foo}\"", 1, 29, "unknown format 'foo'");
        expect_error("finding f info when 1 : \"ab {x\"", 1, 29, "unterminated '{'");
        expect_error("finding f info when 1 : \"a } b\"", 1, 28, "unmatched '}'");
        expect_error("finding f info when 1 : \"a {} b\"", 1, 28, "expected a metric name");
        expect_error("finding f info when 1 : \"\\q\"", 1, 26, "unknown escape '\\q'");
        expect_error("finding f when 1 : \"x\"", 1, 11, "expected a severity (info, warning, error)");
        expect_error("class x when 1\nclass y when ((((((((((((((((((((((((((((((((((((((((((((("
                     "((((((((((((((((((((((1", 2, 78, "nested deeper than 64");
        {
                char big[4000];
                size_t n = (size_t)snprintf(big, sizeof(big), "class a when 1");

                while (n + 5 < sizeof(big))
                        n += (size_t)snprintf(big + n, sizeof(big) - n, " + 1");
                expect_error(big, 1, 1036, "expression longer than 256 operators");
        }
        {
                char name[100];

                memset(name, 'n', sizeof(name));
                snprintf(name, sizeof(name), "class %.*s when 1", 70,
                         "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
                expect_error(name, 1, 7, "class name longer than 63");
        }
}

static void test_rules__eval_errors(void)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        static const metric ms[] = { { "a", 1 } };
        metrics m = METRICS(ms);
        const char *cls = NULL;
        tpa_finding *f = NULL;
        size_t n = 99;
        double v = 42;
        const char *text = "class late when a > 5\n"
                           "class x when a > 0 and\n     nosuch > 1\n";
        int rc;

        tpa_rules_new_default(&r, &err);
        tpa_rules_load_string(r, text, strlen(text), "user.tpr", &err);
        rc = tpa_rules_classify(r, lookup, &m, &cls, &err);
        ok(rc == TPA_ERULE && err.line == 3 && err.column == 6 && err.path != NULL &&
           strcmp(err.path, "user.tpr") == 0 && strcmp(err.msg, "unknown metric 'nosuch'") == 0 &&
           cls == NULL, "test_rules__eval_errors: unknown metric at user.tpr:3:6 (got %u:%u %s)",
           err.line, err.column, err.msg);
        rc = tpa_rules_eval(r, "a + (b", lookup, &m, &v, &err);
        ok(rc == TPA_ERULE && err.line == 1 && err.column == 7 && v == 42,
           "test_rules__eval_errors: eval syntax error at column 7, *out untouched");
        rc = tpa_rules_eval(r, "a + zz", lookup, &m, &v, &err);
        ok(rc == TPA_ERULE && err.column == 5 && strstr(err.msg, "'zz'") != NULL,
           "test_rules__eval_errors: eval unknown metric at column 5");
        rc = tpa_rules_eval(r, "", lookup, &m, &v, &err);
        ok(rc == TPA_ERULE, "test_rules__eval_errors: empty expression");
        rc = tpa_rules_eval(r, "1 2", lookup, &m, &v, &err);
        ok(rc == TPA_ERULE && err.column == 3, "test_rules__eval_errors: trailing operand");
        rc = tpa_rules_eval(r, "class", lookup, &m, &v, &err);
        ok(rc == TPA_ERULE && err.column == 1, "test_rules__eval_errors: keyword is no operand");
        tpa_rules_free(r);

        /* A message naming an unknown metric fails at render time. */
        r = empty_rules();
        text = "finding f info when 1 : \"x {zz:%}\"\n";
        tpa_rules_load_string(r, text, strlen(text), "msg.tpr", &err);
        rc = tpa_rules_findings(r, lookup, &m, &f, &n, &err);
        ok(rc == TPA_ERULE && err.line == 1 && err.column == 26 && n == 99 &&
           strstr(err.msg, "'zz'") != NULL, "test_rules__eval_errors: unknown metric in message");
        /* No class at all. */
        rc = tpa_rules_classify(r, lookup, &m, &cls, &err);
        ok(rc == TPA_ERULE && strstr(err.msg, "no class matched") != NULL,
           "test_rules__eval_errors: no class matched");
        tpa_rules_free(r);
}

static void test_rules__classes(void)
{
        tpa_rules *r = empty_rules();
        tpa_error err = TPA_ERROR_INIT;
        metric ms[] = { { "x", 0 } };
        metrics m = METRICS(ms);
        const char *cls = NULL;
        const char *text = "threshold lim = 10\n"
                           "class big-one when x > lim\n"
                           "class mid when x > 5\n"
                           "class also-big when x > 20   # never: big-one matches first\n"
                           "class mid when x > 3         # same name, tried later\n"
                           "class rest when 1\n";
        int rc = tpa_rules_load_string(r, text, strlen(text), "c.tpr", &err);

        ok(rc == 0, "test_rules__classes: load");
        ms[0].value = 30;
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "big-one") == 0,
           "test_rules__classes: first match wins (30)");
        ms[0].value = 7;
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "mid") == 0,
           "test_rules__classes: 7 is mid");
        ms[0].value = 4;
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "mid") == 0,
           "test_rules__classes: 4 is mid (second rule)");
        ms[0].value = 0;
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "rest") == 0,
           "test_rules__classes: catch-all");
        tap_eq((int64_t)tpa_rules_class_count(r), 4, "test_rules__classes: 4 unique names");
        tap_streq(tpa_rules_class_name(r, 0), "big-one", "test_rules__classes: name 0");
        tap_streq(tpa_rules_class_name(r, 3), "rest", "test_rules__classes: name 3");
        ok(tpa_rules_class_name(r, 4) == NULL, "test_rules__classes: name 4 is NULL");
        ok(tpa_rules_set_threshold(r, "lim=2", &err) == 0, "test_rules__classes: --set lim=2");
        ms[0].value = 4;
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "big-one") == 0,
           "test_rules__classes: the override changes the class");
        tpa_rules_free(r);
}

static void test_rules__extend(void)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        metric ms[] = { { "input_frac", 0.5 }, { "max_other_frac", 0.5 }, { "mine", 1 } };
        metrics m = METRICS(ms);
        const char *cls = NULL;
        tpa_finding *f = NULL;
        size_t n = 0, k;
        double v;
        const char *user = "threshold gap.min = 20us\n"
                           "threshold mine.limit = 3\n"
                           "class my-class when mine >= 1\n"
                           "finding my_note error when mine < mine.limit gain 0.25\n"
                           "        : \"mine is {mine} of {mine.limit}\"\n"
                           "finding input_loader info when 0 : \"disabled\"\n";

        tpa_rules_new_default(&r, &err);
        m.fallback = 0;         /* every other metric is 0 */
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "input-bound") == 0,
           "test_rules__extend: default says input-bound");
        ok(tpa_rules_load_string(r, user, strlen(user), "user.tpr", &err) == 0,
           "test_rules__extend: load user rules");
        ok(tpa_rules_threshold(r, "gap.min", &v) && v == 20000,
           "test_rules__extend: user threshold overrides (20us)");
        ok(tpa_rules_threshold(r, "host_gap.min", &v) && v == 5000,
           "test_rules__extend: default threshold kept (5us)");
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == 0 && strcmp(cls, "my-class") == 0,
           "test_rules__extend: user class tried first");
        tap_streq(tpa_rules_class_name(r, 0), "my-class", "test_rules__extend: listed first");
        tap_eq((int64_t)tpa_rules_class_count(r), 7, "test_rules__extend: 7 classes");
        ok(tpa_rules_findings(r, lookup, &m, &f, &n, &err) == 0, "test_rules__extend: findings");
        for (k = 0; k < n && strcmp(f[k].name, "my_note") != 0; k++)
                ;
        ok(k == n - 1 && f[k].severity == TPA_SEVERITY_ERROR && f[k].gain_frac == 0.25,
           "test_rules__extend: user finding added last");
        tap_streq(k < n ? f[k].message : NULL, "mine is 1 of 3",
                  "test_rules__extend: user message");
        ok(n >= 2 && strcmp(f[0].name, "input_prefetch") == 0,
           "test_rules__extend: default finding first (no framework: neutral input advice)");
        for (k = 0; k < n && strcmp(f[k].name, "input_loader") != 0; k++)
                ;
        ok(k == n, "test_rules__extend: same-name user finding replaces the default");
        free(f);

        /* --rules-replace: only the user's rules remain. */
        {
                char path[] = "/tmp/tpa_rules_userXXXXXX";
                int fd = mkstemp(path);
                FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;

                if (fp != NULL) {
                        fputs(user, fp);
                        fclose(fp);
                }
                ok(tpa_rules_set_threshold(r, "host_gap.min=1us", &err) == 0,
                   "test_rules__extend: --set before replace");
                ok(tpa_rules_load_file(r, path, true, &err) == 0,
                   "test_rules__extend: replace from a file");
                unlink(path);
        }
        ok(!tpa_rules_threshold(r, "host_gap.min", &v), "test_rules__extend: defaults gone");
        tap_eq((int64_t)tpa_rules_class_count(r), 1, "test_rules__extend: one class left");
        ms[2].value = 0;
        ok(tpa_rules_classify(r, lookup, &m, &cls, &err) == TPA_ERULE,
           "test_rules__extend: no catch-all after replace");
        ok(tpa_rules_findings(r, lookup, &m, &f, &n, &err) == 0 && n == 1 &&
           strcmp(f[0].message, "mine is 0 of 3") == 0, "test_rules__extend: one finding left");
        free(f);
        tpa_rules_free(r);
}

static void test_rules__files(void)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        char path[] = "/tmp/tpa_rules_badXXXXXX";
        int fd = mkstemp(path);
        FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
        int rc;

        if (fp != NULL) {
                fputs("# a comment\nthreshold a = 1\nclass b when a and\n", fp);
                fclose(fp);
        }
        tpa_rules_new_default(&r, &err);
        rc = tpa_rules_load_file(r, path, false, &err);
        ok(rc == TPA_ERULE && err.line == 3 && err.column == 19 && err.path == path &&
           strstr(err.msg, "after 'and'") != NULL,
           "test_rules__files: error at file:3:19 (end of the line), path is the caller's (got %u:%u %s)",
           err.line, err.column, err.msg);
        unlink(path);
        rc = tpa_rules_load_file(r, "/nonexistent/rules.tpr", false, &err);
        ok(rc == TPA_EIO && err.sys_errno != 0 && err.line == 0 &&
           strcmp(err.path, "/nonexistent/rules.tpr") == 0,
           "test_rules__files: missing file is TPA_EIO");
        tpa_rules_free(r);
}

static void test_rules__set(void)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        double v = 0;

        tpa_rules_new_default(&r, &err);
        ok(tpa_rules_set_threshold(r, "gap.min=20us", &err) == 0 &&
           tpa_rules_threshold(r, "gap.min", &v) && v == 20000, "test_rules__set: gap.min=20us");
        ok(tpa_rules_set_threshold(r, " bound.min = 30% ", &err) == 0 &&
           tpa_rules_threshold(r, "bound.min", &v) && fabs(v - 0.3) < 1e-12,
           "test_rules__set: spaces around");
        ok(tpa_rules_set_threshold(r, "gap.min=5us", &err) == 0 &&
           tpa_rules_threshold(r, "gap.min", &v) && v == 5000, "test_rules__set: latest wins");
        ok(tpa_rules_set_threshold(r, "nope=1", &err) == TPA_EINVAL &&
           strcmp(err.msg, "unknown threshold 'nope'") == 0, "test_rules__set: unknown name");
        ok(tpa_rules_set_threshold(r, "gap.min=fast", &err) == TPA_EINVAL &&
           strstr(err.msg, "bad value 'fast' for 'gap.min'") != NULL,
           "test_rules__set: bad value");
        ok(tpa_rules_set_threshold(r, "gap.min=", &err) == TPA_EINVAL,
           "test_rules__set: empty value");
        ok(tpa_rules_set_threshold(r, "gap.min", &err) == TPA_EINVAL &&
           strstr(err.msg, "NAME=VALUE") != NULL, "test_rules__set: no '='");
        ok(tpa_rules_threshold(r, "gap.min", &v) && v == 5000,
           "test_rules__set: failed sets change nothing");
        ok(!tpa_rules_threshold(r, "nope", &v), "test_rules__set: unknown threshold is false");
        ok(tpa_rules_threshold(r, "warmup.ratio", &v) && v == 1.5 &&
           tpa_rules_threshold(r, "small_copy.max", &v) && v == 65536 &&
           tpa_rules_threshold(r, "host_gap.min", &v) && v == 5000,
           "test_rules__set: default thresholds the analysis reads");
        tpa_rules_free(r);
}

static void render(const char *tmpl, metrics *m, const char *want)
{
        tpa_rules *r = empty_rules();
        tpa_error err = TPA_ERROR_INIT;
        tpa_finding *f = NULL;
        size_t n = 0;
        char text[600];

        snprintf(text, sizeof(text), "threshold t.x = 64KiB\nfinding f info when 1 : \"%s\"",
                 tmpl);
        if (tpa_rules_load_string(r, text, strlen(text), "t.tpr", &err) < 0 ||
            tpa_rules_findings(r, lookup, m, &f, &n, &err) < 0)
                printf("#   %u:%u: %s\n", err.line, err.column, err.msg);
        tap_streq(n == 1 ? f[0].message : NULL, want, "test_rules__templates: '%s'", tmpl);
        free(f);
        tpa_rules_free(r);
}

static void test_rules__templates(void)
{
        static const metric ms[] = {
                { "frac", 0.345 }, { "small", 0.07 }, { "tiny", 0.0049 }, { "t", 1234567 },
                { "n", 42 }, { "x", 0.125 }, { "big", 1250.4 }, { "mid", 12.34 },
                { "bytes", 3 * 1048576.0 }, { "neg", -2 }, { "us", 15000 },
        };
        metrics m = METRICS(ms);

        render("plain", &m, "plain");
        render("{n}", &m, "42");
        render("{x}", &m, "0.125");
        render("{big} {mid}", &m, "1250 12.3");
        render("{frac:%} {small:%} {tiny:%}", &m, "34% 7% 0.5%");
        render("{t:ms} {t:us} {t:s} {t:ns}", &m, "1.23 ms 1235 us 0.00123 s 1234567 ns");
        render("{t:time} {us:time} {n:time}", &m, "1.23 ms 15 us 42 ns");
        render("{bytes:bytes} {t.x:bytes} {n:bytes}", &m, "3 MiB 64 KiB 42 B");
        render("{bytes:MiB} {t.x:KiB}", &m, "3 MiB 64 KiB");
        render("{x:int} {neg}", &m, "0 -2");
        render("{{literal}} and {{{n}}}", &m, "{literal} and {42}");
        render("escaped \\\"quotes\\\" and \\\\", &m, "escaped \"quotes\" and \\");

        /* Adjacent strings make one message; a long one is truncated. */
        {
                tpa_rules *r = empty_rules();
                tpa_error err = TPA_ERROR_INIT;
                tpa_finding *f = NULL;
                size_t n = 0, len = 0;
                char *text = malloc(2000);
                const char *head = "finding f warning when 1 gain 0.5 : \"ab\"\n   \"c{n}\" ";

                memcpy(text, head, strlen(head));
                len = strlen(head);
                text[len++] = '"';
                memset(text + len, 'z', 700);
                len += 700;
                text[len++] = '"';
                ok(tpa_rules_load_string(r, text, len, "t.tpr", &err) == 0 &&
                   tpa_rules_findings(r, lookup, &m, &f, &n, &err) == 0 && n == 1,
                   "test_rules__templates: adjacent strings");
                ok(n == 1 && strncmp(f[0].message, "abc42zzz", 8) == 0 &&
                   strlen(f[0].message) == TPA_FINDING_MESSAGE_MAX - 1 &&
                   f[0].gain_frac == 0.5 &&
                   f[0].severity == TPA_SEVERITY_WARNING,
                   "test_rules__templates: concatenated, truncated to 511");
                free(f);
                free(text);
                tpa_rules_free(r);
        }
}

/* A full metric set; `set` overrides some names. */
typedef struct step {
        double input, transfer, sync, host, host_compute, idle;
} step;

static void fill_step(metric *ms, size_t *count, const step *s)
{
        double compute = 1 - s->input - s->transfer - s->sync - s->host - s->host_compute -
                         s->idle;
        double max_other = s->input;
        size_t n = 0;

        if (s->transfer > max_other)
                max_other = s->transfer;
        if (s->sync > max_other)
                max_other = s->sync;
        if (s->host + s->host_compute > max_other)
                max_other = s->host + s->host_compute;
#define PUT(nm, v) (ms[n].name = (nm), ms[n].value = (v), n++)
        PUT("step_time_ns", 1e8);
        PUT("compute_frac", compute);
        PUT("input_frac", s->input);
        PUT("transfer_frac", s->transfer);
        PUT("sync_frac", s->sync);
        PUT("host_frac", s->host + s->host_compute);
        PUT("host_compute_frac", s->host_compute);
        PUT("idle_frac", s->idle);
        PUT("max_other_frac", max_other);
        PUT("gain_input_frac", s->input);
        PUT("gain_transfer_frac", s->transfer);
        PUT("gain_sync_frac", s->sync);
        PUT("gain_host_frac", s->host + s->host_compute);
        PUT("gain_idle_frac", s->idle);
        PUT("host_launch_frac", s->host * 0.6);
        PUT("host_python_frac", s->host * 0.4);
        PUT("host_setup_frac", 0);
        PUT("device_busy_frac", compute + s->transfer + s->sync / 2);
        PUT("sync_host_wait_frac", s->sync / 2);
        PUT("sync_collective_frac", s->sync / 2);
#undef PUT
        *count = n;
}

static void classify_default(const step *s, const char *want, const char *what)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        metric ms[32];
        metrics m = { ms, 0, 0 };
        const char *cls = NULL;

        fill_step(ms, &m.count, s);
        tpa_rules_new_default(&r, &err);
        if (tpa_rules_classify(r, lookup, &m, &cls, &err) < 0)
                printf("#   %s\n", err.msg);
        tap_streq(cls, want, "test_rules__default: %s", what);
        tpa_rules_free(r);
}

static void test_rules__default(void)
{
        static const char *const classes[] = {
                "input-bound", "transfer-bound", "sync-bound", "host-bound", "compute-bound",
                "unexplained",
        };
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;

        classify_default(&(step){ .input = 0.34 }, "input-bound", "input-heavy");
        classify_default(&(step){ .transfer = 0.30, .input = 0.1 }, "transfer-bound",
                         "transfer-heavy");
        classify_default(&(step){ .sync = 0.25, .host = 0.21 }, "sync-bound", "sync-heavy");
        classify_default(&(step){ .host = 0.6 }, "host-bound", "host-heavy");
        classify_default(&(step){ .input = 0.19, .host = 0.19 }, "compute-bound",
                         "all below 20%");
        classify_default(&(step){ .input = 0.2 }, "input-bound", "exactly 20% counts");
        classify_default(&(step){ .input = 0.3, .host = 0.3 }, "input-bound",
                         "tie goes to input (first rule)");
        classify_default(&(step){ .transfer = 0.3, .host = 0.3 }, "transfer-bound",
                         "tie transfer/host goes to transfer");
        classify_default(&(step){ .input = 0.25, .host_compute = 0.35 }, "host-bound",
                         "largest non-compute bucket wins");
        classify_default(&(step){ .input = 0.25, .host = 0.35 }, "input-bound",
                         "input against each part of host time");
        classify_default(&(step){ .host_compute = 0.6 }, "host-bound",
                         "framework ops on the CPU are host time");
        classify_default(&(step){ .host = 0.15, .idle = 0.45, .input = 0.1 }, "unexplained",
                         "a mostly idle step is never compute-bound");
        classify_default(&(step){ .host = 0.15, .input = 0.16, .idle = 0.6 }, "unexplained",
                         "nothing seen most of the step");
        classify_default(&(step){ .host = 0.19, .input = 0.18, .sync = 0.18, .transfer = 0.17,
                                  .idle = 0.15 },
                         "host-bound", "largest bucket below 20%");
        classify_default(&(step){ 0 }, "compute-bound", "pure compute");
        classify_default(&(step){ .host = 0.19, .input = 0.18, .sync = 0.18, .transfer = 0.17,
                                  .idle = 0.02 }, "host-bound",
                         "compute the largest but below compute.min");

        tpa_rules_new_default(&r, &err);
        tap_eq((int64_t)tpa_rules_class_count(r), 6, "test_rules__default: 6 classes");
        for (size_t i = 0; i < 6; i++)
                tap_streq(tpa_rules_class_name(r, i), classes[i],
                          "test_rules__default: class %zu", i);
        tpa_rules_free(r);
}

/* Every default finding fires on a bad enough step, renders on one line of
 * at most 90 characters, and carries a gain in 0..1. The input and host
 * advice is per framework: on a TF trace only the TF finding of each pair
 * fires, on a PyTorch trace only the PyTorch one, on neither the neutral one. */
static void test_rules__default_findings(void)
{
        static const char *const names[] = {
                "input_pipeline", "input_loader", "input_prefetch", "host_launch_tf",
                "host_launch_cuda", "host_launch_rocm", "host_launch", "host_launches",
                "python_gaps", "copies_exposed", "small_copies", "host_syncs", "collectives",
                "idle_gaps", "low_utilization", "unexplained_idle",
        };
        static const struct {
                const char *label;
                double      tf, pytorch, cuda, rocm;
                const char *input, *host;       /* the advice that must fire alone */
        } fw[] = {
                { "tf", 1, 0, 1, 0, "input_pipeline", "host_launch_tf" },
                { "pytorch on CUDA", 0, 1, 1, 0, "input_loader", "host_launch_cuda" },
                { "pytorch on ROCm", 0, 1, 0, 1, "input_loader", "host_launch_rocm" },
                { "pytorch on MTIA", 0, 1, 0, 0, "input_loader", "host_launch" },
                { "generic", 0, 0, 0, 0, "input_prefetch", "host_launch" },
        };
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        metric ms[64];
        metrics m = { ms, 0, 0 };
        tpa_finding *f = NULL;
        size_t n = 0, found = 0, base;
        bool fits = true, gains = true, fired[sizeof(names) / sizeof(names[0])] = { false };

        fill_step(ms, &m.count, &(step){ .input = 0.25, .transfer = 0.21, .sync = 0.2,
                                         .host = 0.22, .host_compute = 0.05, .idle = 0.06 });
#define PUT(nm, v) (ms[m.count].name = (nm), ms[m.count].value = (v), m.count++)
        PUT("cpu_only", 0);
        PUT("launch_count", 123456);
        PUT("host_gap_count", 98765);
        PUT("host_gap_median_ns", 123456789);
        PUT("host_gap_frac", 0.333);
        PUT("small_copy_count", 99999);
        PUT("gap_count", 99999);
        PUT("gap_frac", 0.555);
        PUT("gap_max_ns", 987654321);
        base = m.count;
        tpa_rules_new_default(&r, &err);
        for (size_t w = 0; w < sizeof(fw) / sizeof(fw[0]); w++) {
                size_t inputs = 0, hosts = 0;
                bool input_ok = false, host_ok = false;

                m.count = base;
                PUT("framework_tf", fw[w].tf);
                PUT("framework_pytorch", fw[w].pytorch);
                PUT("runtime_cuda", fw[w].cuda);
                PUT("runtime_rocm", fw[w].rocm);
                ok(tpa_rules_findings(r, lookup, &m, &f, &n, &err) == 0,
                   "test_rules__default: findings (%s)", fw[w].label);
                for (size_t i = 0; i < n; i++) {
                        size_t len = strlen(f[i].message);

                        if (len > 90 || strchr(f[i].message, '\n') != NULL) {
                                printf("#   %zu chars: %s\n", len, f[i].message);
                                fits = false;
                        }
                        if (!(f[i].gain_frac >= 0 && f[i].gain_frac <= 1))
                                gains = false;
                        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
                                if (strcmp(f[i].name, names[k]) == 0)
                                        fired[k] = true;
                        if (strncmp(f[i].name, "input_", 6) == 0 &&
                            strcmp(f[i].name, "input_wait") != 0) {
                                inputs++;
                                input_ok = input_ok || strcmp(f[i].name, fw[w].input) == 0;
                        }
                        if (strncmp(f[i].name, "host_", 5) == 0 &&
                            strcmp(f[i].name, "host_launches") != 0 &&
                            strcmp(f[i].name, "host_syncs") != 0) {
                                hosts++;
                                host_ok = host_ok || strcmp(f[i].name, fw[w].host) == 0;
                        }
                }
                ok(inputs == 1 && input_ok, "test_rules__default: %s input advice is %s alone",
                   fw[w].label, fw[w].input);
                ok(hosts == 1 && host_ok, "test_rules__default: %s host advice is %s alone",
                   fw[w].label, fw[w].host);
                free(f);
                f = NULL;
        }
#undef PUT
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
                if (fired[k])
                        found++;
                else
                        printf("#   never fired: %s\n", names[k]);
        }
        tap_eq((int64_t)found, (int64_t)(sizeof(names) / sizeof(names[0])),
               "test_rules__default: each advice fires");
        ok(fits, "test_rules__default: messages fit on one line of 90 characters");
        ok(gains, "test_rules__default: every finding has a gain in 0..1");

        /* A clean compute-bound step gets no warnings. */
        m.count = 0;
        fill_step(ms, &m.count, &(step){ .input = 0.01 });
        ok(tpa_rules_findings(r, lookup, &m, &f, &n, &err) == 0 && n == 0 && f == NULL,
           "test_rules__default: a healthy step has no findings (got %zu)", n);
        free(f);
        tpa_rules_free(r);
}

/* Random and mutated rule text must load or fail cleanly, never crash. */
static void test_rules__random(void)
{
        static const char alphabet[] = "classthreshold finding when gain and or not info "
                                       "warning error min max abs ()+-*/<>=!,:\"{}%#\n\t.x_09"
                                       "usmsKiB\\";
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        const char *base = tpa_rules__default_text;
        size_t base_len = tpa_rules__default_len;
        char *buf = malloc(base_len + 64);
        unsigned long long seed = 88172645463325252ull;
        size_t loaded = 0, failed = 0, bad_errors = 0;

        tpa_rules_new_default(&r, &err);
        for (int iter = 0; iter < 10000; iter++) {
                size_t len;
                int rc;

#define RAND() (seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed)
                if (iter % 2 == 0) {
                        len = RAND() % 200;
                        for (size_t i = 0; i < len; i++)
                                buf[i] = iter % 4 == 0 ? (char)(RAND() & 0xff)
                                                       : alphabet[RAND() % (sizeof(alphabet) - 1)];
                } else {
                        memcpy(buf, base, base_len);
                        len = base_len;
                        for (int k = 0; k < 1 + (int)(RAND() % 4) && len > 0; k++) {
                                size_t at = RAND() % len;

                                switch (RAND() % 3) {
                                case 0: buf[at] = (char)(RAND() & 0xff); break;
                                case 1: len = at; break;
                                case 2: buf[at] = alphabet[RAND() % (sizeof(alphabet) - 1)];
                                        break;
                                }
                        }
                }
#undef RAND
                rc = tpa_rules_load_string(r, buf, len, "fuzz", &err);
                if (rc == 0) {
                        loaded++;
                } else {
                        failed++;
                        if (rc != TPA_ERULE || err.line == 0 || err.column == 0 ||
                            err.msg[0] == '\0')
                                bad_errors++;
                }
                if (loaded > 50) {      /* keep the set small */
                        tpa_rules_free(r);
                        tpa_rules_new_default(&r, &err);
                        loaded = 0;
                }
        }
        tap_eq((int64_t)bad_errors, 0, "test_rules__random: every failure is TPA_ERULE with "
               "line:column (%zu failed)", failed);
        free(buf);
        tpa_rules_free(r);
}

/* A query asks the caller once per name: the rules name the same metric in
 * many places, and the caller's look-up may be a scan. Thresholds still win
 * over metrics of the same name, and the values are the ones looked up. */
static size_t counted_calls;

/* The default findings on step `st` with the `extra` metrics set (over
 * fill_step()'s where they share a name): whether
 * `fires` fired and how many findings whose names start with `family`
 * did, each message on one line of at most 90 characters. */
static bool advice(const step *st, const metric *extra, size_t nextra, const char *fires,
                   const char *family, size_t *in_family)
{
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        metric ms[64];
        metrics m = { ms, 0, 0 };
        tpa_finding *f = NULL;
        size_t n = 0;
        bool hit = false, fits = true;

        tpa_rules_new_default(&r, &err);
        fill_step(ms, &m.count, st);
        for (size_t i = 0; i < nextra; i++) {     /* over fill_step()'s, or added */
                size_t k = 0;
                while (k < m.count && strcmp(ms[k].name, extra[i].name) != 0)
                        k++;
                ms[k] = extra[i];
                m.count += k == m.count;
        }
        *in_family = 0;
        if (tpa_rules_findings(r, lookup, &m, &f, &n, &err) < 0)
                printf("# %s\n", err.msg);
        for (size_t i = 0; i < n; i++) {
                hit |= strcmp(f[i].name, fires) == 0;
                *in_family += strncmp(f[i].name, family, strlen(family)) == 0;
                fits &= strlen(f[i].message) <= 90;
        }
        free(f);
        tpa_rules_free(r);
        return hit && fits;
}

/* Python between ops dominant on a TF trace (host 0.5, python 0.3 of it:
 * above launch and setup): eager code is told to compile (@tf.function);
 * a trace whose step calls tf.functions already (tf_function) to call
 * them less often. On a PyTorch trace that runs torch.compile'd code
 * (torch_compiled), to compile what is left. One host_python finding
 * each. */
static void test_rules__python_advice(void)
{
        for (int compiled = 0; compiled < 2; compiled++) {
                const metric extra[] = {
                        { "framework_tf", 1 }, { "framework_pytorch", 0 },
                        { "tf_function", compiled }, { "host_python_frac", 0.3 },
                        { "host_launch_frac", 0.2 },
                };
                const char *want = compiled ? "host_python_tf_function" : "host_python_tf";
                size_t family;
                bool hit = advice(&(step){ .host = 0.5 }, extra,
                                  sizeof(extra) / sizeof(extra[0]), want, "host_python", &family);

                ok(hit && family == 1, "test_rules__python_advice: %s alone, one line", want);
        }
        /* PyTorch: torch.compile advised only where it runs nowhere yet */
        for (int compiled = 0; compiled < 2; compiled++) {
                const metric extra[] = {
                        { "framework_tf", 0 }, { "framework_pytorch", 1 },
                        { "torch_compiled", compiled }, { "host_python_frac", 0.3 },
                        { "host_launch_frac", 0.2 },
                };
                const char *want = compiled ? "host_python_torch_compiled" : "host_python_torch";
                size_t family;
                bool hit = advice(&(step){ .host = 0.5 }, extra,
                                  sizeof(extra) / sizeof(extra[0]), want, "host_python", &family);

                ok(hit && family == 1, "test_rules__python_advice: %s alone, one line", want);
        }
}

/* Input waits dominant on a PyTorch trace: a DataLoader without workers is
 * told to use some, one with workers (loader_workers) that they lag. */
static void test_rules__loader_advice(void)
{
        for (int workers = 0; workers < 2; workers++) {
                const metric extra[] = {
                        { "framework_tf", 0 }, { "framework_pytorch", 1 },
                        { "loader_workers", workers },
                };
                const char *want = workers ? "input_loader_workers" : "input_loader";
                size_t family;
                bool hit = advice(&(step){ .input = 0.6 }, extra,
                                  sizeof(extra) / sizeof(extra[0]), want, "input_loader", &family);

                ok(hit && family == 1, "test_rules__loader_advice: %s alone, one line", want);
        }
}

/* Input waits dominant on a TF trace: a pipeline without prefetch and a
 * parallel stage is told to add them; one with both, to make its stages
 * cheaper; one with a map in Python, that the GIL serializes it, whatever
 * else it has. One input finding each. */
static void test_rules__tf_data_advice(void)
{
        static const struct {
                double      prefetch, parallel, py, gen;
                const char *fires;
        } cases[] = {
                { 0, 0, 0, 0, "input_pipeline" }, { 1, 0, 0, 0, "input_pipeline" },
                { 0, 1, 0, 0, "input_pipeline" }, { 1, 1, 0, 0, "input_pipeline_tuned" },
                { 0, 0, 1, 0, "input_py_function" }, { 1, 1, 1, 0, "input_py_function" },
                /* Dataset.from_generator: its next() is a PyFunc, no map */
                { 0, 0, 1, 1, "input_generator" }, { 1, 1, 1, 1, "input_generator" },
        };

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                const metric extra[] = {
                        { "framework_tf", 1 }, { "framework_pytorch", 0 },
                        { "tf_data_prefetch", cases[c].prefetch },
                        { "tf_data_parallel", cases[c].parallel },
                        { "tf_py_function", cases[c].py },
                        { "tf_data_generator", cases[c].gen },
                };
                size_t family;
                bool hit = advice(&(step){ .input = 0.6 }, extra,
                                  sizeof(extra) / sizeof(extra[0]), cases[c].fires, "input_",
                                  &family);

                ok(hit && family == 1, "test_rules__tf_data_advice: prefetch %g, parallel %g, "
                   "py_function %g, generator %g: %s alone, one line", cases[c].prefetch,
                   cases[c].parallel, cases[c].py, cases[c].gen, cases[c].fires);
        }
}

static bool counted_lookup(void *ctx, const char *name, size_t len, double *out)
{
        counted_calls++;
        return lookup(ctx, name, len, out);
}

static void test_rules__memo(void)
{
        static const char text[] =
                "threshold lim = 0.5\n"
                "class busy when load > lim and load > 0.1 and load < 2\n"
                "finding f1 warning when load > lim\n"
                "  : \"load {load:%} over {lim}\"\n"
                "finding f2 info when load > lim and other == 3\n"
                "  gain load - lim\n"
                "  : \"again {load:%}, other {other}, lim {lim}\"\n";
        static const metric ms[] = { { "load", 0.75 }, { "other", 3 }, { "lim", 99 } };
        metrics m = METRICS(ms);
        tpa_rules *r = empty_rules();
        tpa_error err = TPA_ERROR_INIT;
        tpa_finding *f = NULL;
        const char *cls = NULL;
        size_t n = 0;

        ok(r != NULL && tpa_rules_load_string(r, text, strlen(text), "memo.tpr", &err) == 0,
           "test_rules__memo: load");
        counted_calls = 0;
        ok(tpa_rules_classify(r, counted_lookup, &m, &cls, &err) == 0 &&
           strcmp(cls, "busy") == 0, "test_rules__memo: class");
        tap_eq((int64_t)counted_calls, 1, "test_rules__memo: classify asks for 'load' once");
        counted_calls = 0;
        ok(tpa_rules_findings(r, counted_lookup, &m, &f, &n, &err) == 0 && n == 2,
           "test_rules__memo: two findings");
        tap_eq((int64_t)counted_calls, 2, "test_rules__memo: 'load' and 'other' asked once each");
        tap_streq(n == 2 ? f[0].message : NULL, "load 75% over 0.5",
                  "test_rules__memo: threshold 'lim' wins over the metric");
        tap_streq(n == 2 ? f[1].message : NULL, "again 75%, other 3, lim 0.5",
                  "test_rules__memo: values from the memo");
        ok(n == 2 && f[1].gain_frac == 0.25, "test_rules__memo: gain");
        free(f);
        tpa_rules_free(r);
}

/* A step's class and findings in one query (tpa_rules_classify_findings(),
 * as the analysis asks): the same as the two queries apart, each metric
 * asked for once across both, messages included (names no condition uses,
 * thresholds, a threshold set after loading, a later file naming the same
 * metrics); a right side that short-circuit skips may name no metric. */
static void test_rules__one_query(void)
{
        static const char text[] =
                "threshold lim = 0.5\n"
                "class never when 0 and nosuch > 1\n"
                "class busy when load > lim\n"
                "finding f1 warning when load > lim : \"load {load:%} over {lim:%}, {extra}\"\n"
                "finding f2 info when other == 3 or nosuch : \"other {other}\"\n";
        static const char later[] =
                "finding f3 info when load > 0.7 gain load - lim : \"{{load}} {load} {other}\"\n";
        static const metric ms[] = { { "load", 0.75 }, { "other", 3 }, { "extra", 42 } };
        metrics m = METRICS(ms);
        tpa_rules *r = empty_rules();
        tpa_error err = TPA_ERROR_INIT;
        tpa_finding *f = NULL, *g = NULL;
        const char *cls = NULL, *cls2 = NULL;
        size_t n = 0, n2 = 0;
        bool same;

        ok(r != NULL && tpa_rules_load_string(r, text, strlen(text), "a.tpr", &err) == 0 &&
           tpa_rules_load_string(r, later, strlen(later), "b.tpr", &err) == 0 &&
           tpa_rules_set_threshold(r, "lim=0.25", &err) == 0, "test_rules__one_query: load");
        counted_calls = 0;
        ok(tpa_rules_classify_findings(r, counted_lookup, &m, &cls, &f, &n, &err) == 0 &&
           cls != NULL && strcmp(cls, "busy") == 0 && n == 3, "test_rules__one_query: class, 3 findings");
        /* load, other, extra; once in each file: b.tpr's names are its own */
        tap_eq((int64_t)counted_calls, 5, "test_rules__one_query: each metric asked once a file");
        tap_streq(n == 3 ? f[0].message : NULL, "load 75% over 25%, 42",
                  "test_rules__one_query: a threshold set after loading, a name only a message uses");
        tap_streq(n == 3 ? f[1].message : NULL, "other 3", "test_rules__one_query: second finding");
        tap_streq(n == 3 ? f[2].message : NULL, "{load} 0.75 3",
                  "test_rules__one_query: the later file's, braces kept");
        ok(n == 3 && f[2].gain_frac == 0.5, "test_rules__one_query: gain with the threshold set");
        ok(tpa_rules_classify(r, lookup, &m, &cls2, &err) == 0 &&
           tpa_rules_findings(r, lookup, &m, &g, &n2, &err) == 0, "test_rules__one_query: apart");
        same = cls2 == cls && n2 == n;
        for (size_t i = 0; same && i < n; i++)
                same = strcmp(f[i].name, g[i].name) == 0 && strcmp(f[i].message, g[i].message) == 0 &&
                       f[i].gain_frac == g[i].gain_frac && f[i].severity == g[i].severity;
        ok(same, "test_rules__one_query: the same as the two queries apart");
        free(f);
        free(g);
        tpa_rules_free(r);
}

/* More metric names than a query keeps values for by number (RULES_SLOTS):
 * the rest are looked up by name, with the same results. */
static void test_rules__many_metrics(void)
{
        enum { N = RULES_SLOTS + 44 };
        static metric ms[N];
        static char names[N][16];
        metrics m = { ms, N, (double)NAN };
        tpa_rules *r = empty_rules();
        tpa_error err = TPA_ERROR_INIT;
        tpa_finding *f = NULL;
        const char *cls = NULL;
        size_t n = 0, len = 0, good = 0;
        char *text = malloc((size_t)N * 96 + 64);

        for (int i = 0; i < N && text != NULL; i++) {
                snprintf(names[i], sizeof(names[i]), "m%d", i);
                ms[i] = (metric){ names[i], i };
                len += (size_t)sprintf(text + len, "finding f%d info when m%d >= 0 and m%d != 1 "
                                       ": \"m%d is {m%d}\"\n", i, i, i, i, i);
        }
        if (text != NULL)
                len += (size_t)sprintf(text + len, "class any when 1\n");
        ok(r != NULL && text != NULL && tpa_rules_load_string(r, text, len, "many.tpr", &err) == 0,
           "test_rules__many_metrics: load");
        ok(tpa_rules_classify_findings(r, lookup, &m, &cls, &f, &n, &err) == 0 && n == N - 1,
           "test_rules__many_metrics: every finding but m1's");
        for (size_t i = 0; i < n; i++) {
                char want[32];
                int k = i == 0 ? 0 : (int)i + 1;
                snprintf(want, sizeof(want), "m%d is %d", k, k);
                good += strcmp(f[i].message, want) == 0;
        }
        tap_eq((int64_t)good, (int64_t)N - 1, "test_rules__many_metrics: each message its value");
        free(f);
        free(text);
        tpa_rules_free(r);
}

static bool plan_agrees(const tpa_rules *r, const char *name, double value);

/* More findings, and more message text, than a query keeps in place
 * (rules.c: 16 findings and 2 KB of messages): all of them, in rule order,
 * each with its own message and gain. */
static void test_rules__many_findings(void)
{
        enum { N = 40 };
        static const metric ms[] = { { "load", 0.75 } };
        metrics m = METRICS(ms);
        tpa_rules *r = empty_rules();
        tpa_error err = TPA_ERROR_INIT;
        tpa_finding *f = NULL;
        size_t n = 0, bad = 0, len = 0;
        char *text = malloc(N * 256 + 64);
        char want[256];

        len += (size_t)sprintf(text + len, "class any when 1\n");
        for (int i = 0; i < N; i++)
                len += (size_t)sprintf(text + len,
                                       "finding f%02d info when load > 0.5 gain load * %d\n"
                                       "  : \"finding %d of many, load {load:%%}: "
                                       "%.*s\"\n", i, i, i, 60 + i % 7 * 10,
                                       "................................................"
                                       "................................................"
                                       "................................................");
        ok(r != NULL && tpa_rules_load_string(r, text, len, "many.tpr", &err) == 0,
           "test_rules__many_findings: load");
        ok(tpa_rules_findings(r, lookup, &m, &f, &n, &err) == 0,
           "test_rules__many_findings: findings");
        tap_eq((int64_t)n, N, "test_rules__many_findings: all %d", N);
        for (size_t i = 0; i < n; i++) {
                char name[32];

                snprintf(name, sizeof(name), "f%02zu", i);
                snprintf(want, sizeof(want), "finding %zu of many, load 75%%: %.*s", i,
                         60 + (int)(i % 7) * 10,
                         "................................................"
                         "................................................"
                         "................................................");
                bad += strcmp(f[i].name, name) != 0 || strcmp(f[i].message, want) != 0 ||
                       f[i].gain_frac != 0.75 * (double)i;
        }
        tap_eq((int64_t)bad, 0, "test_rules__many_findings: names, messages and gains");
        ok(plan_agrees(r, "load", 0.75), "test_rules__many_findings: a plan's findings too");
        free(f);
        free(text);
        tpa_rules_free(r);
}

/* Metrics by place, for a plan (tpa_rules_plan_new()): value[i * stride]
 * (stride 0: 1) is that of names[i]; any other name is no metric, to the
 * plan and to the look-up by name of tpa_rules_classify_findings() alike. */
typedef struct vec {
        const char *const *names;
        size_t             count;
        double            *value;
        size_t             stride;
} vec;

static int vec_index(void *ctx, const char *name, size_t len)
{
        const vec *m = ctx;

        for (size_t i = 0; i < m->count; i++)
                if (strlen(m->names[i]) == len && memcmp(m->names[i], name, len) == 0)
                        return (int)(i * (m->stride ? m->stride : 1));
        return -1;
}

static bool vec_lookup(void *ctx, const char *name, size_t len, double *out)
{
        const vec *m = ctx;
        int i = vec_index(ctx, name, len);

        if (i < 0)
                return false;
        *out = m->value[i];
        return true;
}

/* Whether plan p's verdict over m is tpa_rules_classify_findings()'s over
 * the same metrics: the class, each finding (its gain to the bit), or the
 * error and where it is. *failed counts the queries that failed. */
static bool same_verdict(const tpa_rules *r, const tpa_rules_plan *p, vec *m, size_t *failed)
{
        tpa_error e1 = TPA_ERROR_INIT, e2 = TPA_ERROR_INIT;
        const char *c1 = NULL, *c2 = NULL;
        tpa_finding *f1 = NULL, *f2 = NULL;
        size_t n1 = 0, n2 = 0;
        int r1 = tpa_rules_classify_findings(r, vec_lookup, m, &c1, &f1, &n1, &e1);
        int r2 = tpa_rules_plan_verdict(p, m->value, &c2, &f2, &n2, &e2);
        bool same = r1 == r2;

        if (same && r1 < 0) {
                same = e1.code == e2.code && strcmp(e1.msg, e2.msg) == 0 && e1.path == e2.path &&
                       e1.line == e2.line && e1.column == e2.column;
                *failed += 1;
        } else if (same) {
                same = c1 == c2 && n1 == n2 && (n1 > 0) == (f1 != NULL) &&
                       (n2 > 0) == (f2 != NULL);
                for (size_t i = 0; same && i < n1; i++)
                        same = strcmp(f1[i].name, f2[i].name) == 0 &&
                               f1[i].severity == f2[i].severity &&
                               strcmp(f1[i].message, f2[i].message) == 0 &&
                               memcmp(&f1[i].gain_frac, &f2[i].gain_frac,
                                      sizeof(f1[i].gain_frac)) == 0;
        }
        if (!same)
                printf("#   rc %d/%d, class %s/%s, %zu/%zu findings, '%s'/'%s' at %u:%u/%u:%u\n",
                       r1, r2, c1 ? c1 : "-", c2 ? c2 : "-", n1, n2, e1.msg, e2.msg, e1.line,
                       e1.column, e2.line, e2.column);
        free(f1);
        free(f2);
        return same;
}

/* Whether a plan over one metric, `name`, gives what the look-up by name
 * gives. */
static bool plan_agrees(const tpa_rules *r, const char *name, double value)
{
        const char *names[] = { name };
        vec m = { names, 1, &value, 0 };
        tpa_rules_plan *p = NULL;
        tpa_error err = TPA_ERROR_INIT;
        size_t failed = 0;
        bool same = tpa_rules_plan_new(&p, r, vec_index, &m, &err) == 0 &&
                    same_verdict(r, p, &m, &failed);

        tpa_rules_plan_free(p);
        return same;
}

/* A value for a metric of a random query: the edges the rules meet (0,
 * -0, NaN, ties with thresholds) and ordinary ones. */
static double random_value(uint64_t *rs)
{
        static const double vals[] = { 0, 1, -1, 0.5, 0.2, 0.25, 2, 7, 1e-3, 0.05, 1e6,
                                       123456789, 0.333, -0.0, 3 };
        uint64_t k = tap_rand(rs) % (sizeof(vals) / sizeof(vals[0]) + 3);

        if (k < sizeof(vals) / sizeof(vals[0]))
                return vals[k];
        return k % 2 ? (double)NAN : (double)(tap_rand(rs) % 100000) / 1000;
}

/* The default rules through a plan over every metric of the analysis, on
 * random steps, as they are and with --set overrides; and through a plan
 * whose vectors lack three of the metrics the rules name (in some
 * conditions and messages), whose queries fail where the look-up by name
 * fails. */
static void test_rules__plan_default(void)
{
        enum { QUERIES = 1000 };
        size_t count = tpa_analysis_metric_count(), bad = 0, failed = 0, lacking = 0;
        const char **names = malloc(count * sizeof(*names));
        const char **some = malloc(count * sizeof(*some));
        double *value = malloc(count * sizeof(*value));
        vec all = { names, count, value, 0 }, part = { some, 0, value, 0 };
        uint64_t rs = 0x2545f4914f6cdd1du;
        tpa_rules *r = NULL;
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules_plan *p = NULL, *q = NULL;

        for (size_t i = 0; i < count; i++) {
                names[i] = tpa_analysis_metric_name(i);
                if (strcmp(names[i], "launch_slow_frac") != 0 &&
                    strcmp(names[i], "tf_data_generator") != 0 &&
                    strcmp(names[i], "host_gap_median_ns") != 0)
                        some[part.count++] = names[i];
        }
        ok(tpa_rules_new_default(&r, &err) == 0, "test_rules__plan_default: rules");
        for (int set = 0; set < 2; set++) {
                ok(tpa_rules_plan_new(&p, r, vec_index, &all, &err) == 0 &&
                   tpa_rules_plan_new(&q, r, vec_index, &part, &err) == 0,
                   "test_rules__plan_default: plans (%s)", set ? "--set" : "as shipped");
                for (int k = 0; k < QUERIES; k++) {
                        for (size_t i = 0; i < count; i++)
                                value[i] = random_value(&rs);
                        if (k % 3 == 0)         /* often a framework, a fraction that holds */
                                value[vec_index(&all, "framework_tf", 12)] = k % 2;
                        bad += !same_verdict(r, p, &all, &failed);
                        /* the partial vector: the metrics it has in the same places */
                        for (size_t i = 0; i < part.count; i++)
                                value[i] = value[vec_index(&all, some[i], strlen(some[i]))];
                        bad += !same_verdict(r, q, &part, &lacking);
                }
                tpa_rules_plan_free(p);
                tpa_rules_plan_free(q);
                p = q = NULL;
                ok(tpa_rules_set_threshold(r, "bound.min=12%", &err) == 0 &&
                   tpa_rules_set_threshold(r, "gap.min=3us", &err) == 0 &&
                   tpa_rules_set_threshold(r, "notable.min=1%", &err) == 0,
                   "test_rules__plan_default: --set");
        }
        tap_eq((int64_t)bad, 0, "test_rules__plan_default: the plan's verdicts are the query's "
               "(%zu failed, %zu with metrics lacking)", failed, lacking);
        ok(failed == 0 && lacking > 0 && lacking < 2 * QUERIES,
           "test_rules__plan_default: lacking metrics fail some queries, not all");
        tpa_rules_free(r);
        free(names);
        free(some);
        free(value);
}

/* Append a random expression over a few names to buf at *len: metrics
 * (a, b, c), a threshold named like a metric (d), thresholds (t1, t2), a
 * name that is neither (zz), numbers with units, every operator and
 * function. */
static void random_expr(char *buf, size_t size, size_t *len, uint64_t *rs, int depth)
{
        static const char *const leaves[] = { "a", "b", "c", "d", "t1", "t2", "0", "1", "2",
                                              "0.5", "10us", "20%", "a", "b" };
        static const char *const ops[] = { "+", "-", "*", "/", "<", "<=", ">", ">=", "==",
                                           "!=", "and", "or", "and", "or" };
        uint64_t k = depth <= 0 ? 0 : tap_rand(rs) % 8;
        int w;

#define PUT(...) (w = snprintf(buf + *len, size - *len, __VA_ARGS__), \
                  *len += w > 0 && (size_t)w < size - *len ? (size_t)w : 0)
        switch (k) {
        case 0:
        case 1:         /* zz now and then: most queries must get past it */
                k = tap_rand(rs) % (sizeof(leaves) / sizeof(leaves[0]) * 8);
                PUT("%s", k < sizeof(leaves) / sizeof(leaves[0]) * 8 - 1 ? leaves[k / 8] : "zz");
                break;
        case 2:
        case 3:
        case 4:
                PUT("(");
                random_expr(buf, size, len, rs, depth - 1);
                PUT(" %s ", ops[tap_rand(rs) % (sizeof(ops) / sizeof(ops[0]))]);
                random_expr(buf, size, len, rs, depth - 1);
                PUT(")");
                break;
        case 5:
                PUT(tap_rand(rs) % 2 ? "(not " : "(-");
                random_expr(buf, size, len, rs, depth - 1);
                PUT(")");
                break;
        case 6:
                PUT(tap_rand(rs) % 2 ? "min(" : "max(");
                for (uint64_t i = 0, n = 1 + tap_rand(rs) % 3; i < n; i++) {
                        PUT(i > 0 ? ", " : "");
                        random_expr(buf, size, len, rs, depth - 1);
                }
                PUT(")");
                break;
        default:
                PUT("abs(");
                random_expr(buf, size, len, rs, depth - 1);
                PUT(")");
                break;
        }
#undef PUT
}

/* Random rule files through a plan against the look-up by name: classes
 * and findings over random expressions, in two files (the second's
 * thresholds, classes and findings over the first's), --set, messages
 * naming thresholds, metrics and no metric, cut at their longest; on
 * random queries each gives the same class, findings, or error at the
 * same line:column. */
static void test_rules__plan_random(void)
{
        static const char *const names[] = { "a", "b", "c", "d" };
        double value[4 * 97];
        vec m = { names, 4, value, 0 };
        uint64_t rs = 0x9e3779b97f4a7c15u;
        size_t bad = 0, failed = 0, queries = 0, sets = 0;
        char text[8192], long_text[512];

        memset(long_text, 'x', sizeof(long_text) - 1);
        long_text[sizeof(long_text) - 1] = '\0';

        for (int iter = 0; iter < 400; iter++) {
                tpa_rules *r = empty_rules();
                tpa_rules_plan *p = NULL;
                tpa_error err = TPA_ERROR_INIT;
                size_t len = 0;
                bool loaded;

#define E(depth) random_expr(text, sizeof(text), &len, &rs, depth)
#define PUT(s) (len += (size_t)snprintf(text + len, sizeof(text) - len, "%s", s))
                PUT("threshold t1 = 0.5\nthreshold t2 = 2\nthreshold d = 7\nclass k1 when ");
                E(4);
                PUT("\nclass k2 when ");
                E(3);
                PUT("\nfinding f1 info when ");
                E(4);
                PUT(" gain ");
                E(2);
                PUT(" : \"m1 {a} {b:%} {t1:time} {d:bytes}\"\nfinding f2 warning when ");
                E(3);
                PUT(tap_rand(&rs) % 4 ? " : \"m2 {{c}}\"\n" : " : \"m2 {c:int} {zz}\"\n");
                PUT("finding f3 error when ");
                E(4);
                PUT(" gain ");
                E(3);
                PUT(" : \"{c:ms} {a:int}\"\n");
                /* a message cut at 511 bytes in or around a threshold or a value */
                PUT("finding f5 info when ");
                E(2);
                len += (size_t)snprintf(text + len, sizeof(text) - len,
                                        " : \"%.*s{t1:time}%s{a:%%} {t2:bytes}{b}\"\n",
                                        495 + (int)(tap_rand(&rs) % 16), long_text,
                                        tap_rand(&rs) % 2 ? "" : "{{");
                if (tap_rand(&rs) % 8 != 0)
                        PUT("class all when 1\n");
                loaded = tpa_rules_load_string(r, text, len, "one.tpr", &err) == 0;
                if (loaded && iter % 2 == 1) {
                        len = 0;
                        PUT("threshold t1 = 0.25\nclass k3 when ");
                        E(3);
                        PUT("\nfinding f1 warning when ");
                        E(3);
                        PUT(" : \"override {a:ms} {t2}\"\nfinding f4 info when ");
                        E(2);
                        PUT(" : \"m4\"\n");
                        loaded = tpa_rules_load_string(r, text, len, "two.tpr", &err) == 0;
                }
#undef E
#undef PUT
                if (loaded && iter % 4 == 2) {
                        loaded = tpa_rules_set_threshold(r, "t2=5", &err) == 0;
                        sets++;
                }
                /* now and then places too sparse to copy at once */
                m.stride = iter % 3 == 1 ? 97 : 1;
                if (!loaded || tpa_rules_plan_new(&p, r, vec_index, &m, &err) < 0) {
                        printf("#   %s\n", err.msg);
                        bad++;
                }
                for (int k = 0; p != NULL && k < 40; k++, queries++) {
                        for (size_t i = 0; i < 4; i++)
                                value[i * m.stride] = random_value(&rs);
                        bad += !same_verdict(r, p, &m, &failed);
                }
                tpa_rules_plan_free(p);
                tpa_rules_free(r);
        }
        tap_eq((int64_t)bad, 0, "test_rules__plan_random: %zu queries, %zu failed, %zu rule "
               "sets with --set: as the look-up by name", queries, failed, sets);
        ok(failed > queries / 20 && failed < queries / 2,
           "test_rules__plan_random: some queries fail, most do not");
}

/* A plan over steps that lack a metric a user file names: its findings
 * hold until that metric is evaluated, then fail at its line:column (in a
 * condition or in a message); a --set made before the plan is in it, as
 * are the thresholds, classes and findings of a file loaded later. */
static void test_rules__plan_names(void)
{
        static const char text[] =
                "threshold lim = 0.5\n"
                "class busy when load > lim\n"
                "class idle when 1\n"
                "finding f1 warning when load > lim gain load - lim : \"load {load:%}\"\n"
                "finding f2 info when load > 0.9 and rare > 1 : \"rare\"\n"
                "finding f3 info when load > 0.8 : \"also {rare}\"\n";
        static const char later[] =
                "class calm when load < 0.1\n"
                "finding f1 info when load > lim : \"later {lim:%}\"\n";
        static const char *const names[] = { "load", "rare" };
        double value[2] = { 0.75, 0 };
        vec m = { names, 1, value, 0 };         /* no "rare" */
        tpa_rules *r = empty_rules();
        tpa_rules_plan *p = NULL;
        tpa_error err = TPA_ERROR_INIT;
        tpa_finding *f = NULL;
        const char *cls = NULL;
        size_t n = 0, failed = 0;
        int rc;

        ok(r != NULL && tpa_rules_load_string(r, text, strlen(text), "user.tpr", &err) == 0 &&
           tpa_rules_set_threshold(r, "lim=60%", &err) == 0 &&
           tpa_rules_plan_new(&p, r, vec_index, &m, &err) == 0, "test_rules__plan_names: plan");
        ok(tpa_rules_plan_verdict(p, value, &cls, &f, &n, &err) == 0 && strcmp(cls, "busy") == 0 &&
           n == 1 && strcmp(f[0].message, "load 75%") == 0 && fabs(f[0].gain_frac - 0.15) < 1e-12,
           "test_rules__plan_names: --set lim=60%% holds in the plan");
        free(f);
        value[0] = 0.92;
        rc = tpa_rules_plan_verdict(p, value, &cls, &f, &n, &err);
        ok(rc == TPA_ERULE && err.line == 5 && err.column == 37 &&
           strcmp(err.path, "user.tpr") == 0 &&
           strcmp(err.msg, "unknown metric 'rare'") == 0,
           "test_rules__plan_names: a metric the steps lack fails where it is evaluated "
           "(%u:%u %s)", err.line, err.column, err.msg);
        ok(same_verdict(r, p, &m, &failed), "test_rules__plan_names: as the look-up by name");
        m.count = 2;
        value[0] = 0.97;
        value[1] = 0;
        tpa_rules_plan_free(p);
        ok(tpa_rules_plan_new(&p, r, vec_index, &m, &err) == 0 &&
           tpa_rules_plan_verdict(p, value, &cls, &f, &n, &err) == 0 && n == 2 &&
           strcmp(f[1].message, "also 0") == 0, "test_rules__plan_names: with it, no error");
        free(f);
        m.count = 1;
        value[0] = 0.85;
        tpa_rules_plan_free(p);
        rc = tpa_rules_plan_new(&p, r, vec_index, &m, &err);
        rc = rc < 0 ? rc : tpa_rules_plan_verdict(p, value, &cls, &f, &n, &err);
        ok(rc == TPA_ERULE && err.line == 6 && err.column == 36 &&
           strcmp(err.msg, "unknown metric 'rare' in the message") == 0,
           "test_rules__plan_names: in a message (%u:%u %s)", err.line, err.column, err.msg);
        ok(same_verdict(r, p, &m, &failed), "test_rules__plan_names: as the look-up by name");
        tpa_rules_plan_free(p);
        value[0] = 0.05;
        ok(tpa_rules_load_string(r, later, strlen(later), "later.tpr", &err) == 0 &&
           tpa_rules_plan_new(&p, r, vec_index, &m, &err) == 0 &&
           tpa_rules_plan_verdict(p, value, &cls, &f, &n, &err) == 0 &&
           strcmp(cls, "calm") == 0 && n == 0, "test_rules__plan_names: a later file's class");
        free(f);
        value[0] = 0.7;
        ok(tpa_rules_plan_verdict(p, value, &cls, &f, &n, &err) == 0 && n == 1 &&
           strcmp(f[0].name, "f1") == 0 && strcmp(f[0].message, "later 60%") == 0 &&
           f[0].severity == TPA_SEVERITY_INFO && f[0].gain_frac == -1,
           "test_rules__plan_names: a later file's finding replaces one of the same name");
        free(f);
        tpa_rules_plan_free(p);
        tpa_rules_free(r);
}

/* The numbers of messages without printf (rules_eval.c) against printf
 * itself: random values over the magnitudes messages show, values on and
 * next to ties of every decimal, and the rounding up to a power of ten;
 * each must be what printf writes, or left to it (0), never different. */
static uint64_t rng_state = 88172645463325252u;

static uint64_t rng(void)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return rng_state;
}

static void test_rules__number_format(void)
{
        size_t bad_f = 0, bad_g = 0, fast_f = 0, fast_g = 0, n = 0;
        char got[32], want[32];

        for (int i = 0; i < 400000; i++, n++) {
                double v;
                int dec = (int)(rng() % 7);

                switch (i % 4) {
                case 0:         /* 1e-5 .. 1e10, both signs */
                        v = pow(10, (double)(rng() % 150000) / 10000 - 5);
                        break;
                case 1:         /* a tie of `dec` decimals, or a step next to it */
                        v = ((double)(rng() % 2000000) + 0.5) / pow(10, dec);
                        v = i % 8 == 1 ? v : nextafter(v, (rng() & 1) ? 1e300 : -1e300);
                        break;
                case 2:         /* just under a power of ten */
                        v = pow(10, (double)(rng() % 10) - 5) * (1 - (double)(rng() % 1000) * 1e-7);
                        break;
                default:        /* small integers over powers of ten */
                        v = (double)(rng() % 100000) / pow(10, (double)(rng() % 9));
                        break;
                }
                if (rng() & 1)
                        v = -v;
                snprintf(want, sizeof(want), "%.*f", dec, v);
                if (tpa_rules__fmt_fixed(got, v, dec) > 0) {
                        fast_f++;
                        bad_f += strcmp(got, want) != 0;
                }
                snprintf(want, sizeof(want), "%.3g", v);
                if (tpa_rules__fmt_g3(got, v) > 0) {
                        fast_g++;
                        if (strcmp(got, want) != 0 && bad_g++ < 5)
                                printf("# %.17g: %s, printf %s\n", v, got, want);
                }
        }
        tap_eq((int64_t)bad_f, 0, "test_rules__number_format: \"%%.Nf\" as printf (%zu of %zu "
               "without it)", fast_f, n);
        tap_eq((int64_t)bad_g, 0, "test_rules__number_format: \"%%.3g\" as printf (%zu of %zu "
               "without it)", fast_g, n);
        ok(fast_f > n / 2 && fast_g > n / 8,
           "test_rules__number_format: most numbers in range are written without printf");

        /* integers (int, plain, % from 9.95% on: put_int()), -0 included */
        bad_f = 0;
        for (int i = 0; i < 200000; i++) {
                double v = (double)(rng() % 1000000000000000u) / pow(10, (double)(rng() % 16));
                size_t at = 0;
                char pct[40];

                v = i == 0 ? -0.0 : (rng() & 1) ? -v : v;
                snprintf(want, sizeof(want), "%.0f", v);
                tpa_rules__put_value(got, sizeof(got), &at, v, RULES_FMT_INT);
                bad_f += strcmp(got, want) != 0;
                at = 0;
                tpa_rules__put_value(got, sizeof(got), &at, floor(v), RULES_FMT_PLAIN);
                snprintf(want, sizeof(want), "%.0f", floor(v));
                bad_f += strcmp(got, want) != 0;
                if (fabs(v) < 0.0995 || fabs(v) >= 1e12)
                        continue;
                at = 0;
                tpa_rules__put_value(pct, sizeof(pct), &at, v, RULES_FMT_PCT);
                snprintf(want, sizeof(want), "%.0f%%", v * 100);
                bad_f += strcmp(pct, want) != 0;
        }
        tap_eq((int64_t)bad_f, 0, "test_rules__number_format: integers as printf \"%%.0f\"");
}

int main(void)
{
        test_rules__values();
        test_rules__precedence();
        test_rules__errors();
        test_rules__eval_errors();
        test_rules__classes();
        test_rules__extend();
        test_rules__files();
        test_rules__set();
        test_rules__templates();
        test_rules__default();
        test_rules__default_findings();
        test_rules__python_advice();
        test_rules__loader_advice();
        test_rules__tf_data_advice();
        test_rules__random();
        test_rules__memo();
        test_rules__one_query();
        test_rules__many_metrics();
        test_rules__many_findings();
        test_rules__plan_default();
        test_rules__plan_random();
        test_rules__plan_names();
        test_rules__number_format();
        return tap_done();
}
