/* SPDX-License-Identifier: MIT */
/*
 * chrome_json.c - the Chrome trace JSON reader: yajl callbacks, never a
 * DOM, fed by a push parser that takes chunks of any size (doc/design.md
 * section 3). Each record is collected into one fixed struct, turned into
 * a tpa_event when its '}' arrives, and classified by dialect once the
 * whole input is read (classify.c), because names (M records) may come last.
 *
 * yajl has no option for trailing commas, so the bytes pass a small filter
 * first: outside strings, a ',' whose next non-space byte is ']' or '}' is
 * replaced by a space, as is a leading UTF-8 BOM. Every byte maps to one
 * byte, so yajl's offsets are offsets into the real stream. The filter
 * rewrites the bytes in place and runs as the byte source's transform, on
 * the inflating thread when there is one (source.h): what the parser needs
 * of its state, it gets in a note with each chunk (struct chunk_note).
 *
 * Strings longer than max_string are an error (TPA_ELIMIT at the string),
 * not truncated: a 1 MiB name is a broken or hostile trace.
 *
 * tpa_chrome__read() on a source with a thread of its own reads the events
 * array's records on two threads, with the same result ("two threads").
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#if defined(__GNUC__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "input/readers.h"
#include "model/utf8.h"
#include "parse/chrome_json.h"
#include "parse/classify.h"

#define OUT_SIZE 65536
/* Slots of the cache of strings interned (a power of 2). */
#define NAME_CACHE 256
/* Slots of the cache of pid/tid pairs looked up (a power of 2). */
#define TRACK_CACHE 16
/* |ts| and dur beyond 2^61 ns (73 years) are garbage; below it, every sum
 * and difference of two times fits in int64 (as in xspace.c). */
#define TIME_MAX (INT64_C(1) << 61)

/* Keys we act on, at the top level, in an event, in an event's args. */
enum key {
        K_NONE = 0,
        /* top level */
        K_TRACE_EVENTS, K_METADATA, K_KINETO, K_DIST,
        /* distributedInfo */
        D_RANK, D_WORLD_SIZE, D_BACKEND,
        /* event */
        K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
        /* args */
        A_NAME, A_LABELS, A_SORT_INDEX, A_GROUP_ID, A_STEP_NUM, A_CORR,
        A_MEMCPY_DETAILS, A_BYTES, A_ANNOTATION, A_TF_FUNCTION_CALL,
        A_RANK, A_WORLD_SIZE, A_BACKEND,        /* a merged input's (tpa_input) */
};

/* A growable byte buffer for arg strings kept until the record ends; a
 * record has ARG_BUFS of them (name, labels, op, backend). */
#define ARG_BUFS 4
struct sbuf {
        char  *data;
        size_t len, cap;
        bool   set;
};

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
        /* Nesting outside strings, for the cuts (see "two threads"): the
         * depth, the kinds ('{' or '[') of the root and of its child that
         * is open; no more cuts once a string is skipped (it is an error). */
        uint32_t         depth;
        unsigned char    kind[2];
        bool             no_cuts;
};

/* What the parser learns of a chunk with it: the few facts that the
 * filter's state decides and that cannot be read back from the bytes. The
 * token states are what tok_step() would give after every byte before the
 * position named; the parser needs them only to place error offsets. */
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

/* One record as read so far. */
struct record {
        uint64_t offset;        /* where its '{' is */
        uint32_t keys;
        char     ph;            /* 0: none; '?': not one character */
        bool     has_ts, has_dur, has_pid, has_tid;
        tpa_str  name, cat;
        tpa_id   pid, tid;
        tpa_ns   ts, dur;
        uint64_t dur_offset;
        /* args */
        bool     has_sort_index, has_group, has_step, has_corr, has_bytes, compile;
        bool     has_rank, has_world_size;
        int64_t  sort_index, step, rank, world_size;
        uint64_t group, corr, bytes;
};

/* An open B event, in a per-track stack threaded through one array. */
struct open_b {
        size_t   event;
        uint32_t track;
        uint32_t below;         /* index + 1 of the entry under it; 0: none */
};

struct tpa_chrome_parser {
        tpa_trace         *tr;
        yajl_handle        yh;
        tpa_error          err;         /* the first error, kept for later calls */
        /* For the calls on every record's path that fill an error only when
         * they fail: clear until then, and nothing is parsed after it (a
         * TPA_ERROR_INIT local is 250 bytes zeroed per call: 1% of reading). */
        tpa_error          scratch;
        /* The strings interned last, by a hash of their length and ends:
         * names repeat (each op, each kernel, every step), and a hit costs
         * one comparison instead of the UTF-8 check, the full hash and the
         * table's probe. 0 is the empty string, right for len 0. */
        tpa_str            names[NAME_CACHE];
        uint64_t           max_string;
        uint32_t           max_depth;
        bool               strict;

        /* the filter, and what the parser keeps of its notes */
        struct filter      filter;
        uint64_t           in_off;      /* bytes taken from the caller */
        uint64_t           fed;         /* bytes handed to yajl before `cur` */
        bool               comma;       /* a ',' held (see struct filter) */
        uint64_t           comma_at, comma_ws; /* ... and the spaces after it */
        struct tok_state   comma_tok;
        bool               str_skip;    /* a string too long is being counted */
        uint64_t           str_start, str_raw, str_extra;
        /* where the last number, true, false, null, "" or top-level value ended */
        uint64_t           value_end;
        /* the bytes yajl is parsing (empty between calls), the token state
         * before cur[0] */
        const unsigned char *cur;
        size_t             cur_len;
        struct tok_state   tok_snap;
        unsigned char      out[OUT_SIZE]; /* tpa_chrome_parser_feed()'s copy */

        /* structure */
        uint32_t           depth;
        int                top;         /* 0: nothing yet, '[' or '{' */
        uint32_t           events_depth; /* depth inside the events array; 0: none */
        bool               events_open; /* ... and it has not ended */
        enum key           top_key;
        bool               in_meta;
        bool               in_event, in_args;
        uint32_t           ev_depth;    /* depth inside the event's map */
        enum key           key;
        struct record      rec;
        struct sbuf        arg_name, arg_labels, arg_op, arg_backend;
        tpa_classify_hints hints;
        size_t             first_event;

        /* per event 'cat', parallel to the events read by this parser */
        tpa_str           *cats;
        size_t             cat_count, cat_cap;

        /* by name (tpa_str): 0 not looked at yet, 1 not a compile name, 2 one
         * (names repeat: the prefix tests ran once per event) */
        uint8_t           *compile_memo;
        size_t             compile_cap;

        /* processes that are TF1 duplicate views, by process index */
        uint8_t           *dup;
        size_t             dup_cap;

        /* B/E matching */
        struct open_b     *open;
        size_t             open_count, open_cap;
        uint32_t           open_free;   /* free list, index + 1 */
        uint32_t          *open_top;    /* by track: index + 1 of its top */
        size_t             open_top_cap;
        tpa_ns             max_end;
        uint64_t           lone_ends, first_lone_end; /* E with no B: count, first offset */
        bool               any_event;

        /* pid/tid pairs looked up, by a hash of the pair: the events of a
         * few tracks interleave (host threads, streams), so the last pair
         * alone missed every other event */
        struct track_memo {
                bool     valid;
                tpa_id   pid, tid;
                uint32_t proc, track;
        } tracks[TRACK_CACHE];

        /* Collecting (see "two threads"): a parser that reads a segment of
         * records into `coll` for another to add, never touching tr. Each
         * record's strings to intern go to coll_strs, in the order the
         * record gave them; the record holds their number (1-based) in
         * place of the tpa_str. */
        struct sbuf       *coll;
        struct sbuf        coll_strs;
        uint32_t           coll_n;
        /* While scan_segment() reads (yh is NULL then): the end of the token
         * just read, from `fed`, and the strings it decoded. */
        size_t             scan_at;
        struct sbuf        scan_buf;
};

/* ---- helpers ------------------------------------------------------------ */

static int grow(void **ptr, size_t *cap, size_t need, size_t elem, tpa_error *err)
{
        size_t n = *cap ? *cap : 64;
        void *q;

        if (need <= *cap)
                return 0;
        while (n < need)
                n *= 2;
        q = realloc(*ptr, n * elem);
        if (q == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        *ptr = q;
        *cap = n;
        return 0;
}

/* As grow(), with the new part zeroed. */
static int grow_zero(void **ptr, size_t *cap, size_t need, size_t elem, tpa_error *err)
{
        size_t old = *cap;

        if (grow(ptr, cap, need, elem, err) < 0)
                return TPA_ENOMEM;
        if (*cap > old)
                memset((char *)*ptr + old * elem, 0, (*cap - old) * elem);
        return 0;
}

static uint64_t offset_now(const tpa_chrome_parser *p)
{
        return p->fed + (p->yh != NULL ? yajl_get_bytes_consumed(p->yh) : p->scan_at);
}

/* Store an error and return 0, which makes yajl cancel the parse. */
static int fail(tpa_chrome_parser *p, int code, uint64_t offset, const char *fmt, ...)
        TPA_PRINTF(4, 5);
static int fail(tpa_chrome_parser *p, int code, uint64_t offset, const char *fmt, ...)
{
        char msg[sizeof(p->err.msg)];
        va_list ap;

        if (p->err.code == TPA_OK) {
                va_start(ap, fmt);
                vsnprintf(msg, sizeof(msg), fmt, ap);
                va_end(ap);
                tpa_error_set(&p->err, code, offset, "%s", msg);
                if (p->in_event && p->coll == NULL)
                        p->err.event = tpa_trace_health_c(p->tr)->records_read + 1;
        }
        return 0;
}

static int fail_code(tpa_chrome_parser *p, const tpa_error *inner)
{
        if (p->err.code == TPA_OK)
                p->err = *inner;
        return 0;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* A JSON integer's text to int64; false when it is not an integer or too big. */
static inline bool parse_i64(const char *s, size_t len, int64_t *out)
{
        bool neg = false;
        uint64_t v = 0;
        size_t i = 0;

        if (len > 0 && s[0] == '-') {
                neg = true;
                i = 1;
        }
        if (i == len)
                return false;
        if (len - i <= 18) {
                /* Speed (bench/): ids have 1 to 19 digits on every record;
                 * below 10^18 nothing overflows, one test for all digits */
                unsigned bad = 0;
                for (; i < len; i++) {
                        unsigned d = (unsigned)(unsigned char)s[i] - '0';
                        bad |= d > 9;
                        v = v * 10 + d;
                }
                if (bad)
                        return false;
        } else {
                for (; i < len; i++) {
                        if (!is_digit(s[i]) || v > (UINT64_MAX - 9) / 10)
                                return false;
                        v = v * 10 + (uint64_t)(s[i] - '0');
                }
                if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
                        return false;
        }
        *out = neg ? (int64_t)(0 - v) : (int64_t)v;
        return true;
}

static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
        uint64_t v = 0;

        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++) {
                if (!is_digit(s[i]) || v > (UINT64_MAX - 9) / 10)
                        return false;
                v = v * 10 + (uint64_t)(s[i] - '0');
        }
        *out = v;
        return true;
}

bool tpa_chrome__us_to_ns(const char *s, size_t len, tpa_ns *out)
{
        char digits[40];
        size_t nd = 0, i = 0;
        int64_t exp10 = 3;              /* microseconds to nanoseconds */
        bool neg = false, any = false;
        uint64_t v = 0;

        /* Speed (bench/): "[-]D.DDD", exactly three decimals, the form the
         * profilers write, each digit checked once. */
        if (len >= 5 && s[len - 4] == '.') {
                size_t k = s[0] == '-' ? 1 : 0, end = len - 4;
                uint64_t w = 0;
                unsigned d;

                if (k < end && end - k <= 15) {
                        for (; k < end && (d = (unsigned)(unsigned char)s[k] - '0') <= 9; k++)
                                w = w * 10 + d;
                        if (k == end) {
                                for (k++; k < len && (d = (unsigned)(unsigned char)s[k] - '0') <= 9;
                                     k++)
                                        w = w * 10 + d;
                                if (k == len) {
                                        *out = s[0] == '-' ? -(int64_t)w : (int64_t)w;
                                        return true;
                                }
                        }
                }
        }
        /* Speed (bench/): "[-]D.FFF", the usual form (1 to 15 digits before
         * the point, at most 3 after it), exactly, without the general path
         * below: no digit is dropped, so nothing rounds. */
        {
                size_t k = len > 0 && s[0] == '-' ? 1 : 0, d0 = k, nf = 0;
                uint64_t w = 0;

                while (k < len && k - d0 < 15 && is_digit(s[k]))
                        w = w * 10 + (uint64_t)(s[k++] - '0');
                if (k > d0 && (k == len || (s[k] == '.' && len - k <= 4))) {
                        if (k < len)
                                for (k++; k < len && is_digit(s[k]); k++, nf++)
                                        w = w * 10 + (uint64_t)(s[k] - '0');
                        if (k == len) {
                                for (; nf < 3; nf++)
                                        w *= 10;
                                *out = d0 ? -(int64_t)w : (int64_t)w;
                                return true;
                        }
                }
        }

        if (i < len && (s[i] == '-' || s[i] == '+'))
                neg = s[i++] == '-';
        for (; i < len && is_digit(s[i]); i++) {
                any = true;
                if (nd == 0 && s[i] == '0')
                        continue;       /* leading zeros */
                if (nd >= sizeof(digits))
                        return false;
                digits[nd++] = s[i];
        }
        if (i < len && s[i] == '.') {
                for (i++; i < len && is_digit(s[i]); i++) {
                        any = true;
                        if (nd == 0 && s[i] == '0') {
                                exp10--;
                                continue;
                        }
                        if (nd < sizeof(digits)) {
                                digits[nd++] = s[i];
                                exp10--;
                        } else if (nd == sizeof(digits)) {
                                /* far below a nanosecond: only rounding can see it */
                                continue;
                        }
                }
        }
        if (!any)
                return false;
        if (i < len && (s[i] == 'e' || s[i] == 'E')) {
                bool eneg = false;
                int64_t e = 0;
                i++;
                if (i < len && (s[i] == '-' || s[i] == '+'))
                        eneg = s[i++] == '-';
                if (i == len)
                        return false;
                for (; i < len && is_digit(s[i]); i++)
                        if (e < 100000)
                                e = e * 10 + (s[i] - '0');
                exp10 += eneg ? -e : e;
        }
        if (i != len)
                return false;
        /* value = digits * 10^exp10 nanoseconds */
        if (exp10 >= 0) {
                for (size_t k = 0; k < nd; k++) {
                        if (v > (UINT64_MAX - 9) / 10)
                                return false;
                        v = v * 10 + (uint64_t)(digits[k] - '0');
                }
                for (int64_t k = 0; k < exp10 && v != 0; k++) {
                        if (v > UINT64_MAX / 10)
                                return false;
                        v *= 10;
                }
        } else {
                int64_t keep = (int64_t)nd + exp10;     /* digits left of the point */
                for (int64_t k = 0; k < keep; k++) {
                        if (v > (UINT64_MAX - 9) / 10)
                                return false;
                        v = v * 10 + (uint64_t)(digits[k] - '0');
                }
                /* round half away from zero on the first dropped digit */
                if (keep >= 0 && (size_t)keep < nd && digits[keep] >= '5')
                        v++;
        }
        if (v > (uint64_t)INT64_MAX)
                return false;
        *out = neg ? -(int64_t)v : (int64_t)v;
        return true;
}

static int sbuf_set(tpa_chrome_parser *p, struct sbuf *b, const char *s, size_t len)
{
        tpa_error *e = &p->scratch;

        if (grow((void **)&b->data, &b->cap, len + 1, 1, e) < 0)
                return fail_code(p, e);
        memcpy(b->data, s, len);
        b->len = len;
        b->set = true;
        return 1;
}

/* Every string kept goes through here: invalid UTF-8 is replaced and
 * counted, at the offset of its record (model/utf8.h). */
static int collect_str(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len);

static int intern(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len)
{
        tpa_error *e = &p->scratch;
        uint64_t head = 0, tail = 0;
        size_t slot;
        tpa_str c;

        if (p->coll != NULL)
                return collect_str(p, out, s, len);
        /* Kernel names share long prefixes (Eigen templates): both ends. */
        if (len >= 8) {
                memcpy(&head, s, 8);
                memcpy(&tail, s + len - 8, 8);
        } else if (len > 0) {
                memcpy(&head, s, len);
        }
        slot = (size_t)(((head ^ (tail << 1) ^ len) * UINT64_C(0x9e3779b97f4a7c15)) >> 56) &
               (NAME_CACHE - 1);
        c = p->names[slot];
        /* A string stored repaired (invalid UTF-8) never equals its input,
         * so it goes the long way each time and is counted each time. */
        if (tpa_trace_str_len(p->tr, c) == len && memcmp(tpa_trace_str(p->tr, c), s, len) == 0) {
                *out = c;
                return 1;
        }
        if (tpa_utf8__intern(p->tr, out, s, len, p->rec.offset, e) < 0)
                return fail_code(p, e);
        p->names[slot] = *out;
        return 1;
}

/* A pid or tid given as a number's text or a string: digits are a number,
 * anything else ("stream 7", "Traces") an interned string. */
static int set_id(tpa_chrome_parser *p, tpa_id *id, const char *s, size_t len)
{
        id->num = 0;
        id->str = TPA_STR_EMPTY;
        if (parse_i64(s, len, &id->num))
                return 1;
        if (len == 0) {
                id->num = TPA_ID_EMPTY_STRING;
                return 1;
        }
        return intern(p, &id->str, s, len);
}

static enum key event_key(const char *k, size_t len)
{
        switch (len) {
        case 2:
                if (memcmp(k, "ph", 2) == 0) return K_PH;
                if (memcmp(k, "ts", 2) == 0) return K_TS;
                break;
        case 3:
                if (memcmp(k, "pid", 3) == 0) return K_PID;
                if (memcmp(k, "tid", 3) == 0) return K_TID;
                if (memcmp(k, "cat", 3) == 0) return K_CAT;
                if (memcmp(k, "dur", 3) == 0) return K_DUR;
                break;
        case 4:
                if (memcmp(k, "name", 4) == 0) return K_NAME;
                if (memcmp(k, "args", 4) == 0) return K_ARGS;
                break;
        }
        return K_NONE;
}

static enum key args_key(const char *k, size_t len)
{
        switch (len) {
        case 4:
                if (memcmp(k, "name", 4) == 0) return A_NAME;
                if (memcmp(k, "rank", 4) == 0) return A_RANK;
                break;
        case 5:
                if (memcmp(k, "bytes", 5) == 0) return A_BYTES;
                if (memcmp(k, "tf_op", 5) == 0) return A_ANNOTATION;
                break;
        case 6:
                if (memcmp(k, "labels", 6) == 0) return A_LABELS;
                break;
        case 7:
                if (memcmp(k, "backend", 7) == 0) return A_BACKEND;
                break;
        case 8:
                if (memcmp(k, "group_id", 8) == 0) return A_GROUP_ID;
                if (memcmp(k, "step_num", 8) == 0) return A_STEP_NUM;
                if (memcmp(k, "iter_num", 8) == 0) return A_STEP_NUM;
                break;
        case 9:
                if (memcmp(k, "num_bytes", 9) == 0) return A_BYTES;
                break;
        case 10:
                if (memcmp(k, "sort_index", 10) == 0) return A_SORT_INDEX;
                if (memcmp(k, "annotation", 10) == 0) return A_ANNOTATION;
                if (memcmp(k, "world_size", 10) == 0) return A_WORLD_SIZE;
                break;
        case 11:
                if (memcmp(k, "correlation", 11) == 0) return A_CORR;
                break;
        case 14:
                if (memcmp(k, "correlation_id", 14) == 0) return A_CORR;
                if (memcmp(k, "memcpy_details", 14) == 0) return A_MEMCPY_DETAILS;
                break;
        case 16:
                if (memcmp(k, "tf_function_call", 16) == 0) return A_TF_FUNCTION_CALL;
                break;
        }
        return K_NONE;
}

static enum key top_key(const char *k, size_t len)
{
        static const char *const kineto[] = {
                "schemaVersion", "deviceProperties", "distributedInfo", "traceName",
                "baseTimeNanoseconds", "cupti_version", "cuda_runtime_version",
        };

        if (len == 11 && memcmp(k, "traceEvents", 11) == 0)
                return K_TRACE_EVENTS;
        if (len == 8 && memcmp(k, "metadata", 8) == 0)
                return K_METADATA;
        if (len == 15 && memcmp(k, "distributedInfo", 15) == 0)
                return K_DIST;
        for (size_t i = 0; i < sizeof(kineto) / sizeof(kineto[0]); i++)
                if (strlen(kineto[i]) == len && memcmp(k, kineto[i], len) == 0)
                        return K_KINETO;
        return K_NONE;
}

static bool at_event_level(const tpa_chrome_parser *p)
{
        return p->in_event && p->depth == p->ev_depth;
}

/* Directly inside Kineto's top-level "distributedInfo" object. */
static bool in_dist_info(const tpa_chrome_parser *p)
{
        return !p->in_event && p->top == '{' && p->depth == 2 && p->top_key == K_DIST;
}

/* Kineto's "distributedInfo": {"backend": "gloo", "rank": 0,
 * "world_size": 2, ...}; the first value read wins. */
static void set_dist(tpa_chrome_parser *p, const char *s, size_t len, bool quoted)
{
        tpa_dist_info *d = tpa_trace_dist_mut(p->tr);
        int64_t v = 0;
        size_t i;

        if (p->key == D_BACKEND && quoted && d->backend[0] == '\0') {
                len = len < sizeof(d->backend) - 1 ? len : sizeof(d->backend) - 1;
                memcpy(d->backend, s, len);
                d->backend[len] = '\0';
                return;
        }
        if (p->key != D_RANK && p->key != D_WORLD_SIZE)
                return;
        for (i = 0; i < len && i < 12 && s[i] >= '0' && s[i] <= '9'; i++)
                v = v * 10 + (s[i] - '0');
        if (i == 0 || i != len)
                return;                 /* not a small non-negative integer */
        if (p->key == D_RANK && d->rank < 0)
                d->rank = v;
        else if (p->key == D_WORLD_SIZE && d->world_size < 0)
                d->world_size = v;
}

static bool at_args_level(const tpa_chrome_parser *p)
{
        return p->in_event && p->in_args && p->depth == p->ev_depth + 1;
}

/* ---- values ------------------------------------------------------------- */

/* A number or a number-like string for the current key. `quoted`: it came
 * as a string, so its text starts one byte after the token start. */
static int on_scalar(tpa_chrome_parser *p, const char *s, size_t len, bool quoted)
{
        struct record *r = &p->rec;
        uint64_t end = offset_now(p), at = end - len - (quoted ? 2 : 0);

        if (!quoted)
                p->value_end = end;             /* for moved_back_start() */
        if (in_dist_info(p)) {
                set_dist(p, s, len, quoted);
                return 1;
        }

        if (at_event_level(p)) {
                switch (p->key) {
                case K_TS:
                        if (!tpa_chrome__us_to_ns(s, len, &r->ts))
                                return fail(p, TPA_EFORMAT, at,
                                            "'%s' is not a number of microseconds", "ts");
                        if (r->ts < -TIME_MAX || r->ts > TIME_MAX)
                                return fail(p, TPA_EFORMAT, at, "'%s' is out of range", "ts");
                        r->has_ts = true;
                        break;
                case K_DUR:
                        if (!tpa_chrome__us_to_ns(s, len, &r->dur))
                                return fail(p, TPA_EFORMAT, at,
                                            "'%s' is not a number of microseconds", "dur");
                        if (r->dur > TIME_MAX)
                                return fail(p, TPA_EFORMAT, at, "'%s' is out of range", "dur");
                        r->has_dur = true;
                        r->dur_offset = at;
                        break;
                case K_PID:
                        r->has_pid = true;
                        return set_id(p, &r->pid, s, len);
                case K_TID:
                        r->has_tid = true;
                        return set_id(p, &r->tid, s, len);
                default:
                        break;
                }
                return 1;
        }
        if (!at_args_level(p))
                return 1;
        switch (p->key) {
        case A_SORT_INDEX:
                r->has_sort_index = parse_i64(s, len, &r->sort_index);
                break;
        case A_RANK:
                r->has_rank = parse_i64(s, len, &r->rank);
                break;
        case A_WORLD_SIZE:
                r->has_world_size = parse_i64(s, len, &r->world_size);
                break;
        case A_GROUP_ID:
                r->has_group = parse_u64(s, len, &r->group);
                break;
        case A_STEP_NUM:
                r->has_step = parse_i64(s, len, &r->step);
                break;
        case A_CORR:
                r->has_corr = parse_u64(s, len, &r->corr);
                break;
        case A_BYTES:
                r->has_bytes = parse_u64(s, len, &r->bytes);
                break;
        default:
                break;
        }
        return 1;
}

static int on_number(void *ctx, const char *s, size_t len)
{
        return on_scalar(ctx, s, len, false);
}

static int check_string(tpa_chrome_parser *p, size_t len)
{
        if (len > p->max_string) {
                return fail(p, TPA_ELIMIT, offset_now(p) - len - 2,
                            "a string of %zu bytes is longer than the limit of %llu bytes",
                            len, (unsigned long long)p->max_string);
        }
        return 1;
}

static int on_string(void *ctx, const unsigned char *us, size_t len)
{
        tpa_chrome_parser *p = ctx;
        const char *s = (const char *)us;
        struct record *r = &p->rec;

        if (len == 0 || p->depth == 0)
                p->value_end = offset_now(p);   /* moved_back_start(), garbage_start() */
        if (!check_string(p, len))
                return 0;
        if (at_event_level(p)) {
                switch (p->key) {
                case K_PH:
                        r->ph = len == 1 ? s[0] : '?';
                        return 1;
                case K_NAME:
                        return intern(p, &r->name, s, len);
                case K_CAT:
                        return intern(p, &r->cat, s, len);
                case K_PID:
                case K_TID:
                case K_TS:
                case K_DUR:
                        return on_scalar(p, s, len, true);
                default:
                        return 1;
                }
        }
        if (in_dist_info(p)) {
                set_dist(p, s, len, true);
                return 1;
        }
        if (!at_args_level(p))
                return 1;
        switch (p->key) {
        case A_NAME:
                return sbuf_set(p, &p->arg_name, s, len);
        case A_LABELS:
                return sbuf_set(p, &p->arg_labels, s, len);
        case A_BACKEND:
                return sbuf_set(p, &p->arg_backend, s, len);
        case A_ANNOTATION:
                return sbuf_set(p, &p->arg_op, s, tpa_classify__op_prefix(s, len));
        case A_TF_FUNCTION_CALL:
                if (tpa_classify__is_traced_call(s, len))
                        r->compile = true;
                return 1;
        case A_MEMCPY_DETAILS:
                /* "size:100663296 dest:0 async:1" */
                for (size_t i = 0; i + 5 <= len; i++) {
                        if (memcmp(s + i, "size:", 5) == 0) {
                                size_t j = i + 5, k = j;
                                while (k < len && is_digit(s[k]))
                                        k++;
                                r->has_bytes = parse_u64(s + j, k - j, &r->bytes);
                                break;
                        }
                }
                return 1;
        case A_SORT_INDEX:
        case A_GROUP_ID:
        case A_STEP_NUM:
        case A_CORR:
        case A_BYTES:
        case A_RANK:
        case A_WORLD_SIZE:
                return on_scalar(p, s, len, true);
        default:
                return 1;
        }
}

static int on_null(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        p->value_end = offset_now(p);
        return 1;
}

static int on_boolean(void *ctx, int v)
{
        tpa_chrome_parser *p = ctx;

        (void)v;
        p->value_end = offset_now(p);
        return 1;
}

static int on_map_key(void *ctx, const unsigned char *us, size_t len)
{
        tpa_chrome_parser *p = ctx;
        const char *k = (const char *)us;

        if (!check_string(p, len))
                return 0;
        if (at_event_level(p)) {
                p->rec.keys++;
                p->key = event_key(k, len);
        } else if (at_args_level(p)) {
                p->key = args_key(k, len);
        } else if (p->top == '{' && p->depth == 1) {
                p->top_key = top_key(k, len);
                if (p->top_key == K_KINETO || p->top_key == K_DIST)
                        p->hints.kineto_keys = true;
        } else if (in_dist_info(p)) {
                p->key = len == 4 && memcmp(k, "rank", 4) == 0 ? D_RANK
                       : len == 10 && memcmp(k, "world_size", 10) == 0 ? D_WORLD_SIZE
                       : len == 7 && memcmp(k, "backend", 7) == 0 ? D_BACKEND : K_NONE;
        } else if (p->in_meta && p->depth == 2) {
                if (len == 13 && memcmp(k, "highres-ticks", 13) == 0)
                        p->hints.tf2_keys = true;
        }
        return 1;
}

/* ---- structure ---------------------------------------------------------- */

static int enter(tpa_chrome_parser *p)
{
        if (p->depth >= p->max_depth) {
                return fail(p, TPA_ELIMIT, offset_now(p) - 1, "nesting deeper than %u levels",
                            p->max_depth);
        }
        p->depth++;
        return 1;
}

static int on_start_map(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        if (p->depth == 0 && p->top == 0)
                p->top = '{';
        if (p->events_open && p->depth == p->events_depth && !p->in_event) {
                if (!enter(p))
                        return 0;
                memset(&p->rec, 0, sizeof(p->rec));
                p->rec.offset = offset_now(p) - 1;
                p->arg_name.set = p->arg_labels.set = p->arg_op.set = false;
                p->arg_backend.set = false;
                p->coll_strs.len = 0;
                p->coll_n = 0;
                p->in_event = true;
                p->in_args = false;
                p->ev_depth = p->depth;
                p->key = K_NONE;
                return 1;
        }
        if (at_event_level(p) && p->key == K_ARGS)
                p->in_args = true;
        if (p->top == '{' && p->depth == 1 && p->top_key == K_METADATA)
                p->in_meta = true;
        return enter(p);
}

static int on_start_array(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        if (p->depth == 0 && p->top == 0) {
                p->top = '[';
                p->events_depth = 1;
                p->events_open = true;
        } else if (p->top == '{' && p->depth == 1 && p->top_key == K_TRACE_EVENTS &&
                   p->events_depth == 0) {
                p->events_depth = 2;
                p->events_open = true;
        }
        return enter(p);
}

static int on_end_array(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        /* maps in a later array at the same depth are no records */
        if (p->depth == p->events_depth)
                p->events_open = false;
        if (--p->depth == 0)
                p->value_end = offset_now(p);   /* for garbage_start() */
        return 1;
}

static int finish_event(tpa_chrome_parser *p);

static int on_end_map(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        if (p->in_event && p->depth == p->ev_depth) {
                p->depth--;
                p->in_event = false;
                return finish_event(p);
        }
        if (p->in_args && p->depth == p->ev_depth + 1)
                p->in_args = false;
        if (p->in_meta && p->depth == 2)
                p->in_meta = false;
        if (--p->depth == 0)
                p->value_end = offset_now(p);   /* for garbage_start() */
        return 1;
}

/* ---- records ------------------------------------------------------------ */

static int lookup_track(tpa_chrome_parser *p, uint32_t *proc, uint32_t *track)
{
        struct record *r = &p->rec;
        tpa_error *e = &p->scratch;

        struct track_memo *m = &p->tracks[((uint64_t)r->pid.num * 31 + (uint64_t)r->tid.num +
                                           r->pid.str * 7u + r->tid.str * 13u) &
                                          (TRACK_CACHE - 1)];

        if (m->valid && m->pid.num == r->pid.num && m->pid.str == r->pid.str &&
            m->tid.num == r->tid.num && m->tid.str == r->tid.str) {
                *proc = m->proc;
                *track = m->track;
                return 1;
        }
        if (tpa_trace_get_process(p->tr, proc, r->pid, e) < 0 ||
            tpa_trace_get_thread(p->tr, track, *proc, r->tid, e) < 0)
                return fail_code(p, e);
        m->valid = true;
        m->pid = r->pid;
        m->tid = r->tid;
        m->proc = *proc;
        m->track = *track;
        return 1;
}

static bool is_dup_process(const tpa_chrome_parser *p, uint32_t proc)
{
        return proc < p->dup_cap && p->dup[proc];
}

/* A file `merge` wrote marks each process with the input it came from:
 * {"ph":"M","pid":P,"name":"tpa_input","args":{"name":INPUT,"sort_index":
 * INDEX,"rank":R,"world_size":W,"backend":B}}, the last three when the
 * input said them (chrome_writer.c). */
static int merged_input(tpa_chrome_parser *p, uint32_t proc)
{
        struct record *r = &p->rec;
        tpa_input_info in = { .dist = TPA_DIST_INFO_INIT };
        size_t len = p->arg_backend.len;
        tpa_error e = TPA_ERROR_INIT;

        if (!intern(p, &in.name, p->arg_name.data, p->arg_name.len))
                return 0;
        if (r->has_rank && r->rank >= 0)
                in.dist.rank = r->rank;
        if (r->has_world_size && r->world_size >= 0)
                in.dist.world_size = r->world_size;
        if (p->arg_backend.set) {
                len = len < sizeof(in.dist.backend) - 1 ? len : sizeof(in.dist.backend) - 1;
                memcpy(in.dist.backend, p->arg_backend.data, len);
                in.dist.backend[len] = '\0';
        }
        if (tpa_trace_set_input(p->tr, proc, (uint32_t)r->sort_index, &in, &e) < 0)
                return fail_code(p, &e);
        return 1;
}

static int metadata(tpa_chrome_parser *p)
{
        struct record *r = &p->rec;
        const char *what = tpa_trace_str(p->tr, r->name);
        size_t wlen = tpa_trace_str_len(p->tr, r->name);
        tpa_error e = TPA_ERROR_INIT;
        uint32_t proc, track;
        tpa_str s;

        tpa_trace_health(p->tr)->metadata++;
        if (tpa_trace_get_process(p->tr, &proc, r->pid, &e) < 0)
                return fail_code(p, &e);
        if (wlen == 12 && memcmp(what, "process_name", 12) == 0 && p->arg_name.set) {
                if (!intern(p, &s, p->arg_name.data, p->arg_name.len))
                        return 0;
                tpa_trace_process(p->tr, proc)->name = s;
                if (tpa_classify__is_tf1_duplicate(p->arg_name.data, p->arg_name.len)) {
                        if (grow_zero((void **)&p->dup, &p->dup_cap, proc + 1, 1, &e) < 0)
                                return fail_code(p, &e);
                        p->dup[proc] = 1;
                }
        } else if (wlen == 14 && memcmp(what, "process_labels", 14) == 0 &&
                   p->arg_labels.set) {
                if (!intern(p, &s, p->arg_labels.data, p->arg_labels.len))
                        return 0;
                tpa_trace_process(p->tr, proc)->label = s;
        } else if (wlen == 9 && memcmp(what, "tpa_input", 9) == 0 && p->arg_name.set &&
                   r->has_sort_index && r->sort_index >= 0 && r->sort_index < TPA_TRACK_MAX) {
                if (!merged_input(p, proc))
                        return 0;
        } else if (wlen == 18 && memcmp(what, "process_sort_index", 18) == 0 &&
                   r->has_sort_index) {
                tpa_trace_process(p->tr, proc)->sort_index = r->sort_index;
        } else if (wlen == 11 && memcmp(what, "thread_name", 11) == 0 && p->arg_name.set) {
                if (!intern(p, &s, p->arg_name.data, p->arg_name.len) ||
                    !lookup_track(p, &proc, &track))
                        return 0;
                tpa_trace_thread(p->tr, track)->name = s;
        } else if (wlen == 17 && memcmp(what, "thread_sort_index", 17) == 0 &&
                   r->has_sort_index) {
                if (!lookup_track(p, &proc, &track))
                        return 0;
                tpa_trace_thread(p->tr, track)->sort_index = r->sort_index;
        }
        return 1;
}

static int add_event(tpa_chrome_parser *p, uint32_t track, size_t *index)
{
        struct record *r = &p->rec;
        tpa_error *e = &p->scratch;
        tpa_event ev;
        int64_t step;

        memset(&ev, 0, sizeof(ev));
        ev.ts = r->ts;
        ev.dur = r->dur;
        ev.name = r->name;
        ev.track = track;
        ev.kind = TPA_KIND_OTHER;
        ev.corr = r->has_corr && r->corr <= UINT32_MAX ? (uint32_t)r->corr : 0;
        ev.group = r->has_group && r->group < UINT32_MAX ? (uint32_t)r->group + 1 : 0;
        if (tpa_trace_add_event(p->tr, &ev, index, e) < 0)
                return fail_code(p, e);
        if (grow((void **)&p->cats, &p->cat_cap, p->cat_count + 1, sizeof(*p->cats), e) < 0)
                return fail_code(p, e);
        p->cats[p->cat_count++] = r->cat;
        p->any_event = true;
        if (r->ts + r->dur > p->max_end || p->cat_count == 1)
                p->max_end = r->ts + r->dur;

        if (r->has_bytes &&
            tpa_trace_set_aux(p->tr, *index, TPA_AUX_BYTES, (int64_t)(r->bytes & INT64_MAX),
                              e) < 0)
                return fail_code(p, e);
        if (!r->has_step && r->name != TPA_STR_EMPTY) {
                const char *n = tpa_trace_str(p->tr, r->name);
                size_t nl = tpa_trace_str_len(p->tr, r->name);
                /* only the markers: ProfilerStep#N, "train 12" (their first
                 * byte first: speed, every event comes here) */
                if ((n[0] == 'P' || n[0] == 't') &&
                    ((nl > 13 && memcmp(n, "ProfilerStep#", 13) == 0) ||
                     (nl > 6 && (memcmp(n, "train ", 6) == 0 || memcmp(n, "test ", 5) == 0))))
                        r->has_step = tpa_classify__step_from_name(n, nl, &r->step);
        }
        step = r->step;
        if (r->has_step && tpa_trace_set_aux(p->tr, *index, TPA_AUX_STEP_NUM, step, e) < 0)
                return fail_code(p, e);
        if (p->arg_op.set && p->arg_op.len > 0) {
                tpa_str op;
                if (!intern(p, &op, p->arg_op.data, p->arg_op.len))
                        return 0;
                if (tpa_trace_set_aux(p->tr, *index, TPA_AUX_OP, op, e) < 0)
                        return fail_code(p, e);
        }
        if (!r->compile && r->name != TPA_STR_EMPTY) {
                if (grow_zero((void **)&p->compile_memo, &p->compile_cap, (size_t)r->name + 1, 1,
                              e) < 0)
                        return fail_code(p, e);
                if (p->compile_memo[r->name] == 0)
                        p->compile_memo[r->name] = (uint8_t)(
                                1 + tpa_classify__is_compile_name(
                                            tpa_trace_str(p->tr, r->name),
                                            tpa_trace_str_len(p->tr, r->name)));
                r->compile = p->compile_memo[r->name] == 2;
        }
        if (r->compile && tpa_trace_add_flags(p->tr, *index, TPA_FLAG_COMPILE, e) < 0)
                return fail_code(p, e);
        return 1;
}

static int push_open(tpa_chrome_parser *p, uint32_t track, size_t event)
{
        tpa_error *e = &p->scratch;
        uint32_t slot;

        if (grow_zero((void **)&p->open_top, &p->open_top_cap, (size_t)track + 1,
                 sizeof(*p->open_top), e) < 0)
                return fail_code(p, e);
        if (p->open_free != 0) {
                slot = p->open_free - 1;
                p->open_free = p->open[slot].below;
        } else {
                if (grow((void **)&p->open, &p->open_cap, p->open_count + 1, sizeof(*p->open),
                         e) < 0)
                        return fail_code(p, e);
                slot = (uint32_t)p->open_count++;
        }
        p->open[slot].event = event;
        p->open[slot].track = track;
        p->open[slot].below = p->open_top[track];
        p->open_top[track] = slot + 1;
        return 1;
}

/* Pop the top open B of `track`; false when there is none. */
static bool pop_open(tpa_chrome_parser *p, uint32_t track, size_t *event)
{
        uint32_t slot;

        if (track >= p->open_top_cap || p->open_top[track] == 0)
                return false;
        slot = p->open_top[track] - 1;
        *event = p->open[slot].event;
        p->open_top[track] = p->open[slot].below;
        p->open[slot].below = p->open_free;
        p->open_free = slot + 1;
        return true;
}

static bool known_phase(char ph)
{
        return ph != 0 && strchr("CsftbenNODSTFpPRcav", ph) != NULL;
}

static int collect_record(tpa_chrome_parser *p);

static int finish_event(tpa_chrome_parser *p)
{
        struct record *r = &p->rec;
        tpa_health *h;
        uint32_t proc, track;
        size_t index;

        if (p->coll != NULL)
                return collect_record(p);
        h = tpa_trace_health(p->tr);
        h->records_read++;
        if (r->ph == 0) {
                if (r->keys != 0)
                        tpa_trace_warn(p->tr, r->offset, "records have no 'ph', ignoring");
                h->empty_records++;
                return 1;
        }
        switch (r->ph) {
        case 'M':
                return metadata(p);
        case 'X':
        case 'B':
        case 'E':
        case 'i':
        case 'I':
                break;
        default:
                if ((unsigned char)r->ph < 128)
                        h->by_phase[(unsigned char)r->ph]++;
                if (!known_phase(r->ph)) {
                        h->unknown_phase++;
                        if (r->ph == '?' || (unsigned char)r->ph < 32 ||
                            (unsigned char)r->ph >= 127)
                                tpa_trace_warn(p->tr, r->offset,
                                               "events have an unknown phase, ignoring");
                        else
                                tpa_trace_warn(p->tr, r->offset,
                                               "events have unknown phase '%c', ignoring",
                                               r->ph);
                }
                return 1;
        }
        if (!r->has_ts) {
                h->by_phase[(unsigned char)r->ph]++;
                tpa_trace_warn(p->tr, r->offset, "events have no 'ts', ignoring");
                return 1;
        }
        if (r->ph != 'X' || !r->has_dur)
                r->dur = 0;
        if (r->dur < 0)
                return fail(p, TPA_EFORMAT, r->dur_offset, "'%s' is negative", "dur");
        if (!lookup_track(p, &proc, &track))
                return 0;
        if (is_dup_process(p, proc)) {
                h->duplicates_dropped++;
                return 1;
        }
        if (r->ph == 'E') {
                tpa_event *ev;
                if (!pop_open(p, track, &index)) {
                        h->unmatched_end++;
                        if (p->lone_ends++ == 0)
                                p->first_lone_end = r->offset;
                        return 1;
                }
                ev = &tpa_trace_events_mut(p->tr)[index];
                ev->dur = r->ts >= ev->ts ? r->ts - ev->ts : 0;
                if (ev->ts + ev->dur > p->max_end)
                        p->max_end = ev->ts + ev->dur;
                return 1;
        }
        if (!add_event(p, track, &index))
                return 0;
        if (r->ph == 'B')
                return push_open(p, track, index);
        return 1;
}

/* ---- the byte filter and yajl ------------------------------------------- */

static const yajl_callbacks callbacks = {
        .yajl_null = on_null,
        .yajl_boolean = on_boolean,
        .yajl_number = on_number,
        .yajl_string = on_string,
        .yajl_start_map = on_start_map,
        .yajl_map_key = on_map_key,
        .yajl_end_map = on_end_map,
        .yajl_start_array = on_start_array,
        .yajl_end_array = on_end_array,
};

int tpa_chrome_parser_new(tpa_chrome_parser **out, tpa_trace *tr,
                          const tpa_read_options *opts, tpa_error *err)
{
        tpa_chrome_parser *p = calloc(1, sizeof(*p));

        if (p == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        p->tr = tr;
        p->max_string = opts != NULL && opts->max_string != 0 ? opts->max_string : 1u << 20;
        p->max_depth = opts != NULL && opts->max_depth != 0 ? opts->max_depth : 64;
        p->strict = opts != NULL && opts->strict;
        p->filter.max_string = p->max_string;
        p->filter.bom_ok = true;
        p->filter.tok.boundary = true;  /* the stream starts between tokens */
        p->tok_snap = p->filter.tok;
        p->first_event = tpa_trace_event_count(tr);
        p->yh = yajl_alloc(&callbacks, NULL, p);
        if (p->yh == NULL) {
                free(p);
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        }
        yajl_config(p->yh, yajl_allow_partial_values, 1);
        yajl_config(p->yh, yajl_dont_validate_strings, 1);
        *out = p;
        return 0;
}

void tpa_chrome_parser_free(tpa_chrome_parser *p)
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
        free(p->compile_memo);
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
                return p->value_end;    /* "null1": one literal to tok_step() */
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
 * say. Whitespace here is what tok_step() counts as such. */
static uint64_t garbage_start(const tpa_chrome_parser *p)
{
        const struct tok_state *t = &p->tok_snap;
        uint64_t q = p->value_end > p->fed ? p->value_end : p->fed;

        /* begun before cur[0] (and after the value): a string or a
         * number that needed the next byte to end; or a run of bytes
         * tok_step() takes for one literal ("null1"), cut at the value's end */
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
                        tpa_error_set(&p->err, TPA_EINTERNAL, offset_now(p), "parse canceled");
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
                uint64_t at = offset_now(p), start;
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
static int parse_bytes(tpa_chrome_parser *p, const unsigned char *data, size_t len,
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

static inline void tok_step(struct tok_state *t, unsigned char c, uint64_t at)
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

/* The token state after stream offset `at` (in cur[]; before cur[0] when
 * `at` is below it). */
static struct tok_state token_at(const tpa_chrome_parser *p, uint64_t at)
{
        struct tok_state t = p->tok_snap;

        for (uint64_t q = p->fed; q <= at && q < p->fed + p->cur_len; q++)
                tok_step(&t, p->cur[q - p->fed], q);
        return t;
}

/* Let a held comma go, as `c` (',', or ' ' when the next byte closes a
 * container) and the spaces after it as spaces. */
static int release_comma(tpa_chrome_parser *p, unsigned char c)
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
                        tok_step(&t, buf[q], p->fed + q);
                if (parse_bytes(p, buf, k, snap, t) < 0)
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
        fail(p, TPA_ELIMIT, p->str_start,
             "a string of %llu bytes is longer than the limit of %llu bytes",
             (unsigned long long)(p->str_raw > p->str_extra ? p->str_raw - p->str_extra : 0),
             (unsigned long long)p->max_string);
        return p->err.code;
}

/* ---- the filter: runs where the byte source produces the bytes ---------- */

static bool is_ws(unsigned char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_punct(unsigned char c)
{
        return c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
}

/* The index of the first `a` or `b` in d[i..len), or len. Speed (bench/):
 * eight bytes at a time where the byte order allows it (strings run long,
 * and the bytes between them hold few of either). */
static inline size_t find2(const unsigned char *d, size_t i, size_t len, unsigned char a,
                           unsigned char b)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        const uint64_t ma = ones * a, mb = ones * b;

        for (; i + 8 <= len; i += 8) {
                uint64_t w, x, y, z;
                memcpy(&w, d + i, 8);
                x = w ^ ma;
                y = w ^ mb;
                /* a zero byte of x or y: the lowest flag is exact (a borrow
                 * only flags bytes above a true zero) */
                z = (((x - ones) & ~x) | ((y - ones) & ~y)) & highs;
                if (z != 0)
                        return i + ((size_t)__builtin_ctzll(z) >> 3);
        }
#endif
        while (i < len && d[i] != a && d[i] != b)
                i++;
        return i;
}

/* The token state before d[pos], as tok_step() over every byte before it
 * would leave it, found from the last token backwards rather than byte by
 * byte (speed, bench/: the filter's per-byte work is then two byte values
 * to find). `t`: the state before d[from]; `f`: the filter at `pos`. Only
 * what token_at()'s readers look at is exact: `boundary` matters only with
 * `literal`, and not at all in a string. */
static struct tok_state tok_before(const struct filter *f, const unsigned char *d, size_t from,
                                   size_t pos, uint64_t base, struct tok_state t)
{
        struct tok_state r = { 0 };
        size_t q = pos, k;
        unsigned char c;

        if (f->in_str) {
                t.in_str = true;
                t.esc = f->esc;
                t.start = f->str_start;
                t.literal = false;
                return t;
        }
        while (q > from && is_ws(d[q - 1]))
                q--;
        if (q == from) {                /* nothing but spaces since `from` */
                if (pos > from)
                        t.boundary = true;
                return t;
        }
        c = d[q - 1];
        r.boundary = true;
        if (c == '"') {
                r.start = f->str_start; /* the string it closes is the last one opened */
        } else if (is_punct(c)) {
                r.start = base + q - 1;
        } else {
                /* a literal: it starts after the byte that ends the run of
                 * literal bytes, or before `from` when t is inside it */
                for (k = q - 1; k > from && !is_ws(d[k - 1]) && !is_punct(d[k - 1]) &&
                                d[k - 1] != '"';
                     k--)
                        ;
                r.start = k == from && t.literal && !t.boundary && !t.in_str ? t.start
                                                                             : base + k;
                r.literal = true;
                r.boundary = q < pos;
        }
        return r;
}

/* The ',' at d[pos] is followed by nothing but spaces up to the chunk's
 * end: it is held, and the next chunk decides it. */
static void hold_comma(struct filter *f, const unsigned char *d, size_t from, size_t pos,
                       uint64_t base, struct tok_state t, struct chunk_note *n)
{
        n->tail = pos;
        n->tail_tok = tok_before(f, d, from, pos, base, t);
        f->comma = true;
        f->comma_at = base + pos;
        f->comma_tok = n->tail_tok;
}

/* A '{', '[', '}' or ']' outside strings, at d[i]: the nesting, and the
 * chunk's cut at the first '{' that opens a map where the events array's
 * records are (in the root array, or in an array that is a value of the
 * root object). Valid JSON is all this must get right: on anything else
 * the parse fails before or at the cut, and a cut where no record starts
 * only makes a segment that its parse refuses (see "two threads"). */
static inline void nest(struct filter *f, struct chunk_note *n, unsigned char c, size_t i)
{
        if (c == '}' || c == ']') {
                if (f->depth > 0)
                        f->depth--;
                return;
        }
        if (c == '{' && n->cut > i && !f->no_cuts &&
            ((f->depth == 1 && f->kind[0] == '[') ||
             (f->depth == 2 && f->kind[0] == '{' && f->kind[1] == '[')))
                n->cut = i;
        if (f->depth < 2)
                f->kind[f->depth] = c;
        f->depth++;
}

static inline bool is_nest(unsigned char c)
{
        return (c & 0xdf) == '[' || (c & 0xdf) == ']';      /* '{' '}' too */
}

/* The nesting over d[i..j), bytes outside strings. */
static void nest_bytes(struct filter *f, struct chunk_note *n, const unsigned char *d, size_t i,
                       size_t j)
{
        for (; i < j; i++)
                if (is_nest(d[i]))
                        nest(f, n, d[i], i);
}

#if defined(__GNUC__)
/* Bit k of *q, *b, *c: d[k] is '"', '\\', ',' (k < 64). */
static inline void block_masks(const unsigned char *d, uint64_t *q, uint64_t *b, uint64_t *c,
                               uint64_t *s)
{
#if defined(__SSE2__)
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), vc = _mm_set1_epi8(',');
        const __m128i low = _mm_set1_epi8(0x20), vo = _mm_set1_epi8('{'), vx = _mm_set1_epi8('}');
        uint64_t mq = 0, mb = 0, mc = 0, ms = 0;

        for (unsigned k = 0; k < 4; k++) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(d + 16 * k));
                __m128i l = _mm_or_si128(v, low);       /* '[' ']' to '{' '}' */
                mq |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << (16 * k);
                mb |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << (16 * k);
                mc |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vc)) << (16 * k);
                ms |= (uint64_t)(uint16_t)_mm_movemask_epi8(
                              _mm_or_si128(_mm_cmpeq_epi8(l, vo), _mm_cmpeq_epi8(l, vx)))
                      << (16 * k);
        }
#else
        /* eight bytes at a time: 0x80 in each byte of x equal to the byte
         * looked for (exactly: no borrow crosses bytes), then the eight
         * flags gathered into one byte by a multiplication */
        const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu;
        const uint64_t gather = 0x0002040810204081u;
        uint64_t mq = 0, mb = 0, mc = 0, ms = 0;

        for (unsigned k = 0; k < 8; k++) {
                uint64_t w, x;
                memcpy(&w, d + 8 * k, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                w = __builtin_bswap64(w);
#endif
#define EQ_BITS(byte) \
        (x = w ^ (ones * (byte)), ((~(((x & low7) + low7) | x) & ~low7) * gather) >> 56)
                mq |= EQ_BITS('"') << (8 * k);
                mb |= EQ_BITS('\\') << (8 * k);
                mc |= EQ_BITS(',') << (8 * k);
                w |= ones * 0x20;                       /* '[' ']' to '{' '}' */
                ms |= (EQ_BITS('{') | EQ_BITS('}')) << (8 * k);
#undef EQ_BITS
        }
#endif
        *q = mq;
        *b = mb;
        *c = mc;
        *s = ms;
}

/* Bit k: the XOR of bits 0..k (with the quotes' mask: inside a string). */
static inline uint64_t prefix_xor(uint64_t x)
{
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        return x;
}

enum { BLOCK_DONE, BLOCK_ESCAPE, BLOCK_HELD };

/* Speed (bench/): the 64 bytes at d[i] at once, when no string can pass
 * max_string in them and no escape is open: which bytes are inside strings
 * comes from a prefix XOR of the quotes' bit mask (simdjson's idea, here
 * without escapes: a block with a '\\' is left to the byte loop), the
 * commas outside strings from their mask. Commas are decided in order, on
 * the bytes as they came, as the byte loop does. */
static int filter_block(struct filter *f, unsigned char *d, size_t i, size_t len,
                        uint64_t base, size_t from, struct tok_state t, struct chunk_note *n)
{
        uint64_t q, b, c, s, inside, opens;

        block_masks(d + i, &q, &b, &c, &s);
        if (b != 0)
                return BLOCK_ESCAPE;
        /* the opening quote counts as inside, the closing one not */
        inside = prefix_xor(q) ^ (f->in_str ? ~(uint64_t)0 : 0);
        opens = q & inside;
        /* nesting first: after a held ',' there are only spaces */
        for (s &= ~inside; s != 0; s &= s - 1) {
                size_t k = (size_t)__builtin_ctzll(s);
                nest(f, n, d[i + k], i + k);
        }
        /* a ',' right before a '"' (before a key, mostly) is no trailing one */
        for (c &= ~inside & ~(q >> 1); c != 0; c &= c - 1) {
                size_t k = (size_t)__builtin_ctzll(c), j;

                for (j = i + k + 1; j < len && is_ws(d[j]); j++)
                        ;
                if (j == len) {
                        uint64_t before = opens & ((UINT64_C(1) << k) - 1);
                        if (before != 0)
                                f->str_start = base + i + 63 - (size_t)__builtin_clzll(before);
                        f->in_str = false;
                        hold_comma(f, d, from, i + k, base, t, n);
                        return BLOCK_HELD;
                }
                if (d[j] == ']' || d[j] == '}')
                        d[i + k] = ' ';
        }
        if (opens != 0)
                f->str_start = base + i + 63 - (size_t)__builtin_clzll(opens);
        if (inside >> 63) {             /* a string runs on past the block */
                if (opens != 0) {
                        f->str_raw = (uint64_t)__builtin_clzll(opens);
                        f->str_extra = 0;
                } else {
                        f->str_raw += 64;
                }
        }
        f->in_str = inside >> 63;
        return BLOCK_DONE;
}
#endif

static void str_skip_from(struct filter *f, struct chunk_note *n, size_t at)
{
        f->str_skip = true;
        f->no_cuts = true;
        n->skip = at;
}

/* String bytes from d[i] on: counted for max_string, up to the closing
 * quote (the index after it is returned) or the chunk's end (len). Once the
 * string is surely too long, n->skip says from where (the byte that made it
 * so); the rest is only counted. */
static size_t scan_string(struct filter *f, const unsigned char *d, size_t i, size_t len,
                          struct chunk_note *n)
{
        for (;;) {
                size_t j;

                if (f->esc) {                   /* the byte after a '\\' */
                        if (i == len)
                                return len;
                        f->esc = false;
                        f->str_extra += d[i] == 'u' ? 5 : 1;   /* \uXXXX: >= 1 byte */
                        if (++f->str_raw > f->str_extra + f->max_string && !f->str_skip)
                                str_skip_from(f, n, i);
                        i++;
                        continue;
                }
                j = find2(d, i, len, '"', '\\');
                if (!f->str_skip && f->str_raw + (j - i) > f->str_extra + f->max_string)
                        str_skip_from(f, n, i + (size_t)(f->str_extra + f->max_string -
                                                         f->str_raw));
                f->str_raw += j - i;
                if (j == len)
                        return len;
                if (d[j] == '"') {
                        f->in_str = false;
                        n->str_closed = f->str_skip;
                        return j + 1;
                }
                f->esc = true;
                if (++f->str_raw > f->str_extra + f->max_string && !f->str_skip)
                        str_skip_from(f, n, j);
                i = j + 1;
        }
}

/* The filter as a tpa_source_transform: rewrites a chunk in place (trailing
 * commas and a BOM to spaces) and notes what the parser needs. A ',' is
 * decided by the next byte that is not a space; when that is in a later
 * chunk, the ',' is left as it is here and held: n->tail, then the next
 * chunk's lead/resolve. */
static void filter_chunk(void *state, uint8_t *d, size_t len, void *note)
{
        static const unsigned char bom[3] = { 0xef, 0xbb, 0xbf };
        struct filter *f = state;
        struct chunk_note *n = note;
        uint64_t base = f->off;
        struct tok_state t = f->tok;
        size_t i = 0, from, bytewise_until = 0;

        n->lead = 0;
        n->resolve = 0;
        n->tail = n->skip = n->cut = len;
        n->str_closed = false;
        f->off += len;
        if (f->str_skip) {
                n->skip = 0;
                scan_string(f, d, 0, len, n);
                goto skipping;
        }
        for (; i < len && base + i < 3 && f->bom_ok; i++) {
                if (d[i] != bom[base + i]) {
                        f->bom_ok = false;
                        break;
                }
                d[i] = ' ';
        }
        if (f->comma) {
                while (i < len && is_ws(d[i]))
                        i++;
                n->lead = i;
                if (i == len)
                        return;                 /* still held */
                n->resolve = d[i] == ']' || d[i] == '}' ? ' ' : ',';
                t = f->comma_tok;
                tok_step(&t, n->resolve, f->comma_at);
                if (base + i > f->comma_at + 1)
                        t.boundary = true;      /* the spaces after it */
                f->comma = false;
        }
        from = n->lead;
        n->tok = t;
        while (i < len) {
                size_t j, k;

#if defined(__GNUC__)
                if (i >= bytewise_until && len - i >= 64 && !f->esc && f->max_string >= 64 &&
                    (!f->in_str || f->str_raw + 64 <= f->str_extra + f->max_string)) {
                        switch (filter_block(f, d, i, len, base, from, t, n)) {
                        case BLOCK_DONE:
                                i += 64;
                                continue;
                        case BLOCK_HELD:
                                return;
                        default:
                                bytewise_until = i + 64;
                                break;
                        }
                }
#endif
                if (f->in_str) {
                        i = scan_string(f, d, i, len, n);
                        if (f->str_skip)
                                goto skipping;
                        continue;
                }
                j = find2(d, i, len, '"', ',');
                nest_bytes(f, n, d, i, j);
                if (j == len)
                        break;
                if (d[j] == '"') {
                        f->in_str = true;
                        f->esc = false;
                        f->str_start = base + j;
                        f->str_raw = f->str_extra = 0;
                        i = j + 1;
                        continue;
                }
                for (k = j + 1; k < len && is_ws(d[k]); k++)
                        ;
                if (k == len) {
                        hold_comma(f, d, from, j, base, t, n);
                        return;
                }
                if (d[k] == ']' || d[k] == '}')
                        d[j] = ' ';
                i = k;
        }
        n->end_tok = f->tok = tok_before(f, d, from, len, base, t);
        return;
skipping:
        n->end_tok = t;                 /* not used: nothing is parsed after it */
        n->str_start = f->str_start;
        n->str_raw = f->str_raw;
        n->str_extra = f->str_extra;
}

/* ---- the parser's side of a filtered chunk ------------------------------ */

/* A ',' the filter held at the chunk's end (n->tail, then only spaces):
 * p holds it for the next chunk, or for finish(). */
static void hold_tail(tpa_chrome_parser *p, const struct chunk_note *n, uint64_t base,
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
static int feed_filtered(tpa_chrome_parser *p, const unsigned char *d, size_t len,
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
                if (release_comma(p, n->resolve) < 0)
                        return p->err.code;
        }
        if (parse_bytes(p, d + n->lead, end - n->lead, n->tok,
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
        hold_tail(p, n, base, len);
        return 0;
}

int tpa_chrome_parser_feed(tpa_chrome_parser *p, const void *data, size_t len,
                           tpa_error *err)
{
        const unsigned char *s = data;
        struct chunk_note n;

        if (p->err.code != TPA_OK)
                return report(p, err);
        /* The filter rewrites in place: a copy of the caller's bytes. */
        while (len > 0) {
                size_t k = len < OUT_SIZE ? len : OUT_SIZE;
                memcpy(p->out, s, k);
                filter_chunk(&p->filter, p->out, k, &n);
                if (feed_filtered(p, p->out, k, &n) < 0)
                        return report(p, err);
                s += k;
                len -= k;
        }
        return 0;
}


static void close_open_events(tpa_chrome_parser *p)
{
        tpa_health *h = tpa_trace_health(p->tr);
        tpa_event *ev = tpa_trace_events_mut(p->tr);

        /* Every slot not on the free list is open; walk the per-track stacks. */
        for (size_t t = 0; t < p->open_top_cap; t++) {
                for (uint32_t s = p->open_top[t]; s != 0; s = p->open[s - 1].below) {
                        size_t i = p->open[s - 1].event;
                        ev[i].dur = p->max_end > ev[i].ts ? p->max_end - ev[i].ts : 0;
                        h->unmatched_begin++;
                        if (tpa_trace_add_flags(p->tr, i, TPA_FLAG_UNCLOSED, NULL) < 0)
                                fail(p, TPA_ENOMEM, 0, "%s", "out of memory");
                }
        }
        if (p->lone_ends > 0)
                tpa_trace_warn(p->tr, p->first_lone_end,
                               "%llu 'E' events have no 'B' before them; they are dropped",
                               (unsigned long long)p->lone_ends);
        if (h->unmatched_begin > 0)
                tpa_trace_warn(p->tr, p->in_off,
                               "%llu 'B' events never end; they are closed at the trace end",
                               (unsigned long long)h->unmatched_begin);
}

int tpa_chrome_parser_finish(tpa_chrome_parser *p, bool truncated, tpa_error *err)
{
        tpa_health *h = tpa_trace_health(p->tr);
        yajl_status st;
        tpa_error e = TPA_ERROR_INIT;
        bool cut = false;

        if (p->err.code != TPA_OK)
                return report(p, err);
        if (p->str_skip) {              /* the input ends inside it */
                str_too_long(p);
                return report(p, err);
        }
        if (p->comma && release_comma(p, ' ') < 0)
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
        if (p->events_depth == 0 && p->top == '{')
                tpa_trace_warn(p->tr, 0, "the trace has no 'traceEvents' array");
        if (p->depth > 0) {
                cut = true;
                if (p->strict) {
                        tpa_error_set(&p->err, TPA_EFORMAT, p->in_off,
                                      p->in_event ? "the trace ends inside a record"
                                                  : "the trace ends without its final ']'");
                        return report(p, err);
                }
                if (p->in_event)
                        tpa_trace_warn(p->tr, p->rec.offset,
                                       "the trace ends inside a record; read the %llu records "
                                       "before it", (unsigned long long)h->records_read);
                else
                        tpa_trace_warn(p->tr, p->in_off,
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
                tpa_trace_warn(p->tr, p->in_off, "the compressed input ends early; read the "
                               "first %llu bytes", (unsigned long long)p->in_off);
        }
        if (cut) {
                h->truncated = true;
                h->truncated_at = p->in_off;
        }
        close_open_events(p);
        if (p->err.code != TPA_OK)
                return report(p, err);
        if (tpa_classify__chrome(p->tr, p->first_event, p->cats, &p->hints, &e) < 0) {
                p->err = e;
                return report(p, err);
        }
        return 0;
}

/* ---- two threads: records read side by side ----------------------------- */

/*
 * yajl is three quarters of the reading thread's instructions, and one yajl
 * reads one byte after the other. So on a source with an inflating thread
 * of its own, the records of the events array are cut into segments that
 * two parsers read side by side, each with its own yajl: this thread's and
 * a worker's. The filter marks in each chunk the first '{' that opens a
 * map where the events array's records are (n->cut); a segment runs from
 * one cut to the next, copied with its held commas decided, so it is the
 * bytes this thread's yajl would see. A collecting parser reads it (from
 * just after a '[' of its own) into a list of records and the strings each
 * would intern, never touching the trace; this thread then adds the
 * records in stream order through finish_event(), interning as it goes,
 * as if its own parser had read them.
 *
 * Who collects: every segment is queued. The worker takes the oldest;
 * this thread takes one whenever it would otherwise wait, for the next
 * chunk (tpa_source_would_wait()) or for a free slot, the head first; the
 * inflating thread takes the oldest while every chunk it may fill is full
 * (tpa_source_set_idle()). Each has its own collecting parser. Speed,
 * bench/: three threads share two CPUs, and before this the worker took
 * at most two while this thread collected the rest itself, so the worker
 * sat idle half the time.
 *
 * A segment whose parse fails for whatever reason (a syntax error, a bad
 * value, the events array ending in it, a cut that starts no record) is
 * read again, in its turn, by this thread's own parser from the same
 * bytes. That parser stands just after the ',' (or the '[') before the
 * segment, as it would have, so the events, warnings and errors, with
 * their offsets, are the ones one thread gives (the reader's result does
 * not depend on how the bytes are cut into chunks: test_chrome_json). It
 * goes on alone until it stands at such a place again.
 *
 * The bytes of a segment and its records are in memory until it is added:
 * at most SEGS segments are in flight; one that grows past SEG_MAX bytes
 * (huge records) ends the splitting until the next cut, and one whose list
 * of records passes SEG_MAX (many tiny records: "{}," is 3 bytes, its
 * entry 150) is read alone. So splitting adds at most 2 * SEGS * SEG_MAX
 * (24 MiB) to what reading alone takes, whatever the input.
 */

#define SEGS          6
#define SEG_MAX       (2u << 20)
#define RECORD_STRS   16        /* strings one collected record may intern */

enum seg_state { SEG_OPEN, SEG_QUEUED, SEG_RUNNING, SEG_OK, SEG_FAILED, SEG_ALONE };

struct segment {
        struct sbuf      bytes;         /* as yajl would see them */
        uint64_t         off;           /* stream offset of bytes.data[0] */
        struct tok_state snap, end;     /* token states before and after the bytes */
        struct sbuf      out;           /* the records collected */
        int              state;         /* enum seg_state; under the lock */
};

struct split {
        tpa_chrome_parser *p;           /* this thread's parser */
        /* collecting: this thread's, the worker's, the inflating thread's */
        tpa_chrome_parser *mine, *theirs, *inflating;
        int                top;         /* p's, when the splitting started */
        uint32_t           events_depth;
        struct segment     seg[SEGS];
        uint64_t           head, tail;  /* the next to add; the open one */
        bool               splitting;
        bool               ready;       /* p stands where segment `head` starts */
        /* a ',' held at the end of the open segment's bytes */
        bool               comma;
        size_t             comma_idx;
        uint64_t           comma_at;
        struct tok_state   comma_tok;

        pthread_t          thread;
        pthread_mutex_t    lock;
        pthread_cond_t     changed;
        bool               stop;
};

/* ---- the collecting side ---- */

static int collect_str(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len)
{
        struct sbuf *b = &p->coll_strs;

        if (p->coll_n == RECORD_STRS)
                return fail(p, TPA_ELIMIT, p->rec.offset, "%s",
                            "too many names in a record to collect; read it alone");
        if (grow((void **)&b->data, &b->cap, b->len + sizeof(len) + len, 1, &p->scratch) < 0)
                return fail_code(p, &p->scratch);
        memcpy(b->data + b->len, &len, sizeof(len));
        if (len > 0)
                memcpy(b->data + b->len + sizeof(len), s, len);
        b->len += sizeof(len) + len;
        *out = ++p->coll_n;
        return 1;
}

/* The record as finish_event() will want it: the struct, the args kept,
 * the strings to intern. */
static int collect_record(tpa_chrome_parser *p)
{
        const struct sbuf *args[ARG_BUFS] = { &p->arg_name, &p->arg_labels, &p->arg_op,
                                              &p->arg_backend };
        struct sbuf *o = p->coll;
        size_t need = sizeof(p->rec) + 1 + sizeof(p->coll_n) + p->coll_strs.len;
        unsigned char flags = 0, *q;

        for (unsigned k = 0; k < ARG_BUFS; k++) {
                if (args[k]->set) {
                        flags |= (unsigned char)(1u << k);
                        need += sizeof(size_t) + args[k]->len;
                }
        }
        if (o->len + need > SEG_MAX)
                return fail(p, TPA_ELIMIT, p->rec.offset, "%s",
                            "too many records in a segment to collect; read it alone");
        if (grow((void **)&o->data, &o->cap, o->len + need, 1, &p->scratch) < 0)
                return fail_code(p, &p->scratch);
        q = (unsigned char *)o->data + o->len;
        memcpy(q, &p->rec, sizeof(p->rec));
        q += sizeof(p->rec);
        *q++ = flags;
        for (unsigned k = 0; k < ARG_BUFS; k++) {
                if (args[k]->set) {
                        memcpy(q, &args[k]->len, sizeof(size_t));
                        q += sizeof(size_t);
                        if (args[k]->len > 0)
                                memcpy(q, args[k]->data, args[k]->len);
                        q += args[k]->len;
                }
        }
        memcpy(q, &p->coll_n, sizeof(p->coll_n));
        q += sizeof(p->coll_n);
        if (p->coll_strs.len > 0)
                memcpy(q, p->coll_strs.data, p->coll_strs.len);
        o->len += need;
        return 1;
}

/* ---- the collecting side: the records as profilers write them ---- */

/*
 * yajl takes a byte at a time through a state machine: 38% of all the CPU
 * of a full run (bench/). So a segment is first read by scan_segment(),
 * which knows only the plain JSON that profilers write (strings with the
 * short escapes, numbers, literals, the four spaces of RFC 8259) and calls
 * the callbacks yajl would call, in the same order, with the same
 * arguments, at the same offsets (offset_now() takes scan_at while yh is
 * NULL). At anything else (a \u escape, '\v' or '\f' between tokens, a
 * control byte in a string, a syntax error, nesting deeper than
 * SCAN_DEPTH, the ']' of the events array) it gives up before calling
 * anything for it, and yajl reads the segment again from its start. So
 * what the scanner reads it reads as yajl does, and what it does not,
 * yajl decides (test_chrome_json compares the two on damaged traces).
 */

#define SCAN_DEPTH 64

enum scan_result { SCAN_OK, SCAN_GIVE_UP, SCAN_FAILED /* a callback failed */ };

static inline size_t scan_ws(const unsigned char *b, size_t i, size_t n)
{
        while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
                i++;
        return i;
}

/* The index of the first '"', '\\' or control byte in b[i..n), or n. */
static inline size_t scan_plain(const unsigned char *b, size_t i, size_t n)
{
#if defined(__SSE2__)
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
        const __m128i v1f = _mm_set1_epi8(0x1f);

        for (; i + 16 <= n; i += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
                __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, vq),
                                                        _mm_cmpeq_epi8(v, vb)),
                                           _mm_cmpeq_epi8(_mm_max_epu8(v, v1f), v1f));
                unsigned m = (unsigned)_mm_movemask_epi8(hit);

                if (m != 0)
                        return i + (size_t)__builtin_ctz(m);
        }
#endif
        while (i < n && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20)
                i++;
        return i;
}

static bool scan_put(tpa_chrome_parser *c, const unsigned char *s, size_t len)
{
        struct sbuf *d = &c->scan_buf;

        if (grow((void **)&d->data, &d->cap, d->len + len + 1, 1, &c->scratch) < 0)
                return false;
        memcpy(d->data + d->len, s, len);
        d->len += len;
        return true;
}

/* The string whose '"' is at b[*i]: its text in *s and *len (decoded into
 * scan_buf when it has escapes, as yajl_string_decode() does), and *i past
 * its closing '"'; its bytes before `from` are plain. false: give up. */
static bool scan_str_rest(tpa_chrome_parser *c, const unsigned char *b, size_t n, size_t *i,
                          const unsigned char **s, size_t *len, size_t from)
{
        size_t start = *i + 1, j = scan_plain(b, from, n);

        if (j < n && b[j] == '"') {
                *s = b + start;
                *len = j - start;
                *i = j + 1;
                return true;
        }
        c->scan_buf.len = 0;
        for (;;) {
                unsigned char e;

                if (j + 1 >= n || b[j] != '\\')
                        return false;           /* the end, or a control byte */
                switch (b[j + 1]) {
                case '"': case '\\': case '/': e = b[j + 1]; break;
                case 'b': e = '\b'; break;
                case 'f': e = '\f'; break;
                case 'n': e = '\n'; break;
                case 'r': e = '\r'; break;
                case 't': e = '\t'; break;
                default: return false;          /* \u, or not an escape */
                }
                if (!scan_put(c, b + start, j - start) || !scan_put(c, &e, 1))
                        return false;
                start = j + 2;
                j = scan_plain(b, start, n);
                if (j < n && b[j] == '"')
                        break;
        }
        if (!scan_put(c, b + start, j - start))
                return false;
        *s = (const unsigned char *)c->scan_buf.data;
        *len = c->scan_buf.len;
        *i = j + 1;
        return true;
}

/* scan_str_rest() where the string ends, with no escape, in the 16 bytes
 * after its '"' (most keys and names), inline: a call per string was a
 * third of its cost. */
static inline bool scan_str(tpa_chrome_parser *c, const unsigned char *b, size_t n, size_t *i,
                            const unsigned char **s, size_t *len)
{
        size_t start = *i + 1;

#if defined(__SSE2__)
        if (start + 16 <= n) {
                const __m128i v1f = _mm_set1_epi8(0x1f);
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + start));
                __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                        _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                           _mm_cmpeq_epi8(_mm_max_epu8(v, v1f), v1f));
                unsigned m = (unsigned)_mm_movemask_epi8(hit);
                size_t j = start + (size_t)__builtin_ctz(m | 0x10000u);

                if (m != 0 && b[j] == '"') {
                        *s = b + start;
                        *len = j - start;
                        *i = j + 1;
                        return true;
                }
                return scan_str_rest(c, b, n, i, s, len, j);
        }
#endif
        return scan_str_rest(c, b, n, i, s, len, start);
}

/* The end of the number at b[i] (yajl's grammar:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or 0: give up, also
 * when it reaches n (yajl would wait for more digits). */
static size_t scan_num(const unsigned char *b, size_t i, size_t n)
{
        size_t k;

        if (i < n && b[i] == '-')
                i++;
        if (i < n && b[i] == '0')
                i++;
        else if (i < n && b[i] >= '1' && b[i] <= '9')
                while (i < n && is_digit((char)b[i]))
                        i++;
        else
                return 0;
        if (i < n && b[i] == '.') {
                for (k = ++i; i < n && is_digit((char)b[i]); i++)
                        ;
                if (i == k)
                        return 0;
        }
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
                i++;
                if (i < n && (b[i] == '+' || b[i] == '-'))
                        i++;
                for (k = i; i < n && is_digit((char)b[i]); i++)
                        ;
                if (i == k)
                        return 0;
        }
        return i < n ? i : 0;
}

/* The length of the literal at b[i] (true, false, null), or 0. */
static size_t scan_lit(const unsigned char *b, size_t i, size_t n)
{
        const char *w = b[i] == 't' ? "true" : b[i] == 'f' ? "false" : "null";
        size_t len = strlen(w);

        return n - i >= len && memcmp(b + i, w, len) == 0 ? len : 0;
}

/* Read b[0..n), the bytes after the events array's '[' or a ',' in it, to
 * a final ',' (collect_segment() saw it), calling c's callbacks. */
static enum scan_result scan_segment(tpa_chrome_parser *c, const unsigned char *b, size_t n)
{
        unsigned char open[SCAN_DEPTH];         /* '{' or '[' by depth; 0: the events array */
        unsigned depth = 0;
        size_t i = 0, j, len;
        const unsigned char *s;

        open[0] = '[';
value:  /* after '[', ':', or ',' in an array */
        i = scan_ws(b, i, n);
        if (i == n)
                return depth == 0 ? SCAN_OK : SCAN_GIVE_UP;
        switch (b[i]) {
        case '{':
        case '[':
                if (++depth == SCAN_DEPTH)
                        return SCAN_GIVE_UP;
                open[depth] = b[i];
                c->scan_at = ++i;
                if (!(open[depth] == '{' ? on_start_map(c) : on_start_array(c)))
                        return SCAN_FAILED;
                i = scan_ws(b, i, n);
                if (i < n && b[i] == open[depth] + 2)   /* '}' or ']' */
                        goto close;
                if (open[depth] == '{')
                        goto key;
                goto value;
        case '"':
                if (!scan_str(c, b, n, &i, &s, &len))
                        return SCAN_GIVE_UP;
                c->scan_at = i;
                if (!on_string(c, s, len))
                        return SCAN_FAILED;
                break;
        case 't':
        case 'f':
        case 'n':
                if ((len = scan_lit(b, i, n)) == 0)
                        return SCAN_GIVE_UP;
                c->scan_at = i += len;
                if (!(len == 4 && b[i - 4] == 'n' ? on_null(c) : on_boolean(c, len == 4)))
                        return SCAN_FAILED;
                break;
        default:
                if ((j = scan_num(b, i, n)) == 0)
                        return SCAN_GIVE_UP;
                c->scan_at = j;
                if (!on_number(c, (const char *)b + i, j - i))
                        return SCAN_FAILED;
                i = j;
                break;
        }
after:  /* a value ended */
        i = scan_ws(b, i, n);
        if (i == n)
                return SCAN_GIVE_UP;
        if (b[i] == ',') {
                i++;
                if (open[depth] == '{')
                        goto key;
                goto value;
        }
close:  /* b[i] must close open[depth], and not the events array */
        if (depth == 0 || b[i] != open[depth] + 2)
                return SCAN_GIVE_UP;
        c->scan_at = ++i;
        if (!(open[depth--] == '{' ? on_end_map(c) : on_end_array(c)))
                return SCAN_FAILED;
        goto after;
key:    /* after '{' or ',' in a map */
        i = scan_ws(b, i, n);
        if (i == n || b[i] != '"' || !scan_str(c, b, n, &i, &s, &len))
                return SCAN_GIVE_UP;
        c->scan_at = i;
        if (!on_map_key(c, s, len))
                return SCAN_FAILED;
        i = scan_ws(b, i, n);
        if (i == n || b[i] != ':')
                return SCAN_GIVE_UP;
        i++;
        goto value;
}

/* c where a segment starts, about to take a '[' of its own at the byte
 * before it, which enters the events array. */
static void collect_start(tpa_chrome_parser *c, const struct split *sp, struct segment *sg)
{
        c->err.code = TPA_OK;
        c->top = sp->top;
        c->events_depth = sp->events_depth;
        c->events_open = true;
        c->depth = sp->events_depth - 1;
        c->top_key = K_TRACE_EVENTS;
        c->key = K_NONE;
        c->in_event = c->in_args = c->in_meta = false;
        c->coll = &sg->out;
        sg->out.len = 0;
        c->fed = sg->off - 1;
}

/* Collect the records of `sg` with `c`: true when all of it parsed as
 * records (or other values) of the events array, up to a final ','. The
 * scanner reads it, or yajl where the scanner gives up. */
static bool collect_segment(tpa_chrome_parser *c, const struct split *sp, struct segment *sg)
{
        static const unsigned char open[1] = { '[' };
        const unsigned char *b = (const unsigned char *)sg->bytes.data;
        size_t n = sg->bytes.len;
        enum scan_result r;
        yajl_status st;
        bool ok;

        while (n > 0 && is_ws(b[n - 1]))
                n--;
        if (n == 0 || b[n - 1] != ',')
                return false;
        collect_start(c, sp, sg);
        c->scan_at = 1;
        if (!on_start_array(c))
                return false;
        c->fed = sg->off;
        r = scan_segment(c, b, sg->bytes.len);
        if (r != SCAN_GIVE_UP)
                return r == SCAN_OK && c->err.code == TPA_OK && c->depth == sp->events_depth &&
                       !c->in_event;

        c->yh = yajl_alloc(&callbacks, NULL, c);
        if (c->yh == NULL)
                return false;
        yajl_config(c->yh, yajl_allow_partial_values, 1);
        yajl_config(c->yh, yajl_dont_validate_strings, 1);
        collect_start(c, sp, sg);
        st = yajl_parse(c->yh, open, 1);
        c->fed = sg->off;
        if (st == yajl_status_ok)
                st = yajl_parse(c->yh, b, sg->bytes.len);
        ok = st == yajl_status_ok && c->err.code == TPA_OK && c->depth == sp->events_depth &&
             !c->in_event;
        yajl_free(c->yh);
        c->yh = NULL;
        return ok;
}

/* The oldest queued segment, under the lock, or NULL (also once the
 * splitting is stopping). */
static struct segment *seg_oldest(struct split *sp)
{
        if (sp->stop)
                return NULL;
        for (uint64_t i = sp->head; i < sp->tail; i++)
                if (sp->seg[i % SEGS].state == SEG_QUEUED)
                        return &sp->seg[i % SEGS];
        return NULL;
}

/* The segment this thread should collect now, under the lock: segment
 * `head` when it is queued (it is added next), else the newest queued (the
 * worker takes the oldest); NULL when none is queued. */
static struct segment *seg_to_help(struct split *sp)
{
        if (sp->head < sp->tail && sp->seg[sp->head % SEGS].state == SEG_QUEUED)
                return &sp->seg[sp->head % SEGS];
        for (uint64_t i = sp->tail; i > sp->head; i--)
                if (sp->seg[(i - 1) % SEGS].state == SEG_QUEUED)
                        return &sp->seg[(i - 1) % SEGS];
        return NULL;
}

/* Collect the segment `pick` chooses under the lock, with `c`, the calling
 * thread's own collecting parser: true if there was one. */
static bool seg_collect(struct split *sp, tpa_chrome_parser *c,
                        struct segment *(*pick)(struct split *))
{
        struct segment *sg;
        bool ok;

        pthread_mutex_lock(&sp->lock);
        if ((sg = pick(sp)) != NULL)
                sg->state = SEG_RUNNING;
        pthread_mutex_unlock(&sp->lock);
        if (sg == NULL)
                return false;
        ok = collect_segment(c, sp, sg);
        pthread_mutex_lock(&sp->lock);
        sg->state = ok ? SEG_OK : SEG_FAILED;
        pthread_cond_broadcast(&sp->changed);
        pthread_mutex_unlock(&sp->lock);
        return true;
}

/* The worker: the oldest queued segment, until the splitting stops. */
static void *worker_main(void *arg)
{
        struct split *sp = arg;
        bool stop = false;

        while (!stop) {
                if (seg_collect(sp, sp->theirs, seg_oldest))
                        continue;
                pthread_mutex_lock(&sp->lock);
                while (!sp->stop && seg_oldest(sp) == NULL)
                        pthread_cond_wait(&sp->changed, &sp->lock);
                stop = sp->stop;
                pthread_mutex_unlock(&sp->lock);
        }
        return NULL;
}

/* ---- this thread's side ---- */

static int add_collected(tpa_chrome_parser *p, const struct sbuf *o)
{
        const unsigned char *q = (const unsigned char *)o->data, *end = q + o->len;
        struct sbuf *args[ARG_BUFS] = { &p->arg_name, &p->arg_labels, &p->arg_op,
                                        &p->arg_backend };
        tpa_str ids[RECORD_STRS + 1];

        ids[0] = TPA_STR_EMPTY;
        while (q < end) {
                struct record r;
                unsigned char flags;
                uint32_t n;

                memcpy(&r, q, sizeof(r));
                q += sizeof(r);
                flags = *q++;
                for (unsigned k = 0; k < ARG_BUFS; k++) {
                        size_t len;
                        args[k]->set = false;
                        if (!(flags & (1u << k)))
                                continue;
                        memcpy(&len, q, sizeof(len));
                        q += sizeof(len);
                        if (!sbuf_set(p, args[k], (const char *)q, len))
                                return p->err.code;
                        q += len;
                }
                memcpy(&n, q, sizeof(n));
                q += sizeof(n);
                p->rec = r;     /* its offset, for intern() */
                for (uint32_t i = 0; i < n; i++) {
                        size_t len;
                        memcpy(&len, q, sizeof(len));
                        q += sizeof(len);
                        if (!intern(p, &ids[i + 1], (const char *)q, len))
                                return p->err.code;
                        q += len;
                }
                p->rec.name = ids[r.name];
                p->rec.cat = ids[r.cat];
                p->rec.pid.str = ids[r.pid.str];
                p->rec.tid.str = ids[r.tid.str];
                p->in_event = false;
                if (!finish_event(p))
                        return p->err.code;
        }
        return 0;
}

/* p stands where a segment may start: in the events array, between
 * records, after `last` (the last byte that is not a space), a ',' or the
 * array's '['. */
static bool stands_ready(const tpa_chrome_parser *p, unsigned char last)
{
        return p->err.code == TPA_OK && !p->comma && !p->str_skip && p->events_open &&
               p->depth == p->events_depth && !p->in_event && (last == ',' || last == '[');
}

static unsigned char last_byte(const unsigned char *d, size_t from, size_t to)
{
        while (to > from && is_ws(d[to - 1]))
                to--;
        return to > from ? d[to - 1] : 0;
}

/* The token state before d[n->cut], from the note's before d[n->lead]. */
static struct tok_state cut_state(const unsigned char *d, const struct chunk_note *n,
                                  uint64_t base)
{
        struct tok_state t = n->tok;

        for (size_t q = n->lead; q < n->cut; q++)
                tok_step(&t, d[q], base + q);
        return t;
}

/* feed_filtered() on the part of a chunk with a cut before or from it
 * (such a chunk has no string skipped). */
static int feed_part(tpa_chrome_parser *p, const unsigned char *d, size_t len,
                     const struct chunk_note *n, uint64_t base, bool before, struct tok_state at)
{
        if (before) {
                if (p->comma) {
                        p->comma_ws += n->lead;
                        if (release_comma(p, n->resolve) < 0)
                                return p->err.code;
                }
                return parse_bytes(p, d + n->lead, n->cut - n->lead, n->tok, at);
        }
        if (parse_bytes(p, d + n->cut, n->tail - n->cut, at,
                        n->tail < len ? n->tail_tok : n->end_tok) < 0)
                return p->err.code;
        hold_tail(p, n, base, len);
        return 0;
}

/* Chunk bytes d[from..to) onto the open segment: from 0 (a ',' held at the
 * open segment's end is decided) or the cut, to the cut or len. */
static int seg_append(struct split *sp, const unsigned char *d, size_t len,
                      const struct chunk_note *n, uint64_t base, size_t from, size_t to,
                      struct tok_state at)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];
        size_t was = sg->bytes.len;
        bool held_on = from == 0 && sp->comma && n->resolve == 0;

        if (grow((void **)&sg->bytes.data, &sg->bytes.cap, was + (to - from), 1,
                 &sp->p->scratch) < 0) {
                fail_code(sp->p, &sp->p->scratch);
                return sp->p->err.code;
        }
        if (from == 0 && sp->comma && n->resolve != 0) {
                sg->bytes.data[sp->comma_idx] = (char)n->resolve;
                sp->comma = false;
        }
        memcpy(sg->bytes.data + was, d + from, to - from);
        sg->bytes.len = was + (to - from);
        if (held_on)
                return 0;               /* spaces after the ',' still held */
        if (to < len) {
                sg->end = at;
        } else if (n->tail < len) {
                sp->comma = true;
                sp->comma_idx = was + (n->tail - from);
                sp->comma_at = base + n->tail;
                sp->comma_tok = n->tail_tok;
        } else {
                sg->end = n->end_tok;
        }
        return 0;
}

static void seg_open(struct split *sp, uint64_t off, struct tok_state snap)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];

        sg->bytes.len = 0;
        sg->off = off;
        sg->snap = snap;
        sg->state = SEG_OPEN;
}

/* Add segment `sg` (done) to the trace: its records when it was collected
 * and p stands ready, else p reads it. */
static int seg_add(struct split *sp, struct segment *sg)
{
        tpa_chrome_parser *p = sp->p;
        const unsigned char *b = (const unsigned char *)sg->bytes.data;
        size_t n = sg->bytes.len;

        if (sg->state == SEG_OK && sp->ready) {
                if (add_collected(p, &sg->out) < 0)
                        return p->err.code;
                p->fed = sg->off + n;
                p->tok_snap = sg->end;
                return 0;
        }
        if (sg->state == SEG_ALONE && sp->comma)
                n = sp->comma_idx;
        if (parse_bytes(p, b, n, sg->snap, sg->state == SEG_ALONE && sp->comma ? sp->comma_tok
                                                                                 : sg->end) < 0)
                return p->err.code;
        if (sg->state == SEG_ALONE && sp->comma) {
                p->comma = true;
                p->comma_at = sp->comma_at;
                p->comma_ws = sg->bytes.len - n - 1;
                p->comma_tok = sp->comma_tok;
                sp->comma = false;
        }
        /* the next one's records are added only where p stands ready */
        sp->ready = stands_ready(p, last_byte(b, 0, n));
        return 0;
}

static bool seg_help(struct split *sp)
{
        return seg_collect(sp, sp->mine, seg_to_help);
}

/* The inflating thread's work while it is ahead (tpa_source_set_idle()). */
static bool seg_help_inflating(void *state)
{
        struct split *sp = state;

        return seg_collect(sp, sp->inflating, seg_oldest);
}

/* Wait until segment `head` is no longer the worker's, or a segment is
 * queued for this thread to help with. */
static void seg_wait(struct split *sp)
{
        struct segment *h = &sp->seg[sp->head % SEGS];

        pthread_mutex_lock(&sp->lock);
        while (h->state == SEG_RUNNING && seg_to_help(sp) == NULL)
                pthread_cond_wait(&sp->changed, &sp->lock);
        pthread_mutex_unlock(&sp->lock);
}

/* Add the segments done, in order; with `all`, every one up to the open
 * one, helping with the queued ones and waiting for the worker's. */
static int seg_drain(struct split *sp, bool all)
{
        while (sp->head < sp->tail) {
                struct segment *sg = &sp->seg[sp->head % SEGS];
                int r, st;

                pthread_mutex_lock(&sp->lock);
                st = sg->state;
                pthread_mutex_unlock(&sp->lock);
                if (st == SEG_QUEUED || st == SEG_RUNNING) {
                        if (!all)
                                return 0;
                        if (!seg_help(sp))
                                seg_wait(sp);
                        continue;
                }
                r = seg_add(sp, sg);
                pthread_mutex_lock(&sp->lock);
                sp->head++;
                pthread_mutex_unlock(&sp->lock);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The open segment is complete (it ends at a cut): queued (see "Who
 * collects" above); then the next one opens at the cut, in a free slot. */
static int seg_close(struct split *sp, uint64_t off, struct tok_state snap)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];

        pthread_mutex_lock(&sp->lock);
        sg->state = SEG_QUEUED;
        sp->tail++;
        pthread_cond_broadcast(&sp->changed);
        pthread_mutex_unlock(&sp->lock);
        /* what is done goes in now; the next one needs a free slot */
        if (seg_drain(sp, false) < 0)
                return sp->p->err.code;
        while (sp->tail - sp->head == SEGS) {
                if (!seg_help(sp))
                        seg_wait(sp);
                if (seg_drain(sp, false) < 0)
                        return sp->p->err.code;
        }
        seg_open(sp, off, snap);
        return 0;
}

/* While the source would make this thread wait for bytes, it collects
 * queued segments and adds what is done. */
static int seg_meanwhile(struct split *sp, tpa_source *src)
{
        while (sp->splitting && tpa_source_would_wait(src) && seg_help(sp))
                if (seg_drain(sp, false) < 0)
                        return sp->p->err.code;
        return 0;
}

/* Stop splitting: the open segment is p's to read, after every other. */
static int seg_stop(struct split *sp)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];
        int r;

        sp->splitting = false;
        pthread_mutex_lock(&sp->lock);
        sg->state = SEG_ALONE;
        sp->tail++;
        pthread_mutex_unlock(&sp->lock);
        r = seg_drain(sp, true);
        sp->comma = false;
        return r;
}

/* Start splitting at the cut of this chunk: p has read up to it. */
static void seg_start(struct split *sp, uint64_t off, struct tok_state snap)
{
        sp->splitting = true;
        sp->ready = true;
        sp->top = sp->p->top;
        sp->events_depth = sp->p->events_depth;
        sp->comma = false;
        seg_open(sp, off, snap);
}

/* One chunk of the source, splitting where it can. */
static int split_chunk(struct split *sp, const unsigned char *d, size_t len,
                       const struct chunk_note *n)
{
        tpa_chrome_parser *p = sp->p;
        uint64_t base = p->in_off;
        struct tok_state at;
        int r;

        if (!sp->splitting) {
                if (n->cut == len || n->skip < len || p->str_skip)
                        return feed_filtered(p, d, len, n);
                at = cut_state(d, n, base);
                p->in_off = base + len;
                if (feed_part(p, d, len, n, base, true, at) < 0)
                        return p->err.code;
                if (stands_ready(p, last_byte(d, n->lead, n->cut))) {
                        seg_start(sp, base + n->cut, at);
                        return seg_append(sp, d, len, n, base, n->cut, len, at);
                }
                return feed_part(p, d, len, n, base, false, at);
        }
        if (n->skip < len || sp->seg[sp->tail % SEGS].bytes.len > SEG_MAX) {
                r = seg_stop(sp);
                return r < 0 ? r : feed_filtered(p, d, len, n);
        }
        p->in_off = base + len;
        if (n->cut == len)
                return seg_append(sp, d, len, n, base, 0, len, n->end_tok);
        at = cut_state(d, n, base);
        if (seg_append(sp, d, len, n, base, 0, n->cut, at) < 0 ||
            seg_close(sp, base + n->cut, at) < 0 ||
            seg_append(sp, d, len, n, base, n->cut, len, at) < 0)
                return p->err.code;
        return 0;
}

static void split_free(struct split *sp, bool started)
{
        if (sp == NULL)
                return;
        if (started) {
                pthread_mutex_lock(&sp->lock);
                sp->stop = true;
                pthread_cond_broadcast(&sp->changed);
                pthread_mutex_unlock(&sp->lock);
                pthread_join(sp->thread, NULL);
        }
        pthread_cond_destroy(&sp->changed);
        pthread_mutex_destroy(&sp->lock);
        for (unsigned i = 0; i < SEGS; i++) {
                free(sp->seg[i].bytes.data);
                free(sp->seg[i].out.data);
        }
        tpa_chrome_parser_free(sp->mine);
        tpa_chrome_parser_free(sp->theirs);
        tpa_chrome_parser_free(sp->inflating);
        free(sp);
}

/* The splitting for p, with its worker running; NULL when either cannot be
 * had (then p reads alone). */
static struct split *split_new(tpa_chrome_parser *p, const tpa_read_options *opts)
{
        struct split *sp = calloc(1, sizeof(*sp));
        tpa_error e = TPA_ERROR_INIT;

        if (sp == NULL)
                return NULL;
        sp->p = p;
        if (pthread_mutex_init(&sp->lock, NULL) != 0) {
                free(sp);
                return NULL;
        }
        if (pthread_cond_init(&sp->changed, NULL) != 0) {
                pthread_mutex_destroy(&sp->lock);
                free(sp);
                return NULL;
        }
        if (tpa_chrome_parser_new(&sp->mine, p->tr, opts, &e) < 0 ||
            tpa_chrome_parser_new(&sp->theirs, p->tr, opts, &e) < 0 ||
            tpa_chrome_parser_new(&sp->inflating, p->tr, opts, &e) < 0) {
                split_free(sp, false);
                return NULL;
        }
        /* collecting parsers make a yajl handle per segment */
        yajl_free(sp->mine->yh);
        yajl_free(sp->theirs->yh);
        yajl_free(sp->inflating->yh);
        sp->mine->yh = sp->theirs->yh = sp->inflating->yh = NULL;
        if (pthread_create(&sp->thread, NULL, worker_main, sp) != 0) {
                split_free(sp, false);
                return NULL;
        }
        return sp;
}

/* ---- the reader --------------------------------------------------------- */

int tpa_chrome__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                     tpa_error *err)
{
        tpa_chrome_parser *p;
        struct split *sp = NULL;
        const uint8_t *data;
        size_t len;
        int r;

        r = tpa_chrome_parser_new(&p, tr, opts, err);
        if (r < 0)
                return r;
        /* The filter runs where the bytes are made: beside inflate when the
         * source has its own thread. It starts where the stream does. */
        p->filter.off = tpa_source_offset(src);
        p->in_off = p->fed = p->filter.off;
        r = tpa_source_set_transform(src, filter_chunk, &p->filter, sizeof(struct chunk_note),
                                     err);
        /* Beside an inflating thread, records are read on two (see "two
         * threads"); a trace in one chunk has nothing to split. */
        if (r == 0 && tpa_source_threaded(src) && (sp = split_new(p, opts)) != NULL)
                tpa_source_set_idle(src, seg_help_inflating, sp);
        while (r == 0) {
                if (sp != NULL && seg_meanwhile(sp, src) < 0) {
                        r = report(p, err);
                        break;
                }
                r = tpa_source_read(src, &data, &len, err);
                if (r < 0 || len == 0)
                        break;
                r = sp != NULL ? split_chunk(sp, data, len, tpa_source_note(src))
                               : feed_filtered(p, data, len, tpa_source_note(src));
                if (r < 0) {
                        report(p, err);
                        break;
                }
                if (opts->progress != NULL)
                        opts->progress(opts->progress_ctx, tpa_source_bytes_in(src),
                                       tpa_source_offset(src));
        }
        /* the segments before a source's error are read before it is */
        if (sp != NULL && sp->splitting && p->err.code == TPA_OK && seg_stop(sp) < 0)
                r = report(p, err);
        if (r == 0)
                r = tpa_chrome_parser_finish(p, tpa_source_truncated(src), err);
        tpa_source_set_transform(src, NULL, NULL, 0, NULL);     /* before p->filter goes */
        tpa_source_set_idle(src, NULL, NULL);                   /* before sp goes */
        split_free(sp, true);
        tpa_chrome_parser_free(p);
        return r;
}
