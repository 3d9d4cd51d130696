/* SPDX-License-Identifier: MIT */
/*
 * tpa/read.h - readers: bytes from a file or stdin (gzip inflated as a
 * stream), sniffed and parsed by the reader for their format into a
 * tpa_trace (doc/design.md section 3).
 */
#ifndef TPA_READ_H
#define TPA_READ_H

#include "trace.h"

typedef struct tpa_read_options {
        tpa_format format;      /* TPA_FORMAT_AUTO: sniff the first bytes */
        bool       strict;      /* truncated input is an error, not a warning */
        bool       threaded;    /* inflate on a second thread (large gzip input) */
        bool       builtin_inflate; /* gzip by the built-in decoder and zlib, not ISA-L */
        uint64_t   max_events;  /* 0: no limit */
        uint64_t   max_string;  /* longest string kept, bytes; 0: 1 MiB */
        uint32_t   max_depth;   /* deepest JSON nesting; 0: 64 */
        uint64_t   max_message; /* largest protobuf message, bytes; 0: 1 GiB */
        /* Called now and then with bytes read so far, for a progress line.
         * NULL: none. */
        void     (*progress)(void *ctx, uint64_t bytes_in, uint64_t bytes_out);
        void      *progress_ctx;
} tpa_read_options;
#define TPA_READ_OPTIONS_INIT { .format = TPA_FORMAT_AUTO }

/* Read the trace at `path` ("-" is stdin) and add what it holds to `tr`.
 * Several calls on one trace add several inputs (e.g. one RunMetadata per
 * step); a directory adds each RunMetadata, StepStats and tfevents file in
 * it, in name order (TensorBoard logdirs: see tpa/logdir.h). On failure `err` names the offset and `tr` holds what was read
 * before the error; the caller should not report on it. */
int tpa_read_path(tpa_trace *tr, const char *path, const tpa_read_options *opts,
                  tpa_error *err);

/* As tpa_read_path(), from memory. `name` is used in messages only. */
int tpa_read_memory(tpa_trace *tr, const void *data, size_t size, const char *name,
                    const tpa_read_options *opts, tpa_error *err);

/* Guess the format of the first bytes of a (decompressed) stream. */
tpa_format tpa_read_sniff(const void *data, size_t size);

#endif
