/* SPDX-License-Identifier: MIT */
/*
 * json_scan.h - (library-internal) the bytes of JSON text that matter to
 * the readers, found many at a time: string ends, escapes and control
 * bytes; quotes, commas and brackets in 64-byte blocks. A portable scalar
 * version, built everywhere (and alone with -Dsimd=disabled, which defines
 * TPA_JSON_SCALAR), SSE2 (16 bytes a step) on every x86-64, and AVX2 (32)
 * for code built for it; tpa_json__find_special() and tpa_json__masks64()
 * are the widest the calling code is built for. All give the same answers
 * (test_json_scan runs each the CPU has).
 */
#ifndef TPA_PARSE_JSON_SCAN_H
#define TPA_PARSE_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__SSE2__) && !defined(TPA_JSON_SCALAR)
#define TPA_JSON_HAVE_SSE2 1
#include <emmintrin.h>
#endif
/* AVX2 (32 bytes a step) on x86-64, in functions built for it whatever
 * the build's target: callers check the CPU (tpa_json__isa()) or are
 * themselves built for AVX2 (the _avx2 builds of the scanner and the
 * filter), where __AVX2__ makes them the widest. */
#if defined(TPA_JSON_HAVE_SSE2) && defined(__x86_64__)
#define TPA_JSON_HAVE_AVX2 1
#define TPA_JSON_AVX2 __attribute__((target("avx2")))
#include <immintrin.h>
#endif

/* The scanners a reader can run, narrowest first. */
enum tpa_json_isa { TPA_JSON_ISA_SCALAR, TPA_JSON_ISA_SSE2, TPA_JSON_ISA_AVX2 };

/* Which the segment scanner and the byte filter run in this process: the
 * widest this build has and the CPU runs, at most the limit set (json_scan.c). */
enum tpa_json_isa tpa_json__isa(void);
/* For tests: run nothing wider than `widest` from now on (not
 * thread-safe: before any reading starts). */
void tpa_json__limit_isa(enum tpa_json_isa widest);

/* Bit k of each mask: byte k of a 64-byte block is one of these. */
typedef struct tpa_json_masks {
        uint64_t quote;         /* '"' */
        uint64_t backslash;     /* '\\' */
        uint64_t comma;         /* ',' */
        uint64_t close;         /* '}' ']' */
        uint64_t open;          /* '{' '[' */
} tpa_json_masks;

/* The index of the first '"', '\\' or control byte (below 0x20) in
 * b[i..n), or n. Reads only b[i..n). */
static inline size_t tpa_json__find_special_scalar(const unsigned char *b, size_t i, size_t n)
{
        while (i < n && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20)
                i++;
        return i;
}

/* The masks of the 64 bytes at d. */
static inline void tpa_json__masks64_scalar(const unsigned char *d, tpa_json_masks *m)
{
        uint64_t mq = 0, mb = 0, mc = 0, ms = 0, mo = 0;
#if defined(__GNUC__) && defined(__BYTE_ORDER__)
        /* eight bytes at a time: 0x80 in each byte of x equal to the byte
         * looked for (exactly: no borrow crosses bytes), then the eight
         * flags gathered into one byte by a multiplication */
        const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu;
        const uint64_t gather = 0x0002040810204081u;

        for (unsigned k = 0; k < 8; k++) {
                uint64_t w, x;
                memcpy(&w, d + 8 * k, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                w = __builtin_bswap64(w);
#endif
#define EQ_BITS(byte) \
        (x = w ^ (ones * (byte)), ((~(((x & low7) + low7) | x) & ~low7) * gather) >> 56)
                /* one EQ_BITS() a statement: each assigns x */
                mq |= EQ_BITS('"') << (8 * k);
                mb |= EQ_BITS('\\') << (8 * k);
                mc |= EQ_BITS(',') << (8 * k);
                w |= ones * 0x20;                       /* '[' ']' to '{' '}' */
                mo |= EQ_BITS('{') << (8 * k);
                ms |= EQ_BITS('}') << (8 * k);
#undef EQ_BITS
        }
#else
        for (unsigned k = 0; k < 64; k++) {
                uint64_t bit = UINT64_C(1) << k;
                unsigned char x = d[k];

                mq |= x == '"' ? bit : 0;
                mb |= x == '\\' ? bit : 0;
                mc |= x == ',' ? bit : 0;
                ms |= x == '}' || x == ']' ? bit : 0;
                mo |= x == '{' || x == '[' ? bit : 0;
        }
#endif
        m->quote = mq;
        m->backslash = mb;
        m->comma = mc;
        m->close = ms;
        m->open = mo;
}

#ifdef TPA_JSON_HAVE_SSE2
/* Bit k (k < 16): b[k] is '"', '\\' or a control byte, as
 * tpa_json__find_special() looks for; for callers that test the first 16
 * bytes of a string inline. */
static inline unsigned tpa_json__special16(const unsigned char *b)
{
        const __m128i v1f = _mm_set1_epi8(0x1f);
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                   _mm_cmpeq_epi8(_mm_max_epu8(v, v1f), v1f));

        return (unsigned)_mm_movemask_epi8(hit);
}

static inline size_t tpa_json__find_special_sse2(const unsigned char *b, size_t i, size_t n)
{
        for (; i + 16 <= n; i += 16) {
                unsigned m = tpa_json__special16(b + i);

                if (m != 0)
                        return i + (size_t)__builtin_ctz(m);
        }
        return tpa_json__find_special_scalar(b, i, n);
}

static inline void tpa_json__masks64_sse2(const unsigned char *d, tpa_json_masks *m)
{
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), vc = _mm_set1_epi8(',');
        const __m128i low = _mm_set1_epi8(0x20), vo = _mm_set1_epi8('{'), vx = _mm_set1_epi8('}');
        uint64_t mq = 0, mb = 0, mc = 0, ms = 0, mo = 0;

        for (unsigned k = 0; k < 4; k++) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(d + 16 * k));
                __m128i l = _mm_or_si128(v, low);       /* '[' ']' to '{' '}' */
                mq |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << (16 * k);
                mb |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << (16 * k);
                mc |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vc)) << (16 * k);
                ms |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(l, vx)) << (16 * k);
                mo |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(l, vo)) << (16 * k);
        }
        m->quote = mq;
        m->backslash = mb;
        m->comma = mc;
        m->close = ms;
        m->open = mo;
}
#endif

#ifdef TPA_JSON_HAVE_AVX2
/* Bit k (k < 32): b[k] is '"', '\\' or a control byte. */
static inline TPA_JSON_AVX2 uint32_t tpa_json__special32(const unsigned char *b)
{
        const __m256i v1f = _mm256_set1_epi8(0x1f);
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)b);
        __m256i hit = _mm256_or_si256(
                _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
                                _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\'))),
                _mm256_cmpeq_epi8(_mm256_max_epu8(v, v1f), v1f));

        return (uint32_t)_mm256_movemask_epi8(hit);
}

static inline TPA_JSON_AVX2 size_t tpa_json__find_special_avx2(const unsigned char *b, size_t i,
                                                               size_t n)
{
        for (; i + 32 <= n; i += 32) {
                uint32_t m = tpa_json__special32(b + i);

                if (m != 0)
                        return i + (size_t)__builtin_ctz(m);
        }
        return tpa_json__find_special_sse2(b, i, n);
}

/* The five masks of the 32 bytes at d, in the low halves of m's. */
static inline TPA_JSON_AVX2 void tpa_json__masks32_avx2(const unsigned char *d,
                                                       tpa_json_masks *m)
{
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)d);
        __m256i l = _mm256_or_si256(v, _mm256_set1_epi8(0x20));   /* '[' ']' to '{' '}' */

        m->quote = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')));
        m->backslash =
                (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
        m->comma = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(',')));
        m->close = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(l, _mm256_set1_epi8('}')));
        m->open = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(l, _mm256_set1_epi8('{')));
}

/* The two halves apart, not a loop over them (speed, bench/: the loop's
 * shifts and its counter were a fifth of the filter's block). */
static inline TPA_JSON_AVX2 void tpa_json__masks64_avx2(const unsigned char *d, tpa_json_masks *m)
{
        tpa_json_masks hi;

        tpa_json__masks32_avx2(d, m);
        tpa_json__masks32_avx2(d + 32, &hi);
        m->quote |= hi.quote << 32;
        m->backslash |= hi.backslash << 32;
        m->comma |= hi.comma << 32;
        m->close |= hi.close << 32;
        m->open |= hi.open << 32;
}
#endif

/* ---- digits, eight at a time (any build) ---------------------------------- */

/* The 8 bytes at b as a little-endian word: byte 0 lowest. */
static inline uint64_t tpa_json__load8(const unsigned char *b)
{
        uint64_t w;

        memcpy(&w, b, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        return w;
}

/* 0x80 in each byte of the word w (byte 0 lowest) that is no ASCII digit,
 * exactly in the bytes up to the first such one and some after it: a byte
 * is a digit when its high nibble is 3 and adding 6 leaves it so; a carry
 * out of a byte of 0xfa or more only reaches bytes after it, which is past
 * the first byte that is not a digit. w all digits: 0. */
static inline uint64_t tpa_json__non_digits8(uint64_t w)
{
        const uint64_t hi = 0xf0f0f0f0f0f0f0f0u, threes = 0x3030303030303030u;
        const uint64_t low7 = 0x7f7f7f7f7f7f7f7fu;
        uint64_t z = ((w & hi) ^ threes) | (((w + 0x0606060606060606u) & hi) ^ threes);

        return (((z & low7) + low7) | z) & ~low7;
}

/* How many of the 8 bytes at b, from the first, are ASCII digits (0..8). */
static inline unsigned tpa_json__digits8(const unsigned char *b)
{
        uint64_t t = tpa_json__non_digits8(tpa_json__load8(b)); /* 0x80: byte not a digit */

#if defined(__GNUC__)
        return t == 0 ? 8u : (unsigned)(__builtin_ctzll(t) >> 3);
#else
        unsigned k = 0;
        while (k < 8 && !(t >> (8 * k + 7) & 1))
                k++;
        return k;
#endif
}

/* The index of the first byte of b[i..n) that is no ASCII digit, or n. */
static inline size_t tpa_json__digits_end(const unsigned char *b, size_t i, size_t n)
{
        for (; i + 8 <= n; i += 8) {
                unsigned k = tpa_json__digits8(b + i);

                if (k < 8)
                        return i + k;
        }
        while (i < n && b[i] >= '0' && b[i] <= '9')
                i++;
        return i;
}

/* The value of 8 digits, a byte each, the first in the lowest byte (three
 * multiplications: pairs, then fours, then the eight). */
static inline uint64_t tpa_json__digits_value8(uint64_t v)
{
        v = v * 10 + (v >> 8);
        return (((v & 0x000000ff000000ffu) * 0x000f424000000064u) +
                (((v >> 16) & 0x000000ff000000ffu) * 0x0000271000000001u)) >> 32;
}

/* The value of the 8 ASCII digits at b. */
static inline uint64_t tpa_json__value8(const unsigned char *b)
{
        return tpa_json__digits_value8(tpa_json__load8(b) - 0x3030303030303030u);
}

/* The value of the len (1..8) ASCII digits at b, 8 bytes readable there:
 * the bytes after them shifted out, zeros (leading digits) shifted in. A
 * borrow from a byte after the digits only reaches bytes after it. */
static inline uint64_t tpa_json__value_first(const unsigned char *b, unsigned len)
{
        return tpa_json__digits_value8((tpa_json__load8(b) - 0x3030303030303030u)
                                       << (8 * (8 - len)));
}

/* The widest of the above that the code calling them is built for. */
static inline size_t tpa_json__find_special(const unsigned char *b, size_t i, size_t n)
{
#if defined(TPA_JSON_HAVE_AVX2) && defined(__AVX2__)
        return tpa_json__find_special_avx2(b, i, n);
#elif defined(TPA_JSON_HAVE_SSE2)
        return tpa_json__find_special_sse2(b, i, n);
#else
        return tpa_json__find_special_scalar(b, i, n);
#endif
}

static inline void tpa_json__masks64(const unsigned char *d, tpa_json_masks *m)
{
#if defined(TPA_JSON_HAVE_AVX2) && defined(__AVX2__)
        tpa_json__masks64_avx2(d, m);
#elif defined(TPA_JSON_HAVE_SSE2)
        tpa_json__masks64_sse2(d, m);
#else
        tpa_json__masks64_scalar(d, m);
#endif
}

#endif
