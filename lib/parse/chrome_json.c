/* SPDX-License-Identifier: MIT */
/*
 * chrome_json.c - the Chrome trace JSON reader: yajl callbacks, never a
 * DOM, fed by a push parser that takes chunks of any size (doc/design.md
 * section 3). This file drives yajl over the filtered bytes
 * (chrome_filter.c), places its syntax errors at the token they are in,
 * finishes the input, and reads a byte source, on two threads when it has
 * one of its own (chrome_split.c). What the values become is
 * chrome_record.c's; the state they share is in chrome_parser.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "model/trace_build.h"
#include "parse/chrome_parser.h"
#include "parse/chrome_split.h"
#include "parse/classify.h"

/* ---- the parser and yajl ------------------------------------------------ */

int tpa_chrome__parser_new(tpa_chrome_parser **out, tpa_trace *tr,
                           const tpa_read_options *opts, tpa_error *err)
{
        tpa_chrome_parser *p = calloc(1, sizeof(*p));

        if (p == NULL)
                return tpa_error_oom(err);
        p->tr = tr;
        p->health = tpa_trace__health(tr);
        p->rec = &p->own_rec;
        p->max_string = opts != NULL && opts->max_string != 0 ? opts->max_string : 1u << 20;
        p->max_depth = opts != NULL && opts->max_depth != 0 ? opts->max_depth : 64;
        p->strict = opts != NULL && opts->strict;
        p->filter.max_string = p->max_string;
        p->filter.bom_ok = true;
        p->filter.tok.boundary = true;  /* the stream starts between tokens */
        p->tok_snap = p->filter.tok;
        p->first_event = tpa_trace_event_count(tr);
        p->yh = yajl_alloc(&tpa_chrome__callbacks, NULL, p);
        if (p->yh == NULL) {
                free(p);
                return tpa_error_oom(err);
        }
        yajl_config(p->yh, yajl_allow_partial_values, 1);
        yajl_config(p->yh, yajl_dont_validate_strings, 1);
        *out = p;
        return 0;
}

void tpa_chrome__parser_free(tpa_chrome_parser *p)
{
        if (p == NULL)
                return;
        if (p->yh != NULL)
                yajl_free(p->yh);
        free(p->arg_name.data);
        free(p->arg_labels.data);
        free(p->arg_op.data);
        free(p->arg_backend.data);
        free(p->coll_strs.data);
        free(p->scan_buf.data);
        free(p->cats);
        free(p->name_memo);
        free(p->dup);
        free(p->open);
        free(p->open_top);
        free(p);
}

/* yajl's message for a syntax error, in our words. */
static void syntax_message(const char *y, char *buf, size_t size)
{
        static const struct { const char *has, *say; } map[] = {
                { "I expect ',' or ']'", "expected ',' or ']'" },
                { "I expect ',' or '}'", "expected ',' or '}'" },
                { "separated by a colon", "expected ':' after an object key" },
                { "invalid object key", "expected a string as object key" },
                { "unallowed token", "unexpected token" },
                { "invalid char", "invalid character" },
                { "invalid string", "invalid string" },
                { "malformed number", "malformed number" },
                { "premature EOF", "the input ends inside a value" },
                { "trailing garbage", "unexpected bytes after the end of the JSON value" },
                { "inside string", "invalid escape in a string" },
                { "probable comment", "unexpected '/' (JSON has no comments)" },
        };

        for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
                if (strstr(y, map[i].has) != NULL) {
                        snprintf(buf, size, "%s", map[i].say);
                        return;
                }
        }
        snprintf(buf, size, "not valid JSON");
}

static struct tok_state token_at(const tpa_chrome_parser *p, uint64_t at);

/* Where the token starts that yajl refused after a value in a map ("I
 * expect ',' or '}'"). Only for this error yajl moves its offset back by the
 * token's length (yajl_parser.c, "try to restore error offset"), so `at` is
 * the token's first byte; or the chunk start, inside the token, when it
 * began in an earlier chunk; or, as a string's quotes are not counted, 2
 * bytes past its quote. That is inside the token except for two cases,
 * where `at` is just past it: "", and a number that ended at the chunk end
 * (yajl needs the next byte to end it). The token right before `at` is then
 * either that token or the map's value; value_end tells which. */
static uint64_t moved_back_start(const tpa_chrome_parser *p, uint64_t at)
{
        struct tok_state t = token_at(p, at), e, q;

        if (t.start < p->value_end && p->value_end <= at)
                return p->value_end;    /* "null1": one literal to tpa_chrome__tok_step() */
        if (t.start != at || at == 0 || p->value_end == at)
                return t.start;
        e = token_at(p, at - 1);                /* tok_snap when at - 1 is before cur[0] */
        if (e.literal && !e.boundary)
                return e.start > p->value_end ? e.start : p->value_end;
        if (at > p->fed && !e.in_str && e.start == at - 2) {
                q = token_at(p, at - 2);
                if (q.in_str && q.start == at - 2)
                        return at - 2;          /* "" */
        }
        return t.start;
}

/* Where the token starts that yajl found after the top-level value
 * ("trailing garbage"): the first one after value_end. yajl stops after
 * that token, or inside it, or on it (a '/'), so its offset alone does not
 * say. Whitespace here is what tpa_chrome__tok_step() counts as such. */
static uint64_t garbage_start(const tpa_chrome_parser *p)
{
        const struct tok_state *t = &p->tok_snap;
        uint64_t q = p->value_end > p->fed ? p->value_end : p->fed;

        /* begun before cur[0] (and after the value): a string or a
         * number that needed the next byte to end; or a run of bytes
         * tpa_chrome__tok_step() takes for one literal ("null1"), cut at the value's end */
        if (p->value_end < p->fed && (t->in_str || (t->literal && !t->boundary)))
                return t->start > p->value_end ? t->start : p->value_end;
        for (; q < p->fed + p->cur_len; q++) {
                unsigned char c = p->cur[q - p->fed];
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' &&
                    c != '\f')
                        break;
        }
        return q;
}

static int yajl_failed(tpa_chrome_parser *p, yajl_status st, const unsigned char *text,
                       size_t len)
{
        if (st == yajl_status_client_canceled) {
                if (p->err.code == TPA_OK)
                        tpa_error_set(&p->err, TPA_EINTERNAL, tpa_chrome__offset_now(p),
                                      "parse canceled");
        } else if (p->err.code == TPA_OK) {
                unsigned char *y = yajl_get_error(p->yh, 0, text, len);
                char msg[120];
                bool moved_back = y != NULL && strstr((const char *)y, "inside map") != NULL;
                /* yajl stops on a '/' (a comment), not after it */
                bool on_it = y != NULL && strstr((const char *)y, "probable comment") != NULL;
                bool garbage = y != NULL && strstr((const char *)y, "trailing garbage") != NULL;
                syntax_message(y != NULL ? (const char *)y : "", msg, sizeof(msg));
                if (y != NULL)
                        yajl_free_error(p->yh, y);
                uint64_t at = tpa_chrome__offset_now(p), start;
                if (moved_back) {
                        start = moved_back_start(p, at);
                } else if (garbage) {
                        start = garbage_start(p);
                } else {
                        uint64_t x = at > p->fed && !on_it ? at - 1 : at;
                        struct tok_state t = token_at(p, x);
                        start = t.start;
                        /* After a literal (a bad one, "tru}", or a number
                         * yajl needed the next byte to end), yajl stops on
                         * the next byte when the chunk starts there and
                         * just after it otherwise: prefer the literal. Not
                         * when yajl read that byte in this chunk ("257\"\x02":
                         * then it is the token refused). */
                        if (x == at && start == x && x - p->fed < p->cur_len &&
                            strchr("{}[]:, \t\r\n\v\f\"", p->cur[x - p->fed]) != NULL) {
                                struct tok_state b =
                                        x > p->fed ? token_at(p, x - 1) : p->tok_snap;
                                if (b.literal && !b.boundary)
                                        start = b.start;
                        }
                }
                tpa_error_set(&p->err, TPA_EFORMAT, start, "%s", msg);
        }
        return p->err.code;
}

/* Hand yajl `len` bytes at the parser's offset. `snap`: the token state
 * before data[0], for token_at() if yajl fails on them; `end`: after them,
 * as token_at() needs it between calls (no bytes, only the state). */
int tpa_chrome__parse_bytes(tpa_chrome_parser *p, const unsigned char *data, size_t len,
                       struct tok_state snap, struct tok_state end)
{
        yajl_status st;

        if (len == 0)
                return 0;
        p->cur = data;
        p->cur_len = len;
        p->tok_snap = snap;
        st = yajl_parse(p->yh, data, len);
        if (st != yajl_status_ok)
                return yajl_failed(p, st, data, len);
        p->fed += len;
        p->cur = NULL;
        p->cur_len = 0;
        p->tok_snap = end;
        return 0;
}

/* The token state after stream offset `at` (in cur[]; before cur[0] when
 * `at` is below it). */
static struct tok_state token_at(const tpa_chrome_parser *p, uint64_t at)
{
        struct tok_state t = p->tok_snap;

        for (uint64_t q = p->fed; q <= at && q < p->fed + p->cur_len; q++)
                tpa_chrome__tok_step(&t, p->cur[q - p->fed], q);
        return t;
}

/* Let a held comma go, as `c` (',', or ' ' when the next byte closes a
 * container) and the spaces after it as spaces. */
int tpa_chrome__release_comma(tpa_chrome_parser *p, unsigned char c)
{
        unsigned char buf[256];
        struct tok_state t = p->comma_tok, snap;
        uint64_t left = 1 + p->comma_ws;

        p->comma = false;
        memset(buf, ' ', sizeof(buf));
        while (left > 0) {
                size_t k = left < sizeof(buf) ? (size_t)left : sizeof(buf);
                buf[0] = p->fed == p->comma_at ? c : ' ';
                snap = t;
                for (size_t q = 0; q < k; q++)
                        tpa_chrome__tok_step(&t, buf[q], p->fed + q);
                if (tpa_chrome__parse_bytes(p, buf, k, snap, t) < 0)
                        return p->err.code;
                left -= k;
        }
        return 0;
}

static int report(tpa_chrome_parser *p, tpa_error *err)
{
        if (err != NULL)
                *err = p->err;
        return p->err.code;
}

/* The too-long string ends (or the input does): the error check_string()
 * gives, at the same offset. */
static int str_too_long(tpa_chrome_parser *p)
{
        uint64_t len = p->str_raw > p->str_extra ? p->str_raw - p->str_extra : 0;

        tpa_chrome__fail(p, TPA_ELIMIT, p->str_start,
                         "a string of %llu bytes is longer than the limit of %llu bytes",
                         (unsigned long long)len, (unsigned long long)p->max_string);
        return p->err.code;
}

/* ---- the parser's side of a filtered chunk ------------------------------ */

/* A ',' the filter held at the chunk's end (n->tail, then only spaces):
 * p holds it for the next chunk, or for finish(). */
void tpa_chrome__hold_tail(tpa_chrome_parser *p, const struct chunk_note *n, uint64_t base,
                      size_t len)
{
        if (n->tail < len) {
                p->comma = true;
                p->comma_at = base + n->tail;
                p->comma_ws = len - n->tail - 1;
                p->comma_tok = n->tail_tok;
        }
}

/* A chunk the filter rewrote, with its note: a ',' held from the chunk
 * before goes to yajl first, as the filter decided it, then the chunk from
 * n->lead up to what the filter holds back (a ',' still to decide, a string
 * too long), whose state is kept for the next chunk or for finish(). */
int tpa_chrome__feed_filtered(tpa_chrome_parser *p, const unsigned char *d, size_t len,
                         const struct chunk_note *n)
{
        uint64_t base = p->in_off;
        size_t end = n->tail < n->skip ? n->tail : n->skip;

        p->in_off += len;
        if (p->str_skip) {
                p->str_raw = n->str_raw;
                p->str_extra = n->str_extra;
                return n->str_closed ? str_too_long(p) : 0;
        }
        if (p->comma) {
                p->comma_ws += n->lead;
                if (n->resolve == 0)
                        return 0;
                if (tpa_chrome__release_comma(p, n->resolve) < 0)
                        return p->err.code;
        }
        if (tpa_chrome__parse_bytes(p, d + n->lead, end - n->lead, n->tok,
                                    end == n->tail && n->tail < len ? n->tail_tok : n->end_tok) < 0)
                return p->err.code;
        if (n->skip < len) {
                /* what came before it went to yajl first: its errors come first */
                p->str_skip = true;
                p->str_start = n->str_start;
                p->str_raw = n->str_raw;
                p->str_extra = n->str_extra;
                return n->str_closed ? str_too_long(p) : 0;
        }
        tpa_chrome__hold_tail(p, n, base, len);
        return 0;
}

int tpa_chrome__parser_feed(tpa_chrome_parser *p, const void *data, size_t len,
                            tpa_error *err)
{
        const unsigned char *s = data;
        struct chunk_note n;

        if (p->err.code != TPA_OK)
                return report(p, err);
        /* The filter rewrites in place: a copy of the caller's bytes. */
        while (len > 0) {
                size_t k = len < TPA_CHROME_OUT_SIZE ? len : TPA_CHROME_OUT_SIZE;
                memcpy(p->out, s, k);
                tpa_chrome__filter_chunk(&p->filter, p->out, k, &n);
                if (tpa_chrome__feed_filtered(p, p->out, k, &n) < 0)
                        return report(p, err);
                s += k;
                len -= k;
        }
        return 0;
}

static void close_open_events(tpa_chrome_parser *p)
{
        tpa_health *h = tpa_trace__health(p->tr);
        tpa_event *ev = tpa_trace__events_mut(p->tr);

        /* Every slot not on the free list is open; walk the per-track stacks. */
        for (size_t t = 0; t < p->open_top_cap; t++) {
                for (uint32_t s = p->open_top[t]; s != 0; s = p->open[s - 1].below) {
                        size_t i = p->open[s - 1].event;
                        ev[i].dur = p->max_end > ev[i].ts ? p->max_end - ev[i].ts : 0;
                        h->unmatched_begin++;
                        if (tpa_trace__add_flags(p->tr, i, TPA_FLAG_UNCLOSED, NULL) < 0)
                                tpa_chrome__fail(p, TPA_ENOMEM, 0, "%s", "out of memory");
                }
        }
        if (p->lone_ends > 0)
                tpa_trace__warn(p->tr, p->first_lone_end,
                                "%llu 'E' events have no 'B' before them; they are dropped",
                                (unsigned long long)p->lone_ends);
        if (h->unmatched_begin > 0)
                tpa_trace__warn(p->tr, p->in_off,
                                "%llu 'B' events never end; they are closed at the trace end",
                                (unsigned long long)h->unmatched_begin);
}

/* The cats of the events read, all of them, for tpa_classify__chrome(): the
 * ones after the last written are empty. With none written, calloc()'s
 * fresh pages: the dialects that never look at them touch none. */
static int all_cats(tpa_chrome_parser *p, tpa_error *err)
{
        if (p->cats == NULL && p->cat_count > 0) {
                p->cats = calloc(p->cat_count, sizeof(*p->cats));
                if (p->cats == NULL)
                        return tpa_error_oom(err);
                p->cat_cap = p->cat_count;
        } else if (p->cat_set < p->cat_count) {
                if (tpa_chrome__grow((void **)&p->cats, &p->cat_cap, p->cat_count,
                                     sizeof(*p->cats), err) < 0)
                        return TPA_ENOMEM;
                memset(p->cats + p->cat_set, 0, (p->cat_count - p->cat_set) * sizeof(*p->cats));
        }
        p->cat_set = p->cat_count;
        return 0;
}

int tpa_chrome__parser_finish(tpa_chrome_parser *p, bool truncated, tpa_error *err)
{
        tpa_health *h = tpa_trace__health(p->tr);
        yajl_status st;
        tpa_error e = TPA_ERROR_INIT;
        bool cut = false;

        if (p->err.code != TPA_OK)
                return report(p, err);
        if (p->str_skip) {              /* the input ends inside it */
                str_too_long(p);
                return report(p, err);
        }
        if (p->comma && tpa_chrome__release_comma(p, ' ') < 0)
                return report(p, err);
        /* yajl ends the input with a space: every byte before was taken,
         * so a syntax error here is the last token cut by the end of the
         * input ("ts":12. or tru), a cut like any other. */
        st = yajl_complete_parse(p->yh);
        if (st != yajl_status_ok && (st != yajl_status_error || p->depth == 0)) {
                yajl_failed(p, st, NULL, 0);
                return report(p, err);
        }
        if (p->top == 0) {
                tpa_error_set(&p->err, TPA_EFORMAT, p->in_off, "no JSON value in the input");
                return report(p, err);
        }
        /* JSON that is no trace, whole: refused, not read as a trace of
         * nothing (a verdict of none, exit 0, a rank of nothing in a folder) */
        if (p->events_depth == 0 && p->top == '{' && p->depth == 0) {
                tpa_error_set(&p->err, TPA_ENOTTRACE, 0, "%s", p->et_keys ?
                              "not a trace: a PyTorch execution trace (ExecutionTraceObserver: "
                              "'nodes', no times); give the profiler's trace written with it "
                              "(*.pt.trace.json)" :
                              "not a trace: a JSON object with no 'traceEvents' array");
                return report(p, err);
        }
        if (p->events_depth == 0 && p->top == '{')
                tpa_trace__warn(p->tr, 0, "the trace has no 'traceEvents' array");
        if (p->strays > 0 && h->records_read == 0) {
                tpa_error_set(&p->err, TPA_ENOTTRACE, p->first_stray, "not a trace: its events "
                              "array holds %s, no event object", p->stray_kind);
                return report(p, err);
        }
        if (p->strays > 0)
                tpa_trace__warn(p->tr, p->first_stray, "%llu values of the events array are "
                                "no event object (the first: %s); they are ignored",
                                (unsigned long long)p->strays, p->stray_kind);
        if (p->depth > 0) {
                cut = true;
                if (p->strict) {
                        tpa_error_set(&p->err, TPA_EFORMAT, p->in_off,
                                      p->in_event ? "the trace ends inside a record"
                                                  : "the trace ends without its final ']'");
                        return report(p, err);
                }
                if (p->in_event)
                        tpa_trace__warn(p->tr, p->rec->offset,
                                        "the trace ends inside a record; read the %llu records "
                                        "before it", (unsigned long long)h->records_read);
                else
                        tpa_trace__warn(p->tr, p->in_off,
                                        "the trace ends without its final ']'");
        }
        if (truncated) {
                cut = true;
                if (p->strict) {
                        tpa_error_set(&p->err, TPA_EFORMAT, p->in_off,
                                      "the compressed input ends early, after %llu bytes",
                                      (unsigned long long)p->in_off);
                        return report(p, err);
                }
                tpa_trace__warn(p->tr, p->in_off, "the compressed input ends early; read the "
                                "first %llu bytes", (unsigned long long)p->in_off);
        }
        if (cut) {
                h->truncated = true;
                h->truncated_at = p->in_off;
                h->events_whole = p->events_depth > 0 && !p->events_open;
        }
        close_open_events(p);
        if (p->err.code != TPA_OK)
                return report(p, err);
        if (all_cats(p, &e) < 0 ||
            tpa_classify__chrome(p->tr, p->first_event, p->cats, &p->hints, &e) < 0) {
                p->err = e;
                return report(p, err);
        }
        return 0;
}

/* ---- the reader --------------------------------------------------------- */

#define ONE_THREAD_SPLIT (1u << 20)

int tpa_chrome__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                     tpa_error *err)
{
        tpa_chrome_parser *p;
        tpa_chrome_split *sp = NULL;
        const uint8_t *data;
        size_t len;
        bool threaded = tpa_source__threaded(src), tried = false;
        int r;

        r = tpa_chrome__parser_new(&p, tr, opts, err);
        if (r < 0)
                return r;
        /* The filter runs where the bytes are made: beside inflate when the
         * source has its own thread. It starts where the stream does. */
        p->filter.off = tpa_source__offset(src);
        p->in_off = p->fed = p->filter.off;
        r = tpa_source__set_transform(src, tpa_chrome__filter_chunk, &p->filter,
                                      sizeof(struct chunk_note), err);
        /* Beside an inflating thread, records are read on two (see "two
         * threads" in chrome_split.c); a trace in one chunk has nothing to split. */
        if (r == 0 && threaded && (sp = tpa_chrome__split_new(p, src, opts)) != NULL)
                tpa_source__set_idle(src, tpa_chrome__split_help_inflating, sp);
        while (r == 0) {
                if (sp != NULL && tpa_chrome__split_meanwhile(sp, src) < 0) {
                        r = report(p, err);
                        break;
                }
                r = tpa_source__read(src, &data, &len, err);
                if (r < 0 || len == 0)
                        break;
                /* On one thread, segments too once ONE_THREAD_SPLIT bytes
                 * are read: the scanner takes less than yajl, and a smaller
                 * trace would pay for the split's parser and copies for
                 * nothing (speed, bench/) */
                if (sp == NULL && !threaded && !tried &&
                    tpa_source__offset(src) >= ONE_THREAD_SPLIT) {
                        tried = true;
                        sp = tpa_chrome__split_new(p, src, opts);
                }
                r = sp != NULL ? tpa_chrome__split_chunk(sp, data, len, tpa_source__note(src))
                               : tpa_chrome__feed_filtered(p, data, len, tpa_source__note(src));
                if (r < 0) {
                        report(p, err);
                        break;
                }
                if (opts->progress != NULL)
                        opts->progress(opts->progress_ctx, tpa_source__bytes_in(src),
                                       tpa_source__offset(src));
        }
        /* the segments before a source's error are read before it is */
        if (sp != NULL && tpa_chrome__split_end(sp) < 0)
                r = report(p, err);
        if (r == 0)
                r = tpa_chrome__parser_finish(p, tpa_source__truncated(src), err);
        tpa_source__set_transform(src, NULL, NULL, 0, NULL);     /* before p->filter goes */
        tpa_source__set_idle(src, NULL, NULL);                   /* before sp goes */
        tpa_chrome__split_free(sp);
        tpa_chrome__parser_free(p);
        return r;
}
