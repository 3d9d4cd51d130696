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
/* What the step search noted (a --step-marker that matched nothing) as a
 * warning on stderr, unless quiet; the report prints it too. */
void cli_print_step_note(const tpa_analysis *a, const char *path);

/* An output under construction (a report, or convert's and merge's
 * trace): write into out->fp, then commit, or discard it. A file is
 * written as a temporary file beside it ("PATH.XXXXXX") and renamed over
 * it on commit, so it is whole or as it was; stdout, a device or a fifo
 * is staged in an unnamed temporary file ($TMPDIR, else /tmp; in memory
 * when none can be made) and copied out on commit. A symbolic link is
 * followed to the file it names. */
typedef struct cli_out {
        FILE       *fp;
        const char *path;       /* the target as given; NULL: stdout */
        const char *target;     /* ... the file a symbolic link names: path or real */
        char       *real;       /* realpath() of a symbolic link path */
        char       *tmp;        /* the file beside path; NULL: staged aside */
        bool        in_memory;  /* fp is an open_memstream on buf */
        char       *buf;
        size_t      len;
        char       *vbuf;       /* fp's stdio buffer when it is a file */
        bool        gzip;       /* a report to a file named *.gz: deflated on commit */
} cli_out;
/* Start output to `path` (NULL or "-": stdout); an exit code, the error
 * said (a directory where the file cannot be created fails here, before
 * any work). A path ending in ".gz" gets the output gzipped. */
int  cli_out_begin(cli_out *o, const char *path);
/* Put the output in place; an exit code, the error said. */
int  cli_out_commit(cli_out *o);
/* Drop the output: the target stays as it was. */
void cli_out_discard(cli_out *o);

/* convert's and merge's output: a Chrome trace writer on a cli_out for
 * `path`, gzipped when the name ends in ".gz". Commit closes the writer
 * and puts the file in place; discard drops both. Exit codes, the error
 * said. */
int  cli_out_begin_chrome(cli_out *o, tpa_chrome_writer **w, const char *path);
int  cli_out_commit_chrome(cli_out *o, tpa_chrome_writer *w);
void cli_out_discard_chrome(cli_out *o, tpa_chrome_writer *w);
/* Print a write error (its message names the output); exit 5 for i/o and
 * memory, else the status' exit code. */
int  cli_out_error(const tpa_error *err);

/* EXIT_USAGE, said, when `output` (-o) is one of the `n` inputs (NULL
 * ones are skipped): writing it would destroy what is being read. */
int  cli_check_output(const char *output, const char *const *inputs, int n);
/* Put /dev/null, read-only, on whichever of stdin, stdout and stderr is
 * closed: a file opened later never takes their place (a report staged
 * in fd 1 would not go to stdout), and writing to a closed stdout fails
 * as an error writing to stdout. Call first. */
void cli_guard_std_fds(void);

/* True when colour should be used on stdout (tty, no NO_COLOR). */
bool cli_use_color(int color_mode);
/* True when progress should be shown on stderr. */
bool cli_show_progress(bool forced, bool disabled);
void cli_progress(void *ctx, uint64_t bytes_in, uint64_t bytes_out);
void cli_progress_done(void);

#endif
