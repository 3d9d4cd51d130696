/* SPDX-License-Identifier: MIT */
/*
 * chrome_scan.h - (library-internal) the segment scanner: reads the plain
 * JSON profilers write, calling the Chrome reader's callbacks as yajl
 * would, and gives up on anything else for yajl to read (chrome_scan.c).
 */
#ifndef TPA_PARSE_CHROME_SCAN_H
#define TPA_PARSE_CHROME_SCAN_H

#include <stddef.h>

#include "parse/chrome_parser.h"

enum tpa_chrome_scan_result {
        TPA_CHROME_SCAN_OK,
        TPA_CHROME_SCAN_GIVE_UP,        /* nothing was called for what it could not read */
        TPA_CHROME_SCAN_FAILED,         /* a callback failed */
};

/* Read b[0..n), the bytes after the events array's '[' or a ',' in it, to
 * a final ',' (the caller saw it), calling c's callbacks with c->scan_at
 * set, relative to c->fed, to the end of each token (c->yh is NULL). */
enum tpa_chrome_scan_result tpa_chrome__scan_segment(tpa_chrome_parser *c,
                                                     const unsigned char *b, size_t n);
/* The same, built for AVX2 (chrome_scan_avx2.c): only on CPUs with it. */
enum tpa_chrome_scan_result tpa_chrome__scan_segment_avx2(tpa_chrome_parser *c,
                                                          const unsigned char *b, size_t n);

#endif
