/* SPDX-License-Identifier: MIT */
/*
 * chrome_filter.c - the byte filter in front of the Chrome JSON reader.
 * yajl has no option for trailing commas, so the bytes pass this filter
 * first: outside strings, a ',' whose next non-space byte is ']' or '}' is
 * replaced by a space, as is a leading UTF-8 BOM. Every byte maps to one
 * byte, so yajl's offsets are offsets into the real stream. The filter
 * rewrites the bytes in place and runs as the byte source's transform, on
 * the inflating thread when there is one (source.h): what the parser needs
 * of its state, it gets in a note with each chunk (struct chunk_note).
 * It also marks where records start, for the two threads (chrome_split.c).
 * chrome_filter_avx2.c builds this file again for AVX2, and
 * tpa_chrome__filter_chunk() runs that build where the CPU has it.
 */
#include <assert.h>
#include <string.h>

#include "parse/chrome_filter.h"
#include "parse/json_scan.h"

static bool is_punct(unsigned char c)
{
        return c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
}

/* The index of the first `a` or `b` in d[i..len), or len. Speed (bench/):
 * eight bytes at a time where the byte order allows it (strings run long,
 * and the bytes between them hold few of either). */
static inline size_t find2(const unsigned char *d, size_t i, size_t len, unsigned char a,
                           unsigned char b)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        const uint64_t ma = ones * a, mb = ones * b;

        for (; i + 8 <= len; i += 8) {
                uint64_t w, x, y, z;
                memcpy(&w, d + i, 8);
                x = w ^ ma;
                y = w ^ mb;
                /* a zero byte of x or y: the lowest flag is exact (a borrow
                 * only flags bytes above a true zero) */
                z = (((x - ones) & ~x) | ((y - ones) & ~y)) & highs;
                if (z != 0)
                        return i + ((size_t)__builtin_ctzll(z) >> 3);
        }
#endif
        while (i < len && d[i] != a && d[i] != b)
                i++;
        return i;
}

/* The token state before d[pos], as tpa_chrome__tok_step() over every
 * byte before it would leave it, found from the last token backwards
 * rather than byte by byte (speed, bench/: the filter's per-byte work is
 * then two byte values to find). `t`: the state before d[from]; `f`: the
 * filter at `pos`. Only what the error offsets (chrome_json.c) look at is
 * exact: `boundary` matters only with
 * `literal`, and not at all in a string. */
static struct tok_state tok_before(const struct filter *f, const unsigned char *d, size_t from,
                                   size_t pos, uint64_t base, struct tok_state t)
{
        struct tok_state r = { 0 };
        size_t q = pos, k;
        unsigned char c;

        if (f->in_str) {
                t.in_str = true;
                t.esc = f->esc;
                t.start = f->str_start;
                t.literal = false;
                return t;
        }
        while (q > from && tpa_chrome__is_ws(d[q - 1]))
                q--;
        if (q == from) {                /* nothing but spaces since `from` */
                if (pos > from)
                        t.boundary = true;
                return t;
        }
        c = d[q - 1];
        r.boundary = true;
        if (c == '"') {
                r.start = f->str_start; /* the string it closes is the last one opened */
        } else if (is_punct(c)) {
                r.start = base + q - 1;
        } else {
                /* a literal: it starts after the byte that ends the run of
                 * literal bytes, or before `from` when t is inside it */
                for (k = q - 1; k > from && !tpa_chrome__is_ws(d[k - 1]) && !is_punct(d[k - 1]) &&
                                d[k - 1] != '"';
                     k--)
                        ;
                r.start = k == from && t.literal && !t.boundary && !t.in_str ? t.start
                                                                             : base + k;
                r.literal = true;
                r.boundary = q < pos;
        }
        return r;
}

/* The ',' at d[pos] is followed by nothing but spaces up to the chunk's
 * end: it is held, and the next chunk decides it. */
static void hold_comma(struct filter *f, const unsigned char *d, size_t from, size_t pos,
                       uint64_t base, struct tok_state t, struct chunk_note *n)
{
        n->tail = pos;
        n->tail_tok = tok_before(f, d, from, pos, base, t);
        f->comma = true;
        f->comma_at = base + pos;
        f->comma_tok = n->tail_tok;
}

/* A '{', '[', '}' or ']' outside strings, at d[i]: the nesting, and the
 * chunk's cut at the first '{' that opens a map where the events array's
 * records are (in the root array, or in an array that is a value of the
 * root object). Valid JSON is all this must get right: on anything else
 * the parse fails before or at the cut, and a cut where no record starts
 * only makes a segment that its parse refuses (chrome_split.c). */
static inline void nest(struct filter *f, struct chunk_note *n, unsigned char c, size_t i)
{
        if (c == '}' || c == ']') {
                if (f->depth > 0)
                        f->depth--;
                return;
        }
        if (c == '{' && n->cut > i && !f->no_cuts &&
            ((f->depth == 1 && f->kind[0] == '[') ||
             (f->depth == 2 && f->kind[0] == '{' && f->kind[1] == '[')))
                n->cut = i;
        if (f->depth < 2)
                f->kind[f->depth] = c;
        f->depth++;
}

static inline bool is_nest(unsigned char c)
{
        return (c & 0xdf) == '[' || (c & 0xdf) == ']';      /* '{' '}' too */
}

/* The nesting over d[i..j), bytes outside strings. */
static void nest_bytes(struct filter *f, struct chunk_note *n, const unsigned char *d, size_t i,
                       size_t j)
{
        for (; i < j; i++)
                if (is_nest(d[i]))
                        nest(f, n, d[i], i);
}

#if defined(__GNUC__)
/* Bit k: the XOR of bits 0..k (with the quotes' mask: inside a string). */
static inline uint64_t prefix_xor(uint64_t x)
{
#if defined(TPA_JSON_BUILD_AVX2) && defined(__PCLMUL__)
        /* one carry-less multiplication by all ones (simdjson) */
        return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(
                _mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0));
#else
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        return x;
#endif
}

/* The number of bits set in x, with no branch (speed, bench/). */
static inline uint32_t count_bits(uint64_t x)
{
#ifdef __POPCNT__
        return (uint32_t)__builtin_popcountll(x);
#else
        x -= x >> 1 & 0x5555555555555555u;
        x = (x & 0x3333333333333333u) + (x >> 2 & 0x3333333333333333u);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
        return (uint32_t)((x * 0x0101010101010101u) >> 56);
#endif
}

enum { BLOCK_END, BLOCK_ESCAPE, BLOCK_HELD };

/* Speed (bench/): 64 bytes at a time from d[*at], as long as no string can
 * pass max_string in a block and no block has a '\\' (those are left to
 * the byte loop); *at is then where they stopped. Which bytes are inside
 * strings comes from a prefix XOR of the quotes' bit mask (simdjson's idea,
 * here without escapes), the commas outside strings from their mask. The
 * state stays in locals from block to block (a string's length is where
 * the block is less where the string began), in f only when they stop.
 * Commas are decided in order, on the bytes as they came, as the byte loop
 * does. The nesting moves by counts of opening and closing brackets where
 * nest() would do nothing else: where no bracket can take the depth under 2,
 * nor under 3 while the chunk's cut may still be found. Not inlined, so
 * that the loop's constants and state stay in registers. */
static __attribute__((noinline)) int filter_blocks(struct filter *f, unsigned char *d,
                                                   size_t *at, size_t len, uint64_t base,
                                                   size_t from, struct tok_state t,
                                                   struct chunk_note *n)
{
        /* no string is 2^62 bytes long: with no more, no sum overflows */
        const uint64_t max_string = f->max_string < UINT64_C(1) << 62 ? f->max_string
                                                                      : UINT64_C(1) << 62;
        uint64_t in = f->in_str ? ~(uint64_t)0 : 0;     /* all ones: in a string */
        uint64_t str_start = f->str_start, str_extra = f->str_extra;
        /* the stream offset the string may run to */
        uint64_t str_end = str_start + 1 + str_extra + max_string;
        uint32_t depth = f->depth, low = n->cut < len || f->no_cuts ? 2 : 3;
        size_t i = *at;
        int r = BLOCK_END;

        assert(!f->in_str || f->str_raw == base + i - str_start - 1);
        for (; len - i >= 64; i += 64) {
                tpa_json_masks m;
                uint64_t inside, opens, c, next;
                uint32_t up, down;

                if (base + i + 64 > str_end && in != 0)
                        break;
                tpa_json__masks64(d + i, &m);
                if (m.backslash != 0) {
                        r = BLOCK_ESCAPE;
                        break;
                }
                /* the opening quote counts as inside, the closing one not */
                inside = prefix_xor(m.quote) ^ in;
                opens = m.quote & inside;
                /* nesting first: after a held ',' there are only spaces */
                up = count_bits(m.open & ~inside);
                down = count_bits(m.close & ~inside);
                if (depth >= down + low) {
                        depth += up - down;
                } else {
                        uint64_t s = (m.open | m.close) & ~inside;

                        f->depth = depth;
                        for (; s != 0; s &= s - 1) {
                                size_t k = (size_t)__builtin_ctzll(s);
                                nest(f, n, d[i + k], i + k);
                        }
                        depth = f->depth;
                        low = n->cut < len || f->no_cuts ? 2 : 3;
                }
                /* a ',' is no trailing one when the next byte is a '"',
                 * '{' or '[', or is no ']' or '}' and the byte after it is
                 * one of those (before a key or a record, mostly, after
                 * one space or newline or none) */
                next = m.quote | m.open;
                c = m.comma & ~inside & ~(next >> 1) & ~(~m.close >> 1 & next >> 2);
                for (; c != 0; c &= c - 1) {
                        size_t k = (size_t)__builtin_ctzll(c), j;

                        for (j = i + k + 1; j < len && tpa_chrome__is_ws(d[j]); j++)
                                ;
                        if (j == len) {
                                uint64_t before = opens & ((UINT64_C(1) << k) - 1);
                                if (before != 0) {
                                        str_start = base + i + 63 -
                                                    (size_t)__builtin_clzll(before);
                                        str_extra = 0;
                                }
                                f->in_str = false;
                                f->str_start = str_start;
                                f->str_extra = str_extra;
                                f->depth = depth;
                                hold_comma(f, d, from, i + k, base, t, n);
                                *at = i;
                                return BLOCK_HELD;
                        }
                        if (d[j] == ']' || d[j] == '}')
                                d[i + k] = ' ';
                }
                if (opens != 0) {
                        str_start = base + i + 63 - (size_t)__builtin_clzll(opens);
                        str_extra = 0;
                        str_end = str_start + 1 + max_string;
                }
                in = (uint64_t)0 - (inside >> 63);
        }
        f->in_str = in != 0;
        f->str_start = str_start;
        f->str_extra = str_extra;
        if (in != 0)
                f->str_raw = base + i - str_start - 1;
        f->depth = depth;
        *at = i;
        return r;
}
#endif

static void str_skip_from(struct filter *f, struct chunk_note *n, size_t at)
{
        f->str_skip = true;
        f->no_cuts = true;
        n->skip = at;
}

/* String bytes from d[i] on: counted for max_string, up to the closing
 * quote (the index after it is returned) or the chunk's end (len). Once the
 * string is surely too long, n->skip says from where (the byte that made it
 * so); the rest is only counted. */
static size_t scan_string(struct filter *f, const unsigned char *d, size_t i, size_t len,
                          struct chunk_note *n)
{
        for (;;) {
                size_t j;

                if (f->esc) {                   /* the byte after a '\\' */
                        if (i == len)
                                return len;
                        f->esc = false;
                        f->str_extra += d[i] == 'u' ? 5 : 1;   /* \uXXXX: >= 1 byte */
                        if (++f->str_raw > f->str_extra + f->max_string && !f->str_skip)
                                str_skip_from(f, n, i);
                        i++;
                        continue;
                }
                j = find2(d, i, len, '"', '\\');
                if (!f->str_skip && f->str_raw + (j - i) > f->str_extra + f->max_string)
                        str_skip_from(f, n, i + (size_t)(f->str_extra + f->max_string -
                                                         f->str_raw));
                f->str_raw += j - i;
                if (j == len)
                        return len;
                if (d[j] == '"') {
                        f->in_str = false;
                        n->str_closed = f->str_skip;
                        return j + 1;
                }
                f->esc = true;
                if (++f->str_raw > f->str_extra + f->max_string && !f->str_skip)
                        str_skip_from(f, n, j);
                i = j + 1;
        }
}

/* The filter as a tpa_source_transform: rewrites a chunk in place (trailing
 * commas and a BOM to spaces) and notes what the parser needs. A ',' is
 * decided by the next byte that is not a space; when that is in a later
 * chunk, the ',' is left as it is here and held: n->tail, then the next
 * chunk's lead/resolve. */
static void filter_chunk(void *state, uint8_t *d, size_t len, void *note)
{
        static const unsigned char bom[3] = { 0xef, 0xbb, 0xbf };
        struct filter *f = state;
        struct chunk_note *n = note;
        uint64_t base = f->off;
        struct tok_state t = f->tok;
        size_t i = 0, from, bytewise_until = 0;

        n->lead = 0;
        n->resolve = 0;
        n->tail = n->skip = n->cut = len;
        n->str_closed = false;
        f->off += len;
        if (f->str_skip) {
                n->skip = 0;
                scan_string(f, d, 0, len, n);
                goto skipping;
        }
        for (; i < len && base + i < 3 && f->bom_ok; i++) {
                if (d[i] != bom[base + i]) {
                        f->bom_ok = false;
                        break;
                }
                d[i] = ' ';
        }
        if (f->comma) {
                while (i < len && tpa_chrome__is_ws(d[i]))
                        i++;
                n->lead = i;
                if (i == len)
                        return;                 /* still held */
                n->resolve = d[i] == ']' || d[i] == '}' ? ' ' : ',';
                t = f->comma_tok;
                tpa_chrome__tok_step(&t, n->resolve, f->comma_at);
                if (base + i > f->comma_at + 1)
                        t.boundary = true;      /* the spaces after it */
                f->comma = false;
        }
        from = n->lead;
        n->tok = t;
        while (i < len) {
                size_t j, k;

#if defined(__GNUC__)
                if (i >= bytewise_until && len - i >= 64 && !f->esc && f->max_string >= 64) {
                        switch (filter_blocks(f, d, &i, len, base, from, t, n)) {
                        case BLOCK_HELD:
                                return;
                        case BLOCK_ESCAPE:
                                bytewise_until = i + 64;
                                break;
                        default:
                                break;
                        }
                        if (i == len)
                                break;
                }
#endif
                if (f->in_str) {
                        i = scan_string(f, d, i, len, n);
                        if (f->str_skip)
                                goto skipping;
                        continue;
                }
                j = find2(d, i, len, '"', ',');
                nest_bytes(f, n, d, i, j);
                if (j == len)
                        break;
                if (d[j] == '"') {
                        f->in_str = true;
                        f->esc = false;
                        f->str_start = base + j;
                        f->str_raw = f->str_extra = 0;
                        i = j + 1;
                        continue;
                }
                for (k = j + 1; k < len && tpa_chrome__is_ws(d[k]); k++)
                        ;
                if (k == len) {
                        hold_comma(f, d, from, j, base, t, n);
                        return;
                }
                if (d[k] == ']' || d[k] == '}')
                        d[j] = ' ';
                i = k;
        }
        n->end_tok = f->tok = tok_before(f, d, from, len, base, t);
        return;
skipping:
        n->end_tok = t;                 /* not used: nothing is parsed after it */
        n->str_start = f->str_start;
        n->str_raw = f->str_raw;
        n->str_extra = f->str_extra;
}

#ifdef TPA_JSON_BUILD_AVX2
void tpa_chrome__filter_chunk_avx2(void *state, uint8_t *d, size_t len, void *note)
{
        filter_chunk(state, d, len, note);
}
#else
void tpa_chrome__filter_chunk(void *state, uint8_t *d, size_t len, void *note)
{
#ifdef TPA_HAVE_AVX2_BUILD
        if (tpa_json__isa() == TPA_JSON_ISA_AVX2) {
                tpa_chrome__filter_chunk_avx2(state, d, len, note);
                return;
        }
#endif
        filter_chunk(state, d, len, note);
}
#endif
