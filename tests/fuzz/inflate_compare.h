/* SPDX-License-Identifier: MIT */
/*
 * inflate_compare.h - decode a raw DEFLATE stream with zlib's inflate() in
 * one piece and with lib/input/inflate.c in pieces of random sizes (input
 * and output room alike), and say how the results differ: how the stream
 * ended (end, truncated, bad data), zlib's message, the bytes of the stream
 * used (at the end) or where the bad data is, and every byte output.
 * Shared by tests/unit/test_inflate.c and fuzz_inflate.c.
 */
#ifndef TPA_FUZZ_INFLATE_COMPARE_H
#define TPA_FUZZ_INFLATE_COMPARE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "input/inflate.h"

enum { IC_END = 1, IC_TRUNCATED = 0, IC_BAD = -1 };

struct ic_result {
        int         status;
        const char *msg;        /* IC_BAD */
        uint64_t    in_used;    /* IC_END: stream bytes; IC_BAD: where */
        uint8_t    *out;
        size_t      out_len, out_cap;
};

static inline void ic_free(struct ic_result *r)
{
        free(r->out);
        memset(r, 0, sizeof(*r));
}

static inline void ic_room(struct ic_result *r, size_t more)
{
        if (r->out_cap - r->out_len >= more)
                return;
        while (r->out_cap - r->out_len < more)
                r->out_cap = r->out_cap ? r->out_cap * 2 : 65536;
        r->out = realloc(r->out, r->out_cap);
        if (r->out == NULL)
                abort();
}

/* zlib, all the input at once, as much output room as it wants. */
static inline void ic_zlib(const uint8_t *c, size_t n, struct ic_result *r)
{
        z_stream z;
        int zr;

        memset(r, 0, sizeof(*r));
        memset(&z, 0, sizeof(z));
        if (inflateInit2(&z, -15) != Z_OK)
                abort();
        z.next_in = (Bytef *)(uintptr_t)c;
        z.avail_in = (uInt)n;
        for (;;) {
                ic_room(r, 65536);
                z.next_out = r->out + r->out_len;
                z.avail_out = (uInt)(r->out_cap - r->out_len);
                zr = inflate(&z, Z_NO_FLUSH);
                r->out_len = r->out_cap - z.avail_out;
                if (zr == Z_STREAM_END) {
                        r->status = IC_END;
                        r->in_used = z.total_in;
                        break;
                }
                if (zr == Z_DATA_ERROR) {
                        r->status = IC_BAD;
                        r->msg = z.msg;         /* zlib's static strings */
                        r->in_used = z.total_in;
                        break;
                }
                if (zr != Z_OK && zr != Z_BUF_ERROR)
                        abort();
                if (z.avail_out != 0) {         /* wanted more input */
                        r->status = IC_TRUNCATED;
                        break;
                }
        }
        inflateEnd(&z);
}

static inline uint64_t ic_rand(uint64_t *s)
{
        /* splitmix64 */
        uint64_t z = (*s += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
}

/* Ours, input in pieces of 1..max_in bytes and output room of 1..max_out
 * bytes, drawn from `seed`. Returns NULL, or a broken contract of
 * tpa_inflate__run() (which then leaves r as it got). */
static inline const char *ic_ours(const uint8_t *c, size_t n, uint64_t seed, size_t max_in,
                                  size_t max_out, struct ic_result *r)
{
        tpa_inflate *d = tpa_inflate__new();
        size_t pos = 0;
        const char *broken = NULL;

        memset(r, 0, sizeof(*r));
        if (d == NULL)
                abort();
        for (;;) {
                size_t in_n = 1 + ic_rand(&seed) % max_in, out_n = 1 + ic_rand(&seed) % max_out;
                const uint8_t *ip, *in_end;
                uint8_t *op, *out_end;
                int rc;

                if (in_n > n - pos)
                        in_n = n - pos;
                ic_room(r, out_n);
                ip = c + pos;
                in_end = ip + in_n;
                op = r->out + r->out_len;
                out_end = op + out_n;
                rc = tpa_inflate__run(d, &ip, in_end, &op, out_end);
                if (ip < c + pos || ip > in_end || op < r->out + r->out_len || op > out_end) {
                        broken = "moved out of its buffers";
                        break;
                }
                pos = (size_t)(ip - c);
                r->out_len = (size_t)(op - r->out);
                if (rc == TPA_INFLATE__END) {
                        r->status = IC_END;
                        r->in_used = pos;
                        break;
                }
                if (rc == TPA_INFLATE__BAD) {
                        r->status = IC_BAD;
                        r->msg = tpa_inflate__msg(d);
                        r->in_used = tpa_inflate__error_at(d);
                        if (tpa_inflate__run(d, &ip, in_end, &op, out_end) != TPA_INFLATE__BAD)
                                broken = "bad data forgotten";
                        break;
                }
                if (rc != TPA_INFLATE__MORE) {
                        broken = "unknown return";
                        break;
                }
                if (ip != in_end && op != out_end) {
                        broken = "stopped with input and room left";
                        break;
                }
                if (pos == n && op != out_end) {
                        r->status = IC_TRUNCATED;
                        break;
                }
        }
        if (broken == NULL && tpa_inflate__total_out(d) != r->out_len)
                broken = "total_out differs";
        tpa_inflate__free(d);
        return broken;
}

/* NULL when they agree, else what differs (in a static buffer). */
static inline const char *ic_differ(const struct ic_result *z, const struct ic_result *o)
{
        static char why[200];
        size_t i;

        if (z->status != o->status) {
                snprintf(why, sizeof(why), "status: zlib %d (%s), ours %d (%s)", z->status,
                         z->msg ? z->msg : "-", o->status, o->msg ? o->msg : "-");
                return why;
        }
        if (z->status == IC_BAD && strcmp(z->msg, o->msg) != 0) {
                snprintf(why, sizeof(why), "message: zlib '%s', ours '%s'", z->msg, o->msg);
                return why;
        }
        if (z->status != IC_TRUNCATED && z->in_used != o->in_used) {
                snprintf(why, sizeof(why), "input used: zlib %llu, ours %llu (%s)",
                         (unsigned long long)z->in_used, (unsigned long long)o->in_used,
                         z->msg ? z->msg : "end");
                return why;
        }
        if (z->out_len != o->out_len) {
                snprintf(why, sizeof(why), "output length: zlib %zu, ours %zu", z->out_len,
                         o->out_len);
                return why;
        }
        for (i = 0; i < z->out_len; i++)
                if (z->out[i] != o->out[i]) {
                        snprintf(why, sizeof(why), "output byte %zu differs", i);
                        return why;
                }
        return NULL;
}

/* Both decoders on `c`; NULL when they agree. */
static inline const char *ic_check(const uint8_t *c, size_t n, uint64_t seed, size_t max_in,
                                   size_t max_out)
{
        struct ic_result z, o;
        const char *why;

        ic_zlib(c, n, &z);
        why = ic_ours(c, n, seed, max_in, max_out, &o);
        if (why == NULL)
                why = ic_differ(&z, &o);
        ic_free(&z);
        ic_free(&o);
        return why;
}

#endif
