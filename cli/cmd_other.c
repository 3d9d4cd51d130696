/* SPDX-License-Identifier: MIT */
/*
 * cmd_other.c - subcommands not built yet. Each says so and exits 5; they
 * move to a file of their own when they are built.
 */
#include "commands.h"
#include "output.h"

static int not_built(const cli_args *args)
{
        cli_errorf("'%s' is not available in this build", args->cmd_name);
        return EXIT_INTERNAL;
}

int cmd_diff(const cli_args *args) { return not_built(args); }
int cmd_check(const cli_args *args) { return not_built(args); }
