/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - tpa_analyze(): classify tracks and events, find the steps'
 * windows, build the merged interval lists every later stage queries (one
 * per device channel, host channel and host thread), then run the
 * partition, the devices' unions, warm-up, metrics and the summary in
 * turn. On a large trace each of these works on two threads
 * (tpa_analysis__in_two()), with the same result as on one. Also the
 * result's free.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis_internal.h"
#include "model/utf8.h"

/* Free the n lists of v (NULL: none), not v itself. */
static void ivl_free_each(tpa_ivl_list *v, size_t n)
{
        for (size_t i = 0; v != NULL && i < n; i++)
                tpa_ivl__free(&v[i]);
}

/* ---- event classes --------------------------------------------------------- */

static const char *const bucket_names[TPA_BUCKET__COUNT] = {
        "compute", "transfer_h2d", "transfer_d2h", "transfer_d2d", "transfer_p2p",
        "sync_host_wait", "sync_collective", "input", "host_launch", "host_setup",
        "host_python", "host_compute", "idle",
};
static const char *const group_names[TPA_GROUP__COUNT] = {
        "compute", "transfer", "sync", "input", "host", "idle",
};

const char *tpa_bucket_name(tpa_bucket b)
{
        return (unsigned)b < TPA_BUCKET__COUNT ? bucket_names[b] : "?";
}

const char *tpa_group_name(tpa_group g)
{
        return (unsigned)g < TPA_GROUP__COUNT ? group_names[g] : "?";
}

tpa_group tpa_bucket_group(tpa_bucket b)
{
        switch (b) {
        case TPA_BUCKET_COMPUTE:        return TPA_GROUP_COMPUTE;
        case TPA_BUCKET_H2D: case TPA_BUCKET_D2H: case TPA_BUCKET_D2D:
        case TPA_BUCKET_P2P:            return TPA_GROUP_TRANSFER;
        case TPA_BUCKET_SYNC_HOST_WAIT:
        case TPA_BUCKET_SYNC_COLLECTIVE: return TPA_GROUP_SYNC;
        case TPA_BUCKET_INPUT:          return TPA_GROUP_INPUT;
        case TPA_BUCKET_HOST_LAUNCH: case TPA_BUCKET_HOST_SETUP:
        case TPA_BUCKET_HOST_PYTHON:
        case TPA_BUCKET_HOST_COMPUTE:   return TPA_GROUP_HOST;
        default:                        return TPA_GROUP_IDLE;
        }
}

/* Host-thread events by what they mean for the partition. Kernels and
 * copies seen on a host thread are the host side of a launch or a copy
 * op (TF2 shows both on tf_Compute threads). */
static int host_channel(unsigned kind)
{
        switch (kind) {
        case TPA_KIND_SYNC:     return HCH_SYNC;
        case TPA_KIND_INPUT:    return HCH_INPUT;
        case TPA_KIND_LAUNCH:
        case TPA_KIND_KERNEL:
        case TPA_KIND_MEMSET:   return HCH_LAUNCH;
        case TPA_KIND_SETUP:    return HCH_SETUP;
        case TPA_KIND_HOST_OP:
        case TPA_KIND_COLLECTIVE:
        case TPA_KIND_COPY_H2D: case TPA_KIND_COPY_D2H:
        case TPA_KIND_COPY_D2D: case TPA_KIND_COPY_P2P:
                                return HCH_OP;
        default:                return -1;
        }
}

static int device_channel(unsigned kind)
{
        switch (kind) {
        case TPA_KIND_COPY_H2D:   return CH_H2D;
        case TPA_KIND_COPY_D2H:   return CH_D2H;
        case TPA_KIND_COPY_D2D:   return CH_D2D;
        case TPA_KIND_COPY_P2P:   return CH_P2P;
        case TPA_KIND_COLLECTIVE: return CH_COLL;
        default:                  return CH_KERNEL;
        }
}

/* A tf.data thread that runs the pipeline ahead of the step (a map's
 * functions, a prefetch's buffer filling): every thread tf.data names
 * but the ones the step's next batch is taken on ("tf_data_iterator_get_
 * next", "..._as_optional"). TF groups its work with no step, which
 * then waits on the taking only, and neither do we count it as a wait
 * (channel_events()): without the groups (an XSpace), by its thread. */
static bool producer(const char *name)
{
        return (strncmp(name, "tf_data", 7) == 0 || strncmp(name, "tf.data", 7) == 0) &&
               strncmp(name, "tf_data_iterator_get_next", 25) != 0;
}

/* Two device processes are one device when they share an ordinal and
 * labels: TF1 timelines name a process per stream ("/device:GPU:0/stream:12
 * Compute", ".../stream:13 Compute"); a merged file labels each input's
 * processes with its file ("GPU 0, a.json"), so its GPU 0s stay apart. */
static bool same_device(const tpa_process *a, const tpa_process *b)
{
        return a->device >= 0 && a->device == b->device && a->label == b->label;
}

/* A device's name: its process name; "GPU:N" (or "ROCm GPU:N", "MTIA:N",
 * "TPU:N") for a device made of several processes or named nothing useful; the labels added in [] when another
 * device has the same name (merged inputs). */
static void name_devices(tpa_actx *c, const size_t *rep, const size_t *members, size_t nd,
                         char *slots, size_t slot_size, bool *clash)
{
        tpa_runtime rt = tpa_trace_runtime(c->tr);

        for (size_t d = 0; d < nd; d++) {
                const tpa_process *p = tpa_trace_process_c(c->tr, (uint32_t)rep[d]);
                const char *pn = tpa_trace_str(c->tr, p->name);
                const char *lab = tpa_trace_str(c->tr, p->label);
                char *slot = slots + d * slot_size;
                /* what the device is, as the trace and its runtime say */
                const char *kind = rt == TPA_RUNTIME_MTIA || strncmp(pn, "MTIA", 4) == 0 ||
                                   strncmp(lab, "MTIA", 4) == 0 ? "MTIA"
                                 : strstr(pn, "TPU") != NULL ? "TPU"
                                 : rt == TPA_RUNTIME_ROCM ? "ROCm GPU" : "GPU";

                if (members[d] == 1 && (strstr(pn, "GPU") != NULL || strstr(pn, "device") != NULL ||
                                        (p->device < 0 && pn[0] != '\0')))
                        snprintf(slot, slot_size, "%s", pn);
                else if (p->device >= 0)
                        snprintf(slot, slot_size, "%s:%d", kind, (int)p->device);
                else
                        snprintf(slot, slot_size, "device");
                /* a long name cut by the slot ends before the character
                 * the cut fell in, not inside it */
                tpa_utf8__trim(slot);
                c->a->device_names[d] = slot;
        }
        /* first find every clash, then rename: renaming one would hide its
         * clash from the other */
        for (size_t d = 0; d < nd; d++) {
                clash[d] = false;
                for (size_t e = 0; e < nd && !clash[d]; e++)
                        clash[d] = e != d &&
                                   strcmp(c->a->device_names[d], c->a->device_names[e]) == 0;
        }
        for (size_t d = 0; d < nd; d++) {
                const tpa_process *p = tpa_trace_process_c(c->tr, (uint32_t)rep[d]);
                if (clash[d] && p->label != TPA_STR_EMPTY) {
                        char *slot = slots + d * slot_size;
                        size_t n = strlen(slot);
                        snprintf(slot + n, slot_size - n, " [%s]", tpa_trace_str(c->tr, p->label));
                        tpa_utf8__trim(slot);
                }
        }
}

/* What find_devices_and_markers()' pass over half of the events finds: the
 * processes (by track class, for now) whose streams carry device work, and the input
 * events of host threads that tpa_analysis__channels() wants first (speed,
 * bench/: they were a pass of its own, on the longer of its two threads). */
struct first_look {
        bool         *has;      /* per process */
        tpa_ivl_list *inp;      /* per track: input events of a host thread */
        tpa_ivl_list *coll;     /* per track: collectives of a host thread */
        bool          grouped;  /* some of them carry a TF group id */
        tpa_marker_list *markers;       /* per source */
        tpa_ext      *ext;      /* the steps' tables, this part's */
        /* the census for the report (tpa_analysis.events_*): a pass of the
         * report's own would be a large part of its time (bench/) */
        tpa_ns        start, end;
        uint64_t      by_kind[TPA_KIND__COUNT];
        uint64_t     *by_track; /* NULL: not counted */
};

static int first_look_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        struct first_look *fl = (struct first_look *)arg + part;
        /* counted here, stored at the end: the two parts' first_look
         * share cache lines */
        tpa_ns start = INT64_MAX, stop = INT64_MIN;
        uint64_t by_kind[256] = { 0 };  /* by the kind's 8 bits: no test per event */
        tpa_ext ext = *fl->ext;
        /* what every event reads, in locals: the stores to `has` (bytes)
         * could alias any field, which the loop then read again per event */
        const tpa_event *ev = c->ev;
        const int32_t *track_cls = c->track_cls;
        size_t ntracks = c->ntracks;
        bool *has = fl->has;
        uint64_t *by_track = fl->by_track;
        tpa_marker_list *markers = fl->markers;
        /* the names that may be a marker's, for the look below: without
         * a "ProfilerStep#N" name, only those past the strings (speed,
         * bench/: tpa_analysis__may_mark()'s reads of c per event) */
        size_t names = c->has_profiler_step ? 0 : c->str_count;
        size_t lo, hi;
        int r;

        tpa_analysis__half(c->n, part, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
                const tpa_event *e = &ev[i];
                int32_t t;

                tpa_analysis__ahead_of(ev, i);
                t = e->track < ntracks ? track_cls[e->track] : TRACK_SKIP;

                /* the markers' look, at the few events that may be one
                 * (speed, bench/: a look at every event, in a loop of its
                 * own, was half of this pass's instructions) */
                if ((e->name >= names || e->kind == TPA_KIND_STEP || t == TRACK_STEPS) &&
                    tpa_analysis__may_mark(c, e, t) &&
                    (r = tpa_analysis__collect_markers(c, i, i + 1, markers, err)) < 0)
                        return r;
                if (e->ts < start)
                        start = e->ts;
                if (e->ts + e->dur > stop)
                        stop = e->ts + e->dur;
                by_kind[e->kind]++;
                if (e->track >= ntracks)
                        continue;
                if (by_track != NULL)
                        by_track[e->track]++;
                if (t >= 0 && tpa_analysis__is_device_kind(e->kind)) {
                        if (!has[t])            /* no write: a line the parts share */
                                has[t] = true;
                        tpa_ext__device(&ext, e);
                } else if (t >= 0 && e->kind == TPA_KIND_ANNOTATION) {
                        /* a device seen only by its annotations (CUPTI's
                         * range profiler records no kernel): a device that
                         * did no work we can see, not a CPU-only trace */
                        if (!has[t])
                                has[t] = true;
                } else if (t == TRACK_HOST) {
                        tpa_ext__host(&ext, e, i);
                        if (e->kind == TPA_KIND_COLLECTIVE &&
                            (r = tpa_ivl__push(&fl->coll[e->track],
                                               tpa_p2p__from(c->p2p, c->np2p, i, e->ts),
                                               e->ts + e->dur, err)) < 0)
                                return r;
                        if (e->kind != TPA_KIND_INPUT)
                                continue;
                        /* what event_class() says of it: a host event */
                        fl->grouped = fl->grouped || e->group != 0;
                        if ((r = tpa_ivl__push(&fl->inp[e->track], e->ts,
                                               e->ts + e->dur, err)) < 0)
                                return r;
                }
        }
        /* sorted here, each part its own (speed: two halves sort in parallel,
         * where one thread would sort the whole after) */
        tpa_analysis__ext_sort(&ext);
        *fl->ext = ext;
        fl->start = start;
        fl->end = stop;
        memcpy(fl->by_kind, by_kind, sizeof(fl->by_kind));
        return 0;
}

/* Counts per track, zero, in cache lines of their own: the two parts
 * count at once. */
static uint64_t *by_track_new(size_t ntracks)
{
        size_t size = ((ntracks ? ntracks : 1) * sizeof(uint64_t) + 63) / 64 * 64;
        uint64_t *v = aligned_alloc(64, size);

        if (v != NULL)
                memset(v, 0, size);
        return v;
}

/* The first pass over the events, on two threads: it finds the devices,
 * collects the step markers of each source and fills the steps' tables
 * (device work by correlation id and TF group, the host events that carry
 * a correlation id), and counts the events for the report's census.
 * Devices are processes whose streams carry device work (several processes
 * of one device grouped: same_device()); they are numbered by ordinal, then
 * by process order. */
static int find_devices_and_markers(tpa_actx *c, tpa_error *err)
{
        enum { SLOT = 160 };
        size_t np = tpa_trace_process_count(c->tr), nd = 0;
        size_t n1 = np ? np : 1;
        bool *has = calloc(n1, sizeof(*has));
        int32_t *pdev = malloc(n1 * sizeof(*pdev)), *rank = malloc(n1 * sizeof(*rank));
        size_t *rep = malloc(n1 * sizeof(*rep)), *members = calloc(n1, sizeof(*members));
        size_t *rep2 = malloc(n1 * sizeof(*rep2)), *members2 = malloc(n1 * sizeof(*members2));
        struct first_look fl[2] = { { 0 } };
        tpa_marker_list markers1[SRC__COUNT] = { { 0 } };
        int r = 0;

        c->ntracks = tpa_trace_thread_count(c->tr);
        c->track_cls = calloc(c->ntracks ? c->ntracks : 1, sizeof(*c->track_cls));
        c->producer = calloc(c->ntracks ? c->ntracks : 1, sizeof(*c->producer));
        if (has == NULL || c->track_cls == NULL || c->producer == NULL || pdev == NULL ||
            rank == NULL || rep == NULL || members == NULL || rep2 == NULL || members2 == NULL) {
                r = tpa_error_oom(err);
                goto done;
        }
        for (size_t t = 0; t < c->ntracks; t++) {
                const tpa_thread *th = tpa_trace_thread_c(c->tr, (uint32_t)t);
                const tpa_process *p = tpa_trace_process_c(c->tr, th->process);

                if (th->role == TPA_TRACK_STEPS)
                        c->track_cls[t] = TRACK_STEPS;
                else if (th->role == TPA_TRACK_ANNOTATION || th->role == TPA_TRACK_OTHER ||
                         p->role == TPA_PROC_OTHER)
                        c->track_cls[t] = TRACK_SKIP;
                else if (th->role == TPA_TRACK_STREAM || p->role == TPA_PROC_DEVICE)
                        c->track_cls[t] = (int32_t)th->process;  /* process, for now */
                else
                        c->track_cls[t] = TRACK_HOST;
                c->producer[t] = c->track_cls[t] == TRACK_HOST &&
                                 producer(tpa_trace_str(c->tr, th->name));
        }
        fl[0].has = has;
        fl[1].has = calloc(n1, sizeof(*has));
        /* the census: without memory for the counts per track, the
         * report counts for itself */
        c->a->events_by_track = by_track_new(c->ntracks);
        fl[0].by_track = c->a->events_by_track;
        if (fl[0].by_track != NULL && (fl[1].by_track = by_track_new(c->ntracks)) == NULL) {
                free(c->a->events_by_track);
                c->a->events_by_track = fl[0].by_track = NULL;
        }
        c->inp = calloc(c->ntracks ? c->ntracks : 1, sizeof(*c->inp));
        fl[0].inp = c->inp;
        fl[1].inp = calloc(c->ntracks ? c->ntracks : 1, sizeof(*c->inp));
        c->coll = calloc(c->ntracks ? c->ntracks : 1, sizeof(*c->coll));
        fl[0].coll = c->coll;
        fl[1].coll = calloc(c->ntracks ? c->ntracks : 1, sizeof(*c->coll));
        /* the markers of every source, --step-marker or not: one that
         * matches nothing falls back to them, with a note */
        if ((r = tpa_analysis__name_markers(c, err)) < 0)
                goto done;
        fl[0].markers = c->markers;
        fl[1].markers = markers1;
        if (fl[1].has == NULL || c->inp == NULL || fl[1].inp == NULL || c->coll == NULL ||
            fl[1].coll == NULL) {
                r = tpa_error_oom(err);
                goto done;
        }
        if ((r = tpa_analysis__ext_new(c, err)) < 0)
                goto done;
        fl[0].ext = &c->ext[0];
        fl[1].ext = &c->ext[1];
        if ((r = tpa_analysis__in_two(c, first_look_part, fl, err)) < 0)
                goto done;
        for (size_t p = 0; p < np; p++)
                has[p] = has[p] || fl[1].has[p];
        c->a->events_start = c->n > 0 ? (fl[0].start < fl[1].start ? fl[0].start : fl[1].start) : 0;
        c->a->events_end = c->n > 0 ? (fl[0].end > fl[1].end ? fl[0].end : fl[1].end) : 0;
        memcpy(c->kinds1, fl[1].by_kind, sizeof(c->kinds1));
        for (int k = 0; k < TPA_KIND__COUNT; k++)
                c->a->events_by_kind[k] = fl[0].by_kind[k] + fl[1].by_kind[k];
        for (size_t t = 0; fl[1].by_track != NULL && t < c->ntracks; t++)
                c->a->events_by_track[t] += fl[1].by_track[t];
        /* the second half's input intervals join the first's: merged, the
         * lists are their union whatever the order */
        for (size_t t = 0; t < c->ntracks && r == 0; t++)
                for (size_t k = 0; k < fl[1].inp[t].n && r == 0; k++)
                        r = tpa_ivl__append(&c->inp[t], fl[1].inp[t].v[k].s,
                                            fl[1].inp[t].v[k].e, err);
        for (size_t t = 0; t < c->ntracks && r == 0; t++)
                for (size_t k = 0; k < fl[1].coll[t].n && r == 0; k++)
                        r = tpa_ivl__append(&c->coll[t], fl[1].coll[t].v[k].s,
                                            fl[1].coll[t].v[k].e, err);
        /* and its markers follow the first's, in event order */
        for (int k = 0; k < SRC__COUNT && r == 0; k++) {
                tpa_marker_list *l = &c->markers[k];
                size_t n = l->n + markers1[k].n;
                if (markers1[k].n == 0)
                        continue;
                if (n > l->cap) {
                        tpa_marker *v = realloc(l->v, n * sizeof(*v));
                        if (v == NULL) {
                                r = tpa_error_oom(err);
                                break;
                        }
                        l->v = v;
                        l->cap = n;
                }
                memcpy(l->v + l->n, markers1[k].v, markers1[k].n * sizeof(*l->v));
                l->n = n;
        }
        if (r < 0)
                goto done;
        c->grouped = fl[0].grouped || fl[1].grouped;
        /* group: pdev[p] is the group of process p, in order of first process */
        for (size_t p = 0; p < np; p++) {
                const tpa_process *pp = tpa_trace_process_c(c->tr, (uint32_t)p);
                size_t g = 0;
                pdev[p] = -1;
                if (!has[p])
                        continue;
                while (g < nd && !same_device(tpa_trace_process_c(c->tr, (uint32_t)rep[g]), pp))
                        g++;
                if (g == nd)
                        rep[nd++] = p;
                members[g]++;
                pdev[p] = (int32_t)g;
        }
        /* number the groups by ordinal (unknown last), then by first process;
         * few devices: a quadratic rank is fine */
        for (size_t g = 0; g < nd; g++) {
                int32_t og = tpa_trace_process_c(c->tr, (uint32_t)rep[g])->device;
                rank[g] = 0;
                for (size_t h = 0; h < nd; h++) {
                        int32_t oh = tpa_trace_process_c(c->tr, (uint32_t)rep[h])->device;
                        bool before = og < 0 ? (oh >= 0 || h < g)
                                             : (oh >= 0 && (oh < og || (oh == og && h < g)));
                        rank[g] += before;
                }
        }
        for (size_t g = 0; g < nd; g++) {
                rep2[rank[g]] = rep[g];
                members2[rank[g]] = members[g];
        }
        for (size_t p = 0; p < np; p++)
                if (pdev[p] >= 0)
                        pdev[p] = rank[pdev[p]];
        for (size_t t = 0; t < c->ntracks; t++)
                if (c->track_cls[t] >= 0)
                        c->track_cls[t] = pdev[c->track_cls[t]] >= 0
                                          ? pdev[c->track_cls[t]] : TRACK_SKIP;
        c->a->device_count = nd;
        c->a->cpu_only = nd == 0;
        for (int part = 0; part < 2 && nd == 0; part++)
                for (size_t k = 0; k < c->ext[part].nh; k++)
                        c->a->unrecorded_launches +=
                                c->ev[c->ext[part].host[k]].kind == TPA_KIND_LAUNCH;
        c->ndev = nd ? nd : 1;
        /* one block: the pointers, then a slot per device for its name */
        c->a->device_names = calloc(1, c->ndev * (sizeof(*c->a->device_names) + SLOT));
        if (c->a->device_names == NULL) {
                r = tpa_error_oom(err);
                goto done;
        }
        if (nd == 0)
                c->a->device_names[0] = "CPU";
        /* `has` is free again: np >= nd flags for name_devices() */
        name_devices(c, rep2, members2, nd, (char *)(c->a->device_names + c->ndev), SLOT, has);
done:
        for (int k = 0; k < SRC__COUNT; k++)
                free(markers1[k].v);
        ivl_free_each(fl[1].inp, c->ntracks);
        free(fl[1].inp);
        ivl_free_each(fl[1].coll, c->ntracks);
        free(fl[1].coll);
        free(fl[1].has);
        free(fl[1].by_track);
        free(has);
        free(pdev);
        free(rank);
        free(rep);
        free(members);
        free(rep2);
        free(members2);
        return r;
}

/* What the channels' pass does with an event, by its track's class (a
 * TC_) and its kind (chan_codes()): a host channel (< HOST_CH__COUNT), one
 * of these, or from C_DEVICE on, a device channel. */
enum {
        C_HOST_OP = HOST_CH__COUNT,     /* a host op: HCH_OP, or input by its name */
        C_LAUNCH,                       /* a launch: by its correlation id and name */
        C_HOST,                         /* a host event of no channel: HCH_HOST */
        C_NONE,                         /* skipped: HCH_NONE */
        C_DEVICE,                       /* + the device channel */
};
enum { TC_DEVICE, TC_HOST, TC_SKIP, TC__COUNT };

/* The names host_channel_of() looks for, by their ids (strings are
 * interned), not a look at the name string of every host op. */
struct chan_names {
        tpa_str h2d;                    /* "MemcpyH2D" */
        tpa_str executor;               /* "ExecutorState::Process" */
        bool    has_h2d, has_executor;  /* the trace has the name */
        tpa_str py[3];                  /* of "EagerPyFunc", "PyFunc", "PyFuncStateless" */
        size_t  npy;                    /* those the trace has */
        bool   *py_fn;                  /* by string id: a Python autograd.Function's
                                           forward or backward (NULL: none) */
        tpa_str ckpt[6];                /* of the checkpoint ops, eager scopes of them */
        size_t  nckpt;
        bool   *bw;                     /* by string id: an autograd node's (NULL: none) */
};

/* The host channel of host event e, of code `code` (chan_codes(): what
 * its kind says), with three readings of what TF shows:
 * - the host side of a host-to-device copy (kind copy_h2d on a host thread,
 *   or TF's "MemcpyH2D" op) is input: the device waits for data, as XProf
 *   counts host_to_device in its input time;
 * - TF's executor running the ops of a step on a device
 *   (ExecutorState::Process) launches them: XProf counts it as "Kernel
 *   Launch" (host_prepare) beside the calls that carry a correlation id;
 * - another launch-kind event without a correlation id (EagerExecute,
 *   KernelAndDeviceFunc::Run, TFE_Py_FastPathExecute_C) is a dispatch
 *   scope spanning the ops it runs and the waits between them. With a
 *   device it counts as a framework op: the waits are for kernels.
 *   CPU-only, the ops inside run on the host and are the compute; what is
 *   left of the scope is the runtime dispatching them (eager dispatch,
 *   executor bookkeeping between ops), so it is launch, i.e. host overhead.
 *   XProf's IsRealCpuCompute leaves the same scopes out of CPU compute.
 * Launches proper (cudaLaunchKernel, the host side of a kernel) carry a
 * correlation id. */
static int host_channel_of(int code, const tpa_event *e, const struct chan_names *names,
                           bool cpu_only)
{
        if (code == C_HOST_OP)
                return e->name == names->h2d ? HCH_INPUT : HCH_OP;
        if (code == C_LAUNCH)
                return e->corr != 0 || cpu_only ||
                       (names->has_executor && e->name == names->executor) ? HCH_LAUNCH : HCH_OP;
        return code;
}

/* The channels' table (struct chan_job): what the pass does with an event
 * of kind k on a track of class tc, all that its track and kind say
 * (speed, bench/: the class and the channel were worked out again for
 * each event). Kinds are 8 bits: no test of the kind per event. */
static void chan_codes(uint8_t code[][256], const struct chan_names *names)
{
        for (unsigned k = 0; k < 256; k++) {
                int ch = host_channel(k);

                code[TC_SKIP][k] = C_NONE;
                code[TC_DEVICE][k] = tpa_analysis__is_device_kind(k)
                                     ? (uint8_t)(C_DEVICE + device_channel(k)) : C_NONE;
                if (k == TPA_KIND_ANNOTATION || k == TPA_KIND_STEP)
                        ch = C_NONE;
                else if (k == TPA_KIND_COPY_H2D)
                        ch = HCH_INPUT;
                else if (k == TPA_KIND_HOST_OP && names->has_h2d)
                        ch = C_HOST_OP;
                else if (k == TPA_KIND_LAUNCH)
                        ch = C_LAUNCH;
                else if (ch < 0)
                        ch = C_HOST;
                code[TC_HOST][k] = (uint8_t)ch;
        }
}

/* True when name n is an op that runs Python: tf.py_function's
 * EagerPyFunc, tf.numpy_function's PyFunc, PyFuncStateless. */
static bool is_py_op(const struct chan_names *names, tpa_str n)
{
        for (size_t k = 0; k < names->npy; k++)
                if (n == names->py[k])
                        return true;
        return names->py_fn != NULL && names->py_fn[n];
}

/* True when s[0, len) names one of PyTorch's own autograd.Functions. */
static bool torch_function(const char *s, size_t len)
{
        static const char *const own[] = { "CompiledFunction", "RegisterPostBackwardFunction" };

        for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
                if (len == strlen(own[k]) && memcmp(s, own[k], len) == 0)
                        return true;
        return false;
}

/* PyTorch records a torch.autograd.Function written in Python by its
 * class's name: its apply() (the forward) as "F", its backward node as
 * "FBackward", and the engine's scope of it as
 * "autograd::engine::evaluate_function: FBackward". Built-in nodes are
 * numbered ("AddmmBackward0") or C++ ("torch::autograd::AccumulateGrad",
 * "CopyBackwards"); so a name "FBackward" whose "F" the trace holds too is
 * a Python Function's. AOT autograd's CompiledFunction is one as well, but
 * its Python calls compiled kernels that record no op: compute, not
 * Python. PyTorch's own Functions (FSDP2's RegisterPostBackwardFunction,
 * private ones: "_DDPSink") are left as they were: their Python is the
 * framework's, which the advice (rewrite the Function) cannot reach. The
 * names of F, FBackward and the engine's scope of it are marked in py_fn
 * (by string id), in a PyTorch trace only (a pass over its strings);
 * returns false on no memory. */
static bool find_py_functions(const tpa_trace *tr, struct chan_names *names)
{
        static const char scope[] = "autograd::engine::evaluate_function: ";
        static const char bwd[] = "Backward";
        size_t n = tpa_trace_str_count(tr), sl = sizeof(scope) - 1, bl = sizeof(bwd) - 1;
        bool *mark = NULL;

        if (tpa_trace_dialect(tr) != TPA_DIALECT_KINETO)
                return true;
        for (size_t i = 0; i < n; i++) {
                const char *s = tpa_trace_str(tr, (tpa_str)i);
                size_t len = tpa_trace_str_len(tr, (tpa_str)i);
                tpa_str fwd, id;

                if (len <= bl || memcmp(s + len - bl, bwd, bl) != 0 ||
                    memchr(s, ':', len) != NULL || memchr(s, '<', len) != NULL ||
                    s[0] == '_' || torch_function(s, len - bl) ||
                    !tpa_trace_find_str(tr, &fwd, s, len - bl))
                        continue;
                if (mark == NULL && (mark = calloc(n, sizeof(*mark))) == NULL)
                        return false;
                mark[i] = mark[fwd] = true;
                if (len + sl < 256) {
                        char full[256];
                        memcpy(full, scope, sl);
                        memcpy(full + sl, s, len);
                        if (tpa_trace_find_str(tr, &id, full, sl + len))
                                mark[id] = true;
                }
        }
        names->py_fn = mark;
        return true;
}

/* True when s[0, len) names an autograd node or the engine's scope of one:
 * "AddmmBackward0", "NllLossBackward", "torch::autograd::AccumulateGrad",
 * "autograd::engine::evaluate_function: MmBackward0". */
static bool backward_name(const char *s, size_t len)
{
        static const char scope[] = "autograd::engine::evaluate_function";
        static const char cxx[] = "torch::autograd::";
        static const char bwd[] = "Backward";
        size_t end = len, bl = sizeof(bwd) - 1;

        if ((len >= sizeof(scope) - 1 && memcmp(s, scope, sizeof(scope) - 1) == 0) ||
            (len >= sizeof(cxx) - 1 && memcmp(s, cxx, sizeof(cxx) - 1) == 0))
                return true;
        while (end > 0 && s[end - 1] >= '0' && s[end - 1] <= '9')
                end--;
        return end > bl && memcmp(s + end - bl, bwd, bl) == 0 && memchr(s, ':', end) == NULL;
}

/* PyTorch runs a GPU model's backward pass on the autograd engine's thread
 * of the device, while the thread that called backward() waits in it with
 * no op of its own: that thread's framework time, for the Python gaps and
 * the python bucket of the thread that drives the steps. The names of the
 * autograd nodes (by string id, in bw) tell such a thread, in a PyTorch
 * trace only (a pass over its strings); returns false on no memory. */
static bool find_backward_names(const tpa_trace *tr, struct chan_names *names)
{
        size_t n = tpa_trace_str_count(tr);

        if (tpa_trace_dialect(tr) != TPA_DIALECT_KINETO)
                return true;
        for (size_t i = 0; i < n; i++) {
                if (!backward_name(tpa_trace_str(tr, (tpa_str)i),
                                   tpa_trace_str_len(tr, (tpa_str)i)))
                        continue;
                if (names->bw == NULL && (names->bw = calloc(n, sizeof(*names->bw))) == NULL)
                        return false;
                names->bw[i] = true;
        }
        return true;
}

/* A checkpoint's I/O: the ops that write and read checkpoint files (and
 * merge a sharded save), and the eager runtime's scope of each, which a
 * profile of tf.train.Checkpoint.save() shows with no op inside. */
static const char *const ckpt_names[6] = {
        "SaveV2", "RestoreV2", "MergeV2Checkpoints", "EagerLocalExecute: SaveV2",
        "EagerLocalExecute: RestoreV2", "EagerLocalExecute: MergeV2Checkpoints",
};

static bool is_ckpt(const struct chan_names *names, tpa_str n)
{
        for (size_t k = 0; k < names->nckpt; k++)
                if (n == names->ckpt[k])
                        return true;
        return false;
}

static const char *const py_names[3] = { "EagerPyFunc", "PyFunc", "PyFuncStateless" };

/* True when host event e, of channel ch, is a framework op or a dispatch
 * scope that an input event on the same thread encloses: the ops of a
 * tf.data map function run inline under Iterator::Map, a DataLoader's
 * collate under enumerate(DataLoader)#...__next__. They are input work,
 * not compute.
 * `inp` holds the merged input intervals of each track; near[track] the
 * interval found last on it, where the search starts (a thread's events
 * come in about time order). */
static bool under_input(const tpa_event *e, const tpa_ivl_list *inp, size_t *near, int ch)
{
        const tpa_ivl_list *l = &inp[e->track];
        size_t k;

        if (ch != HCH_OP && !(ch == HCH_LAUNCH && e->corr == 0))
                return false;
        if (l->n == 0 || e->dur <= 0)
                return false;
        k = tpa_ivl__first_after_near(l, e->ts, &near[e->track]);
        return k < l->n && l->v[k].s <= e->ts && e->ts + e->dur <= l->v[k].e;
}

/* How far back from its last interval a list of the channels' pass
 * places an interval that comes out of order (push_late()). */
enum { LATE_REACH = 8 };

/* [s, e) into the merged list l, whose last interval starts after s: in
 * its place among the last LATE_REACH intervals, joined with those it
 * reaches, so that l stays merged; farther back, appended, and *mixed set
 * (l then wants tpa_ivl__merge()). Out of line: traces give few events out
 * of order on a list, and those few mostly by one place. */
static int push_late(tpa_ivl_list *l, bool *mixed, tpa_ns s, tpa_ns e, tpa_error *err)
{
        size_t n = l->n, j = n - 1, lim = n > LATE_REACH ? n - LATE_REACH : 0, k, m;
        tpa_ivl *v;
        int r;

        while (j > lim && l->v[j - 1].s > s)
                j--;
        if (j > 0 && l->v[j - 1].s > s) {
                *mixed = true;
                return tpa_ivl__append(l, s, e, err);
        }
        /* l->v[j] is the first interval that starts after s */
        if (j > 0 && s <= l->v[j - 1].e) {
                k = j - 1;
                if (e > l->v[k].e)
                        l->v[k].e = e;
        } else {
                if ((r = tpa_ivl__append(l, s, e, err)) < 0)
                        return r;
                memmove(l->v + j + 1, l->v + j, (n - j) * sizeof(*l->v));
                l->v[j] = (tpa_ivl){ s, e };
                k = j;
        }
        v = l->v;
        for (m = k + 1; m < l->n && v[m].s <= v[k].e; m++)
                if (v[m].e > v[k].e)
                        v[k].e = v[m].e;
        memmove(v + k + 1, v + m, (l->n - m) * sizeof(*v));
        l->n -= m - k - 1;
        return 0;
}

/* tpa_ivl__push() for the lists of the channels' pass, which keeps them
 * merged while the intervals come in order, or nearly (push_late());
 * *mixed says when they did not. Speed (bench/): the lists were sorted and
 * merged after the pass, most of them in order already. */
static inline int push_ord(tpa_ivl_list *l, bool *mixed, tpa_ns s, tpa_ns e, tpa_error *err)
{
        if (e > s && l->n > 0 && s < l->v[l->n - 1].s && !*mixed)
                return push_late(l, mixed, s, e, err);
        return tpa_ivl__push(l, s, e, err);
}

/* push_ord() into a list of which *last holds an interval it covers (its
 * last one, mostly): nothing to do when [s, e) lies inside, else *last
 * takes the list's last interval after the push. Speed (bench/): nearly
 * every host event lies inside one before it on its channel and on its
 * thread, found here without a look into the list. */
static inline int push_cached(tpa_ivl_list *l, bool *mixed, tpa_ivl *last, tpa_ns s, tpa_ns e,
                              tpa_error *err)
{
        int r;

        if (last->s <= s && e <= last->e)
                return 0;
        if ((r = push_ord(l, mixed, s, e, err)) == 0 && l->n > 0)
                *last = l->v[l->n - 1];
        return r;
}

/*
 * CPU-only: host op e into the compute list, but for the collectives on
 * its thread inside it. A framework op that calls a collective (FSDP2's
 * autograd Functions around c10d::_allgather_base_, DDP's hooks around
 * c10d::allreduce_) waits in it: the thread runs the collective then, not
 * the op's math, and the partition's priority of compute over sync must
 * not hide it. Ops inside a collective (its copies into buffers) stay
 * compute, whole; and only the op's own thread's collectives cut it: one
 * on another thread beside an op is overlap, the op computing meanwhile.
 * `coll` holds the merged collectives of each track (first pass); near[]
 * the hint into it. The walk is over the collectives inside e only: each
 * collective is walked by the ops enclosing it, as deep as the nesting.
 */
static int push_cpu_op(const tpa_ivl_list *coll, tpa_ivl_list *out, bool *mixed, size_t *near,
                       const tpa_event *e, tpa_error *err)
{
        const tpa_ivl_list *l = &coll[e->track];
        tpa_ns s = e->ts, end = e->ts + e->dur;
        size_t k;
        int r = 0;

        if (l->n == 0 || e->dur <= 0)
                return push_ord(out, mixed, s, end, err);
        k = tpa_ivl__first_after_near(l, s, &near[e->track]);
        if (k == l->n || l->v[k].s >= end || (l->v[k].s <= s && end <= l->v[k].e))
                return push_ord(out, mixed, s, end, err);
        for (; k < l->n && l->v[k].s < end && r == 0; k++) {
                r = push_ord(out, mixed, s, l->v[k].s, err);
                if (l->v[k].e > s)
                        s = l->v[k].e;
        }
        return r == 0 ? push_ord(out, mixed, s, end, err) : r;
}

/*
 * The channels' pass: each device event into its device's channel list,
 * each host event of framework work into its host channel's and its
 * thread's (c->hch[] says where it went); and each
 * device event to the first window's settling. Speed (bench/): on one thread the
 * pass is a large part of the analysis. Each thread takes half of the events,
 * into lists of its own; lists are unions, merged after, the same
 * whichever thread took which half. Halves, not chunks taken in turn:
 * each thread's lists then come in time order (of the read), and their
 * merges are faster than those of chunks of 64 k events.
 */
struct chan_lists {
        tpa_ivl_list *dev;              /* ndev x DEV_CH__COUNT */
        tpa_ivl_list *host;             /* HOST_CH__COUNT */
        tpa_ivl_list *fw;               /* per track */
        bool         *mixed;            /* per list of dev, host, fw in turn: it
                                           came out of order (push_ord()) */
        tpa_ivl      *fw_last;          /* per track: push_cached()'s of fw */
        size_t       *near;             /* per track: under_input()'s hint */
        size_t       *cnear;            /* per track: push_cpu_op()'s hint */
        bool         *bw;               /* per track: it runs autograd nodes */
        size_t       *knear;            /* per track: under_compile()'s hint */
};

struct chan_job {
        struct chan_lists part[2];      /* part 0's are the context's */
        tpa_ivl_list      host1[HOST_CH__COUNT];
        struct chan_names names;
        int               lent;         /* part 1's list of this channel lies in
                                           part 0's block; -1: none */
        tpa_ivl_list     *comp;         /* per track: tracing and compiling, merged;
                                           NULL: none in the trace */
        uint8_t          *tcls;         /* per track: its TC_ */
        uint8_t           code[TC__COUNT][256];  /* by TC_ and kind: a C_ */
};

/* The spans of tracing and compiling on each host thread (events of a
 * compile name, TPA_FLAG_COMPILE; not a tf.function's call that traced,
 * which spans the call's run too), merged, into job->comp: none, NULL.
 * A pass over the flagged events only. */
static int compile_spans(const tpa_actx *c, struct chan_job *job, tpa_error *err)
{
        tpa_ivl_list *l = NULL;
        int64_t f;
        int r = 0;

        for (size_t i = 0; r == 0 && tpa_trace_next_aux(c->tr, TPA_AUX_FLAGS, &i, &f); i++) {
                const tpa_event *e = &c->ev[i];
                if (!(f & TPA_FLAG_COMPILE) || (f & TPA_FLAG_TF_CALL) || e->dur <= 0 ||
                    e->track >= c->ntracks || c->track_cls[e->track] != TRACK_HOST)
                        continue;
                if (l == NULL && (l = calloc(c->ntracks, sizeof(*l))) == NULL)
                        return tpa_error_oom(err);
                r = tpa_ivl__push(&l[e->track], e->ts, e->ts + e->dur, err);
        }
        for (size_t t = 0; l != NULL && t < c->ntracks; t++)
                tpa_ivl__merge(&l[t]);
        job->comp = l;
        return r;
}

/* True when host event i lies inside tracing or compiling on its thread
 * (the compile event itself among them); near[track]: the search's hint. */
static bool under_compile(const tpa_actx *c, const struct chan_job *job, size_t *near, size_t i)
{
        const tpa_event *e = &c->ev[i];
        const tpa_ivl_list *l;
        size_t k;

        if (job->comp == NULL || e->track >= c->ntracks || (l = &job->comp[e->track])->n == 0)
                return false;
        k = tpa_ivl__first_after_near(l, e->ts, &near[e->track]);
        return k < l->n && l->v[k].s <= e->ts && e->ts + e->dur <= l->v[k].e;
}


static int channel_events(tpa_actx *c, const struct chan_job *job, const struct chan_lists *L,
                          tpa_settle *st, size_t lo, size_t hi, tpa_error *err)
{
        bool grouped = c->grouped;      /* some input work carries a TF group id */
        /* what the loop reads, in locals: a store to c->hch (bytes) could
         * alias any field, which it then read again per event; and the
         * names and spans the trace has at all, so that a trace without
         * them pays no look per event */
        const tpa_event *ev = c->ev;
        int8_t *hch = c->hch;
        bool cpu_only = c->a->cpu_only;
        bool py = job->names.npy > 0 || job->names.py_fn != NULL;
        bool ckpt = job->names.nckpt > 0, comp = job->comp != NULL, rare = py || ckpt || comp;
        const bool *bw = job->names.bw;
        /* so are the lists and hints (the part's, in registers or on
         * the stack, not through L and c) */
        tpa_ivl_list *dev = L->dev, *host = L->host, *fw = L->fw;
        bool *mdev = L->mixed, *mhost = mdev + c->ndev * DEV_CH__COUNT,
             *mfw = mhost + HOST_CH__COUNT;
        const tpa_ivl_list *inp = c->inp, *coll = c->coll;
        size_t *near = L->near, *cnear = L->cnear;
        bool *bw_track = L->bw;
        const bool *producer = c->producer;
        const int32_t *track_cls = c->track_cls;
        const uint8_t *tcls = job->tcls;
        size_t ntracks = c->ntracks;
        tpa_ivl host_last[HOST_CH__COUNT], *fw_last = L->fw_last;
        int r;

        for (int ch = 0; ch < HOST_CH__COUNT; ch++)
                host_last[ch] = (tpa_ivl){ INT64_MAX, INT64_MIN };     /* holds nothing */

        /* an error returns at once: no test of it per event */
        for (size_t i = lo; i < hi; i++) {
                const tpa_event *e = &ev[i];
                int code, ch;

                tpa_analysis__ahead_of(ev, i);
                code = e->track < ntracks ? job->code[tcls[e->track]][e->kind] : C_NONE;

                if (code >= C_DEVICE) {
                        size_t l = (size_t)track_cls[e->track] * DEV_CH__COUNT +
                                   (size_t)(code - C_DEVICE);
                        if ((r = push_ord(&dev[l], &mdev[l], e->ts, e->ts + e->dur, err)) < 0)
                                return r;
                        hch[i] = HCH_DEVICE;
                        /* past the bound, no event changes the settling */
                        if (st != NULL && e->ts < st->bound &&
                            (r = tpa_analysis__settle_see(st, e, err)) < 0)
                                return r;
                } else if (code < C_HOST) {
                        bool background = false;
                        /* a point-to-point work in flight is no wait: its
                         * span from where it blocks the thread (p2p.h) */
                        tpa_ns s = e->kind == TPA_KIND_COLLECTIVE
                                   ? tpa_p2p__from(c->p2p, c->np2p, i, e->ts) : e->ts;

                        ch = host_channel_of(code, e, &job->names, cpu_only);

                        if (under_input(e, inp, near, ch))
                                ch = HCH_INPUT;
                        /* TF groups the events a step waits on; ungrouped input
                         * work is background prefetch, which XProf does not
                         * count as a wait and neither do we: it is host
                         * framework work that no step waits on. Without
                         * groups, the work of tf.data's producer threads */
                        if (ch == HCH_INPUT && (grouped ? e->group == 0
                                                        : producer[e->track])) {
                                ch = HCH_OP;
                                background = true;
                        }
                        if (rare && !background) {
                                /* an op that runs Python in the step
                                 * (tf.py_function) is host python, not
                                 * compute (partition.c) */
                                if (py && ch == HCH_OP && e->kind == TPA_KIND_HOST_OP &&
                                    is_py_op(&job->names, e->name))
                                        ch = HCH_PYOP;
                                /* a checkpoint's I/O is host setup (partition.c) */
                                if (ckpt && (ch == HCH_OP || ch == HCH_LAUNCH) &&
                                    is_ckpt(&job->names, e->name))
                                        ch = HCH_CKPT;
                                /* so is tracing and compiling, and what runs in it */
                                if (comp && (ch == HCH_OP || ch == HCH_LAUNCH || ch == HCH_SETUP) &&
                                    under_compile(c, job, L->knear, i))
                                        ch = HCH_COMPILE;
                        }
                        /* CPU-only: framework ops on host threads are the
                         * compute, except background input work, and a
                         * collective (gloo's) is the collective channel */
                        if (cpu_only && ch == HCH_OP && !background) {
                                hch[i] = HCH_CPU_COMPUTE;
                                r = e->kind == TPA_KIND_COLLECTIVE
                                    ? push_ord(&dev[CH_COLL], &mdev[CH_COLL], s, e->ts + e->dur,
                                               err)
                                    : push_cpu_op(coll, &dev[CH_KERNEL], &mdev[CH_KERNEL],
                                                  cnear, e, err);
                        } else {
                                hch[i] = (int8_t)ch;
                                r = push_cached(&host[ch], &mhost[ch], &host_last[ch], s,
                                                e->ts + e->dur, err);
                        }
                        if (r < 0 || (r = push_cached(&fw[e->track], &mfw[e->track],
                                                      &fw_last[e->track], s, e->ts + e->dur,
                                                      err)) < 0)
                                return r;
                        if (bw != NULL && bw[e->name])
                                bw_track[e->track] = true;
                } else {
                        hch[i] = code == C_HOST ? HCH_HOST : HCH_NONE;
                }
        }
        return 0;
}

/* List l merged, where the pass left it out of order (mixed); its block
 * then given back in part, unless kept whole. */
static void merge_mixed(tpa_ivl_list *l, bool mixed, bool keep)
{
        if (mixed)
                tpa_ivl__merge_keep(l);
        if (!keep)
                tpa_ivl__trim(l);
}

/* The channels' pass over half of the events, then that half's lists
 * merged: each thread merges its own, and merge_part() only unites the
 * two halves' (speed: appending part 1's lists to part 0's and merging the
 * whole would do most of the work on one thread). */
static int channels_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        struct chan_job *job = arg;
        struct chan_lists *L = &job->part[part];
        size_t nd = c->ndev * DEV_CH__COUNT, lo, hi;
        int r;

        tpa_analysis__half(c->n, part, &lo, &hi);
        if ((r = channel_events(c, job, L, c->settle != NULL ? &c->settle[part] : NULL,
                                lo, hi, err)) < 0)
                return r;
        for (size_t i = 0; i < nd; i++)         /* part 0's sized for the joins */
                merge_mixed(&L->dev[i], L->mixed[i], part == 0 || (int)i == job->lent);
        for (int ch = 0; ch < HOST_CH__COUNT; ch++)
                merge_mixed(&L->host[ch], L->mixed[nd + (size_t)ch], false);
        for (size_t t = 0; t < c->ntracks; t++)
                merge_mixed(&L->fw[t], L->mixed[nd + HOST_CH__COUNT + t], false);
        return 0;
}

/* The union of the merged lists *to and *from into *to; *from is freed.
 * An empty *to takes *from's block as it is. */
static int join_list(tpa_ivl_list *to, tpa_ivl_list *from, tpa_error *err)
{
        if (to->n == 0) {
                tpa_ivl__free(to);
                *to = *from;
                memset(from, 0, sizeof(*from));
                return 0;
        }
        return tpa_ivl__join(to, from, err);
}

/* Free what the job holds besides the context's lists. */
static void free_job(tpa_actx *c, struct chan_job *job)
{
        struct chan_lists *L = &job->part[1];

        if (job->lent >= 0 && L->dev != NULL)   /* part 0's block: not part 1's to free */
                memset(&L->dev[job->lent], 0, sizeof(L->dev[job->lent]));

        ivl_free_each(L->dev, c->ndev * DEV_CH__COUNT);
        ivl_free_each(L->fw, c->ntracks);
        ivl_free_each(job->host1, HOST_CH__COUNT);
        free(L->dev);
        free(L->fw);
        free(L->mixed);
        free(L->fw_last);
        free(L->near);
        free(L->cnear);
        free(L->bw);
        free(L->knear);
        free(job->part[0].mixed);
        free(job->part[0].fw_last);
        free(job->part[0].near);
        free(job->part[0].cnear);
        free(job->part[0].bw);
        free(job->part[0].knear);
        ivl_free_each(job->comp, job->comp != NULL ? c->ntracks : 0);
        free(job->comp);
        free(job->tcls);
}

/* The waits in backward() of a driving thread whose framework time is d,
 * its autograd threads' b (both merged) into *w: in each hole of d where
 * b runs, from b's first start there to its last end (the thread called
 * backward() and returned, running no op between: the holes between the
 * engine's nodes are no Python of its own). A hole's edges around them
 * stay holes: the Python before the call and after it. */
static int backward_waits(const tpa_ivl_list *d, const tpa_ivl_list *b, tpa_ivl_list *w,
                          tpa_error *err)
{
        size_t k = 0;
        int r = 0;

        for (size_t j = 0; j <= d->n && k < b->n && r == 0; j++) {
                tpa_ns hs = j > 0 ? d->v[j - 1].e : INT64_MIN;
                tpa_ns he = j < d->n ? d->v[j].s : INT64_MAX, first = INT64_MAX, last = 0;

                while (k < b->n && b->v[k].e <= hs)
                        k++;
                for (; k < b->n && b->v[k].s < he; k++) {
                        if (first == INT64_MAX)
                                first = b->v[k].s > hs ? b->v[k].s : hs;
                        last = b->v[k].e < he ? b->v[k].e : he;
                        if (b->v[k].e > he)
                                break;          /* on past the hole: the next one's too */
                }
                if (first < last)
                        r = tpa_ivl__push(w, first, last, err);
        }
        return r;
}

/* Each thread that drives steps (holds their markers) takes, as framework
 * time, its waits in backward() (backward_waits()) on the threads of its
 * process that run autograd nodes and drive no step
 * (find_backward_names()). The lists stay merged. */
static int drivers_take_backward(tpa_actx *c, const struct chan_job *job, tpa_error *err)
{
        size_t nt = c->ntracks, nb;
        bool *drives = calloc(nt ? nt : 1, sizeof(*drives));
        tpa_ivl_list *bw = calloc(nt ? nt : 1, sizeof(*bw)), b = { 0 }, w = { 0 }, u;
        int r = 0;

        if (bw == NULL || drives == NULL) {
                r = tpa_error_oom(err);
                goto out;
        }
        for (size_t k = 0; k < c->a->step_count; k++)
                if (c->marker_track[k] < nt)
                        drives[c->marker_track[k]] = true;
        for (size_t d = 0; d < nt && r == 0; d++) {
                uint32_t proc = tpa_trace_thread_c(c->tr, (uint32_t)d)->process;
                if (!drives[d] || c->fw[d].n == 0)
                        continue;
                nb = 0;
                for (size_t t = 0; t < nt; t++)
                        if ((job->part[0].bw[t] || job->part[1].bw[t]) && !drives[t] &&
                            c->fw[t].n > 0 &&
                            tpa_trace_thread_c(c->tr, (uint32_t)t)->process == proc)
                                bw[nb++] = c->fw[t];    /* borrowed */
                if (nb == 0)
                        continue;
                if ((r = tpa_ivl__union(&b, bw, nb, err)) < 0 ||
                    (r = backward_waits(&c->fw[d], &b, &w, err)) < 0)
                        break;
                if (w.n > 0 && (r = tpa_ivl__union2(&u, &c->fw[d], &w, err)) == 0) {
                        tpa_ivl__free(&c->fw[d]);
                        c->fw[d] = u;
                }
                tpa_ivl__free(&b);
                tpa_ivl__free(&w);
        }
out:
        tpa_ivl__free(&b);
        tpa_ivl__free(&w);
        free(bw);
        free(drives);
        return r;
}

#if defined(MADV_POPULATE_WRITE) || defined(MADV_DONTNEED)
/* madvise() on the whole pages within [from, to). A refusal (an old
 * kernel) is no error: the writes then fault the pages in, or they stay. */
static void advise_pages(const void *from, const void *to, int advice)
{
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t lo = ((uintptr_t)from + page - 1) & ~(page - 1);
        uintptr_t hi = (uintptr_t)to & ~(page - 1);

        if (hi > lo)
                (void)madvise((void *)lo, hi - lo, advice);
}
#endif

void tpa_analysis__populate(void *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
        advise_pages(p, (char *)p + size, MADV_POPULATE_WRITE);
#else
        (void)p;
        (void)size;
#endif
}

/* The pages of the room after l's intervals given back, the room kept:
 * its block may be a spare (tpa_analysis__spare()) whose old bytes no
 * list wrote over, in memory until the end of the analysis. */
static void release_room(tpa_ivl_list *l)
{
#ifdef MADV_DONTNEED
        if (l->v != NULL)
                advise_pages(l->v + l->n, l->v + l->cap, MADV_DONTNEED);
#else
        (void)l;
#endif
}

/* Part 1's lists join part 0's (the context's), in part 0's blocks: the
 * device side on part 0, the host side on part 1. */
static int merge_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        struct chan_job *job = arg;
        struct chan_lists *L = &job->part[1];
        int r = 0;

        if (part == 1) {
                for (int ch = 0; ch < HOST_CH__COUNT && r == 0; ch++)
                        r = join_list(&c->host[ch], &L->host[ch], err);
                for (size_t t = 0; t < c->ntracks && r == 0; t++)
                        r = join_list(&c->fw[t], &L->fw[t], err);
                return r;
        }
        for (size_t i = 0; i < c->ndev * DEV_CH__COUNT && r == 0; i++) {
                if ((int)i != job->lent)
                        r = join_list(&c->dev[i], &L->dev[i], err);
                else if ((r = tpa_ivl__join_lent(&c->dev[i], &L->dev[i], err)) == 0)
                        release_room(&c->dev[i]);
        }
        if (r == 0)
                job->lent = -1;
        return r;
}

int tpa_analysis__device_unions(tpa_actx *c, tpa_error *err)
{
        int r = 0;

        for (size_t d = 0; d < c->ndev && r == 0; d++) {
                tpa_ivl_list *ch = &c->dev[d * DEV_CH__COUNT], small = { 0 };
                int big = 0;

                for (int k = 1; k < DEV_CH__COUNT; k++)
                        if (ch[k].n > ch[big].n)
                                big = k;
                /* the small lists together, then into the big one's block
                 * (memory, bench/: a copy of it was the analysis' peak) */
                for (int k = 0; k < DEV_CH__COUNT && r == 0; k++)
                        if (k != big)
                                r = join_list(&small, &ch[k], err);
                if (r == 0)
                        r = join_list(&ch[big], &small, err);
                tpa_ivl__free(&small);
                if (r == 0) {
                        c->dev_any[d] = ch[big];
                        memset(&ch[big], 0, sizeof(ch[big]));
                }
        }
        /* One device (the common case): the union over all devices is its
         * union; shared, not copied (memory, bench/). ctx_free() frees it
         * once. */
        if (r < 0 || c->ndev == 1)
                c->dev_all = r < 0 ? (tpa_ivl_list){ 0 } : c->dev_any[0];
        else
                r = tpa_ivl__union(&c->dev_all, c->dev_any, c->ndev, err);
        return r;
}

/* Room in the lists of one device for the events of each channel's kinds,
 * the most of them for all device events: in part 0's (c->dev) for the
 * whole, as part 1's lists and the channels' union
 * (tpa_analysis__device_unions()) then join them in their blocks; in part
 * 1's (dev1) for the second half's. Memory (bench/): a list grown at a join
 * was a copy of the kernels' list while the old block still lay mapped,
 * the analysis' peak; the room never written costs nothing. Speed: grown as
 * they went, part 1's lists were copied at each doubling, and its half of
 * the pass took longer than part 0's. Several devices: the counts are of
 * all devices, so each list grows as it needs. */
static int size_device_lists(tpa_actx *c, tpa_ivl_list *dev1, int *lent, tpa_error *err)
{
        uint64_t own[2][DEV_CH__COUNT];
        int big0 = 0;

        *lent = -1;
        for (int part = 0; part < 2 && c->ndev == 1 && !c->a->cpu_only; part++) {
                const uint64_t *k = part == 0 ? c->a->events_by_kind : c->kinds1;
                tpa_ivl_list *dev = part == 0 ? c->dev : dev1;
                uint64_t want[DEV_CH__COUNT] = {
                        [CH_KERNEL] = k[TPA_KIND_KERNEL] + k[TPA_KIND_MEMSET],
                        [CH_H2D] = k[TPA_KIND_COPY_H2D], [CH_D2H] = k[TPA_KIND_COPY_D2H],
                        [CH_D2D] = k[TPA_KIND_COPY_D2D], [CH_P2P] = k[TPA_KIND_COPY_P2P],
                        [CH_COLL] = k[TPA_KIND_COLLECTIVE],
                }, all = 0;
                int big = 0;

                memcpy(own[part], want, sizeof(want));
                for (int ch = 0; ch < DEV_CH__COUNT; ch++) {
                        all += want[ch];
                        if (want[ch] > want[big])
                                big = ch;
                }
                want[big] = all;
                if (part == 0) {
                        big0 = big;
                } else if (c->dev[big0].v != NULL) {
                        /* Part 1's list of part 0's big channel: in part 0's
                         * block, after the most part 0's half can put there
                         * (speed, bench/: a join copied it there, into fresh
                         * pages, while the other core waited). Its events'
                         * count bounds it: never grown, never freed. */
                        tpa_ivl_list *l = &dev1[big0];
                        l->v = c->dev[big0].v + (own[0][big0] - own[1][big0]);
                        l->cap = own[1][big0];
                        *lent = big0;
                        want[big0] = 0;
                }
                for (int ch = 0; ch < DEV_CH__COUNT; ch++) {
                        tpa_ivl_list *l = &dev[ch];
                        if (want[ch] < 1024)
                                continue;       /* small: grown as it goes */
                        /* part 0's big list, the pass's largest block,
                         * from the steps' spares */
                        l->v = part == 0 && ch == big
                               ? tpa_analysis__spare(c, want[ch] * sizeof(*l->v))
                               : malloc(want[ch] * sizeof(*l->v));
                        if (l->v == NULL)
                                return tpa_error_oom(err);
                        l->cap = want[ch];
                }
        }
        return 0;
}

/* The steps' windows first: the channels' pass settles the first one. */
int tpa_analysis__lists_and_steps(tpa_actx *c, tpa_error *err)
{
        struct chan_job job = { .lent = -1 };
        size_t nt1 = c->ntracks ? c->ntracks : 1;
        size_t nlists = c->ndev * DEV_CH__COUNT + HOST_CH__COUNT + c->ntracks;
        int r = 0;

        job.names.has_h2d = tpa_trace_find_str(c->tr, &job.names.h2d, "MemcpyH2D", 9);
        /* the names the trace has, so that a trace without them pays
         * nothing an event */
        for (int k = 0; k < 3; k++)
                job.names.npy += tpa_trace_find_str(c->tr, &job.names.py[job.names.npy],
                                                    py_names[k], strlen(py_names[k]));
        for (int k = 0; k < 6; k++)
                job.names.nckpt += tpa_trace_find_str(c->tr, &job.names.ckpt[job.names.nckpt],
                                                      ckpt_names[k], strlen(ckpt_names[k]));
        job.names.has_executor = tpa_trace_find_str(c->tr, &job.names.executor,
                                                    "ExecutorState::Process", 22);
        chan_codes(job.code, &job.names);
        job.tcls = malloc(nt1);
        for (size_t t = 0; job.tcls != NULL && t < c->ntracks; t++)
                job.tcls[t] = c->track_cls[t] >= 0 ? TC_DEVICE
                              : c->track_cls[t] == TRACK_HOST ? TC_HOST : TC_SKIP;
        c->dev = calloc(c->ndev * DEV_CH__COUNT, sizeof(*c->dev));
        c->dev_any = calloc(c->ndev, sizeof(*c->dev_any));
        c->fw = calloc(nt1, sizeof(*c->fw));
        job.part[0] = (struct chan_lists){ c->dev, c->host, c->fw,
                                           calloc(nlists, sizeof(bool)),
                                           malloc(nt1 * sizeof(tpa_ivl)),
                                           calloc(nt1, sizeof(size_t)),
                                           calloc(nt1, sizeof(size_t)),
                                           calloc(nt1, sizeof(bool)),
                                           calloc(nt1, sizeof(size_t)) };
        job.part[1] = (struct chan_lists){ calloc(c->ndev * DEV_CH__COUNT, sizeof(*c->dev)),
                                           job.host1, calloc(nt1, sizeof(*c->fw)),
                                           calloc(nlists, sizeof(bool)),
                                           malloc(nt1 * sizeof(tpa_ivl)),
                                           calloc(nt1, sizeof(size_t)),
                                           calloc(nt1, sizeof(size_t)),
                                           calloc(nt1, sizeof(bool)),
                                           calloc(nt1, sizeof(size_t)) };
        if (c->dev == NULL || c->dev_any == NULL || c->fw == NULL ||
            job.part[0].near == NULL || job.part[1].dev == NULL || job.part[1].fw == NULL ||
            job.part[0].mixed == NULL || job.part[1].mixed == NULL ||
            job.part[0].fw_last == NULL || job.part[1].fw_last == NULL || job.tcls == NULL ||
            job.part[1].near == NULL || job.part[0].cnear == NULL ||
            job.part[1].cnear == NULL || job.part[0].bw == NULL || job.part[1].bw == NULL ||
            job.part[0].knear == NULL || job.part[1].knear == NULL ||
            !find_py_functions(c->tr, &job.names) || !find_backward_names(c->tr, &job.names)) {
                r = tpa_error_oom(err);
                goto out;
        }
        for (size_t t = 0; t < c->ntracks; t++) {
                tpa_ivl__merge(&c->inp[t]);
                tpa_ivl__merge(&c->coll[t]);
                /* push_cached()'s: nothing */
                job.part[0].fw_last[t] = job.part[1].fw_last[t] = (tpa_ivl){ INT64_MAX, INT64_MIN };
        }
        if ((r = compile_spans(c, &job, err)) < 0 ||
            (r = tpa_analysis__steps_begin(c, err)) < 0)
                goto out;
        /* the pass's two largest blocks from the steps' spares, the
         * larger first */
        if ((r = size_device_lists(c, job.part[1].dev, &job.lent, err)) == 0 &&
            (c->hch = tpa_analysis__spare(c, c->n)) == NULL)
                r = tpa_error_oom(err);
        tpa_analysis__spare_free(c);
        if (r < 0 ||
            (r = tpa_analysis__in_two(c, channels_part, &job, err)) < 0 ||
            (r = tpa_analysis__steps_end(c, err)) < 0)
                goto out;
        /* the channels' pass was the input lists' last reader: memory for
         * the joins */
        ivl_free_each(c->inp, c->ntracks);
        ivl_free_each(c->coll, c->ntracks);
        if ((r = tpa_analysis__in_two(c, merge_part, &job, err)) == 0 &&
            job.names.bw != NULL)
                r = drivers_take_backward(c, &job, err);
out:
        free_job(c, &job);
        free(job.names.py_fn);
        free(job.names.bw);
        ivl_free_each(c->inp, c->ntracks);
        free(c->inp);
        ivl_free_each(c->coll, c->ntracks);
        free(c->coll);
        c->inp = NULL;
        c->coll = NULL;
        return r;
}

long tpa_analysis__step_search(const tpa_analysis *a, tpa_ns t, long *hint)
{
        size_t lo = 0, hi = a->step_count;

        while (lo < hi) {                       /* first step with start > t */
                size_t mid = lo + (hi - lo) / 2;
                if (a->steps[mid].start <= t)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo == 0 || t >= a->steps[lo - 1].end)
                return -1;
        if (hint != NULL)
                *hint = (long)lo - 1;
        return (long)lo - 1;
}

int tpa_analysis__cmp_u32(const void *pa, const void *pb)
{
        uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
        return (x > y) - (x < y);
}

static int cmp_double(const void *pa, const void *pb)
{
        double x = *(const double *)pa, y = *(const double *)pb;
        return (x > y) - (x < y);
}

/*
 * Sort v[0..n) ascending. Values that are all +0 or more and not NaN sort
 * as their bit patterns, which order them as numbers: least significant
 * byte first, through `tmp` (2n entries); the sorted values are the same
 * as qsort's. Speed (bench/): the run's medians sort each step metric over
 * all kept steps, and qsort's compare callback made them a
 * noticeable part of tpa_analyze(). Anything else (-0, negatives, NaN), or no `tmp`:
 * qsort.
 */
static void sort_doubles(double *v, size_t n, uint64_t *tmp)
{
        uint64_t *src = tmp, *dst = tmp + n;

        for (size_t i = 0; tmp != NULL && i < n; i++) {
                memcpy(&src[i], &v[i], sizeof(*src));
                if (src[i] > 0x7ff0000000000000u)       /* sign bit, or NaN */
                        tmp = NULL;
        }
        if (tmp == NULL) {
                qsort(v, n, sizeof(*v), cmp_double);
                return;
        }
        TPA_RADIX_SORT(src, dst, n);
        memcpy(v, src, n * sizeof(*v));
}

/* Linear interpolation between closest ranks; q = 0.5 is the median. */
double tpa_analysis__quantile(double *v, size_t n, double q)
{
        double pos, frac;
        size_t lo;

        if (n == 0)
                return 0;
        if (n < 64) {
                qsort(v, n, sizeof(*v), cmp_double);
        } else {
                uint64_t *tmp = malloc(2 * n * sizeof(*tmp));
                sort_doubles(v, n, tmp);
                free(tmp);
        }
        pos = q * (double)(n - 1);
        lo = (size_t)pos;
        frac = pos - (double)lo;
        if (lo + 1 >= n)
                return v[n - 1];
        return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

/* The k-th smallest of a[0..n) (k < n), left at a[k] with no larger value
 * before it and no smaller one after: Hoare's selection, the pivot the
 * median of three. */
static uint64_t select_u64(uint64_t *a, size_t n, size_t k)
{
        ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;

        while (lo < hi) {
                uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi], p, t;
                ptrdiff_t i = lo, j = hi;

                p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
                while (i <= j) {
                        while (a[i] < p)
                                i++;
                        while (a[j] > p)
                                j--;
                        if (i <= j) {
                                t = a[i];
                                a[i++] = a[j];
                                a[j--] = t;
                        }
                }
                if ((ptrdiff_t)k <= j)
                        hi = j;
                else if ((ptrdiff_t)k >= i)
                        lo = i;
                else
                        break;          /* between the parts: equal to the pivot */
        }
        return a[k];
}

double tpa_analysis__median(double *v, size_t n, uint64_t *tmp)
{
        double pos, frac, a, b;
        uint64_t next = UINT64_MAX;
        size_t lo;

        for (size_t i = 0; tmp != NULL && i < n; i++) {
                memcpy(&tmp[i], &v[i], sizeof(*tmp));
                if (tmp[i] > 0x7ff0000000000000u)       /* sign bit, or NaN */
                        tmp = NULL;
        }
        if (n < 64 || tmp == NULL)
                return tpa_analysis__quantile(v, n, 0.5);
        /* as sort_doubles(): these values order as their bit patterns */
        pos = 0.5 * (double)(n - 1);
        lo = (size_t)pos;
        frac = pos - (double)lo;
        select_u64(tmp, n, lo);
        for (size_t i = lo + 1; i < n; i++)
                if (tmp[i] < next)
                        next = tmp[i];
        memcpy(&a, &tmp[lo], sizeof(a));
        memcpy(&b, &next, sizeof(b));
        return a + (b - a) * frac;      /* tpa_analysis__quantile()'s sum */
}

/* ---- two threads ----------------------------------------------------------- */

typedef struct part_job {
        tpa_actx             *c;
        tpa_analysis__part_fn fn;
        void                 *arg;
        int                   r;
        tpa_error             err;
} part_job;

static void run_part1(part_job *j)
{
        j->r = j->fn(j->c, 1, j->arg, &j->err);
}

/* The second thread of tpa_analysis__in_two(), started at its first call
 * and kept until the analysis ends: a pass hands it part 1 and waits for
 * it to be done. Speed (bench/): a thread started and joined per pass cost
 * its start, its exit and its stack's pages again, a dozen times. */
struct tpa_helper {
        pthread_t       thread;
        pthread_mutex_t lock;
        pthread_cond_t  go, done;
        part_job       *job;            /* handed over, not yet done; NULL: none */
        bool            stop;
};

static void *helper_main(void *arg)
{
        struct tpa_helper *h = arg;

        pthread_mutex_lock(&h->lock);
        for (;;) {
                while (h->job == NULL && !h->stop)
                        pthread_cond_wait(&h->go, &h->lock);
                if (h->job == NULL)
                        break;
                pthread_mutex_unlock(&h->lock);
                run_part1(h->job);
                pthread_mutex_lock(&h->lock);
                h->job = NULL;
                pthread_cond_signal(&h->done);
        }
        pthread_mutex_unlock(&h->lock);
        return NULL;
}

/* The helper, started if not yet; NULL if it cannot be. */
static struct tpa_helper *helper_get(tpa_actx *c)
{
        struct tpa_helper *h = c->helper;

        if (h != NULL)
                return h;
        if ((h = calloc(1, sizeof(*h))) == NULL)
                return NULL;
        if (pthread_mutex_init(&h->lock, NULL) != 0)
                goto no_lock;
        if (pthread_cond_init(&h->go, NULL) != 0)
                goto no_go;
        if (pthread_cond_init(&h->done, NULL) != 0)
                goto no_done;
        if (pthread_create(&h->thread, NULL, helper_main, h) != 0)
                goto no_thread;
        return c->helper = h;
no_thread:
        pthread_cond_destroy(&h->done);
no_done:
        pthread_cond_destroy(&h->go);
no_go:
        pthread_mutex_destroy(&h->lock);
no_lock:
        free(h);
        return NULL;
}

static void helper_stop(tpa_actx *c)
{
        struct tpa_helper *h = c->helper;

        if (h == NULL)
                return;
        pthread_mutex_lock(&h->lock);
        h->stop = true;
        pthread_cond_signal(&h->go);
        pthread_mutex_unlock(&h->lock);
        pthread_join(h->thread, NULL);
        pthread_cond_destroy(&h->done);
        pthread_cond_destroy(&h->go);
        pthread_mutex_destroy(&h->lock);
        free(h);
        c->helper = NULL;
}

int tpa_analysis__in_two(tpa_actx *c, tpa_analysis__part_fn fn, void *arg, tpa_error *err)
{
        part_job j = { .c = c, .fn = fn, .arg = arg };
        struct tpa_helper *h = NULL;
        int r;

        if (err != NULL)
                j.err = *err;   /* what the caller set (a path) stays */
        /* no thread (the machine refuses one): part 1 runs here, later */
        if (c->threaded && (h = helper_get(c)) != NULL) {
                pthread_mutex_lock(&h->lock);
                h->job = &j;
                pthread_cond_signal(&h->go);
                pthread_mutex_unlock(&h->lock);
        }
        r = fn(c, 0, arg, err);
        if (h != NULL) {
                pthread_mutex_lock(&h->lock);
                while (h->job != NULL)
                        pthread_cond_wait(&h->done, &h->lock);
                pthread_mutex_unlock(&h->lock);
        } else if (r == 0) {
                run_part1(&j);
        }
        if (r < 0)
                return r;
        if (j.r < 0 && err != NULL)
                *err = j.err;
        return j.r;
}

/* ---- the whole ------------------------------------------------------------- */

static void ctx_free(tpa_actx *c)
{
        helper_stop(c);
        ivl_free_each(c->dev, c->ndev * DEV_CH__COUNT);
        ivl_free_each(c->dev_any, c->ndev);
        ivl_free_each(c->fw, c->ntracks);
        ivl_free_each(c->host, HOST_CH__COUNT);
        if (c->ndev != 1)       /* else empty, or dev_any[0] (channels) */
                tpa_ivl__free(&c->dev_all);
        free(c->dev);
        free(c->dev_any);
        free(c->fw);
        ivl_free_each(c->inp, c->ntracks);
        free(c->inp);
        ivl_free_each(c->coll, c->ntracks);
        free(c->coll);
        for (int k = 0; k < SRC__COUNT; k++)
                free(c->markers[k].v);
        free(c->profiler_step);
        free(c->hch);
        free(c->track_cls);
        free(c->producer);
        free(c->marker_track);
        free(c->p2p);
        tpa_analysis__steps_free(c);
        free(c->gap_cand.v);
}

/* A threshold from the rules, or its default (doc/metrics.md). */
static double threshold(const tpa_rules *rules, const char *name, double dflt)
{
        double v;

        if (rules != NULL && tpa_rules_threshold(rules, name, &v))
                return v;
        return dflt;
}

int tpa_analyze(tpa_analysis **out, const tpa_trace *tr, const tpa_analysis_options *opts,
                tpa_error *err)
{
        tpa_analysis_options dflt = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_actx c;
        int r;

        memset(&c, 0, sizeof(c));
        if (opts == NULL)
                opts = &dflt;
        c.tr = tr;
        c.ev = tpa_trace_events(tr);
        c.n = tpa_trace_event_count(tr);
        c.opts = opts;
        c.a = calloc(1, sizeof(*c.a));
        if (c.a == NULL)
                return tpa_error_oom(err);
        c.a->gap_min = (tpa_ns)threshold(opts->rules, "gap.min", 10000);
        c.a->host_gap_min = (tpa_ns)threshold(opts->rules, "host_gap.min", 5000);
        c.a->small_copy_max = (tpa_ns)threshold(opts->rules, "small_copy.max", 65536);
        c.a->warmup_ratio = threshold(opts->rules, "warmup.ratio", 1.5);
        if (opts->threads == 0)
                c.threaded = c.n >= TPA_ANALYSIS_THREADED_EVENTS &&
                             sysconf(_SC_NPROCESSORS_ONLN) > 1;
        else
                c.threaded = opts->threads > 1;
        c.a->threaded = c.threaded;
        if ((r = tpa_p2p__waits(tr, &c.p2p, &c.np2p, err)) < 0 ||
            (r = find_devices_and_markers(&c, err)) < 0 ||
            (r = tpa_analysis__lists_and_steps(&c, err)) < 0 ||
            (r = tpa_analysis__partition(&c, err)) < 0 ||
            (r = tpa_analysis__device_unions(&c, err)) < 0)
                goto fail;
        tpa_analysis__warmup(&c);
        if ((r = tpa_analysis__metrics(&c, err)) < 0 ||
            (r = tpa_analysis__summary(&c, err)) < 0)
                goto fail;
        tpa_analysis__batches_note(&c);
        ctx_free(&c);
        *out = c.a;
        return 0;
fail:
        ctx_free(&c);
        tpa_analysis_free(c.a);
        return r;
}

void tpa_analysis_free(tpa_analysis *a)
{
        if (a == NULL)
                return;
        for (size_t i = 0; i < a->step_count; i++) {
                free(a->steps[i].device_ns);
                free(a->steps[i].spans);
                free(a->steps[i].findings);
                free(a->steps[i].metric);
        }
        free(a->steps);
        free((void *)a->device_names);
        free(a->classes);
        free(a->findings);
        free(a->gaps);
        free(a->device_ops);
        free(a->host_ops);
        free(a->run_metric);
        free(a->events_by_track);
        free(a);
}
