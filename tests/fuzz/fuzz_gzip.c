/* SPDX-License-Identifier: MIT */
/*
 * fuzz_gzip.c - libFuzzer target: a gzip stream read by the source
 * (lib/input/source.c) with ISA-L and with the built-in decoder
 * (tpa_read_options.builtin_inflate), which must agree on every byte
 * handed out, the status, the error message (with its offset), where the
 * stream ended and whether it was cut. The first byte picks whether the
 * source runs a thread of its own; the rest is the stream. Without ISA-L
 * in the build both reads take the built-in path and agree trivially.
 * They may differ in one way only (isal_reads_past()).
 * Seeds: testdata/fuzz/gzip/ (gzip files written by Python's gzip, one
 * member and several, and cut or flipped ones).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one read of the stream gave. */
struct got {
        int      rc;
        char     msg[sizeof(((tpa_error *)0)->msg)];
        uint8_t *bytes;
        size_t   len;
        bool     truncated;
};

/* Enough for any stream a fuzzer keeps; a bomb stops here in both. */
#define MAX_OUT (64u << 20)

static void read_stream(struct got *g, const uint8_t *data, size_t size, bool threaded,
                        bool builtin)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_source *src = NULL;
        const uint8_t *p;
        size_t n, cap = 0;

        memset(g, 0, sizeof(*g));
        opts.threaded = threaded;
        opts.builtin_inflate = builtin;
        g->rc = tpa_source__open_memory(&src, data, size, &opts, &err);
        while (g->rc == 0 && g->len < MAX_OUT) {
                g->rc = tpa_source__read(src, &p, &n, &err);
                if (g->rc < 0 || n == 0)
                        break;
                if (g->len + n > cap) {
                        cap = (g->len + n) * 2;
                        if ((g->bytes = realloc(g->bytes, cap)) == NULL)
                                abort();
                }
                memcpy(g->bytes + g->len, p, n);
                g->len += n;
        }
        if (g->rc < 0)
                snprintf(g->msg, sizeof(g->msg), "%s", err.msg);
        g->truncated = src != NULL && tpa_source__truncated(src);
        tpa_source__free(src);
}

/* The compressed byte a message names ("..., compressed byte N)"), or 0. */
static unsigned long long at_byte(const char *msg)
{
        const char *p = strstr(msg, "compressed byte ");

        return p != NULL ? strtoull(p + 16, NULL, 10) : 0;
}

/* The one way the backends may differ (lib/input/source.c): a dynamic
 * block whose Huffman code zlib refuses at the block's header ("invalid
 * literal/lengths set", "invalid distances set", "invalid code lengths
 * set": an incomplete code), where the data never meets the codes it
 * lacks. The built-in read fails there, as zlib does; ISA-L decodes the
 * symbols it meets, and the member's CRC-32 and length vouch for them. So
 * ISA-L's read hands out the built-in's bytes and more, and ends at no
 * error or at one further on. */
static bool isal_reads_past(const struct got *a, const struct got *b)
{
        return b->rc < 0 && strstr(b->msg, " set, compressed byte ") != NULL &&
               a->len >= b->len && (b->len == 0 || memcmp(a->bytes, b->bytes, b->len) == 0) &&
               (a->rc == 0 || at_byte(a->msg) > at_byte(b->msg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct got a, b;
        bool threaded;

        if (size == 0)
                return 0;
        threaded = data[0] & 1;
        read_stream(&a, data + 1, size - 1, threaded, false);
        read_stream(&b, data + 1, size - 1, threaded, true);
        if ((a.rc != b.rc || strcmp(a.msg, b.msg) != 0 || a.len != b.len ||
             (a.len > 0 && memcmp(a.bytes, b.bytes, a.len) != 0) || a.truncated != b.truncated) &&
            !isal_reads_past(&a, &b)) {
                fprintf(stderr, "backends differ: isal rc %d '%s' %zu bytes cut %d; "
                        "built-in rc %d '%s' %zu bytes cut %d\n", a.rc, a.msg, a.len,
                        a.truncated, b.rc, b.msg, b.len, b.truncated);
                abort();
        }
        free(a.bytes);
        free(b.bytes);
        return 0;
}
