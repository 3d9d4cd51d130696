/* SPDX-License-Identifier: MIT */
/*
 * report_util.h - (library-internal) small formatting helpers shared by the
 * JSON, Markdown and HTML reports.
 */
#ifndef TPA_REPORT_UTIL_H
#define TPA_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <tpa/common.h>

/* Copy `len` bytes of `s` to `dst` (room for 3 * len + 1), replacing each
 * byte that is not part of valid UTF-8 with U+FFFD, and NUL-terminate.
 * Returns the length written. */
size_t tpa_report__utf8(char *dst, const char *s, size_t len);

/* "41.0 ms", "12.3 us", "1.25 s", "512 ns". */
const char *tpa_report__time(char *buf, size_t size, double ns);

/* Write `s` for HTML text or attribute values (& < > " ' escaped, invalid
 * UTF-8 replaced). */
void tpa_report__html_escape(FILE *fp, const char *s);

/* Write `s` for a Markdown table cell (| and ` and < escaped, newlines
 * as spaces), at most `max` bytes, "..." when cut. */
void tpa_report__md_escape(FILE *fp, const char *s, size_t max);

/* yajl_gen output, collected and then written with each empty container
 * that beautify spreads over lines ("[\n\n    ]") closed up as "[]" or
 * "{}". Raw newlines only come from beautify: strings escape theirs. */
typedef struct tpa_json_buf {
        char  *data;
        size_t len, cap;
        bool   oom;
} tpa_json_buf;
void tpa_report__json_print(void *ctx, const char *s, size_t len);   /* ctx: tpa_json_buf */
/* Write buf to fp (compacted) and free it. TPA_ENOMEM if an append failed. */
int  tpa_report__json_flush(FILE *fp, tpa_json_buf *buf, tpa_error *err);

#endif
