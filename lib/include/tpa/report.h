/* SPDX-License-Identifier: MIT */
/*
 * tpa/report.h - reports: format numbers the analysis computed, into a
 * FILE * the caller owns (the CLI renders into memory, then writes).
 */
#ifndef TPA_REPORT_H
#define TPA_REPORT_H

#include <stdio.h>

#include "analysis.h"
#include "trace.h"

/* "What was read": format and dialect, devices and their streams, host
 * threads, events by kind, time span, parse health. */
void tpa_report_read_summary(FILE *fp, const tpa_trace *tr, const char *path);

/* The text report of one analysed trace (DESIGN.md 6): what was read, steps
 * found and excluded, the verdict, per-step table, top idle gaps, copies,
 * host gaps, top ops. At most 100 columns, deterministic. */
void tpa_report_text(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path);

/* A short table over several analysed inputs (hosts or runs). */
void tpa_report_text_aggregate(FILE *fp, const tpa_analysis *const *runs,
                               const char *const *paths, size_t n);

#endif
