/* SPDX-License-Identifier: MIT */
/*
 * chrome_scan.c - the segment scanner: the records of a segment (see "two
 * threads" in chrome_split.c) as profilers write them, read without yajl.
 *
 * yajl takes a byte at a time through a state machine, the largest cost
 * of reading (bench/). So a segment is first read by
 * tpa_chrome__scan_segment(), which knows only the plain JSON that
 * profilers write (strings with the short escapes, numbers, literals, the
 * four spaces of RFC 8259) and does what yajl's callbacks would do, in the
 * same order, with the same arguments, at the same offsets
 * (tpa_chrome__offset_now() takes scan_at while yh is NULL): a token at a
 * time through the callbacks, or, for a record that is a map with an args
 * map in it, the record at once through the setters the callbacks use
 * (scan_record()). At anything else (a \u escape, '\v' or '\f' between
 * tokens, a control byte in a string, a syntax error, nesting deeper than
 * SCAN_DEPTH, the ']' of the events array) it gives up before doing
 * anything for it, and yajl reads the segment again from its start. So
 * what the scanner reads it reads as yajl does, and what it does not, yajl
 * decides (test_chrome_json compares the two on damaged traces, and
 * fuzz_chrome_json on any input). chrome_scan_avx2.c builds this file
 * again for AVX2, and tpa_chrome__scan_segment() runs that build where the
 * CPU has it.
 */
#include <assert.h>
#include <string.h>

#include "parse/chrome_scan.h"
#include "parse/json_scan.h"

#define SCAN_DEPTH 64

static inline size_t scan_ws(const unsigned char *b, size_t i, size_t n)
{
        /* mostly there is none: one test for a byte above every space */
        if (i < n && b[i] > ' ')
                return i;
        /* else mostly one space, after a ':' or a ',' */
        if (i + 1 < n && b[i] == ' ' && b[i + 1] > ' ')
                return i + 1;
#ifdef TPA_JSON_HAVE_SSE2
        /* a pretty-printed trace's new line and indent (Kineto's): 16
         * bytes at a time (speed, bench/: the byte loop was an eighth of
         * reading such a trace) */
        while (n - i >= 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
                __m128i ws = _mm_or_si128(
                        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
                                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
                unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xffffu;

                if (other != 0)
                        return i + (unsigned)__builtin_ctz(other);
                i += 16;
        }
#endif
        while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
                i++;
        return i;
}

static bool scan_put(tpa_chrome_parser *c, const unsigned char *s, size_t len)
{
        struct sbuf *d = &c->scan_buf;

        if (tpa_chrome__grow((void **)&d->data, &d->cap, d->len + len + 1, 1, &c->scratch) < 0)
                return false;
        memcpy(d->data + d->len, s, len);
        d->len += len;
        return true;
}

/* The string whose '"' is at b[*i]: its text in *s and *len (decoded into
 * scan_buf when it has escapes, as yajl_string_decode() does), and *i past
 * its closing '"'; its bytes before `from` are plain. false: give up. */
static bool scan_str_rest(tpa_chrome_parser *c, const unsigned char *b, size_t n, size_t *i,
                          const unsigned char **s, size_t *len, size_t from)
{
        size_t start = *i + 1, j = tpa_json__find_special(b, from, n);

        if (j < n && b[j] == '"') {
                *s = b + start;
                *len = j - start;
                *i = j + 1;
                return true;
        }
        c->scan_buf.len = 0;
        for (;;) {
                unsigned char e;

                if (j + 1 >= n || b[j] != '\\')
                        return false;           /* the end, or a control byte */
                switch (b[j + 1]) {
                case '"': case '\\': case '/': e = b[j + 1]; break;
                case 'b': e = '\b'; break;
                case 'f': e = '\f'; break;
                case 'n': e = '\n'; break;
                case 'r': e = '\r'; break;
                case 't': e = '\t'; break;
                default: return false;          /* \u, or not an escape */
                }
                if (!scan_put(c, b + start, j - start) || !scan_put(c, &e, 1))
                        return false;
                start = j + 2;
                j = tpa_json__find_special(b, start, n);
                if (j < n && b[j] == '"')
                        break;
        }
        if (!scan_put(c, b + start, j - start))
                return false;
        *s = (const unsigned char *)c->scan_buf.data;
        *len = c->scan_buf.len;
        *i = j + 1;
        return true;
}

#ifdef TPA_JSON_HAVE_SSE2
static __attribute__((noinline)) size_t find_special(const unsigned char *b, size_t i,
                                                     size_t n)
{
        return tpa_json__find_special(b, i, n);
}
#endif

/* scan_str_rest() where the string ends, with no escape, in the 16 bytes
 * after its '"' (most keys and names), inline: a call per string was a
 * third of its cost. 16 in the AVX2 build too: a test of 32 bytes cost
 * more on the short keys than it saved on the longer names (bench/). */
static inline bool scan_str(tpa_chrome_parser *c, const unsigned char *b, size_t n, size_t *i,
                            const unsigned char **s, size_t *len)
{
        size_t start = *i + 1;

#ifdef TPA_JSON_HAVE_SSE2
        if (start + 16 <= n) {
                unsigned m = tpa_json__special16(b + start);
                size_t j = start + (size_t)__builtin_ctz(m | 0x10000u);

                /* longer (kernel and op names): the rest found by a call
                 * that only finds it (speed, bench/: scan_str_rest()'s
                 * own cost was a third of such a string's) */
                if (m == 0)
                        j = find_special(b, j, n);
                if (j < n && b[j] == '"') {
                        *s = b + start;
                        *len = j - start;
                        *i = j + 1;
                        return true;
                }
                return scan_str_rest(c, b, n, i, s, len, j);
        }
#endif
        return scan_str_rest(c, b, n, i, s, len, start);
}

/* The end of the number at b[i] (yajl's grammar:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or 0: give up, also
 * when it reaches n (yajl would wait for more digits). */
static size_t scan_num(const unsigned char *b, size_t i, size_t n)
{
        size_t k;

        if (i < n && b[i] == '-')
                i++;
        if (i < n && b[i] == '0')
                i++;
        else if (i < n && b[i] >= '1' && b[i] <= '9')
                i = tpa_json__digits_end(b, i + 1, n);
        else
                return 0;
        if (i < n && b[i] == '.') {
                k = ++i;
                if ((i = tpa_json__digits_end(b, i, n)) == k)
                        return 0;
        }
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
                i++;
                if (i < n && (b[i] == '+' || b[i] == '-'))
                        i++;
                for (k = i; i < n && tpa_chrome__is_digit((char)b[i]); i++)
                        ;
                if (i == k)
                        return 0;
        }
        return i < n ? i : 0;
}

/* scan_num() for a number that is mostly a small count ("Input Dims":
 * [[32, 3, 224, 224]], "External id": 7): 1 to 7 digits, no leading zero,
 * no '.', 'e' or 'E' after them, inline (speed, bench/: the calls to
 * scan_num() were a twentieth of reading a Kineto trace). */
static inline size_t scan_count(const unsigned char *b, size_t i, size_t n)
{
        unsigned len;

        if (n - i > 8 && (len = tpa_json__digits8(b + i)) - 1 < 7 && (b[i] != '0' || len == 1) &&
            b[i + len] != '.' && (b[i + len] | 0x20) != 'e')
                return i + len;
        return scan_num(b, i, n);
}

/* A time in microseconds as profilers write it, "[-]D.FFF" (1 to 16
 * digits: Kineto's microseconds since 1970 have 16; 0 to 3 decimals), at
 * b[i]: its nanoseconds in *ns, as tpa_chrome__us_to_ns() gives them, and
 * the index after it; 0 for any other number (also past INT64_MAX
 * nanoseconds), which scan_num() and tpa_chrome__us_to_ns() then read.
 * time_at() reads TIME_READ bytes from b[i]: the sign, 16 digits, the
 * point, 3 decimals and a byte after, 8 at a time. */
#define TIME_READ 26
static const uint64_t ten[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                 100000000 };

#ifdef TPA_JSON_HAVE_SSE2
/* time_at() for a time whose digits, point, decimals and the byte after
 * them are in the 16 bytes from b[k] (its first digit), the usual case, at
 * once (speed, bench/: the digits' ends found 8 at a time, one after the
 * other, were most of a time's cost): the bytes that are digits in one
 * mask, the point taken out of the digits, their value in two words (in
 * the AVX2 build, by multiply-adds on the digits in place). Its
 * nanoseconds (no sign) in *w and the index after it; 0: left to the
 * reading 8 bytes at a time in time_at(). */
static inline size_t time16(const unsigned char *b, size_t k, uint64_t *w)
{
        const __m128i nine = _mm_set1_epi8(9);
        const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                           15);
        __m128i v = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + k)),
                                 _mm_set1_epi8('0'));
        /* bit j: b[k + j] is no digit; bit 16 and up: past the bytes read */
        unsigned other = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, nine), v));
        unsigned a = (unsigned)__builtin_ctz(other), nf = 0, d;
        size_t e = k + a;

        /* 16 digits: the byte after them, past the 16 read, ends them */
        if (a == 0 || (b[k] == '0' && a > 1) || (a == 16 && tpa_chrome__is_digit((char)b[k + 16])))
                return 0;
        if (b[e] == '.') {
                nf = (unsigned)__builtin_ctz(other >> (a + 1));
                if (nf == 0 || nf > 3 || a + 1 + nf >= 16)
                        return 0;
#ifndef __AVX2__
                {
                        /* the decimals one byte down, over the point */
                        __m128i before = _mm_cmpgt_epi8(_mm_set1_epi8((char)a), iota);

                        v = _mm_or_si128(_mm_and_si128(before, v),
                                         _mm_andnot_si128(before, _mm_srli_si128(v, 1)));
                }
#endif
                e += 1 + nf;
        }
        if (b[e] == 'e' || b[e] == 'E')
                return 0;
        d = a + nf;
#ifdef __AVX2__
        {
                /* the d digits moved to the last bytes, over the point,
                 * zeros before them (byte j takes digit j - (16 - d), the
                 * digits from the a-th one byte further on), then their
                 * value by multiply-adds, 8 digits a lane (speed, bench/:
                 * two words' values one after the other) */
                __m128i idx = _mm_sub_epi8(iota, _mm_set1_epi8((char)(16 - d)));
                __m128i x;

                idx = _mm_sub_epi8(idx, _mm_cmpgt_epi8(idx, _mm_set1_epi8((char)(a - 1))));
                x = _mm_shuffle_epi8(v, idx);
                x = _mm_maddubs_epi16(x, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1,
                                                       10, 1, 10, 1));
                x = _mm_madd_epi16(x, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
                x = _mm_packus_epi32(x, x);
                x = _mm_madd_epi16(x, _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
                *w = (uint64_t)(uint32_t)_mm_cvtsi128_si32(x) * 100000000u +
                     (uint32_t)_mm_extract_epi32(x, 1);
        }
#else
        {
                /* the d digits, first in the lowest byte; bytes after them
                 * shifted out */
                uint64_t q[2];

                _mm_storeu_si128((__m128i *)(void *)q, v);
                if (d <= 8)
                        *w = tpa_json__digits_value8(q[0] << (8 * (8 - d)));
                else
                        *w = tpa_json__digits_value8(q[0]) * ten[d - 8] +
                             tpa_json__digits_value8(q[1] << (8 * (16 - d)));
        }
#endif
        *w *= ten[3 - nf];
        return *w <= (uint64_t)INT64_MAX ? e : 0;
}
#endif

static size_t time_at(const unsigned char *b, size_t i, tpa_ns *ns)
{
        size_t k = b[i] == '-' ? i + 1 : i, e;
        unsigned nf = 0, a;
        uint64_t w;

        /* 8 bytes are readable wherever the digits of the widest such time
         * start: the digits taken 8 at a time (speed, bench/: a digit at a
         * time was a third of the time's cost) */
        if ((a = tpa_json__digits8(b + k)) == 8)
                a += tpa_json__digits8(b + k + 8);
        if (a == 0 || (b[k] == '0' && a > 1) || (a == 16 && tpa_chrome__is_digit((char)b[k + 16])))
                return 0;
        w = a <= 8 ? tpa_json__value_first(b + k, a)
                   : tpa_json__value8(b + k) * ten[a - 8] + tpa_json__value_first(b + k + 8, a - 8);
        e = k + a;
        if (b[e] == '.') {
                nf = tpa_json__digits8(b + e + 1);
                if (nf == 0 || nf > 3)
                        return 0;
                w = w * ten[nf] + tpa_json__value_first(b + e + 1, nf);
                e += 1 + nf;
        }
        if (b[e] == 'e' || b[e] == 'E')
                return 0;
        w *= ten[3 - nf];
        if (w > (uint64_t)INT64_MAX)
                return 0;
        *ns = b[i] == '-' ? -(int64_t)w : (int64_t)w;
        return e;
}

static inline size_t scan_time(const unsigned char *b, size_t i, size_t n, tpa_ns *ns)
{
#ifdef TPA_JSON_HAVE_SSE2
        if (n - i >= TIME_READ) {
                size_t k = b[i] == '-' ? i + 1 : i, e;
                uint64_t w;

                if ((e = time16(b, k, &w)) != 0) {
                        *ns = b[i] == '-' ? -(int64_t)w : (int64_t)w;
                        return e;
                }
        }
#endif
        if (n - i < TIME_READ) {
                /* near the segment's end, the same on a copy with bytes
                 * after it that are no digit: a time that runs to the end
                 * is left to the callbacks (yajl would wait for more
                 * digits) */
                unsigned char pad[TIME_READ] = { 0 };
                size_t e;

                memcpy(pad, b + i, n - i);
                e = time_at(pad, 0, ns);
                return e == 0 || e >= n - i ? 0 : i + e;
        }
        return time_at(b, i, ns);
}

/* An integer of at most 18 digits at b[i] (pids and tids, as profilers
 * write them): its value in *v and the index after it; 0 for any other
 * number, which scan_num() and the parser's setter then read. */
static size_t scan_int(const unsigned char *b, size_t i, size_t n, int64_t *v)
{
        size_t k = i < n && b[i] == '-' ? i + 1 : i, e = tpa_json__digits_end(b, k, n);
        uint64_t w = 0;

        if (e == k || e - k > 18 || (b[k] == '0' && e - k > 1) || e >= n || b[e] == '.' ||
            b[e] == 'e' || b[e] == 'E')
                return 0;
        for (; k + 8 <= e; k += 8)
                w = w * 100000000u + tpa_json__value8(b + k);
        for (; k < e; k++)
                w = w * 10 + (uint64_t)(b[k] - '0');
        *v = b[i] == '-' ? -(int64_t)w : (int64_t)w;
        return e;
}

/* The value of the string of len digits that ends at `end` (its closing
 * '"'), when len is 1 to 8 and 8 bytes before `end` are the segment's, in
 * *v (speed, bench/: ids given as strings, "group_id":"764", on most
 * records, were read a digit at a time); false: the string is left to the
 * parser's setter, which reads it the same. */
static inline bool id_string(const unsigned char *end, size_t len, int64_t *v)
{
        uint64_t w, keep, t;

        if (len - 1 >= 8)
                return false;
        /* the 8 bytes before `end`, the digits the last len of them: the
         * others are made '0's, leading zeros */
        keep = ~(uint64_t)0 << (8 * (8 - len));
        w = (tpa_json__load8(end - 8) & keep) | (UINT64_C(0x3030303030303030) & ~keep);
        t = tpa_json__non_digits8(w);
        if (t != 0)
                return false;
        *v = (int64_t)tpa_json__digits_value8(w - UINT64_C(0x3030303030303030));
        return true;
}

/* The length of the literal at b[i] (true, false, null), or 0. */
static size_t scan_lit(const unsigned char *b, size_t i, size_t n)
{
        const char *w = b[i] == 't' ? "true" : b[i] == 'f' ? "false" : "null";
        size_t len = strlen(w);

        return n - i >= len && memcmp(b + i, w, len) == 0 ? len : 0;
}

/*
 * A record at once. Most records are a map with one "args" map in it, so
 * the scanner reads such a one here: each key classified, each value handed
 * to the parser's setter for its key (chrome_parser.h), with scan_at as the
 * callbacks would have it; only the record's and its args' '{' and '}' go
 * through the callbacks; a list, or a map that is not the args, is checked
 * and skipped (skip_nested()). Speed (bench/): the callbacks' dispatch on
 * every key and value was a third of the scanner's work. Anything else in
 * a record (what skip_nested() does not take, a key or string past
 * max_string) is REC_OTHER: the parser is put back where it
 * stood before the '{' (the record's start resets what the values set) and
 * the scanner reads the record a token at a time. It reads only for
 * collecting parsers (chrome_split.c), so a record's end and its name go
 * straight to the parser's list (tpa_chrome__on_end_collected(),
 * tpa_chrome__collect_str()).
 */
enum rec_result { REC_OK, REC_OTHER, REC_FAILED };

/* The mask of the first `size` (0 to 64) bytes of a text compared at once. */
static inline uint64_t first_bytes(size_t size)
{
        return size >= 64 ? UINT64_MAX : (UINT64_C(1) << size) - 1;
}

#ifdef TPA_JSON_HAVE_SSE2
/* Bit k: byte k of v is b[k]. */
static inline uint16_t same16(__m128i v, const unsigned char *b)
{
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)b);

        return (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, w));
}
#endif

/* The bytes of a key at b[i] (its '"') that guess_hit() compares, read
 * once for the guesses at a place. A byte follows them. */
#ifdef __AVX2__
struct key_bytes {
        __m256i v;
};

static inline struct key_bytes key_bytes(const unsigned char *b, size_t i)
{
        struct key_bytes k = { _mm256_loadu_si256((const __m256i *)(const void *)(b + i)) };

        return k;
}
#elif defined(TPA_JSON_HAVE_SSE2)
struct key_bytes {
        __m128i lo, hi;
};

static inline struct key_bytes key_bytes(const unsigned char *b, size_t i)
{
        struct key_bytes k = {
                _mm_loadu_si128((const __m128i *)(const void *)(b + i)),
                _mm_loadu_si128((const __m128i *)(const void *)(b + i + 16)),
        };

        return k;
}
#else
struct key_bytes {
        const unsigned char *at;
};

static inline struct key_bytes key_bytes(const unsigned char *b, size_t i)
{
        struct key_bytes k = { b + i };

        return k;
}
#endif

/* The key in `k` is `g`'s: the bytes of `"key":` compared at once, in
 * place of finding the string's end and looking the key up (speed,
 * bench/). Same bytes, same key: nothing else changes. */
static inline bool guess_hit(const struct key_guess *g, struct key_bytes k)
{
        if (g->mask == 0)
                return false;
#ifdef __AVX2__
        {
                /* the whole text at once (speed, bench/: in two halves,
                 * twice the work on every key) */
                __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)g->text);
                uint32_t eq = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(k.v, w));

                return (eq & g->mask) == g->mask;
        }
#elif defined(TPA_JSON_HAVE_SSE2)
        {
                uint32_t eq = same16(k.lo, g->text) | (uint32_t)same16(k.hi, g->text + 16) << 16;

                return (eq & g->mask) == g->mask;
        }
#else
        return memcmp(k.at, g->text, g->size) == 0;
#endif
}

/* The key read at place `place` of a map (args or not): its bytes from b[i],
 * `size` of them up to its ':', kept as the newer guess there. */
static void guess_keep(tpa_chrome_parser *c, bool args, size_t place, const unsigned char *b,
                       size_t i, size_t size, enum key key)
{
        struct key_guess *g;

        if (place >= TPA_CHROME_KEY_PLACES || size > TPA_CHROME_KEY_TEXT)
                return;
        g = c->guess[args][place];
        memmove(&g[1], &g[0], (TPA_CHROME_KEY_WAYS - 1) * sizeof(*g));
        memset(g[0].text, 0, sizeof(g[0].text));
        memcpy(g[0].text, b + i, size);
        g[0].mask = (uint32_t)first_bytes(size);
        g[0].size = (uint8_t)size;
        g[0].key = (uint8_t)key;
}

/* The head of c->heads that the bytes from b[i] begin with, or NULL. A
 * byte follows it. */
static inline const struct record_head *head_hit(const tpa_chrome_parser *c,
                                                 const unsigned char *b, size_t i, size_t n)
{
        if (n - i <= TPA_CHROME_HEAD_TEXT)
                return NULL;
#ifdef __AVX2__
        {
                /* the record's first 32 bytes loaded once for all heads and
                 * compared at once (they tell heads apart: a tid's digits),
                 * the next 32 only for a head that passes and is longer */
                const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));

                for (int h = 0; h < TPA_CHROME_HEADS; h++) {
                        const struct record_head *x = &c->heads[h];
                        const uint64_t first = UINT32_MAX;
                        uint64_t eq = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
                                v, _mm256_loadu_si256((const __m256i *)(const void *)x->text)));

                        if ((eq & x->mask & first) != (x->mask & first))
                                continue;
                        if (x->size > 32) {
                                __m256i r = _mm256_loadu_si256((const __m256i *)(const void *)
                                                               (b + i + 32));
                                __m256i t = _mm256_loadu_si256((const __m256i *)(const void *)
                                                               (x->text + 32));

                                eq |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
                                              _mm256_cmpeq_epi8(r, t)) << 32;
                        }
                        if (x->mask != 0 && (eq & x->mask) == x->mask)
                                return x;
                }
        }
#elif defined(TPA_JSON_HAVE_SSE2)
        {
                /* the record's bytes loaded once for all heads */
                __m128i v[TPA_CHROME_HEAD_TEXT / 16];

                for (int k = 0; k < TPA_CHROME_HEAD_TEXT / 16; k++)
                        v[k] = _mm_loadu_si128((const __m128i *)(const void *)(b + i + 16 * k));
                for (int h = 0; h < TPA_CHROME_HEADS; h++) {
                        const struct record_head *x = &c->heads[h];
                        const uint64_t second = UINT64_C(0xffff) << 16;
                        uint64_t eq;

                        /* the second 16 bytes first, alone: they mostly
                         * tell heads apart (a tid's digits), and the bytes
                         * past the head's size are not compared (speed,
                         * bench/: most heads compared are not the one) */
                        eq = (uint64_t)same16(v[1], x->text + 16) << 16;
                        if ((eq & x->mask & second) != (x->mask & second))
                                continue;
                        eq |= same16(v[0], x->text);
                        for (int k = 2; k < TPA_CHROME_HEAD_TEXT / 16 && x->size > 16 * k; k++)
                                eq |= (uint64_t)same16(v[k], x->text + 16 * k) << (16 * k);
                        if (x->mask != 0 && (eq & x->mask) == x->mask)
                                return x;
                }
        }
#else
        for (int h = 0; h < TPA_CHROME_HEADS; h++) {
                const struct record_head *x = &c->heads[h];

                if (x->mask != 0 && memcmp(b + i, x->text, x->size) == 0)
                        return x;
        }
#endif
        return NULL;
}

/* The record's first `members` members, all of a head, were b[from..to):
 * kept as a head, in place of the oldest, with what they set. */
static void head_keep(tpa_chrome_parser *c, const unsigned char *b, size_t from, size_t to,
                      size_t members)
{
        struct record_head *h;
        size_t size = to - from;

        if (size > TPA_CHROME_HEAD_TEXT)
                return;
        h = &c->heads[c->head_next];
        c->head_next = (c->head_next + 1) % TPA_CHROME_HEADS;
        memset(h->text, 0, sizeof(h->text));
        memcpy(h->text, b + from, size);
        h->mask = first_bytes(size);
        h->size = (uint8_t)size;
        h->members = (uint8_t)members;
        h->ph = c->rec->ph;
        h->pid = c->rec->pid.num;
        h->tid = c->rec->tid.num;
}

/* Built twice, with `args` a constant in each (scan_args(),
 * scan_record_members()): speed, bench/, the tests of `args` on every
 * member were a tenth of its cost. */
#ifdef __GNUC__
#define SCAN_INLINE inline __attribute__((always_inline))
#else
#define SCAN_INLINE inline
#endif

static enum rec_result scan_args(tpa_chrome_parser *c, const unsigned char *b, size_t n,
                                 size_t *at);

/* How deep skip_nested() goes: its levels' kinds are the bits of a word. */
#define NESTED_LEVELS 63

/*
 * The value at b[*at], an array, or a map that is not a record's args
 * (Kineto's "Input Dims": [[1, 2]] and "grid": [1, 1, 1], on most of its
 * records): below the args' level, the callbacks set nothing for anything
 * in it, so it is only checked as yajl and the callbacks would check it:
 * its syntax, each string and key no longer than max_string, no level
 * deeper than max_depth. *at after it; false: anything else, which the
 * callbacks then read (speed, bench/: such a record was read a token at a
 * time, from its '{').
 */
static bool skip_nested(tpa_chrome_parser *c, const unsigned char *b, size_t n, size_t *at)
{
        uint64_t maps = 0;              /* bit k: level k is a map */
        unsigned level = 0;
        size_t i = *at, len;
        const unsigned char *s;

open:   /* b[i] is '[' or '{' */
        if (++level > NESTED_LEVELS || c->depth + level > c->max_depth)
                return false;
        if (b[i] == '{')
                maps |= UINT64_C(1) << level;
        else
                maps &= ~(UINT64_C(1) << level);
        i = scan_ws(b, i + 1, n);
        if (i == n)
                return false;
        if (b[i] == ((maps >> level & 1) != 0 ? '}' : ']'))
                goto close;
        if ((maps >> level & 1) != 0)
                goto key;
value:
        switch (b[i]) {
        case '[':
        case '{':
                goto open;
        case '"':
                if (!scan_str(c, b, n, &i, &s, &len) || len > c->max_string)
                        return false;
                break;
        case 't':
        case 'f':
        case 'n':
                if ((len = scan_lit(b, i, n)) == 0)
                        return false;
                i += len;
                break;
        default:
                if ((i = scan_count(b, i, n)) == 0)
                        return false;
                break;
        }
after:  /* a value ended */
        i = scan_ws(b, i, n);
        if (i == n)
                return false;
        if (b[i] == ',') {
                i = scan_ws(b, i + 1, n);
                if (i == n)
                        return false;
                if ((maps >> level & 1) != 0)
                        goto key;
                goto value;
        }
close:  /* b[i] must close the level */
        if (b[i] != ((maps >> level & 1) != 0 ? '}' : ']'))
                return false;
        i++;
        if (--level == 0) {
                *at = i;
                return true;
        }
        goto after;
key:    /* b[i] is after '{' or ',' in a map, and its spaces */
        if (b[i] != '"' || !scan_str(c, b, n, &i, &s, &len) ||
            len > c->max_string)
                return false;
        i = scan_ws(b, i, n);
        if (i == n || b[i] != ':')
                return false;
        i = scan_ws(b, i + 1, n);
        if (i == n)
                return false;
        goto value;
}

/* The members of the map whose '{' the parser has just taken, from b[*i]
 * to its '}' (*i after it): a record's, or with `args` its args'. */
static SCAN_INLINE enum rec_result scan_members(tpa_chrome_parser *c, const unsigned char *b,
                                                size_t n, size_t *at, bool args)
{
        size_t i = scan_ws(b, *at, n), j, len, place = 0, from = i;
        const unsigned char *s;
        const struct record_head *h;
        enum rec_result r;
        /* the members so far are a head's (a record's only) */
        bool head = !args;
        tpa_ns ns;
        int64_t id;

        if (i < n && b[i] == '}')
                goto close;
        if (!args)
                c->rec->has_keys = true;
        /* the record begins as one before did: what its first members set,
         * at once (speed, bench/: they were a sixth of the scanner's work);
         * scan_at is set before the next call that reads it */
        if (head && (h = head_hit(c, b, i, n)) != NULL) {
                c->rec->ph = h->ph;
                c->rec->pid.num = h->pid;
                c->rec->tid.num = h->tid;
                place = h->members;
                i += h->size;
                head = false;
        }
        for (;; place++) {
                const struct key_guess *g = NULL;
                size_t k0 = i;

                if (place < TPA_CHROME_KEY_PLACES && n - i > TPA_CHROME_KEY_TEXT) {
                        struct key_bytes k = key_bytes(b, i);

                        g = c->guess[args][place];
                        g = guess_hit(&g[0], k) ? &g[0] : guess_hit(&g[1], k) ? &g[1]
                          : guess_hit(&g[2], k) ? &g[2] : guess_hit(&g[3], k) ? &g[3] : NULL;
                }
                if (g != NULL) {
                        c->key = (enum key)g->key;
                        i += g->size;
                        if (b[i] <= ' ' && (i = scan_ws(b, i, n)) == n)
                                return REC_OTHER;
                        goto value;
                }
                if (i == n || b[i] != '"' || !scan_str(c, b, n, &i, &s, &len) ||
                    len > c->max_string)
                        return REC_OTHER;
                c->key = args ? tpa_chrome__args_key((const char *)s, len)
                              : tpa_chrome__event_key((const char *)s, len);
                /* "key":value, as profilers write it, without a look for
                 * spaces (speed, bench/: those looks were a sixth of the
                 * scanner's own instructions) */
                if (i + 1 < n && b[i] == ':' && b[i + 1] > ' ') {
                        if (s == b + k0 + 1)    /* not decoded: the bytes are the key */
                                guess_keep(c, args, place, b, k0, i + 1 - k0, c->key);
                        i++;
                } else {
                        /* "key": value, as Kineto writes it, kept as a
                         * guess too (speed, bench/: else each of its keys
                         * was found and looked up) */
                        if (i < n && b[i] == ':' && s == b + k0 + 1)
                                guess_keep(c, args, place, b, k0, i + 1 - k0, c->key);
                        i = scan_ws(b, i, n);
                        if (i == n || b[i] != ':')
                                return REC_OTHER;
                        i = scan_ws(b, i + 1, n);
                        if (i == n)
                                return REC_OTHER;
                }
value:
                if (head && c->key != K_PH && c->key != K_PID && c->key != K_TID) {
                        if (place > 0)
                                head_keep(c, b, from, k0, place);
                        head = false;
                }
                /* a string, the usual value, without the switch's table
                 * of jumps (speed, bench/; a test for a digit too cost
                 * more than it saved) */
                if (b[i] == '"')
                        goto string;
                switch (b[i]) {
                case '"':
string:
                        head = head && c->key == K_PH;
                        if (!scan_str(c, b, n, &i, &s, &len) || len > c->max_string)
                                return REC_OTHER;
                        c->scan_at = i;
                        if (c->key == K_NONE)
                                break;          /* a key no setter acts on */
                        if (args && TPA_CHROME_ARGS_U64(c->key) && i > 8 &&
                            s == b + (i - 1 - len) && id_string(b + i - 1, len, &id)) {
                                tpa_chrome__args_u64(c, (uint64_t)id);
                                break;
                        }
                        /* a name kept as tpa_chrome__event_string() keeps
                         * it, inline (speed, bench/: one on every record) */
                        if (!args && (c->key == K_NAME || c->key == K_CAT)) {
                                if (!tpa_chrome__collect_str(c, c->key == K_NAME ? &c->rec->name
                                                                                 : &c->rec->cat,
                                                             (const char *)s, len))
                                        return REC_FAILED;
                                break;
                        }
                        if (!(args ? tpa_chrome__args_string(c, (const char *)s, len)
                                   : tpa_chrome__event_string(c, (const char *)s, len)))
                                return REC_FAILED;
                        break;
                case '{':
                        if (args || c->key != K_ARGS)
                                goto nested;
                        c->scan_at = ++i;
                        if (!tpa_chrome__on_start_args(c))
                                return REC_FAILED;
                        if ((r = scan_args(c, b, n, &i)) != REC_OK)
                                return r;
                        break;
                case '[':
nested:
                        head = false;
                        if (!skip_nested(c, b, n, &i))
                                return REC_OTHER;
                        break;
                case 't':
                case 'f':
                case 'n':
                        if ((len = scan_lit(b, i, n)) == 0)
                                return REC_OTHER;
                        i += len;               /* a literal sets nothing */
                        break;
                default:
                        if (!args && (c->key == K_TS || c->key == K_DUR) &&
                            (j = scan_time(b, i, n, &ns)) != 0) {
                                c->scan_at = j;
                                if (!tpa_chrome__event_time(c, ns, c->fed + i))
                                        return REC_FAILED;
                        } else if (!args && (c->key == K_PID || c->key == K_TID) &&
                                   (j = scan_int(b, i, n, &id)) != 0) {
                                c->scan_at = j;
                                tpa_chrome__event_id(c, id);
                        } else if ((j = scan_count(b, i, n)) == 0) {
                                return REC_OTHER;
                        } else {
                                head = false;   /* no integer id */
                                c->scan_at = j;
                                if (args)
                                        tpa_chrome__args_scalar(c, (const char *)b + i, j - i);
                                else if (!tpa_chrome__event_scalar(c, (const char *)b + i,
                                                                   j - i, c->fed + i))
                                        return REC_FAILED;
                        }
                        i = j;
                        break;
                }
                if (i + 1 < n && b[i] == ',' && b[i + 1] == '"') {
                        i++;                    /* value,"key" */
                        continue;
                }
                i = scan_ws(b, i, n);
                if (i == n)
                        return REC_OTHER;
                if (b[i] == '}')
                        break;
                if (b[i] != ',')
                        return REC_OTHER;
                i = scan_ws(b, i + 1, n);
        }
close:
        c->scan_at = ++i;
        if (args)
                tpa_chrome__on_end_args(c);
        else if (!tpa_chrome__on_end_collected(c))
                return REC_FAILED;
        *at = i;
        return REC_OK;
}

static enum rec_result scan_args(tpa_chrome_parser *c, const unsigned char *b, size_t n,
                                 size_t *at)
{
        return scan_members(c, b, n, at, true);
}

static enum rec_result scan_record_members(tpa_chrome_parser *c, const unsigned char *b,
                                           size_t n, size_t *at)
{
        return scan_members(c, b, n, at, false);
}

/* The record whose '{' is at b[*at]: read at once (*at after its '}'), or
 * REC_OTHER with the parser as it was. */
static enum rec_result scan_record(tpa_chrome_parser *c, const unsigned char *b, size_t n,
                                   size_t *at)
{
        uint32_t depth = c->depth;
        size_t i = *at + 1;
        enum rec_result r;

        if (!c->events_open || c->depth != c->events_depth || c->in_event)
                return REC_OTHER;
        c->scan_at = i;
        if (!tpa_chrome__on_start_record(c))
                return REC_FAILED;
        r = scan_record_members(c, b, n, &i);
        if (r == REC_OK) {
                *at = i;
        } else if (r == REC_OTHER) {
                c->depth = depth;
                c->in_event = c->in_args = false;
        }
        return r;
}

static enum tpa_chrome_scan_result scan_segment(tpa_chrome_parser *c, const unsigned char *b,
                                                size_t n)
{
        unsigned char open[SCAN_DEPTH];         /* '{' or '[' by depth; 0: the events array */
        unsigned depth = 0;
        size_t i = 0, j, len;
        const unsigned char *s;

        assert(c->coll != NULL);
        open[0] = '[';
value:  /* after '[', ':', or ',' in an array */
        i = scan_ws(b, i, n);
        if (i == n)
                return depth == 0 ? TPA_CHROME_SCAN_OK : TPA_CHROME_SCAN_GIVE_UP;
        if (b[i] == '{' && depth == 0) {
                switch (scan_record(c, b, n, &i)) {
                case REC_OK:
                        goto after;
                case REC_FAILED:
                        return TPA_CHROME_SCAN_FAILED;
                case REC_OTHER:
                        break;                  /* a token at a time, below */
                }
        }
        switch (b[i]) {
        case '{':
        case '[':
                if (++depth == SCAN_DEPTH)
                        return TPA_CHROME_SCAN_GIVE_UP;
                open[depth] = b[i];
                c->scan_at = ++i;
                if (!(open[depth] == '{' ? tpa_chrome__on_start_map(c)
                                         : tpa_chrome__on_start_array(c)))
                        return TPA_CHROME_SCAN_FAILED;
                i = scan_ws(b, i, n);
                if (i < n && b[i] == open[depth] + 2)   /* '}' or ']' */
                        goto close;
                if (open[depth] == '{')
                        goto key;
                goto value;
        case '"':
                if (!scan_str(c, b, n, &i, &s, &len))
                        return TPA_CHROME_SCAN_GIVE_UP;
                c->scan_at = i;
                if (!tpa_chrome__on_string(c, s, len))
                        return TPA_CHROME_SCAN_FAILED;
                break;
        case 't':
        case 'f':
        case 'n':
                if ((len = scan_lit(b, i, n)) == 0)
                        return TPA_CHROME_SCAN_GIVE_UP;
                c->scan_at = i += len;
                if (!(len == 4 && b[i - 4] == 'n' ? tpa_chrome__on_null(c)
                                                  : tpa_chrome__on_boolean(c, len == 4)))
                        return TPA_CHROME_SCAN_FAILED;
                break;
        default:
                if ((j = scan_num(b, i, n)) == 0)
                        return TPA_CHROME_SCAN_GIVE_UP;
                c->scan_at = j;
                if (!tpa_chrome__on_number(c, (const char *)b + i, j - i))
                        return TPA_CHROME_SCAN_FAILED;
                i = j;
                break;
        }
after:  /* a value ended */
        i = scan_ws(b, i, n);
        if (i == n)
                return TPA_CHROME_SCAN_GIVE_UP;
        if (b[i] == ',') {
                i++;
                if (open[depth] == '{')
                        goto key;
                goto value;
        }
close:  /* b[i] must close open[depth], and not the events array */
        if (depth == 0 || b[i] != open[depth] + 2)
                return TPA_CHROME_SCAN_GIVE_UP;
        c->scan_at = ++i;
        if (!(open[depth--] == '{' ? tpa_chrome__on_end_map(c)
                                   : tpa_chrome__on_end_array(c)))
                return TPA_CHROME_SCAN_FAILED;
        goto after;
key:    /* after '{' or ',' in a map */
        i = scan_ws(b, i, n);
        if (i == n || b[i] != '"' || !scan_str(c, b, n, &i, &s, &len))
                return TPA_CHROME_SCAN_GIVE_UP;
        c->scan_at = i;
        if (!tpa_chrome__on_map_key(c, s, len))
                return TPA_CHROME_SCAN_FAILED;
        i = scan_ws(b, i, n);
        if (i == n || b[i] != ':')
                return TPA_CHROME_SCAN_GIVE_UP;
        i++;
        goto value;
}

#ifdef TPA_JSON_BUILD_AVX2
enum tpa_chrome_scan_result tpa_chrome__scan_segment_avx2(tpa_chrome_parser *c,
                                                          const unsigned char *b, size_t n)
{
        return scan_segment(c, b, n);
}
#else
enum tpa_chrome_scan_result tpa_chrome__scan_segment(tpa_chrome_parser *c,
                                                     const unsigned char *b, size_t n)
{
#ifdef TPA_HAVE_AVX2_BUILD
        if (tpa_json__isa() == TPA_JSON_ISA_AVX2)
                return tpa_chrome__scan_segment_avx2(c, b, n);
#endif
        return scan_segment(c, b, n);
}
#endif
