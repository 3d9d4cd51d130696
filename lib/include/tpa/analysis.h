/* SPDX-License-Identifier: MIT */
/*
 * tpa/analysis.h - per-step analysis of a trace (doc/design.md section 5):
 * steps and their windows, warm-up exclusion, the partition of step time
 * into buckets, idle gaps, copies, host gaps, top ops, what-if gains, and
 * the classes and findings the rules give for each step and for the run.
 *
 * The result is plain data the reports read. It borrows strings from the
 * trace (event and device names) and from the rules (class names): free the
 * analysis before either of them.
 */
#ifndef TPA_ANALYSIS_H
#define TPA_ANALYSIS_H

#include "rules.h"
#include "trace.h"

typedef struct tpa_analysis_options {
        const char      *step_marker;   /* POSIX ERE over event names; NULL: none */
        int              warmup;        /* -1: auto (evidence and statistics); N >= 0: first N */
        const tpa_rules *rules;         /* thresholds, classes, findings; NULL: defaults, no classes */
        int              top_n;         /* rows in the top tables; 0: 5 */
        /* Threads tpa_analyze() uses: 0 (auto) two for a trace of
         * TPA_ANALYSIS_THREADED_EVENTS events or more when the machine has
         * more than one CPU, else one; 1: one; 2: two, whatever the size
         * (tests). The result is the same, bit for bit. */
        int              threads;
        /* Keep each step's partition as time spans (tpa_step.spans), for
         * a report that draws it (HTML); off, the analysis keeps only
         * the sums. */
        bool             keep_spans;
} tpa_analysis_options;
/* Below this the analysis takes milliseconds, and starting a thread at
 * each of its stages would not pay. */
#define TPA_ANALYSIS_THREADED_EVENTS 100000
#define TPA_ANALYSIS_OPTIONS_INIT { .step_marker = NULL, .warmup = -1, .rules = NULL, .top_n = 0 }

/* The leaf buckets of the partition (doc/design.md 5.3), in priority order.
 * Transfer is H2D..P2P, sync is HOST_WAIT..COLLECTIVE, host is
 * LAUNCH..HOST_COMPUTE: every kind of host overhead while the device
 * idles (on a CPU-only trace framework ops are the compute, and
 * HOST_COMPUTE stays empty). */
typedef enum tpa_bucket {
        TPA_BUCKET_COMPUTE = 0,
        TPA_BUCKET_H2D,
        TPA_BUCKET_D2H,
        TPA_BUCKET_D2D,
        TPA_BUCKET_P2P,
        TPA_BUCKET_SYNC_HOST_WAIT,
        TPA_BUCKET_SYNC_COLLECTIVE,
        TPA_BUCKET_INPUT,
        TPA_BUCKET_HOST_LAUNCH,
        TPA_BUCKET_HOST_SETUP,
        TPA_BUCKET_HOST_PYTHON,
        TPA_BUCKET_HOST_COMPUTE,
        TPA_BUCKET_IDLE,
        TPA_BUCKET__COUNT
} tpa_bucket;
/* "compute", "transfer_h2d", ..., "idle": the metric name stem. */
const char *tpa_bucket_name(tpa_bucket b);

/* The top-level groups the report shows. */
typedef enum tpa_group {
        TPA_GROUP_COMPUTE = 0,
        TPA_GROUP_TRANSFER,
        TPA_GROUP_SYNC,
        TPA_GROUP_INPUT,
        TPA_GROUP_HOST,
        TPA_GROUP_IDLE,
        TPA_GROUP__COUNT
} tpa_group;
const char *tpa_group_name(tpa_group g);        /* "compute", "transfer", ... */
tpa_group   tpa_bucket_group(tpa_bucket b);

/* A stretch of a step's window that the partition gave one bucket, on one
 * device (an index into tpa_analysis.device_names; 0 on a CPU-only trace). */
typedef struct tpa_span {
        tpa_ns     start, end;          /* [start, end) */
        int        device;
        tpa_bucket bucket;
} tpa_span;

typedef struct tpa_step {
        int64_t      number;            /* as the trace numbers it */
        tpa_ns       start, end;        /* the window, [start, end) */
        tpa_ns       step_time;         /* end - start */
        bool         excluded;
        char         reason[96];        /* why excluded; "" when kept */
        /* Bucket time, mean over the devices that worked in the step
         * (exact for one device); sums to step_time up to rounding when
         * there are several devices. */
        tpa_ns       bucket_ns[TPA_BUCKET__COUNT];
        double       frac[TPA_BUCKET__COUNT];    /* sums to 1 */
        tpa_ns      *device_ns;         /* device_count x TPA_BUCKET__COUNT, per device */
        int          slowest_device;    /* index into tpa_analysis.device_names; -1: none */
        uint32_t     driver_track;      /* the thread driving the step; UINT32_MAX: none */
        const char  *class_name;        /* borrowed from the rules; NULL without rules */
        tpa_finding *findings;          /* what the rules found in this step */
        size_t       finding_count;
        double      *metric;            /* values by metric index (tpa_analysis_metric) */
        /* With tpa_analysis_options.keep_spans: the partition, device by
         * device, each in time order, neighbours in one bucket joined;
         * the spans of a device tile the window. Else NULL, 0. */
        tpa_span    *spans;
        size_t       span_count;
} tpa_step;

/* A device idle gap and the host events that overlapped it most. */
typedef struct tpa_gap_host {
        const char *name;               /* borrowed from the trace */
        tpa_ns      overlap;
        double      frac;               /* overlap / gap length */
} tpa_gap_host;
typedef struct tpa_gap {
        int          device;            /* index into device_names; -1: CPU-only */
        int64_t      step;              /* step number */
        tpa_ns       start, len;
        tpa_ns       offset;            /* start - step start */
        tpa_gap_host host[3];
        size_t       host_count;
} tpa_gap;

typedef struct tpa_copy_stats {
        uint64_t count;
        tpa_ns   time;
        uint64_t bytes;
        double   gbps;                  /* bytes / time; 0 when no time */
        tpa_ns   exposed;               /* not overlapped by compute */
        double   exposed_frac;          /* exposed / kept step time */
        uint64_t small;                 /* copies below small_copy.max */
} tpa_copy_stats;

/* An op of a top table (doc/metrics.md). On a thread, events nest: `time`
 * is the total, the time the op's events cover (one nested in another of
 * the same name counts once); `self` is the part no other op of the table
 * nested in it covers, so that the self column sums to at most the base.
 * A device's kernels do not nest: their self time is their total. */
typedef struct tpa_op_stat {
        const char *name;               /* borrowed from the trace */
        tpa_ns      time;               /* total */
        uint64_t    count;
        double      frac;               /* time / the table's base */
        tpa_ns      self;
        double      self_frac;          /* self / the table's base */
} tpa_op_stat;

typedef struct tpa_class_count {
        const char *name;
        size_t      count;              /* kept steps of the class */
        tpa_ns      time;               /* their step time */
} tpa_class_count;

typedef struct tpa_analysis {
        /* What was analysed. */
        size_t       device_count;
        const char **device_names;      /* "GPU:0", or the process name */
        bool         cpu_only;
        /* CPU-only by what it recorded: host calls that launched device
         * work (a correlation id: cudaLaunchKernel, hipLaunchKernel) with no
         * device activity in the trace; the device was not recorded */
        size_t       unrecorded_launches;
        const char  *step_source;       /* "ProfilerStep#N", "TF Steps line", ... */
        bool         no_markers;        /* one step for the whole trace */
        /* What the step search has to say besides its source ("" when
         * nothing): a --step-marker that matched no event. */
        char         step_note[200];
        char         step_source_buf[200];  /* where a step_source made of names is kept */
        bool         all_kept;          /* every step would have been excluded */
        /* Thresholds used. */
        tpa_ns       gap_min, host_gap_min, small_copy_max;
        double       warmup_ratio;
        /* Steps, in time order. */
        tpa_step    *steps;
        size_t       step_count;
        size_t       kept_count;
        /* Summary over kept steps. */
        tpa_ns       step_time_median, step_time_p90, step_time_min, step_time_max;
        /* The run's breakdown: bucket time over kept step time (each
         * step weighs by its time), and the same by group. */
        double       run_frac[TPA_BUCKET__COUNT];
        double       run_group_frac[TPA_GROUP__COUNT];
        tpa_class_count *classes;       /* step classes, most kept-step time first */
        size_t       class_kinds;
        /* The run's class: the class of the most kept-step time (ties in
         * the rules' order); NULL without rules or without a verdict. */
        const char  *run_class;
        /* The class the rules give the run's breakdown: when it is not
         * run_class, the run is mixed and the report names both. */
        const char  *breakdown_class;
        /* Why the run has no verdict (a trace with no training steps in
         * it, or no step at all); NULL when it has one. */
        const char  *no_verdict;
        tpa_finding *findings;          /* run findings, in rule order */
        size_t       finding_count;
        /* Evidence over kept steps. */
        tpa_gap     *gaps;              /* top idle gaps, longest first */
        size_t       gap_count;
        uint64_t     gap_total_count;   /* all gaps >= gap_min */
        tpa_ns       gap_total_ns;
        tpa_copy_stats copies[4];       /* h2d, d2h, d2d, p2p */
        uint64_t     host_gap_count;
        tpa_ns       host_gap_ns, host_gap_median;
        double       host_gap_frac, host_gap_per_ms;
        /* Top ops by self time: by device time (base: kept step time
         * times devices), and by exposed host time (base: kept step time) */
        tpa_op_stat *device_ops;
        size_t       device_op_count;
        size_t       device_op_total;   /* device_ops holds every op with time,
                                           ranked; the first device_op_count are the top */
        tpa_op_stat *host_ops;
        size_t       host_op_count;
        double       gain_frac[TPA_GROUP__COUNT];  /* what-if, median over kept steps */
        double      *run_metric;        /* values by metric index */
        /* It ran on two threads (tpa_analysis_options.threads): the JSON
         * report of many steps then formats them on two as well. */
        bool         threaded;
        /* The events as the analysis' first pass counted them, for the
         * report's input section: the earliest start and latest end (no
         * events: 0, 0), the number per tpa_kind and per thread of the
         * trace (tpa_trace_thread_count() entries; NULL when out of
         * memory: the report then counts them itself). */
        tpa_ns       events_start, events_end;
        uint64_t     events_by_kind[TPA_KIND__COUNT];
        uint64_t    *events_by_track;
} tpa_analysis;

/* Analyse `tr`. On success *out owns a new analysis; free it with
 * tpa_analysis_free(), before the trace and the rules. Fails with
 * TPA_EINVAL on a bad --step-marker regex, TPA_ERULE when a rule cannot be
 * evaluated, TPA_ENOMEM. */
int  tpa_analyze(tpa_analysis **out, const tpa_trace *tr, const tpa_analysis_options *opts,
                 tpa_error *err);
void tpa_analysis_free(tpa_analysis *a);        /* NULL is a no-op */

/* The metric `name` (len bytes, not NUL-terminated; see doc/metrics.md) for
 * step index `step`, or for the run when step is -1. False when unknown. */
bool tpa_analysis_metric(const tpa_analysis *a, int step, const char *name, size_t len,
                         double *out);

/* The metric names, in a fixed order: i in [0, tpa_analysis_metric_count()). */
size_t      tpa_analysis_metric_count(void);
const char *tpa_analysis_metric_name(size_t i);

/* A tpa_metric_fn over a step or the run, for the rules. */
typedef struct tpa_analysis_metric_ctx {
        const tpa_analysis *a;
        int                 step;       /* -1: the run */
} tpa_analysis_metric_ctx;
bool tpa_analysis_metric_fn(void *ctx, const char *name, size_t len, double *out);

#endif
