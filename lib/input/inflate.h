/* SPDX-License-Identifier: MIT */
/*
 * inflate.h - (library-internal) a streaming raw DEFLATE (RFC 1951) decoder
 * with a fast path, for gzip members: the same bytes as zlib's inflate()
 * and, on bad data, zlib's message at the same compressed byte.
 */
#ifndef TPA_INPUT_INFLATE_H
#define TPA_INPUT_INFLATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tpa_inflate tpa_inflate;

/* What tpa_inflate__run() stopped at. */
enum {
        TPA_INFLATE__MORE = 0,  /* all input used or the output full: call again */
        TPA_INFLATE__END  = 1,  /* the final block ended */
        TPA_INFLATE__BAD  = -1, /* bad data: tpa_inflate__msg() says what */
};

/* A decoder ready for a stream; NULL when out of memory. Free it with
 * tpa_inflate__free(). */
tpa_inflate *tpa_inflate__new(void);
/* Forget the stream so far; ready for a new one. */
void         tpa_inflate__reset(tpa_inflate *d);
void         tpa_inflate__free(tpa_inflate *d);     /* NULL is a no-op */

/* Decode bytes from *in (up to in_end) into *out (up to out_end), moving
 * both on. Input may come in pieces of any size, output room too: the
 * decoder keeps the bits it holds and its own copy of the last 32 KiB of
 * output, so it never reads a previous call's output buffer. It stops when
 * the input is used up (TPA_INFLATE__MORE with *in == in_end), the output
 * is full (*out == out_end), the stream ends (TPA_INFLATE__END: *in is just
 * past the last byte of the stream) or the data is bad (TPA_INFLATE__BAD,
 * again on each later call). */
int tpa_inflate__run(tpa_inflate *d, const uint8_t **in, const uint8_t *in_end,
                     uint8_t **out, uint8_t *out_end);

/* zlib's message for the bad data ("invalid block type", ...); NULL when
 * none. */
const char *tpa_inflate__msg(const tpa_inflate *d);
/* Where the bad data is: the count of stream bytes holding the bits used
 * when it was found (zlib's next_in then). */
uint64_t    tpa_inflate__error_at(const tpa_inflate *d);
/* Bytes output since the stream began. */
uint64_t    tpa_inflate__total_out(const tpa_inflate *d);

#endif
