/* SPDX-License-Identifier: MIT */
/*
 * main.c - tfprof-analyze: parse the command line and run a subcommand.
 * Never calls setlocale(): numbers print the same everywhere.
 */
#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

#include "cmd_logdir.h"
#include "commands.h"
#include "opts.h"
#include "output.h"

/* -o must name none of the files the command reads. */
static int check_outputs(const cli_args *args)
{
        const char *const rules[1] = { args->rules };
        int rc = cli_check_output(args->output, args->inputs, args->input_count);

        if (rc == EXIT_OK)
                rc = cli_check_output(args->output, rules, 1);
        if (rc == EXIT_OK)
                rc = cli_check_output(args->output, args->baseline,
                                      args->baseline_count);
        return rc;
}

int main(int argc, char **argv)
{
        cli_args args;
        int rc;

#ifdef M_MMAP_THRESHOLD
        /* Large blocks always from mmap(), given back when freed. glibc
         * raises this threshold after each large block freed, and the
         * analysis' lists freed at their last use then stayed in the heap
         * at the peak of a large trace (bench/). */
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
        cli_guard_std_fds();
        rc = cli_parse(&args, argc, argv);
        if (rc != 0) {
                cli_free(&args);
                return rc;
        }
        cli_verbosity = args.verbosity;
        if (args.help) {
                cli_print_help(args.cmd_name && strcmp(args.cmd_name, "analyze") != 0
                               ? args.cmd : 0);
                rc = EXIT_OK;
        } else if (args.version) {
                printf("tfprof-analyze %s\n", tpa_version());
                rc = EXIT_OK;
        } else if ((rc = check_outputs(&args)) == EXIT_OK) {
                switch (args.cmd) {
                case CMD_ANALYZE: rc = cli_run_with_logdirs(cmd_analyze, &args); break;
                case CMD_DIFF:    rc = cli_run_with_logdirs(cmd_diff, &args); break;
                case CMD_CHECK:   rc = cli_run_with_logdirs(cmd_check, &args); break;
                case CMD_CONVERT: rc = cmd_convert(&args); break;
                case CMD_MERGE:   rc = cmd_merge(&args); break;
                case CMD_AGGREGATE: rc = cli_run_with_logdirs(cmd_aggregate, &args); break;
                }
        }
        cli_free(&args);
        if (fflush(stdout) != 0 || ferror(stdout)) {
                if (rc != EXIT_INTERNAL)        /* else the command said so already */
                        cli_errorf("error writing to stdout");
                return EXIT_INTERNAL;
        }
        return rc;
}
