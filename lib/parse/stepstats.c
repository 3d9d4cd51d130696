/* SPDX-License-Identifier: MIT */
/*
 * stepstats.c - the RunMetadata / StepStats reader (TF1's
 * sess.run(options=FULL_TRACE, run_metadata=...)). One RunMetadata is one
 * step; several files on one trace are several steps.
 *
 * Devices become processes named as TF's timeline.py names them
 * ("<device> Compute"), so that the TF1 tables in parse/classify.c give a
 * RunMetadata and its Timeline JSON the same kinds (doc/design.md 4):
 *
 *   <dev>/stream:all, <dev>/memcpy   duplicates of the per-stream devices:
 *                                    dropped, counted in duplicates_dropped
 *   <dev>/stream:N (and stream:N<MemcpyH2D>)
 *                                    device streams: kernels and copies, named
 *                                    by op type as timeline.py does; copy kind
 *                                    and bytes from the timeline_label
 *   <dev>/sync                       cuStreamSynchronize calls: sync events
 *   /job:.../device:CPU:0            executor activity: host ops, one track
 *                                    per thread_id and lane (below)
 *   /job:.../device:GPU:0            op scheduling on the host for the GPU,
 *                                    not device time: host ops too (as the
 *                                    Timeline shows them), never device busy
 *
 * A node's thread_id is no OS thread: TF files ops that ran at once on
 * different inter-op threads under one id (IteratorGetNext waiting on one
 * thread while a MatMul computes on another, both thread_id 0). Read as one
 * track, those ops would nest, and an op nested in an input op counts as
 * input. So, as timeline.py's _assign_lanes does for the Timeline JSON, the
 * nodes of each thread_id go to lanes, in order, each node to the first lane
 * whose last node ended by its start: overlapping nodes never share a track
 * (lane 0 keeps the thread_id; at most MAX_LANES lanes, the last shared).
 * A GPU stream's kernels and copies keep their one track.
 *
 * Each step also gets a marker, "train N" on a thread "steps" of its host
 * device, spanning the step's node stats, numbered by the tfevents step or
 * by its order across inputs; a tfevents tag is kept in its name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/readers.h"
#include "model/utf8.h"
#include "parse/classify.h"
#include "parse/pb_arena.h"
#include "parse/pb_trim.h"
#include "parse/stepstats.h"

#define TIME_MAX (INT64_C(1) << 61)
#define MAX_LANES 64

/* The lanes of one device: per lane its thread_id and the end of its last node. */
struct lane {
        uint32_t thread_id;
        uint32_t index;         /* among the lanes of its thread_id */
        tpa_ns   end;
};

/* The track id of a node of thread_id starting at ts and ending at end: the
 * first lane of thread_id free at ts, else a new one (doc comment above). */
static int64_t lane_of(struct lane *lanes, size_t *n, uint32_t thread_id, tpa_ns ts, tpa_ns end)
{
        size_t last = SIZE_MAX;
        uint32_t count = 0;

        for (size_t i = 0; i < *n; i++) {
                if (lanes[i].thread_id != thread_id)
                        continue;
                count++;
                last = i;
                if (lanes[i].end <= ts) {
                        lanes[i].end = end;
                        return ((int64_t)lanes[i].index << 32) | thread_id;
                }
        }
        if (*n == MAX_LANES) {
                if (last == SIZE_MAX)
                        return thread_id;       /* no lane left: one shared track */
                if (end > lanes[last].end)
                        lanes[last].end = end;
                return ((int64_t)lanes[last].index << 32) | thread_id;
        }
        lanes[*n] = (struct lane){ thread_id, count, end };
        (*n)++;
        return ((int64_t)count << 32) | thread_id;
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool is_duplicate_device(const char *d)
{
        return has_suffix(d, "/stream:all") || has_suffix(d, "/memcpy");
}

static bool is_gputrace_device(const char *d)
{
        return strstr(d, "/stream:") != NULL || strstr(d, "/memcpy") != NULL;
}

/* The copy direction a label or device name spells, or TPA_KIND_OTHER. */
static tpa_kind copy_kind(const char *s)
{
        static const struct {
                const char *text;
                tpa_kind    kind;
        } names[] = {
                { "MemcpyH2D", TPA_KIND_COPY_H2D }, { "MEMCPYHtoD", TPA_KIND_COPY_H2D },
                { "MemcpyD2H", TPA_KIND_COPY_D2H }, { "MEMCPYDtoH", TPA_KIND_COPY_D2H },
                { "MemcpyD2D", TPA_KIND_COPY_D2D }, { "MEMCPYDtoD", TPA_KIND_COPY_D2D },
                { "MemcpyP2P", TPA_KIND_COPY_P2P }, { "MEMCPYPtoP", TPA_KIND_COPY_P2P },
        };

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (strstr(s, names[i].text) != NULL)
                        return names[i].kind;
        return TPA_KIND_OTHER;
}

static tpa_kind copy_kind_n(const char *s, size_t len)
{
        char buf[128];

        if (len >= sizeof(buf))
                len = sizeof(buf) - 1;
        memcpy(buf, s, len);
        buf[len] = '\0';
        return copy_kind(buf);
}

static const char *copy_name(tpa_kind k)
{
        switch (k) {
        case TPA_KIND_COPY_H2D: return "MemcpyH2D";
        case TPA_KIND_COPY_D2H: return "MemcpyD2H";
        case TPA_KIND_COPY_P2P: return "MemcpyP2P";
        default:                return "MemcpyD2D";
        }
}

/* Copy bytes from a timeline_label: "MemcpyH2D size:1024 dest:0 async:1"
 * (XSpace-derived) or "MEMCPYHtoD 1024 bytes" (older tracers). */
static bool label_bytes(const char *s, int64_t *out)
{
        const char *p = strstr(s, "size:");
        char *end;
        long long v;

        if (p != NULL) {
                v = strtoll(p + 5, &end, 10);
                if (end != p + 5 && v >= 0) {
                        *out = v;
                        return true;
                }
        }
        p = strstr(s, " bytes");
        if (p != NULL) {
                const char *q = p;
                while (q > s && q[-1] >= '0' && q[-1] <= '9')
                        q--;
                if (q < p) {
                        *out = strtoll(q, NULL, 10);
                        return true;
                }
        }
        return false;
}

/* The event name timeline.py would give: for GPU-tracer devices the op type
 * from "name:op" (the node between '@@' and '#' of the label when present),
 * else the op of "name = Op(args)", else the node name. `op` gets the node
 * name the event belongs to. */
static void event_name(const Tpapb__NodeExecStats *ns, bool gputrace, const char **name,
                       size_t *name_len, const char **op, size_t *op_len)
{
        const char *node = ns->node_name, *label = ns->timeline_label, *p, *q;
        size_t node_len = strlen(node);

        if (gputrace) {
                p = strstr(label, "@@");
                q = p != NULL ? strchr(p, '#') : NULL;
                if (p != NULL && q != NULL && q > p + 2) {
                        node = p + 2;
                        node_len = (size_t)(q - node);
                }
                p = memchr(node, ':', node_len);
                *op = node;
                *op_len = p != NULL ? (size_t)(p - node) : node_len;
                if (p != NULL) {
                        /* "name:op" -> op, up to a second ':' */
                        const char *e = memchr(p + 1, ':', node_len - (size_t)(p + 1 - node));
                        *name = p + 1;
                        *name_len = e != NULL ? (size_t)(e - *name)
                                              : node_len - (size_t)(p + 1 - node);
                } else {
                        *name = node;
                        *name_len = node_len;
                }
                return;
        }
        *op = node;
        *op_len = node_len;
        p = strstr(label, " = ");
        q = p != NULL ? strchr(p + 3, '(') : NULL;
        if (p != NULL && q != NULL && q > p + 3) {
                *name = p + 3;
                *name_len = (size_t)(q - *name);
        } else {
                *name = node;
                *name_len = node_len;
        }
}

/* Names from the input (devices, nodes, ops, the tfevents tag): invalid
 * UTF-8 is replaced and counted (model/utf8.h). */
static int intern(tpa_trace *tr, tpa_str *out, const char *s, size_t len, tpa_error *err)
{
        return tpa_utf8__intern(tr, out, s, len, 0, err);
}

/* The step marker: "train N" (or "train N: TAG" for a tfevents tag) on a
 * thread "steps" of the step's first host process, so that the TF1 tables
 * see a host step marker, here and in the JSON that convert writes. */
static int add_step(tpa_trace *tr, size_t first, tpa_ns lo, tpa_ns hi, const char *tag,
                    int64_t step_num, tpa_error *err)
{
        const tpa_event *all = tpa_trace_events(tr);
        uint32_t proc = UINT32_MAX, track;
        char name[256];
        tpa_event ev;
        size_t idx;
        tpa_str id;
        int rc;

        /* FileWriter.add_run_metadata(md, tag) without global_step (TF's
         * own ProfilerHook, the TF1 tutorials) gives every record step 0:
         * a number taken already is another step, numbered after the rest,
         * never merged with the first into one window spanning both */
        if ((rc = tpa_trace__step_number(tr, step_num, &step_num, err)) < 0)
                return rc;
        for (size_t i = first; i < tpa_trace_event_count(tr) && proc == UINT32_MAX; i++) {
                const tpa_thread *t = tpa_trace_thread_c(tr, all[i].track);
                const tpa_process *p = tpa_trace_process_c(tr, t->process);
                if (!is_gputrace_device(tpa_trace_str(tr, p->name)))
                        proc = t->process;
        }
        if (proc == UINT32_MAX) {
                if ((rc = tpa_trace__intern(tr, &id, "/host:steps Compute", 19, err)) < 0 ||
                    (rc = tpa_trace__get_process(tr, &proc, (tpa_id){ .str = id }, err)) < 0)
                        return rc;
                tpa_trace__process(tr, proc)->name = id;
        }
        if ((rc = tpa_trace__get_thread(tr, &track, proc, (tpa_id){ .num = -1 }, err)) < 0 ||
            (rc = tpa_trace__intern(tr, &id, "steps", 5, err)) < 0)
                return rc;
        tpa_trace__thread(tr, track)->name = id;
        if (tag != NULL)
                snprintf(name, sizeof(name), "train %lld: %s", (long long)step_num, tag);
        else
                snprintf(name, sizeof(name), "train %lld", (long long)step_num);
        memset(&ev, 0, sizeof(ev));
        ev.ts = lo;
        ev.dur = hi - lo;
        ev.track = track;
        if ((rc = intern(tr, &ev.name, name, strlen(name), err)) < 0 ||
            (rc = tpa_trace__add_event(tr, &ev, &idx, err)) < 0)
                return rc;
        return tpa_trace__set_aux(tr, idx, TPA_AUX_STEP_NUM, step_num, err);
}

int tpa_stepstats__mark(tpa_trace *tr, size_t first, size_t last, tpa_error *err)
{
        const tpa_event *all = tpa_trace_events(tr);
        tpa_ns lo = INT64_MAX, hi = INT64_MIN;
        size_t at = tpa_trace_event_count(tr);
        int rc;

        for (size_t i = first; i < last; i++) {
                if (all[i].ts < lo)
                        lo = all[i].ts;
                if (all[i].ts + all[i].dur > hi)
                        hi = all[i].ts + all[i].dur;
        }
        if (lo > hi)
                return 0;       /* no event: no step */
        if ((rc = add_step(tr, first, lo, hi, NULL, -1, err)) < 0)
                return rc;
        tpa_trace__events_mut(tr)[at].kind = TPA_KIND_STEP;
        return 0;
}

/* What the classifier cannot know from names alone. */
struct fixup {
        size_t   event;
        tpa_kind kind;          /* TPA_KIND__COUNT: keep */
};

int tpa_stepstats__add(tpa_trace *tr, const Tpapb__StepStats *ss, const char *step_name,
                       int64_t step_num, tpa_format format, tpa_error *err)
{
        size_t first = tpa_trace_event_count(tr), nfix = 0, cap = 0;
        struct fixup *fix = NULL;
        tpa_ns lo = INT64_MAX, hi = INT64_MIN;
        tpa_health *h = tpa_trace__health(tr);
        tpa_str *cats = NULL;
        int rc = 0;

        for (size_t d = 0; d < ss->n_dev_stats && rc == 0; d++) {
                const Tpapb__DeviceStepStats *ds = ss->dev_stats[d];
                const char *dev = ds->device;
                bool gputrace = is_gputrace_device(dev), sync = has_suffix(dev, "/sync");
                tpa_kind dev_copy = copy_kind(dev);
                char pname[512];
                uint32_t proc;
                tpa_str id;
                struct lane lanes[MAX_LANES];
                size_t nlanes = 0;

                h->records_read += ds->n_node_stats;
                if (is_duplicate_device(dev)) {
                        h->duplicates_dropped += ds->n_node_stats;
                        continue;
                }
                if (ds->n_node_stats == 0)
                        continue;
                snprintf(pname, sizeof(pname), "%s Compute", dev);
                if ((rc = intern(tr, &id, pname, strlen(pname), err)) < 0 ||
                    (rc = tpa_trace__get_process(tr, &proc, (tpa_id){ .str = id }, err)) < 0)
                        break;
                tpa_trace__process(tr, proc)->name = id;
                for (size_t i = 0; i < ds->n_node_stats && rc == 0; i++) {
                        const Tpapb__NodeExecStats *ns = ds->node_stats[i];
                        const char *name, *op;
                        size_t name_len, op_len, idx;
                        uint32_t track;
                        tpa_event ev;
                        int64_t bytes, tid;
                        tpa_kind k = TPA_KIND__COUNT;

                        memset(&ev, 0, sizeof(ev));
                        /* Times beyond +-2^61 ns (73 years) are garbage, and
                         * would overflow start + duration. */
                        if (ns->all_start_nanos < -TIME_MAX || ns->all_start_nanos > TIME_MAX ||
                            ns->all_end_rel_nanos > TIME_MAX ||
                            ns->all_start_micros < -TIME_MAX / 1000 ||
                            ns->all_start_micros > TIME_MAX / 1000 ||
                            ns->all_end_rel_micros > TIME_MAX / 1000) {
                                rc = tpa_error_setf(err, TPA_EFORMAT, "node '%.60s' has a time "
                                                    "out of range", ns->node_name);
                                break;
                        }
                        if (ns->all_start_nanos != 0) {
                                ev.ts = ns->all_start_nanos;
                                ev.dur = ns->all_end_rel_nanos;
                        } else {
                                ev.ts = ns->all_start_micros * 1000;
                                ev.dur = ns->all_end_rel_micros * 1000;
                        }
                        if (ev.dur < 0)
                                ev.dur = 0;
                        /* a stream's kernels and a device's syncs run in turn */
                        tid = gputrace || sync ? ns->thread_id
                                               : lane_of(lanes, &nlanes, ns->thread_id, ev.ts,
                                                         ev.ts + ev.dur);
                        if ((rc = tpa_trace__get_thread(tr, &track, proc,
                                                        (tpa_id){ .num = tid }, err)) < 0)
                                break;
                        for (size_t t = 0; t < ds->n_thread_names && tid == ns->thread_id; t++)
                                if (ds->thread_names[t]->key == ns->thread_id &&
                                    tpa_trace__thread(tr, track)->name == TPA_STR_EMPTY &&
                                    (rc = intern(tr, &tpa_trace__thread(tr, track)->name,
                                                 ds->thread_names[t]->value,
                                                 strlen(ds->thread_names[t]->value),
                                                 err)) < 0)
                                        break;
                        if (rc < 0)
                                break;
                        if (sync) {
                                name = ns->node_name;
                                name_len = strlen(name);
                                op = NULL;
                                op_len = 0;
                                k = TPA_KIND_SYNC;
                        } else {
                                event_name(ns, gputrace, &name, &name_len, &op, &op_len);
                                if (gputrace) {
                                        tpa_kind c = copy_kind(ns->timeline_label);
                                        if (c == TPA_KIND_OTHER)
                                                c = dev_copy;
                                        if (c == TPA_KIND_OTHER)
                                                c = copy_kind(ns->node_name);
                                        /* Name a copy as XSpace does, so that the
                                         * name alone gives the kind (and does so
                                         * again when converted to JSON). */
                                        if (c != TPA_KIND_OTHER &&
                                            copy_kind_n(name, name_len) != c) {
                                                name = copy_name(c);
                                                name_len = strlen(name);
                                        }
                                        if (c != TPA_KIND_OTHER)
                                                k = c;
                                }
                        }
                        if ((rc = intern(tr, &ev.name, name, name_len, err)) < 0)
                                break;
                        ev.track = track;
                        if ((rc = tpa_trace__add_event(tr, &ev, &idx, err)) < 0)
                                break;
                        if (ev.ts < lo)
                                lo = ev.ts;
                        if (ev.ts + ev.dur > hi)
                                hi = ev.ts + ev.dur;
                        if (op != NULL && op_len > 0 && (gputrace || op_len != name_len ||
                                                         memcmp(op, name, op_len) != 0)) {
                                tpa_str o;
                                if ((rc = intern(tr, &o, op, op_len, err)) < 0 ||
                                    (rc = tpa_trace__set_aux(tr, idx, TPA_AUX_OP, o, err)) < 0)
                                        break;
                        }
                        if (gputrace && tpa_kind_is_copy(k) &&
                            label_bytes(ns->timeline_label, &bytes) &&
                            (rc = tpa_trace__set_aux(tr, idx, TPA_AUX_BYTES, bytes, err)) < 0)
                                break;
                        if (k != TPA_KIND__COUNT) {
                                if (nfix == cap) {
                                        size_t n = cap ? cap * 2 : 64;
                                        struct fixup *f = realloc(fix, n * sizeof(*f));
                                        if (f == NULL) {
                                                rc = tpa_error_oom(err);
                                                break;
                                        }
                                        fix = f;
                                        cap = n;
                                }
                                fix[nfix++] = (struct fixup){ idx, k };
                        }
                }
        }
        if (rc < 0)
                goto out;
        if (tpa_trace_event_count(tr) > first) {
                rc = add_step(tr, first, lo, hi, step_name, step_num, err);
                if (rc < 0)
                        goto out;
        }
        cats = calloc(tpa_trace_event_count(tr) - first + 1, sizeof(*cats));
        if (cats == NULL) {
                rc = tpa_error_oom(err);
                goto out;
        }
        rc = tpa_classify__chrome(tr, first, cats, &(tpa_classify_hints){ 0 }, err);
        if (rc < 0)
                goto out;
        for (size_t i = 0; i < nfix; i++)
                tpa_trace__events_mut(tr)[fix[i].event].kind = fix[i].kind;
        if (first == 0 || tpa_trace_format(tr) == TPA_FORMAT_CHROME_JSON)
                tpa_trace__set_format(tr, format, TPA_DIALECT_TF1);
out:
        free(fix);
        free(cats);
        return rc;
}

static bool looks_like_step_stats(const Tpapb__StepStats *ss)
{
        for (size_t i = 0; i < ss->n_dev_stats; i++)
                if (ss->dev_stats[i]->device[0] != '/')
                        return false;
        return true;
}

int tpa_stepstats__add_bytes(tpa_trace *tr, const uint8_t *data, size_t len, uint64_t limit,
                             const char *step_name, int64_t step_num, tpa_format format,
                             uint64_t offset, tpa_error *err)
{
        tpa_pb_arena arena;
        Tpapb__RunMetadata *rm;
        Tpapb__StepStats *ss = NULL;
        int rc;

        tpa_pb__arena_init(&arena, limit);
        /* A RunMetadata and a bare StepStats both open with field 1: the
         * device names ("/job:...", "/device:...") tell them apart. */
        rm = tpapb__run_metadata__unpack(&arena.alloc, len, data);
        if (rm != NULL && rm->step_stats != NULL && looks_like_step_stats(rm->step_stats))
                ss = rm->step_stats;
        if (ss == NULL) {
                Tpapb__StepStats *bare = tpapb__step_stats__unpack(&arena.alloc, len, data);
                if (bare != NULL && looks_like_step_stats(bare))
                        ss = bare;
        }
        if (ss == NULL) {
                rc = arena.hit_limit
                     ? tpa_error_set(err, TPA_ELIMIT, offset, "the RunMetadata needs more "
                                     "memory than the limit allows")
                     : tpa_error_set(err, TPA_EFORMAT, offset,
                                     "not a valid RunMetadata or StepStats protobuf");
                tpa_pb__arena_free(&arena);
                return rc;
        }
        rc = tpa_stepstats__add(tr, ss, step_name, step_num, format, err);
        tpa_pb__arena_free(&arena);
        return rc;
}

/* Where a cut may fall: RunMetadata { 1: StepStats { 1: DeviceStepStats
 * { 2: NodeExecStats } } }, or the same without the RunMetadata around. */
static const uint32_t run_metadata_fields[] = { 1, 1, 2 };
static const tpa_pb_path cut_paths[] = {
        { run_metadata_fields, 3 }, { run_metadata_fields + 1, 2 },
};

int tpa_stepstats__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                        tpa_error *err)
{
        uint64_t max = tpa_pb__max_message(opts);
        uint64_t limit = max * 8 + (64u << 20);
        uint8_t *data, *whole = NULL;
        size_t len;
        int rc;

        rc = tpa_pb__read_all(src, opts, &data, &len, err);
        if (rc < 0)
                return rc;
        rc = tpa_stepstats__add_bytes(tr, data, len, limit, NULL, -1, TPA_FORMAT_STEPSTATS, 0,
                                      err);
        /* Not whole: perhaps cut. Its whole part, read as either message. */
        for (size_t i = 0; rc == TPA_EFORMAT && i < 2; i++) {
                size_t n = len;
                tpa_error e = TPA_ERROR_INIT;
                if (whole == NULL && (whole = malloc(len)) == NULL)
                        break;
                memcpy(whole, data, len);
                if (tpa_pb__trim(whole, &n, &cut_paths[i]) == TPA_PB_CUT &&
                    tpa_stepstats__add_bytes(tr, whole, n, limit, NULL, -1, TPA_FORMAT_STEPSTATS,
                                             0, &e) == 0) {
                        if (err != NULL)
                                *err = (tpa_error)TPA_ERROR_INIT;
                        rc = tpa_pb__cut(tr, len, opts->strict, err);
                }
        }
        free(whole);
        return rc;
}
