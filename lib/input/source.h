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
int  tpa_source__open(tpa_source **out, const char *path, const tpa_read_options *opts,
                      tpa_error *err);
/* A source over memory the caller keeps alive until tpa_source__free(). */
int  tpa_source__open_memory(tpa_source **out, const void *data, size_t size,
                             const tpa_read_options *opts, tpa_error *err);
void tpa_source__free(tpa_source *src);

/* The first bytes of the (inflated) stream, without consuming them: at
 * least min(want, stream size) bytes unless the stream ends first. */
int  tpa_source__peek(tpa_source *src, const uint8_t **data, size_t *len, size_t want,
                      tpa_error *err);
/* The next chunk of inflated bytes; *len == 0 at the end. The chunk stays
 * valid until the next call. */
int  tpa_source__read(tpa_source *src, const uint8_t **data, size_t *len, tpa_error *err);
/* The buffer holding the chunk the last tpa_source__read() returned, for
 * the caller to keep: the chunk's bytes stay where they are, valid after
 * the next read; *cap is the buffer's size (room past the chunk's end may
 * be written); free() it when done. `spare` (NULL, or a malloc'd buffer of
 * spare_cap bytes the caller gives up, best one an earlier call returned)
 * takes its place. NULL when the chunk is no buffer of an inflating
 * thread's ring (no thread, or bytes a peek gathered): copy it then. */
uint8_t *tpa_source__adopt(tpa_source *src, uint8_t *spare, size_t spare_cap, size_t *cap);
/* Everything left, in one malloc'd buffer owned by the caller; fails with
 * TPA_ELIMIT beyond `max` bytes. */
int  tpa_source__read_all(tpa_source *src, uint8_t **data, size_t *len, uint64_t max,
                          tpa_error *err);
/* tpa_source__read_all() into a buffer the source owns, valid until
 * tpa_source__free(): the same bytes, offsets, limit and errors. Its bytes
 * may be written; a file's bytes so written stay in this buffer. The rest
 * of a regular file that is not gzip is mapped, not copied. Call it once. */
int  tpa_source__read_whole(tpa_source *src, uint8_t **data, size_t *len, uint64_t max,
                            tpa_error *err);

/* A rewrite of the stream's bytes where they are produced: on the
 * inflating thread when there is one (so a parser's byte-level pass runs
 * beside inflate, not after it), else on the caller's thread inside
 * tpa_source__read(). `fn` sees every byte not yet handed out, in stream
 * order, each once, in the chunks tpa_source__read() will hand out; it may
 * change bytes in place but never their number (offsets stay those of the
 * stream), and fills that chunk's `note` (note_size bytes), which
 * tpa_source__note() returns with the chunk. This layer knows nothing of
 * what the bytes mean. Set it after any peek and before the first read;
 * tpa_source__set_transform(src, NULL, NULL, 0, NULL) detaches it, waiting
 * for a call in progress, so `state` may be freed after it. */
typedef void (*tpa_source_transform)(void *state, uint8_t *data, size_t len, void *note);
int  tpa_source__set_transform(tpa_source *src, tpa_source_transform fn, void *state,
                               size_t note_size, tpa_error *err);
/* The note of the chunk the last tpa_source__read() returned (NULL without
 * a transform). */
const void *tpa_source__note(const tpa_source *src);

/* Work for the source's own thread when it is ahead: while half the chunks
 * it may fill or more wait for the reader, it calls `fn(state)` before
 * filling another, again as long as that returns true (it did something).
 * Once it has filled the last chunk it calls it too, again while it does
 * something and after each chunk the reader gives back, until the source
 * is freed. NULL detaches it, waiting for a call under way to return.
 * Nothing happens without a thread. */
typedef bool (*tpa_source_idle)(void *state);
void tpa_source__set_idle(tpa_source *src, tpa_source_idle fn, void *state);

/* True when tpa_source__read() would now wait for the inflating thread:
 * a hint for the caller, to do other work first (false when the source
 * has no thread of its own). */
bool tpa_source__would_wait(tpa_source *src);

/* Bytes handed out so far (offset into the inflated stream). */
uint64_t tpa_source__offset(const tpa_source *src);
/* Bytes read from the file so far (compressed). */
uint64_t tpa_source__bytes_in(const tpa_source *src);
bool     tpa_source__is_gzip(const tpa_source *src);
/* True when a thread of its own inflates (or reads) the stream. */
bool     tpa_source__threaded(const tpa_source *src);
/* True when a gzip stream ended early (truncated); set once read returns 0. */
bool     tpa_source__truncated(const tpa_source *src);
/* Where bytes that begin no gzip member follow the last member (compressed
 * offset), once read returns 0; 0: none. The data ends before them. */
uint64_t tpa_source__garbage_at(const tpa_source *src);

#endif
