/* SPDX-License-Identifier: MIT */
/*
 * crc32.c - gzip's CRC-32 by folding with carry-less multiplication, from
 * Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
 * Instruction" (2009), with the bit-reflected constants given at the end
 * of that paper. zlib 1.2.13's crc32() takes 7% of all the CPU of a full
 * run on a gzip trace (bench/); this takes a tenth of that. Where the CPU
 * lacks the instruction, or for the last bytes that fill no 16, zlib's
 * crc32() computes it (test_source compares the two on every length).
 */
#include <stdbool.h>
#include <zlib.h>

#include "input/crc32.h"

/* zlib's crc32() takes an unsigned int of bytes at a time. */
static uint32_t by_zlib(uint32_t crc, const uint8_t *buf, size_t len)
{
        while (len > 0) {
                uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;
                crc = (uint32_t)crc32(crc, buf, n);
                buf += n;
                len -= n;
        }
        return crc;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#include <emmintrin.h>
#include <wmmintrin.h>

#define FOLD_MIN 64     /* bytes for the four lanes of the first fold */

static bool has_pclmul(void)
{
        static int known;       /* 0: not asked yet, 1: no, 2: yes */
        unsigned a, b, c, d;

        if (__atomic_load_n(&known, __ATOMIC_RELAXED) == 0) {
                int v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_PCLMUL) ? 2 : 1;
                __atomic_store_n(&known, v, __ATOMIC_RELAXED);
        }
        return __atomic_load_n(&known, __ATOMIC_RELAXED) == 2;
}

/* The CRC of buf[0..len), len >= FOLD_MIN and a multiple of 16, from `crc`
 * not conditioned (the complement of zlib's). Four 128-bit lanes are folded
 * 64 bytes ahead at a time, then into one, 16 bytes at a time, then reduced
 * to 64 and to 32 bits (Barrett). */
__attribute__((target("pclmul,sse2")))
static uint32_t fold(uint32_t crc, const uint8_t *buf, size_t len)
{
        const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
        const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
        const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
        const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
        const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
        __m128i x1, x2, x3, x4, x5;

#define LOAD(k) _mm_loadu_si128((const __m128i *)(const void *)(buf + 16 * (k)))
/* x folded 16 bytes ahead with k onto y */
#define FOLD(x, k, y) \
        _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), \
                                    _mm_clmulepi64_si128(x, k, 0x11)), y)
        x1 = _mm_xor_si128(LOAD(0), _mm_cvtsi32_si128((int)crc));
        x2 = LOAD(1);
        x3 = LOAD(2);
        x4 = LOAD(3);
        for (buf += 64, len -= 64; len >= 64; buf += 64, len -= 64) {
                x1 = FOLD(x1, k1k2, LOAD(0));
                x2 = FOLD(x2, k1k2, LOAD(1));
                x3 = FOLD(x3, k1k2, LOAD(2));
                x4 = FOLD(x4, k1k2, LOAD(3));
        }
        x1 = FOLD(x1, k3k4, x2);
        x1 = FOLD(x1, k3k4, x3);
        x1 = FOLD(x1, k3k4, x4);
        for (; len >= 16; buf += 16, len -= 16)
                x1 = FOLD(x1, k3k4, LOAD(0));
#undef FOLD
#undef LOAD
        /* 128 bits to 64 */
        x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
        x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
        x2 = _mm_srli_si128(x1, 4);
        x1 = _mm_and_si128(x1, low32);
        x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5k0, 0x00), x2);
        /* 64 bits to 32 */
        x5 = _mm_and_si128(x1, low32);
        x5 = _mm_clmulepi64_si128(x5, poly, 0x10);
        x5 = _mm_and_si128(x5, low32);
        x5 = _mm_clmulepi64_si128(x5, poly, 0x00);
        x1 = _mm_xor_si128(x1, x5);
        return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x1, 4));
}

#endif

uint32_t tpa_crc32__update(uint32_t crc, const uint8_t *buf, size_t len)
{
#if defined(__GNUC__) && defined(__x86_64__)
        if (len >= FOLD_MIN && has_pclmul()) {
                size_t n = len & ~(size_t)15;
                crc = ~fold(~crc, buf, n);
                buf += n;
                len -= n;
        }
#endif
        return by_zlib(crc, buf, len);
}
