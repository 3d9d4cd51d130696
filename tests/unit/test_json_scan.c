/* SPDX-License-Identifier: MIT */
/*
 * test_json_scan.c - the JSON byte scanner: every implementation the
 * build has (scalar always, SSE2 and AVX2 on x86-64, AVX2 where the CPU
 * has it) on the same inputs, each
 * checked against a byte-by-byte reference and so against the others:
 * string ends, escapes at block edges, backslash runs, multi-byte UTF-8,
 * control bytes, strings crossing 16- and 32-byte boundaries, inputs
 * ending mid-block. Inputs are copied to buffers of their exact length,
 * so a read past the end shows under ASan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/json_scan.h"
#include "tap.h"

typedef struct impl {
        const char *name;
        size_t (*find_special)(const unsigned char *b, size_t i, size_t n);
        void (*masks64)(const unsigned char *d, tpa_json_masks *m);
        bool (*runs)(void);     /* the CPU has it; NULL: every CPU */
} impl;

static size_t find_special_scalar(const unsigned char *b, size_t i, size_t n)
{
        return tpa_json__find_special_scalar(b, i, n);
}

static void masks64_scalar(const unsigned char *d, tpa_json_masks *m)
{
        tpa_json__masks64_scalar(d, m);
}

#ifdef TPA_JSON_HAVE_SSE2
static size_t find_special_sse2(const unsigned char *b, size_t i, size_t n)
{
        return tpa_json__find_special_sse2(b, i, n);
}

static void masks64_sse2(const unsigned char *d, tpa_json_masks *m)
{
        tpa_json__masks64_sse2(d, m);
}
#endif

#ifdef TPA_JSON_HAVE_AVX2
static TPA_JSON_AVX2 size_t find_special_avx2(const unsigned char *b, size_t i, size_t n)
{
        return tpa_json__find_special_avx2(b, i, n);
}

static TPA_JSON_AVX2 void masks64_avx2(const unsigned char *d, tpa_json_masks *m)
{
        tpa_json__masks64_avx2(d, m);
}

static bool cpu_avx2(void)
{
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
}
#endif

static size_t find_special_best(const unsigned char *b, size_t i, size_t n)
{
        return tpa_json__find_special(b, i, n);
}

static void masks64_best(const unsigned char *d, tpa_json_masks *m)
{
        tpa_json__masks64(d, m);
}

static const impl impls[] = {
        { "scalar", find_special_scalar, masks64_scalar, NULL },
#ifdef TPA_JSON_HAVE_SSE2
        { "sse2", find_special_sse2, masks64_sse2, NULL },
#endif
#ifdef TPA_JSON_HAVE_AVX2
        { "avx2", find_special_avx2, masks64_avx2, cpu_avx2 },
#endif
        { "widest", find_special_best, masks64_best, NULL },
};
#define IMPLS (sizeof(impls) / sizeof(impls[0]))

static size_t ref_special(const unsigned char *b, size_t i, size_t n)
{
        for (; i < n; i++)
                if (b[i] == '"' || b[i] == '\\' || b[i] < 0x20)
                        return i;
        return n;
}

static void ref_masks(const unsigned char *d, tpa_json_masks *m)
{
        memset(m, 0, sizeof(*m));
        for (unsigned k = 0; k < 64; k++) {
                uint64_t bit = UINT64_C(1) << k;
                m->quote |= d[k] == '"' ? bit : 0;
                m->backslash |= d[k] == '\\' ? bit : 0;
                m->comma |= d[k] == ',' ? bit : 0;
                m->close |= d[k] == '}' || d[k] == ']' ? bit : 0;
                m->open |= d[k] == '{' || d[k] == '[' ? bit : 0;
        }
}

/* find_special of `s` on every start and end, in an exact-length copy;
 * the number of disagreements with the reference. */
static unsigned check_special(const impl *js, const unsigned char *s, size_t len)
{
        unsigned char *b = malloc(len > 0 ? len : 1);
        unsigned bad = 0;

        if (b == NULL)
                return 1;
        memcpy(b, s, len);
        for (size_t n = 0; n <= len; n++) {
                /* only the first n bytes are the input: a copy of just them */
                unsigned char *c = malloc(n > 0 ? n : 1);
                if (c == NULL) {
                        bad++;
                        break;
                }
                memcpy(c, b, n);
                for (size_t i = 0; i <= n; i++) {
                        size_t got = js->find_special(c, i, n), want = ref_special(c, i, n);
                        if (got != want && bad++ < 3)
                                printf("#   %s: len %zu, from %zu: %zu, want %zu\n", js->name,
                                       n, i, got, want);
                }
                free(c);
        }
        free(b);
        return bad;
}

static unsigned check_masks(const impl *js, const unsigned char *d)
{
        unsigned char *b = malloc(64);
        tpa_json_masks got, want;
        unsigned bad = 0;

        if (b == NULL)
                return 1;
        memcpy(b, d, 64);
        js->masks64(b, &got);
        ref_masks(b, &want);
        if (got.quote != want.quote || got.backslash != want.backslash ||
            got.comma != want.comma || got.close != want.close || got.open != want.open) {
                bad++;
                printf("#   %s: quote %016llx/%016llx backslash %016llx/%016llx comma "
                       "%016llx/%016llx close %016llx/%016llx open %016llx/%016llx\n", js->name,
                       (unsigned long long)got.quote, (unsigned long long)want.quote,
                       (unsigned long long)got.backslash, (unsigned long long)want.backslash,
                       (unsigned long long)got.comma, (unsigned long long)want.comma,
                       (unsigned long long)got.close, (unsigned long long)want.close,
                       (unsigned long long)got.open, (unsigned long long)want.open);
        }
        free(b);
        return bad;
}

/* A string's text: `len` bytes of `fill`, with `ch` at each position in
 * `at` (or nothing), then the closing '"' and a few bytes after it. */
static size_t make(unsigned char *buf, size_t len, unsigned char fill, const size_t *at,
                   size_t nat, unsigned char ch)
{
        memset(buf, fill, len);
        for (size_t k = 0; k < nat; k++)
                if (at[k] < len)
                        buf[at[k]] = ch;
        memcpy(buf + len, "\",\"x", 4);
        return len + 4;
}

static void test_json_scan__special(void)
{
        static const size_t edges[] = { 0, 1, 14, 15, 16, 17, 30, 31, 32, 33, 47, 48, 63, 64, 65 };
        /* multi-byte UTF-8 (high bytes are no control bytes), placed to
         * cross the 16- and 32-byte edges */
        static const char *const utf8[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e",
                                            "\xef\xbf\xbd", "\x7f" };
        unsigned char buf[256];

        for (size_t k_impl = 0; k_impl < IMPLS; k_impl++) {
                const impl *js = &impls[k_impl];
                if (js->runs != NULL && !js->runs()) {
                        tap_skip("AVX2: the CPU lacks it");
                        continue;
                }
                unsigned bad = 0;
                size_t n;

                /* plain strings of every length to 96: the end is the '"' */
                for (size_t len = 0; len <= 96; len++) {
                        n = make(buf, len, 'a', NULL, 0, 0);
                        bad += check_special(js, buf, n);
                }
                tap_eq(bad, 0, "test_json_scan__special: %s: string ends, lengths 0..96", js->name);

                /* an escape, a control byte at the block edges */
                bad = 0;
                for (size_t k = 0; k < sizeof(edges) / sizeof(edges[0]); k++) {
                        size_t at[1] = { edges[k] };
                        n = make(buf, 70, 'b', at, 1, '\\');
                        bad += check_special(js, buf, n);
                        n = make(buf, 70, 'b', at, 1, '\n');
                        bad += check_special(js, buf, n);
                        n = make(buf, 70, 'b', at, 1, 0x00);
                        bad += check_special(js, buf, n);
                        n = make(buf, 70, 'b', at, 1, 0x1f);
                        bad += check_special(js, buf, n);
                        n = make(buf, 70, 'b', at, 1, 0x20);    /* a space: plain */
                        bad += check_special(js, buf, n);
                }
                tap_eq(bad, 0, "test_json_scan__special: %s: escapes and control bytes at "
                       "block edges", js->name);

                /* runs of backslashes ending at and across the edges */
                bad = 0;
                for (size_t start = 10; start < 40; start++) {
                        for (size_t run = 1; run <= 6; run++) {
                                size_t at[6];
                                for (size_t k = 0; k < run; k++)
                                        at[k] = start + k;
                                n = make(buf, 72, 'c', at, run, '\\');
                                bad += check_special(js, buf, n);
                        }
                }
                tap_eq(bad, 0, "test_json_scan__special: %s: backslash runs", js->name);

                /* UTF-8 sequences at every offset around the edges */
                bad = 0;
                for (size_t u = 0; u < sizeof(utf8) / sizeof(utf8[0]); u++) {
                        size_t ul = strlen(utf8[u]);
                        for (size_t off = 10; off < 36; off++) {
                                memset(buf, 'd', 80);
                                memcpy(buf + off, utf8[u], ul);
                                memcpy(buf + off + 2 * ul + 9, utf8[u], ul);
                                buf[70] = '"';
                                bad += check_special(js, buf, 71);
                        }
                }
                tap_eq(bad, 0, "test_json_scan__special: %s: multi-byte UTF-8 across edges",
                       js->name);
        }
}

/* Random bytes from an alphabet of the bytes that matter and their near
 * misses ('[' | 0x80, '{' ^ 0x20 is '[' but ';' is not, ...), at every
 * start and end, each implementation against the reference. */
static void test_json_scan__random(void)
{
        static const unsigned char alpha[] = {
                '"', '\\', ',', '{', '}', '[', ']', ':', ' ', 'a', 'z', '0', 0x00, 0x1f,
                0x20, 0x7f, 0x80, 0xa2, 0xdb, 0xdd, 0xfb, 0xfd, 0xdc, 0xc3, 0xa9, 0x3b,
                0x3d, 0x5c ^ 0x20, 0x22 ^ 0x20, 0x2c ^ 0x20, 0xff,
        };

        for (size_t k_impl = 0; k_impl < IMPLS; k_impl++) {
                const impl *js = &impls[k_impl];
                if (js->runs != NULL && !js->runs()) {
                        tap_skip("AVX2: the CPU lacks it");
                        continue;
                }
                uint64_t seed = 0x9e3779b97f4a7c15u;
                unsigned bad = 0, bad_masks = 0;
                unsigned char buf[160];

                for (unsigned round = 0; round < 300; round++) {
                        /* sparse or dense: few or many bytes that matter */
                        unsigned dense = round % 3;
                        size_t len = (size_t)(tap_rand(&seed) % sizeof(buf)) + 1;
                        for (size_t k = 0; k < sizeof(buf); k++) {
                                uint64_t r = tap_rand(&seed);
                                buf[k] = dense == 0 && r % 16 != 0 ? 'p'
                                                                  : alpha[(r >> 8) % sizeof(alpha)];
                        }
                        bad += check_special(js, buf, len);
                        for (size_t off = 0; off + 64 <= sizeof(buf); off += 13)
                                bad_masks += check_masks(js, buf + off);
                }
                tap_eq(bad, 0, "test_json_scan__random: %s: string ends as the reference",
                       js->name);
                tap_eq(bad_masks, 0, "test_json_scan__random: %s: 64-byte masks as the "
                       "reference", js->name);
        }
}

/* Every single byte value at every position of a block. */
static void test_json_scan__masks(void)
{
        for (size_t k_impl = 0; k_impl < IMPLS; k_impl++) {
                const impl *js = &impls[k_impl];
                if (js->runs != NULL && !js->runs()) {
                        tap_skip("AVX2: the CPU lacks it");
                        continue;
                }
                unsigned char blk[64];
                unsigned bad = 0;

                for (unsigned v = 0; v < 256; v++) {
                        for (unsigned k = 0; k < 64; k++) {
                                memset(blk, 'x', sizeof(blk));
                                blk[k] = (unsigned char)v;
                                bad += check_masks(js, blk);
                        }
                }
                tap_eq(bad, 0, "test_json_scan__masks: %s: every byte value at every position",
                       js->name);
        }
}

/* The digit helpers against the byte-by-byte answer: every byte value at
 * every position of a run of digits (0xfa..0xff carry out of their byte),
 * and the value of every 8-digit string made of a few patterns. */
static void test_json_scan__digits(void)
{
        unsigned bad_count = 0, bad_end = 0, bad_value = 0;
        unsigned char b[24];

        for (unsigned v = 0; v < 256; v++) {
                for (unsigned k = 0; k < 8; k++) {
                        unsigned want = 0;
                        memcpy(b, "1234567890123456789012", 22);
                        b[k] = (unsigned char)v;
                        while (want < 8 && b[want] >= '0' && b[want] <= '9')
                                want++;
                        bad_count += tpa_json__digits8(b) != want;
                        for (size_t n = 0; n <= 22; n++) {
                                size_t end = 0;
                                while (end < n && b[end] >= '0' && b[end] <= '9')
                                        end++;
                                bad_end += tpa_json__digits_end(b, 0, n) != end;
                        }
                }
        }
        for (uint64_t x = 0; x < 100000000u; x += 99991) {
                uint64_t want = x;
                char text[9];
                snprintf(text, sizeof(text), "%08llu", (unsigned long long)want);
                bad_value += tpa_json__value8((const unsigned char *)text) != want;
        }
        bad_value += tpa_json__value8((const unsigned char *)"99999999") != 99999999u;
        tap_eq(bad_count, 0, "test_json_scan__digits: leading digits of 8 bytes");
        tap_eq(bad_end, 0, "test_json_scan__digits: the end of a run of digits, any length");
        tap_eq(bad_value, 0, "test_json_scan__digits: the value of 8 digits");
}

/* The scanner the readers run: the widest the build has and the CPU
 * runs, at most the limit set. */
static void test_json_scan__isa(void)
{
        enum tpa_json_isa want = TPA_JSON_ISA_SCALAR;

#ifdef TPA_JSON_HAVE_SSE2
        want = TPA_JSON_ISA_SSE2;
#endif
#if defined(TPA_HAVE_AVX2_BUILD) && defined(TPA_JSON_HAVE_AVX2)
        /* the AVX2 builds also use PCLMULQDQ */
        if (cpu_avx2() && __builtin_cpu_supports("pclmul"))
                want = TPA_JSON_ISA_AVX2;
#endif
        tap_eq(tpa_json__isa(), want, "test_json_scan__isa: the widest the build and CPU have");
        tpa_json__limit_isa(TPA_JSON_ISA_SCALAR);
        tap_eq(tpa_json__isa(), TPA_JSON_ISA_SCALAR, "test_json_scan__isa: limited");
        tpa_json__limit_isa(TPA_JSON_ISA_AVX2);
        tap_eq(tpa_json__isa(), want, "test_json_scan__isa: the limit lifted");
}

int main(void)
{
        test_json_scan__special();
        test_json_scan__random();
        test_json_scan__masks();
        test_json_scan__digits();
        test_json_scan__isa();
        return tap_done();
}
