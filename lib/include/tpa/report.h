/* SPDX-License-Identifier: MIT */
/*
 * tpa/report.h - reports: format numbers the analysis computed, into a
 * FILE * the caller owns (the CLI renders into memory, then writes).
 */
#ifndef TPA_REPORT_H
#define TPA_REPORT_H

#include <stdio.h>

#include "analysis.h"
#include "check.h"
#include "compare.h"
#include "job.h"
#include "trace.h"


/* The text report of one analysed trace (doc/design.md 6): what was read, steps
 * found and excluded, the verdict, per-step table, top idle gaps, copies,
 * host gaps, top ops. At most 100 columns, deterministic. */
void tpa_report_text(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path);
/* As tpa_report_text(); with `color`, ANSI escapes mark the verdict and the
 * finding severities (the caller decides: a tty and no NO_COLOR). */
void tpa_report_text_color(FILE *fp, const tpa_trace *tr, const tpa_analysis *a,
                           const char *path, bool color);

/* A short table over several analysed inputs (hosts or runs). */
void tpa_report_text_aggregate(FILE *fp, const tpa_analysis *const *runs,
                               const char *const *paths, size_t n);

/* ---- machine and review formats (report_json.c, report_markdown.c,
 * report_html.c, report_load.c, report_diff.c) ---- */

/* The schema string every JSON report starts with (doc/report-json.md). */
#define TPA_REPORT_SCHEMA "tfprof-analyze/report/v3"

/* The JSON report: every figure of the text report, keys in a fixed order,
 * integer ns with the unit in the key. Deterministic. TPA_ENOMEM only. */
int  tpa_report_json(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path,
                     tpa_error *err);

/* A PR-comment-sized Markdown summary: verdict, breakdown table, top
 * findings with gains, per-step table in a <details> block. */
void tpa_report_markdown(FILE *fp, const tpa_trace *tr, const tpa_analysis *a,
                         const char *path);

/* One self-contained HTML page (no network) as wide as the window: the
 * summary, step times as bars stacked by bucket group (inline SVG), the
 * timeline of the median kept step, and the text report's tables (per
 * step, idle gaps, copies, top ops). The timeline's first lanes are the
 * step's partition, in the breakdown's colours, when the analysis kept it
 * (tpa_analysis_options.keep_spans); then device streams, the driving host
 * thread and the input pipeline's threads, idle gaps marked, drawn from
 * the trace's events. TPA_ENOMEM only. */
int  tpa_report_html(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path,
                     tpa_error *err);

/* True when the first bytes look like a saved JSON report: an object whose
 * first key is "schema", its value starting "tfprof-analyze/" (PyTorch's
 * execution trace also begins with a "schema"). */
bool tpa_report_sniff(const void *data, size_t size);
/* tpa_report_sniff() of data that may be gzip-compressed (inflated). */
bool tpa_report_sniff_memory(const void *data, size_t size);
/* True when the file at `path` (gzip-compressed or not) starts like a
 * saved report: tpa_report_sniff() of its first bytes. */
bool tpa_report_is_file(const char *path);

/* Read a saved JSON report back into what diff and check need. The schema
 * must be TPA_REPORT_SCHEMA; the file or the data may be gzip-compressed.
 * On failure *out is untouched and `err` gives the byte offset (syntax) or
 * the key (content) that is wrong. */
int  tpa_report_load(tpa_run **out, const char *path, tpa_error *err);
int  tpa_report_load_memory(tpa_run **out, const void *data, size_t size, tpa_error *err);

/* A comparison of two runs (diff) as text (at most 100 columns), JSON
 * (schema "tfprof-analyze/diff/v1") or Markdown. */
void tpa_report_diff_text(FILE *fp, const tpa_comparison *c, const char *base_path,
                          const char *new_path);
int  tpa_report_diff_json(FILE *fp, const tpa_comparison *c, const char *base_path,
                          const char *new_path, tpa_error *err);
void tpa_report_diff_markdown(FILE *fp, const tpa_comparison *c, const char *base_path,
                              const char *new_path);

/* A saved JSON report shown again (report_saved.c), from what
 * tpa_report_load() read: the verdict, step time, the breakdown of kept
 * step time, findings, the kept steps and (text) the top device ops. The
 * sections a report has no events for are left out, and each says so.
 * `path` names the report. */
void tpa_report_saved_text(FILE *fp, const tpa_run *r, const char *path);
void tpa_report_saved_markdown(FILE *fp, const tpa_run *r, const char *path);
void tpa_report_saved_html(FILE *fp, const tpa_run *r, const char *path);

/* The outcome of a CI gate (report_check.c): as text, one line per check,
 * "ok:" or "FAIL:" with its figures, and under a step time regression that
 * tripped, why (groups that moved, the class change, top ops that grew);
 * as JSON (schema "tfprof-analyze/check/v1", TPA_ENOMEM only); as Markdown
 * for a PR comment. `new_path` names the run checked. */
void tpa_report_check_text(FILE *fp, const tpa_check *checks, size_t n);
int  tpa_report_check_json(FILE *fp, const tpa_check *checks, size_t n, const char *new_path,
                           tpa_error *err);
void tpa_report_check_markdown(FILE *fp, const tpa_check *checks, size_t n,
                               const char *new_path);

/* ---- several ranks of one job (report_job*.c, doc/design.md 5.6) ---- */

/* The schema of the job document `aggregate --format json` writes. */
#define TPA_JOB_SCHEMA "tfprof-analyze/job/v1"

/* Read the `distributed` object of the saved JSON report at `path` (what
 * the job view needs from one rank); the rest of the report is not read.
 * On failure *out is untouched and `err` says what is wrong. */
int  tpa_report_load_rank(tpa_rank **out, const char *path, tpa_error *err);

/* The job view: per step the straggler, its excess over the median rank
 * and the spread; per rank collective time and its wait part, comm/compute
 * overlap, launch delay and queue depth ("n/a" where a rank has no device
 * launches). Text at most 100 columns; JSON (TPA_JOB_SCHEMA, TPA_ENOMEM
 * only); Markdown for a PR comment; HTML with a ranks x steps heat map of
 * step time, the straggler of each step marked. */
void tpa_report_job_text(FILE *fp, const tpa_job *j);
int  tpa_report_job_json(FILE *fp, const tpa_job *j, tpa_error *err);
void tpa_report_job_markdown(FILE *fp, const tpa_job *j);
void tpa_report_job_html(FILE *fp, const tpa_job *j);

#endif
