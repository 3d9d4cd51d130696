/* SPDX-License-Identifier: MIT */
/*
 * chrome_parser.h - (library-internal) the Chrome JSON reader's parser
 * state and the calls its units make of each other: chrome_json.c (yajl,
 * error offsets, feed and finish, the reader), chrome_record.c (keys and
 * values into records, records into events), chrome_filter.c (the byte
 * filter), chrome_split.c (two threads) and chrome_scan.c (the segment
 * scanner). Nothing outside lib/parse/chrome_*.c includes it.
 */
#ifndef TPA_PARSE_CHROME_PARSER_H
#define TPA_PARSE_CHROME_PARSER_H

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "input/readers.h"
#include "parse/chrome_filter.h"
#include "parse/chrome_json.h"
#include "parse/classify.h"

/* The bytes tpa_chrome__parser_feed() copies at a time. */
#define TPA_CHROME_OUT_SIZE 65536
/* Slots of the cache of strings interned (a power of 2). */
#define TPA_CHROME_NAME_CACHE 4096
/* The bits of a name's entry in tpa_chrome_parser's name_memo. */
#define TPA_CHROME_NAME_SEEN    1
#define TPA_CHROME_NAME_COMPILE 2       /* tpa_classify__is_compile_name() */
#define TPA_CHROME_NAME_STEP    4       /* a step's marker, by its prefix */
/* Slots of the cache of pid/tid pairs looked up (a power of 2). */
#define TPA_CHROME_TRACK_CACHE 16
/* A segment's bytes, or its list of collected records, beyond which it is
 * read alone (chrome_split.c). */
#define TPA_CHROME_SEG_MAX (2u << 20)
/* Strings one collected record may intern. */
#define TPA_CHROME_RECORD_STRS 16

/* Keys we act on, at the top level, in an event, in an event's args. */
enum key {
        K_NONE = 0,
        /* top level */
        K_TRACE_EVENTS, K_METADATA, K_KINETO, K_DIST, K_SCHEMA, K_BASE_TIME,
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
 * record has TPA_CHROME_ARG_BUFS of them (name, labels, op, backend). */
#define TPA_CHROME_ARG_BUFS 4
struct sbuf {
        char  *data;
        size_t len, cap;
        bool   set;
};

/* A key as a record had it, `"key":` (its bytes up to the ':'), for the
 * scanner to compare the next record's key at the same place with at
 * once: records of a trace mostly repeat their keys in the same order. */
#define TPA_CHROME_KEY_PLACES 16
#define TPA_CHROME_KEY_TEXT   32
/* Guesses kept at a place: an args map's first key is one of four or five
 * in a TF trace (speed, bench/: with two, they pushed each other out). */
#define TPA_CHROME_KEY_WAYS   4     /* chrome_scan.c compares each by name */
struct key_guess {
        unsigned char text[TPA_CHROME_KEY_TEXT];
        uint32_t      mask;     /* bit k: text[k] counts; 0: no key yet */
        uint8_t       size;     /* the bytes of `"key":` */
        uint8_t       key;      /* an enum key */
};

/* The members a record began with when they were only "ph", "pid" and
 * "tid", the ids no string nor fraction (their bytes up to the next key's
 * '"'), and what they set: the records of a thread begin alike, so the
 * scanner compares a record's first bytes with these at once and sets what
 * they set (chrome_scan.c). Same bytes from a record's start, same values. */
#define TPA_CHROME_HEADS     4
#define TPA_CHROME_HEAD_TEXT 64     /* the bits of a uint64_t mask */
struct record_head {
        unsigned char text[TPA_CHROME_HEAD_TEXT];
        uint64_t      mask;     /* bit k: text[k] counts; 0: none yet */
        uint8_t       size;     /* the bytes up to the next key */
        uint8_t       members;
        char          ph;
        int64_t       pid, tid;
};

/* A string a collecting parser keeps for its record: its bytes, or NULL
 * when they are copied after the record's entry (tpa_chrome_parser's
 * coll_refs). */
struct coll_ref {
        const char *s;
        size_t      len;
};

/* One record as read so far. A new record clears what comes before `ts`
 * (tpa_chrome__new_record()); the values from `ts` on are read only where
 * their has_ flag says they were set. */
struct record {
        uint64_t offset;        /* where its '{' is */
        bool     has_keys;      /* it is no {} */
        char     ph;            /* 0: none; '?': not one character */
        bool     has_ts, has_dur;
        /* args */
        bool     has_sort_index, has_group, has_step, has_corr, has_bytes;
        uint8_t  flags;         /* TPA_FLAG_COMPILE, TPA_FLAG_TF_CALL */
        bool     has_rank, has_world_size;
        uint8_t  op;            /* collected: its op's string number; 0: none */
        tpa_str  name, cat;
        tpa_id   pid, tid;
        /* each as its has_ flag says */
        tpa_ns   ts, dur;
        uint64_t dur_offset;
        int64_t  sort_index, step, rank, world_size;
        uint64_t group, corr, bytes;
};

/* A collected record in the list: the record (read there, from its '{'
 * on), then its strings' coll_refs, then the bytes of its args kept
 * (each its length and bytes, in the order of TPA_CHROME_ARG_BUFS) and of
 * the strings copied, in order; `size` bytes in all, a multiple of 8. */
struct coll_entry {
        struct record rec;
        uint32_t      size;
        uint8_t       strs;     /* coll_refs that follow */
        uint8_t       args;     /* bit k: args buffer k kept */
};

/* An open B event, in a per-track stack threaded through one array. */
struct open_b {
        size_t   event;
        uint32_t track;
        uint32_t below;         /* index + 1 of the entry under it; 0: none */
};

struct tpa_chrome_parser {
        tpa_trace         *tr;
        tpa_health        *health;      /* tr's: looked up once (speed, bench/) */
        yajl_handle        yh;
        tpa_error          err;         /* the first error, kept for later calls */
        /* For the calls on every record's path that fill an error only when
         * they fail: clear until then, and nothing is parsed after it (a
         * TPA_ERROR_INIT local is 250 bytes zeroed per call: 1% of reading). */
        tpa_error          scratch;
        /* The strings interned last, by a hash of their length and ends:
         * names repeat (each op, each kernel, every step), and a hit costs
         * one comparison instead of the UTF-8 check, the full hash and the
         * table's probe. Each with its bytes and length as the trace holds
         * them (they stay put), so that a hit reads nothing else of the
         * trace. Zeroed, a slot is the empty string, right for len 0. */
        struct name_memo {
                const char *s;
                uint32_t    len;
                tpa_str     id;
        } names[TPA_CHROME_NAME_CACHE];
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
        unsigned char      out[TPA_CHROME_OUT_SIZE]; /* tpa_chrome__parser_feed()'s copy */

        /* structure */
        uint32_t           depth;
        int                top;         /* 0: nothing yet, '[' or '{' */
        uint32_t           events_depth; /* depth inside the events array; 0: none */
        bool               events_open; /* ... and it has not ended */
        /* values of the events array that are no record (a number, a
         * string, an array: torch.profiler's export_memory_timeline() JSON
         * is arrays of numbers), their kind and the first one's offset */
        uint64_t           strays, first_stray;
        const char        *stray_kind;
        bool               et_keys;     /* a top-level "nodes": PyTorch's execution trace */
        enum key           top_key;
        bool               in_meta;
        bool               in_event, in_args;
        uint32_t           ev_depth;    /* depth inside the event's map */
        enum key           key;
        /* the record being read: own_rec, or for a collecting parser its
         * entry at the end of the list, where it stays (speed, bench/: two
         * copies of every record), and while collected records are added,
         * each of theirs in turn */
        struct record     *rec;
        struct record      own_rec;
        struct sbuf        arg_name, arg_labels, arg_op, arg_backend;
        /* a collected record's op, where its list keeps it (record's `op`),
         * in place of arg_op: NULL when it has none */
        const char        *coll_op;
        size_t             coll_op_len;
        tpa_classify_hints hints;
        size_t             first_event;

        /* per event 'cat', parallel to the events read by this parser:
         * the first cat_set entries written, the rest empty, so that a
         * trace with no 'cat' (TF's) writes no page of it (speed, bench/:
         * its pages were faulted in for nothing) */
        tpa_str           *cats;
        size_t             cat_count, cat_set, cat_cap;
        /* room to write events in after the last (tpa_trace__event_room()):
         * room_n of them from `room`, which is event room_at (speed, bench/:
         * a call, a zeroed copy and its copy per event) */
        tpa_event         *room;
        size_t             room_n, room_at;

        /* by name (tpa_str): 0 not looked at yet, else TPA_CHROME_NAME_SEEN
         * and what the name is (names repeat: the prefix tests ran once per
         * event) */
        uint8_t           *name_memo;
        size_t             name_cap;

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
        } tracks[TPA_CHROME_TRACK_CACHE];

        /* Collecting (chrome_split.c): a parser that reads a segment of
         * records into `coll` for another to add, never touching tr. Each
         * record's strings to intern go to coll_refs, in the order the
         * record gave them; the record holds their number (1-based) in
         * place of the tpa_str. A string in the segment's bytes,
         * coll_lo..coll_hi, is referred to where it is: they are kept
         * until its records are added. Any other (decoded) is copied to
         * coll_strs. */
        struct sbuf       *coll;
        const char        *coll_lo, *coll_hi;
        struct sbuf        coll_strs;
        struct coll_ref    coll_refs[TPA_CHROME_RECORD_STRS];
        uint32_t           coll_n;
        /* While tpa_chrome__scan_segment() reads (yh is NULL then): the
         * end of the token just read, from `fed`, and the strings it
         * decoded. */
        size_t             scan_at;
        struct sbuf        scan_buf;
        /* The keys the scanner read last at each place of a record's map
         * and of its args' map, the newer first (chrome_scan.c) */
        struct key_guess   guess[2][TPA_CHROME_KEY_PLACES][TPA_CHROME_KEY_WAYS];
        /* ... and the records' heads, the one to replace next */
        struct record_head heads[TPA_CHROME_HEADS];
        unsigned           head_next;
};

/* ---- helpers ------------------------------------------------------------- */

static inline int tpa_chrome__grow(void **ptr, size_t *cap, size_t need, size_t elem,
                                   tpa_error *err)
{
        size_t n = *cap ? *cap : 64;
        void *q;

        if (need <= *cap)
                return 0;
        while (n < need)
                n *= 2;
        q = realloc(*ptr, n * elem);
        if (q == NULL)
                return tpa_error_oom(err);
        *ptr = q;
        *cap = n;
        return 0;
}

/* As tpa_chrome__grow(), with the new part zeroed. */
static inline int tpa_chrome__grow_zero(void **ptr, size_t *cap, size_t need, size_t elem,
                                        tpa_error *err)
{
        size_t old = *cap;

        if (tpa_chrome__grow(ptr, cap, need, elem, err) < 0)
                return TPA_ENOMEM;
        if (*cap > old)
                memset((char *)*ptr + old * elem, 0, (*cap - old) * elem);
        return 0;
}

static inline uint64_t tpa_chrome__offset_now(const tpa_chrome_parser *p)
{
        return p->fed + (p->yh != NULL ? yajl_get_bytes_consumed(p->yh) : p->scan_at);
}

/* Store an error and return 0, which makes yajl cancel the parse. */
int tpa_chrome__fail(tpa_chrome_parser *p, int code, uint64_t offset, const char *fmt, ...)
        TPA_PRINTF(4, 5);

/* Store `inner` as p's error unless it has one; return 0, as
 * tpa_chrome__fail(). */
static inline int tpa_chrome__fail_code(tpa_chrome_parser *p, const tpa_error *inner)
{
        if (p->err.code == TPA_OK)
                p->err = *inner;
        return 0;
}

static inline bool tpa_chrome__is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* ---- chrome_record.c ----------------------------------------------------- */

/* The yajl callbacks, ctx a tpa_chrome_parser; the segment scanner
 * (chrome_scan.c) calls them as yajl would. */
extern const yajl_callbacks tpa_chrome__callbacks;
int tpa_chrome__on_null(void *ctx);
int tpa_chrome__on_boolean(void *ctx, int v);
int tpa_chrome__on_number(void *ctx, const char *s, size_t len);
int tpa_chrome__on_string(void *ctx, const unsigned char *us, size_t len);
int tpa_chrome__on_map_key(void *ctx, const unsigned char *us, size_t len);
int tpa_chrome__on_start_map(void *ctx);
int tpa_chrome__on_end_map(void *ctx);
int tpa_chrome__on_start_array(void *ctx);
int tpa_chrome__on_end_array(void *ctx);
/* Room for a collected record's entry at the end of p's list, or an error
 * (0). */
int tpa_chrome__collect_room(tpa_chrome_parser *p);
/* A record's '{' taken, its depth entered: the record starts afresh, a
 * collecting parser's in a new entry at the end of its list. 0: out of
 * memory (p's error says so). */
static inline int tpa_chrome__new_record(tpa_chrome_parser *p)
{
        if (p->coll != NULL) {
                struct sbuf *o = p->coll;
                if (o->cap - o->len < sizeof(struct coll_entry) && !tpa_chrome__collect_room(p))
                        return 0;
                p->rec = &((struct coll_entry *)(void *)(o->data + o->len))->rec;
        }
        /* only what is read without a has_ flag (speed, bench/: the
         * values too were a third of a record's start) */
        memset(p->rec, 0, offsetof(struct record, ts));
        p->rec->offset = tpa_chrome__offset_now(p) - 1;
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

/* tpa_chrome__on_start_map() at a record's '{' (in the events array, at
 * its depth, in no record), as it would act there, for the scanner (speed,
 * bench/); a record nested too deep fails in tpa_chrome__on_start_map(). */
static inline int tpa_chrome__on_start_record(tpa_chrome_parser *p)
{
        assert(p->events_open && p->depth == p->events_depth && !p->in_event);
        if (p->depth >= p->max_depth)
                return tpa_chrome__on_start_map(p);
        p->depth++;
        return tpa_chrome__new_record(p);
}

/* tpa_chrome__on_start_map() and tpa_chrome__on_end_map() for the args
 * map of a record being read (p->key K_ARGS at the record's level), as
 * they would act there, for the scanner's records read at once (speed,
 * bench/: their tests for the other places of a map were half of their
 * cost); the start fails in tpa_chrome__on_start_map(). */
static inline int tpa_chrome__on_start_args(tpa_chrome_parser *p)
{
        assert(p->in_event && p->depth == p->ev_depth && p->key == K_ARGS);
        if (p->depth >= p->max_depth)
                return tpa_chrome__on_start_map(p);
        p->in_args = true;
        p->depth++;
        return 1;
}

static inline void tpa_chrome__on_end_args(tpa_chrome_parser *p)
{
        assert(p->in_event && p->in_args && p->depth == p->ev_depth + 1);
        p->in_args = false;
        p->depth--;
}

/* What a record's value does, for the scanner's records read at once
 * (chrome_scan.c) and the callbacks alike: the key's kind, then its value
 * for p->key (a string no longer than max_string; a scalar's text at
 * stream offset `at`). */
enum key tpa_chrome__event_key(const char *k, size_t len);
enum key tpa_chrome__args_key(const char *k, size_t len);
int tpa_chrome__event_string(tpa_chrome_parser *p, const char *s, size_t len);
int tpa_chrome__event_scalar(tpa_chrome_parser *p, const char *s, size_t len, uint64_t at);
int tpa_chrome__event_time(tpa_chrome_parser *p, tpa_ns ns, uint64_t at);
void tpa_chrome__event_id(tpa_chrome_parser *p, int64_t v);
int tpa_chrome__args_string(tpa_chrome_parser *p, const char *s, size_t len);
void tpa_chrome__args_scalar(tpa_chrome_parser *p, const char *s, size_t len);
/* For args key p->key, an id (TPA_CHROME_ARGS_U64) given as a string of
 * digits whose value is v: what tpa_chrome__args_string() does with it. */
#define TPA_CHROME_ARGS_U64(k) ((k) == A_GROUP_ID || (k) == A_CORR || (k) == A_BYTES)
void tpa_chrome__args_u64(tpa_chrome_parser *p, uint64_t v);
/* Add the records a collecting parser wrote to `o` (see "two threads" in
 * chrome_split.c) to p's trace, as if p had read them. */
int tpa_chrome__add_collected(tpa_chrome_parser *p, const struct sbuf *o);

/* What a collecting parser does in place of interning a string of its
 * record: keep it, as the record's string number *out (1-based).
 * tpa_chrome__collect_copy() copies it, the out of line way of
 * tpa_chrome__collect_str(), which refers to it where it is when it is
 * in the segment's bytes (speed, bench/: a name on every record). */
int tpa_chrome__collect_copy(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len);
static inline int tpa_chrome__collect_str(tpa_chrome_parser *p, tpa_str *out, const char *s,
                                          size_t len)
{
        uintptr_t at = (uintptr_t)s - (uintptr_t)p->coll_lo;
        uintptr_t span = (uintptr_t)p->coll_hi - (uintptr_t)p->coll_lo;
        struct coll_ref *f = &p->coll_refs[p->coll_n];

        assert(p->coll != NULL);
        if (p->coll_n == TPA_CHROME_RECORD_STRS || at > span || len > span - at)
                return tpa_chrome__collect_copy(p, out, s, len);
        f->s = s;
        f->len = len;
        *out = ++p->coll_n;
        return 1;
}

/* A collecting parser's record ended: its entry in the list, with what
 * finish_event() will want (the struct, the strings to intern, the args
 * kept). */
int tpa_chrome__collect_record(tpa_chrome_parser *p);

/* tpa_chrome__on_end_map() at the '}' of a record a collecting parser
 * reads, as it would act there, for the scanner, which reads for no other
 * (speed, bench/: its tests for the other places and for collecting). */
static inline int tpa_chrome__on_end_collected(tpa_chrome_parser *p)
{
        assert(p->coll != NULL && p->in_event && p->depth == p->ev_depth);
        p->depth--;
        p->in_event = false;
        return tpa_chrome__collect_record(p);
}

/* ---- chrome_json.c ------------------------------------------------------- */

/* yajl takes data[0..len) (see there for `snap` and `end`). */
int tpa_chrome__parse_bytes(tpa_chrome_parser *p, const unsigned char *data, size_t len,
                            struct tok_state snap, struct tok_state end);
/* A held ',' goes to yajl as `c` (',' or ' '), its spaces after it. */
int tpa_chrome__release_comma(tpa_chrome_parser *p, unsigned char c);
/* Hold the ',' the filter held at the chunk's end, if any. */
void tpa_chrome__hold_tail(tpa_chrome_parser *p, const struct chunk_note *n, uint64_t base,
                           size_t len);
/* A filtered chunk and its note to yajl, reading alone. */
int tpa_chrome__feed_filtered(tpa_chrome_parser *p, const unsigned char *d, size_t len,
                              const struct chunk_note *n);

#endif
