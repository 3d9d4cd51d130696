/* SPDX-License-Identifier: MIT */
/*
 * chrome_filter.h - (library-internal) the byte filter in front of the
 * Chrome JSON reader's yajl: trailing commas and a leading BOM to spaces,
 * in place, one byte for one, plus a note per chunk of what the parser
 * needs of the filter's state (chrome_filter.c), and the token states the
 * reader's error offsets are computed from.
 */
#ifndef TPA_PARSE_CHROME_FILTER_H
#define TPA_PARSE_CHROME_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the last token began, so that a syntax error names the start of
 * the token yajl choked on, whatever the chunk boundaries were. */
struct tok_state {
        uint64_t start;
        bool     in_str, esc, boundary;
        bool     literal;       /* the token at `start` is a bare literal */
};

/* The filter's state: only the filter touches it, on whichever thread the
 * byte source runs it (the parser never reads it once the source has it). */
struct filter {
        uint64_t         off;           /* stream offset of the next byte */
        uint64_t         max_string;
        bool             bom_ok;
        bool             in_str, esc;
        /* A ',' whose next non-space byte is still to come: where it is and
         * the token state before it. */
        bool             comma;
        uint64_t         comma_at;
        struct tok_state comma_tok;
        /* The string being read (or the last one read): where its '"' is,
         * its bytes so far, and how many of them escapes add beyond one
         * decoded byte each. Past max_string decoded bytes for sure, the
         * rest of it is counted, not fed: yajl would buffer it all,
         * re-scanning it at every chunk (bench/: a 200 MB string took 500 s
         * and 200 MB). */
        uint64_t         str_start, str_raw, str_extra;
        bool             str_skip;
        struct tok_state tok;           /* token state before the next byte */
        /* Nesting outside strings, for the cuts (chrome_split.c): the
         * depth, the kinds ('{' or '[') of the root and of its child that
         * is open; no more cuts once a string is skipped (it is an error). */
        uint32_t         depth;
        unsigned char    kind[2];
        bool             no_cuts;
};

/* What the parser learns of a chunk with it: the few facts that the
 * filter's state decides and that cannot be read back from the bytes. The
 * token states are what tpa_chrome__tok_step() would give after every byte
 * before the position named; the parser needs them only to place error
 * offsets. */
struct chunk_note {
        size_t           lead;          /* whitespace after a ',' held from before */
        unsigned char    resolve;       /* ... which becomes ',' or ' '; 0: still held */
        struct tok_state tok;           /* before data[lead] */
        size_t           tail;          /* a ',' held at the end (then only spaces); len: none */
        struct tok_state tail_tok;      /* before data[tail] */
        struct tok_state end_tok;       /* after the chunk (no tail, no skip) */
        size_t           skip;          /* a string too long from here on; len: none */
        size_t           cut;           /* the first '{' opening a record of the events
                                         * array's place (two threads); len: none */
        bool             str_closed;    /* ... and it ends in this chunk */
        uint64_t         str_start, str_raw, str_extra;
};

/* yajl's whitespace, \v and \f too. */
static inline bool tpa_chrome__is_ws(unsigned char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The token state after byte `c` at stream offset `at`. */
static inline void tpa_chrome__tok_step(struct tok_state *t, unsigned char c, uint64_t at)
{
        if (t->in_str) {
                if (t->esc)
                        t->esc = false;
                else if (c == '\\')
                        t->esc = true;
                else if (c == '"')
                        t->in_str = false, t->boundary = true;
        } else if (c == '"') {
                t->start = at;
                t->in_str = true;
                t->literal = false;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
                t->boundary = true;     /* yajl's whitespace, \v and \f too */
        } else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') {
                t->start = at;
                t->boundary = true;
                t->literal = false;
        } else if (t->boundary) {
                t->start = at;
                t->boundary = false;
                t->literal = true;
        }
}

/* The filter as a tpa_source_transform (source.h): `state` is a struct
 * filter, `note` a struct chunk_note. Rewrites the `len` bytes at `d` in
 * place (trailing commas and a BOM to spaces) and fills the note. */
void tpa_chrome__filter_chunk(void *state, uint8_t *d, size_t len, void *note);
/* The same, built for AVX2 (chrome_filter_avx2.c): only on CPUs with it. */
void tpa_chrome__filter_chunk_avx2(void *state, uint8_t *d, size_t len, void *note);

#endif
