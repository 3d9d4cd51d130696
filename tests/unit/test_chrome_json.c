/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_json.c - the Chrome trace JSON reader: microsecond text to
 * nanoseconds, and every testdata trace fed in 1..64-byte chunks giving the
 * same events, extras, health and error offsets as one chunk; and read on
 * two threads (records read side by side, as for large inputs) as on one,
 * whole, cut short and with bytes broken anywhere, in the forms the
 * segments' scanner reads and in those it leaves to yajl; on a CPU with
 * AVX2, with both builds of the filter and the scanner.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "parse/chrome_filter.h"
#include "parse/chrome_json.h"
#include "parse/classify.h"
#include "parse/json_scan.h"
#include "tap.h"

static void test_chrome_json__us_to_ns(void)
{
        static const struct { const char *text; long long ns; } ok_cases[] = {
                { "0", 0 }, { "1", 1000 }, { "6793.5895", 6793590 }, { "6793.5894", 6793589 },
                { "1666382280874284.123", 1666382280874284123LL }, { "1.5e3", 1500000 },
                { "2.5E-3", 3 }, { "-2.5e-3", -3 }, { "0.0004999", 0 }, { "0.0005", 1 },
                { "-1.25", -1250 }, { "00012", 12000 }, { "1e-30", 0 }, { "5e-4", 1 },
                { "9223372036854775.807", 9223372036854775807LL },
                /* Kineto's integer microseconds since 1970: 16 digits */
                { "1610366728298088", 1610366728298088000LL },
                { "-1610366728298088.5", -1610366728298088500LL },
                { "9223372036854775", 9223372036854775000LL },
                { "0000000000000001", 1000 }, { "0000000000000000.001", 1 },
        };
        static const char *const bad[] = { "", "-", "abc", "1.2.3", "1e", "9223372036854776",
                                           "9223372036854775.808", "-9223372036854775.808",
                                           "9999999999999999.999", "1e30", "12x" };
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
        /* "[-]D.FFF" of 1 to 17 digits and 0 to 3 decimals, against the
         * exact value: taken when it fits in int64_t nanoseconds, else refused */
        {
                uint64_t x = 88172645463325252ull;
                size_t wrong = 0;
                char text[32], first[32] = "";

                for (int n = 0; n < 200000; n++) {
                        size_t len = 0, nint, nfrac;
                        uint64_t want = 0;
                        bool neg, good, over = false;   /* want past UINT64_MAX */

                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        nint = 1 + x % 17;
                        nfrac = (x >> 8) % 4;
                        neg = (x >> 16) & 1;
                        if (neg)
                                text[len++] = '-';
                        for (size_t k = 0; k < nint + nfrac; k++) {
                                unsigned d = (unsigned)((x >> (20 + 2 * (k % 20))) ^ k * 7) % 10;
                                if (k == nint)
                                        text[len++] = '.';
                                if (k == 0 && nint == 16 && (x >> 60) < 8)
                                        d = 1 + d % 8;  /* near the limit, on both sides */
                                text[len++] = (char)('0' + d);
                                over = over || want > (UINT64_MAX - 9) / 10;
                                want = want * 10 + d;
                        }
                        text[len] = '\0';
                        for (size_t k = nfrac; k < 3; k++) {
                                over = over || want > UINT64_MAX / 10;
                                want *= 10;
                        }
                        good = tpa_chrome__us_to_ns(text, len, &v);
                        if (!over && want <= INT64_MAX
                            ? !good || v != (neg ? -(tpa_ns)want : (tpa_ns)want) : good) {
                                if (wrong++ == 0)
                                        snprintf(first, sizeof(first), "%s", text);
                        }
                }
                tap_ok(wrong == 0, "test_chrome_json__us_to_ns: 200000 numbers of up to 17 "
                       "digits and 3 decimals, exact or refused (%zu wrong, the first '%s')",
                       wrong, first);
        }
}

/* What one parse gives, to compare across chunk sizes. */
struct result {
        int        code;
        uint64_t   offset;
        uint64_t   event;
        char       msg[200];
        size_t     events;
        tpa_event *ev;
        int64_t   *aux;         /* 5 keys per event, INT64_MIN when absent */
        tpa_health health;
        size_t     warnings;
        char       warned[1024]; /* each warning's message, count, first offset */
        char       tracks[2048]; /* each thread's pid and tid, as numbers or strings */
        int        dialect;
        int        runtime;
};

/* What `tr` holds after a read that returned `rc` with `err`. */
static void collect(tpa_trace *tr, int rc, const tpa_error *err, struct result *r)
{
        r->code = rc;
        if (rc < 0) {
                r->offset = err->offset;
                r->event = err->event;
                snprintf(r->msg, sizeof(r->msg), "%s", err->msg);
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
        for (size_t i = 0, n = 0; i < r->warnings && n < sizeof(r->warned); i++) {
                const tpa_warning *w = tpa_trace_warning(tr, i);
                n += (size_t)snprintf(r->warned + n, sizeof(r->warned) - n, "%s: %llu from %llu; ",
                                      w->msg, (unsigned long long)w->count,
                                      (unsigned long long)w->first_offset);
        }
        for (size_t i = 0, n = 0; i < tpa_trace_thread_count(tr) && n < sizeof(r->tracks); i++) {
                const tpa_thread *t = tpa_trace_thread_c(tr, (uint32_t)i);
                const tpa_process *pr = tpa_trace_process_c(tr, t->process);
                n += (size_t)snprintf(r->tracks + n, sizeof(r->tracks) - n, "%lld'%s'/%lld'%s' ",
                                      (long long)pr->pid.num, tpa_trace_str(tr, pr->pid.str),
                                      (long long)t->tid.num, tpa_trace_str(tr, t->tid.str));
        }
        r->dialect = tpa_trace_dialect(tr);
        r->runtime = tpa_trace_runtime(tr);
}

/* `data` fed to one parser (yajl, no segments) in chunks of `chunk` bytes. */
static void parse_with(const char *data, size_t len, size_t chunk, const tpa_read_options *o,
                       struct result *r)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_parser *p = NULL;
        tpa_trace *tr = NULL;
        int rc;

        memset(r, 0, sizeof(*r));
        if (tpa_trace_new(&tr, &err) < 0 || tpa_chrome__parser_new(&p, tr, o, &err) < 0) {
                r->code = TPA_ENOMEM;
                tpa_trace_free(tr);
                return;
        }
        rc = 0;
        for (size_t off = 0; off < len && rc == 0; off += chunk)
                rc = tpa_chrome__parser_feed(p, data + off, len - off < chunk ? len - off : chunk,
                                             &err);
        if (rc == 0)
                rc = tpa_chrome__parser_finish(p, false, &err);
        collect(tr, rc, &err, r);
        tpa_chrome__parser_free(p);
        tpa_trace_free(tr);
}

static void parse(const char *data, size_t len, size_t chunk, bool strict, struct result *r)
{
        tpa_read_options o = TPA_READ_OPTIONS_INIT;

        o.strict = strict;
        parse_with(data, len, chunk, &o, r);
}

static bool same(const struct result *a, const struct result *b)
{
        return a->code == b->code && a->offset == b->offset && a->event == b->event &&
               strcmp(a->msg, b->msg) == 0 &&
               a->events == b->events &&
               memcmp(a->ev, b->ev, a->events * sizeof(*a->ev)) == 0 &&
               memcmp(a->aux, b->aux, a->events * 5 * sizeof(*a->aux)) == 0 &&
               memcmp(&a->health, &b->health, sizeof(a->health)) == 0 &&
               a->warnings == b->warnings && strcmp(a->warned, b->warned) == 0 &&
               strcmp(a->tracks, b->tracks) == 0 && a->dialect == b->dialect &&
               a->runtime == b->runtime;
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
        /* past 64 bytes, the filter reads 64-byte blocks too */
        for (size_t c = 1; c <= 64 || (c < len && c <= 256); c++) {
                parse(data, len, c, strict, &r);
                if (!same(&one, &r) && bad++ == 0)
                        first_bad = c;
                release(&r);
        }
        tap_ok(bad == 0, "test_chrome_json__chunks: %s%s: 1..256-byte chunks as one (%zu events, "
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
                /* a ',' in the first 64-byte block, spaces to the chunk's end */
                "[{\"ph\":\"X\",\"ts\":1,\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
                "                    }]",
                /* trailing commas in 64-byte blocks and across their edges */
                "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":[1,2,],},},\n"
                "{\"ph\":\"X\",\"ts\":2,\"name\":\"x,}\",\"args\":{\"b\":\"],\",},       \n  },"
                "{\"ph\":\"X\",\"ts\":3,\"args\":{\"c\":{\"d\":[[],[,],],},}}     ,    \n\n\n"
                "     {\"ph\":\"X\",\"ts\":4,\"args\":{\"e\":1,  }},{\"ph\":\"X\",\"ts\":5},\t\n ]}",
                /* cut inside the last number or literal: a cut like any other */
                "[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"X\",\"ts\":12.",
                "[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"X\",\"ts\":1e+",
                "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1},{\"ts\":-",
                "[{\"ph\":\"X\",\"ts\":1},{\"args\":{\"a\":[tru",
                "[{\"ph\":\"X\",\"ts\":1}, nul",
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
                char data[128], shown[512];
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
                /* shown with its control bytes escaped: a newline in a
                 * description would end the TAP line */
                for (size_t k = 0, o = 0; k < len && o + 5 < sizeof(shown); k++) {
                        if ((unsigned char)data[k] < 0x20)
                                o += (size_t)snprintf(shown + o, sizeof(shown) - o, "\\x%02x",
                                                      (unsigned char)data[k]);
                        else
                                shown[o++] = data[k];
                        shown[o] = '\0';
                }
                tap_ok(bad == 0, "test_chrome_json__offending_token: %s: at %zu for 1..%zu-byte "
                       "chunks (%zu differ)", shown, want, len, bad);
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
        tap_ok(!r.health.events_whole, "test_chrome_json__values: events may be lost");
        release(&r);
        /* cut in Kineto's trailing "traceName": every event was read */
        parse("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}],\"traceName\":\"/tm", 51, 51,
              false, &r);
        tap_ok(r.code == 0 && r.health.truncated && r.health.events_whole,
               "test_chrome_json__values: cut after the events array: none lost");
        release(&r);
}

/* JSON that is no trace is refused at the offending byte, not read as a
 * trace of nothing: torch.profiler's export_memory_timeline() JSON (arrays
 * of numbers), its ExecutionTraceObserver file ({"schema": ..., "nodes":
 * [...]}), any object with no 'traceEvents'. Values that are no record
 * among records are ignored with a warning; an empty trace stays one. */
static void test_chrome_json__not_a_trace(void)
{
        static const struct {
                const char *text;
                int code;
                uint64_t offset;
                size_t warnings;
                const char *msg;
        } cases[] = {
                { "[[1796516470854260, 1796516470854260], [[0, 1, 2048]]]", TPA_ENOTTRACE, 1, 0,
                  "not a trace: its events array holds an array, no event object" },
                { "{\"traceEvents\": [1, 2]}", TPA_ENOTTRACE, 17, 0,
                  "not a trace: its events array holds a number, no event object" },
                { "[\"a\"]", TPA_ENOTTRACE, 1, 0,
                  "not a trace: its events array holds a string, no event object" },
                { "{\"step_ms\": [12.2, 17.6]}", TPA_ENOTTRACE, 0, 0,
                  "not a trace: a JSON object with no 'traceEvents' array" },
                { "{\"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 1, \"nodes\": []}",
                  TPA_ENOTTRACE, 0, 0, "not a trace: a PyTorch execution trace" },
                { "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,"
                  "\"dur\":2}, 7, null]", 0, 0, 1, "" },
                { "{\"traceEvents\": []}", 0, 0, 0, "" },
                { "[]", 0, 0, 0, "" },
        };
        struct result r;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *t = cases[i].text;
                parse(t, strlen(t), strlen(t), false, &r);
                tap_eq(r.code, cases[i].code, "test_chrome_json__not_a_trace: %zu: code (%s)", i,
                       r.msg);
                if (cases[i].code < 0) {
                        tap_eq((int64_t)r.offset, (int64_t)cases[i].offset,
                               "test_chrome_json__not_a_trace: %zu: offset", i);
                        tap_ok(strncmp(r.msg, cases[i].msg, strlen(cases[i].msg)) == 0,
                               "test_chrome_json__not_a_trace: %zu: '%s'", i, r.msg);
                } else {
                        tap_eq((int64_t)r.warnings, (int64_t)cases[i].warnings,
                               "test_chrome_json__not_a_trace: %zu: warnings (%s)", i,
                               r.warned);
                }
                release(&r);
        }
        /* cut before its array: a truncated trace, read as one */
        parse("{\"traceEvents\"", 14, 14, false, &r);
        tap_ok(r.code == 0 || strncmp(r.msg, "not a trace", 11) != 0,
               "test_chrome_json__not_a_trace: cut before the array is no refusal (%s)", r.msg);
        release(&r);
}

/* Ids as numbers up to int64's edges, as strings past them or with a
 * non-digit (the 18-digit loop has no overflow check of its own). */
static void test_chrome_json__ids(void)
{
        static const struct { const char *text; bool number; int64_t num; } ids[] = {
                { "0", true, 0 },
                { "123456789012345678", true, 123456789012345678LL },
                { "-999999999999999999", true, -999999999999999999LL },
                { "9223372036854775807", true, INT64_MAX },
                { "-9223372036854775808", true, INT64_MIN },
                { "9223372036854775808", false, 0 },
                { "-9223372036854775809", false, 0 },
                { "18446744073709551616", false, 0 },
                { "\"12a\"", false, 0 },
                { "\"1\"", true, 1 },
        };
        const size_t n = sizeof(ids) / sizeof(ids[0]);
        char json[2048];
        size_t len = 0;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        tpa_chrome_parser *p = NULL;

        len += (size_t)snprintf(json + len, sizeof(json) - len, "[");
        for (size_t i = 0; i < n; i++)
                len += (size_t)snprintf(json + len, sizeof(json) - len,
                                        "%s{\"ph\":\"X\",\"ts\":%zu,\"dur\":1,\"pid\":1,\"tid\":%s}",
                                        i ? "," : "", i, ids[i].text);
        len += (size_t)snprintf(json + len, sizeof(json) - len, "]");
        if (!tap_ok(tpa_trace_new(&tr, &err) == 0 &&
                    tpa_chrome__parser_new(&p, tr, NULL, &err) == 0 &&
                    tpa_chrome__parser_feed(p, json, len, &err) == 0 &&
                    tpa_chrome__parser_finish(p, false, &err) == 0 &&
                    tpa_trace_event_count(tr) == n,
                    "test_chrome_json__ids: %zu events read", n)) {
                tpa_chrome__parser_free(p);
                tpa_trace_free(tr);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                const tpa_event *e = &tpa_trace_events(tr)[i];
                tpa_id id = tpa_trace_thread_c(tr, e->track)->tid;
                /* INT64_MIN reads as the number, which is also how the
                 * empty string is kept (TPA_ID_EMPTY_STRING) */
                if (ids[i].number)
                        tap_ok(id.str == TPA_STR_EMPTY && id.num == ids[i].num,
                               "test_chrome_json__ids: tid %s is the number", ids[i].text);
                else
                        tap_ok(id.str != TPA_STR_EMPTY,
                               "test_chrome_json__ids: tid %s is a string", ids[i].text);
        }
        tpa_chrome__parser_free(p);
        tpa_trace_free(tr);
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
        tpa_chrome__parser_new(&p, tr, &o, &err);
        rc = tpa_chrome__parser_feed(p, deep, 100, &err);
        tap_eq(rc, TPA_ELIMIT, "test_chrome_json__limits: depth 65 is refused");
        tap_eq((int64_t)err.offset, 64, "test_chrome_json__limits: ... at the 65th '['");
        tpa_chrome__parser_free(p);
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
        tpa_chrome__parser_new(&p, tr, &o, &err);
        rc = tpa_chrome__parser_feed(p, longstr, strlen(longstr), &err);
        tap_eq(rc, TPA_ELIMIT, "test_chrome_json__limits: a 17-byte string over a 16-byte cap");
        tap_eq((int64_t)err.offset, 25, "test_chrome_json__limits: ... at its opening quote");
        tpa_chrome__parser_free(p);
        tpa_trace_free(tr);
}

/* ---- two threads -------------------------------------------------------- */

static void count_progress(void *ctx, uint64_t in, uint64_t out)
{
        uint64_t *last = ctx;

        (void)in;
        last[0]++;
        last[1] = out;
}

static unsigned char *gzip(const char *data, size_t len, size_t *out_len)
{
        z_stream z;
        unsigned char *out;
        size_t cap = len + len / 100 + 1024;

        memset(&z, 0, sizeof(z));
        out = malloc(cap);
        if (out == NULL || deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
                free(out);
                return NULL;
        }
        z.next_in = (unsigned char *)(uintptr_t)data;   /* deflate does not write it */
        z.avail_in = (uInt)len;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
                deflateEnd(&z);
                free(out);
                return NULL;
        }
        *out_len = z.total_out;
        deflateEnd(&z);
        return out;
}

/* `data` gzip'd in memory and read through tpa_read_memory(), which takes
 * two threads (inflate, then yajl | events) when asked (o->threaded). */
static void read_gzip(const unsigned char *gz, size_t gz_len, const tpa_read_options *o,
                      struct result *r, uint64_t *progress)
{
        tpa_read_options opts = *o;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        int rc;

        memset(r, 0, sizeof(*r));
        opts.format = TPA_FORMAT_CHROME_JSON;
        opts.progress = count_progress;
        opts.progress_ctx = progress;
        if (tpa_trace_new(&tr, &err) < 0) {
                r->code = TPA_ENOMEM;
                return;
        }
        rc = tpa_read_memory(tr, gz, gz_len, "test", &opts, &err);
        collect(tr, rc, &err, r);
        tpa_trace_free(tr);
}

static void check_threads(const char *name, const char *data, size_t len,
                          const tpa_read_options *o)
{
        tpa_read_options one = *o, two = *o;
        struct result a, b, y;
        uint64_t pa[2] = { 0, 0 }, pb[2] = { 0, 0 };
        size_t gz_len = 0;
        unsigned char *gz = gzip(data, len, &gz_len);

        if (!tap_ok(gz != NULL, "test_chrome_json__threads: %s: gzip", name))
                return;
        one.threaded = false;
        two.threaded = true;
        read_gzip(gz, gz_len, &one, &a, pa);
        read_gzip(gz, gz_len, &two, &b, pb);
        /* one thread also splits, from 2 MiB on: as one parser alone */
        parse_with(data, len, len, o, &y);
        y.health.bytes_in = a.health.bytes_in;         /* the read's to count */
        y.health.bytes_read = a.health.bytes_read;
        tap_ok(same(&y, &a), "test_chrome_json__threads: %s%s: one thread as one parser alone "
               "(%zu events, code %d at %llu: '%s')", name, o->strict ? " (strict)" : "",
               y.events, y.code, (unsigned long long)y.offset, y.msg);
        release(&y);
        if (a.code < 0 && b.code < 0) {
                /* how far the source had read when parsing stopped: the
                 * ring reads ahead, one thread does not */
                b.health.bytes_in = a.health.bytes_in;
                b.health.bytes_read = a.health.bytes_read;
        }
        /* the chunks differ (the ring's slots are smaller), so the calls do
         * too; after a read to the end, both got to the end */
        tap_ok(same(&a, &b) && (a.code < 0 || (pb[0] > 0 && pb[1] == pa[1])),
               "test_chrome_json__threads: %s%s: two threads as one (%zu events, code %d at "
               "%llu, event %llu: '%s'; %llu progress calls up to %llu bytes)", name,
               o->strict ? " (strict)" : "", a.events, a.code, (unsigned long long)a.offset,
               (unsigned long long)a.event, a.msg, (unsigned long long)pb[0],
               (unsigned long long)pb[1]);
        if (!same(&a, &b))
                printf("# two threads: %zu events, code %d at %llu, event %llu: '%s'\n",
                       b.events, b.code, (unsigned long long)b.offset,
                       (unsigned long long)b.event, b.msg);
        release(&a);
        release(&b);
        free(gz);
}

/* A trace of `n` records, about 250 bytes each, with `bad` (when not NULL)
 * in place of record `at`'s args: enough records that the inflating
 * thread's chunks (256 KiB) cut it in several segments before and after it.
 * Every 13th name has escapes (the filter's byte loop). */
static char *big_trace(size_t n, size_t at, const char *bad, size_t *len)
{
        size_t cap = n * 300 + (bad != NULL ? strlen(bad) : 0) + 64, off = 0;
        char *s = malloc(cap);

        if (s == NULL)
                return NULL;
        off += (size_t)snprintf(s + off, cap - off, "{\"traceEvents\":[\n");
        for (size_t i = 0; i < n; i++) {
                off += (size_t)snprintf(s + off, cap - off,
                        "{\"ph\":\"%s\",\"pid\":%zu,\"tid\":%zu,\"ts\":%zu.%03zu,"
                        "\"dur\":%zu,\"name\":\"op_%s%zu\",\"cat\":\"Op\",\"args\":",
                        i % 7 == 3 ? "B" : i % 7 == 4 ? "E" : "X", i % 3, i % 5, i * 10, i % 1000,
                        i % 9 + 1, i % 13 == 0 ? "\\\"q\\\\" : "", i % 50);
                if (bad != NULL && i == at)
                        off += (size_t)snprintf(s + off, cap - off, "%s", bad);
                else
                        off += (size_t)snprintf(s + off, cap - off,
                                "{\"long_name\":\"model/layer_%zu/MatMul:MatMul\","
                                "\"group_id\":%zu,\"flag\":true,\"none\":null,"
                                "\"list\":[1,2.5,\"x\",{\"in\":[{}]}]}", i % 50, i / 100);
                /* the last one too: a trailing comma */
                off += (size_t)snprintf(s + off, cap - off, "},\n");
        }
        off += (size_t)snprintf(s + off, cap - off, "],\"displayTimeUnit\":\"ns\"}\n");
        *len = off;
        return s;
}

static void test_chrome_json__threads(void)
{
        static const char *const files[] = {
                "kineto_small.json", "synth_tf1_timeline.json", "edge_bare_array_no_close.json",
                "edge_trailing_commas.json", "edge_bom.json", "edge_unmatched_be.json",
                "bad_missing_comma.json", "bad_ts_text.json",
        };
        static const struct { const char *name, *args; } bad[] = {
                { "valid", NULL },
                { "a syntax error", "{\"a\":1 \"b\":2}" },
                { "a bad literal", "{\"a\":tru}" },
                { "a string over the cap", "{\"long_name\":\"0123456789012345678901234567890123456789\"}" },
                { "a key over the cap", "{\"0123456789012345678901234567890123456789\":1}" },
                { "a string over the cap in a list",
                  "{\"a\":[1,\"0123456789012345678901234567890123456789\"]}" },
                { "a key over the cap in a list",
                  "{\"a\":[{\"0123456789012345678901234567890123456789\":1}]}" },
                /* 32 bytes decoded, 40 and 64 written */
                { "strings at the cap in a list", "{\"a\":[\"01234567890123456789012345678901\","
                  "\"\\n\\n\\n\\n\\n\\n\\n\\n012345678901234567890123\",{\"\\t\\t\\t\\t\\t\\t\\t\\t"
                  "\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t"
                  "\\t\\t\\t\\t\\t\\t\\t\\t\":0}]}" },
                { "a string one past the cap in a list",
                  "{\"a\":[\"\\n\\n\\n\\n\\n\\n\\n\\n0123456789012345678901234\"]}" },
                { "nesting too deep", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" },
                { "a record with no '}'", "{\"a\":1}],\"x\":{" },
                /* values of the events array that are no record: counted
                 * by this thread's parser, whichever collected them */
                { "values no record", "{}},7,[1,[2]],\"s\",null,{\"ph\":\"i\"" },
                /* more names than a collected record keeps: read alone */
                { "20 names in a record", "{},\"name\":\"n1\",\"name\":\"n2\",\"name\":\"n3\","
                  "\"name\":\"n4\",\"name\":\"n5\",\"name\":\"n6\",\"name\":\"n7\","
                  "\"name\":\"n8\",\"name\":\"n9\",\"name\":\"n10\",\"cat\":\"c1\","
                  "\"cat\":\"c2\",\"cat\":\"c3\",\"cat\":\"c4\",\"cat\":\"c5\","
                  "\"pid\":\"p1\",\"tid\":\"t1\",\"pid\":\"p2\",\"tid\":\"t2\","
                  "\"name\":\"last\"" },
        };
        tpa_read_options o = TPA_READ_OPTIONS_INIT;

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                size_t len = 0;
                char *data = slurp(tap_testdata(files[i]), &len);
                if (!tap_ok(data != NULL, "test_chrome_json__threads: read %s", files[i]))
                        continue;
                o.strict = false;
                check_threads(files[i], data, len, &o);
                o.strict = true;
                check_threads(files[i], data, len, &o);
                free(data);
        }
        o.max_string = 32;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                size_t len = 0;
                char *data = big_trace(12000, 9000, bad[i].args, &len);
                char name[80];
                if (!tap_ok(data != NULL, "test_chrome_json__threads: make a trace"))
                        continue;
                snprintf(name, sizeof(name), "12000 records, %s at record 9000", bad[i].name);
                o.strict = false;
                check_threads(name, data, len, &o);
                /* cut short inside a record: a warning, or in strict mode an error */
                snprintf(name, sizeof(name), "12000 records, %s, cut at 2/3", bad[i].name);
                check_threads(name, data, len * 2 / 3, &o);
                o.strict = true;
                check_threads(name, data, len * 2 / 3, &o);
                free(data);
        }
}

/* A record with two ops: the last counts, as for any key given twice, also
 * where a collecting parser reads it (it keeps one op, and leaves such a
 * segment to be read alone). Both reads collect segments, so comparing the
 * two, as check_threads() does, would not tell. */
static void test_chrome_json__two_ops(void)
{
        size_t len = 0, gz_len = 0;
        char *data = big_trace(12000, 9000, "{\"tf_op\":\"a/b:First\","
                               "\"annotation\":\"c/d:Second\"}", &len);
        unsigned char *gz = data != NULL ? gzip(data, len, &gz_len) : NULL;

        if (!tap_ok(gz != NULL, "test_chrome_json__two_ops: make a trace")) {
                free(data);
                return;
        }
        for (int threaded = 0; threaded < 2; threaded++) {
                tpa_read_options o = TPA_READ_OPTIONS_INIT;
                tpa_error err = TPA_ERROR_INIT;
                tpa_trace *tr = NULL;
                size_t first = 0, second = 0;
                int rc = -1;

                o.format = TPA_FORMAT_CHROME_JSON;
                o.threaded = threaded;
                if (tpa_trace_new(&tr, &err) == 0)
                        rc = tpa_read_memory(tr, gz, gz_len, "test", &o, &err);
                for (size_t i = 0; rc == 0 && i < tpa_trace_event_count(tr); i++) {
                        int64_t op;
                        if (!tpa_trace_get_aux(tr, i, TPA_AUX_OP, &op))
                                continue;
                        first += strcmp(tpa_trace_str(tr, (tpa_str)op), "a/b") == 0;
                        second += strcmp(tpa_trace_str(tr, (tpa_str)op), "c/d") == 0;
                }
                tap_ok(rc == 0 && first == 0 && second == 1,
                       "test_chrome_json__two_ops: %s: the last op counts (rc %d; "
                       "'a/b' %zu times, 'c/d' %zu)", threaded ? "two threads" : "one thread",
                       rc, first, second);
                tpa_trace_free(tr);
        }
        free(gz);
        free(data);
}

/* One byte changed, dropped or added, anywhere and near the chunks' ends
 * (where the cuts are): two threads as one each time. */
static void test_chrome_json__threads_broken(void)
{
        static const char bytes[] = "{}[],:\" \\0a";
        tpa_read_options o = TPA_READ_OPTIONS_INIT;
        size_t len = 0;
        char *base = big_trace(6000, 0, NULL, &len);
        char *m = malloc(len + 1);
        uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

        if (!tap_ok(base != NULL && m != NULL, "test_chrome_json__threads_broken: a trace")) {
                free(base);
                free(m);
                return;
        }
        /* the ',' before the first record that starts in each chunk (at
         * the cut) dropped */
        memcpy(m, base, len);
        {
                size_t n = len, k = 262144;
                while (k < n) {
                        char *r = strstr(m + k, "},\n{");
                        if (r == NULL)
                                break;
                        memmove(r + 1, r + 2, (size_t)(m + n - (r + 2)));
                        n--;
                        k += 262144;
                }
                check_threads("no ',' before each chunk's first record", m, n, &o);
        }
        for (unsigned i = 0; i < 48; i++) {
                size_t at, n = len;
                char c, name[96];
                unsigned kind;

                rng = rng * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
                at = i % 2 ? (size_t)(rng >> 24) % len
                           : ((size_t)(rng >> 40) % 4 + 1) * 262144 + (size_t)(rng >> 24) % 600;
                at %= len;
                c = bytes[(rng >> 8) % (sizeof(bytes) - 1)];
                kind = (unsigned)(rng >> 4) % 3;
                memcpy(m, base, len);
                if (kind == 0) {
                        m[at] = c;
                } else if (kind == 1) {
                        memmove(m + at, m + at + 1, len - at - 1);
                        n--;
                } else {
                        memmove(m + at + 1, m + at, len - at);
                        m[at] = c;
                        n++;
                }
                snprintf(name, sizeof(name), "byte %zu %s '%c'", at,
                         kind == 0 ? "set to" : kind == 1 ? "dropped, not" : "added:", c);
                check_threads(name, m, n, &o);
        }
        free(base);
        free(m);
}

/* Where records are not the events array's: a root array, maps in an
 * array after the events array, and a trace cut inside that array. */
static void test_chrome_json__threads_places(void)
{
        tpa_read_options o = TPA_READ_OPTIONS_INIT;
        size_t len = 0, n;
        char *t = big_trace(8000, 0, NULL, &len), *u;
        const char *dev = "{\"id\":0,\"name\":\"A100\",\"ph\":\"X\",\"ts\":1,\"dur\":1},\n";
        size_t dlen = strlen(dev);

        if (!tap_ok(t != NULL, "test_chrome_json__threads_places: a trace"))
                return;
        /* [ records ] */
        u = malloc(len + 8);
        n = 0;
        u[n++] = '[';
        memcpy(u + n, t + 16, len - 16);        /* after {"traceEvents":[ */
        n += len - 16;
        n -= strlen("],\"displayTimeUnit\":\"ns\"}\n");
        n += (size_t)sprintf(u + n, "]\n");
        check_threads("a root array of records", u, n, &o);
        free(u);
        /* {"traceEvents":[ records ],"deviceProperties":[ 6000 maps ]} */
        u = malloc(len + 6000 * dlen + 64);
        n = len - strlen("],\"displayTimeUnit\":\"ns\"}\n");
        memcpy(u, t, n);
        n += (size_t)sprintf(u + n, "],\"deviceProperties\":[\n");
        for (unsigned i = 0; i < 6000; i++) {
                memcpy(u + n, dev, dlen);
                n += dlen;
        }
        n += (size_t)sprintf(u + n, "{}]}\n");
        check_threads("maps in an array after the events array", u, n, &o);
        check_threads("... cut inside that array", u, n - 100000, &o);
        free(u);
        free(t);
        /* 3 MB of "{}," (their list would be 50 times that): read alone */
        n = 3u << 20;
        u = malloc(n + 64);
        memcpy(u, "{\"traceEvents\":[", 16);
        for (size_t i = 16; i + 3 <= n; i += 3)
                memcpy(u + i, "{},", 3);
        n = 16 + (n - 16) / 3 * 3;
        n += (size_t)sprintf(u + n, "{}]}");
        check_threads("a million empty records", u, n, &o);
        free(u);
}

/* Records in every form the scanner reads (escapes, literals, exponents,
 * ids as strings, empty values, deep args, every JSON space) and in forms
 * it leaves to yajl (\u escapes, '\v' between tokens, nesting past its
 * depth) or that are errors for yajl (control bytes, bad numbers, bad
 * literals and escapes, a ']' for a '}'): two threads as one each time.
 * Each kind fills records throughout, in every segment. */
static void test_chrome_json__threads_scanner(void)
{
        static const char *const forms[] = {
                "\"ph\":\"X\",\"ts\":1.5e3,\"dur\":2E-1,\"name\":\"exp\"",
                "\"ph\":\"X\",\"ts\":7,\"dur\":1,\"name\":\"a\\nb\\t\\\"c\\\\d\\/e\\b\\f\\r\"",
                "\"ph\":\"X\",\"pid\":\"host\",\"tid\":\"7\",\"ts\":-0.0,\"dur\":0,\"name\":\"\"",
                "\"ph\":\"i\",\"ts\":3.25,\"name\":\"lit\",\"args\":{\"t\":true,\"f\":false,"
                "\"n\":null,\"m\":{},\"a\":[],\"s\":\"\",\"group_id\":12345678901234567890,"
                "\"step_num\":-3,\"correlation\":1E2}",
                " \r\n\t\"ph\" \r\n\t: \r\n\t\"X\" \r\n\t, \"ts\" :\t12 ,\"dur\":\n3 , \"name\""
                ":\"ws\" \r\n\t",
                /* pretty-printed, as Kineto writes: new lines, indents of
                 * every length up to past 16 bytes, found 16 at a time */
                "\n    \"ph\": \"X\", \"cat\": \"Operator\",\n                \"ts\": "
                "1610366728298088,\n                 \"dur\": 5,\r\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
                "\t\t\"name\": \"pretty\", \"args\": {\n       \"Input dims\": [[1, 2], []],"
                "\n                                    \"External id\": 2\n    }\n  ",
                "\"ph\":\"X\",\"ts\":9,\"dur\":1,\"name\":\"deep\",\"args\":{\"d\":"
                "[[[[[[[[[[[[[[[[[[[[{\"x\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}]]]]]]]]]]]]]]]]]]]]}",
                "\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"key\\/\\\"s\",\"n\\tame\":\"k\",\"args\":"
                "{\"long_name\":\"x\\\\y\",\"bytes\":\"42\"}",
                /* times read with their digits: every length, sign and decimals */
                "\"ph\":\"X\",\"ts\":123456789012345.678,\"dur\":0.5,\"name\":\"t1\"",
                "\"ph\":\"X\",\"ts\":-0.25,\"dur\":12345678,\"name\":\"t2\"",
                "\"ph\":\"X\",\"ts\":1234567890123456,\"dur\":1.2345,\"name\":\"t3\"",
                "\"ph\":\"X\",\"ts\":99999999.999,\"dur\":0,\"name\":\"t4\"",
                "\"ph\":\"X\",\"ts\":-7,\"dur\":1.50,\"name\":\"t5\"",
                /* ids read with their digits, and numbers that are no such id
                 * (the 'tid' each record ends with wins over these) */
                "\"ph\":\"X\",\"ts\":1,\"pid\":-0,\"tid\":123456789012345678,\"name\":\"i1\"",
                "\"ph\":\"X\",\"ts\":1,\"pid\":-123456789012345678,\"name\":\"i2\"",
                "\"ph\":\"X\",\"ts\":1,\"pid\":1234567890123456789,\"name\":\"i3\"",
                "\"ph\":\"X\",\"ts\":1,\"pid\":9223372036854775808,\"name\":\"i4\"",
                "\"ph\":\"X\",\"ts\":1,\"pid\":-42,\"name\":\"i5\"",
                "\"ph\":\"X\",\"ts\":1,\"pid\":1.5,\"name\":\"i6\"",
                "\"ph\":\"X\",\"ts\":1,\"pid\":1e3,\"name\":\"i7\"",
                /* read at once: keys twice, values as text, args twice or no map */
                "\"ph\":\"X\",\"ts\":\"12.5\",\"dur\":\"3\",\"pid\":\"7\",\"name\":\"dup\",\"name\":\"dup2\","
                "\"cat\":\"c\",\"cat\":\"d\",\"args\":{\"name\":\"a\",\"step_num\":\"4\"},\"args\":"
                "{\"labels\":\"L\",\"name\":\"b\",\"memcpy_details\":\"size:64 dest:0\","
                "\"tf_function_call\":\"traced\",\"correlation_id\":9,\"group_id\":\"12\"}",
                "\"ph\":\"X\",\"ts\":4,\"dur\":1,\"name\":\"args-text\",\"args\":\"text\",\"z\":null",
                /* read at once up to a list or a map: the record again, a token at a time */
                "\"ph\":\"B\",\"ts\":5,\"name\":\"then-list\",\"cat\":\"x\",\"args\":{\"name\":\"n\"},"
                "\"l\":[1]",
                "\"ph\":\"E\",\"ts\":6,\"name\":\"then-map\",\"args\":{\"bytes\":8,\"m\":{\"name\":2}}",
                /* lists and maps below the args' level, skipped and only
                 * checked: Kineto's, every kind of value in them, spaces
                 * everywhere, a name after them, and at the record's level */
                "\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"ts\":1610366728298088,"
                "\"dur\":12,\"args\":{\"External id\":3,\"Input Dims\":[[32,3,224,224],[64,3,7,7],"
                "[],[]],\"Input type\":[\"float\",\"float\",\"\",\"\"],\"Ev Idx\":2}",
                "\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":2,\"dur\":1,\"args\":{"
                "\"stream\":7,\"correlation\":11,\"grid\":[1,2,3],\"block\":[128,1,1],"
                "\"est. achieved occupancy %\":0}",
                "\"ph\":\"X\",\"ts\":3,\"dur\":1,\"name\":\"kinds\",\"args\":{\"m\":{\"k\":[true,"
                "false,null,-0.5e-3,0,1E+2,\"s\\\"t\\n\",{},[],{\"\":\"\"}]},"
                "\"l\":[[],{\"a\":[1,2]}],"
                "\"name\":\"after\",\"correlation\":5}",
                "\"ph\":\"X\",\"ts\":4,\"dur\":1,\"name\":\"spaced\",\"args\":{\"a\" : [ \n 1 ,\t2 "
                "\r\n ] , \"b\":{ \"c\" :\n[ ] , \"d\" : { } } , \"name\" : \"x\" }",
                "\"ph\":\"X\",\"ts\":5,\"l\":[1,{\"x\":[2]}],\"m\":{\"name\":\"not-the-name\","
                "\"args\":{\"name\":\"no\"}},\"dur\":2,\"name\":\"rec-nested\"",
                /* keys like the ones the records before had at the same
                 * place, which the scanner compares first: longer, shorter,
                 * the same up to its last byte, no key it knows */
                "\"ph\":\"X\",\"ts\":8,\"dur\":1,\"namx\":\"not-a-name\"",
                "\"ph\":\"X\",\"tsx\":1,\"ts\":3,\"du\":2,\"dur\":1,\"name\":\"alike\","
                "\"args\":{\"group_i\":1,\"group_id\":\"7\",\"correlation_idx\":5,"
                "\"correlation_id\":\"8\",\"abcdefghijklmnopqrstuvwxyz012\":1,"
                "\"abcdefghijklmnopqrstuvwxyz0123\":2}",
        };
        static const struct { const char *name, *args; uint32_t depth; } odd[] = {
                { "a \\u escape", "{\"a\":\"caf\\u00e9 \\ud83d\\ude00\"}", 0 },
                { "a \\u escape in a key", "{\"n\\u0061me\":1}", 0 },
                { "'\\v' and '\\f' between tokens", "{\"a\":\v1,\f\"b\":2}", 0 },
                { "'\\v' and '\\f' in runs of spaces past 16 bytes",
                  "{\"a\":                    \v1,\n                 \f\"b\":2}", 0 },
                { "nesting past the scanner's depth", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 100 },
                { "a control byte in a string", "{\"a\":\"x\001y\"}", 0 },
                { "a leading zero", "{\"a\":01}", 0 },
                { "a number ending in '.'", "{\"a\":1.}", 0 },
                { "a lone '-'", "{\"a\":-}", 0 },
                { "an exponent without digits", "{\"a\":1e+}", 0 },
                { "'tru'", "{\"a\":tru}", 0 },
                { "'nulll'", "{\"a\":nulll}", 0 },
                { "'falsey'", "{\"a\":falsey}", 0 },
                { "a bad escape", "{\"a\":\"\\x\"}", 0 },
                { "a short \\u", "{\"a\":\"\\u12\"}", 0 },
                { "']' for '}'", "{\"a\":[1}]", 0 },
                { "a ']' in a map", "{\"a\":1]", 0 },
                { "a key that is no string", "{a:1}", 0 },
                { "a missing ':'", "{\"a\" 1}", 0 },
                /* offsets the scanner gives: the record's, a string's, a number's */
                { "an unknown phase", "{},\"ph\":\"Q\"", 0 },
                { "'ts' text", "{},\"ts\":\"abc\"", 0 },
                { "a leading zero in 'ts'", "{},\"ts\":0123.5", 0 },
                { "'ts' out of range", "{},\"ts\":1e300", 0 },
                { "a negative 'dur'", "{},\"dur\":-5", 0 },
                { "a negative 'dur' as text", "{},\"dur\":\"-5\"", 0 },
                { "args past the depth limit", "{\"name\":\"n\"}", 3 },
                /* in a list below the args' level, which the scanner skips */
                { "a \\u escape in a list", "{\"a\":[[\"caf\\u00e9\"]]}", 0 },
                { "a control byte in a list", "{\"a\":[\"x\001y\"]}", 0 },
                { "a missing ',' in a list", "{\"a\":[1 2]}", 0 },
                { "two ',' in a list", "{\"a\":[1,,2]}", 0 },
                { "a key with no value in a list", "{\"a\":[{\"k\"}]}", 0 },
                { "a key and ':' with no value", "{\"a\":{\"k\":}}", 0 },
                { "a key that is a number, in a map in the args", "{\"a\":{1:2}}", 0 },
                { "'}' for ']' in a list", "{\"a\":[1}}", 0 },
                { "'nul' in a list", "{\"a\":[nul]}", 0 },
                { "'trux' in a list", "{\"a\":[trux]}", 0 },
                { "a key and no ':' in a map in the args", "{\"a\":{\"k\" 1}}", 0 },
                { "a leading zero in a list", "{\"a\":[01]}", 0 },
                { "'\\v' in a list", "{\"a\":[1,\v2]}", 0 },
                { "a list not closed", "{\"a\":[1,[2]}", 0 },
                /* the args at depth 4: lists to depth 8 */
                { "lists at the depth limit", "{\"a\":[[[[1]]]],\"name\":\"n\"}", 8 },
                { "lists past the depth limit", "{\"a\":[[[[1]]]],\"name\":\"n\"}", 7 },
                { "a map past the depth limit", "{\"a\":[[[{}]]]}", 7 },
                { "a record's list past the depth limit", "{},\"l\":[[[[[1]]]]]", 7 },
                { "17 names in a record", "{},\"name\":\"a\",\"cat\":\"b\",\"pid\":\"c\",\"tid\":\"d\","
                  "\"name\":\"e\",\"cat\":\"f\",\"pid\":\"g\",\"tid\":\"h\",\"name\":\"i\",\"cat\":\"j\","
                  "\"pid\":\"k\",\"tid\":\"l\",\"name\":\"m\",\"cat\":\"n\",\"pid\":\"o\",\"tid\":\"p\","
                  "\"name\":\"q\"", 0 },
        };
        tpa_read_options o = TPA_READ_OPTIONS_INIT;
        size_t n = 0, cap = 12000 * 400;
        char *t = malloc(cap);
        const size_t nforms = sizeof(forms) / sizeof(forms[0]);

        if (!tap_ok(t != NULL, "test_chrome_json__threads_scanner: a trace"))
                return;
        n += (size_t)snprintf(t + n, cap - n, "{\"traceEvents\":[");
        for (size_t i = 0; i < 12000; i++)
                n += (size_t)snprintf(t + n, cap - n, "{%s,\"tid\":%zu},\n", forms[i % nforms],
                                      i % 4);
        n += (size_t)snprintf(t + n, cap - n, "{}]}");
        check_threads("every form the scanner reads", t, n, &o);
        o.strict = true;
        check_threads("... cut at 2/3", t, n * 2 / 3, &o);
        o.strict = false;
        /* at one place, in turn, two keys of the same size */
        n = (size_t)snprintf(t, cap, "{\"traceEvents\":[");
        for (size_t i = 0; i < 12000; i++)
                n += (size_t)snprintf(t + n, cap - n, "{\"ph\":\"X\",\"ts\":%zu,\"dur\":4,"
                                      "\"%s\":%zu,\"%s\":%zu,\"name\":\"n\"},\n", i,
                                      i % 2 ? "tid" : "pid", i % 7, i % 2 ? "pid" : "tid", i % 5);
        n += (size_t)snprintf(t + n, cap - n, "{}]}");
        check_threads("pid and tid in turn", t, n, &o);
        /* records that begin alike, the scanner's heads: more kinds than it
         * keeps, in turn; heads one byte apart (in a key, an id, the phase);
         * the same first members with spaces, or at 64 bytes and past them;
         * ids again later in the record; a head and no more; a name in it;
         * ids that are no integer, a phase that is no letter; records the
         * same past their heads */
        {
                static const char *const heads[] = {
                        "\"ph\":\"X\",\"pid\":501,\"tid\":4098221920,",
                        "\"ph\":\"X\",\"pid\":502,\"tid\":4098221920,",
                        "\"ph\":\"X\",\"pid\":501,\"tid\":4098221921,",
                        "\"ph\":\"B\",\"pid\":501,\"tid\":4098221920,",
                        "\"ph\":\"X\",\"pid\":501,\"tix\":4098221920,",
                        "\"ph\":\"X\",\"tid\":7,\"pid\":-3,",
                        "\"ph\" : \"X\" ,\n \"pid\":1, \"tid\":2 ,",
                        /* 64 bytes, 65 */
                        "\"ph\":\"X\",   \"pid\":123456789012345678,  \"tid\":123456789012345678,",
                        "\"ph\":\"X\",   \"pid\":123456789012345678,   \"tid\":123456789012345678,",
                        "\"ph\":\"X\",\"pid\":501,\"tid\":9,\"pid\":1,\"ph\":\"E\",",
                        "\"ph\":\"XY\",\"pid\":501,",
                        "\"ph\":\"X\",\"pid\":\"501\",\"tid\":3,",
                        "\"ph\":\"X\",\"pid\":\"host\",\"tid\":3,",
                        "\"ph\":null,\"pid\":true,\"tid\":3,",
                        "\"ph\":7,\"tid\":3,",
                        "\"ph\":\"X\",\"name\":\"early\",\"pid\":1,",
                        "\"ph\":\"X\",\"pid\":5.5,\"tid\":3,",
                        "\"pid\":8,",
                        "\"ph\":\"i\",",
                };
                static const char *const tails[] = {
                        "\"dur\":2,\"name\":\"h\"",
                        "\"dur\":1,\"pid\":77,\"name\":\"again\",\"tid\":78",
                        "\"name\":\"n\",\"args\":{\"group_id\":\"4\"}",
                        "\"dur\":3,\"name\":\"same\"",
                };
                const size_t nh = sizeof(heads) / sizeof(heads[0]);
                uint64_t rng = 7;

                n = (size_t)snprintf(t, cap, "{\"traceEvents\":[");
                for (size_t i = 0; i < 12000; i++) {
                        size_t h = i < 6000 ? i % 6 : (size_t)(tap_rand(&rng) % nh);
                        n += (size_t)snprintf(t + n, cap - n, "{%s", heads[h]);
                        if (i % 97 == 0) {
                                t[n - 1] = '}';         /* the head and no more */
                                n += (size_t)snprintf(t + n, cap - n, ",\n");
                                continue;
                        }
                        /* every fourth the same record but for its head */
                        n += (size_t)snprintf(t + n, cap - n, "\"ts\":%zu,%s",
                                              i % 4 == 3 ? 5 : i, tails[i % 4]);
                        n += (size_t)snprintf(t + n, cap - n, "},\n");
                }
                n += (size_t)snprintf(t + n, cap - n, "{}]}");
                check_threads("records that begin alike", t, n, &o);
        }
        /* times of every length, 1 to 16 digits (16: a '1' first, as
         * Kineto's microseconds since 1970) and 0 to 5 decimals, signed or
         * not, a zero, an exponent after them; 16 digits in the last one */
        {
                static const char digits[] = "9876543210987654321", decimals[] = "0123456789";
                static const char *const ends[] = { "", "e2", "E-1" };
                uint64_t rng = 11;

                n = (size_t)snprintf(t, cap, "{\"traceEvents\":[");
                for (size_t i = 0; i < 12000; i++) {
                        unsigned len = (unsigned)(tap_rand(&rng) % 16) + 1;
                        unsigned dec = (unsigned)(tap_rand(&rng) % 6);
                        uint64_t x = tap_rand(&rng);
                        bool zero = x % 11 == 0;

                        n += (size_t)snprintf(t + n, cap - n, "{\"ph\":\"X\",\"ts\":%s%.*s%s%.*s%s,"
                                              "\"dur\":%u%s,\"name\":\"t\"},\n",
                                              x % 2 ? "-" : "", zero ? 1 : (int)len,
                                              zero ? "0" : len == 16 ? "1234567890123456"
                                                                     : digits + (x >> 8) % 3,
                                              dec ? "." : "",
                                              (int)dec, decimals + (x >> 16) % 5,
                                              x % 13 == 0 && len < 9 ? ends[(x >> 24) % 3] : "", len,
                                              dec == 1 ? ".5" : "");
                }
                n += (size_t)snprintf(t + n, cap - n, "{\"ph\":\"X\",\"ts\":1234567890123456,"
                                      "\"dur\":1,\"name\":\"t\"}]}");
                check_threads("times of every length", t, n, &o);
        }
        /* 16 digits at the limits, past the first MiB (one thread reads
         * segments from there): the range's end (2^61 ns) and one past,
         * signed; INT64_MAX ns and one past (that one left to
         * tpa_chrome__us_to_ns()); numbers past the form. Those read
         * without an error in one trace, each of the others in its own. */
        {
                static const char *const fine[] = {
                        "2305843009213693.952", "-2305843009213693.952", "1661203462598801e0",
                        "1661203462598801.1234",
                };
                static const char *const bad[] = {
                        "2305843009213693.953", "-2305843009213693.953", "9223372036854775.807",
                        "9223372036854775.808", "9999999999999999", "12345678901234567",
                        "0661203462598801", "1661203462598801.",
                };
                const size_t nfine = sizeof(fine) / sizeof(fine[0]), at = 25000;

                for (size_t j = 0; j <= sizeof(bad) / sizeof(bad[0]); j++) {
                        char name[80];

                        n = (size_t)snprintf(t, cap, "{\"traceEvents\":[");
                        for (size_t i = 0; i < at + 1000; i++) {
                                const char *ts = "1661203462598801";

                                if (j == 0 && i >= at && i - at < nfine)
                                        ts = fine[i - at];
                                else if (j > 0 && i == at)
                                        ts = bad[j - 1];
                                n += (size_t)snprintf(t + n, cap - n,
                                                      "{\"ph\":\"X\",\"ts\":%s,\"dur\":1,"
                                                      "\"name\":\"t\"},\n", ts);
                        }
                        n += (size_t)snprintf(t + n, cap - n, "{}]}");
                        snprintf(name, sizeof(name), "'ts' %s at record %zu",
                                 j == 0 ? "at the limits, valid," : bad[j - 1], at);
                        check_threads(name, t, n, &o);
                }
        }
        /* times last in their records, so that each segment's last one
         * lies within a few bytes of its end (the scanner reads it from a
         * padded copy); then the trace cut inside the last time, at each
         * of its bytes */
        {
                size_t at;

                n = (size_t)snprintf(t, cap, "{\"traceEvents\":[");
                for (size_t i = 0; i < 40000; i++)
                        n += (size_t)snprintf(t + n, cap - n,
                                              "{\"ph\":\"X\",\"dur\":%zu,\"ts\":%zu.%03zu},\n", i % 7,
                                              1000000 + i, i % 1000);
                at = n;
                n += (size_t)snprintf(t + n, cap - n,
                                      "{\"ph\":\"X\",\"dur\":2,\"ts\":-1661203462598801.125}]}");
                check_threads("times last in their records", t, n, &o);
                for (size_t cut = at + 23; cut <= n - 3; cut++) {       /* before '}' */
                        char name[64];
                        snprintf(name, sizeof(name), "... cut %zu bytes into the last time",
                                 cut - at - 23);
                        check_threads(name, t, cut, &o);
                }
        }
        free(t);
        o.strict = false;
        for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
                size_t len = 0;
                char *data = big_trace(12000, 9000, odd[i].args, &len);
                char name[96];
                if (!tap_ok(data != NULL, "test_chrome_json__threads_scanner: make a trace"))
                        continue;
                o.max_depth = odd[i].depth;
                snprintf(name, sizeof(name), "12000 records, %s at record 9000", odd[i].name);
                check_threads(name, data, len, &o);
                free(data);
        }
}

/* Random JSON-ish text for the filter: a root map or array, nesting up to
 * depth 7 (records at depth 2 or deeper in them), short strings holding
 * brackets, commas and now and then an escape, numbers, commas followed by
 * spaces and by a closing bracket, and now and then a stray closing
 * bracket (the depth never goes under 0). Valid or not is all one to the
 * filter. Returns the length written, below `cap`. */
static size_t filter_text(char *out, size_t cap, uint64_t *rng)
{
        static const char ws[] = " \n\t\r\v\f";
        static const char str_bytes[] = "ab{}[],: \"";
        char stack[8];
        size_t n = 0, depth = 0;

        n += (size_t)sprintf(out, tap_rand(rng) % 3 == 0 ? "[" : "{\"traceEvents\":[");
        stack[depth++] = '[';
        while (n + 128 < cap) {
                unsigned r = (unsigned)(tap_rand(rng) % 100);

                if (r < 22 && depth < 7) {
                        /* deeper more often near the records' depth */
                        out[n++] = r < 16 ? '{' : '[';
                        stack[depth++] = out[n - 1];
                } else if (r < 40 && depth > 1) {
                        if (r < 26) {                   /* a trailing comma */
                                out[n++] = ',';
                                for (unsigned k = (unsigned)(tap_rand(rng) % 4); k > 0; k--)
                                        out[n++] = ws[tap_rand(rng) % 6];
                        }
                        out[n++] = stack[--depth] == '{' ? '}' : ']';
                } else if (r < 65) {
                        unsigned len = (unsigned)(tap_rand(rng) % 40);
                        out[n++] = '"';
                        for (unsigned k = 0; k < len; k++) {
                                char c = str_bytes[tap_rand(rng) % (sizeof(str_bytes) - 2)];
                                if (tap_rand(rng) % 200 == 0) {
                                        out[n++] = '\\';
                                        c = str_bytes[tap_rand(rng) % (sizeof(str_bytes) - 1)];
                                }
                                out[n++] = c;
                        }
                        out[n++] = '"';
                } else if (r < 75) {
                        n += (size_t)sprintf(out + n, "%u", (unsigned)(tap_rand(rng) % 100000));
                } else if (r < 93) {
                        out[n++] = r < 80 ? ':' : ',';
                        for (unsigned k = (unsigned)(tap_rand(rng) % 3); k > 0; k--)
                                out[n++] = ws[tap_rand(rng) % (r < 86 ? 2 : 6)];
                } else if (r < 94) {
                        out[n++] = tap_rand(rng) % 2 ? '}' : ']';      /* stray */
                } else {
                        out[n++] = ws[tap_rand(rng) % 6];
                }
        }
        while (depth > 0)
                out[n++] = stack[--depth] == '{' ? '}' : ']';
        return n;
}

static bool same_tok(const struct tok_state *a, const struct tok_state *b)
{
        return a->start == b->start && a->in_str == b->in_str && a->esc == b->esc &&
               a->boundary == b->boundary && a->literal == b->literal;
}

/* The filter's 64-byte blocks (nesting by counts, commas by masks) give
 * what its byte loop gives: the same bytes, notes (cuts, held commas,
 * token states) and nesting after every chunk, on random text in random
 * chunks. With max_string under 64 the filter reads no blocks; no string
 * here is that long. */
static void test_chrome_json__filter_blocks(void)
{
        const size_t cap = 1 << 16;
        char *text = malloc(cap);
        unsigned char *a = malloc(cap), *b = malloc(cap);
        uint64_t rng = UINT64_C(0x2545f4914f6cdd1d);
        unsigned bad = 0, cuts = 0, late = 0;

        if (!tap_ok(text != NULL && a != NULL && b != NULL, "test_chrome_json__filter_blocks: "
                    "buffers")) {
                free(text);
                free(a);
                free(b);
                return;
        }
        for (unsigned round = 0; round < 300 && bad == 0; round++) {
                size_t len = filter_text(text, cap - (size_t)(tap_rand(&rng) % 60000), &rng);
                struct filter fa = { 0 }, fb = { 0 };

                fa.max_string = 63;
                fb.max_string = 1u << 20;
                fa.bom_ok = fb.bom_ok = true;
                fa.tok.boundary = fb.tok.boundary = true;
                memcpy(a, text, len);
                memcpy(b, text, len);
                for (size_t off = 0, k; off < len && bad == 0; off += k) {
                        struct chunk_note na, nb;

                        k = round % 4 == 0 ? 65536 : 1 + (size_t)(tap_rand(&rng) % 3000);
                        k = k < len - off ? k : len - off;
                        memset(&na, 0, sizeof(na));
                        memset(&nb, 0, sizeof(nb));
                        tpa_chrome__filter_chunk(&fa, a + off, k, &na);
                        tpa_chrome__filter_chunk(&fb, b + off, k, &nb);
                        cuts += nb.cut < k;
                        late += nb.cut < k && nb.cut >= 128;
                        if (memcmp(a + off, b + off, k) != 0 || na.lead != nb.lead ||
                            na.resolve != nb.resolve || !same_tok(&na.tok, &nb.tok) ||
                            na.tail != nb.tail || na.skip != nb.skip || na.cut != nb.cut ||
                            (na.tail < k && !same_tok(&na.tail_tok, &nb.tail_tok)) ||
                            (na.tail == k && !same_tok(&na.end_tok, &nb.end_tok)) ||
                            fa.depth != fb.depth || fa.kind[0] != fb.kind[0] ||
                            (fa.depth > 1 && fa.kind[1] != fb.kind[1]) ||
                            fa.in_str != fb.in_str || fa.comma != fb.comma) {
                                bad++;
                                printf("# round %u, chunk at %zu (%zu bytes): cut %zu/%zu, "
                                       "tail %zu/%zu, depth %u/%u\n", round, off, k, na.cut,
                                       nb.cut, na.tail, nb.tail, (unsigned)fa.depth,
                                       (unsigned)fb.depth);
                        }
                }
        }
        tap_ok(bad == 0 && late > 0, "test_chrome_json__filter_blocks: blocks as the byte "
               "loop (%u cuts, %u of them past the chunk's first 128 bytes)", cuts, late);
        free(text);
        free(a);
        free(b);
}

/* `data` (gzip when `gz`) read with its events classified in one part and
 * in two: the same events, extras, counts and warnings. */
static void check_parts(const char *name, const char *data, size_t len, bool gz)
{
        tpa_read_options o = TPA_READ_OPTIONS_INIT;
        struct result r[2];
        uint64_t progress[2] = { 0, 0 };

        for (int k = 0; k < 2; k++) {
                tpa_classify__parts_from(k == 0 ? SIZE_MAX : 1);
                if (gz)
                        read_gzip((const unsigned char *)data, len, &o, &r[k], progress);
                else
                        parse(data, len, len, false, &r[k]);
        }
        tpa_classify__parts_from(TPA_CLASSIFY_PARTS_FROM);
        tap_ok(r[0].code == 0 && r[0].events > 0 && same(&r[0], &r[1]),
               "test_chrome_json__classify_parts: %s: two parts as one (%zu events; dialect %d, "
               "%llu duplicates)", name, r[0].events, (int)r[0].dialect,
               (unsigned long long)r[0].health.duplicates_dropped);
        release(&r[0]);
        release(&r[1]);
}

/* The events' kinds, step numbers and counts the same when classified in
 * two parts as in one: TF1 (duplicate views), TF2 (the Steps line's step
 * numbers), Kineto (runtime calls linked through categories either part
 * met), generic. */
static void test_chrome_json__classify_parts(void)
{
        static const char *const files[] = {
                "synth_tf1_timeline.json", "tf1_timeline.json", "kineto_small.json",
                "edge_phases.json", "edge_string_ids.json", "synth_tf2.trace.json.gz",
                "tf2_input_bound.trace.json.gz", "torch_compiled.trace.json.gz",
                "torch_host_bound.trace.json.gz", "dist_rank1.pt.trace.json.gz",
        };
        /* what only the second part has: Kineto's runtime category (a copy
         * from pageable memory makes its call a wait); TF1 duplicate views,
         * named after their events */
        static const char *const second[] = {
                "{\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a\",\"pid\":9,\"tid\":9,\"ts\":1,\"dur\":1},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::b\",\"pid\":9,\"tid\":9,\"ts\":3,\"dur\":1},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::c\",\"pid\":9,\"tid\":9,\"ts\":5,\"dur\":1},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":9,\"tid\":9,"
                "\"ts\":7,\"dur\":1,\"args\":{\"correlation\":1}},"
                "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
                "\"pid\":0,\"tid\":7,\"ts\":8,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,"
                "\"correlation\":1,\"bytes\":64}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":11,\"dur\":2,"
                "\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}],"
                "\"schemaVersion\":1}",
                "{\"traceEvents\":["
                "{\"ph\":\"X\",\"name\":\"MatMul\",\"pid\":1,\"tid\":0,\"ts\":1,\"dur\":1},"
                "{\"ph\":\"X\",\"name\":\"Relu\",\"pid\":1,\"tid\":0,\"ts\":3,\"dur\":1},"
                "{\"ph\":\"X\",\"name\":\"Add\",\"pid\":1,\"tid\":0,\"ts\":5,\"dur\":1},"
                "{\"ph\":\"X\",\"name\":\"MatMul\",\"pid\":3,\"tid\":0,\"ts\":1,\"dur\":1},"
                "{\"ph\":\"X\",\"name\":\"Relu\",\"pid\":3,\"tid\":0,\"ts\":3,\"dur\":1},"
                "{\"ph\":\"X\",\"name\":\"Add\",\"pid\":3,\"tid\":0,\"ts\":5,\"dur\":1},"
                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":"
                "\"/job:localhost/replica:0/task:0/device:GPU:0 Compute\"}},"
                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"args\":{\"name\":"
                "\"/device:GPU:0/stream:all Compute\"}}]}",
        };

        for (size_t i = 0; i < sizeof(second) / sizeof(second[0]); i++)
                check_parts(i == 0 ? "only the second part has the runtime"
                                   : "only the second part has duplicates",
                            second[i], strlen(second[i]), false);
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                size_t len = 0, n = strlen(files[i]);
                char *data = slurp(tap_testdata(files[i]), &len);

                if (!tap_ok(data != NULL, "test_chrome_json__classify_parts: read %s", files[i]))
                        continue;
                check_parts(files[i], data, len, n > 3 && strcmp(files[i] + n - 3, ".gz") == 0);
                free(data);
        }
}

/* The device runtime, by the trace's first runtime call (a launch, sync or
 * setup event) in either part: its category says MTIA, else its name
 * (cu*: CUDA, hip*: ROCm); calls of other kinds, and launches that are no
 * runtime call (TF's host side of a kernel), say nothing. */
static void test_chrome_json__runtime(void)
{
#define KX(cat, name, ts) "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\"," \
                          "\"pid\":9,\"tid\":9,\"ts\":" #ts ",\"dur\":1},"
#define KINETO(events) "{\"traceEvents\":[" events \
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::z\",\"pid\":9," \
                       "\"tid\":9,\"ts\":99,\"dur\":1}],\"schemaVersion\":1}"
        static const struct {
                const char *what, *trace;
                tpa_runtime want;
        } cases[] = {
                { "a CUDA launch", KINETO(KX("cpu_op", "aten::a", 1)
                                          KX("cuda_runtime", "cudaLaunchKernel", 3)),
                  TPA_RUNTIME_CUDA },
                { "a HIP launch", KINETO(KX("cpu_op", "aten::a", 1)
                                         KX("cuda_runtime", "hipLaunchKernel", 3)),
                  TPA_RUNTIME_ROCM },
                { "MTIA by its category", KINETO(KX("cpu_op", "aten::a", 1)
                                                 KX("mtia_runtime", "launchKernel", 3)),
                  TPA_RUNTIME_MTIA },
                { "the first call of two, in the first half",
                  KINETO(KX("cuda_runtime", "hipMalloc", 1) KX("cpu_op", "aten::a", 3)
                         KX("cpu_op", "aten::b", 5) KX("cuda_runtime", "cudaLaunchKernel", 7)),
                  TPA_RUNTIME_ROCM },
                { "the first call of two, each half one",
                  KINETO(KX("cpu_op", "aten::a", 1) KX("cuda_runtime", "cudaStreamSynchronize", 3)
                         KX("cpu_op", "aten::b", 5) KX("cuda_runtime", "hipLaunchKernel", 7)),
                  TPA_RUNTIME_CUDA },
                { "the only call, last", KINETO(KX("cpu_op", "aten::a", 1) KX("cpu_op", "aten::b", 3)
                                                KX("cpu_op", "aten::c", 5)
                                                KX("cuda_runtime", "hipDeviceSynchronize", 7)),
                  TPA_RUNTIME_ROCM },
                { "none: host ops only", KINETO(KX("cpu_op", "aten::a", 1) KX("cpu_op", "aten::b", 3)),
                  TPA_RUNTIME_UNKNOWN },
                { "none: a CPU-only TF trace's launch scopes",
                  "{\"traceEvents\":["
                  "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
                  "{\"ph\":\"X\",\"name\":\"EagerExecute\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":4},"
                  "{\"ph\":\"X\",\"name\":\"MatMul\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":1},"
                  "{\"ph\":\"X\",\"name\":\"EagerExecute\",\"pid\":1,\"tid\":2,\"ts\":6,\"dur\":4}]}",
                  TPA_RUNTIME_UNKNOWN },
        };
#undef KX
#undef KINETO

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct result r;

                for (int k = 0; k < 2; k++) {
                        tpa_classify__parts_from(k == 0 ? SIZE_MAX : 1);
                        parse(cases[i].trace, strlen(cases[i].trace), strlen(cases[i].trace), false,
                              &r);
                        tap_ok(r.code == 0 && r.runtime == (int)cases[i].want,
                               "test_chrome_json__runtime: %s, in %d part%s: %s (want %s)",
                               cases[i].what, k + 1, k ? "s" : "",
                               tpa_runtime_name((tpa_runtime)r.runtime),
                               tpa_runtime_name(cases[i].want));
                        release(&r);
                }
        }
        tpa_classify__parts_from(TPA_CLASSIFY_PARTS_FROM);
}

/* The step number of each event of TF2's Steps line: its own, else one in
 * its name ("step 12"), else its TF group's, else none; in one part and in
 * two. */
static void test_chrome_json__step_numbers(void)
{
#define STEP(ts, name, args) "{\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":" #ts ",\"dur\":5," \
                             "\"name\":\"" name "\"" args "},"
        static const char trace[] =
                "{\"traceEvents\":["
                "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
                "\"args\":{\"name\":\"/device:GPU:0\"}},"
                "{\"ph\":\"M\",\"pid\":1,\"tid\":5,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"Steps\"}},"
                STEP(1, "step 12", ",\"args\":{\"group_id\":\"3\"}")
                STEP(10, "train", ",\"args\":{\"group_id\":\"7\"}")
                STEP(20, "train", "")
                STEP(30, "x", ",\"args\":{\"step_num\":\"40\",\"group_id\":\"9\"}")
                STEP(40, "55", "")
                "{\"ph\":\"X\",\"pid\":1,\"tid\":6,\"ts\":1,\"dur\":2,\"name\":\"k\"}]}";
#undef STEP
        /* a bare number is no step name ("55") */
        static const int64_t want[] = { 12, 7, INT64_MIN, 40, INT64_MIN, INT64_MIN };

        for (int k = 0; k < 2; k++) {
                struct result r;
                bool same_steps;

                tpa_classify__parts_from(k == 0 ? SIZE_MAX : 1);
                parse(trace, sizeof(trace) - 1, sizeof(trace) - 1, false, &r);
                same_steps = r.code == 0 && r.events == sizeof(want) / sizeof(want[0]);
                for (size_t i = 0; same_steps && i < r.events; i++)
                        same_steps = r.aux[i * 5 + TPA_AUX_STEP_NUM - 1] == want[i];
                tap_ok(same_steps, "test_chrome_json__step_numbers: own, name, group, none; in %d part%s",
                       k + 1, k ? "s" : "");
                release(&r);
        }
        tpa_classify__parts_from(TPA_CLASSIFY_PARTS_FROM);
}

/* Whole traces through the filter and the segment scanner. */
static void test_chrome_json__readers(void)
{
        test_chrome_json__filter_blocks();
        test_chrome_json__chunks();
        test_chrome_json__offending_token();
        test_chrome_json__threads();
        test_chrome_json__two_ops();
        test_chrome_json__threads_broken();
        test_chrome_json__threads_places();
        test_chrome_json__threads_scanner();
}

int main(void)
{
        test_chrome_json__us_to_ns();
        test_chrome_json__values();
        test_chrome_json__not_a_trace();
        test_chrome_json__ids();
        test_chrome_json__limits();
        test_chrome_json__classify_parts();
        test_chrome_json__runtime();
        test_chrome_json__step_numbers();
        test_chrome_json__readers();
        if (tpa_json__isa() == TPA_JSON_ISA_AVX2) {
                /* the filter and the scanner have an SSE2 build too */
                tpa_json__limit_isa(TPA_JSON_ISA_SSE2);
                test_chrome_json__readers();
        }
        return tap_done();
}
