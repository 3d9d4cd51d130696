/* SPDX-License-Identifier: MIT */
/*
 * analysis_internal.h - (library-internal) what the analysis stages share:
 * the event classes, the channels' merged interval lists (intervals.h),
 * and the working context that steps.c, warmup.c, partition.c and metrics.c fill in turn.
 */
#ifndef TPA_ANALYSIS_INTERNAL_H
#define TPA_ANALYSIS_INTERNAL_H

#include <stdlib.h>

#include <tpa/analysis.h>

#include "intervals.h"
#include "p2p.h"

/* Device channels (per device) and host channels (all host threads). */
enum { CH_KERNEL, CH_H2D, CH_D2H, CH_D2D, CH_P2P, CH_COLL, DEV_CH__COUNT };
/* Host channels, in the partition's priority order (partition.c): HCH_PYOP
 * is a framework op that runs Python (tf.py_function, tf.numpy_function),
 * HCH_CKPT a checkpoint's I/O (SaveV2, RestoreV2, MergeV2Checkpoints),
 * HCH_COMPILE tracing and compiling (a tf.function's graph building, XLA's
 * compilers, torch.compile's) and what runs inside it on its thread. */
enum { HCH_SYNC, HCH_INPUT, HCH_PYOP, HCH_CKPT, HCH_COMPILE, HCH_LAUNCH, HCH_SETUP, HCH_OP,
       HOST_CH__COUNT };
/* Where an event went (tpa_actx.hch): a host event to a host channel, or
 * to CPU compute (a CPU-only trace's framework op, in the pseudo-device's
 * kernel channel), or to none (HCH_HOST: not framework work); a device
 * event to its device (HCH_DEVICE); or nowhere (an event the analysis
 * skips). The metrics' pass finds its events by it: a byte per event to
 * read, not 32, and no class to work out again. */
enum { HCH_CPU_COMPUTE = HOST_CH__COUNT, HCH_DEVICE, HCH_NONE = -1, HCH_HOST = -2 };

/* Where an event counts. */
enum { EV_SKIP = 0, EV_DEVICE, EV_HOST };

/* What a track is to the analysis (tpa_actx.track_cls): a device's index
 * (>= 0), a host thread, or skipped; a Steps line is skipped, marked apart
 * for the markers' look at every event (speed: otherwise a look-up of its
 * thread's role per event of a skipped track). */
#define TRACK_HOST  (-1)
#define TRACK_SKIP  (-2)
#define TRACK_STEPS (-3)

/* Metric indexes; the names are in metrics.c. */
enum {
        M_STEP_TIME = 0,
        M_BUCKET_NS,                    /* + TPA_BUCKET__COUNT */
        M_BUCKET_FRAC = M_BUCKET_NS + TPA_BUCKET__COUNT,
        M_TRANSFER_NS = M_BUCKET_FRAC + TPA_BUCKET__COUNT,
        M_TRANSFER_FRAC, M_SYNC_NS, M_SYNC_FRAC, M_HOST_NS, M_HOST_FRAC,
        M_MAX_OTHER_FRAC, M_CPU_ONLY, M_DEVICES, M_FRAMEWORK_TF, M_FRAMEWORK_PYTORCH,
        M_TF_FUNCTION, M_LOADER_WORKERS, M_TF_DATA_PREFETCH, M_TF_DATA_PARALLEL,
        M_TF_PY_FUNCTION, M_TF_DATA_GENERATOR, M_TORCH_COMPILED,
        M_RUNTIME_CUDA, M_RUNTIME_ROCM, M_RUNTIME_MTIA, M_DEVICE_BUSY_FRAC,
        M_GAP_COUNT, M_GAP_TOTAL, M_GAP_MAX, M_GAP_FRAC,
        M_COPY_COUNT, M_COPY_NS, M_COPY_BYTES, M_COPY_FRAC, M_COPY_EXPOSED_FRAC,
        M_SMALL_COPY_COUNT,
        M_DIR_COUNT,                    /* + 4: h2d, d2h, d2d, p2p */
        M_DIR_BYTES = M_DIR_COUNT + 4,
        M_DIR_GBPS = M_DIR_BYTES + 4,
        M_HOST_GAP_COUNT = M_DIR_GBPS + 4,
        M_HOST_GAP_NS, M_HOST_GAP_FRAC, M_HOST_GAP_MEDIAN, M_HOST_GAP_PER_MS,
        M_HOST_GAP_MAX, M_HOST_GAP_MAX_FRAC,
        M_LAUNCH_COUNT, M_LAUNCH_SLOW_COUNT, M_LAUNCH_SLOW_NS, M_LAUNCH_SLOW_FRAC,
        M_INPUT_HOST_NS, M_INPUT_HOST_FRAC, M_PY_OP_NS, M_PY_OP_FRAC,
        M_CKPT_NS, M_CKPT_FRAC, M_COMPILE_NS, M_COMPILE_FRAC,
        M_GAIN,                         /* + TPA_GROUP__COUNT (compute unused) */
        M_STEP__COUNT = M_GAIN + TPA_GROUP__COUNT,
        /* run only */
        M_STEPS = M_STEP__COUNT, M_KEPT_STEPS, M_EXCLUDED_STEPS, M_P90, M_MIN, M_MAX,
        M__COUNT
};

/* A step marker (steps.c), and a list of them. */
typedef struct tpa_marker {
        tpa_ns   s, e;
        int64_t  number;
        bool     numbered;      /* the number came from the trace */
        uint32_t group;         /* group id + 1 of the marker; 0: none */
        uint32_t track;
        bool     host;          /* the marker sits on a host thread */
} tpa_marker;

typedef struct tpa_marker_list {
        tpa_marker *v;
        size_t      n, cap;
} tpa_marker_list;

/* The sources of step markers that are events of one kind, in the order
 * they are tried (doc/design.md 5.1); TF group ids come between the last two. */
enum { SRC_PROFILER_STEP, SRC_HOST_STEP, SRC_STEPS_LINE, SRC_STEP_EVENT, SRC__COUNT };

/* The steps' tables (steps.c), from find_devices_and_markers()' pass over
 * the events: device work by key (a correlation id, or a TF group) with its latest
 * end, and the host events that carry a correlation id (launches, mostly).
 * Memory and speed (bench/): a slot per event each, written in the first
 * pass: 12 and 4 bytes a slot, not 16 (fewer fresh pages). A launch is
 * named by its index and read again in event order; a device event keeps
 * its end, in two halves that pack (a look-up through the events was a
 * cache miss per launch). */
typedef struct tpa_kv {
        uint32_t key;
        tpa_ns   end;
} tpa_kv;

/* A device event with correlation id `key`, and its end. */
typedef struct tpa_corr {
        uint32_t key;
        uint32_t end_lo, end_hi;        /* (uint64_t)end_hi << 32 | end_lo */
} tpa_corr;

/* The tables of one part of the pass (of half of the events); part 0's
 * blocks hold part 1's from their slot n / 2 on. */
typedef struct tpa_ext {
        tpa_corr   *corr;       /* by correlation id */
        tpa_kv     *grp;        /* by group: a run of one group's device events, one entry */
        uint32_t   *host;       /* host events with a correlation id, by index */
        size_t      nc, ng, nh;
} tpa_ext;

/* Device event e, of a device kind on a stream-class track (a device's,
 * once find_devices_and_markers() knows the devices: it makes its process
 * one), into the tables. Inline, in the pass's test of every event. */
static inline void tpa_ext__device(tpa_ext *x, const tpa_event *e)
{
        tpa_ns end = e->ts + e->dur;

        if (e->corr != 0)
                x->corr[x->nc++] = (tpa_corr){ e->corr, (uint32_t)((uint64_t)end & 0xffffffffu),
                                               (uint32_t)((uint64_t)end >> 32) };
        /* Memory (bench/): device events of one group come in runs; a run
         * needs one entry, its latest end (steps.c's look-up wants the
         * largest end of a key) */
        if (e->group != 0 && x->ng > 0 && x->grp[x->ng - 1].key == e->group) {
                if (end > x->grp[x->ng - 1].end)
                        x->grp[x->ng - 1].end = end;
        } else if (e->group != 0) {
                x->grp[x->ng++] = (tpa_kv){ e->group, end };
        }
}

/* Event e (index i) on a host thread, into the tables when it is a host event
 * (tpa_analysis__event_class()) with a correlation id. */
static inline void tpa_ext__host(tpa_ext *x, const tpa_event *e, size_t i)
{
        if (e->corr != 0 && e->kind != TPA_KIND_ANNOTATION && e->kind != TPA_KIND_STEP)
                x->host[x->nh++] = (uint32_t)i;
}

/* The first host marker's settling (steps.c), one per part of the
 * channels' pass, which shows it the device events. */
typedef struct tpa_settle {
        tpa_ns          s;      /* the marker's start */
        uint32_t        group;  /* the marker's group, 0: none */
        uint32_t       *ids;    /* sorted correlation ids of host events in its window
                                   (the parts share them; part 0 frees them) */
        size_t          ni;
        uint32_t       *pre;    /* sorted correlation ids of host events before it
                                   (shared and freed as ids) */
        size_t          npre;
        tpa_ns          first;  /* the first device work it launched, so far */
        tpa_ns          bound;  /* `first` is at most this, in the end */
        tpa_ns         *ends;   /* device ends after its start, before `first` then,
                                   of work running at its start or launched before */
        size_t          ne, cap;
        tpa_ivl        *orphans; /* the same of work starting inside it, whose launch
                                    the trace lacks: start and end */
        size_t          no, ocap;
} tpa_settle;

typedef struct tpa_index_list {
        size_t *v;
        size_t  n, cap;
} tpa_index_list;

typedef struct tpa_actx {
        const tpa_trace  *tr;
        const tpa_event  *ev;
        size_t            n;
        tpa_analysis     *a;
        const tpa_analysis_options *opts;
        int32_t          *track_cls;    /* per track: a device's index or a TRACK_ */
        size_t            ntracks;
        size_t            ndev;         /* pseudo-devices partitioned (1 for CPU-only) */
        tpa_ivl_list     *dev;          /* ndev x DEV_CH__COUNT, until the partition */
        tpa_ivl_list     *dev_any;      /* ndev: union of the device's activity, from the
                                           lists of dev, after the partition, until
                                           the metrics' steps (host, fw too) */
        tpa_ivl_list      dev_all;      /* union over all devices */
        tpa_ivl_list      host[HOST_CH__COUNT];
        tpa_ivl_list     *fw;           /* per track: framework events on a host thread */
        tpa_ivl_list     *inp;          /* per track: input events of host threads, from
                                           the first pass, for the channels, which free it */
        tpa_ivl_list     *coll;         /* per track: collectives of host threads, as inp */
        tpa_p2p_wait     *p2p;          /* gloo's point-to-point works: where each
                                           blocks its thread (p2p.h), in event order */
        size_t            np2p;
        bool              grouped;      /* some of them carry a TF group id */
        bool             *producer;     /* per track: a tf.data thread that fills the
                                           pipeline ahead of the step (producer()) */
        uint64_t          kinds1[TPA_KIND__COUNT];      /* the events of the second
                                           half by kind (the whole: a->events_by_kind) */
        /* without --step-marker: the markers of each source, in event order,
         * from find_devices_and_markers()' pass, for the steps, which take them */
        tpa_marker_list   markers[SRC__COUNT];
        uint64_t         *profiler_step; /* bit per string: a "ProfilerStep#N" name */
        bool              has_profiler_step;    /* a bit of it is set */
        size_t            str_count;
        int8_t           *hch;          /* per event: a host channel or an HCH_ */
        uint32_t         *marker_track; /* per step: the track of its marker, or UINT32_MAX */
        bool              boundaries;   /* each step runs to the next marker's start
                                           (tpa_analysis__steps_begin()) */
        bool              fetch_between; /* with boundaries: the batch fetch runs
                                           between the markers, on their thread */
        bool              loader_steps; /* detected iterations: a DataLoader's
                                           next batch (warm-up looks for
                                           evaluation among them) */
        tpa_ext           ext[2];       /* the first pass's tables for the steps, per part */
        tpa_ns           *corr_end;     /* with them, when the ids are dense: the latest
                                           end of id corr_lo + k at k; NULL: none */
        uint32_t          corr_lo;
        size_t            corr_n;
        /* from tpa_analysis__steps_begin() to the channels' lists: the
         * blocks of the ids' tables, done with, for tpa_analysis__spare() */
        void             *spare[2];
        size_t            spare_size[2];
        /* from tpa_analysis__steps_begin() to _end(): the windows, and the
         * first one's settling when it is a host marker's */
        tpa_marker_list   windows;
        tpa_settle       *settle;       /* [2]: per part of the channels' pass; NULL: none */
        tpa_ns           *lost;         /* starts of the launches whose device work never
                                           came (steps, for warm-up) */
        size_t            lost_n;
        tpa_index_list    gap_cand;     /* host events that overlap a top gap (metrics
                                           for the summary), in event order */
        bool              threaded;     /* tpa_analysis__in_two() uses a second thread */
        struct tpa_helper *helper;      /* ... this one, kept from call to call; NULL:
                                           none yet */
} tpa_actx;

/* Room for one more in the array *v of *cap elements of `elem` bytes, `n`
 * of them used: doubled when full (to `first` from none). */
static inline int tpa_analysis__room(void **v, size_t *cap, size_t n, size_t elem,
                                     size_t first, tpa_error *err)
{
        size_t c;
        void *p;

        if (n < *cap)
                return 0;
        c = *cap != 0 ? *cap * 2 : first;
        if ((p = realloc(*v, c * elem)) == NULL)
                return tpa_error_oom(err);
        *v = p;
        *cap = c;
        return 0;
}

/* How many events ahead of the one in hand a pass over the events in
 * order asks for (tpa_analysis__ahead()). */
#define TPA_ANALYSIS_AHEAD 64

/* Event i + TPA_ANALYSIS_AHEAD asked for by a pass that reads the events
 * in order. Speed (bench/): the hardware's prefetcher stops at each 4 KB
 * page, and the first events of every page waited for memory. No test for
 * the end of the events, a test per event of every pass: a prefetch never
 * faults, and the address is made as an integer, not a pointer past them. */
static inline void tpa_analysis__ahead_of(const tpa_event *ev, size_t i)
{
        __builtin_prefetch((const void *)((uintptr_t)&ev[i] + TPA_ANALYSIS_AHEAD * sizeof(*ev)));
}

/* As tpa_analysis__ahead_of(c->ev, i); a pass that keeps c->ev in a local
 * calls that, as c->ev is read again after each store through a byte
 * pointer (which may alias it). */
static inline void tpa_analysis__ahead(const tpa_actx *c, size_t i)
{
        tpa_analysis__ahead_of(c->ev, i);
}

static inline bool tpa_analysis__is_device_kind(unsigned k)
{
        return k == TPA_KIND_KERNEL || k == TPA_KIND_MEMSET || tpa_kind_is_copy(k) ||
               k == TPA_KIND_COLLECTIVE;
}

/* Where event i counts: EV_SKIP, EV_DEVICE (device index in *dev), EV_HOST.
 * Inline: every stage asks it of every event (a call was an eighth of the
 * analysis' instructions, bench/). */
static inline int tpa_analysis__event_class(const tpa_actx *c, size_t i, int32_t *dev)
{
        const tpa_event *e = &c->ev[i];
        int32_t t;

        if (e->kind == TPA_KIND_ANNOTATION || e->kind == TPA_KIND_STEP ||
            e->track >= c->ntracks)
                return EV_SKIP;
        t = c->track_cls[e->track];
        if (t < TRACK_HOST)
                return EV_SKIP;         /* TRACK_SKIP, TRACK_STEPS */
        if (t == TRACK_HOST)
                return EV_HOST;
        if (!tpa_analysis__is_device_kind(e->kind))
                return EV_SKIP;
        *dev = t;
        return EV_DEVICE;
}

/* Run fn(c, 0, arg) and fn(c, 1, arg): on two threads when c->threaded,
 * else one after the other on this one (part 1 only when part 0
 * succeeded). The parts must write disjoint state, so the result is the
 * same either way; sums a part cannot finish alone go to slots of its own
 * that the caller adds up after, in the order of one thread. Returns part
 * 0's error, else part 1's. */
typedef int (*tpa_analysis__part_fn)(tpa_actx *c, int part, void *arg, tpa_error *err);
int  tpa_analysis__in_two(tpa_actx *c, tpa_analysis__part_fn fn, void *arg, tpa_error *err);

/* Part `part` (0 or 1) of n units, [*lo, *hi): the first half, the rest. */
static inline void tpa_analysis__half(size_t n, int part, size_t *lo, size_t *hi)
{
        *lo = part == 0 ? 0 : n / 2;
        *hi = part == 0 ? n / 2 : n;
}

/* Stages, in order (warm-up after the partition and the device unions,
 * which it reads). Each fills part of c->a. */
/* The steps' windows (tpa_analysis__steps_begin()), the channels' interval
 * lists, whose pass settles the first window, and the steps
 * (tpa_analysis__steps_end()). */
int  tpa_analysis__lists_and_steps(tpa_actx *c, tpa_error *err);
int  tpa_analysis__steps_begin(tpa_actx *c, tpa_error *err);
int  tpa_analysis__steps_end(tpa_actx *c, tpa_error *err);
/* Free what the steps hold between their stages (on failure). */
void tpa_analysis__steps_free(tpa_actx *c);
/* Device event e, to the settling of the first window (part of it). */
int  tpa_analysis__settle_see(tpa_settle *st, const tpa_event *e, tpa_error *err);
int  tpa_analysis__partition(tpa_actx *c, tpa_error *err);
/* Each device's channel lists into their union, c->dev_any, in the
 * largest one's block (c->dev is left empty), and c->dev_all. After the
 * partition, the only stage that wants the channels apart. */
int  tpa_analysis__device_unions(tpa_actx *c, tpa_error *err);
void tpa_analysis__warmup(tpa_actx *c);
int  tpa_analysis__metrics(tpa_actx *c, tpa_error *err);
int  tpa_analysis__summary(tpa_actx *c, tpa_error *err);
/* A note (a->step_note) when each kept step takes several batches. */
void tpa_analysis__batches_note(tpa_actx *c);

/* The top-op tables (top_ops.c, doc/design.md 5.4). The metrics' pass over
 * the events marks the events of each: those of kept steps with time in
 * them, lane by lane (a host thread, a device stream); tpa_top__tables()
 * then nests each lane's events step by step into every op's self and
 * total time. Memory (bench/): a bit per event while marked, then 4 bytes
 * per event of the tables; nothing else is kept per event (the nesting
 * pass's scratch holds one step's events). */
typedef struct tpa_top_lanes {
        uint64_t *mark;         /* while marking: a bit per event of the trace */
        size_t   *count[2];     /* while marking: per part, events per thread and
                                   half of the marks (slot 2 * thread + half) */
        size_t    half;         /* the first event of the second half of the marks */
        uint32_t *idx;          /* then lane l's events: idx[at[l]..at[l + 1]) */
        size_t   *at;
        size_t    nlane;
        size_t   *lane;         /* while the lanes fill: per thread, its lane */
        size_t   *pos[2];       /* and per half, each lane's next slot */
        size_t   *mid;          /* and each lane's first slot of the second half */
        bool      sorted;       /* each lane's events in start order */
        bool      host;         /* the host table: exposed time, one group */
} tpa_top_lanes;

typedef struct tpa_top {
        tpa_top_lanes          host, dev;
        bool                   spent[2][2];     /* per table (host, device) and part:
                                                   its lanes ran out of moves */
        struct tpa_top_tables *tables;  /* by name, per table and part */
        uint32_t              *hidden[2];       /* per part, the host ops the device
                                                   hides, by name (a slot per string) */
} tpa_top;

int  tpa_top__new(tpa_top *t, const tpa_actx *c, tpa_error *err);
void tpa_top__free(tpa_top *t);         /* a zeroed one too */
/* Event i, of thread `track`, into the table of L, by part `part` of a pass
 * whose parts take chunks of whole 64-event words. Inline: the metrics'
 * pass marks most host events. */
static inline void tpa_top__mark(tpa_top_lanes *L, int part, size_t i, uint32_t track)
{
        L->mark[i / 64] |= (uint64_t)1 << (i % 64);
        L->count[part][2 * (size_t)track + (i >= L->half)]++;
}
/* Host op event e (index i), by part `part` of the pass, with time in
 * its kept step: marked when the device leaves some of that time exposed,
 * else (`covered`: one interval of c->dev_all holds all of it) only
 * counted (in `hidden`, added to the table's ops with time in the end). An
 * op the device hides has no exposed time of its own, nor any to take
 * from an op it nests in or share with another thread; the nesting passes
 * skip it (speed, bench/: 3 in 5 host ops of its trace). The pass finds
 * `covered` by the device interval it met last. Inline: asked of every
 * host op. */
static inline void tpa_top__host_op(tpa_top *t, int part, size_t i, const tpa_event *e,
                                    bool covered)
{
        if (!covered)
                tpa_top__mark(&t->host, part, i, e->track);
        else
                t->hidden[part][e->name]++;
}
/* The tables into c->a->device_ops and host_ops, by self time, with
 * fractions of kept_time (times the devices for the device table). */
int  tpa_top__tables(tpa_actx *c, tpa_top *t, double kept_time, tpa_error *err);

/* Make c->profiler_step, for tpa_analysis__collect_markers(): a look-up of
 * each event's name string was half of that pass (bench/). */
int  tpa_analysis__name_markers(tpa_actx *c, tpa_error *err);
/* False when event e, on a track of class t, is a step marker of no
 * source; true when it may be one: a step event, an event of a Steps line,
 * a "ProfilerStep#N" name (c->profiler_step). */
static inline bool tpa_analysis__may_mark(const tpa_actx *c, const tpa_event *e, int32_t t)
{
        return e->kind == TPA_KIND_STEP || t == TRACK_STEPS || e->name >= c->str_count ||
               (c->has_profiler_step && (c->profiler_step[e->name / 64] >> (e->name % 64) & 1));
}
/* Add the step markers of every source among events [lo, hi) to l[source],
 * in event order. */
int  tpa_analysis__collect_markers(const tpa_actx *c, size_t lo, size_t hi,
                                   tpa_marker_list *l, tpa_error *err);

/* A block of `size` bytes for a list the channels' pass fills: the
 * smallest of c->spare that holds it, cut to size, else a new one (NULL:
 * no memory). Speed (bench/): the ids' tables were freed right before the
 * pass, whose largest blocks then faulted in fresh pages one by one; a
 * spare's pages are in memory already. */
void *tpa_analysis__spare(tpa_actx *c, size_t size);
/* Free what is left of c->spare. */
void tpa_analysis__spare_free(tpa_actx *c);
/* The pages of the `size` bytes at p faulted in, for a block about to be
 * written whole. Speed (bench/): one call faults them in for less than a
 * trap into the kernel per page as the writes reach it. */
void tpa_analysis__populate(void *p, size_t size);

/* Room in c->ext for the tables of c->n events, a slot per event. */
int  tpa_analysis__ext_new(tpa_actx *c, tpa_error *err);
/* Sort a part's table of groups for the steps' look-ups (steps.c), once it
 * is filled; tpa_analysis__steps_begin() readies the ids' table. */
void tpa_analysis__ext_sort(tpa_ext *x);

/* The step containing time t, or -1, by a binary search; *hint (hint may
 * be NULL) is set to it when there is one. */
long tpa_analysis__step_search(const tpa_analysis *a, tpa_ns t, long *hint);
/* The step containing time t, or -1. `hint` (may be NULL) holds the step
 * found last and is tried first: an event mostly falls in the step of the
 * one before it (a binary search per event was 7% of the analysis). Inline:
 * asked of most events, mostly answered by the hint. */
static inline long tpa_analysis__step_of(const tpa_analysis *a, tpa_ns t, long *hint)
{
        if (hint != NULL && *hint >= 0 && (size_t)*hint < a->step_count &&
            a->steps[*hint].start <= t && t < a->steps[*hint].end)
                return *hint;
        return tpa_analysis__step_search(a, t, hint);
}

/* qsort/bsearch comparison of uint32_t. */
int tpa_analysis__cmp_u32(const void *pa, const void *pb);

/* Statistics on a scratch array (sorted in place). */
double tpa_analysis__quantile(double *v, size_t n, double q);
/* tpa_analysis__quantile(v, n, 0.5), the same value, by selection rather than
 * a sort where it can (v is left in any order; `tmp`: room for n, or NULL).
 * Speed (bench/): the run's medians of every step metric sorted them all. */
double tpa_analysis__median(double *v, size_t n, uint64_t *tmp);

/* Sort the n unsigned integers at `src` (a uint32_t or uint64_t pointer
 * variable) ascending, least significant byte first, through `dst` (room
 * for n more): afterwards `src` points at the sorted values, in either
 * buffer. A byte that is the same in every value costs one count. Speed
 * (bench/): qsort's compare callback was a tenth of tpa_analyze(). */
#define TPA_RADIX_SORT(src, dst, n)                                                 \
        do {                                                                        \
                for (unsigned shift_ = 0; shift_ < 8 * sizeof(*(src)) && (n) > 0;   \
                     shift_ += 8) {                                                 \
                        size_t count_[257] = { 0 };                                 \
                        void *swap_;                                                \
                        for (size_t i_ = 0; i_ < (n); i_++)                         \
                                count_[(((src)[i_] >> shift_) & 0xff) + 1]++;       \
                        if (count_[(((src)[0] >> shift_) & 0xff) + 1] == (n))       \
                                continue;       /* this byte is the same everywhere */ \
                        for (int b_ = 0; b_ < 256; b_++)                            \
                                count_[b_ + 1] += count_[b_];                       \
                        for (size_t i_ = 0; i_ < (n); i_++)                         \
                                (dst)[count_[((src)[i_] >> shift_) & 0xff]++] = (src)[i_]; \
                        swap_ = (src);                                              \
                        (src) = (dst);                                              \
                        (dst) = swap_;                                              \
                }                                                                   \
        } while (0)

#endif
