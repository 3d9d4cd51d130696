/* SPDX-License-Identifier: MIT */
/*
 * run_load.h - what diff and check compare: a run from a trace (read and
 * analysed) or from a saved JSON report (sniffed by its "schema" key).
 */
#ifndef TPA_CLI_RUN_LOAD_H
#define TPA_CLI_RUN_LOAD_H

#include <tpa/tpa.h>

#include "opts.h"

/* The default rules, extended or replaced by --rules, with --set applied.
 * Returns an exit code. */
int cli_load_rules(tpa_rules **out, const cli_args *args);
/* True when the file at `path` starts like a saved JSON report. */
bool cli_is_report(const char *path);
/* Why a trace gave no steps, for the message that refuses it. */
const char *cli_no_events_reason(const tpa_trace *tr);
/* The first metric of this version that a saved report lacks (an earlier
 * tfprof-analyze wrote it) and in *count how many; NULL: none. */
const char *cli_report_lacks(const tpa_run *r, size_t *count);
/* `name` as this version knows it when it is one of its metrics that the
 * saved report `r` lacks; NULL: not one. */
const char *cli_report_lacks_metric(const tpa_run *r, const char *name);
/* A warning, unless quiet, when the saved report `r` lacks metrics of this
 * version: an earlier tfprof-analyze wrote it, and its breakdown, classes
 * and findings of the same trace may differ from this version's. */
void cli_note_older_report(const tpa_run *r, const char *path);
/* Load `path` as a tpa_run; prints the error and returns its exit code. A
 * run with no kept steps is refused (EXIT_INPUT, with the reason): there is
 * nothing to compare or gate on. */
int cli_load_run(tpa_run **out, const char *path, const cli_args *args,
                 const tpa_rules *rules);
/* The same for several traces read into one run: TF1 timelines given
 * together, a step each. */
int cli_load_run_paths(tpa_run **out, const char *const *paths, int count,
                       const cli_args *args, const tpa_rules *rules);
/* timeline.Timeline's Chrome trace of one Session.run: several given
 * together are the steps of one run. */
bool cli_is_tf1_timeline(const tpa_trace *tr);
/* True when every path is a TF1 timeline (timeline.Timeline's JSON) of
 * 64 MiB or less. */
bool cli_tf1_timelines(const char *const *paths, int n);

#endif
