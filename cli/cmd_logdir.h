/* SPDX-License-Identifier: MIT */
/* cmd_logdir.h - TensorBoard logdirs on the command line: a directory among
 * the inputs stands for the host traces of one of its profile runs. */
#ifndef TPA_CLI_CMD_LOGDIR_H
#define TPA_CLI_CMD_LOGDIR_H

#include "opts.h"

/* `args` with each directory input replaced by the host files of its
 * newest run (or of --run NAME); it owns the new input list and paths. */
typedef struct cli_expanded {
        cli_args  args;
        char    **paths;
        size_t    count;
        bool     *listed;       /* args.listed */
} cli_expanded;

/* Fill *out from `args`. With --list-runs, print the runs instead and set
 * *listed. Free *out with cli_logdir_free() whatever this returns. Returns
 * an exit code. */
int  cli_logdir_expand(const cli_args *args, cli_expanded *out, bool *listed);
void cli_logdir_free(cli_expanded *e);

/* Run `cmd` (analyze, diff, check) with logdirs expanded: the entry point
 * main() calls. */
int  cli_run_with_logdirs(int (*cmd)(const cli_args *), const cli_args *args);

#endif
