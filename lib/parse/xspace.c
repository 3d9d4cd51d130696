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
 */
#include <stdlib.h>
#include <string.h>

#include "input/readers.h"
#include "model/utf8.h"
#include "parse/classify.h"
#include "parse/pb_arena.h"
#include "xplane.pb-c.h"

#define HOST_PID   501
#define OTHER_PID  502
#define DEFAULT_MAX_MESSAGE (1024ull * 1024 * 1024)
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

struct event_md {
        int64_t                     id;
        const Tpapb__XEventMetadata *m;
        tpa_str                     name;       /* interned on first use */
        bool                        interned;
        bool                        internal;
};

/* What an event's stats say, as the Chrome reader's args would. */
struct record {
        bool        has_group, has_corr, has_bytes, has_step, has_iter, compile;
        uint64_t    group, corr, bytes;
        int64_t     step, iter;
        const char *step_name, *op, *tf_op;
        size_t      step_name_len, op_len, tf_op_len;
};

struct reader {
        tpa_trace        *tr;
        struct stat_md   *stats;
        size_t            stat_count;
        struct event_md  *events;
        size_t            event_count;
        tpa_error        *err;
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

static const struct stat_md *find_stat(const struct reader *r, int64_t id)
{
        struct stat_md k = { .id = id };
        return bsearch(&k, r->stats, r->stat_count, sizeof(k), cmp_stat_md);
}

static struct event_md *find_event(const struct reader *r, int64_t id)
{
        struct event_md k = { .id = id };
        return bsearch(&k, r->events, r->event_count, sizeof(k), cmp_event_md);
}

/* Index a plane's metadata maps by id. */
static int index_plane(struct reader *r, const Tpapb__XPlane *pl)
{
        free(r->stats);
        free(r->events);
        r->stats = calloc(pl->n_stat_metadata + 1, sizeof(*r->stats));
        r->events = calloc(pl->n_event_metadata + 1, sizeof(*r->events));
        if (r->stats == NULL || r->events == NULL)
                return tpa_error_setf(r->err, TPA_ENOMEM, "out of memory");
        r->stat_count = 0;
        for (size_t i = 0; i < pl->n_stat_metadata; i++) {
                const Tpapb__XStatMetadataEntry *e = pl->stat_metadata[i];
                struct stat_md *s = &r->stats[r->stat_count++];
                s->id = e->key;
                s->name = e->value != NULL ? e->value->name : "";
                s->key = stat_key_of(s->name);
        }
        qsort(r->stats, r->stat_count, sizeof(*r->stats), cmp_stat_md);
        r->event_count = 0;
        for (size_t i = 0; i < pl->n_event_metadata; i++) {
                const Tpapb__XEventMetadataEntry *e = pl->event_metadata[i];
                struct event_md *m = &r->events[r->event_count++];
                m->id = e->key;
                m->m = e->value;
                m->internal = e->value != NULL && is_internal_event(e->value->name);
        }
        qsort(r->events, r->event_count, sizeof(*r->events), cmp_event_md);
        return 0;
}

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
static bool stat_u64(const Tpapb__XStat *st, uint64_t *out)
{
        switch (st->value_case) {
        case TPAPB__XSTAT__VALUE_UINT64_VALUE:
                *out = st->uint64_value;
                return true;
        case TPAPB__XSTAT__VALUE_INT64_VALUE:
                if (st->int64_value < 0)
                        return false;
                *out = (uint64_t)st->int64_value;
                return true;
        case TPAPB__XSTAT__VALUE_STR_VALUE:
                return parse_u64(st->str_value, strlen(st->str_value), out);
        default:
                return false;
        }
}

static bool stat_i64(const Tpapb__XStat *st, int64_t *out)
{
        uint64_t u;

        if (st->value_case == TPAPB__XSTAT__VALUE_INT64_VALUE) {
                *out = st->int64_value;
                return true;
        }
        if (!stat_u64(st, &u) || u > INT64_MAX)
                return false;
        *out = (int64_t)u;
        return true;
}

/* A stat's value as text, for string stats and references; NULL otherwise. */
static const char *stat_str(const struct reader *r, const Tpapb__XStat *st)
{
        const struct stat_md *ref;

        if (st->value_case == TPAPB__XSTAT__VALUE_STR_VALUE)
                return st->str_value;
        if (st->value_case == TPAPB__XSTAT__VALUE_REF_VALUE) {
                ref = st->ref_value <= INT64_MAX ? find_stat(r, (int64_t)st->ref_value) : NULL;
                return ref != NULL ? ref->name : NULL;
        }
        return NULL;
}

static void apply_stat(const struct reader *r, struct record *rec, const Tpapb__XStat *st)
{
        const struct stat_md *md = find_stat(r, st->metadata_id);
        const char *s;

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
                if ((s = stat_str(r, st)) != NULL) {
                        rec->step_name = s;
                        rec->step_name_len = strlen(s);
                }
                break;
        case S_MEMCPY_DETAILS:
                /* "size:100663296 dest:0 async:1" (older: "num_bytes:...") */
                if ((s = stat_str(r, st)) != NULL) {
                        const char *p = strstr(s, "size:");
                        size_t k = 0;
                        if (p == NULL && (p = strstr(s, "num_bytes:")) != NULL)
                                p += 5;
                        if (p != NULL) {
                                p += 5;
                                while (is_digit(p[k]))
                                        k++;
                                rec->has_bytes = parse_u64(p, k, &rec->bytes);
                        }
                }
                break;
        case S_ANNOTATION:
                if ((s = stat_str(r, st)) != NULL) {
                        rec->op = s;
                        rec->op_len = tpa_classify__op_prefix(s, strlen(s));
                }
                break;
        case S_TF_OP:
                if ((s = stat_str(r, st)) != NULL) {
                        rec->tf_op = s;
                        rec->tf_op_len = tpa_classify__op_prefix(s, strlen(s));
                }
                break;
        case S_TF_FUNCTION_CALL:
                if ((s = stat_str(r, st)) != NULL && tpa_classify__is_traced_call(s, strlen(s)))
                        rec->compile = true;
                break;
        case S_OTHER:
                break;
        }
}

static int add_event(struct reader *r, uint32_t track, const Tpapb__XLine *line,
                     const Tpapb__XEvent *xe, size_t *added)
{
        tpa_trace *tr = r->tr;
        struct event_md *md = find_event(r, xe->metadata_id);
        struct record rec;
        tpa_event ev;
        size_t idx;
        int64_t ps, step;
        bool has_step;
        int rc;

        if (md != NULL && md->internal)
                return 0;
        memset(&rec, 0, sizeof(rec));
        if (md != NULL && md->m != NULL)
                for (size_t i = 0; i < md->m->n_stats; i++)
                        apply_stat(r, &rec, md->m->stats[i]);
        for (size_t i = 0; i < xe->n_stats; i++)
                apply_stat(r, &rec, xe->stats[i]);

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
        if (rec.step_name != NULL && !all_digits(rec.step_name, rec.step_name_len)) {
                rc = tpa_utf8__intern(tr, &ev.name, rec.step_name, rec.step_name_len, 0,
                                      r->err);
                if (rc < 0)
                        return rc;
        }
        /* line.timestamp_ns * 1000 + offset_ps, in ps, rounded to ns: the
         * line starts on a whole ns, so round the offset alone (and nothing
         * overflows for epoch times). Beyond +-2^61 ns is garbage. */
        ps = xe->data_case == TPAPB__XEVENT__DATA_OFFSET_PS ? xe->offset_ps : 0;
        if (line->timestamp_ns < -TIME_MAX || line->timestamp_ns > TIME_MAX ||
            ps < -TIME_MAX || ps > TIME_MAX || xe->duration_ps > TIME_MAX)
                return tpa_error_setf(r->err, TPA_EFORMAT, "an event on line '%.60s' has a "
                                      "time out of range", line->name);
        ev.ts = line->timestamp_ns + (ps >= 0 ? (ps + 500) / 1000 : -((-ps + 499) / 1000));
        ev.dur = xe->duration_ps > 0 ? (xe->duration_ps + 500) / 1000 : 0;
        ev.track = track;
        ev.kind = TPA_KIND_OTHER;
        ev.corr = rec.has_corr && rec.corr <= UINT32_MAX ? (uint32_t)rec.corr : 0;
        ev.group = rec.has_group && rec.group < UINT32_MAX ? (uint32_t)rec.group + 1 : 0;
        rc = tpa_trace_add_event(tr, &ev, &idx, r->err);
        if (rc < 0)
                return rc;
        (*added)++;
        if (rec.has_bytes &&
            (rc = tpa_trace_set_aux(tr, idx, TPA_AUX_BYTES, (int64_t)(rec.bytes & INT64_MAX),
                                    r->err)) < 0)
                return rc;
        /* The JSON writer sorts args by key, and the Chrome reader keeps the
         * last: step_num over iter_num, tf_op over annotation. */
        has_step = rec.has_step || rec.has_iter;
        step = rec.has_step ? rec.step : rec.iter;
        if (!has_step) {
                const char *n = tpa_trace_str(tr, ev.name);
                size_t nl = tpa_trace_str_len(tr, ev.name);
                if ((nl > 13 && memcmp(n, "ProfilerStep#", 13) == 0) ||
                    (nl > 6 && (memcmp(n, "train ", 6) == 0 || memcmp(n, "test ", 5) == 0)))
                        has_step = tpa_classify__step_from_name(n, nl, &step);
        }
        if (has_step && (rc = tpa_trace_set_aux(tr, idx, TPA_AUX_STEP_NUM, step, r->err)) < 0)
                return rc;
        {
                const char *op = rec.tf_op != NULL ? rec.tf_op : rec.op;
                size_t op_len = rec.tf_op != NULL ? rec.tf_op_len : rec.op_len;
                tpa_str id;
                if (op != NULL && op_len > 0) {
                        if ((rc = tpa_utf8__intern(tr, &id, op, op_len, 0, r->err)) < 0 ||
                            (rc = tpa_trace_set_aux(tr, idx, TPA_AUX_OP, id, r->err)) < 0)
                                return rc;
                }
        }
        if (!rec.compile)
                rec.compile = tpa_classify__is_compile_name(tpa_trace_str(tr, ev.name),
                                                            tpa_trace_str_len(tr, ev.name));
        if (rec.compile && (rc = tpa_trace_add_flags(tr, idx, TPA_FLAG_COMPILE, r->err)) < 0)
                return rc;
        return 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int read_plane(struct reader *r, const Tpapb__XPlane *pl, int64_t pid, size_t *added)
{
        tpa_trace *tr = r->tr;
        bool is_host = strcmp(pl->name, "/host:CPU") == 0;
        uint32_t proc, track;
        tpa_process *p;
        int rc;

        rc = index_plane(r, pl);
        if (rc < 0)
                return rc;
        rc = tpa_trace_get_process(tr, &proc, (tpa_id){ .num = pid }, r->err);
        if (rc < 0)
                return rc;
        p = tpa_trace_process(tr, proc);
        rc = tpa_utf8__intern(tr, &p->name, pl->name, strlen(pl->name), 0, r->err);
        if (rc < 0)
                return rc;
        tpa_trace_process(tr, proc)->sort_index = pid;
        for (size_t i = 0; i < pl->n_lines; i++) {
                const Tpapb__XLine *line = pl->lines[i];
                int64_t id = line->display_id != 0 ? line->display_id : line->id;
                const char *name = line->display_name[0] != '\0' ? line->display_name
                                                                  : line->name;
                tpa_thread *t;
                tpa_str nid;

                rc = tpa_trace_get_thread(tr, &track, proc,
                                          (tpa_id){ .num = (int64_t)(uint32_t)id }, r->err);
                if (rc < 0)
                        return rc;
                rc = tpa_utf8__intern(tr, &nid, name, strlen(name), 0, r->err);
                if (rc < 0)
                        return rc;
                t = tpa_trace_thread(tr, track);
                t->name = nid;
                /* The viewer orders host threads as listed, device lines by id. */
                t->sort_index = is_host ? (int64_t)i + 1 : (int64_t)(uint32_t)id;
                for (size_t k = 0; k < line->n_events; k++) {
                        tpa_trace_health(tr)->records_read++;
                        rc = add_event(r, track, line, line->events[k], added);
                        if (rc < 0)
                                return rc;
                }
        }
        return 0;
}

static bool pid_used(const tpa_trace *tr, int64_t pid)
{
        for (uint32_t k = 0; k < tpa_trace_process_count(tr); k++) {
                const tpa_process *p = tpa_trace_process_c(tr, k);
                if (p->pid.str == TPA_STR_EMPTY && p->pid.num == pid)
                        return true;
        }
        return false;
}

static int read_space(tpa_trace *tr, const Tpapb__XSpace *xs, tpa_error *err)
{
        struct reader r = { .tr = tr, .err = err };
        size_t first = tpa_trace_event_count(tr), added = 0;
        int64_t other_pid = OTHER_PID;
        tpa_str *cats = NULL;
        int rc = 0;

        for (size_t i = 0; i < xs->n_planes && rc == 0; i++) {
                const Tpapb__XPlane *pl = xs->planes[i];
                int64_t pid;

                if (strcmp(pl->name, "/host:CPU") == 0) {
                        pid = HOST_PID;
                } else if (has_prefix(pl->name, "/device:")) {
                        pid = 1 + (pl->id >= 0 && pl->id < HOST_PID - 1 ? pl->id : 0);
                        /* plane ids may repeat: take the next free pid */
                        while (pid < HOST_PID - 1 && pid_used(tr, pid))
                                pid++;
                } else {
                        bool any = false;
                        for (size_t k = 0; k < pl->n_lines; k++)
                                any |= pl->lines[k]->n_events > 0;
                        if (!any)       /* /host:metadata and friends */
                                continue;
                        pid = other_pid++;
                }
                rc = read_plane(&r, pl, pid, &added);
        }
        free(r.stats);
        free(r.events);
        if (rc < 0)
                return rc;
        cats = calloc(added + 1, sizeof(*cats));
        if (cats == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        rc = tpa_classify__chrome(tr, first, cats, &(tpa_classify_hints){ .tf2_keys = true },
                                  err);
        free(cats);
        if (rc < 0)
                return rc;
        if (first == 0 || tpa_trace_format(tr) == TPA_FORMAT_CHROME_JSON)
                tpa_trace_set_format(tr, TPA_FORMAT_XSPACE, tpa_trace_dialect(tr));
        return 0;
}

int tpa_xspace__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                     tpa_error *err)
{
        uint64_t max = opts->max_message != 0 ? opts->max_message : DEFAULT_MAX_MESSAGE;
        tpa_pb_arena arena;
        Tpapb__XSpace *xs;
        uint8_t *data;
        size_t len;
        int rc;

        rc = tpa_source_read_all(src, &data, &len, max, err);
        if (rc < 0)
                return rc;
        /* protobuf-c's structs take a few times the wire size */
        tpa_pb_arena_init(&arena, max * 8 + (64u << 20));
        xs = tpapb__xspace__unpack(&arena.alloc, len, data);
        free(data);
        if (xs == NULL) {
                rc = arena.hit_limit
                     ? tpa_error_setf(err, TPA_ELIMIT, "the XSpace needs more memory than "
                                      "the limit allows")
                     : tpa_error_set(err, TPA_EFORMAT, 0, "not a valid XSpace protobuf");
                tpa_pb_arena_free(&arena);
                return rc;
        }
        rc = read_space(tr, xs, err);
        tpa_pb_arena_free(&arena);
        return rc;
}
