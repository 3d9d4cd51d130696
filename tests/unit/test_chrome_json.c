/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_json.c - the Chrome trace JSON reader: microsecond text to
 * nanoseconds, and every testdata trace fed in 1..64-byte chunks giving the
 * same events, extras, health and error offsets as one chunk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/chrome_json.h"
#include "tap.h"

static void test_chrome_json__us_to_ns(void)
{
        static const struct { const char *text; long long ns; } ok_cases[] = {
                { "0", 0 }, { "1", 1000 }, { "6793.5895", 6793590 }, { "6793.5894", 6793589 },
                { "1666382280874284.123", 1666382280874284123LL }, { "1.5e3", 1500000 },
                { "2.5E-3", 3 }, { "-2.5e-3", -3 }, { "0.0004999", 0 }, { "0.0005", 1 },
                { "-1.25", -1250 }, { "00012", 12000 }, { "1e-30", 0 }, { "5e-4", 1 },
                { "9223372036854775.807", 9223372036854775807LL },
        };
        static const char *const bad[] = { "", "-", "abc", "1.2.3", "1e", "9223372036854776",
                                           "1e30", "12x" };
        tpa_ns v;

        for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
                bool good = tpa_chrome__us_to_ns(ok_cases[i].text, strlen(ok_cases[i].text), &v);
                tap_ok(good, "test_chrome_json__us_to_ns: '%s' parses", ok_cases[i].text);
                tap_eq(good ? v : -999, ok_cases[i].ns, "test_chrome_json__us_to_ns: '%s'",
                       ok_cases[i].text);
        }
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                tap_ok(!tpa_chrome__us_to_ns(bad[i], strlen(bad[i]), &v),
                       "test_chrome_json__us_to_ns: '%s' is refused", bad[i]);
}

/* What one parse gives, to compare across chunk sizes. */
struct result {
        int        code;
        uint64_t   offset;
        char       msg[200];
        size_t     events;
        tpa_event *ev;
        int64_t   *aux;         /* 5 keys per event, INT64_MIN when absent */
        tpa_health health;
        size_t     warnings;
        int        dialect;
};

static void parse(const char *data, size_t len, size_t chunk, bool strict, struct result *r)
{
        tpa_read_options o = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_parser *p = NULL;
        tpa_trace *tr = NULL;
        int rc;

        memset(r, 0, sizeof(*r));
        o.strict = strict;
        if (tpa_trace_new(&tr, &err) < 0 || tpa_chrome_parser_new(&p, tr, &o, &err) < 0) {
                r->code = TPA_ENOMEM;
                tpa_trace_free(tr);
                return;
        }
        rc = 0;
        for (size_t off = 0; off < len && rc == 0; off += chunk)
                rc = tpa_chrome_parser_feed(p, data + off, len - off < chunk ? len - off : chunk,
                                            &err);
        if (rc == 0)
                rc = tpa_chrome_parser_finish(p, false, &err);
        r->code = rc;
        if (rc < 0) {
                r->offset = err.offset;
                snprintf(r->msg, sizeof(r->msg), "%s", err.msg);
        }
        r->events = tpa_trace_event_count(tr);
        r->ev = calloc(r->events + 1, sizeof(*r->ev));
        r->aux = calloc(r->events * 5 + 1, sizeof(*r->aux));
        if (r->events > 0)
                memcpy(r->ev, tpa_trace_events(tr), r->events * sizeof(*r->ev));
        for (size_t i = 0; i < r->events; i++)
                for (int k = 0; k < 5; k++)
                        if (!tpa_trace_get_aux(tr, i, (tpa_aux_key)(k + 1), &r->aux[i * 5 + k]))
                                r->aux[i * 5 + k] = INT64_MIN;
        r->health = *tpa_trace_health_c(tr);
        r->warnings = tpa_trace_warning_count(tr);
        r->dialect = tpa_trace_dialect(tr);
        tpa_chrome_parser_free(p);
        tpa_trace_free(tr);
}

static bool same(const struct result *a, const struct result *b)
{
        return a->code == b->code && a->offset == b->offset && strcmp(a->msg, b->msg) == 0 &&
               a->events == b->events &&
               memcmp(a->ev, b->ev, a->events * sizeof(*a->ev)) == 0 &&
               memcmp(a->aux, b->aux, a->events * 5 * sizeof(*a->aux)) == 0 &&
               memcmp(&a->health, &b->health, sizeof(a->health)) == 0 &&
               a->warnings == b->warnings && a->dialect == b->dialect;
}

static void release(struct result *r)
{
        free(r->ev);
        free(r->aux);
}

static char *slurp(const char *path, size_t *len)
{
        FILE *f = fopen(path, "rb");
        char *buf;
        long n;

        if (f == NULL)
                return NULL;
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc((size_t)n + 1);
        if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
        }
        fclose(f);
        *len = (size_t)n;
        return buf;
}

static void check_chunks(const char *name, const char *data, size_t len, bool strict)
{
        struct result one, r;
        size_t bad = 0, first_bad = 0;

        parse(data, len, len ? len : 1, strict, &one);
        for (size_t c = 1; c <= 64; c++) {
                parse(data, len, c, strict, &r);
                if (!same(&one, &r) && bad++ == 0)
                        first_bad = c;
                release(&r);
        }
        tap_ok(bad == 0, "test_chrome_json__chunks: %s%s: 1..64-byte chunks as one (%zu events, "
               "code %d at %llu)%s%zu", name, strict ? " (strict)" : "", one.events, one.code,
               (unsigned long long)one.offset, bad ? "; first differing chunk " : "",
               bad ? first_bad : (size_t)0);
        release(&one);
}

static void test_chrome_json__chunks(void)
{
        static const char *const files[] = {
                "kineto_small.json", "synth_tf1_timeline.json", "edge_bare_array_no_close.json",
                "edge_trailing_commas.json", "edge_final_empty.json", "edge_bom.json",
                "edge_string_ids.json", "edge_numbers_as_strings.json", "edge_big_int_args.json",
                "edge_unmatched_be.json", "edge_phases.json", "bad_negative_dur.json",
                "bad_missing_comma.json", "bad_ts_text.json",
        };
        static const char *const inline_cases[] = {
                "[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"name\":\"a\"} , \n ]",
                "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1},],\"x\":[1,2,,]}",
                "[{\"ph\":\"X\",\"ts\":1,\"name\":\"q\\\",]\"},{\"ph\":\"X\",\"ts\":\"2\"},",
                "[{\"ph\":\"X\",\"ts\":1,\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}",
                "[{\"ph\":\"X\",\"ts\":1 \"name\":\"a\"}]",
                "[{\"ph\":\"X\",\"ts\":1,\"name\":tru}]",
                "[1, \"x\", {\"ph\":\"X\",\"ts\":1}]",
                "[{\"ph\":\"X\",\"ts\":1,\v}\f,\v]",      /* trailing commas, \v \f */
        };

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                size_t len;
                char *data = slurp(tap_testdata(files[i]), &len);
                if (!tap_ok(data != NULL, "test_chrome_json__chunks: read %s", files[i]))
                        continue;
                check_chunks(files[i], data, len, false);
                check_chunks(files[i], data, len, true);
                free(data);
        }
        for (size_t i = 0; i < sizeof(inline_cases) / sizeof(inline_cases[0]); i++) {
                char name[32];
                snprintf(name, sizeof(name), "inline case %zu", i + 1);
                check_chunks(name, inline_cases[i], strlen(inline_cases[i]), false);
                check_chunks(name, inline_cases[i], strlen(inline_cases[i]), true);
        }
}

/* A token refused after a map's value, or after the top-level value, is
 * where the error points, for any chunking: yajl moves its offset back
 * over the first (by its length, or to the chunk start; "" and a number
 * cut at a chunk end are where that lands just past it), and stops after,
 * inside or on the second. '@' marks the expected offset. */
static void test_chrome_json__offending_token(void)
{
        static const char *const cases[] = {
                "[{\"ph\":\"X\",\"cat\":\"gpu\"@:0,\"ts\":1}]",
                "[{\"ph\":\"X\",\"name\":\"\"@\"b\"}]",
                "[{\"ph\":\"X\",\"name\":\"\"@:1}]",
                "[{\"ph\":\"X\",\"name\":\"a\"@\"\":1}]",
                "[{\"ph\":\"X\",\"name\":\"a\" @\"\" }]",
                "[{\"ph\":\"X\",\"name\":\"\"@\"\"}]",
                "[{\"ph\":\"X\",\"ts\":1 @23}]",
                "{\"a\":\"x\"   @12345678901234567890123}",
                "{\"a\":1@:2}", "{\"a\":true@:2}", "{\"a\":false@\"\"}", "{\"a\":{}@{}}",
                "{\"a\":[]@\"xyz\"}", "{\"a\":\"x\"@[1]}",
                /* yajl stops on a '/' (a comment), not after it */
                "[{@/memcpy,\"ts\":1}]", "{\"a\" @/", "[ @/*x*/ 1]",
                /* two tokens to yajl, one literal to the filter */
                "{\"a\":null@1}", "{\"a\":-0@-1}",
                /* after the top-level value: the first token after it */
                "\"t{r\"@/]\"t]}", "[1]@/", "null@1", "{} \n @\"abc\"", "1 @2", "[] @12345",
                /* a token read whole after a literal is the one refused */
                "[{\"pid\":257@\"\x02x\"}]", "[1@:", "[1 @2]", "[@tru}",
                /* \v and \f are whitespace to yajl */
                "\"x\"\t\v\f\t@ue,", "[1\v]\f@x",
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char data[128];
                const char *mark = strchr(cases[i], '@');
                size_t want = (size_t)(mark - cases[i]), len, bad = 0;
                struct result r;

                snprintf(data, sizeof(data), "%.*s%s", (int)want, cases[i], mark + 1);
                len = strlen(data);
                for (size_t c = 1; c <= len; c++) {
                        parse(data, len, c, false, &r);
                        if (r.code != TPA_EFORMAT || r.offset != want)
                                bad++;
                        release(&r);
                }
                tap_ok(bad == 0, "test_chrome_json__offending_token: %s: at %zu for 1..%zu-byte "
                       "chunks (%zu differ)", data, want, len, bad);
        }
}

static void test_chrome_json__values(void)
{
        struct result r;
        size_t len;
        char *data = slurp(tap_testdata("edge_numbers_as_strings.json"), &len);

        if (!tap_ok(data != NULL, "test_chrome_json__values: read the file"))
                return;
        parse(data, len, len, false, &r);
        tap_eq(r.code, 0, "test_chrome_json__values: parses");
        tap_eq((int64_t)r.events, 3, "test_chrome_json__values: 3 events");
        if (r.events == 3) {
                tap_eq(r.ev[0].ts, 1666382280874284123LL, "test_chrome_json__values: ts text");
                tap_eq(r.ev[0].dur, 6793590, "test_chrome_json__values: dur rounds half up");
                tap_eq(r.ev[1].ts, 1500000, "test_chrome_json__values: exponent");
                tap_eq(r.ev[2].dur, 1, "test_chrome_json__values: 0.0005 us is 1 ns");
        }
        release(&r);
        free(data);

        data = slurp(tap_testdata("edge_unmatched_be.json"), &len);
        if (data == NULL)
                return;
        parse(data, len, len, false, &r);
        tap_eq((int64_t)r.health.unmatched_end, 1, "test_chrome_json__values: 1 unmatched E");
        tap_eq((int64_t)r.health.unmatched_begin, 1, "test_chrome_json__values: 1 unclosed B");
        tap_eq((int64_t)r.warnings, 2,
               "test_chrome_json__values: a warning for the lone E, one for the unclosed B");
        if (r.events == 4) {
                tap_eq(r.ev[0].dur, 30000, "test_chrome_json__values: outer B/E is 30 us");
                tap_eq(r.ev[1].dur, 10000, "test_chrome_json__values: inner B/E is 10 us");
                tap_eq(r.ev[2].dur, 60000, "test_chrome_json__values: unclosed B ends at the end");
                tap_eq(r.aux[2 * 5 + TPA_AUX_FLAGS - 1] & TPA_FLAG_UNCLOSED, TPA_FLAG_UNCLOSED,
                       "test_chrome_json__values: unclosed B is flagged");
        }
        release(&r);
        free(data);

        parse("[{\"ph\":\"X\",\"ts\":1}", 18, 18, true, &r);
        tap_eq(r.code, TPA_EFORMAT, "test_chrome_json__values: missing ']' is an error if strict");
        tap_eq((int64_t)r.offset, 18, "test_chrome_json__values: ... at the end");
        release(&r);
        parse("[{\"ph\":\"X\",\"ts\":1}", 18, 18, false, &r);
        tap_ok(r.code == 0 && r.health.truncated, "test_chrome_json__values: else a warning");
        release(&r);
}

static void test_chrome_json__limits(void)
{
        char deep[200];
        tpa_read_options o = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_parser *p;
        tpa_trace *tr;
        const char *longstr = "[{\"ph\":\"X\",\"ts\":1,\"name\":\"0123456789abcdef0\"}]";
        int rc;

        memset(deep, '[', 100);
        deep[100] = 0;
        tpa_trace_new(&tr, &err);
        tpa_chrome_parser_new(&p, tr, &o, &err);
        rc = tpa_chrome_parser_feed(p, deep, 100, &err);
        tap_eq(rc, TPA_ELIMIT, "test_chrome_json__limits: depth 65 is refused");
        tap_eq((int64_t)err.offset, 64, "test_chrome_json__limits: ... at the 65th '['");
        tpa_chrome_parser_free(p);
        tpa_trace_free(tr);

        /* objects: at the 65th '{' itself, not the byte after it */
        {
                char objs[600];
                struct result r;
                size_t bad = 0;
                for (int i = 0; i < 100; i++)
                        memcpy(objs + 5 * i, "{\"a\":", 5);
                objs[500] = '1';
                for (size_t c = 1; c <= 64; c++) {
                        parse(objs, 501, c, false, &r);
                        if (r.code != TPA_ELIMIT || r.offset != 64 * 5 || objs[r.offset] != '{')
                                bad++;
                        release(&r);
                }
                tap_ok(bad == 0, "test_chrome_json__limits: object depth 65 is refused at the "
                       "65th '{' (320) for 1..64-byte chunks (%zu differ)", bad);
        }

        o.max_string = 16;
        tpa_trace_new(&tr, &err);
        tpa_chrome_parser_new(&p, tr, &o, &err);
        rc = tpa_chrome_parser_feed(p, longstr, strlen(longstr), &err);
        tap_eq(rc, TPA_ELIMIT, "test_chrome_json__limits: a 17-byte string over a 16-byte cap");
        tap_eq((int64_t)err.offset, 25, "test_chrome_json__limits: ... at its opening quote");
        tpa_chrome_parser_free(p);
        tpa_trace_free(tr);
}

int main(void)
{
        test_chrome_json__us_to_ns();
        test_chrome_json__values();
        test_chrome_json__limits();
        test_chrome_json__chunks();
        test_chrome_json__offending_token();
        return tap_done();
}
