/* SPDX-License-Identifier: MIT */
/*
 * pb_trim.h - (library-internal) what the protobuf readers share: the
 * input read whole under the cap on one message, and a binary protobuf cut
 * short made whole: the complete messages before the cut, for the readers
 * to read as usual (doc/design.md 8: a truncated input is analysed up to
 * where it ends).
 */
#ifndef TPA_PARSE_PB_TRIM_H
#define TPA_PARSE_PB_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tpa/read.h>
#include <tpa/trace.h>

#include "input/source.h"

/* The path of repeated sub-messages a cut may fall in: at depth i, field
 * path[i] holds the messages of depth i + 1; the last is read whole or
 * not at all. E.g. XSpace { 1: XPlane { 3: XLine { 4: XEvent } } }. */
typedef struct tpa_pb_path {
        const uint32_t *fields;
        size_t          depth;
} tpa_pb_path;

typedef enum tpa_pb_trim_status {
        TPA_PB_WHOLE,   /* every field ends before the input does */
        TPA_PB_CUT,     /* cut: *len is now the length of what is whole */
        TPA_PB_BAD,     /* not protobuf on the path: the reader says why */
} tpa_pb_trim_status;

/* Look for the field the end of data[0..*len) cuts, down `path`. When it
 * is cut, drop what the cut leaves incomplete: the cut field itself, or,
 * in a message on the path, its incomplete last field, with the lengths of
 * the messages around it rewritten in place (in as many bytes as before,
 * so every offset stays what it was in the input). Linear in the fields
 * on the path, whatever the input's size. */
tpa_pb_trim_status tpa_pb__trim(uint8_t *data, size_t *len, const tpa_pb_path *path);

/* The input ends inside a message, after `len` bytes: with `strict` that
 * is an error (TPA_EFORMAT); else a warning, and the trace's health says
 * it was cut there. For the binary and the text readers alike. */
int tpa_pb__cut(tpa_trace *tr, uint64_t len, bool strict, tpa_error *err);

/* The largest protobuf message a reader takes: opts->max_message, or 1 GiB
 * when that is 0. */
uint64_t tpa_pb__max_message(const tpa_read_options *opts);

/* What is left of `src`, in one buffer that `src` owns until
 * tpa_source__free() (*data, *len), writable; fails with TPA_ELIMIT beyond
 * tpa_pb__max_message(opts) bytes, and then *data is untouched. */
int tpa_pb__read_all(tpa_source *src, const tpa_read_options *opts, uint8_t **data,
                     size_t *len, tpa_error *err);

#endif
