/* SPDX-License-Identifier: MIT */
/*
 * test_report_util.c - report/report_util.h: the streaming JSON writer
 * closes up the empty containers yajl's beautify spreads over lines, the
 * same whatever pieces yajl prints the text in (it prints a token in
 * several), and passes everything else through unchanged; the direct
 * writer prints the same bytes as yajl_gen through that filter.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "report/report_util.h"
#include "tap.h"

/* The whole text closed up at once: what the reports wrote before they
 * streamed (an opener, "\n\n", spaces, its closer -> opener and closer). */
static char *compact_whole(const char *s)
{
        size_t len = strlen(s), i = 0, o = 0;
        char *out = malloc(len + 1);

        while (i < len) {
                char c = s[i++];

                out[o++] = c;
                if ((c == '[' || c == '{') && i + 1 < len && s[i] == '\n' && s[i + 1] == '\n') {
                        size_t j = i + 2;
                        while (j < len && s[j] == ' ')
                                j++;
                        if (j < len && s[j] == (c == '[' ? ']' : '}'))
                                i = j;
                }
        }
        out[o] = '\0';
        return out;
}

/* `s` through the writer in pieces of `piece` bytes (0: whole). */
static char *stream(const char *s, size_t piece)
{
        char *buf = NULL;
        size_t size = 0, len = strlen(s);
        FILE *fp = open_memstream(&buf, &size);
        tpa_json_out *o = tpa_report__json_open(fp);

        for (size_t i = 0; i < len; i += piece ? piece : len)
                tpa_report__json_print(o, s + i, piece && len - i > piece ? piece : len - i);
        tpa_report__json_close(o);
        fclose(fp);
        return buf;
}

static void test_report_util__json_stream(void)
{
        static const char *const cases[] = {
                "{\n\n}\n",
                "[\n\n    ]",
                "[\n  1,\n  2\n]\n",
                "{\n  \"a\": [\n\n  ],\n  \"b\": {\n\n  },\n  \"c\": [\n    {\n\n    }\n  ]\n}\n",
                "[\n\n  [\n\n  ]",                 /* an empty one inside a held one */
                "[[\n\n]{\n\n}]",
                "{\n\n  ]",                         /* not its closer */
                "[\n\n  x]",
                "[\n\n  \n]",
                "[\n",                              /* held at the end */
                "[\n\n",
                "[\n\n     ",
                "\"[\\n\\n]\" [\n\n] {",
                "",
        };
        static const size_t pieces[] = { 0, 1, 2, 3, 5 };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *want = compact_whole(cases[i]);

                for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
                        char *got = stream(cases[i], pieces[p]);
                        tap_streq(got, want, "test_report_util__json_stream: case %zu, pieces "
                                  "of %zu", i + 1, pieces[p]);
                        free(got);
                }
                free(want);
        }
}

/* Longer than the writer's buffer: passed through whole, in order. */
static void test_report_util__json_stream_long(void)
{
        static const size_t pieces[] = { 0, 7000 };
        size_t n = 100000;
        char *s = malloc(n + 1), *want;

        for (size_t i = 0; i < n; i++)
                s[i] = "[\n\n ]x{\n  \"k\"\n}"[i % 15];
        s[n] = '\0';
        want = compact_whole(s);
        for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
                char *got = stream(s, pieces[p]);
                tap_streq(got, want, "test_report_util__json_stream_long: pieces of %zu",
                          pieces[p]);
                free(got);
        }
        free(want);
        free(s);
}

/* One document, step by step, through yajl_gen + tpa_json_out and
 * through tpa_json_writer. */
enum { OP_MAP, OP_ARRAY, OP_CLOSE, OP_STR, OP_INT, OP_RAW };
typedef struct op {
        int         kind;
        const char *s;
        size_t      len;
        int64_t     i;
} op;

static char *via_yajl(const op *ops, size_t n)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *fp = open_memstream(&buf, &size);
        tpa_json_out *o = tpa_report__json_open(fp);
        yajl_gen g = yajl_gen_alloc(NULL);
        bool is_map[64];
        int depth = 0;

        yajl_gen_config(g, yajl_gen_beautify, 1);
        yajl_gen_config(g, yajl_gen_indent_string, "  ");
        yajl_gen_config(g, yajl_gen_print_callback, tpa_report__json_print, o);
        for (size_t k = 0; k < n; k++) {
                const op *p = &ops[k];
                switch (p->kind) {
                case OP_MAP:
                        is_map[depth++] = true;
                        yajl_gen_map_open(g);
                        break;
                case OP_ARRAY:
                        is_map[depth++] = false;
                        yajl_gen_array_open(g);
                        break;
                case OP_CLOSE:          /* yajl is told which; the writer knows */
                        if (is_map[--depth])
                                yajl_gen_map_close(g);
                        else
                                yajl_gen_array_close(g);
                        break;
                case OP_STR:   yajl_gen_string(g, (const unsigned char *)p->s, p->len); break;
                case OP_INT:   yajl_gen_integer(g, (long long)p->i); break;
                case OP_RAW:   yajl_gen_number(g, p->s, p->len); break;
                }
        }
        yajl_gen_free(g);
        tpa_report__json_close(o);
        fclose(fp);
        return buf;
}

static char *via_writer(const op *ops, size_t n)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *fp = open_memstream(&buf, &size);
        tpa_json_writer *w = tpa_report__jw_new(fp);

        for (size_t k = 0; k < n; k++) {
                const op *p = &ops[k];
                switch (p->kind) {
                case OP_MAP:   tpa_report__jw_open(w, '{'); break;
                case OP_ARRAY: tpa_report__jw_open(w, '['); break;
                case OP_CLOSE: tpa_report__jw_close(w); break;
                case OP_STR:   tpa_report__jw_string(w, p->s, p->len); break;
                case OP_INT:   tpa_report__jw_int(w, p->i); break;
                case OP_RAW:   tpa_report__jw_raw(w, p->s, p->len); break;
                }
        }
        tpa_report__jw_free(w);
        fclose(fp);
        return buf;
}

#define S(x) { OP_STR, x, sizeof(x) - 1, 0 }
#define R(x) { OP_RAW, x, sizeof(x) - 1, 0 }
#define I(x) { OP_INT, NULL, 0, x }
#define MAP { OP_MAP, NULL, 0, 0 }
#define ARR { OP_ARRAY, NULL, 0, 0 }
#define END { OP_CLOSE, NULL, 0, 0 }

static void test_report_util__json_writer(void)
{
        static char bytes[256];
        static const op doc1[] = {
                MAP, S("schema"), S("x/v1"), S("empty_map"), MAP, END, S("empty_array"), ARR, END,
                S("nested"), ARR, MAP, END, ARR, END, ARR, ARR, END, END, MAP, S("k"), ARR, END,
                END, END, S("numbers"), ARR, I(0), I(-1), I(INT64_MIN), I(INT64_MAX), R("0.125"),
                R("1e-07"), R("null"), R("true"), R("false"), END, S("deep"), MAP, S("a"), MAP,
                S("b"), MAP, S("c"), ARR, S("d"), END, END, END, END, END,
        };
        static const op doc2[] = { ARR, END };
        static const op doc3[] = { S("top\"level\n") };
        static const op doc4[] = { I(-42) };
        op doc5[] = { MAP, { OP_STR, bytes, sizeof(bytes), 0 }, { OP_STR, bytes + 1, 127, 0 },
                      END };
        static const struct { const op *ops; size_t n; } docs[] = {
                { doc1, sizeof(doc1) / sizeof(doc1[0]) },
                { doc2, 2 }, { doc3, 1 }, { doc4, 1 },
        };

        for (int c = 0; c < 256; c++)
                bytes[c] = (char)c;     /* every escape, and bytes >= 0x80 as they are */
        for (size_t d = 0; d <= sizeof(docs) / sizeof(docs[0]); d++) {
                const op *ops = d < 4 ? docs[d].ops : doc5;
                size_t n = d < 4 ? docs[d].n : 4;
                char *want = via_yajl(ops, n), *got = via_writer(ops, n);

                tap_streq(got, want, "test_report_util__json_writer: document %zu", d + 1);
                free(want);
                free(got);
        }
}

/* Short strings, where the writer copies a plain one straight into its
 * buffer: each byte that needs an escape at every place of strings of 1 to
 * 20 bytes (in and after 8-byte words), and plain ones of 0 to 70 bytes
 * (past the 64 of the straight way), the same as yajl writes them. */
static void test_report_util__json_short_strings(void)
{
        static const char esc[] = { '"', '\\', '\n', '\x01', '\x1f', '\t' };
        static char text[20 * 20 * sizeof(esc) * 20 + 71 * 71];
        op *ops = malloc((20 * 20 * sizeof(esc) + 71 + 2) * sizeof(*ops));
        size_t n = 0, at = 0;
        char *want, *got;

        if (ops == NULL)
                return;
        ops[n++] = (op){ OP_ARRAY, NULL, 0, 0 };
        for (size_t len = 1; len <= 20; len++)
                for (size_t pos = 0; pos < len; pos++)
                        for (size_t k = 0; k < sizeof(esc); k++) {
                                memset(text + at, 'a' + (int)(len % 26), len);
                                text[at + pos] = esc[k];
                                ops[n++] = (op){ OP_STR, text + at, len, 0 };
                                at += len;
                        }
        for (size_t len = 0; len <= 70; len++) {
                memset(text + at, 'k', len);
                ops[n++] = (op){ OP_STR, text + at, len, 0 };
                at += len;
        }
        ops[n++] = (op){ OP_CLOSE, NULL, 0, 0 };
        want = via_yajl(ops, n);
        got = via_writer(ops, n);
        tap_streq(got, want, "test_report_util__json_short_strings: %zu strings as yajl", n - 2);
        free(want);
        free(got);
        free(ops);
}

/* The escape of strings, byte at a time as the writer did before it
 * looked at 16 bytes at a time: the reference for the tests below. With
 * `repair`, invalid UTF-8 is replaced first, as tpa_report__utf8() does. */
static size_t ref_escape(char *out, const char *s, size_t len, bool repair)
{
        char *tmp = NULL, *o = out;

        if (repair) {
                tmp = malloc(3 * len + 1);
                len = tpa_report__utf8(tmp, s, len);
                s = tmp;
        }
        *o++ = '"';
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)s[i];
                switch (c) {
                case '"':  o += sprintf(o, "\\\""); break;
                case '\\': o += sprintf(o, "\\\\"); break;
                case '\b': o += sprintf(o, "\\b"); break;
                case '\f': o += sprintf(o, "\\f"); break;
                case '\n': o += sprintf(o, "\\n"); break;
                case '\r': o += sprintf(o, "\\r"); break;
                case '\t': o += sprintf(o, "\\t"); break;
                default:
                        if (c < 0x20)
                                o += sprintf(o, "\\u00%02X", c);
                        else
                                *o++ = (char)c;
                }
        }
        *o++ = '"';
        free(tmp);
        return (size_t)(o - out);
}

/* What a writer into memory holds: the bytes it sent to mem, then its
 * buffer. */
static size_t writer_text(char *out, const tpa_json_writer *w)
{
        if (w->mem_len > 0)
                memcpy(out, w->mem, w->mem_len);
        memcpy(out + w->mem_len, w->buf, w->len);
        return w->mem_len + w->len;
}

/* One string as a document of its own, through the writer and the
 * reference; false (with a line saying which) when they differ. */
static bool escape_same(const char *s, size_t len, bool repair, const char *what)
{
        tpa_json_writer *w = tpa_report__jw_new(NULL);
        char *got = malloc(6 * len + 8), *want = malloc(6 * len + 8);
        size_t ng, nw;
        bool same;

        if (repair)
                tpa_report__jw_string_utf8(w, s, len);
        else
                tpa_report__jw_string(w, s, len);
        ng = writer_text(got, w);
        nw = ref_escape(want, s, len, repair);
        want[nw++] = '\n';
        same = ng == nw && memcmp(got, want, nw) == 0 && !w->oom;
        if (!same)
                printf("#   %s (%zu bytes%s): got '%.*s', want '%.*s'\n", what, len,
                       repair ? ", repaired" : "", (int)(ng < 200 ? ng : 200), got,
                       (int)(nw < 200 ? nw : 200), want);
        tpa_report__jw_free(w);
        free(got);
        free(want);
        return same;
}

/* The 16-byte scan and its tails: each kind of special byte (escapes,
 * bytes >= 0x80 as they are, valid UTF-8 of 2 to 4 bytes, invalid and cut
 * sequences for the repairing writer) at every place of strings of 0 to 50
 * bytes (three blocks and the tail after them), each string starting at
 * every offset from a 16-byte boundary, filled with plain bytes or with
 * more of the same kind. Then strings longer than the pieces (1024 bytes)
 * the writer escapes at a time and than its buffer, with a sequence across
 * each piece's end. */
static void test_report_util__json_escape_blocks(void)
{
        static const char *const kinds[] = {
                "\"", "\\", "\n", "\b", "\x01", "\x1f", " ", "\x7f", "~", "\x80", "\xff",
                "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe2\x82", "\xed\xa0\x80",
                "\xc0\xaf", "\xf4\x90\x80\x80",
        };
        static _Alignas(16) char area[16 + 64 + 16];
        size_t bad = 0, n = 0;
        char *big;

        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
                size_t kl = strlen(kinds[k]);
                for (size_t len = 0; len <= 50; len++) {
                        size_t places = len >= kl ? len - kl + 1 : 1;
                        for (size_t pos = 0; pos < places; pos++)
                                for (size_t off = 0; off < 16; off++)
                                        for (int fill = 0; fill < 2; fill++) {
                                                char *s = area + off;
                                                for (size_t i = 0; i < len; i++)
                                                        s[i] = fill ? kinds[k][i % kl]
                                                                    : (char)('a' + i % 26);
                                                if (len >= kl)
                                                        memcpy(s + pos, kinds[k], kl);
                                                for (int r = 0; r < 2; r++) {
                                                        n++;
                                                        if (!escape_same(s, len, r, "short") &&
                                                            ++bad > 5)
                                                                goto done;
                                                }
                                        }
                }
        }
        big = malloc(40000);
        for (size_t k = 0; big != NULL && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
                size_t kl = strlen(kinds[k]);
                for (size_t len = 1000; len <= 40000; len = len < 4200 ? len + 97 : len * 3) {
                        memset(big, 'x', len);
                        for (size_t at = 1024; at + 8 < len; at += 1024)
                                for (size_t b = 0; b < kl + 2; b++)
                                        memcpy(big + at - b, kinds[k], kl);
                        for (int r = 0; r < 2; r++) {
                                n++;
                                bad += !escape_same(big, len, r, "long");
                        }
                        for (size_t i = 0; i < len; i++)    /* all of them: the most output */
                                big[i] = kinds[k][i % kl];
                        for (int r = 0; r < 2; r++) {
                                n++;
                                bad += !escape_same(big, len, r, "long, all special");
                        }
                }
        }
        free(big);
done:
        tap_eq((int64_t)bad, 0, "test_report_util__json_escape_blocks: %zu strings as the "
               "byte-at-a-time escape writes them", n);
}

/* Many strings of random bytes and lengths in one document, so that the
 * buffer fills and goes out between and within them: the whole as the
 * reference writes it. */
static void test_report_util__json_escape_random(void)
{
        static const char alphabet[] = "ab\"\\\n\x01\x1f \x7f\x80\xbf\xc3\xa9\xe2\x82\xac\xf0\x9f\xff";
        uint64_t state = 0x2545f4914f6cdd1du;
        size_t cap = 1 << 23, at = 2;
        char *want = malloc(cap), *got = malloc(cap), *s = malloc(3000);
        tpa_json_writer *w = tpa_report__jw_new(NULL);
        int count = 0;

        if (want == NULL || got == NULL || s == NULL || w == NULL) {
                tap_ok(false, "test_report_util__json_escape_random: memory");
                goto done;
        }
        memcpy(want, "[\n", 2);
        tpa_report__jw_open(w, '[');
        while (at < cap - 6 * 3000 - 16) {
                size_t len = tap_rand(&state) % 3000;
                bool repair = tap_rand(&state) & 1;

                if (tap_rand(&state) % 4 == 0)
                        len %= 20;
                for (size_t i = 0; i < len; i++) {
                        uint64_t r = tap_rand(&state);
                        s[i] = r % 3 ? (char)('a' + r % 26) : alphabet[r % (sizeof(alphabet) - 1)];
                }
                if (repair)
                        tpa_report__jw_string_utf8(w, s, len);
                else
                        tpa_report__jw_string(w, s, len);
                if (count++ > 0) {
                        memcpy(want + at, ",\n", 2);
                        at += 2;
                }
                memcpy(want + at, "  ", 2);
                at += 2 + ref_escape(want + at + 2, s, len, repair);
        }
        tpa_report__jw_close(w);
        memcpy(want + at, "\n]\n", 3);
        at += 3;
        tap_ok(writer_text(got, w) == at && memcmp(got, want, at) == 0 && !w->oom,
               "test_report_util__json_escape_random: %d strings, %zu bytes", count, at);
done:
        tpa_report__jw_free(w);
        free(s);
        free(got);
        free(want);
}

/* tpa_report__g6 against snprintf("%.6g") on values like the reports'
 * (fractions, ratios of integers, rates over many magnitudes, tiny ones
 * written with an exponent), ties and near-ties of the sixth digit,
 * powers of ten and their neighbours, zeros of both signs. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
        return tap_rand(&rng_state);
}

static double unit(void)
{
        return (double)(rng() >> 11) / 9007199254740992.0;
}

/* Markdown text in a table cell: what would end the cell, start a link,
 * code, emphasis or HTML is escaped, a backslash first of all. */
static void test_report_util__md_escape(void)
{
        static const struct {
                const char *in, *want;
        } cases[] = {
                { "aten::mm", "aten::mm" },
                { "a|b", "a\\|b" },
                { "a\\|b", "a\\\\\\|b" },
                { "[x](http://e)", "\\[x\\](http://e)" },
                { "`k`*_<b>", "\\`k\\`\\*\\_&lt;b&gt;" },
                { "a &lt; b & c", "a &amp;lt; b &amp; c" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char buf[128] = "";
                FILE *fp = fmemopen(buf, sizeof(buf) - 1, "w");

                tpa_report__md_escape(fp, cases[i].in, 100);
                fclose(fp);
                tap_streq(buf, cases[i].want, "test_report_util__md_escape: %s", cases[i].in);
        }
}

/* Columns as a terminal shows them: a wide character (CJK, emoji) takes
 * two, a combining mark none, a control character (written '?') one; a
 * padded cell ends at its width whatever the script. */
static void test_report_util__columns(void)
{
        static const struct {
                const char *in;
                size_t      cols, cut6;     /* columns; bytes of a 6-column cut */
        } cases[] = {
                { "aten::mm", 8, 6 },
                { "\xe5\x89\x8d\xe5\x90\x91\xe4\xbc\xa0\xe6\x92\xad", 8, 9 },
                { "e\xcc\x81t\xc3\xa9", 3, 6 },                /* e + U+0301, t, U+00E9 */
                { "\xf0\x9f\x94\xa5x\xf0\x9f\x94\xa5y", 6, 10 },
                { "a\tb\xc2\x85", 4, 5 },                       /* TAB, NEL: '?' */
                { "\xea\xb0\x80\xea\xb0\x80\xea\xb0\x80\xea\xb0\x80", 8, 9 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *s = cases[i].in;
                char buf[64] = "";
                FILE *fp = fmemopen(buf, sizeof(buf) - 1, "w");

                tap_eq((int64_t)tpa_report__columns(s, strlen(s)), (int64_t)cases[i].cols,
                       "columns: case %zu", i);
                tap_eq((int64_t)tpa_report__cut_columns(s, 6), (int64_t)cases[i].cut6,
                       "columns: case %zu cut at 6", i);
                tpa_report__put_padded(fp, s, 12);
                fputc('|', fp);
                fclose(fp);
                tap_eq((int64_t)tpa_report__columns(buf, strlen(buf)), 13,
                       "columns: case %zu padded to 12", i);
        }
}

static void test_report_util__g6(void)
{
        static const double edges[] = {
                0.0, -0.0, 1e-10, -1e-10, 9.999995e-05, 9.9999949e-05, 1e-05, 1e-4, -3.2e-07,
                1.0000005e-10, 9.99999e-11, 5e-11, 1.5e-06, 999999.5e-10,
        };
        size_t bad = 0, n = 0;
        char want[64], got[64];

        for (int i = 0; i < 400000 + 4 * (int)(sizeof(edges) / sizeof(edges[0])); i++) {
                double v;

                switch (i >= 400000 ? 10 : i % 9) {
                case 0:  v = unit(); break;
                case 1:  v = (double)(rng() % 100000) / (double)(1 + rng() % 100000); break;
                case 2:  v = pow(10, unit() * 14 - 7) * (rng() & 1 ? -1 : 1); break;
                case 3:  v = (double)(rng() % 1000000 * 2 + 1) / 2e6;    /* ties at 7 digits */
                         break;
                case 4:  v = ((double)(rng() % 900000) + 100000.5) * pow(10, (int)(rng() % 11) - 10);
                         break;
                case 5:  v = pow(10, (int)(rng() % 14) - 6) * (1 + (unit() - 0.5) * 1e-12); break;
                case 6:  v = nextafter((double)(rng() % 1000000) / 1e6, unit() < 0.5 ? 0 : 1);
                         break;
                case 7:  v = (double)(rng() % 2000000) / 1000.0 + unit() * 1e-9; break;
                case 8:  v = pow(10, unit() * 7 - 11) * (rng() & 1 ? -1 : 1); break;
                default: v = edges[(i - 400000) / 4];   /* and its neighbours */
                         v = (i - 400000) % 4 == 1 ? nextafter(v, 0) :
                             (i - 400000) % 4 == 2 ? nextafter(v, 1) :
                             (i - 400000) % 4 == 3 ? -v : v;
                         break;
                }
                snprintf(want, sizeof(want), "%.6g", v);
                if (tpa_report__g6(got, v) != strlen(want) || strcmp(got, want) != 0) {
                        if (bad++ < 5)
                                printf("#   %.17g: got '%s', want '%s'\n", v, got, want);
                }
                n++;
        }
        tap_eq((int64_t)bad, 0, "test_report_util__g6: %zu values as snprintf writes them", n);
}

int main(void)
{
        test_report_util__json_stream();
        test_report_util__md_escape();
        test_report_util__columns();
        test_report_util__json_stream_long();
        test_report_util__json_writer();
        test_report_util__json_short_strings();
        test_report_util__json_escape_blocks();
        test_report_util__json_escape_random();
        test_report_util__g6();
        return tap_done();
}
