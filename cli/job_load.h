/* SPDX-License-Identifier: MIT */
/*
 * job_load.h - the ranks of one job for aggregate, check and analyze: each
 * input a saved JSON report (its `distributed` object, nothing else read)
 * or a trace (read, analysed, then let go: only its tpa_rank is kept).
 */
#ifndef TPA_CLI_JOB_LOAD_H
#define TPA_CLI_JOB_LOAD_H

#include <tpa/tpa.h>

#include "opts.h"

/* The ranks of the job, one per input, and the job they make. Prints the
 * error and returns its exit code; on success free with cli_job_free(). */
typedef struct cli_job {
        tpa_rank **ranks;
        size_t     count;
        tpa_job   *job;
} cli_job;
int  cli_load_job(cli_job *out, const cli_args *args, const tpa_rules *rules);
/* The job of ranks already made (analyze); takes the ranks. */
int  cli_job_build(cli_job *j);
void cli_job_free(cli_job *j);
/* Render the job view in args->format; an exit code. */
int  cli_render_job(FILE *fp, const cli_args *args, const tpa_job *job);
/* True when the ranks are the ranks of one job: --ranks, or every one
 * says its rank (Kineto distributedInfo) and no two say the same. */
bool cli_ranks_are_a_job(const cli_args *args, const tpa_rank *const *ranks, size_t n);

#endif
