/* SPDX-License-Identifier: MIT */
/*
 * cmd_aggregate.c - `tfprof-analyze aggregate REPORT...`: the job view of
 * several ranks (doc/design.md 5.6) from their JSON reports, which each rank
 * wrote where its trace lives (srun, parallel --sshlogin), so traces never
 * travel. Traces are taken too (analysed here, one at a time); the view is
 * the same either way.
 */
#include <stdio.h>

#include "commands.h"
#include "job_load.h"
#include "output.h"
#include "run_load.h"

int cmd_aggregate(const cli_args *args)
{
        tpa_rules *rules = NULL;
        cli_job j = { 0 };
        cli_out out;
        int rc;

        if ((rc = cli_load_rules(&rules, args)) != EXIT_OK)
                return rc;
        if ((rc = cli_load_job(&j, args, rules)) != EXIT_OK)
                goto done;
        if ((rc = cli_out_begin(&out, args->output)) != EXIT_OK)
                goto done;
        if ((rc = cli_render_job(out.fp, args, j.job)) != EXIT_OK) {
                cli_out_discard(&out);
                goto done;
        }
        rc = cli_out_commit(&out);
done:
        cli_job_free(&j);
        tpa_rules_free(rules);
        return rc;
}
