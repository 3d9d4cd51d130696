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
/* Load `path` as a tpa_run; prints the error and returns its exit code. A
 * run with no kept steps is refused (EXIT_INPUT, with the reason): there is
 * nothing to compare or gate on. */
int cli_load_run(tpa_run **out, const char *path, const cli_args *args,
                 const tpa_rules *rules);

#endif
