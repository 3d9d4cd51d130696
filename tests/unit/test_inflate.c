/* SPDX-License-Identifier: MIT */
/*
 * test_inflate.c - lib/input/inflate.c against zlib's inflate(): streams
 * deflated by zlib at every level, strategy and window size, from random,
 * trace-like and run-heavy data of 0 bytes to a few MiB, decoded in pieces
 * of random sizes down to one byte of input and of output room; then
 * corrupt streams (bit flips, truncations, and each header field broken by
 * hand): the same end, message, error position and output as zlib. Then
 * gzip members through source.c, which inflates those with a plain header
 * with inflate.c: every header field, members across read boundaries,
 * truncation and bad data at the offsets zlib would give.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../fuzz/inflate_compare.h"
#include "input/source.h"
#include "tap.h"

static uint64_t rng = 12345;

static uint8_t *deflate_raw(const uint8_t *src, size_t n, int level, int wbits, int strategy,
                            size_t *out_len)
{
        z_stream z;
        size_t cap = deflateBound(NULL, (uLong)n) + 64;
        uint8_t *out = malloc(cap);

        memset(&z, 0, sizeof(z));
        if (out == NULL || deflateInit2(&z, level, Z_DEFLATED, -wbits, 8, strategy) != Z_OK)
                abort();
        /* deflateBound(NULL, ...) is the bound for any settings */
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
                abort();
        *out_len = z.total_out;
        deflateEnd(&z);
        return out;
}

enum data_kind { D_RANDOM, D_TRACE, D_RUNS, D_TEXT, D_KINDS };
static const char *const kind_name[] = { "random", "trace", "runs", "text" };

static uint8_t *make_data(enum data_kind k, size_t n)
{
        uint8_t *p = malloc(n + 1);
        size_t i = 0;

        if (p == NULL)
                abort();
        switch (k) {
        case D_RANDOM:
                for (i = 0; i < n; i++)
                        p[i] = (uint8_t)ic_rand(&rng);
                break;
        case D_TRACE:
                while (i < n) {
                        char line[200];
                        int len = snprintf(line, sizeof(line),
                                           "{\"ph\":\"X\",\"name\":\"op_%u\",\"pid\":%u,\"tid\":%u,"
                                           "\"ts\":%llu,\"dur\":%u,\"args\":{\"step\":%u}},\n",
                                           (unsigned)(ic_rand(&rng) % 400),
                                           (unsigned)(ic_rand(&rng) % 4),
                                           (unsigned)(ic_rand(&rng) % 16),
                                           (unsigned long long)(1666382280874284ull + i),
                                           (unsigned)(ic_rand(&rng) % 100000),
                                           (unsigned)(i / 5000));
                        for (int j = 0; j < len && i < n; j++)
                                p[i++] = (uint8_t)line[j];
                }
                break;
        case D_RUNS:
                /* runs of period 1 to 9, so matches at distances 1..8 overlap */
                while (i < n) {
                        unsigned period = 1 + (unsigned)(ic_rand(&rng) % 9);
                        size_t run = 1 + ic_rand(&rng) % 600, j;
                        uint8_t pat[9];
                        for (j = 0; j < period; j++)
                                pat[j] = (uint8_t)("ab\0\xff{}xyz"[ic_rand(&rng) % 10]);
                        for (j = 0; j < run && i < n; j++)
                                p[i++] = pat[j % period];
                }
                break;
        case D_TEXT:
                while (i < n) {
                        static const char *const words[] = {
                                "the ", "inflate ", "window ", "of ", "32 KiB ", "match ",
                                "distance ", "\n", "Huffman ", "code ", "literal ", ", ",
                        };
                        const char *w = words[ic_rand(&rng) % 12];
                        while (*w && i < n)
                                p[i++] = (uint8_t)*w++;
                }
                break;
        case D_KINDS:
                break;
        }
        return p;
}

/* Every level, strategy and window size on a few sizes of each kind. */
static void test_inflate__zlib_streams(void)
{
        static const size_t sizes[] = { 0, 1, 2, 100, 4000, 70000 };
        static const int strategies[] = { Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE,
                                          Z_FIXED };
        static const char *const sname[] = { "default", "filtered", "huffman", "rle", "fixed" };
        unsigned fails = 0, runs = 0;

        for (int k = 0; k < D_KINDS; k++)
                for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
                        uint8_t *data = make_data((enum data_kind)k, sizes[si]);
                        for (int level = 0; level <= 9; level++)
                                for (int st = 0; st < 5; st++) {
                                        int wbits = 9 + (int)((level + st + si) % 7);
                                        size_t clen;
                                        uint8_t *c = deflate_raw(data, sizes[si], level, wbits,
                                                                 strategies[st], &clen);
                                        /* small pieces only on the smaller streams */
                                        size_t max_in = sizes[si] > 4000 ? 70000 : 1 + (size_t)level,
                                               max_out = sizes[si] > 4000 ? 300000 : 1 + (size_t)st * 3;
                                        const char *why = ic_check(c, clen, ic_rand(&rng), max_in,
                                                                   max_out);
                                        runs++;
                                        if (why != NULL && fails++ < 5)
                                                tap_ok(false, "test_inflate__zlib_streams: %s %zu "
                                                       "level %d %s wbits %d: %s",
                                                       kind_name[k], sizes[si], level, sname[st],
                                                       wbits, why);
                                        free(c);
                                }
                        free(data);
                }
        tap_ok(fails == 0, "test_inflate__zlib_streams: %u streams as zlib (%u differ)", runs,
               fails);
}

/* Big streams in pieces from one byte up; one byte of input and of room on
 * 256 KiB; the same stream with garbage after it stops at its end. */
static void test_inflate__pieces(void)
{
        size_t n = 3u << 20, clen;
        uint8_t *data = make_data(D_TRACE, n), *c, *c2;
        static const size_t pieces[][2] = { { 1, 1 }, { 7, 3 }, { 64, 64 }, { 1000, 300 },
                                            { 65536, 1 }, { 1, 65536 }, { 300000, 1u << 20 } };
        unsigned fails = 0;

        c = deflate_raw(data, n, 6, 15, Z_DEFAULT_STRATEGY, &clen);
        for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
                /* pieces of 1 byte are slow: only the start of the stream */
                size_t len = pieces[i][0] < 64 || pieces[i][1] < 64 ? clen / 12 : clen;
                const char *why = ic_check(c, len, ic_rand(&rng), pieces[i][0], pieces[i][1]);
                if (why != NULL && fails++ < 5)
                        tap_ok(false, "test_inflate__pieces: %zu/%zu: %s", pieces[i][0],
                               pieces[i][1], why);
        }
        c2 = malloc(clen + 16);
        memcpy(c2, c, clen);
        memset(c2 + clen, 0xa5, 16);
        {
                const char *why = ic_check(c2, clen + 16, 7, 5000, 5000);
                tap_ok(why == NULL, "test_inflate__pieces: stops at the end of the stream%s%s",
                       why ? ": " : "", why ? why : "");
        }
        tap_ok(fails == 0, "test_inflate__pieces: 3 MiB in pieces of 1 byte to 1 MiB");
        free(c2);
        free(c);
        free(data);
}

/* Random bit flips and truncations: the same outcome as zlib. */
static void test_inflate__corrupt(void)
{
        static const int strategies[] = { Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY, Z_FIXED, Z_RLE };
        unsigned fails = 0, runs = 0, bad = 0;

        for (int k = 0; k < D_KINDS; k++)
                for (int st = 0; st < 4; st++) {
                        size_t n = 20000, clen;
                        uint8_t *data = make_data((enum data_kind)k, n);
                        uint8_t *c = deflate_raw(data, n, 1 + 4 * (st & 1) + k, 15, strategies[st],
                                                 &clen);
                        uint8_t *m = malloc(clen);
                        for (int t = 0; t < 300; t++) {
                                struct ic_result z;
                                const char *why;
                                unsigned flips = 1 + (unsigned)(ic_rand(&rng) % 3);
                                memcpy(m, c, clen);
                                for (unsigned f = 0; f < flips; f++) {
                                        /* mostly in the first block's header */
                                        size_t at = t % 2 ? ic_rand(&rng) % (clen < 300 ? clen : 300)
                                                          : ic_rand(&rng) % clen;
                                        m[at] ^= (uint8_t)(1u << (ic_rand(&rng) % 8));
                                }
                                ic_zlib(m, clen, &z);
                                bad += z.status == IC_BAD;
                                ic_free(&z);
                                why = ic_check(m, clen, ic_rand(&rng), 1 + (size_t)(t % 40),
                                               1 + (size_t)(t % 50) * 30);
                                runs++;
                                if (why != NULL && fails++ < 5)
                                        tap_ok(false, "test_inflate__corrupt: %s %d flip %d: %s",
                                               kind_name[k], st, t, why);
                        }
                        for (size_t cut = 0; cut < clen; cut += 1 + cut / 8) {
                                const char *why = ic_check(c, cut, ic_rand(&rng), 1 + cut % 13,
                                                           1 + cut % 700);
                                runs++;
                                if (why != NULL && fails++ < 5)
                                        tap_ok(false, "test_inflate__corrupt: %s %d cut at %zu: %s",
                                               kind_name[k], st, cut, why);
                        }
                        free(m);
                        free(c);
                        free(data);
                }
        tap_ok(fails == 0 && bad > 100,
               "test_inflate__corrupt: %u corrupt or cut streams as zlib (%u bad data)", runs, bad);
}

/* ---- streams written by hand, one per check zlib makes ---- */

struct bw {
        uint8_t  buf[4096];
        size_t   len;
        unsigned bits;
};

static void put(struct bw *w, unsigned v, unsigned n)
{
        for (unsigned i = 0; i < n; i++) {
                if (w->bits == 0)
                        w->buf[w->len++] = 0;
                w->buf[w->len - 1] |= (uint8_t)(((v >> i) & 1) << w->bits);
                w->bits = (w->bits + 1) & 7;
        }
}

/* A Huffman codeword: most significant bit first. */
static void put_code(struct bw *w, unsigned code, unsigned len)
{
        while (len-- > 0)
                put(w, (code >> len) & 1, 1);
}

/* A dynamic block header: HLIT, HDIST, HCLEN, the code length code lengths
 * (clen, in clen_order, ncode of them), then `syms` (already coded) as
 * given by the caller. */
static void dyn_header(struct bw *w, unsigned final, unsigned nlen, unsigned ndist,
                       unsigned ncode, const unsigned *clen)
{
        put(w, final, 1);
        put(w, 2, 2);
        put(w, nlen - 257, 5);
        put(w, ndist - 1, 5);
        put(w, ncode - 4, 4);
        for (unsigned i = 0; i < ncode; i++)
                put(w, clen[i], 3);
}

static void check_case(const char *name, const struct bw *w, const char *want)
{
        struct ic_result z;
        const char *why;

        ic_zlib(w->buf, w->len, &z);
        if (want != NULL)
                tap_streq(z.status == IC_BAD ? z.msg : "(no error)", want,
                          "test_inflate__headers: %s: zlib says so", name);
        else
                tap_ok(z.status == IC_END, "test_inflate__headers: %s: zlib accepts it", name);
        ic_free(&z);
        for (size_t piece = 1; piece <= 17; piece += 8) {
                why = ic_check(w->buf, w->len, piece, piece, piece);
                tap_ok(why == NULL, "test_inflate__headers: %s (pieces of %zu)%s%s", name, piece,
                       why ? ": " : "", why ? why : "");
        }
}

/* Code length code: symbols 0..18 in clen_order are 16 17 18 0 8 7 9 6 10
 * 5 11 4 12 3 13 2 14 1 15. With lengths 2 for 16, 17, 18 and 0 (the first
 * four) the codes are 0=00 16=01 17=10 18=11. */
static const unsigned clen4[4] = { 2, 2, 2, 2 };

static void test_inflate__headers(void)
{
        struct bw w;

        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 3, 2);
        check_case("block type 3", &w, "invalid block type");

        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 0, 2);
        put(&w, 0, 5);
        put(&w, 5, 16);
        put(&w, 0xfffb, 16);
        check_case("stored lengths", &w, "invalid stored block lengths");

        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 0, 2);
        put(&w, 0, 5);
        put(&w, 3, 16);
        put(&w, 0xfffc, 16);
        put(&w, 0x616263, 24);
        check_case("stored block", &w, NULL);

        memset(&w, 0, sizeof(w));
        dyn_header(&w, 1, 287, 1, 4, clen4);
        check_case("287 lengths", &w, "too many length or distance symbols");

        memset(&w, 0, sizeof(w));
        dyn_header(&w, 1, 257, 31, 4, clen4);
        check_case("31 distances", &w, "too many length or distance symbols");

        {       /* over-subscribed: five codes of 2 bits */
                static const unsigned c[5] = { 2, 2, 2, 2, 2 };
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 257, 1, 5, c);
                check_case("code lengths over-subscribed", &w, "invalid code lengths set");
        }
        {       /* incomplete: three codes of 2 bits */
                static const unsigned c[4] = { 2, 2, 2, 0 };
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 257, 1, 4, c);
                check_case("code lengths incomplete", &w, "invalid code lengths set");
        }
        {       /* one code of 1 bit: allowed for literal/lengths and
                 * distances, not here */
                static const unsigned c[4] = { 0, 0, 0, 1 };
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 257, 1, 4, c);
                check_case("code lengths single code", &w, "invalid code lengths set");
        }
        {       /* no code length codes at all: zlib reads every length as 0
                 * from one bit each, then misses the end-of-block code */
                static const unsigned c[4] = { 0, 0, 0, 0 };
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 257, 1, 4, c);
                for (int i = 0; i < 258; i++)
                        put(&w, (unsigned)i & 1, 1);
                check_case("empty code length code", &w, "invalid code -- missing end-of-block");
        }
        memset(&w, 0, sizeof(w));
        dyn_header(&w, 1, 257, 1, 4, clen4);
        put_code(&w, 1, 2);     /* 16 first: nothing to repeat */
        put(&w, 0, 2);
        check_case("repeat first", &w, "invalid bit length repeat");

        memset(&w, 0, sizeof(w));
        dyn_header(&w, 1, 257, 1, 4, clen4);
        put_code(&w, 3, 2);     /* 18: 138 zeros, twice: 276 > 258 */
        put(&w, 127, 7);
        put_code(&w, 3, 2);
        put(&w, 127, 7);
        check_case("repeat past the end", &w, "invalid bit length repeat");

        memset(&w, 0, sizeof(w));
        dyn_header(&w, 1, 257, 1, 4, clen4);
        put_code(&w, 3, 2);     /* 258 zeros: no end-of-block code */
        put(&w, 127, 7);
        put_code(&w, 3, 2);
        put(&w, 109, 7);
        check_case("no end-of-block", &w, "invalid code -- missing end-of-block");

        {       /* clens 16 17 18 0 8 7 9 6: 0, 7, 8, 9 of 2 bits: 0=00 7=01
                 * 8=10 9=11 */
                static const unsigned c[7] = { 0, 0, 0, 2, 2, 2, 2 };
                /* literal/length: 'a' and 256 of 8 bits: incomplete */
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 257, 1, 7, c);
                for (int i = 0; i < 257; i++)
                        put_code(&w, i == 'a' || i == 256 ? 2 : 0, 2);
                put_code(&w, 0, 2);     /* no distance codes: allowed */
                check_case("literal/length incomplete", &w, "invalid literal/lengths set");

                /* 128 literal/lengths of 7 bits (complete), two distances
                 * of 7 bits (incomplete) */
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 257, 2, 7, c);
                for (int i = 0; i < 257; i++)
                        put_code(&w, i < 127 || i == 256 ? 1 : 0, 2);
                put_code(&w, 1, 2);
                put_code(&w, 1, 2);
                check_case("distances incomplete", &w, "invalid distances set");
        }
        for (int bad = 0; bad < 2; bad++) {
                /* code length codes 0=00 1=01 2=10 18=11 (clens 16 17 18 0
                 * 8 7 9 6 10 5 11 4 12 3 13 2 14 1); literal/lengths 'a'=0
                 * (1 bit), 256=10, 257=11; one distance code of 1 bit, 0
                 * (incomplete, which zlib allows): "a", a match of 3 at
                 * distance 1, then the end of the block, or (bad) the
                 * missing distance code 1 */
                static const unsigned c[18] = { 0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0,
                                                2 };
                memset(&w, 0, sizeof(w));
                dyn_header(&w, 1, 258, 1, 18, c);
                put_code(&w, 3, 2);     /* 18: 97 zeros */
                put(&w, 97 - 11, 7);
                put_code(&w, 1, 2);     /* 'a': 1 */
                put_code(&w, 3, 2);     /* 18: 138 zeros (98..235) */
                put(&w, 127, 7);
                put_code(&w, 3, 2);     /* 18: 20 zeros (236..255) */
                put(&w, 9, 7);
                put_code(&w, 2, 2);     /* 256: 2 */
                put_code(&w, 2, 2);     /* 257: 2 */
                put_code(&w, 1, 2);     /* distance 0: 1 */
                put_code(&w, 0, 1);     /* 'a' */
                put_code(&w, 3, 2);     /* 257 */
                put_code(&w, (unsigned)bad, 1);
                put_code(&w, 2, 2);     /* end of block */
                check_case(bad ? "missing distance code" : "single codes", &w,
                           bad ? "invalid distance code" : NULL);
        }
        /* fixed blocks: length 286, distance 30, a distance too far */
        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 1, 2);
        put_code(&w, 0x30 + 'x', 8);
        put_code(&w, 0xc6, 8);          /* 286: 11000110 */
        check_case("fixed length 286", &w, "invalid literal/length code");

        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 1, 2);
        put_code(&w, 0x30 + 'x', 8);
        put_code(&w, 1, 7);             /* 257: length 3 */
        put_code(&w, 30, 5);
        check_case("fixed distance 30", &w, "invalid distance code");

        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 1, 2);
        put_code(&w, 0x30 + 'x', 8);
        put_code(&w, 1, 7);             /* length 3, distance 2 */
        put_code(&w, 1, 5);
        check_case("too far back", &w, "invalid distance too far back");

        memset(&w, 0, sizeof(w));
        put(&w, 1, 1);
        put(&w, 1, 2);
        put_code(&w, 0x30 + 'x', 8);
        put_code(&w, 1, 7);             /* length 3, distance 1 */
        put_code(&w, 0, 5);
        put_code(&w, 0, 7);             /* end of block */
        check_case("fixed run", &w, NULL);
}

/* ---- gzip members through source.c ---- */

/* The backend of the sources opened: false for ISA-L when built in. */
static bool builtin;

enum { F_EXTRA = 4, F_NAME = 8, F_COMMENT = 16, F_HCRC = 2 };

/* A gzip member of `text` with the header fields of `flags` (FEXTRA of
 * `xlen` bytes) at dst, which has room; its size. *body: where its deflate
 * data starts. */
static size_t gz_member(uint8_t *dst, const uint8_t *text, size_t n, unsigned flags, size_t xlen,
                        size_t *body)
{
        size_t at = 10, clen, i;
        uint8_t *c;
        uLong crc;

        memcpy(dst, "\037\213\010\000\001\002\003\004\000\003", 10);
        dst[3] = (uint8_t)flags;
        if (flags & F_EXTRA) {
                dst[at++] = (uint8_t)xlen;
                dst[at++] = (uint8_t)(xlen >> 8);
                for (i = 0; i < xlen; i++)
                        dst[at++] = (uint8_t)(i % 3 ? 'x' : 0);
        }
        if (flags & F_NAME) {
                memcpy(dst + at, "trace.json", 11);
                at += 11;
        }
        if (flags & F_COMMENT) {
                memcpy(dst + at, "", 1);
                at += 1;
        }
        if (flags & F_HCRC) {
                crc = crc32(0, dst, (uInt)at);
                dst[at++] = (uint8_t)crc;
                dst[at++] = (uint8_t)(crc >> 8);
        }
        *body = at;
        c = deflate_raw(text, n, 6, 15, Z_DEFAULT_STRATEGY, &clen);
        memcpy(dst + at, c, clen);
        at += clen;
        free(c);
        crc = crc32(0, text, (uInt)n);
        for (i = 0; i < 4; i++)
                dst[at++] = (uint8_t)(crc >> 8 * i);
        for (i = 0; i < 4; i++)
                dst[at++] = (uint8_t)(n >> 8 * i);
        return at;
}

struct drained {
        int      rc;
        uint8_t *data;
        size_t   len;
        bool     truncated;
        char     msg[200];
};

static struct drained drain(const uint8_t *gz, size_t n, int how)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        struct drained r = { 0 };
        tpa_source *src = NULL;
        char path[] = "/tmp/test_inflate_XXXXXX";
        int fd = -1;

        opts.threaded = how == 1;
        opts.builtin_inflate = builtin;
        if (how == 2) {         /* a file: read 256 KiB at a time */
                fd = mkstemp(path);
                if (fd < 0 || write(fd, gz, n) != (ssize_t)n)
                        abort();
                close(fd);
                r.rc = tpa_source__open(&src, path, &opts, &err);
                unlink(path);
        } else {
                r.rc = tpa_source__open_memory(&src, gz, n, &opts, &err);
        }
        if (r.rc == 0)
                r.rc = tpa_source__read_all(src, &r.data, &r.len, UINT64_MAX, &err);
        if (r.rc == 0)
                r.truncated = tpa_source__truncated(src);
        snprintf(r.msg, sizeof(r.msg), "%s", r.rc < 0 ? err.msg : "");
        tpa_source__free(src);
        return r;
}

static void test_inflate__gzip_source(void)
{
        static const unsigned flag_sets[] = { 0, F_EXTRA, F_NAME, F_COMMENT,
                                              F_EXTRA | F_NAME | F_COMMENT, F_HCRC | F_NAME };
        size_t n1 = 200000, n2 = 30000, len, body, body2, fails = 0;
        uint8_t *t1 = make_data(D_TRACE, n1), *t2 = make_data(D_TEXT, n2);
        uint8_t *gz = malloc(2 * (n1 + n2) + 70000), *want = malloc(n1 + n2);
        struct drained r;

        memcpy(want, t1, n1);
        memcpy(want + n1, t2, n2);
        /* two members, each header kind, memory, threaded and file */
        for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++)
                for (int how = 0; how < 3; how++) {
                        len = gz_member(gz, t1, n1, flag_sets[f], 7, &body);
                        len += gz_member(gz + len, t2, n2, flag_sets[f], 300, &body2);
                        r = drain(gz, len, how);
                        tap_ok(r.rc == 0 && !r.truncated && r.len == n1 + n2 &&
                               memcmp(r.data, want, n1 + n2) == 0,
                               "test_inflate__gzip_source: flags %u, %s: both members%s%s",
                               flag_sets[f], how == 0 ? "memory" : how == 1 ? "threaded" : "file",
                               r.rc ? ": " : "", r.msg);
                        free(r.data);
                }
        /* the first member's end (trailer, second header) across the
         * file's 256 KiB reads: FEXTRA sizes (up to 64 KiB) move it */
        {
                size_t nr = 240000;
                uint8_t *tr = make_data(D_RANDOM, nr), *w2 = malloc(nr + n2);
                memcpy(w2, tr, nr);
                memcpy(w2 + nr, t2, n2);
                len = gz_member(gz, tr, nr, F_EXTRA, 0, &body);
                for (size_t shift = 0; shift < 40; shift++) {
                        size_t xlen = (262144 - 20 + shift) - (len - 12), l1;
                        l1 = gz_member(gz, tr, nr, F_EXTRA, xlen, &body);
                        l1 += gz_member(gz + l1, t2, n2, F_EXTRA | F_NAME, 5, &body2);
                        r = drain(gz, l1, 2);
                        if (!(r.rc == 0 && !r.truncated && r.len == nr + n2 &&
                              memcmp(r.data, w2, nr + n2) == 0) && fails++ < 3)
                                tap_ok(false, "test_inflate__gzip_source: member end at "
                                       "262136 + %zu: %s", shift, r.msg);
                        free(r.data);
                }
                free(tr);
                free(w2);
        }
        tap_ok(fails == 0, "test_inflate__gzip_source: member ends across reads");

        /* cut anywhere: the bytes zlib would give, flagged truncated */
        len = gz_member(gz, t2, 3000, F_NAME, 0, &body);
        fails = 0;
        for (size_t cut = 2; cut <= len; cut++) {
                struct ic_result z;
                size_t want_len = 0;
                if (cut > body) {
                        ic_zlib(gz + body, cut - body, &z);
                        want_len = z.out_len;
                        ic_free(&z);
                }
                r = drain(gz, cut, (int)(cut % 2));
                if (!(r.rc == 0 && r.truncated == (cut < len) && r.len == want_len &&
                      memcmp(r.data, t2, want_len) == 0) && fails++ < 3)
                        tap_ok(false, "test_inflate__gzip_source: cut at %zu: rc %d %s", cut,
                               r.rc, r.msg);
                free(r.data);
        }
        tap_ok(fails == 0, "test_inflate__gzip_source: cut at every byte");

        /* bad data: zlib's message, at the file offset of zlib's next_in */
        fails = 0;
        for (int t = 0; t < 200; t++) {
                struct ic_result z;
                char msg[200];
                size_t at;
                len = gz_member(gz, t2, 3000, F_NAME | F_COMMENT, 0, &body);
                at = body + ic_rand(&rng) % 40;
                gz[at] ^= (uint8_t)(1u << (ic_rand(&rng) % 8));
                ic_zlib(gz + body, len - body, &z);
                r = drain(gz, len, t % 2);
                if (z.status == IC_BAD) {
                        snprintf(msg, sizeof(msg), "gzip data is corrupt (%s, compressed byte %llu)",
                                 z.msg, (unsigned long long)(body + z.in_used));
                        if ((r.rc != TPA_EFORMAT || strcmp(r.msg, msg) != 0) && fails++ < 3)
                                tap_ok(false, "test_inflate__gzip_source: flip at %zu: '%s', "
                                       "want '%s'", at, r.msg, msg);
                }
                ic_free(&z);
                free(r.data);
        }
        tap_ok(fails == 0, "test_inflate__gzip_source: bad data as zlib says");
        free(gz);
        free(want);
        free(t1);
        free(t2);
}

int main(void)
{
        test_inflate__headers();
        test_inflate__zlib_streams();
        test_inflate__pieces();
        test_inflate__corrupt();
#ifdef TPA_HAVE_ISAL
        printf("# gzip with ISA-L\n");
        test_inflate__gzip_source();
        builtin = true;
#endif
        printf("# gzip with the built-in decoder and zlib\n");
        test_inflate__gzip_source();
        return tap_done();
}
