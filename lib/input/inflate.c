/* SPDX-License-Identifier: MIT */
/*
 * inflate.c - a streaming raw DEFLATE decoder (RFC 1951) with a fast path in
 * the manner of libdeflate: a 64-bit bit buffer refilled by 8-byte loads,
 * one table lookup per symbol (11 index bits for literal/lengths, 8 for
 * distances, subtables for longer codes) whose entry holds the literal or
 * the base and extra bit count, several literals per refill, and matches
 * copied by words. Near the end of the input or of the output room, a slow
 * path decodes one symbol at a time, loading a byte only when the symbol
 * needs it, and stops between symbols when a piece runs out; block headers
 * are decoded the same way, a few bits at a time, so any valid stream
 * decodes whatever the sizes of the pieces.
 *
 * Bad data fails where zlib 1.2.13 fails, with its message: the checks of
 * its inflate.c and inftrees.c in its order, including which incomplete
 * codes it accepts (a code of one 1-bit codeword, or none at all), and at
 * the byte zlib's next_in would be then (the bytes holding the bits used).
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input/inflate.h"

#define WSIZE         32768u    /* the farthest a match reaches back */
#define LITLEN_BITS   11u
#define LITLEN_ENOUGH 2342u     /* zlib's `enough 288 11 15`, as in libdeflate */
#define DIST_BITS     8u
#define DIST_ENOUGH   402u      /* `enough 32 8 15` */
#define PRE_BITS      7u        /* code length codes are at most 7 bits */

/* The fast loop runs while this much input and output room are left: a
 * pass reads at most 2 refills of 8 bytes (15 bytes past `in`) and writes
 * 2 literals and a 258-byte match copied in 16-byte words (15 bytes over). */
#define FAST_IN_MIN  24u
#define FAST_OUT_MIN 300u

/*
 * A table entry (32 bits):
 *   bits 0-7    the bits to consume: codeword and extra bits (for E_SUB,
 *               the main table's index bits)
 *   bits 8-11   the codeword's bits (for E_SUB, the subtable's index bits)
 *   bits 12-15  flags below
 *   bits 16-31  the literal, the length or distance base, the code length
 *               code's symbol, or (E_SUB) where the subtable starts
 * Entries in a subtable count the bits past the main table's.
 */
#define E_LITERAL 0x8000u
#define E_EXCEPT  0x4000u       /* E_SUB, E_EOB, or else an invalid code */
#define E_SUB     0x2000u
#define E_EOB     0x1000u
#define E_TOTAL(e) ((e) & 0xffu)
#define E_CW(e)    (((e) >> 8) & 0xfu)
#define E_VAL(e)   ((e) >> 16)

#define MASK(n) (((uint64_t)1 << (n)) - 1)

enum state {
        ST_HEADER,      /* BFINAL and BTYPE next */
        ST_STORED_LEN,  /* LEN and NLEN of a stored block */
        ST_STORED,      /* stored_left bytes to copy */
        ST_DYN_COUNTS,  /* HLIT, HDIST, HCLEN */
        ST_DYN_CLEN,    /* code length code lengths: have of ncode read */
        ST_DYN_LENS,    /* code lengths: have of nlen + ndist read */
        ST_CODES,       /* compressed data (copy_len bytes of a match pending) */
        ST_DONE,
        ST_BAD,
};

enum kind { K_PRE, K_LITLEN, K_DIST };

struct tpa_inflate {
        uint64_t    bitbuf;     /* the next bitsleft bits, low bit first; 0 above */
        unsigned    bitsleft;
        enum state  state;
        bool        final;      /* this block is the last */
        bool        fixed;      /* the tables hold the fixed codes */
        unsigned    nlen, ndist, ncode, have;
        unsigned    stored_left;
        unsigned    copy_len, copy_dist;
        uint64_t    total_in, total_out;
        const char *msg;
        uint64_t    error_at;
        size_t      wend;       /* win[wend - min(total_out, WSIZE), wend): history */
        uint8_t     clens[19];
        uint8_t     lens[288 + 32];
        uint32_t    pre[1u << PRE_BITS];
        uint32_t    litlen[LITLEN_ENOUGH];
        uint32_t    dist[DIST_ENOUGH];
        uint8_t     win[2 * WSIZE]; /* slides down by WSIZE when full */
};

/* The bit reader of one call: the decoder's bits and the caller's input. */
struct bits {
        uint64_t       bb;
        unsigned       bl;
        const uint8_t *in, *end;
};

/* The caller's output; begin is where this call started writing. */
struct outbuf {
        uint8_t *begin, *out, *end;
};

static const uint16_t len_base[29] = {
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
        35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
};
static const uint8_t len_extra[29] = {
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
        3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
};
static const uint16_t dist_base[30] = {
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
        257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
};
static const uint8_t dist_extra[30] = {
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
        7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
};
/* RFC 1951 3.2.7: the order of the code length code lengths. */
static const uint8_t clen_order[19] = {
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
};

static uint32_t invalid_entry(unsigned cw)
{
        return E_EXCEPT | cw << 8 | cw;
}

/* The entry for `sym` with a codeword of `cw` bits (past the main table's
 * for subtable entries). Symbols without a meaning (literal/length 286 and
 * 287, distances 30 and 31, possible in fixed blocks) are invalid codes. */
static uint32_t make_entry(enum kind k, unsigned sym, unsigned cw)
{
        switch (k) {
        case K_PRE:
                return (uint32_t)sym << 16 | cw << 8 | cw;
        case K_LITLEN:
                if (sym < 256)
                        return (uint32_t)sym << 16 | E_LITERAL | cw << 8 | cw;
                if (sym == 256)
                        return E_EXCEPT | E_EOB | cw << 8 | cw;
                if (sym - 257 < 29)
                        return (uint32_t)len_base[sym - 257] << 16 | cw << 8 |
                               (cw + len_extra[sym - 257]);
                return invalid_entry(cw);
        case K_DIST:
                if (sym < 30)
                        return (uint32_t)dist_base[sym] << 16 | cw << 8 | (cw + dist_extra[sym]);
                return invalid_entry(cw);
        }
        return invalid_entry(cw);
}

static unsigned reverse_bits(unsigned code, unsigned n)
{
        unsigned r = 0;

        while (n-- > 0) {
                r = r << 1 | (code & 1);
                code >>= 1;
        }
        return r;
}

/*
 * Build the decoding table for the code lengths lens[0..n) with `tbits`
 * index bits. Returns -1 for the sets zlib's inflate_table() refuses: an
 * over-subscribed code, or an incomplete one, except that literal/length
 * and distance codes may be a single 1-bit codeword (the other bit pattern
 * is an invalid code of 1 bit) and any code may be empty (every pattern
 * then takes 1 bit: an invalid code, or code length 0 for K_PRE, as zlib's
 * table reads).
 */
static int build_table(uint32_t *t, unsigned tbits, const uint8_t *lens, unsigned n,
                       enum kind k, unsigned enough)
{
        unsigned count[16] = { 0 }, next[16], snext[16];
        unsigned size = 1u << tbits, max, len, sym, code, used, i;
        uint8_t longest[1u << LITLEN_BITS];
        int left;

        for (sym = 0; sym < n; sym++)
                count[lens[sym]]++;
        for (max = 15; max > 0 && count[max] == 0; max--)
                ;
        if (max == 0) {
                uint32_t e = k == K_PRE ? make_entry(K_PRE, 0, 1) : invalid_entry(1);
                for (i = 0; i < size; i++)
                        t[i] = e;
                return 0;
        }
        left = 1;
        for (len = 1; len <= 15; len++) {
                left <<= 1;
                left -= (int)count[len];
                if (left < 0)
                        return -1;      /* over-subscribed */
        }
        if (left > 0 && (k == K_PRE || max != 1))
                return -1;              /* incomplete */
        if (left > 0)
                for (i = 0; i < size; i++)
                        t[i] = invalid_entry(1);

        /* Canonical codes (RFC 1951 3.2.2), given to symbols in order. */
        count[0] = 0;
        code = 0;
        for (len = 1; len <= 15; len++) {
                code = (code + count[len - 1]) << 1;
                next[len] = snext[len] = code;
        }

        /* Codewords longer than tbits share a main entry by their first
         * tbits bits; its subtable is indexed by as many bits as the longest
         * of them has past those (each prefix's codewords fill its
         * subtable, the code being complete). */
        used = size;
        if (max > tbits) {
                assert(size <= sizeof(longest));
                memset(longest, 0, size);
                for (sym = 0; sym < n; sym++) {
                        len = lens[sym];
                        if (len > tbits) {
                                unsigned p = reverse_bits(snext[len]++, len) & (size - 1);
                                if (longest[p] < len)
                                        longest[p] = (uint8_t)len;
                        }
                }
                for (i = 0; i < size; i++) {
                        unsigned sb;
                        if (longest[i] == 0)
                                continue;
                        sb = longest[i] - tbits;
                        if (used + (1u << sb) > enough)
                                return -1;      /* not for a complete code */
                        t[i] = (uint32_t)used << 16 | E_EXCEPT | E_SUB | sb << 8 | tbits;
                        used += 1u << sb;
                }
        }
        for (sym = 0; sym < n; sym++) {
                unsigned r;
                len = lens[sym];
                if (len == 0)
                        continue;
                r = reverse_bits(next[len]++, len);
                if (len <= tbits) {
                        uint32_t e = make_entry(k, sym, len);
                        for (i = r; i < size; i += 1u << len)
                                t[i] = e;
                } else {
                        uint32_t sub = t[r & (size - 1)], e = make_entry(k, sym, len - tbits);
                        unsigned off = E_VAL(sub), sb = E_CW(sub);
                        for (i = r >> tbits; i < (1u << sb); i += 1u << (len - tbits))
                                t[off + i] = e;
                }
        }
        return 0;
}

static void load_fixed(tpa_inflate *d)
{
        unsigned i;

        if (d->fixed)
                return;
        for (i = 0; i < 144; i++)
                d->lens[i] = 8;
        for (; i < 256; i++)
                d->lens[i] = 9;
        for (; i < 280; i++)
                d->lens[i] = 7;
        for (; i < 288; i++)
                d->lens[i] = 8;
        for (i = 0; i < 32; i++)
                d->lens[288 + i] = 5;
        /* complete codes: these cannot fail */
        (void)build_table(d->litlen, LITLEN_BITS, d->lens, 288, K_LITLEN, LITLEN_ENOUGH);
        (void)build_table(d->dist, DIST_BITS, d->lens + 288, 32, K_DIST, DIST_ENOUGH);
        d->fixed = true;
}

tpa_inflate *tpa_inflate__new(void)
{
        tpa_inflate *d = malloc(sizeof(*d));

        if (d != NULL) {
                d->fixed = false;
                tpa_inflate__reset(d);
        }
        return d;
}

void tpa_inflate__reset(tpa_inflate *d)
{
        d->bitbuf = 0;
        d->bitsleft = 0;
        d->state = ST_HEADER;
        d->final = false;
        d->copy_len = 0;
        d->total_in = d->total_out = 0;
        d->msg = NULL;
        d->error_at = 0;
        d->wend = 0;
        /* d->fixed stays: the tables are not touched by a reset */
}

void tpa_inflate__free(tpa_inflate *d)
{
        free(d);
}

const char *tpa_inflate__msg(const tpa_inflate *d) { return d->msg; }
uint64_t tpa_inflate__error_at(const tpa_inflate *d) { return d->error_at; }
uint64_t tpa_inflate__total_out(const tpa_inflate *d) { return d->total_out; }

/* ---- the slow path: a byte at a time, nothing consumed until it fits ---- */

static bool need(struct bits *b, unsigned n)
{
        while (b->bl < n) {
                if (b->in == b->end)
                        return false;
                b->bb |= (uint64_t)*b->in++ << b->bl;
                b->bl += 8;
        }
        return true;
}

static unsigned peek(const struct bits *b, unsigned at, unsigned n)
{
        return (unsigned)((b->bb >> at) & MASK(n));
}

static void drop(struct bits *b, unsigned n)
{
        b->bb >>= n;
        b->bl -= n;
}

/* The entry of the codeword that starts `*at` bits on, with *at moved past
 * it (not past its extra bits); false when the input ends before it does.
 * The bits not loaded yet read as 0, which cannot make a shorter codeword
 * match: codes are prefix-free. */
static bool decode_slow(struct bits *b, const uint32_t *t, unsigned tbits, unsigned *at,
                        uint32_t *entry)
{
        for (;;) {
                uint64_t v = b->bb >> *at;
                unsigned have = b->bl - *at;
                uint32_t e = t[v & MASK(tbits)];

                if (!(e & E_SUB)) {
                        if (E_CW(e) <= have) {
                                *at += E_CW(e);
                                *entry = e;
                                return true;
                        }
                } else if (tbits <= have) {
                        e = t[E_VAL(e) + ((v >> tbits) & MASK(E_CW(e)))];
                        if (tbits + E_CW(e) <= have) {
                                *at += tbits + E_CW(e);
                                *entry = e;
                                return true;
                        }
                }
                if (b->in == b->end)
                        return false;
                b->bb |= (uint64_t)*b->in++ << b->bl;
                b->bl += 8;
        }
}

/* Copy a match of `len` bytes from `dist` back, a byte at a time where it
 * overlaps itself; its start may be in the window of earlier calls. */
static uint8_t *copy_match(const tpa_inflate *d, uint8_t *out, const uint8_t *begin,
                           unsigned dist, unsigned len)
{
        size_t here = (size_t)(out - begin);
        const uint8_t *src;

        if (dist > here) {
                size_t n = dist - here;
                src = d->win + d->wend - n;
                if (n > len)
                        n = len;
                memcpy(out, src, n);
                out += n;
                len -= (unsigned)n;
        }
        src = out - dist;
        while (len-- > 0)
                *out++ = *src++;
        return out;
}

/* ---- the fast path -------------------------------------------------- */

static uint64_t load64(const uint8_t *p)
{
        uint64_t v;

        memcpy(&v, p, sizeof(v));
#ifdef __BYTE_ORDER__
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
#endif
        return v;
}

/* Top the bit buffer up to 56..63 bits with one unaligned load. The bits
 * past bl are those of the next byte, not yet counted, or 0: the next
 * refill ORs the same bits there (libdeflate's refill). */
#define REFILL()                                                        \
        do {                                                            \
                bb |= load64(in) << bl;                                 \
                in += (63 - bl) >> 3;                                   \
                bl |= 56;                                               \
        } while (0)
#define CONSUME(n)                                                      \
        do {                                                            \
                bb >>= (n);                                             \
                bl -= (n);                                              \
        } while (0)

/*
 * Decode symbols while FAST_IN_MIN input bytes and FAST_OUT_MIN bytes of
 * room are left. Returns 0 when that runs out (still in the block), 1 at
 * the end of the block, -1 on bad data (d->msg set). The bit buffer is
 * left clean (0 above bl) for the slow path.
 */
static int decode_fast(tpa_inflate *d, struct bits *b, struct outbuf *o)
{
        const uint32_t *lt = d->litlen, *dt = d->dist;
        uint64_t bb = b->bb, saved;
        unsigned bl = b->bl, len, dist;
        const uint8_t *in = b->in, *in_last = b->end - FAST_IN_MIN;
        uint8_t *out = o->out, *out_last = o->end - FAST_OUT_MIN;
        uint32_t e;
        int rc = 0;

        while (in <= in_last && out <= out_last) {
                REFILL();
                e = lt[bb & MASK(LITLEN_BITS)];
                if (e & E_LITERAL) {
                        /* 3 literals of at most 11 bits fit one refill */
                        CONSUME(E_TOTAL(e));
                        *out++ = (uint8_t)E_VAL(e);
                        e = lt[bb & MASK(LITLEN_BITS)];
                        if (e & E_LITERAL) {
                                CONSUME(E_TOTAL(e));
                                *out++ = (uint8_t)E_VAL(e);
                                e = lt[bb & MASK(LITLEN_BITS)];
                                if (e & E_LITERAL) {
                                        CONSUME(E_TOTAL(e));
                                        *out++ = (uint8_t)E_VAL(e);
                                        continue;
                                }
                        }
                }
                /* a length and a distance take at most 48 bits */
                if (bl < 48)
                        REFILL();
                if (e & E_EXCEPT) {
                        if (e & E_SUB) {
                                CONSUME(LITLEN_BITS);
                                e = lt[E_VAL(e) + (bb & MASK(E_CW(e)))];
                                if (e & E_LITERAL) {
                                        CONSUME(E_TOTAL(e));
                                        *out++ = (uint8_t)E_VAL(e);
                                        continue;
                                }
                        }
                        if (e & E_EOB) {
                                CONSUME(E_TOTAL(e));
                                rc = 1;
                                break;
                        }
                        if (e & E_EXCEPT) {
                                CONSUME(E_TOTAL(e));
                                d->msg = "invalid literal/length code";
                                rc = -1;
                                break;
                        }
                }
                saved = bb;
                CONSUME(E_TOTAL(e));
                len = E_VAL(e) + (unsigned)((saved & MASK(E_TOTAL(e))) >> E_CW(e));

                e = dt[bb & MASK(DIST_BITS)];
                if (e & E_EXCEPT) {
                        if (e & E_SUB) {
                                CONSUME(DIST_BITS);
                                e = dt[E_VAL(e) + (bb & MASK(E_CW(e)))];
                        }
                        if (e & E_EXCEPT) {
                                CONSUME(E_TOTAL(e));
                                d->msg = "invalid distance code";
                                rc = -1;
                                break;
                        }
                }
                saved = bb;
                CONSUME(E_TOTAL(e));
                dist = E_VAL(e) + (unsigned)((saved & MASK(E_TOTAL(e))) >> E_CW(e));

                if (dist > (size_t)(out - o->begin)) {
                        /* from the window, or from before the stream */
                        if (dist > d->total_out + (size_t)(out - o->begin)) {
                                d->msg = "invalid distance too far back";
                                rc = -1;
                                break;
                        }
                        out = copy_match(d, out, o->begin, dist, len);
                } else {
                        const uint8_t *src = out - dist;
                        uint8_t *dst = out;
                        out += len;
                        if (dist >= 16) {
                                do {
                                        memcpy(dst, src, 16);
                                        dst += 16;
                                        src += 16;
                                } while (dst < out);
                        } else if (dist >= 8) {
                                do {
                                        memcpy(dst, src, 8);
                                        dst += 8;
                                        src += 8;
                                } while (dst < out);
                        } else if (dist == 1) {
                                memset(dst, *src, len);
                        } else {
                                do
                                        *dst++ = *src++;
                                while (dst < out);
                        }
                }
        }
        b->bb = bb & MASK(bl);
        b->bl = bl;
        b->in = in;
        o->out = out;
        return rc;
}

/* ---- one call ----------------------------------------------------------- */

/* Keep the last WSIZE bytes of output, those of this call at its end. */
static void keep_window(tpa_inflate *d, const uint8_t *from, size_t n)
{
        if (n >= WSIZE) {
                memcpy(d->win, from + n - WSIZE, WSIZE);
                d->wend = WSIZE;
                return;
        }
        if (d->wend + n > sizeof(d->win)) {
                memmove(d->win, d->win + d->wend - WSIZE, WSIZE);
                d->wend = WSIZE;
        }
        memcpy(d->win + d->wend, from, n);
        d->wend += n;
}

int tpa_inflate__run(tpa_inflate *d, const uint8_t **inp, const uint8_t *in_end,
                     uint8_t **outp, uint8_t *out_end)
{
        struct bits b = { d->bitbuf, d->bitsleft, *inp, in_end };
        struct outbuf o = { *outp, *outp, out_end };
        const uint8_t *in_start = *inp;
        unsigned at, n, rep, val;
        uint32_t e;
        int rc = TPA_INFLATE__MORE;

        if (d->state == ST_BAD)
                return TPA_INFLATE__BAD;
        for (;;) {
                switch (d->state) {
                case ST_HEADER:
                        if (!need(&b, 3))
                                goto starved;
                        d->final = b.bb & 1;
                        n = peek(&b, 1, 2);
                        drop(&b, 3);
                        if (n == 0) {
                                d->state = ST_STORED_LEN;
                        } else if (n == 1) {
                                load_fixed(d);
                                d->state = ST_CODES;
                        } else if (n == 2) {
                                d->state = ST_DYN_COUNTS;
                        } else {
                                d->msg = "invalid block type";
                                goto bad;
                        }
                        break;

                case ST_STORED_LEN:
                        drop(&b, b.bl & 7);     /* to a byte boundary */
                        if (!need(&b, 32))
                                goto starved;
                        n = peek(&b, 0, 16);
                        if (n != (peek(&b, 16, 16) ^ 0xffffu)) {
                                drop(&b, 32);
                                d->msg = "invalid stored block lengths";
                                goto bad;
                        }
                        drop(&b, 32);
                        d->stored_left = n;
                        d->state = ST_STORED;
                        break;

                case ST_STORED:
                        /* whole bytes the bit buffer holds come first */
                        while (d->stored_left > 0 && b.bl >= 8 && o.out < o.end) {
                                *o.out++ = (uint8_t)b.bb;
                                drop(&b, 8);
                                d->stored_left--;
                        }
                        n = d->stored_left;
                        if (n > (size_t)(b.end - b.in))
                                n = (unsigned)(b.end - b.in);
                        if (n > (size_t)(o.end - o.out))
                                n = (unsigned)(o.end - o.out);
                        memcpy(o.out, b.in, n);
                        o.out += n;
                        b.in += n;
                        d->stored_left -= n;
                        if (d->stored_left > 0) {
                                if (o.out == o.end)
                                        goto full;
                                goto starved;
                        }
                        d->state = d->final ? ST_DONE : ST_HEADER;
                        break;

                case ST_DYN_COUNTS:
                        if (!need(&b, 14))
                                goto starved;
                        d->nlen = peek(&b, 0, 5) + 257;
                        d->ndist = peek(&b, 5, 5) + 1;
                        d->ncode = peek(&b, 10, 4) + 4;
                        drop(&b, 14);
                        if (d->nlen > 286 || d->ndist > 30) {
                                d->msg = "too many length or distance symbols";
                                goto bad;
                        }
                        d->have = 0;
                        d->state = ST_DYN_CLEN;
                        break;

                case ST_DYN_CLEN:
                        while (d->have < d->ncode) {
                                if (!need(&b, 3))
                                        goto starved;
                                d->clens[clen_order[d->have++]] = (uint8_t)peek(&b, 0, 3);
                                drop(&b, 3);
                        }
                        while (d->have < 19)
                                d->clens[clen_order[d->have++]] = 0;
                        if (build_table(d->pre, PRE_BITS, d->clens, 19, K_PRE, 1u << PRE_BITS)) {
                                d->msg = "invalid code lengths set";
                                goto bad;
                        }
                        d->fixed = false;
                        d->have = 0;
                        d->state = ST_DYN_LENS;
                        break;

                case ST_DYN_LENS:
                        while (d->have < d->nlen + d->ndist) {
                                at = 0;
                                if (!decode_slow(&b, d->pre, PRE_BITS, &at, &e))
                                        goto starved;
                                val = E_VAL(e);
                                if (val < 16) {
                                        drop(&b, at);
                                        d->lens[d->have++] = (uint8_t)val;
                                        continue;
                                }
                                n = val == 16 ? 2 : val == 17 ? 3 : 7;
                                if (!need(&b, at + n))
                                        goto starved;
                                rep = (val == 18 ? 11 : 3) + peek(&b, at, n);
                                drop(&b, at + n);
                                if (val == 16) {
                                        /* zlib reads the 2 bits, then checks */
                                        if (d->have == 0) {
                                                d->msg = "invalid bit length repeat";
                                                goto bad;
                                        }
                                        val = d->lens[d->have - 1];
                                } else {
                                        val = 0;
                                }
                                if (d->have + rep > d->nlen + d->ndist) {
                                        d->msg = "invalid bit length repeat";
                                        goto bad;
                                }
                                memset(d->lens + d->have, (int)val, rep);
                                d->have += rep;
                        }
                        if (d->lens[256] == 0) {
                                d->msg = "invalid code -- missing end-of-block";
                                goto bad;
                        }
                        if (build_table(d->litlen, LITLEN_BITS, d->lens, d->nlen, K_LITLEN,
                                        LITLEN_ENOUGH)) {
                                d->msg = "invalid literal/lengths set";
                                goto bad;
                        }
                        if (build_table(d->dist, DIST_BITS, d->lens + d->nlen, d->ndist, K_DIST,
                                        DIST_ENOUGH)) {
                                d->msg = "invalid distances set";
                                goto bad;
                        }
                        d->state = ST_CODES;
                        break;

                case ST_CODES:
                        if (d->copy_len > 0) {
                                n = d->copy_len;
                                if (n > (size_t)(o.end - o.out))
                                        n = (unsigned)(o.end - o.out);
                                o.out = copy_match(d, o.out, o.begin, d->copy_dist, n);
                                d->copy_len -= n;
                                if (d->copy_len > 0)
                                        goto full;
                        }
                        if ((size_t)(b.end - b.in) >= FAST_IN_MIN &&
                            (size_t)(o.end - o.out) >= FAST_OUT_MIN) {
                                int r = decode_fast(d, &b, &o);
                                if (r < 0)
                                        goto bad;
                                if (r > 0) {
                                        d->state = d->final ? ST_DONE : ST_HEADER;
                                        break;
                                }
                        }
                        /* one symbol (with its match, if any) at a time */
                        at = 0;
                        if (!decode_slow(&b, d->litlen, LITLEN_BITS, &at, &e))
                                goto starved;
                        if (e & E_LITERAL) {
                                if (o.out == o.end)
                                        goto full;
                                *o.out++ = (uint8_t)E_VAL(e);
                                drop(&b, at);
                                break;
                        }
                        if (e & E_EXCEPT) {
                                drop(&b, at);
                                if (e & E_EOB) {
                                        d->state = d->final ? ST_DONE : ST_HEADER;
                                        break;
                                }
                                d->msg = "invalid literal/length code";
                                goto bad;
                        }
                        n = E_TOTAL(e) - E_CW(e);
                        if (!need(&b, at + n))
                                goto starved;
                        d->copy_len = E_VAL(e) + peek(&b, at, n);
                        at += n;
                        if (!decode_slow(&b, d->dist, DIST_BITS, &at, &e)) {
                                d->copy_len = 0;
                                goto starved;
                        }
                        if (e & E_EXCEPT) {
                                drop(&b, at);
                                d->copy_len = 0;
                                d->msg = "invalid distance code";
                                goto bad;
                        }
                        n = E_TOTAL(e) - E_CW(e);
                        if (!need(&b, at + n)) {
                                d->copy_len = 0;
                                goto starved;
                        }
                        d->copy_dist = E_VAL(e) + peek(&b, at, n);
                        drop(&b, at + n);
                        if (d->copy_dist > d->total_out + (size_t)(o.out - o.begin)) {
                                d->copy_len = 0;
                                d->msg = "invalid distance too far back";
                                goto bad;
                        }
                        break;

                case ST_DONE:
                        /* the rest of the last byte is padding */
                        drop(&b, b.bl & 7);
                        rc = TPA_INFLATE__END;
                        goto full;

                case ST_BAD:
                        assert(0);
                        return TPA_INFLATE__BAD;
                }
        }

full:
        /* Not for want of input: whole bytes loaded in this call and not
         * used go back to the caller, so that at the end *in is just past
         * the stream. (Bytes of earlier calls left whole in the buffer
         * belong to a symbol they were too few for, which comes first.) */
        n = b.bl >> 3;
        if (n > (size_t)(b.in - in_start))
                n = (unsigned)(b.in - in_start);
        assert(rc != TPA_INFLATE__END || n == b.bl >> 3);
        b.in -= n;
        b.bl -= 8 * n;
        b.bb &= MASK(b.bl);
starved:
        d->bitbuf = b.bb;
        d->bitsleft = b.bl;
        d->total_in += (uint64_t)(b.in - in_start);
        keep_window(d, o.begin, (size_t)(o.out - o.begin));
        d->total_out += (uint64_t)(o.out - o.begin);
        *inp = b.in;
        *outp = o.out;
        return rc;
bad:
        d->state = ST_BAD;
        d->error_at = d->total_in + (uint64_t)(b.in - in_start) - (b.bl >> 3);
        d->total_out += (uint64_t)(o.out - o.begin);
        *inp = b.in;
        *outp = o.out;
        return TPA_INFLATE__BAD;
}
