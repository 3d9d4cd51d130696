/* SPDX-License-Identifier: MIT */
/*
 * output.h - the only place that prints: diagnostics to stderr, and the
 * report, which is staged aside and written out whole at the end so that a
 * failure never leaves half a report behind.
 */
#ifndef TPA_CLI_OUTPUT_H
#define TPA_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <tpa/tpa.h>

enum {
        EXIT_OK = 0, EXIT_GATE = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_RULES = 4,
        EXIT_INTERNAL = 5,
};

extern int cli_verbosity;       /* -1 quiet, 0 default, >0 verbose */

/* "tfprof-analyze: " + message + newline, on stderr. */
void cli_errorf(const char *fmt, ...) TPA_PRINTF(1, 2);
/* "tfprof-analyze: FILE: warning: ..." unless quiet. */
void cli_warnf(const char *fmt, ...) TPA_PRINTF(1, 2);
/* Print `err` as "tfprof-analyze: PATH:OFFSET: msg" (or PATH:LINE:COL for
 * rules) and return the exit code its status maps to. */
int  cli_report_error(const tpa_error *err, const char *path);
/* The exit code for a tpa_status. */
int  cli_exit_for(int status);
/* Print the trace's warnings (aggregated) for `path` unless quiet. */
void cli_print_warnings(const tpa_trace *tr, const char *path);

/* A report under construction: render into out->fp, then commit. It is
 * staged in an unnamed temporary file ($TMPDIR, else /tmp; in memory when
 * none can be made) and copied out only when the run succeeded. */
typedef struct cli_out {
        FILE  *fp;
        bool   in_memory;       /* fp is an open_memstream on buf */
        char  *buf;
        size_t len;
        char  *vbuf;            /* fp's stdio buffer when it is a file */
} cli_out;
int  cli_out_begin(cli_out *o);
/* Write the report to `path` (NULL or "-": stdout) atomically; exit code.
 * A regular file is replaced by a rename; a device or fifo (-o /dev/null)
 * is written in place. */
int  cli_out_commit(cli_out *o, const char *path);
void cli_out_discard(cli_out *o);

/* True when colour should be used on stdout (tty, no NO_COLOR). */
bool cli_use_color(int color_mode);
/* True when progress should be shown on stderr. */
bool cli_show_progress(bool forced, bool disabled);
void cli_progress(void *ctx, uint64_t bytes_in, uint64_t bytes_out);
void cli_progress_done(void);

#endif
