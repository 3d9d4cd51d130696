/* SPDX-License-Identifier: MIT */
/*
 * results_build.h - (library-internal) the calls that make the analysis'
 * comparable results other than from a tpa_analysis: an empty run or rank
 * for the report loaders to fill from saved JSON (report_load.c,
 * report_job_load.c), a rank of its steps only for the JSON report, and
 * the bootstrap that tpa_compare() runs per quantile.
 */
#ifndef TPA_ANALYSIS_RESULTS_BUILD_H
#define TPA_ANALYSIS_RESULTS_BUILD_H

#include <tpa/compare.h>
#include <tpa/job.h>

/* An empty run to fill. Free it with tpa_run_free(). */
int tpa_run__new(tpa_run **out, tpa_error *err);

/* An empty rank to fill. Free it with tpa_rank_free(). */
int tpa_rank__new(tpa_rank **out, tpa_error *err);

/* As tpa_rank_from_trace(), its place in the job and its steps only: no
 * collective, overlap or launch figures (a pass over every event, which a
 * trace that does not say it is a rank need not pay for in its report). */
int tpa_rank__from_steps(tpa_rank **out, const tpa_trace *tr, const tpa_analysis *a,
                         const char *path, tpa_error *err);

/* The change of quantile `q` (0.5: median) of two samples, with a
 * bootstrap interval: both samples are resampled with replacement
 * opts->resamples times; the interval is the percentile interval of the
 * relative change. TPA_EINVAL when a sample is empty. */
int tpa_compare__quantile(tpa_change *out, const tpa_ns *base, size_t nb, const tpa_ns *cur,
                          size_t nc, double q, const tpa_compare_options *opts,
                          tpa_error *err);

#endif
