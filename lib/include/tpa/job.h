/* SPDX-License-Identifier: MIT */
/*
 * tpa/job.h - several ranks of one distributed job (doc/design.md 5.6).
 *
 * A tpa_rank is what the cross-rank view needs from one rank: its place in
 * the job, its steps (time, collective time, class) and its communication
 * and launch figures. It comes from a fresh analysis (tpa_rank_from_trace)
 * or from the `distributed` object of a saved JSON report
 * (tpa_report_load_rank in tpa/report.h), so traces never have to travel.
 * A tpa_job aligns the ranks' steps by number and names, per step, the
 * straggler; per rank, the time it waited for the others.
 */
#ifndef TPA_JOB_H
#define TPA_JOB_H

#include "analysis.h"

typedef struct tpa_rank_step {
        int64_t number;                 /* as the trace numbers it */
        tpa_ns  step_time;
        tpa_ns  collective;             /* union of collective events in the window */
        bool    excluded;               /* warm-up or tail on this rank */
        char   *class_name;             /* NULL: none */
} tpa_rank_step;

/* Kernel queue depth on one device stream, as HTA's
 * get_queue_length_summary: +1 when a launch call starts, -1 when its
 * kernel starts, statistics over the points where the depth changes. */
typedef struct tpa_rank_stream {
        char   *name;                   /* "GPU:0 stream 7" */
        double  queue_mean;
        int64_t queue_max;
} tpa_rank_stream;

/* Everything a tpa_rank points to is owned by it. */
typedef struct tpa_rank {
        char            *path;          /* the trace analysed */
        int64_t          rank;          /* distributedInfo rank; -1: unknown */
        int64_t          world_size;    /* -1: unknown */
        char            *backend;       /* "gloo", "nccl"; NULL: unknown */
        tpa_rank_step   *steps;         /* every step, in time order */
        size_t           step_count;
        /* Communication against computation over the whole trace, as HTA's
         * get_comm_comp_overlap: the union of collective events, and the
         * part of it during which computation runs (kernels on a device;
         * framework ops on the host of a CPU-only trace). */
        tpa_ns           comm_ns, overlap_ns;
        /* Launch delay (HTA get_cuda_kernel_launch_stats): a device
         * event's start minus the end of the launch call with its
         * correlation id, 0 when negative. launch_count 0: not defined
         * (no device, or no correlated launches). */
        uint64_t         launch_count;
        tpa_ns           launch_delay_median, launch_delay_p90, launch_delay_max;
        tpa_rank_stream *streams;       /* device streams with launches */
        size_t           stream_count;
        /* When its steps ran, first start to last end, in ns since the
         * epoch (the trace's wall_base_ns on); -1, -1: not known. */
        int64_t          wall_start_ns, wall_end_ns;
} tpa_rank;

/* The cross-rank part of an analysed trace in *out (copies; `tr` and `a`
 * may go first). `path` names the trace. TPA_ENOMEM on failure. */
int  tpa_rank_from_trace(tpa_rank **out, const tpa_trace *tr, const tpa_analysis *a,
                         const char *path, tpa_error *err);
void tpa_rank_free(tpa_rank *r);                /* NULL is a no-op */

/* One step of the job: the ranks that kept it, and its straggler. A rank's
 * busy time in a step is its step time less its wait (its collective time
 * beyond the least collective time of any rank in that step): the rank
 * that others wait for has the least collective time and the most busy
 * time. A step whose busiest rank is no busier than its median rank (the
 * ranks tie; one rank kept it) has none: TPA_JOB_NONE. */
typedef struct tpa_job_step {
        int64_t     number;
        size_t      ranks;              /* ranks that kept the step */
        size_t      missing;            /* ranks without it (or that excluded it) */
        size_t      straggler;          /* index into tpa_job.ranks; TPA_JOB_NONE */
        tpa_ns      busy_median;        /* median busy time over its ranks */
        tpa_ns      excess;             /* straggler's busy time - busy_median */
        double      excess_frac;        /* excess / busy_median; 0 when it is 0 */
        double      spread;             /* max busy / median busy; 1 when equal */
        tpa_ns      step_time_max;
        const char *straggler_class;    /* borrowed from the rank; NULL: none */
} tpa_job_step;

#define TPA_JOB_NONE SIZE_MAX

typedef struct tpa_job_rank {
        const tpa_rank *r;              /* borrowed */
        int64_t     rank;               /* its rank, or its position when unknown */
        size_t      steps;              /* job steps it kept */
        size_t      missing;            /* job steps it lacks */
        size_t      straggler_steps;    /* job steps it was the straggler of */
        tpa_ns      step_time;          /* its time over the job steps */
        tpa_ns      collective, wait;   /* over the job steps */
        double      wait_frac;          /* wait / step_time */
        double      overlap_frac;       /* overlap_ns / comm_ns; < 0: no collectives */
} tpa_job_rank;

typedef struct tpa_job {
        tpa_job_rank *ranks;            /* by rank number */
        size_t        rank_count;
        int64_t       world_size;       /* as the traces say; -1: unknown */
        bool          ranks_by_position; /* a rank number was missing or repeated */
        tpa_job_step *steps;            /* by step number: kept by at least one rank */
        size_t        step_count;
        /* cells[r * step_count + s]: rank r's step time in job step s, -1
         * when it lacks the step (the heat map). */
        tpa_ns       *cells;
        size_t        steps_with_missing; /* job steps some rank lacks */
        /* The job's summary: medians over job steps, the most frequent
         * straggler (the lowest rank on a tie). */
        double        excess_frac_median, excess_frac_max, spread_median;
        tpa_ns        excess_median;
        size_t        top_straggler;    /* index into ranks; TPA_JOB_NONE */
        size_t        top_straggler_steps;
        int64_t       repeated_rank;    /* a rank number two inputs say (the same
                                           rank's reports of two runs or two
                                           builds); -1: none */
        /* Two inputs or more, each known to have run from when to when,
         * and none while another did, that do not each say a rank of
         * their own: runs of a script one after another (into one folder,
         * seconds apart), not ranks of one job. No step has a straggler
         * then. */
        bool          one_after_another;
} tpa_job;

/* Align `n` ranks by step number. The job borrows the ranks: free it
 * first. TPA_EINVAL when n is 0, TPA_ENOMEM. */
int  tpa_job_build(tpa_job **out, const tpa_rank *const *ranks, size_t n, tpa_error *err);
void tpa_job_free(tpa_job *j);                  /* NULL is a no-op */

/* The job metrics (doc/metrics.md, "Job metrics") by name, for `check
 * --fail-if`: straggler_excess (median excess fraction over job steps),
 * straggler_excess_max, spread, collective_wait_frac (the most any rank
 * waited, as a fraction of its step time), comm_overlap_frac (the least of
 * any rank with collectives), launch_delay_p90_ns (the most of any rank; 0
 * when no rank has launches), missing_steps, ranks, job_steps. */
bool        tpa_job_metric(const tpa_job *j, const char *name, size_t len, double *out);
size_t      tpa_job_metric_count(void);
const char *tpa_job_metric_name(size_t i);
/* True for the job metrics that are fractions without "_frac" in their
 * name (straggler_excess, straggler_excess_max): shown as percentages. */
bool        tpa_job_metric_is_frac(const char *name);
/* A tpa_metric_fn; ctx is a const tpa_job *. */
bool        tpa_job_metric_fn(void *ctx, const char *name, size_t len, double *out);

#endif
