/* SPDX-License-Identifier: MIT */
/*
 * xspace.c - the XSpace reader (`*.xplane.pb`, TF >= 2.2): planes, lines and
 * events into the event model, laid out the way TF's trace viewer lays out
 * the same XSpace as `*.trace.json.gz` (xplane_to_trace_events.cc, TF 2.4),
 * so that both files of a session read into the same trace:
 *
 *   plane "/host:CPU"       pid 501, one thread per line (sort index = order)
 *   plane "/device:..."     pid 1 + plane id, one thread per line
 *   other planes            pid 502, 503, ... (the 2.4 viewer leaves them out;
 *                           later viewers show them: /host:CUPTI holds the
 *                           driver's cuStreamSynchronize calls)
 *   line                    tid = display_id, else id (as uint32); its name
 *                           is display_name, else name
 *   event                   time = line.timestamp_ns * 1000 + offset_ps, in ps,
 *                           rounded to ns; name = metadata display_name, else
 *                           name; a 'step_name' stat renames it (TF >= 2.4),
 *                           unless it is a bare number (TF 2.3 kept the name)
 *   stats                   the metadata's stats, then the event's; ref_value
 *                           names a stat_metadata entry
 *
 * The trace viewer skips the internal events (MemoryAllocation, the tf.data
 * Produce and Consume markers), and so do we. Roles and kinds then come from
 * the same TF2 tables the Chrome reader uses (parse/classify.c).
 *
 * The file is read whole but not unpacked whole: protobuf-c's structs for a
 * real profile take ~9x the file (a 260 MiB peak for 29 MB, 912 k events).
 * The planes, lines, events and stats are walked on the wire instead, each
 * event converted as it is met; only the metadata maps go to protobuf-c,
 * one plane at a time. A plane's lines (field 3) come before its maps (4, 5)
 * on the wire, so each plane is walked twice: maps first, then lines.
 * An event of the usual shape takes a fast path that decodes it in one
 * pass and steps over the stats nothing reads; any other event, and every
 * error, is left to the exact walk (decode_event()). In a large input, a
 * second thread walks the large lines ahead (struct ahead), each line's
 * fields and event count, then helps decode their events in chunks; the
 * events are added to the trace on the reader's thread, in wire order.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/readers.h"
#include "model/utf8.h"
#include "parse/classify.h"
#include "parse/pb_arena.h"
#include "parse/pb_trim.h"
#include "xplane.pb-c.h"

/* For the per-event functions that GCC would leave a call per event once
 * they have two callers (read_event() and decode_chunk()). */
#ifdef __GNUC__
#define HOT_INLINE inline __attribute__((always_inline))
#else
#define HOT_INLINE inline
#endif

#define HOST_PID   501
#define OTHER_PID  502
#define TIME_MAX (INT64_C(1) << 61)

/* The stats the Chrome reader reads from 'args', by the same names. */
enum stat_key {
        S_OTHER = 0, S_GROUP_ID, S_STEP_NAME, S_STEP_NUM, S_ITER_NUM, S_CORR,
        S_MEMCPY_DETAILS, S_BYTES, S_ANNOTATION, S_TF_OP, S_TF_FUNCTION_CALL,
};

struct stat_md {
        int64_t        id;
        const char    *name;
        enum stat_key  key;
};

/* What an event's stats say, as the Chrome reader's args would. */
struct record {
        bool        has_group, has_corr, has_bytes, has_step, has_iter, compile, tf_call;
        uint64_t    group, corr, bytes;
        int64_t     step, iter;
        const char *step_name, *op, *tf_op;
        size_t      step_name_len, op_len, tf_op_len;
};

/* What an event's name says: a step number, a compile. */
struct name_facts {
        bool    has_step, compile;
        int64_t step;
};

struct event_md {
        int64_t                     id;
        const Tpapb__XEventMetadata *m;
        tpa_str                     name;       /* interned on first use */
        struct record               rec;        /* what m's stats say, made on first use */
        struct name_facts           facts;      /* what name says, made on first use */
        bool                        interned, has_rec, has_facts;
        bool                        internal;
        bool                        plain;      /* rec and facts add nothing to an event */
};

/* An XStat, from the wire or from protobuf-c's struct (metadata stats). */
struct xstat {
        int64_t     metadata_id;
        uint32_t    value_case;         /* TPAPB__XSTAT__VALUE_*: the last one given */
        uint64_t    u;                  /* uint64, int64 (its bits) or ref value */
        const char *str;                /* str_value, up to its first NUL */
        size_t      str_len;
};

/* An XLine's fields but its events. Strings end at their first NUL, as
 * protobuf-c's C strings do. */
struct xline {
        int64_t     id, display_id, timestamp_ns;
        const char *name, *display_name;
        size_t      name_len, display_name_len;
        size_t      n_events;
};

struct xevent {
        int64_t     metadata_id, offset_ps, duration_ps;
        bool        has_offset;         /* the data oneof holds offset_ps */
        bool        has_times;          /* ts and dur are its times, in range */
        int64_t     ts, dur;
        size_t      n_stats;
        const uint8_t *stats_at;        /* the first stat's tag */
};

/* One field on the wire. */
struct field {
        uint32_t       num;
        uint8_t        type;            /* enum wire */
        uint64_t       u;               /* WIRE_VARINT, WIRE_I64, WIRE_I32 */
        const uint8_t *data;            /* WIRE_LEN: the payload */
        size_t         len;
        const uint8_t *at;              /* its tag, for offsets */
};

/* The bytes of one message, walked field by field. */
struct msg {
        const uint8_t *p, *end;
        const char    *name;            /* "XPlane", for errors */
};

enum wire { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

struct reader {
        tpa_trace        *tr;
        const uint8_t    *base;         /* the file's first byte: offsets count from it */
        const uint8_t    *limit;        /* its end: fast_varint() loads up to it */
        uint64_t          arena_limit;  /* per plane, for its metadata */
        int64_t           other_pid;    /* the next pid for other planes */
        struct stat_md   *stats;        /* the plane's maps, sorted by id */
        size_t            stat_count, stat_cap;
        struct event_md  *events;
        size_t            event_count, event_cap;
        struct stat_md  **stat_by_id;   /* NULL: ids too sparse, bsearch */
        struct event_md **event_by_id;
        size_t            stat_ids, event_ids;      /* entries in the two above */
        bool              stat_read[128];   /* id names a stat apply_stat() reads */
        bool              pid_used[HOST_PID];       /* a process has this pid */
        struct ahead     *ahead;        /* lines walked ahead; NULL: none */
        /* events written in place (add_plain_event(), add_plain_run(),
         * room_add()): room for room_n at `room`, the first room_k
         * written, not yet added (room_close()) */
        tpa_event        *room;
        size_t            room_n, room_k;
        tpa_error        *err;
};

/* The walks (walk_step()) of large lines, done ahead on a second thread
 * while the reader converts the events of the lines before: the walk
 * steps over every event of a line, and is the first touch of its bytes.
 * The walks are kept in wire order, so by address; a line the thread has
 * not walked (a small one, or one whose walk failed) the reader walks
 * itself, so that every error is met where it always was. Small lines
 * would cost more in handing over than the walk, and leaving them out
 * bounds the walks kept by the input's size. The thread walks the line
 * after the reader's first; then it decodes chunks of the reader's line,
 * and walks the lines after in steps while it has none to decode. */
#define AHEAD_MIN      (1u << 20)       /* input bytes below which no thread starts */
#define AHEAD_LINE_MIN (16u << 10)      /* line bytes below which the reader walks it */

/* A large line's events are decoded in chunks of CHUNK events, on
 * both threads (struct slot): what the fast path makes of each event,
 * which the reader then adds to the trace in wire order. The reader
 * takes the next chunk itself, decoding and adding in one go, when
 * the thread has not claimed it; while the thread decodes the next,
 * the reader decodes one after it. At most SLOTS chunks are decoded
 * ahead of the one the reader adds. */
#define CHUNK 1024
#define SLOTS 8
#define ROOM_AHEAD 64   /* events: how far ahead their room is asked for */
#define WALK_STEP  (4 * CHUNK)  /* events the thread walks between looks at chunks */

struct walked {
        const uint8_t  *at;     /* the line's bytes */
        struct xline    xl;
        const uint8_t **bounds; /* where chunk i starts, [n_chunks] the end; NULL: none */
        size_t          n_chunks;
};

/* One event as fast_event() read it, with its times, or `ok` false:
 * the reader reads it again. Enough to add it without loading its bytes,
 * which the reader's CPU has not seen. */
struct decoded {
        const uint8_t *at;      /* its tag */
        int64_t        metadata_id, ts, dur;
        uint16_t       keep_at; /* its kept stats: the slot's keep[keep_at..+n_keep) */
        uint16_t       len;     /* its payload's, at + data_at */
        uint8_t        n_keep, data_at;
        bool           ok;
};

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct slot {
        struct decoded  d[CHUNK];
        struct xstat    keep[CHUNK];
        size_t          n, n_keep;
        bool            whole;  /* false: not decoded to its end; the reader reads it */
        enum slot_state state;  /* under lock */
};

struct ahead {
        pthread_t        thread;
        pthread_mutex_t  lock;
        pthread_cond_t   more;          /* to the reader: a line walked, a chunk decoded */
        pthread_cond_t   work;          /* to the thread: chunks to claim, or stop */
        struct walked   *lines;         /* under lock */
        size_t           count, cap;    /* under lock */
        bool             done, stop;    /* under lock */
        size_t           next;          /* the reader's: lines[next] is next to look at */
        struct reader    r;             /* the thread's: base and limit, its own err */
        tpa_error        err;
        const uint8_t   *data;
        size_t           len;
        /* the line whose chunks are decoded, all under lock but the slots'
         * contents, which belong to whoever marked them busy */
        bool             has_job;
        struct reader    jr;            /* the reader's plane tables, for fast_event() */
        const uint8_t  *const *bounds;
        const uint8_t   *line_end;
        const struct xline *line;
        size_t           n_chunks;
        size_t           next_claim;    /* chunks below are claimed */
        size_t           next_add;      /* chunks below are added to the trace */
        size_t           busy;          /* chunks the thread is decoding */
        struct slot     *slots;         /* [SLOTS]; chunk i in slots[i % SLOTS] */
};

static const char *const internal_events[] = {
        "MemoryAllocation", "MemoryDeallocation",
        "PrefetchProduce", "PrefetchConsume",
        "ParallelInterleaveProduce", "ParallelInterleaveConsume",
        "ParallelInterleaveInitializedInput",
        "ParallelMapProduce", "ParallelMapConsume",
        "MapAndBatchProduce", "MapAndBatchConsume",
        "ParseExampleProduce", "ParseExampleConsume",
        "ParallelBatchProduce", "ParallelBatchConsume",
};

/* ---- the wire format ---------------------------------------------------- */

/* The walker accepts and refuses what protobuf-c 1.4 does (fuzz_xspace.c
 * checks it against tpapb__xspace__unpack on every input):
 *   - a tag is at most 5 bytes, and one whose first byte is 0x00-0x07
 *     (field 0) is bad; field 0 written in more bytes (0x80 0x00) is not,
 *     and is an unknown field like any other;
 *   - a varint is at most 10 bytes, bits past 64 are dropped;
 *   - a length is at most 5 bytes and fits in what is left of the message;
 *   - wire types 0, 1, 2 and 5 only, and a known field has its own;
 *   - a scalar or string given twice keeps the last, a oneof its last member.
 * The messages walked here hold no message field but repeated ones, so
 * protobuf's merging of a message given twice never comes up. */

static int bad(const struct reader *r, const uint8_t *at, const char *what,
               const struct msg *m)
{
        return tpa_error_set(r->err, TPA_EFORMAT, (uint64_t)(at - r->base),
                             "not a valid XSpace protobuf: %s in %s", what, m->name);
}

static int bad_type(const struct reader *r, const struct field *f, const struct msg *m)
{
        return tpa_error_set(r->err, TPA_EFORMAT, (uint64_t)(f->at - r->base),
                             "not a valid XSpace protobuf: field %u of %s has wire "
                             "type %u", (unsigned)f->num, m->name, (unsigned)f->type);
}

/* The next field of `m` into `f`: 1, or 0 at the end, or an error. */
static int wire_next_any(const struct reader *r, struct msg *m, struct field *f)
{
        const uint8_t *p = m->p;
        size_t left = (size_t)(m->end - p), i, k;
        uint32_t num;
        uint64_t v = 0;

        if (left == 0)
                return 0;
        f->at = p;
        if ((p[0] & 0xf8) == 0)
                return bad(r, p, "a field numbered 0", m);
        num = (uint32_t)(p[0] & 0x7f) >> 3;
        for (i = 1; p[i - 1] & 0x80; i++) {
                if (i == 5 || i == left)
                        return bad(r, p, "a bad field tag", m);
                num |= (uint32_t)(p[i] & 0x7f) << (7 * i - 3);
        }
        f->num = num;
        f->type = p[0] & 7;
        p += i;
        left -= i;
        switch (f->type) {
        case WIRE_VARINT:
                for (k = 0; k < left && k < 10; k++) {
                        v |= (uint64_t)(p[k] & 0x7f) << (7 * k);
                        if ((p[k] & 0x80) == 0)
                                break;
                }
                if (k == left || k == 10)
                        return bad(r, p, "an unterminated varint", m);
                f->u = v;
                m->p = p + k + 1;
                return 1;
        case WIRE_I64:
        case WIRE_I32:
                k = f->type == WIRE_I64 ? 8 : 4;
                if (left < k)
                        return bad(r, p, "a fixed-size value cut short", m);
                for (i = k; i-- > 0;)
                        v = v << 8 | p[i];
                f->u = v;
                m->p = p + k;
                return 1;
        case WIRE_LEN:
                for (k = 0; k < left && k < 5; k++) {
                        v |= (uint64_t)(p[k] & 0x7f) << (7 * k);
                        if ((p[k] & 0x80) == 0)
                                break;
                }
                if (k == left || k == 5)
                        return bad(r, p, "a bad length", m);
                if (v > left - k - 1)
                        return bad(r, p, "a length past the end", m);
                f->data = p + k + 1;
                f->len = (size_t)v;
                m->p = f->data + f->len;
                return 1;
        default:
                return tpa_error_set(r->err, TPA_EFORMAT, (uint64_t)(f->at - r->base),
                                     "not a valid XSpace protobuf: wire type %u in %s",
                                     (unsigned)f->type, m->name);
        }
}

/* wire_next_any() for the fields nearly every event is made of: a one-byte
 * tag, then a varint or a length under 128. The rest, and every error, is
 * left to wire_next_any(). */
static inline int wire_next(const struct reader *r, struct msg *m, struct field *f)
{
        const uint8_t *p = m->p, *end = m->end;
        uint64_t v = 0;

        if (p == end)
                return 0;
        if (p[0] < 8 || p[0] >= 0x80)
                return wire_next_any(r, m, f);
        f->at = p;
        f->num = p[0] >> 3;
        f->type = p[0] & 7;
        p++;
        if (f->type == WIRE_VARINT && end - p >= 10) {
                /* no end to watch for: a loop the compiler unrolls */
                for (unsigned i = 0; i < 10; i++) {
                        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                        if (p[i] < 0x80) {
                                f->u = v;
                                m->p = p + i + 1;
                                return 1;
                        }
                }
        } else if (f->type == WIRE_VARINT) {
                for (unsigned shift = 0; p < end && shift < 70; shift += 7, p++) {
                        v |= (uint64_t)(*p & 0x7f) << shift;
                        if (*p < 0x80) {
                                f->u = v;
                                m->p = p + 1;
                                return 1;
                        }
                }
        } else if (f->type == WIRE_LEN && p < end && *p < 0x80 && *p < end - p) {
                f->data = p + 1;
                f->len = *p;
                m->p = f->data + f->len;
                return 1;
        }
        return wire_next_any(r, m, f);
}

/* A length of one or two bytes at *pp (a payload under 16 KiB) whose
 * payload ends by `end`: the payload in *data and *len, *pp past it.
 * False for any other, which wire_next_any() reads or refuses. */
static inline bool wire_short_len(const uint8_t **pp, const uint8_t *end,
                                  const uint8_t **data, size_t *len)
{
        const uint8_t *p = *pp;
        size_t n;

        if (p < end && *p < 0x80 && *p < end - p) {
                *data = p + 1;
                *len = *p;
                *pp = p + 1 + *p;
                return true;
        }
        if (end - p < 2 || p[1] >= 0x80)
                return false;
        n = (p[0] & 0x7f) | (size_t)p[1] << 7;
        if (n > (size_t)(end - p) - 2)
                return false;
        *data = p + 2;
        *len = n;
        *pp = p + 2 + n;
        return true;
}

/* wire_next() for a line's events, nearly all its fields: an XEvent (4)
 * under 16 KiB is taken in one step; false for anything else. */
static inline bool wire_next_event(struct msg *m, struct field *f)
{
        const uint8_t *p = m->p;

        if (p == m->end || p[0] != (4 << 3 | WIRE_LEN))
                return false;
        p++;
        if (!wire_short_len(&p, m->end, &f->data, &f->len))
                return false;
        f->at = m->p;
        f->num = 4;
        f->type = WIRE_LEN;
        m->p = p;
        return true;
}

/* Step over the events wire_next_event() would take at m->p, up to `max`
 * of them; their count. Each step waits on the length it loads, so the
 * bytes well ahead are asked for early. */
static size_t skip_events(struct msg *m, size_t max)
{
        const uint8_t *p = m->p, *q, *data;
        size_t n = 0, len;

        while (n < max && p < m->end && *p == (4 << 3 | WIRE_LEN) &&
               (q = p + 1, wire_short_len(&q, m->end, &data, &len))) {
#ifdef __GNUC__
                __builtin_prefetch(p + 1024);
#endif
                p = q;
                n++;
        }
        m->p = p;
        return n;
}

static struct msg msg_of(const struct field *f, const char *name)
{
        return (struct msg){ .p = f->data, .end = f->data + f->len, .name = name };
}

/* A string field's bytes up to the first NUL (protobuf-c's C string). */
static void wire_str(const struct field *f, const char **s, size_t *len)
{
        const uint8_t *nul = memchr(f->data, 0, f->len);

        *s = (const char *)f->data;
        *len = nul != NULL ? (size_t)(nul - f->data) : f->len;
}

/* Check that a field has the wire type its number calls for (`want`, or
 * -1 for a field this reader does not know: any type is fine). */
static int wire_expect(const struct reader *r, const struct field *f, int want,
                       const struct msg *m)
{
        return want < 0 || f->type == want ? 0 : bad_type(r, f, m);
}

static int read_stat(const struct reader *r, const struct field *at, struct xstat *st)
{
        static const int8_t types[8] = {
                -1, WIRE_VARINT, WIRE_I64, WIRE_VARINT, WIRE_VARINT, WIRE_LEN, WIRE_LEN,
                WIRE_VARINT,
        };
        struct msg m = msg_of(at, "XStat");
        struct field f;
        int rc;

        memset(st, 0, sizeof(*st));
        while ((rc = wire_next(r, &m, &f)) > 0) {
                if ((rc = wire_expect(r, &f, f.num < 8 ? types[f.num] : -1, &m)) < 0)
                        return rc;
                switch (f.num) {
                case 1:
                        st->metadata_id = (int64_t)f.u;
                        break;
                case 5:
                        wire_str(&f, &st->str, &st->str_len);
                        st->value_case = f.num;
                        break;
                case 2: case 3: case 4: case 6: case 7:
                        st->u = f.u;
                        st->value_case = f.num;
                        break;
                }
        }
        return rc;
}

/* ---- metadata ----------------------------------------------------------- */

static bool is_internal_event(const char *name)
{
        for (size_t i = 0; i < sizeof(internal_events) / sizeof(internal_events[0]); i++)
                if (strcmp(name, internal_events[i]) == 0)
                        return true;
        return false;
}

static enum stat_key stat_key_of(const char *n)
{
        static const struct {
                const char   *name;
                enum stat_key key;
        } keys[] = {
                { "group_id", S_GROUP_ID },             { "step_name", S_STEP_NAME },
                { "step_num", S_STEP_NUM },             { "iter_num", S_ITER_NUM },
                { "correlation_id", S_CORR },           { "memcpy_details", S_MEMCPY_DETAILS },
                { "bytes", S_BYTES },                   { "num_bytes", S_BYTES },
                { "annotation", S_ANNOTATION },         { "tf_op", S_TF_OP },
                { "tf_function_call", S_TF_FUNCTION_CALL },
        };

        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                if (strcmp(n, keys[i].name) == 0)
                        return keys[i].key;
        return S_OTHER;
}

static int cmp_stat_md(const void *a, const void *b)
{
        const struct stat_md *x = a, *y = b;
        return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_event_md(const void *a, const void *b)
{
        const struct event_md *x = a, *y = b;
        return x->id < y->id ? -1 : x->id > y->id;
}

static struct stat_md *search_stat(const struct reader *r, int64_t id)
{
        struct stat_md k = { .id = id };
        if (r->stat_count == 0)         /* (bsearch wants a non-NULL array) */
                return NULL;
        return bsearch(&k, r->stats, r->stat_count, sizeof(k), cmp_stat_md);
}

static struct event_md *search_event(const struct reader *r, int64_t id)
{
        struct event_md k = { .id = id };
        if (r->event_count == 0)
                return NULL;
        return bsearch(&k, r->events, r->event_count, sizeof(k), cmp_event_md);
}

static const struct stat_md *find_stat(const struct reader *r, int64_t id)
{
        if (r->stat_by_id != NULL)
                return id >= 0 && (uint64_t)id < r->stat_ids ? r->stat_by_id[id] : NULL;
        return search_stat(r, id);
}

static struct event_md *find_event(const struct reader *r, int64_t id)
{
        if (r->event_by_id != NULL)
                return id >= 0 && (uint64_t)id < r->event_ids ? r->event_by_id[id] : NULL;
        return search_event(r, id);
}

/* The ids TF writes are 1..n (0 for the plane's own stats): a table from
 * id to entry saves a binary search per stat and per event. It is filled
 * by that same search, so that with an id listed twice it finds the very
 * entry bsearch would. Sparse or negative ids keep the search. */
static int index_metadata(struct reader *r)
{
        int64_t smax = -1, emax = -1;
        bool sok = true, eok = true;

        free(r->stat_by_id);
        free(r->event_by_id);
        r->stat_by_id = NULL;
        r->event_by_id = NULL;
        if (r->stat_count > 1)          /* (qsort wants a non-NULL array) */
                qsort(r->stats, r->stat_count, sizeof(*r->stats), cmp_stat_md);
        if (r->event_count > 1)
                qsort(r->events, r->event_count, sizeof(*r->events), cmp_event_md);
        for (size_t i = 0; i < r->stat_count; i++) {
                sok &= r->stats[i].id >= 0;
                smax = r->stats[i].id > smax ? r->stats[i].id : smax;
        }
        for (size_t i = 0; i < r->event_count; i++) {
                eok &= r->events[i].id >= 0;
                emax = r->events[i].id > emax ? r->events[i].id : emax;
        }
        if (sok && r->stat_count > 0 && (uint64_t)smax < 4 * (uint64_t)r->stat_count + 256) {
                r->stat_ids = (size_t)smax + 1;
                if ((r->stat_by_id = calloc(r->stat_ids, sizeof(*r->stat_by_id))) == NULL)
                        return tpa_error_oom(r->err);
                for (size_t i = 0; i < r->stat_count; i++)
                        r->stat_by_id[r->stats[i].id] = search_stat(r, r->stats[i].id);
        }
        if (eok && r->event_count > 0 &&
            (uint64_t)emax < 4 * (uint64_t)r->event_count + 256) {
                r->event_ids = (size_t)emax + 1;
                if ((r->event_by_id = calloc(r->event_ids, sizeof(*r->event_by_id))) == NULL)
                        return tpa_error_oom(r->err);
                for (size_t i = 0; i < r->event_count; i++)
                        r->event_by_id[r->events[i].id] = search_event(r, r->events[i].id);
        }
        for (int64_t id = 0; id < 128; id++) {
                const struct stat_md *md = find_stat(r, id);
                r->stat_read[id] = md != NULL && md->key != S_OTHER;
        }
        return 0;
}

/* Room for one more entry in a growing array. */
static int reserve(const struct reader *r, void **arr, size_t *cap, size_t count,
                   size_t size)
{
        size_t n = *cap != 0 ? *cap * 2 : 64;
        void *p;

        if (count < *cap)
                return 0;
        if ((p = realloc(*arr, n * size)) == NULL)
                return tpa_error_oom(r->err);
        *arr = p;
        *cap = n;
        return 0;
}

static int unpack_failed(const struct reader *r, const tpa_pb_arena *arena,
                         const struct field *f, const char *what)
{
        if (arena->hit_limit)
                return tpa_error_set(r->err, TPA_ELIMIT, (uint64_t)(f->at - r->base),
                                     "the XSpace needs more memory than the limit allows");
        return tpa_error_set(r->err, TPA_EFORMAT, (uint64_t)(f->at - r->base),
                             "not a valid XSpace protobuf: a bad %s entry in XPlane", what);
}

/* Unpack one entry of a plane's metadata maps (in wire order, as protobuf-c
 * would list them) into the arena. */
static int add_metadata(struct reader *r, tpa_pb_arena *arena, const struct field *f)
{
        int rc;

        if (f->num == 4) {
                Tpapb__XEventMetadataEntry *e;
                struct event_md *md;

                e = tpapb__xevent_metadata_entry__unpack(&arena->alloc, f->len, f->data);
                if (e == NULL)
                        return unpack_failed(r, arena, f, "event_metadata");
                rc = reserve(r, (void **)&r->events, &r->event_cap, r->event_count,
                             sizeof(*r->events));
                if (rc < 0)
                        return rc;
                md = &r->events[r->event_count++];
                memset(md, 0, sizeof(*md));
                md->id = e->key;
                md->m = e->value;
                md->internal = e->value != NULL && is_internal_event(e->value->name);
        } else {
                Tpapb__XStatMetadataEntry *e;
                struct stat_md *s;

                e = tpapb__xstat_metadata_entry__unpack(&arena->alloc, f->len, f->data);
                if (e == NULL)
                        return unpack_failed(r, arena, f, "stat_metadata");
                rc = reserve(r, (void **)&r->stats, &r->stat_cap, r->stat_count,
                             sizeof(*r->stats));
                if (rc < 0)
                        return rc;
                s = &r->stats[r->stat_count++];
                s->id = e->key;
                s->name = e->value != NULL ? e->value->name : "";
                s->key = stat_key_of(s->name);
        }
        return 0;
}

/* ---- stats -------------------------------------------------------------- */

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static bool all_digits(const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (!is_digit(s[i]))
                        return false;
        return true;
}

static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
        uint64_t v = 0;

        if (len == 0 || len > 20)
                return false;
        for (size_t i = 0; i < len; i++) {
                if (!is_digit(s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
                        return false;
                v = v * 10 + (uint64_t)(s[i] - '0');
        }
        *out = v;
        return true;
}

/* A stat's value as an unsigned number: ints as they are, strings parsed
 * (the JSON writer prints every arg as a string). */
static bool stat_u64(const struct xstat *st, uint64_t *out)
{
        switch (st->value_case) {
        case TPAPB__XSTAT__VALUE_UINT64_VALUE:
                *out = st->u;
                return true;
        case TPAPB__XSTAT__VALUE_INT64_VALUE:
                if ((int64_t)st->u < 0)
                        return false;
                *out = st->u;
                return true;
        case TPAPB__XSTAT__VALUE_STR_VALUE:
                return parse_u64(st->str, st->str_len, out);
        default:
                return false;
        }
}

static bool stat_i64(const struct xstat *st, int64_t *out)
{
        uint64_t u;

        if (st->value_case == TPAPB__XSTAT__VALUE_INT64_VALUE) {
                *out = (int64_t)st->u;
                return true;
        }
        if (!stat_u64(st, &u) || u > INT64_MAX)
                return false;
        *out = (int64_t)u;
        return true;
}

/* A stat's value as text, for string stats and references; false otherwise. */
static bool stat_str(const struct reader *r, const struct xstat *st, const char **s,
                     size_t *len)
{
        const struct stat_md *ref;

        if (st->value_case == TPAPB__XSTAT__VALUE_STR_VALUE) {
                *s = st->str;
                *len = st->str_len;
                return true;
        }
        if (st->value_case == TPAPB__XSTAT__VALUE_REF_VALUE) {
                ref = st->u <= INT64_MAX ? find_stat(r, (int64_t)st->u) : NULL;
                if (ref == NULL)
                        return false;
                *s = ref->name;
                *len = strlen(ref->name);
                return true;
        }
        return false;
}

/* `pat` in the `len` bytes at `s` (C11 and POSIX have no memmem). */
static const char *find(const char *s, size_t len, const char *pat)
{
        size_t n = strlen(pat);

        for (size_t i = 0; i + n <= len; i++)
                if (s[i] == pat[0] && memcmp(s + i, pat, n) == 0)
                        return s + i;
        return NULL;
}

/* The byte count in memcpy_details: "size:100663296 dest:0 async:1"
 * (older: "num_bytes:..."). */
static void memcpy_bytes(struct record *rec, const char *s, size_t len)
{
        const char *p = find(s, len, "size:");
        size_t k = 0;

        if (p == NULL && (p = find(s, len, "num_bytes:")) != NULL)
                p += 5;
        if (p == NULL)
                return;
        p += 5;
        while (p + k < s + len && is_digit(p[k]))
                k++;
        rec->has_bytes = parse_u64(p, k, &rec->bytes);
}

static void apply_stat(const struct reader *r, struct record *rec, const struct xstat *st)
{
        const struct stat_md *md = find_stat(r, st->metadata_id);
        const char *s;
        size_t len;

        if (md == NULL || st->value_case == TPAPB__XSTAT__VALUE__NOT_SET)
                return;
        switch (md->key) {
        case S_GROUP_ID:
                rec->has_group = stat_u64(st, &rec->group);
                break;
        case S_CORR:
                rec->has_corr = stat_u64(st, &rec->corr);
                break;
        case S_BYTES:
                rec->has_bytes = stat_u64(st, &rec->bytes);
                break;
        case S_STEP_NUM:
                rec->has_step = stat_i64(st, &rec->step);
                break;
        case S_ITER_NUM:
                rec->has_iter = stat_i64(st, &rec->iter);
                break;
        case S_STEP_NAME:
                if (stat_str(r, st, &s, &len)) {
                        rec->step_name = s;
                        rec->step_name_len = len;
                }
                break;
        case S_MEMCPY_DETAILS:
                if (stat_str(r, st, &s, &len))
                        memcpy_bytes(rec, s, len);
                break;
        case S_ANNOTATION:
                if (stat_str(r, st, &s, &len)) {
                        rec->op = s;
                        rec->op_len = tpa_classify__op_prefix(s, len);
                }
                break;
        case S_TF_OP:
                if (stat_str(r, st, &s, &len)) {
                        rec->tf_op = s;
                        rec->tf_op_len = tpa_classify__op_prefix(s, len);
                }
                break;
        case S_TF_FUNCTION_CALL:
                rec->tf_call = true;
                if (stat_str(r, st, &s, &len) && tpa_classify__is_traced_call(s, len))
                        rec->compile = true;
                break;
        case S_OTHER:
                break;
        }
}

/* A metadata stat (protobuf-c's struct) as the wire walker gives them. */
static void apply_md_stat(const struct reader *r, struct record *rec, const Tpapb__XStat *ps)
{
        struct xstat st = { .metadata_id = ps->metadata_id, .value_case = ps->value_case };

        switch (ps->value_case) {
        case TPAPB__XSTAT__VALUE_UINT64_VALUE:
                st.u = ps->uint64_value;
                break;
        case TPAPB__XSTAT__VALUE_INT64_VALUE:
                st.u = (uint64_t)ps->int64_value;
                break;
        case TPAPB__XSTAT__VALUE_REF_VALUE:
                st.u = ps->ref_value;
                break;
        case TPAPB__XSTAT__VALUE_STR_VALUE:
                st.str = ps->str_value;
                st.str_len = strlen(ps->str_value);
                break;
        default:
                break;
        }
        apply_stat(r, rec, &st);
}

/* ---- events ------------------------------------------------------------- */

/* An event's fields but its stats, which read_event() walks again once it
 * knows the metadata (whose stats come first). */
static int walk_event(const struct reader *r, const struct field *at, struct xevent *xe)
{
        struct msg m = msg_of(at, "XEvent");
        struct field f;
        int rc;

        memset(xe, 0, sizeof(*xe));
        while ((rc = wire_next(r, &m, &f)) > 0) {
                if ((rc = wire_expect(r, &f, f.num == 4 ? WIRE_LEN
                                              : f.num >= 1 && f.num <= 5 ? WIRE_VARINT : -1,
                                      &m)) < 0)
                        return rc;
                switch (f.num) {
                case 1:
                        xe->metadata_id = (int64_t)f.u;
                        break;
                case 2:
                        xe->offset_ps = (int64_t)f.u;
                        xe->has_offset = true;
                        break;
                case 3:
                        xe->duration_ps = (int64_t)f.u;
                        break;
                case 4:
                        if (xe->n_stats++ == 0)
                                xe->stats_at = f.at;
                        break;
                case 5:                 /* num_occurrences: the other member of the oneof */
                        xe->has_offset = false;
                        break;
                }
        }
        return rc;
}

static void name_facts_of(const tpa_trace *tr, tpa_str name, struct name_facts *nf)
{
        const char *n = tpa_trace_str(tr, name);
        size_t nl = tpa_trace_str_len(tr, name);

        nf->has_step = false;
        if ((nl > 13 && memcmp(n, "ProfilerStep#", 13) == 0) ||
            (nl > 6 && (memcmp(n, "train ", 6) == 0 || memcmp(n, "test ", 5) == 0)) ||
            (nl > 15 && memcmp(n, "Profiled batch ", 15) == 0))
                nf->has_step = tpa_classify__step_from_name(n, nl, &nf->step);
        nf->compile = tpa_classify__is_compile_name(n, nl);
}

/* Whether a record and name facts leave an event as it is: no extras, no
 * flags, no new name. */
static bool is_plain(const struct record *rec, const struct name_facts *nf)
{
        const char *op = rec->tf_op != NULL ? rec->tf_op : rec->op;
        size_t op_len = rec->tf_op != NULL ? rec->tf_op_len : rec->op_len;

        return !rec->has_bytes && !rec->has_step && !rec->has_iter && !rec->compile &&
               !rec->tf_call && rec->step_name == NULL && (op == NULL || op_len == 0) &&
               !nf->has_step && !nf->compile;
}

/* An event's start and duration in ns; false if out of range. */
static inline bool event_times(const struct xline *line, const struct xevent *xe,
                               int64_t *ts, int64_t *dur)
{
        int64_t ps;

        /* line.timestamp_ns * 1000 + offset_ps, in ps, rounded to ns: the
         * line starts on a whole ns, so round the offset alone (and nothing
         * overflows for epoch times). Beyond +-2^61 ns is garbage. */
        ps = xe->has_offset ? xe->offset_ps : 0;
        if (line->timestamp_ns < -TIME_MAX || line->timestamp_ns > TIME_MAX ||
            ps < -TIME_MAX || ps > TIME_MAX || xe->duration_ps > TIME_MAX)
                return false;
        *ts = line->timestamp_ns + (ps >= 0 ? (ps + 500) / 1000 : -((-ps + 499) / 1000));
        *dur = xe->duration_ps > 0 ? (xe->duration_ps + 500) / 1000 : 0;
        return true;
}

/* An event's track and ids, from its record. */
static inline void set_ids(uint32_t track, const struct record *rec, tpa_event *ev)
{
        ev->track = track;
        ev->kind = TPA_KIND_OTHER;
        ev->corr = rec->has_corr && rec->corr <= UINT32_MAX ? (uint32_t)rec->corr : 0;
        ev->group = rec->has_group && rec->group < UINT32_MAX ? (uint32_t)rec->group + 1 : 0;
}

/* An event's times, track and ids, all but its name. */
static inline int set_event(const struct reader *r, uint32_t track, const struct xline *line,
                            const struct field *at, const struct xevent *xe,
                            const struct record *rec, tpa_event *ev)
{
        if (xe->has_times) {
                ev->ts = xe->ts;
                ev->dur = xe->dur;
        } else if (!event_times(line, xe, &ev->ts, &ev->dur)) {
                return tpa_error_set(r->err, TPA_EFORMAT, (uint64_t)(at->at - r->base),
                                     "an event on line '%.*s' has a time out of range",
                                     (int)(line->name_len < 60 ? line->name_len : 60),
                                     line->name);
        }
        set_ids(track, rec, ev);
        return 0;
}

/* Add the events written in the room (add_plain_event()), which then
 * has no more: before anything else adds to the trace. */
static void room_close(struct reader *r)
{
        if (r->room_k > 0)
                tpa_trace__commit_events(r->tr, r->room_k);
        r->room = NULL;
        r->room_n = r->room_k = 0;
}

/* Add event *ev, after those written in the room, through the room when
 * it has some left (speed, bench/: no call to add it, and the room stays
 * for the plain events after); its index in *idx. Everything written is
 * added, so that extras may follow. */
static int room_add(struct reader *r, const tpa_event *ev, size_t *idx)
{
        if (r->room_k == r->room_n) {
                room_close(r);
                return tpa_trace__add_event(r->tr, ev, idx, r->err);
        }
        r->room[r->room_k++] = *ev;
        tpa_trace__commit_events(r->tr, r->room_k);
        *idx = tpa_trace_event_count(r->tr) - 1;
        r->room += r->room_k;
        r->room_n -= r->room_k;
        r->room_k = 0;
        return 0;
}

/* add_event() for an event of plain metadata (md->plain) that its stats
 * add nothing to: nothing but the event itself, written in place (speed,
 * bench/: most events of a TF2 profile are such). With no room left
 * (max_events, or memory short) it is added as usual, which fails or
 * grows the room. */
static inline int add_plain_event(struct reader *r, uint32_t track, const struct xline *line,
                                  const struct field *at, const struct xevent *xe,
                                  const struct event_md *md, size_t *added)
{
        tpa_event *ev, one;
        int rc;

        if (r->room_k == r->room_n) {
                room_close(r);
                r->room = tpa_trace__event_room(r->tr, &r->room_n);
        }
        ev = r->room_k < r->room_n ? &r->room[r->room_k] : &one;
        ev->name = md->name;            /* set_event() sets the rest */
        if ((rc = set_event(r, track, line, at, xe, &md->rec, ev)) < 0)
                return rc;
        if (ev != &one)
                r->room_k++;
        else if ((rc = tpa_trace__add_event(r->tr, ev, NULL, r->err)) < 0)
                return rc;
        (*added)++;
        return 0;
}

static int add_event(struct reader *r, uint32_t track, const struct xline *line,
                     const struct field *at, const struct xevent *xe, struct event_md *md,
                     const struct record *rec, size_t *added)
{
        tpa_trace *tr = r->tr;
        struct name_facts own, *nf = &own;
        tpa_event ev;
        size_t idx;
        int64_t step;
        bool has_step;
        int rc;

        memset(&ev, 0, sizeof(ev));
        if (md != NULL && !md->interned && md->m != NULL) {
                const char *n = md->m->display_name[0] != '\0' ? md->m->display_name
                                                                : md->m->name;
                rc = tpa_utf8__intern(tr, &md->name, n, strlen(n), 0, r->err);
                if (rc < 0)
                        return rc;
                md->interned = true;
        }
        ev.name = md != NULL ? md->name : TPA_STR_EMPTY;
        /* TF >= 2.4 renames an event by its step_name ("train 12"); 2.3 did
         * not. A bare group number says less than the event's own name
         * ("EagerKernelExecute"), so that one is left alone. */
        if (rec->step_name != NULL && !all_digits(rec->step_name, rec->step_name_len)) {
                rc = tpa_utf8__intern(tr, &ev.name, rec->step_name, rec->step_name_len, 0,
                                      r->err);
                if (rc < 0)
                        return rc;
        }
        if ((rc = set_event(r, track, line, at, xe, rec, &ev)) < 0)
                return rc;
        if ((rc = room_add(r, &ev, &idx)) < 0)
                return rc;
        (*added)++;
        if (rec->has_bytes &&
            (rc = tpa_trace__set_aux(tr, idx, TPA_AUX_BYTES, (int64_t)(rec->bytes & INT64_MAX),
                                     r->err)) < 0)
                return rc;
        /* The JSON writer sorts args by key, and the Chrome reader keeps the
         * last: step_num over iter_num, tf_op over annotation. */
        /* the metadata's name says the same for each of its events */
        if (md != NULL && ev.name == md->name) {
                if (!md->has_facts) {
                        name_facts_of(tr, md->name, &md->facts);
                        md->has_facts = true;
                        md->plain = md->has_rec && is_plain(&md->rec, &md->facts);
                }
                nf = &md->facts;
        } else {
                name_facts_of(tr, ev.name, &own);
        }
        has_step = rec->has_step || rec->has_iter;
        step = rec->has_step ? rec->step : rec->iter;
        if (!has_step && nf->has_step) {
                has_step = true;
                step = nf->step;
        }
        if (has_step && (rc = tpa_trace__set_aux(tr, idx, TPA_AUX_STEP_NUM, step, r->err)) < 0)
                return rc;
        {
                const char *op = rec->tf_op != NULL ? rec->tf_op : rec->op;
                size_t op_len = rec->tf_op != NULL ? rec->tf_op_len : rec->op_len;
                tpa_str id;
                if (op != NULL && op_len > 0) {
                        if ((rc = tpa_utf8__intern(tr, &id, op, op_len, 0, r->err)) < 0 ||
                            (rc = tpa_trace__set_aux(tr, idx, TPA_AUX_OP, id, r->err)) < 0)
                                return rc;
                }
        }
        if ((rec->compile || nf->compile || rec->tf_call) &&
            (rc = tpa_trace__add_flags(tr, idx,
                                       (rec->compile || nf->compile ? TPA_FLAG_COMPILE : 0) |
                                       (rec->tf_call ? TPA_FLAG_TF_CALL : 0), r->err)) < 0)
                return rc;
        return 0;
}

/* ---- the fast path ------------------------------------------------------ */

/* Most events are a few varints and a few small stats behind one-byte
 * tags. The fast path decodes that shape in one pass and gives up on
 * anything else, valid or not, leaving it to the exact path
 * (decode_event()), which says what is wrong and where. It accepts
 * nothing that path refuses and reads what it accepts the same way. */

/* The stats of one event the fast path keeps for apply_stat(): those that
 * name a stat it reads. More and the event takes the exact path. */
#define FAST_STATS 8

/* A varint at *pp that ends before `end` and within 10 bytes, read as
 * wire_next() reads it; false if it does not (the exact path says why).
 * Bytes up to `limit` (the input's end) may be loaded, not used. */
static inline bool fast_varint(const uint8_t **pp, const uint8_t *end, const uint8_t *limit,
                               uint64_t *out)
{
        const uint8_t *p = *pp;
        uint64_t v = 0;

        if (p < end && *p < 0x80) {
                *out = *p;
                *pp = p + 1;
                return true;
        }
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (limit - p >= 10) {
                /* 8 bytes at once: the first byte without its top bit ends
                 * the varint; the 7-bit groups below it are packed together
                 * in three steps of shifts and masks */
                uint64_t w, stops;
                size_t n;

                memcpy(&w, p, 8);
                stops = ~w & 0x8080808080808080u;
                w &= (stops ^ (stops - 1)) & 0x7f7f7f7f7f7f7f7fu;
                w = ((w & 0x7f007f007f007f00u) >> 1) | (w & 0x007f007f007f007fu);
                w = ((w & 0x3fff00003fff0000u) >> 2) | (w & 0x00003fff00003fffu);
                w = ((w & 0x0fffffff00000000u) >> 4) | (w & 0x000000000fffffffu);
                if (stops != 0) {
                        n = (size_t)__builtin_ctzll(stops) / 8 + 1;
                } else {                /* 9 or 10 bytes: 64-bit ids */
                        w |= (uint64_t)(p[8] & 0x7f) << 56;
                        n = 9;
                        if (p[8] >= 0x80) {
                                if (p[9] >= 0x80)
                                        return false;
                                w |= (uint64_t)p[9] << 63;
                                n = 10;
                        }
                }
                if (n > (size_t)(end - p))
                        return false;
                *out = w;
                *pp = p + n;
                return true;
        }
#endif
        (void)limit;
        for (unsigned i = 0; i < 10 && p + i < end; i++) {
                v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                if (p[i] < 0x80) {
                        *out = v;
                        *pp = p + i + 1;
                        return true;
                }
        }
        return false;
}

/* One XStat, as read_stat() reads it. */
static bool fast_stat(const uint8_t *p, const uint8_t *end, const uint8_t *limit,
                      struct xstat *st)
{
        const uint8_t *data;
        size_t len;
        uint64_t v;

        st->metadata_id = 0;
        st->value_case = 0;
        while (p < end) {
                switch (*p++) {
                case 1 << 3 | WIRE_VARINT:
                        if (!fast_varint(&p, end, limit, &v))
                                return false;
                        st->metadata_id = (int64_t)v;
                        break;
                case 3 << 3 | WIRE_VARINT:
                case 4 << 3 | WIRE_VARINT:
                case 7 << 3 | WIRE_VARINT:
                        st->value_case = p[-1] >> 3;
                        if (!fast_varint(&p, end, limit, &st->u))
                                return false;
                        break;
                case 5 << 3 | WIRE_LEN:
                        if (!wire_short_len(&p, end, &data, &len))
                                return false;
                        st->str = (const char *)data;
                        st->str_len = len;
                        st->value_case = 5;
                        break;
                case 6 << 3 | WIRE_LEN:
                        if (!wire_short_len(&p, end, &data, &len))
                                return false;
                        st->value_case = 6;
                        break;
                case 2 << 3 | WIRE_I64:
                        if (end - p < 8)
                                return false;
                        p += 8;
                        st->value_case = 2;
                        break;
                default:
                        return false;
                }
        }
        return true;
}

/* Whether a stat id names a stat apply_stat() reads. */
static inline bool is_read_id(const struct reader *r, int64_t id)
{
        const struct stat_md *md;

        if (id < (int64_t)sizeof(r->stat_read))
                return r->stat_read[id];
        md = find_stat(r, id);
        return md != NULL && md->key != S_OTHER;
}

/* Most stats are `08 <id of one or two bytes> <value tag> <value to the
 * end>`, and most of those name a stat apply_stat() does not read: true
 * for such a stat (p[0..len)), checked as read_stat() would check it;
 * false for any other, which fast_stat() reads. Ids past 127 take two
 * bytes, and a profile of many stat names gives such ids to common stats
 * (speed, bench/: '_ct' and '_c' of TF's threadpool events, a quarter of
 * a real profile's stats, took fast_stat() and its lookup each). */
static inline bool fast_unread_stat(const struct reader *r, const uint8_t *p, size_t len)
{
        const uint8_t *end = p + len, *q;
        size_t n;                       /* the value's bytes */
        uint8_t tag;

        if (len < 4 || p[0] != (1 << 3 | WIRE_VARINT))
                return false;
        if (p[1] < 0x80) {
                if (r->stat_read[p[1]])
                        return false;
                q = p + 2;
        } else {
                if (len < 5 || p[2] >= 0x80 || is_read_id(r, (p[1] & 0x7f) | (int64_t)p[2] << 7))
                        return false;
                q = p + 3;
        }
        tag = *q++;
        n = (size_t)(end - q);
        if (tag != (3 << 3 | WIRE_VARINT) && tag != (4 << 3 | WIRE_VARINT) &&
            tag != (7 << 3 | WIRE_VARINT)) {
                if (tag == (5 << 3 | WIRE_LEN) || tag == (6 << 3 | WIRE_LEN))
                        return q[0] < 0x80 && q[0] == n - 1;    /* a length, the rest */
                return tag == (2 << 3 | WIRE_I64) && n == 8;
        }
        /* a varint that ends at the last byte, not before */
        if (n > 10 || q[n - 1] >= 0x80)
                return false;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (r->limit - q >= 8) {
                uint64_t w, stops;

                memcpy(&w, q, 8);
                stops = ~w & 0x8080808080808080u;
                if (n <= 8)
                        return (stops & ((UINT64_C(1) << (8 * (n - 1))) - 1)) == 0;
                return stops == 0 && (n == 9 || q[8] >= 0x80);
        }
#endif
        for (size_t i = 0; i + 1 < n; i++)
                if (q[i] < 0x80)
                        return false;
        return true;
}

/* One XEvent: its fields into `xe`, and the stats apply_stat() would use
 * into keep[0..*n_keep). */
static HOT_INLINE bool fast_event(const struct reader *r, const uint8_t *p,
                                  const uint8_t *end, struct xevent *xe, struct xstat *keep,
                                  size_t *n_keep)
{
        const uint8_t *limit = r->limit, *data;
        const struct stat_md *smd;
        struct xstat *st;
        size_t len;
        uint64_t v;

        xe->metadata_id = xe->offset_ps = xe->duration_ps = 0;
        xe->has_offset = xe->has_times = false;
        *n_keep = 0;
        /* TF writes the fields in order: metadata id, offset, duration,
         * stats. Taken in that order first (speed, bench/: the loop's
         * dispatch per field cost more than these three tests); the loop
         * below takes the same fields in any order. */
        if (p < end && *p == (1 << 3 | WIRE_VARINT)) {
                if (p++, !fast_varint(&p, end, limit, &v))
                        return false;
                xe->metadata_id = (int64_t)v;
        }
        if (p < end && *p == (2 << 3 | WIRE_VARINT)) {
                if (p++, !fast_varint(&p, end, limit, &v))
                        return false;
                xe->offset_ps = (int64_t)v;
                xe->has_offset = true;
        }
        if (p < end && *p == (3 << 3 | WIRE_VARINT)) {
                if (p++, !fast_varint(&p, end, limit, &v))
                        return false;
                xe->duration_ps = (int64_t)v;
        }
        while (p < end) {
                if (*p == (4 << 3 | WIRE_LEN)) {
                        const uint8_t *q = p + 1;
                        if (wire_short_len(&q, end, &data, &len) &&
                            fast_unread_stat(r, data, len)) {
                                p = q;
                                continue;
                        }
                }
                switch (*p++) {
                case 1 << 3 | WIRE_VARINT:
                        if (!fast_varint(&p, end, limit, &v))
                                return false;
                        xe->metadata_id = (int64_t)v;
                        break;
                case 2 << 3 | WIRE_VARINT:
                        if (!fast_varint(&p, end, limit, &v))
                                return false;
                        xe->offset_ps = (int64_t)v;
                        xe->has_offset = true;
                        break;
                case 3 << 3 | WIRE_VARINT:
                        if (!fast_varint(&p, end, limit, &v))
                                return false;
                        xe->duration_ps = (int64_t)v;
                        break;
                case 5 << 3 | WIRE_VARINT:
                        if (!fast_varint(&p, end, limit, &v))
                                return false;
                        xe->has_offset = false;
                        break;
                case 4 << 3 | WIRE_LEN:
                        st = &keep[*n_keep < FAST_STATS ? *n_keep : FAST_STATS];
                        if (!wire_short_len(&p, end, &data, &len) ||
                            !fast_stat(data, data + len, limit, st))
                                return false;
                        if (st->value_case == 0 || (smd = find_stat(r, st->metadata_id)) == NULL ||
                            smd->key == S_OTHER)
                                break;
                        if (*n_keep == FAST_STATS)
                                return false;
                        if (st->value_case == 5) {      /* up to the first NUL, as wire_str() */
                                const char *nul = memchr(st->str, 0, st->str_len);
                                if (nul != NULL)
                                        st->str_len = (size_t)(nul - st->str);
                        }
                        (*n_keep)++;
                        break;
                default:
                        return false;
                }
        }
        return true;
}

/* The record of metadata `md`'s stats: the same for each of its events,
 * so made on first use. */
static const struct record *make_md_record(const struct reader *r, struct event_md *md)
{
        memset(&md->rec, 0, sizeof(md->rec));
        if (md->m != NULL && !md->internal)
                for (size_t i = 0; i < md->m->n_stats; i++)
                        apply_md_stat(r, &md->rec, md->m->stats[i]);
        md->has_rec = true;
        return &md->rec;
}

static inline const struct record *md_record(const struct reader *r, struct event_md *md)
{
        return md->has_rec ? &md->rec : make_md_record(r, md);
}

/* One XEvent (field `at` of its line) the exact way: every field checked
 * as protobuf-c checks it, an error at the offset of the first bad one.
 * Its stats are read, and so checked, even when the event is an internal
 * one, whose record then stays empty. */
static int decode_event(const struct reader *r, const struct field *at, struct xevent *xe,
                        struct event_md **md, struct record *rec)
{
        static const struct record none;
        int rc;

        if ((rc = walk_event(r, at, xe)) < 0)
                return rc;
        *md = find_event(r, xe->metadata_id);
        *rec = *md != NULL ? *md_record(r, *md) : none;
        if (xe->n_stats > 0) {
                struct msg m = msg_of(at, "XEvent");
                struct field f;
                struct xstat st;

                /* walk_event() checked this level: only the stats can fail */
                m.p = xe->stats_at;
                while (wire_next(r, &m, &f) > 0) {
                        if (f.num != 4)
                                continue;
                        if ((rc = read_stat(r, &f, &st)) < 0)
                                return rc;
                        if (*md == NULL || !(*md)->internal)
                                apply_stat(r, rec, &st);
                }
        }
        return 0;
}

#ifndef NDEBUG
/* Whether the exact path reads the event at `at` as the fast path did
 * (`rec` NULL: an internal event, whose record is not made), or as
 * decode_chunk() did (xe->has_times: its times, not its wire fields).
 * Debug builds check every event, so the tests and the fuzzer compare
 * the paths. */
static bool same_as_exact(const struct reader *r, const struct xline *line,
                          const struct field *at, const struct xevent *xe,
                          const struct record *rec)
{
        struct event_md *md;
        struct record x;
        struct xevent e;
        int64_t ts, dur;

        if (decode_event(r, at, &e, &md, &x) < 0 || e.metadata_id != xe->metadata_id)
                return false;
        if (xe->has_times ? !event_times(line, &e, &ts, &dur) || ts != xe->ts || dur != xe->dur
                          : e.has_offset != xe->has_offset || e.duration_ps != xe->duration_ps ||
                            (e.has_offset && e.offset_ps != xe->offset_ps))
                return false;
        return rec == NULL ||
               (x.has_group == rec->has_group && (!x.has_group || x.group == rec->group) &&
                x.has_corr == rec->has_corr && (!x.has_corr || x.corr == rec->corr) &&
                x.has_bytes == rec->has_bytes && (!x.has_bytes || x.bytes == rec->bytes) &&
                x.has_step == rec->has_step && (!x.has_step || x.step == rec->step) &&
                x.has_iter == rec->has_iter && (!x.has_iter || x.iter == rec->iter) &&
                x.compile == rec->compile && x.tf_call == rec->tf_call &&
                x.step_name == rec->step_name &&
                x.step_name_len == rec->step_name_len && x.op == rec->op &&
                x.op_len == rec->op_len && x.tf_op == rec->tf_op &&
                x.tf_op_len == rec->tf_op_len);
}

/* same_as_exact() for an event decode_chunk() read. */
static bool decoded_as_exact(const struct reader *r, const struct xline *line,
                             const struct decoded *d, const struct record *rec)
{
        const struct field f = { .num = 4, .type = WIRE_LEN, .at = d->at,
                                 .data = d->at + d->data_at, .len = d->len };
        const struct xevent xe = {
                .metadata_id = d->metadata_id, .has_times = true, .ts = d->ts, .dur = d->dur,
        };

        return same_as_exact(r, line, &f, &xe, rec);
}
#endif

/* An XEvent (field `at` of its line) the fast path read: its fields in
 * `xe`, the stats apply_stat() uses in keep[0..n_keep). */
static HOT_INLINE int add_fast_event(struct reader *r, uint32_t track,
                                     const struct xline *line, const struct field *at,
                                     const struct xevent *xe, const struct xstat *keep,
                                     size_t n_keep, size_t *added)
{
        static const struct record none;
        const struct record *rp;
        struct event_md *md;
        struct record rec;

        md = find_event(r, xe->metadata_id);
        if (md != NULL && md->internal) {
                assert(same_as_exact(r, line, at, xe, NULL));
                return 0;
        }
        if (md != NULL && md->plain && n_keep == 0) {
                assert(same_as_exact(r, line, at, xe, &md->rec));
                return add_plain_event(r, track, line, at, xe, md, added);
        }
        rp = md != NULL ? md_record(r, md) : &none;
        if (n_keep > 0) {
                rec = *rp;
                for (size_t i = 0; i < n_keep; i++)
                        apply_stat(r, &rec, &keep[i]);
                rp = &rec;
        }
        assert(same_as_exact(r, line, at, xe, rp));
        return add_event(r, track, line, at, xe, md, rp, added);
}

/* One XEvent (field `at` of its line), by the fast path when it can.
 * Inline, as fast_event(): GCC otherwise leaves one of them a call per
 * event once read_line() grows. */
static HOT_INLINE int read_event(struct reader *r, uint32_t track,
                                 const struct xline *line, const struct field *at,
                                 size_t *added)
{
        struct xstat keep[FAST_STATS + 1];
        struct event_md *md;
        struct record rec;
        struct xevent xe;
        size_t n_keep;
        int rc;

        if (!fast_event(r, at->data, at->data + at->len, &xe, keep, &n_keep)) {
                if ((rc = decode_event(r, at, &xe, &md, &rec)) < 0)
                        return rc;
                if (md != NULL && md->internal)
                        return 0;
                return add_event(r, track, line, at, &xe, md, &rec, added);
        }
        return add_fast_event(r, track, line, at, &xe, keep, n_keep, added);
}

/* Where the trace's next event goes: read_events() and add_chunk() ask
 * for its cache line well before they write it, as for the input's bytes
 * (the room is fresh memory, faulted in by another thread or not at all,
 * and the store of each event otherwise waits for its line). A hint only:
 * the room may move when it grows, and loads past it never fault. */
static inline uintptr_t event_room(const struct reader *r)
{
        return (uintptr_t)(tpa_trace__events_mut(r->tr) + tpa_trace_event_count(r->tr) +
                           r->room_k);
}

static inline void prefetch_room(uintptr_t room, size_t k)
{
        uintptr_t p = room + (k + ROOM_AHEAD) * sizeof(tpa_event);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        /* for writing: GCC emits PREFETCHW only with -mprfchw, and a plain
         * prefetch leaves the line shared, its store to wait again */
        __asm__ volatile("prefetchw (%0)" : : "r"(p));
#elif defined(__GNUC__)
        __builtin_prefetch((const void *)p, 1);
#else
        (void)p;
#endif
}

/* The events of a line from `from` (a field's tag) up to `to`, each
 * counted in *n; `at` is the line. */
static int read_events(struct reader *r, uint32_t track, const struct xline *line,
                       const struct field *at, const uint8_t *from, const uint8_t *to,
                       size_t *added, uint64_t *n)
{
        struct msg m = msg_of(at, "XLine");
        uintptr_t room = event_room(r);
        size_t first = *added;
        struct field f;
        int rc;

        m.p = from;
        while (m.p < to &&      /* checked by the line's walk */
               (wire_next_event(&m, &f) || wire_next(r, &m, &f) > 0)) {
                if (f.num != 4)
                        continue;
                prefetch_room(room, *added - first);
                (*n)++;
                if ((rc = read_event(r, track, line, &f, added)) < 0)
                        return rc;
        }
        return 0;
}

/* ---- lines, planes and the space ---------------------------------------- */

/* Where the chunks of a line start, as walk_step() finds them. */
struct bounds {
        const uint8_t **p;
        size_t          n, cap;
        bool            failed;         /* out of memory: no chunks */
};

static void add_bound(struct bounds *b, const uint8_t *p)
{
        if (b->failed)
                return;
        if (b->n == b->cap) {
                size_t n = b->cap != 0 ? b->cap * 2 : 64;
                const uint8_t **q = realloc(b->p, n * sizeof(*q));
                if (q == NULL) {
                        b->failed = true;
                        return;
                }
                b->p = q;
                b->cap = n;
        }
        b->p[b->n++] = p;
}

/* A line's walk, which the thread takes in steps (walk_step()). */
struct walk {
        struct msg      m;
        struct xline    xl;
        struct bounds  *b;
        size_t          n, since;       /* events, and since the last bound */
};

static void walk_begin(struct walk *w, const struct field *at, struct bounds *b)
{
        memset(w, 0, sizeof(*w));
        w->m = msg_of(at, "XLine");
        w->xl.name = w->xl.display_name = "";
        w->b = b;
        if (b != NULL)
                add_bound(b, w->m.p);
}

/* Walk on over a line's fields but its events, which are counted; the
 * events' own fields are left to read_event(). With w->b, where every
 * CHUNK events begin (a field's tag), then the line's end. 1 when the
 * line is walked (w->xl has its fields), 0 after some `budget` events
 * more with the rest to walk, or an error. */
static int walk_step(const struct reader *r, struct walk *w, size_t budget)
{
        static const int8_t types[12] = {
                -1, WIRE_VARINT, WIRE_LEN, WIRE_VARINT, WIRE_LEN, -1, -1, -1, -1,
                WIRE_VARINT, WIRE_VARINT, WIRE_LEN,
        };
        struct xline *xl = &w->xl;
        size_t stop = budget < SIZE_MAX - w->n ? w->n + budget : SIZE_MAX, k;
        struct field f;
        int rc;

        for (;;) {
                k = skip_events(&w->m, w->b != NULL ? CHUNK - w->since : SIZE_MAX);
                w->n += k;
                w->since += k;
                if (w->b != NULL && w->since == CHUNK && w->m.p < w->m.end) {
                        add_bound(w->b, w->m.p);
                        w->since = 0;
                }
                if (w->n >= stop)
                        return 0;
                if ((rc = wire_next(r, &w->m, &f)) <= 0)
                        break;
                if ((rc = wire_expect(r, &f, f.num < 12 ? types[f.num] : -1, &w->m)) < 0)
                        return rc;
                switch (f.num) {
                case 1:
                        xl->id = (int64_t)f.u;
                        break;
                case 2:
                        wire_str(&f, &xl->name, &xl->name_len);
                        break;
                case 3:
                        xl->timestamp_ns = (int64_t)f.u;
                        break;
                case 4:
                        w->n++;
                        if (w->b != NULL && ++w->since == CHUNK && w->m.p < w->m.end) {
                                add_bound(w->b, w->m.p);
                                w->since = 0;
                        }
                        break;
                case 10:
                        xl->display_id = (int64_t)f.u;
                        break;
                case 11:
                        wire_str(&f, &xl->display_name, &xl->display_name_len);
                        break;
                }
        }
        if (rc < 0)
                return rc;
        if (w->b != NULL)
                add_bound(w->b, w->m.end);
        xl->n_events = w->n;
        return 1;
}

/* A line's walk in one go, as the reader does it. */
static int walk_line(const struct reader *r, const struct field *at, struct xline *xl)
{
        struct walk w;
        int rc;

        walk_begin(&w, at, NULL);
        if ((rc = walk_step(r, &w, SIZE_MAX)) < 0)
                return rc;
        *xl = w.xl;
        return 0;
}

/* The events of chunk `i` of the job into slot `s`, by the fast path;
 * `r` has the plane's tables. The line was walked, so no field can fail
 * here; if one did, the slot is not whole and the reader reads the
 * chunk itself. */
static void decode_chunk(const struct reader *r, const struct ahead *a, size_t i,
                         struct slot *s)
{
        struct msg m = { .p = a->bounds[i], .end = a->line_end, .name = "XLine" };
        const uint8_t *to = a->bounds[i + 1];
        struct xstat keep[FAST_STATS + 1];
        struct xevent xe;
        struct field f;
        /* the slot's counts in locals, which its byte fields' stores cannot
         * alias (speed, bench/: loaded and stored per event otherwise) */
        size_t n = 0, kept = 0, n_keep;
        bool whole = false;

        while (m.p < to && (wire_next_event(&m, &f) || wire_next(r, &m, &f) > 0)) {
                struct decoded *d;
                if (f.num != 4)
                        continue;
#ifdef __GNUC__
                __builtin_prefetch(f.at + 1024);
#endif
                if (n == CHUNK || f.data - f.at > UINT8_MAX || f.len > UINT16_MAX)
                        goto out;
                d = &s->d[n++];
                d->at = f.at;
                d->data_at = (uint8_t)(f.data - f.at);
                d->len = (uint16_t)f.len;
                /* an event the fast path does not take, or with a time
                 * out of range, the reader reads again, and says what
                 * is wrong with it if anything is */
                d->ok = fast_event(r, f.data, f.data + f.len, &xe, keep, &n_keep) &&
                        n_keep <= CHUNK - kept &&
                        event_times(a->line, &xe, &d->ts, &d->dur);
                if (!d->ok)
                        continue;
                d->metadata_id = xe.metadata_id;
                d->keep_at = (uint16_t)kept;
                d->n_keep = (uint8_t)n_keep;
                if (n_keep > 0)
                        memcpy(s->keep + kept, keep, n_keep * sizeof(*keep));
                kept += n_keep;
        }
        whole = m.p >= to;
out:
        s->n = n;
        s->n_keep = kept;
        s->whole = whole;
}

/* The next chunk to decode ahead, claimed (under lock); false if none. */
static bool claim_chunk(struct ahead *a, size_t *i)
{
        if (!a->has_job || a->next_claim >= a->n_chunks ||
            a->next_claim >= a->next_add + SLOTS)
                return false;
        *i = a->next_claim++;
        a->slots[*i % SLOTS].state = SLOT_BUSY;
        return true;
}

/* The thread's walks: every large line of every plane, in wire order,
 * each walked in steps. */
struct walker {
        struct msg     space, plane;
        bool           in_plane;
        bool           over;            /* every line is walked, or memory ran out */
        bool           walking;         /* w is under way */
        struct walk    w;
        struct bounds  b;
        const uint8_t *at;              /* w's line's bytes */
};

/* The walked line for the reader, or false if there is no room for it. */
static bool add_walked(struct ahead *a, const struct walked *w)
{
        bool ok;

        pthread_mutex_lock(&a->lock);
        if (a->count == a->cap) {
                size_t n = a->cap != 0 ? a->cap * 2 : 256;
                struct walked *p = realloc(a->lines, n * sizeof(*p));
                if (p != NULL) {
                        a->lines = p;
                        a->cap = n;
                }
        }
        if ((ok = a->count < a->cap))
                a->lines[a->count++] = *w;
        pthread_cond_signal(&a->more);
        pthread_mutex_unlock(&a->lock);
        return ok;
}

/* One step of walking: some events of the line under way, or the start
 * of the next large line. */
static void walk_ahead(struct ahead *a, struct walker *k)
{
        struct field f, g;
        struct walked w;
        int rc;

        if (!k->walking) {
                for (;;) {
                        if (!k->in_plane) {
                                if (wire_next(&a->r, &k->space, &f) <= 0) {
                                        k->over = true;
                                        return;
                                }
                                if (f.num != 1 || f.type != WIRE_LEN)
                                        continue;
                                k->plane = msg_of(&f, "XPlane");
                                k->in_plane = true;
                        }
                        if (wire_next(&a->r, &k->plane, &g) <= 0)
                                k->in_plane = false;
                        else if (g.num == 3 && g.type == WIRE_LEN && g.len >= AHEAD_LINE_MIN)
                                break;
                }
                memset(&k->b, 0, sizeof(k->b));
                walk_begin(&k->w, &g, &k->b);
                k->at = g.data;
                k->walking = true;
        }
        if ((rc = walk_step(&a->r, &k->w, WALK_STEP)) == 0)
                return;
        k->walking = false;
        if (rc < 0) {
                free(k->b.p);
                return;         /* the reader walks it again */
        }
        if (k->b.failed || k->b.n < 3 || a->slots == NULL) {
                free(k->b.p);   /* one chunk: the reader reads it */
                k->b.p = NULL;
                k->b.n = 1;
        }
        w = (struct walked){ .at = k->at, .xl = k->w.xl, .bounds = k->b.p,
                             .n_chunks = k->b.n - 1 };
        if (!add_walked(a, &w)) {
                free(w.bounds);
                k->over = true; /* the reader walks the rest */
        }
}

/* The thread, until the reader stops it: the walk of the line after the
 * one the reader reads first (the reader waits for it otherwise), then
 * chunks of that line to decode, then walks of the lines after. */
static void *ahead_main(void *arg)
{
        struct ahead *a = arg;
        struct walker k = {
                .space = { .p = a->data, .end = a->data + a->len, .name = "XSpace" },
        };
        size_t i;

        pthread_mutex_lock(&a->lock);
        while (!a->stop) {
                bool behind = !a->done && a->count <= a->next;
                if (!behind && claim_chunk(a, &i)) {
                        a->busy++;
                        pthread_mutex_unlock(&a->lock);
                        decode_chunk(&a->jr, a, i, &a->slots[i % SLOTS]);
                        pthread_mutex_lock(&a->lock);
                        a->slots[i % SLOTS].state = SLOT_DONE;
                        a->busy--;
                        pthread_cond_signal(&a->more);
                } else if (!a->done) {
                        pthread_mutex_unlock(&a->lock);
                        walk_ahead(a, &k);
                        pthread_mutex_lock(&a->lock);
                        if (k.over) {
                                a->done = true;
                                pthread_cond_signal(&a->more);
                        }
                } else {
                        pthread_cond_wait(&a->work, &a->lock);
                }
        }
        pthread_mutex_unlock(&a->lock);
        if (k.walking)
                free(k.b.p);
        return NULL;
}

/* Start walking the lines of data[0..len) ahead, if the input is large
 * enough to gain by it and a second CPU can run the thread; r->ahead
 * stays NULL if not, or if that fails. */
static void ahead_start(struct reader *r, const uint8_t *data, size_t len)
{
        struct ahead *a;

        if (len < AHEAD_MIN || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
            (a = calloc(1, sizeof(*a))) == NULL)
                return;
        a->r = *r;
        a->r.err = &a->err;
        a->data = data;
        a->len = len;
        if (pthread_mutex_init(&a->lock, NULL) != 0) {
                free(a);
                return;
        }
        if (pthread_cond_init(&a->more, NULL) != 0) {
                pthread_mutex_destroy(&a->lock);
                free(a);
                return;
        }
        if (pthread_cond_init(&a->work, NULL) != 0) {
                pthread_cond_destroy(&a->more);
                pthread_mutex_destroy(&a->lock);
                free(a);
                return;
        }
        a->slots = calloc(SLOTS, sizeof(*a->slots));   /* NULL: lines are walked, not decoded */
        if (pthread_create(&a->thread, NULL, ahead_main, a) != 0) {
                free(a->slots);
                pthread_cond_destroy(&a->work);
                pthread_cond_destroy(&a->more);
                pthread_mutex_destroy(&a->lock);
                free(a);
                return;
        }
        r->ahead = a;
}

static void ahead_stop(struct reader *r)
{
        struct ahead *a = r->ahead;

        if (a == NULL)
                return;
        pthread_mutex_lock(&a->lock);
        a->stop = true;
        pthread_cond_signal(&a->work);
        pthread_mutex_unlock(&a->lock);
        pthread_join(a->thread, NULL);
        pthread_cond_destroy(&a->work);
        pthread_cond_destroy(&a->more);
        pthread_mutex_destroy(&a->lock);
        for (size_t i = 0; i < a->count; i++)
                free(a->lines[i].bounds);
        free(a->lines);
        free(a->slots);
        free(a);
        r->ahead = NULL;
}

/* walk_line() for the line at `at`, done by the thread if it got to it;
 * then *w has its chunks too (w->n_chunks 0: none). */
static int walk_line_ahead(const struct reader *r, const struct field *at, struct walked *w)
{
        struct ahead *a = r->ahead;
        bool found = false;

        w->bounds = NULL;
        w->n_chunks = 0;
        if (a == NULL || at->len < AHEAD_LINE_MIN)
                return walk_line(r, at, &w->xl);
        pthread_mutex_lock(&a->lock);
        for (;;) {
                while (a->next < a->count && a->lines[a->next].at < at->data)
                        a->next++;      /* lines the reader skips */
                if (a->next < a->count || a->done)
                        break;
                pthread_cond_wait(&a->more, &a->lock);
        }
        if (a->next < a->count && a->lines[a->next].at == at->data) {
                *w = a->lines[a->next++];
                found = true;
        }
        pthread_mutex_unlock(&a->lock);
        return found ? 0 : walk_line(r, at, &w->xl);
}

/* The reader's turn at chunk `i` of the job (under lock): true to read
 * it itself, false to add what slots[i % SLOTS] holds. While the thread
 * decodes chunk i, the reader decodes chunks after it. */
static bool take_chunk(struct reader *r, size_t i)
{
        struct ahead *a = r->ahead;
        size_t k;

        for (;;) {
                if (a->next_claim == i) {
                        a->next_claim++;
                        return true;
                }
                if (a->slots[i % SLOTS].state == SLOT_DONE)
                        return !a->slots[i % SLOTS].whole;
                if (claim_chunk(a, &k)) {
                        pthread_mutex_unlock(&a->lock);
                        decode_chunk(r, a, k, &a->slots[k % SLOTS]);
                        pthread_mutex_lock(&a->lock);
                        a->slots[k % SLOTS].state = SLOT_DONE;
                        continue;
                }
                pthread_cond_wait(&a->more, &a->lock);
        }
}

/* The decoded events s->d[i..] that add_fast_event() adds as plain
 * (md->plain, no stat kept), up to the first other one or the room's end:
 * written in place; how many. What the loop reads of the reader is in
 * locals: a store to an event could alias its fields, which the loop
 * then loaded again per event (speed, bench/). */
static size_t add_plain_run(struct reader *r, uint32_t track, const struct xline *line,
                            const struct slot *s, size_t i)
{
        struct event_md *const *by_id = r->event_by_id;
        size_t ids = r->event_ids, n = s->n - i, k;
        tpa_event *room;

        (void)line;                     /* for the assert */
        if (n > r->room_n - r->room_k)
                n = r->room_n - r->room_k;
        if (n == 0)
                return 0;
        room = r->room + r->room_k;
        for (k = 0; k < n; k++) {
                const struct decoded *d = &s->d[i + k];
                const struct event_md *md;

                if (!d->ok || d->n_keep != 0)
                        break;
                if (by_id == NULL)
                        md = find_event(r, d->metadata_id);
                else
                        md = d->metadata_id >= 0 && (uint64_t)d->metadata_id < ids
                             ? by_id[d->metadata_id] : NULL;
                if (md == NULL || !md->plain)
                        break;
                assert(!md->internal && decoded_as_exact(r, line, d, &md->rec));
                prefetch_room((uintptr_t)room, k);
                room[k].ts = d->ts;
                room[k].dur = d->dur;
                room[k].name = md->name;
                set_ids(track, &md->rec, &room[k]);
        }
        r->room_k += k;
        return k;
}

/* The events of one decoded chunk, in order, as read_events() reads them. */
static int add_chunk(struct reader *r, uint32_t track, const struct xline *line,
                     const struct slot *s, size_t *added, uint64_t *n)
{
        size_t i = 0, k;

        while (i < s->n) {
                const struct decoded *d;
                int rc;

                k = add_plain_run(r, track, line, s, i);
                *added += k;
                *n += k;
                if ((i += k) == s->n)
                        break;
                d = &s->d[i++];
                prefetch_room(event_room(r), 0);
                (*n)++;
                {
                        const struct field f = { .num = 4, .type = WIRE_LEN, .at = d->at,
                                                 .data = d->at + d->data_at, .len = d->len };
                        const struct xevent xe = {
                                .metadata_id = d->metadata_id, .has_times = true,
                                .ts = d->ts, .dur = d->dur,
                        };

                        if (d->ok)
                                rc = add_fast_event(r, track, line, &f, &xe,
                                                    s->keep + d->keep_at, d->n_keep, added);
                        else
                                rc = read_event(r, track, line, &f, added);
                }
                if (rc < 0)
                        return rc;
        }
        return 0;
}

/* The events of a line walked ahead in chunks (w), decoded on both
 * threads and added here in order. */
static int read_chunks(struct reader *r, uint32_t track, const struct field *at,
                       const struct walked *w, size_t *added, uint64_t *n)
{
        struct ahead *a = r->ahead;
        int rc = 0;

        pthread_mutex_lock(&a->lock);
        a->jr = *r;
        a->jr.err = &a->err;
        a->bounds = (const uint8_t *const *)w->bounds;
        a->line_end = at->data + at->len;
        a->line = &w->xl;
        a->n_chunks = w->n_chunks;
        a->next_claim = a->next_add = 0;
        for (size_t k = 0; k < SLOTS; k++)
                a->slots[k].state = SLOT_FREE;
        a->has_job = true;
        pthread_cond_signal(&a->work);
        for (size_t i = 0; i < w->n_chunks && rc == 0; i++) {
                bool self = take_chunk(r, i);
                pthread_mutex_unlock(&a->lock);
                if (self)
                        rc = read_events(r, track, &w->xl, at, w->bounds[i], w->bounds[i + 1],
                                         added, n);
                else
                        rc = add_chunk(r, track, &w->xl, &a->slots[i % SLOTS], added, n);
                pthread_mutex_lock(&a->lock);
                a->slots[i % SLOTS].state = SLOT_FREE;
                a->next_add = i + 1;
                pthread_cond_signal(&a->work);
        }
        /* the next line has other chunks, the next plane other tables */
        a->has_job = false;
        while (a->busy > 0)
                pthread_cond_wait(&a->more, &a->lock);
        pthread_mutex_unlock(&a->lock);
        return rc;
}

static int read_line(struct reader *r, const struct field *at, uint32_t proc, bool is_host,
                     size_t index, size_t *added)
{
        tpa_trace *tr = r->tr;
        struct walked w;
        struct xline xl;
        uint32_t track;
        int64_t id;
        tpa_str nid;
        uint64_t n = 0;
        int rc;

        if ((rc = walk_line_ahead(r, at, &w)) < 0)
                return rc;
        xl = w.xl;
        id = xl.display_id != 0 ? xl.display_id : xl.id;
        rc = tpa_trace__get_thread(tr, &track, proc, (tpa_id){ .num = (int64_t)(uint32_t)id },
                                   r->err);
        if (rc < 0)
                return rc;
        if (xl.display_name_len > 0)
                rc = tpa_utf8__intern(tr, &nid, xl.display_name, xl.display_name_len, 0, r->err);
        else
                rc = tpa_utf8__intern(tr, &nid, xl.name, xl.name_len, 0, r->err);
        if (rc < 0)
                return rc;
        tpa_trace__thread(tr, track)->name = nid;
        /* The viewer orders host threads as listed, device lines by id. */
        tpa_trace__thread(tr, track)->sort_index = is_host ? (int64_t)index + 1
                                                          : (int64_t)(uint32_t)id;
        if (xl.n_events == 0)
                return 0;
        tpa_trace__reserve_events(tr, xl.n_events);
        if (w.n_chunks > 1)
                rc = read_chunks(r, track, at, &w, added, &n);
        else
                rc = read_events(r, track, &xl, at, at->data, at->data + at->len, added, &n);
        room_close(r);
        tpa_trace__health(tr)->records_read += n;
        return rc;
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
        size_t n = strlen(prefix);
        return len >= n && memcmp(s, prefix, n) == 0;
}

/* The device pids the trace's processes hold (earlier inputs' too): a
 * plane looks its pid up here, not among every process (a hostile XSpace
 * may have a million planes). */
static void find_used_pids(struct reader *r)
{
        for (uint32_t k = 0; k < tpa_trace_process_count(r->tr); k++) {
                const tpa_process *p = tpa_trace_process_c(r->tr, k);
                if (p->pid.str == TPA_STR_EMPTY && p->pid.num >= 0 && p->pid.num < HOST_PID)
                        r->pid_used[p->pid.num] = true;
        }
}

/* Whether any line of a plane has an event, checking every line's fields. */
static int plane_has_events(const struct reader *r, const struct field *at, bool *any)
{
        struct msg m = msg_of(at, "XPlane");
        struct field f;
        struct xline xl;
        int rc;

        *any = false;
        while (wire_next(r, &m, &f) > 0) {      /* checked by the first walk */
                if (f.num != 3)
                        continue;
                if ((rc = walk_line(r, &f, &xl)) < 0)
                        return rc;
                *any |= xl.n_events > 0;
        }
        return 0;
}

/* One XPlane: a first walk for its id, name and metadata maps (and stats,
 * only checked), a second one for its lines. */
static int read_plane(struct reader *r, const struct field *at, size_t *added)
{
        static const int8_t types[7] = {
                -1, WIRE_VARINT, WIRE_LEN, WIRE_LEN, WIRE_LEN, WIRE_LEN, WIRE_LEN,
        };
        tpa_trace *tr = r->tr;
        struct msg m = msg_of(at, "XPlane");
        tpa_pb_arena arena;
        struct field f;
        struct xstat st;
        const char *name = "";
        size_t name_len = 0, index = 0;
        int64_t plane_id = 0, pid;
        bool is_host;
        uint32_t proc;
        tpa_process *p;
        int rc;

        r->stat_count = r->event_count = 0;
        tpa_pb__arena_init(&arena, r->arena_limit);
        while ((rc = wire_next(r, &m, &f)) > 0) {
                if ((rc = wire_expect(r, &f, f.num < 7 ? types[f.num] : -1, &m)) < 0)
                        goto out;
                if (f.num == 1)
                        plane_id = (int64_t)f.u;
                else if (f.num == 2)
                        wire_str(&f, &name, &name_len);
                else if ((f.num == 4 || f.num == 5) && (rc = add_metadata(r, &arena, &f)) < 0)
                        goto out;
                else if (f.num == 6 && (rc = read_stat(r, &f, &st)) < 0)
                        goto out;
        }
        if (rc < 0)
                goto out;
        if ((rc = index_metadata(r)) < 0)
                goto out;

        is_host = name_len == 9 && memcmp(name, "/host:CPU", 9) == 0;
        if (is_host) {
                pid = HOST_PID;
        } else if (has_prefix(name, name_len, "/device:")) {
                pid = 1 + (plane_id >= 0 && plane_id < HOST_PID - 1 ? plane_id : 0);
                /* plane ids may repeat: take the next free pid */
                while (pid < HOST_PID - 1 && r->pid_used[pid])
                        pid++;
        } else {
                bool any;
                if ((rc = plane_has_events(r, at, &any)) < 0 || !any)
                        goto out;       /* /host:metadata and friends */
                pid = r->other_pid++;
        }

        rc = tpa_trace__get_process(tr, &proc, (tpa_id){ .num = pid }, r->err);
        if (rc < 0)
                goto out;
        if (pid < HOST_PID)
                r->pid_used[pid] = true;
        p = tpa_trace__process(tr, proc);
        rc = tpa_utf8__intern(tr, &p->name, name, name_len, 0, r->err);
        if (rc < 0)
                goto out;
        tpa_trace__process(tr, proc)->sort_index = pid;
        m = msg_of(at, "XPlane");
        while (wire_next(r, &m, &f) > 0) {      /* checked by the first walk */
                if (f.num != 3)
                        continue;
                if ((rc = read_line(r, &f, proc, is_host, index++, added)) < 0)
                        goto out;
        }
        rc = 0;
out:
        tpa_pb__arena_free(&arena);
        return rc;
}

static int read_space(struct reader *r, const uint8_t *data, size_t len)
{
        tpa_trace *tr = r->tr;
        struct msg m = { .p = data, .end = data + len, .name = "XSpace" };
        size_t first = tpa_trace_event_count(tr), added = 0;
        struct field f;
        tpa_str *cats;
        int rc;

        ahead_start(r, data, len);
        while ((rc = wire_next(r, &m, &f)) > 0) {
                /* planes (1), then errors, warnings and hostnames: strings */
                if ((rc = wire_expect(r, &f, f.num >= 1 && f.num <= 4 ? WIRE_LEN : -1,
                                      &m)) < 0)
                        break;
                if (f.num == 1 && (rc = read_plane(r, &f, &added)) < 0)
                        break;
        }
        ahead_stop(r);
        if (rc < 0)
                return rc;
        cats = calloc(added + 1, sizeof(*cats));
        if (cats == NULL)
                return tpa_error_oom(r->err);
        rc = tpa_classify__chrome(tr, first, cats, &(tpa_classify_hints){ .tf2_keys = true },
                                  r->err);
        free(cats);
        if (rc < 0)
                return rc;
        if (first == 0 || tpa_trace_format(tr) == TPA_FORMAT_CHROME_JSON)
                tpa_trace__set_format(tr, TPA_FORMAT_XSPACE, tpa_trace_dialect(tr));
        return 0;
}

/* XSpace { 1: XPlane { 3: XLine { 4: XEvent } } } */
static const uint32_t xspace_fields[] = { 1, 3, 4 };
static const tpa_pb_path xspace_path = { xspace_fields, 3 };

int tpa_xspace__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                     tpa_error *err)
{
        uint64_t max = tpa_pb__max_message(opts);
        struct reader r = { .tr = tr, .err = err, .other_pid = OTHER_PID };
        uint8_t *data;
        size_t len, whole;
        int rc;

        rc = tpa_pb__read_all(src, opts, &data, &len, err);
        if (rc < 0)
                return rc;
        /* protobuf-c's structs for the metadata take a few times their wire
         * size; the cap bounds what hostile lengths can make it allocate */
        r.arena_limit = max * 8 + (64u << 20);
        r.base = data;
        r.limit = data + len;
        find_used_pids(&r);
        /* Cut: the planes, lines and events that are whole, where they are. */
        whole = len;
        rc = tpa_pb__trim(data, &whole, &xspace_path) == TPA_PB_CUT
             ? tpa_pb__cut(tr, len, opts->strict, err) : 0;
        if (rc == 0)
                rc = read_space(&r, data, whole);
        free(r.stats);
        free(r.events);
        free(r.stat_by_id);
        free(r.event_by_id);
        return rc;
}
