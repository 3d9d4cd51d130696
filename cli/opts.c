/* SPDX-License-Identifier: MIT */
/*
 * opts.c - parse the command line from one table of option specs, which
 * also generates --help.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opts.h"
#include "output.h"

enum opt_id {
        O_HELP = 1, O_VERSION, O_QUIET, O_VERBOSE, O_STRICT, O_FORMAT, O_OUTPUT, O_COLOR,
        O_STEP_MARKER, O_WARMUP, O_RULES, O_RULES_REPLACE, O_RUN, O_LIST_RUNS, O_BASELINE,
        O_MAX_REGRESSION, O_FAIL_IF, O_FAIL_ON, O_FAIL_ON_SEVERITY, O_SET, O_PROGRESS,
        O_NO_PROGRESS, O_MAX_EVENTS, O_TOP, O_RANKS,
};

typedef struct opt_spec {
        int         id;
        char        short_name;         /* 0: none */
        const char *long_name;
        const char *value_name;         /* NULL: a flag */
        unsigned    cmds;               /* which subcommands take it */
        const char *help;
} opt_spec;

static const opt_spec specs[] = {
        { O_FORMAT, 'f', "format", "FMT", CMD_ANALYZE | CMD_DIFF | CMD_CHECK | CMD_AGGREGATE,
          "report format: text (default), json, markdown, html" },
        { O_OUTPUT, 'o', "output", "FILE", CMD_ALL,
          "write the report (or converted trace) to FILE, not stdout (.gz: gzipped)" },
        { O_STEP_MARKER, 0, "step-marker", "REGEX", CMD_ANALYZE | CMD_DIFF | CMD_CHECK |
          CMD_AGGREGATE,
          "events whose name matches REGEX (POSIX ERE) mark steps" },
        { O_WARMUP, 0, "warmup", "auto|N", CMD_ANALYZE | CMD_DIFF | CMD_CHECK |
          CMD_AGGREGATE,
          "exclude warm-up steps: by evidence (auto, default) or the first N" },
        { O_RULES, 0, "rules", "FILE", CMD_ANALYZE | CMD_DIFF | CMD_CHECK |
          CMD_AGGREGATE,
          "add the rules in FILE to the default set (later rules win)" },
        { O_RULES_REPLACE, 0, "rules-replace", NULL, CMD_ANALYZE | CMD_DIFF | CMD_CHECK |
          CMD_AGGREGATE,
          "with --rules: FILE replaces the default rule set" },
        { O_SET, 0, "set", "NAME=VALUE", CMD_ANALYZE | CMD_DIFF | CMD_CHECK |
          CMD_AGGREGATE,
          "override a rule threshold, e.g. --set gap.min=20us" },
        { O_RUN, 0, "run", "NAME", CMD_ALL,
          "in a TensorBoard logdir, analyze run NAME (default: the newest)" },
        { O_LIST_RUNS, 0, "list-runs", NULL, CMD_ANALYZE,
          "list the profile runs in a logdir and exit" },
        { O_BASELINE, 0, "baseline", "FILE", CMD_CHECK,
          "trace or JSON report to compare against (repeatable)" },
        { O_MAX_REGRESSION, 0, "max-regression", "PCT", CMD_CHECK,
          "fail when median step time grows by more than PCT (e.g. 5%)" },
        { O_FAIL_IF, 0, "fail-if", "EXPR", CMD_CHECK,
          "fail when the rule expression EXPR is true for the run, or for the job of "
          "several ranks (repeatable)" },
        { O_RANKS, 0, "ranks", NULL, CMD_ANALYZE | CMD_CHECK | CMD_AGGREGATE,
          "the inputs (files, or the files of a folder) are ranks of one job" },
        { O_FAIL_ON, 0, "fail-on", "CLASS", CMD_CHECK,
          "fail when the run is classified CLASS, e.g. input-bound (repeatable)" },
        { O_FAIL_ON_SEVERITY, 0, "fail-on-severity", "SEVERITY", CMD_ANALYZE,
          "exit 1 when a finding reaches SEVERITY (info, warning, error)" },
        { O_STRICT, 0, "strict", NULL, CMD_ALL,
          "treat a truncated trace as an error, not a warning" },
        { O_MAX_EVENTS, 0, "max-events", "N", CMD_ALL,
          "refuse traces with more than N events" },
        { O_TOP, 0, "top", "N", CMD_ANALYZE | CMD_DIFF,
          "rows in the top-N tables (default 5)" },
        { O_COLOR, 0, "color", "WHEN", CMD_ALL,
          "colour text output: auto (default), always, never" },
        { O_PROGRESS, 0, "progress", NULL, CMD_ALL,
          "show progress on stderr even when it is not a terminal" },
        { O_NO_PROGRESS, 0, "no-progress", NULL, CMD_ALL, "never show progress" },
        { O_QUIET, 'q', "quiet", NULL, CMD_ALL, "hide warnings" },
        { O_VERBOSE, 'v', "verbose", NULL, CMD_ALL, "more detail on stderr (repeatable)" },
        { O_HELP, 'h', "help", NULL, CMD_ALL, "show this help and exit" },
        { O_VERSION, 'V', "version", NULL, CMD_ALL, "show the version and exit" },
};
#define SPEC_COUNT (sizeof(specs) / sizeof(specs[0]))

static const struct {
        const char *name;
        cli_cmd     cmd;
        const char *usage;
        const char *what;
} commands[] = {
        { "analyze", CMD_ANALYZE, "[analyze] [OPTIONS] TRACE...",
          "report what limits training throughput, step by step" },
        { "diff", CMD_DIFF, "diff [OPTIONS] BASE NEW",
          "compare two runs (traces or JSON reports)" },
        { "check", CMD_CHECK, "check [OPTIONS] NEW --baseline BASE",
          "CI gate: exit 1 when step time regresses or a condition holds" },
        { "convert", CMD_CONVERT, "convert IN -o OUT.json[.gz]",
          "RunMetadata, tfevents or XSpace to Chrome trace JSON" },
        { "merge", CMD_MERGE, "merge A B... -o OUT.json[.gz]",
          "several traces into one Chrome trace, one process group per input" },
        { "aggregate", CMD_AGGREGATE, "aggregate [OPTIONS] REPORT...",
          "the job view of several ranks from their JSON reports (or traces)" },
};
#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

void cli_print_help(cli_cmd cmd)
{
        char left[64];

        printf("Usage:\n");
        for (size_t i = 0; i < COMMAND_COUNT; i++)
                if (cmd == 0 || commands[i].cmd == cmd)
                        printf("  tfprof-analyze %s\n", commands[i].usage);
        if (cmd == 0) {
                printf("\nCommands:\n");
                for (size_t i = 0; i < COMMAND_COUNT; i++)
                        printf("  %-9s %s\n", commands[i].name, commands[i].what);
        }
        printf("\nA TRACE is a Chrome trace JSON (.json or .json.gz: TF2 profiler, TF1 timeline,\n"
               "PyTorch/Kineto), a RunMetadata or StepStats protobuf, a tfevents file, an\n"
               "XSpace .xplane.pb, or a TensorBoard logdir; '-' reads stdin.\n");
        printf("\nOptions:\n");
        for (size_t i = 0; i < SPEC_COUNT; i++) {
                const opt_spec *s = &specs[i];
                if (cmd != 0 && !(s->cmds & cmd))
                        continue;
                if (s->short_name)
                        snprintf(left, sizeof(left), "-%c, --%s%s%s", s->short_name,
                                 s->long_name, s->value_name ? " " : "",
                                 s->value_name ? s->value_name : "");
                else
                        snprintf(left, sizeof(left), "    --%s%s%s", s->long_name,
                                 s->value_name ? " " : "", s->value_name ? s->value_name : "");
                if (strlen(left) > 24)
                        printf("  %s\n  %-24s  %s\n", left, "", s->help);
                else
                        printf("  %-24s  %s\n", left, s->help);
        }
        printf("\nExit status: 0 ok; 1 a gate tripped (check, --fail-on-severity); 2 usage;\n"
               "3 bad input; 4 bad rules; 5 output or internal error.\n"
               "See tfprof-analyze(1) for the report, the rule language and the metrics.\n");
}

TPA_PRINTF(1, 0)
static int usage_error(const char *fmt, const char *arg)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        cli_errorf(fmt, arg);
#pragma GCC diagnostic pop
        fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
        return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
        char *end;
        unsigned long long v;

        errno = 0;
        if (*s < '0' || *s > '9')
                return -1;
        v = strtoull(s, &end, 10);
        if (errno != 0 || *end != '\0')
                return -1;
        *out = v;
        return 0;
}

#define LIST_CAP(list) ((int)(sizeof(list) / sizeof((list)[0])))

/* Options that may be given several times: each value is kept. */
static int append(const char **list, int *count, int cap, const opt_spec *s, const char *value)
{
        char what[64];

        if (*count == cap) {
                snprintf(what, sizeof(what), "too many --%s options (at most %d)",
                         s->long_name, cap);
                return usage_error("%s", what);
        }
        list[(*count)++] = value;
        return 0;
}

static int apply(cli_args *a, const opt_spec *s, const char *value)
{
        uint64_t n;

        switch (s->id) {
        case O_HELP:            a->help = true; break;
        case O_VERSION:         a->version = true; break;
        case O_QUIET:           a->verbosity = -1; break;
        case O_VERBOSE:         a->verbosity = a->verbosity < 0 ? 1 : a->verbosity + 1; break;
        case O_STRICT:          a->strict = true; break;
        case O_FORMAT:
                if (strcmp(value, "text") && strcmp(value, "json") &&
                    strcmp(value, "markdown") && strcmp(value, "html"))
                        return usage_error("unknown format '%s' (text, json, markdown, html)",
                                           value);
                a->format = value;
                break;
        case O_OUTPUT:          a->output = value; break;
        case O_COLOR:
                if (!strcmp(value, "auto"))
                        a->color = COLOR_AUTO;
                else if (!strcmp(value, "always"))
                        a->color = COLOR_ALWAYS;
                else if (!strcmp(value, "never"))
                        a->color = COLOR_NEVER;
                else
                        return usage_error("--color takes auto, always or never, not '%s'",
                                           value);
                break;
        case O_STEP_MARKER:     a->step_marker = value; break;
        case O_WARMUP:
                if (strcmp(value, "auto") != 0 && parse_u64(value, &n) < 0)
                        return usage_error("--warmup takes 'auto' or a number, not '%s'", value);
                a->warmup = value;
                break;
        case O_RULES:           a->rules = value; break;
        case O_RULES_REPLACE:   a->rules_replace = true; break;
        case O_RUN:             a->run = value; break;
        case O_LIST_RUNS:       a->list_runs = true; break;
        case O_BASELINE:
                return append(a->baseline, &a->baseline_count, LIST_CAP(a->baseline), s, value);
        case O_MAX_REGRESSION:  a->max_regression = value; break;
        case O_FAIL_IF:
                return append(a->fail_if, &a->fail_if_count, LIST_CAP(a->fail_if), s, value);
        case O_FAIL_ON:
                return append(a->fail_on, &a->fail_on_count, LIST_CAP(a->fail_on), s, value);
        case O_FAIL_ON_SEVERITY:
                /* Checked here, before any work: a typo found after the
                 * report was written would cost the whole run. */
                if (strcmp(value, "info") && strcmp(value, "warning") && strcmp(value, "error"))
                        return usage_error("--fail-on-severity takes info, warning or error, "
                                           "not '%s'", value);
                a->fail_on_severity = value;
                break;
        case O_SET:
                if (strchr(value, '=') == NULL)
                        return usage_error("--set takes NAME=VALUE, not '%s'", value);
                return append(a->define, &a->define_count, LIST_CAP(a->define), s, value);
        case O_PROGRESS:        a->progress_forced = true; break;
        case O_NO_PROGRESS:     a->no_progress = true; break;
        case O_MAX_EVENTS:
                if (parse_u64(value, &a->max_events) < 0)
                        return usage_error("--max-events takes a number, not '%s'", value);
                break;
        case O_RANKS:           a->ranks = true; break;
        case O_TOP:
                if (parse_u64(value, &n) < 0 || n == 0 || n > 1000)
                        return usage_error("--top takes a number from 1 to 1000, not '%s'",
                                           value);
                a->top = (int)n;
                break;
        }
        return 0;
}

int cli_parse(cli_args *a, int argc, char **argv)
{
        bool only_inputs = false;
        int first = 1;

        memset(a, 0, sizeof(*a));
        a->cmd = CMD_ANALYZE;
        a->cmd_name = "analyze";
        a->inputs = calloc((size_t)argc + 1, sizeof(*a->inputs));
        if (a->inputs == NULL) {
                cli_errorf("out of memory%s", "");
                return 5;
        }
        if (argc > 1) {
                for (size_t i = 0; i < COMMAND_COUNT; i++) {
                        if (strcmp(argv[1], commands[i].name) == 0) {
                                a->cmd = commands[i].cmd;
                                a->cmd_name = commands[i].name;
                                first = 2;
                        }
                }
        }
        for (int i = first; i < argc; i++) {
                const char *arg = argv[i], *value = NULL, *eq;
                const opt_spec *s = NULL;
                size_t name_len;

                if (only_inputs || arg[0] != '-' || arg[1] == '\0') {
                        a->inputs[a->input_count++] = arg;
                        continue;
                }
                if (strcmp(arg, "--") == 0) {
                        only_inputs = true;
                        continue;
                }
                if (arg[1] == '-') {
                        eq = strchr(arg + 2, '=');
                        name_len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
                        for (size_t k = 0; k < SPEC_COUNT; k++)
                                if (strlen(specs[k].long_name) == name_len &&
                                    memcmp(specs[k].long_name, arg + 2, name_len) == 0)
                                        s = &specs[k];
                        if (s == NULL)
                                return usage_error("unknown option '%s'", arg);
                        if (eq != NULL && s->value_name == NULL)
                                return usage_error("option '%s' takes no value", arg);
                        value = eq ? eq + 1 : NULL;
                } else {
                        for (size_t k = 0; k < SPEC_COUNT; k++)
                                if (specs[k].short_name == arg[1])
                                        s = &specs[k];
                        if (s == NULL || (arg[2] != '\0' && s->value_name == NULL &&
                                          !(arg[1] == 'v' && strspn(arg + 1, "v") ==
                                                                     strlen(arg + 1))))
                                return usage_error("unknown option '%s'", arg);
                        if (arg[1] == 'v' && arg[2] == 'v') {
                                a->verbosity = (int)strlen(arg + 1);
                                continue;
                        }
                        value = arg[2] != '\0' ? arg + 2 : NULL;
                }
                if (!(s->cmds & a->cmd))
                        return usage_error(a->cmd == CMD_ANALYZE
                                           ? "option '%s' belongs to another command"
                                           : "option '%s' does not apply to this command",
                                           arg);
                if (s->value_name != NULL && value == NULL) {
                        if (i + 1 >= argc)
                                return usage_error("option '%s' needs a value", arg);
                        value = argv[++i];
                }
                if (apply(a, s, value) != 0)
                        return 2;
        }
        if (a->rules_replace && a->rules == NULL)
                return usage_error("--rules-replace needs --rules FILE, the set that replaces "
                                   "the default%s", "");
        /* `tfprof-analyze -q diff A B`: a command after an option is an
         * input to analyze, which "cannot open" it; a file of that name
         * may be meant, so only one that does not exist is refused */
        if (first == 1 && a->input_count > 0) {
                struct stat st;
                for (size_t i = 0; i < COMMAND_COUNT; i++)
                        if (strcmp(a->inputs[0], commands[i].name) == 0 &&
                            stat(a->inputs[0], &st) != 0)
                                return usage_error("'%s' is a command: it comes first, before "
                                                   "the options", a->inputs[0]);
        }
        return 0;
}

void cli_free(cli_args *a)
{
        free(a->inputs);
        a->inputs = NULL;
}
