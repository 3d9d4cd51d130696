/* SPDX-License-Identifier: MIT */
/*
 * opts.h - the command line: one table of option specs drives both the
 * parser and --help (libgit2's src/cli/opt.h).
 */
#ifndef TPA_CLI_OPTS_H
#define TPA_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum cli_cmd {
        CMD_ANALYZE = 1 << 0,
        CMD_DIFF    = 1 << 1,
        CMD_CHECK   = 1 << 2,
        CMD_CONVERT = 1 << 3,
        CMD_MERGE   = 1 << 4,
        CMD_AGGREGATE = 1 << 5,
} cli_cmd;
#define CMD_ALL (CMD_ANALYZE | CMD_DIFF | CMD_CHECK | CMD_CONVERT | CMD_MERGE | CMD_AGGREGATE)

typedef enum cli_color { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } cli_color;

#define CLI_BASELINE_MAX 8              /* --baseline options check takes */

/* Everything the command line can say. Strings borrow from argv. */
typedef struct cli_args {
        cli_cmd      cmd;
        const char  *cmd_name;
        const char **inputs;            /* positional arguments */
        int          input_count;
        /* per input, when logdirs are expanded: listed from a folder that
         * is no logdir (NULL: none is), where a file that is no trace is
         * passed over */
        const bool  *listed;
        bool         help, version;
        int          verbosity;         /* -q: -1, default 0, -v: 1, -vv: 2 */
        bool         strict;
        const char  *format;            /* text|json|markdown|html; NULL: text */
        const char  *output;            /* -o FILE; NULL: stdout */
        cli_color    color;
        const char  *step_marker;       /* --step-marker REGEX */
        const char  *warmup;            /* auto|N; NULL: auto */
        const char  *rules;             /* --rules FILE */
        bool         rules_replace;     /* --rules-replace: FILE replaces the default set */
        const char  *run;               /* --run NAME (logdir) */
        bool         list_runs;
        /* check: each --baseline, --fail-if and --fail-on is a condition
         * of its own, checked in turn; any one tripping fails the gate */
        const char  *baseline[CLI_BASELINE_MAX];        /* --baseline FILE */
        int          baseline_count;
        const char  *max_regression;    /* --max-regression 5% */
        const char  *fail_if[16];       /* --fail-if EXPR */
        int          fail_if_count;
        const char  *fail_on[16];       /* --fail-on CLASS */
        int          fail_on_count;
        const char  *fail_on_severity;  /* analyze --fail-on-severity: info|warning|error */
        const char  *define[16];        /* --set NAME=VALUE threshold overrides */
        int          define_count;
        bool         progress_forced;   /* --progress */
        bool         no_progress;       /* --no-progress */
        uint64_t     max_events;        /* --max-events N; 0: none */
        int          top;               /* --top N rows in tables; 0: default */
        bool         ranks;             /* --ranks: the inputs are ranks of one job */
} cli_args;

/* Parse argv into *args. Returns 0, or 2 after printing a usage error. */
int  cli_parse(cli_args *args, int argc, char **argv);
void cli_free(cli_args *args);
/* Print --help for `cmd` (0: general) to stdout. */
void cli_print_help(cli_cmd cmd);

#endif
