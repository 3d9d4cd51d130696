/* SPDX-License-Identifier: MIT */
/*
 * tpa/report.h - reports: format numbers the analysis computed, into a
 * FILE * the caller owns (the CLI renders into memory, then writes).
 */
#ifndef TPA_REPORT_H
#define TPA_REPORT_H

#include <stdio.h>

#include "trace.h"

/* "What was read": format and dialect, devices and their streams, host
 * threads, events by kind, time span, parse health. */
void tpa_report_read_summary(FILE *fp, const tpa_trace *tr, const char *path);

#endif
