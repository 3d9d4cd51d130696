/* SPDX-License-Identifier: MIT */
/*
 * report_util.h - (library-internal) small formatting helpers shared by the
 * JSON, Markdown and HTML reports.
 */
#ifndef TPA_REPORT_UTIL_H
#define TPA_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tpa/common.h>
#include <tpa/analysis.h>
#include <tpa/job.h>
#include <tpa/compare.h>

/* Copy `len` bytes of `s` to `dst` (room for 3 * len + 1), replacing each
 * byte that is not part of valid UTF-8 with U+FFFD, and NUL-terminate.
 * Returns the length written. */
size_t tpa_report__utf8(char *dst, const char *s, size_t len);

/* The run's verdict as every report words it: its class, "none" when the
 * run has none (tpa_analysis.no_verdict), "(no rules)" without rules. */
const char *tpa_report__verdict(const tpa_analysis *a);
/* What qualifies the verdict, in parentheses, into buf ("" when nothing):
 * why there is none; the part of host time that dominates a host-bound
 * run ("(mostly launch)"); the breakdown's own class when the run is
 * mixed. Returns buf. */
const char *tpa_report__verdict_why(const tpa_analysis *a, char *buf, size_t size);
/* The largest part of the run's host time: "launch", "setup", "python" or
 * "CPU ops". */
const char *tpa_report__host_part(const tpa_analysis *a);
/* Device busy time over kept step time (compute, copies, collectives). */
double tpa_report__device_busy(const tpa_analysis *a);

/* `ns` as microseconds, exactly: 1234567 -> "1234.567", as the Chrome
 * writer prints times. `buf` holds at least 32 bytes. Returns the length. */
size_t tpa_chrome__format_us(char *buf, tpa_ns ns);

/* "41.0 ms", "12.3 us", "1.25 s", "512 ns". */
const char *tpa_report__time(char *buf, size_t size, double ns);

/* The change of group g's time in a step of median length, in ns: its
 * share of the new median less its share of the baseline's. Over the
 * groups these add up to the change of the median; a share that falls
 * as the step grows around it may be no change of time at all. */
double tpa_report__group_delta(const tpa_comparison *c, int g);

/* "+2.4 ms", "-512 ns": a change of time with its sign. */
const char *tpa_report__time_change(char *buf, size_t size, double ns);

/* The step's time fraction in the buckets of group g. */
double tpa_report__step_group(const tpa_step *s, tpa_group g);

/* Write `s` for HTML text or attribute values (& < > " ' escaped, invalid
 * UTF-8 replaced). */
void tpa_report__html_escape(FILE *fp, const char *s);

/* Write `s` for a Markdown table cell (| and ` and < escaped, newlines
 * as spaces), at most `max` bytes, "..." when cut. */
void tpa_report__md_escape(FILE *fp, const char *s, size_t max);
/* The same for the `len` bytes at `s`, all of them. */
void tpa_report__md_escape_span(FILE *fp, const char *s, size_t len);

/* Write the `n` bytes at `s` for a terminal, as the text reports write every
 * name, path and message from the input: each control character (C0, a
 * newline, tab or escape in an op name; DEL; C1, U+0080..U+009F) as '?', so
 * a name can neither break a line nor send the terminal an escape
 * sequence. */
void tpa_report__put_plain(FILE *fp, const char *s, size_t n);
/* The same in place for the string `s` (shorter by a byte per C1
 * character). Returns s. */
char *tpa_report__plain(char *s);

/* The columns of a terminal that the n bytes of UTF-8 at `s` take when
 * written as tpa_report__put_plain() writes them: two for each wide
 * character (CJK, emoji), none for a combining mark. */
size_t tpa_report__columns(const char *s, size_t n);
/* The length of the longest prefix of `s` that takes at most `width`
 * columns, ending between characters: where to cut a name for "...". */
size_t tpa_report__cut_columns(const char *s, size_t width);
/* Write `s` as tpa_report__put_plain() does, then spaces up to `width`
 * columns: a table's padded cell, aligned whatever script it is in. */
void tpa_report__put_padded(FILE *fp, const char *s, size_t width);

/* yajl_gen output on its way to a FILE*, with each empty container that
 * beautify spreads over lines ("[\n\n    ]") closed up as "[]" or "{}".
 * Raw newlines only come from beautify: strings escape theirs. Written as it
 * is generated, so a report costs no memory of its size; the few bytes after
 * an opening bracket are held back until the next token shows whether the
 * container is empty. Give tpa_report__json_print and a tpa_json_out from
 * tpa_report__json_open() to yajl_gen_print_callback. */
typedef struct tpa_json_out {
        FILE  *fp;
        char   open;            /* '[' or '{' just written, else 0 */
        size_t held;            /* after `open`: 1 "\n", 2 + k "\n\n" and k spaces */
        size_t len;             /* bytes in buf */
        char   buf[16384];      /* yajl prints a token in several small pieces */
} tpa_json_out;
/* A writer to fp, or NULL when out of memory. */
tpa_json_out *tpa_report__json_open(FILE *fp);
void tpa_report__json_print(void *ctx, const char *s, size_t len);   /* ctx: tpa_json_out */
/* Write what is held and buffered to out->fp and free out (NULL: no-op).
 * Write errors are left in ferror(fp) for the caller, as for every other
 * report. */
void tpa_report__json_close(tpa_json_out *out);

/* What snprintf(buf, 32, "%.6g", v) writes, and its length: done with
 * integer arithmetic for 1e-4 <= |v| < 1e6 (the fractions and rates of the
 * reports), through snprintf where rounding is close to a tie or outside
 * that range. `buf` has room for 32 bytes. */
size_t tpa_report__g6(char *buf, double v);

/* The report's JSON written directly: the bytes yajl_gen prints with
 * beautify and a two-space indent, empty containers closed up as "[]" and
 * "{}" (what tpa_json_out makes of yajl's output), strings escaped as yajl
 * escapes them (\" \\ \b \f \n \r \t, other bytes below 0x20 as \u00XX,
 * the rest as they are). Without yajl's calls and print callbacks per
 * piece of a token it costs a fifth of the instructions. Write errors are
 * left in ferror(fp). */
#define TPA_JSON_MAX_DEPTH 32
#define TPA_JSON_BUF 16384
typedef struct tpa_json_writer {
        FILE    *fp;            /* NULL: into mem */
        char    *mem;           /* a writer into memory: what it wrote */
        size_t   mem_len, mem_cap;
        bool     oom;           /* mem could not grow: bytes were lost */
        unsigned depth;
        uint8_t  state[TPA_JSON_MAX_DEPTH + 1];
        size_t   len;           /* bytes in buf */
        char     buf[TPA_JSON_BUF];
} tpa_json_writer;
/* A writer to fp, or into memory when fp is NULL; NULL when out of memory. */
tpa_json_writer *tpa_report__jw_new(FILE *fp);
/* Items formatted apart and put in later: w (into memory) empties and
 * stands where `at` stands after an item of its innermost container, so
 * that what it writes next is what `at` would write there. */
void tpa_report__jw_resume(tpa_json_writer *w, const tpa_json_writer *at);
/* Put what `items` (into memory, resumed from w) wrote in w, as if w had
 * written it, and empty items. */
void tpa_report__jw_take(tpa_json_writer *w, tpa_json_writer *items);
void tpa_report__jw_open(tpa_json_writer *w, char bracket);     /* '{' or '[' */
void tpa_report__jw_close(tpa_json_writer *w);                  /* the innermost */
/* A string value, or a key when a map expects one (len bytes, as they are:
 * the caller repairs UTF-8). */
void tpa_report__jw_string(tpa_json_writer *w, const char *s, size_t len);
/* The same for text that may not be valid UTF-8: each byte that is not
 * part of a valid sequence is written as U+FFFD, as tpa_report__utf8()
 * repairs it, with no copy of the text. */
void tpa_report__jw_string_utf8(tpa_json_writer *w, const char *s, size_t len);
/* A key that needs no escape (a name the code spells, not one from the
 * input or the rules): written without looking for one. */
void tpa_report__jw_key(tpa_json_writer *w, const char *k, size_t len);
/* A number, true, false or null, written as given. */
void tpa_report__jw_raw(tpa_json_writer *w, const char *s, size_t len);
void tpa_report__jw_int(tpa_json_writer *w, int64_t v);
/* tpa_report__jw_key() and a value, tpa_report__jw_int()'s or
 * tpa_report__jw_raw()'s, as one token: room asked for once, the state
 * set once (speed, bench/: a step's figures are most of the report of a
 * long run, each a key and a number). */
void tpa_report__jw_key_int(tpa_json_writer *w, const char *k, size_t len, int64_t v);
void tpa_report__jw_key_raw(tpa_json_writer *w, const char *k, size_t len, const char *s,
                            size_t slen);
void tpa_report__jw_uint(tpa_json_writer *w, uint64_t v);
/* Write what is buffered and free w (NULL: no-op). */
void tpa_report__jw_free(tpa_json_writer *w);

/* What the reports' input sections say of the events: their span and their
 * number per kind and per thread. */
typedef struct tpa_report_census {
        bool      span;                 /* some events: start and end hold */
        tpa_ns    start, end;
        uint64_t  by_kind[TPA_KIND__COUNT];
        uint64_t *by_track;             /* tpa_trace_thread_count() + 1; NULL: no memory */
} tpa_report_census;

/* Fill *c from the analysis' census when `a` (may be NULL) has one, else by
 * a pass over the events (speed: a pass of the report's own over every
 * event costs more than the rest of the JSON report). Free it with tpa_report__census_free(). */
void tpa_report__census(tpa_report_census *c, const tpa_trace *tr, const tpa_analysis *a);
void tpa_report__census_free(tpa_report_census *c);

/* The "what was read" section of the text report (report_input_summary.c):
 * format and dialect, devices and their streams, host threads, events by
 * kind, time span, parse health; the events counted from the analysis'
 * census when `a` (may be NULL) has one. */
void tpa_report__input_summary(FILE *fp, const tpa_trace *tr, const tpa_analysis *a,
                               const char *path);

/* The `distributed` object of a rank's report (report_json.c); sets
 * *oom when a string could not be repaired for lack of memory. */
void tpa_report__json_rank(tpa_json_writer *g, const tpa_rank *r, bool *oom);

#endif
