/* SPDX-License-Identifier: MIT */
/*
 * source.h - (library-internal) a byte source: a file, stdin or memory,
 * gzip inflated as a stream when the first bytes say so (multi-member gzip
 * too), handed out in chunks with 64-bit offsets into the inflated stream.
 */
#ifndef TPA_INPUT_SOURCE_H
#define TPA_INPUT_SOURCE_H

#include <tpa/read.h>

typedef struct tpa_source tpa_source;

/* Open `path` ("-": stdin). `name` for messages is the path. */
int  tpa_source_open(tpa_source **out, const char *path, const tpa_read_options *opts,
                     tpa_error *err);
/* A source over memory the caller keeps alive until tpa_source_free(). */
int  tpa_source_open_memory(tpa_source **out, const void *data, size_t size,
                            const tpa_read_options *opts, tpa_error *err);
void tpa_source_free(tpa_source *src);

/* The first bytes of the (inflated) stream, without consuming them: at
 * least min(want, stream size) bytes unless the stream ends first. */
int  tpa_source_peek(tpa_source *src, const uint8_t **data, size_t *len, size_t want,
                     tpa_error *err);
/* The next chunk of inflated bytes; *len == 0 at the end. The chunk stays
 * valid until the next call. */
int  tpa_source_read(tpa_source *src, const uint8_t **data, size_t *len, tpa_error *err);
/* Everything left, in one malloc'd buffer owned by the caller; fails with
 * TPA_ELIMIT beyond `max` bytes. */
int  tpa_source_read_all(tpa_source *src, uint8_t **data, size_t *len, uint64_t max,
                         tpa_error *err);

/* Bytes handed out so far (offset into the inflated stream). */
uint64_t tpa_source_offset(const tpa_source *src);
/* Bytes read from the file so far (compressed). */
uint64_t tpa_source_bytes_in(const tpa_source *src);
bool     tpa_source_is_gzip(const tpa_source *src);
/* True when a gzip stream ended early (truncated); set once read returns 0. */
bool     tpa_source_truncated(const tpa_source *src);

#endif
