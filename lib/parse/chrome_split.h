/* SPDX-License-Identifier: MIT */
/*
 * chrome_split.h - (library-internal) the Chrome JSON reader on two
 * threads: the events array's records cut into segments that collecting
 * parsers read beside the reading thread's, added in stream order with
 * the result one thread gives (chrome_split.c).
 */
#ifndef TPA_PARSE_CHROME_SPLIT_H
#define TPA_PARSE_CHROME_SPLIT_H

#include "input/source.h"
#include "parse/chrome_parser.h"

typedef struct tpa_chrome_split tpa_chrome_split;

/* The splitting for p reading src (both borrowed; must outlive it); NULL
 * when it cannot be had (then p reads alone). */
tpa_chrome_split *tpa_chrome__split_new(tpa_chrome_parser *p, tpa_source *src,
                                        const tpa_read_options *opts);
/* One filtered chunk of the source and its note, in place of
 * tpa_chrome__feed_filtered(): cut into segments where it can be. */
int  tpa_chrome__split_chunk(tpa_chrome_split *sp, const unsigned char *d, size_t len,
                             const struct chunk_note *n);
/* While the source would make the reading thread wait for bytes, collect
 * queued segments and add what is done. */
int  tpa_chrome__split_meanwhile(tpa_chrome_split *sp, tpa_source *src);
/* The inflating thread's work while it is ahead (a tpa_source_idle). */
bool tpa_chrome__split_help_inflating(void *state);
/* The input ended: every segment left is added, in order, before
 * tpa_chrome__parser_finish(). */
int  tpa_chrome__split_end(tpa_chrome_split *sp);
/* Frees; NULL is a no-op. The inflating thread's idle work is unset first. */
void tpa_chrome__split_free(tpa_chrome_split *sp);

#endif
