/* SPDX-License-Identifier: MIT */
/*
 * chrome_json.h - (library-internal) the streaming Chrome trace JSON reader
 * as a push parser: feed it bytes in chunks of any size, then finish. The
 * result (events, errors and their offsets) does not depend on how the
 * bytes were cut, which the unit tests check with 1..64-byte chunks.
 */
#ifndef TPA_PARSE_CHROME_JSON_H
#define TPA_PARSE_CHROME_JSON_H

#include <tpa/read.h>

typedef struct tpa_chrome_parser tpa_chrome_parser;

/* A parser that adds what it reads to `tr` (borrowed; must outlive the
 * parser). `opts` may be NULL for defaults; its values are copied. */
int  tpa_chrome__parser_new(tpa_chrome_parser **out, tpa_trace *tr,
                            const tpa_read_options *opts, tpa_error *err);
/* Parse the next `len` bytes of the (decompressed) stream. After an error
 * every later call fails with the same error. */
int  tpa_chrome__parser_feed(tpa_chrome_parser *p, const void *data, size_t len,
                             tpa_error *err);
/* The stream ended (`truncated`: the byte source itself ended early, e.g. a
 * cut gzip member). Closes open B events, classifies, sets the trace's
 * format and dialect. A missing final ']' or a cut-off tail is a warning
 * and health.truncated, or an error when opts->strict. */
int  tpa_chrome__parser_finish(tpa_chrome_parser *p, bool truncated, tpa_error *err);
void tpa_chrome__parser_free(tpa_chrome_parser *p);      /* NULL is a no-op */

/* Microseconds, as the text of a JSON number ("6793.5895", "1.5e3", "-2"),
 * to nanoseconds, rounding half away from zero. False when the text is not
 * a number or the result does not fit in int64. */
bool tpa_chrome__us_to_ns(const char *text, size_t len, tpa_ns *out);

#endif
