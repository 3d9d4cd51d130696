/* SPDX-License-Identifier: MIT */
/* commands.h - one entry point per subcommand; each returns an exit code. */
#ifndef TPA_CLI_COMMANDS_H
#define TPA_CLI_COMMANDS_H

#include "opts.h"

int cmd_analyze(const cli_args *args);
int cmd_diff(const cli_args *args);
int cmd_check(const cli_args *args);
int cmd_convert(const cli_args *args);
int cmd_merge(const cli_args *args);
int cmd_aggregate(const cli_args *args);

#endif
