/* SPDX-License-Identifier: MIT */
/*
 * cmd_merge.c - `merge A B ... -o OUT.json[.gz]`: several traces (any format
 * we read; a logdir stands for the hosts of its newest run) into one Chrome
 * trace, one process group per input labelled by its file name (the
 * process labels: "/device:GPU:0" shows as "/device:GPU:0 (a.json)"), with
 * pids, correlation ids and group ids that never collide (the writer moves
 * each input's past the earlier ones'), to compare runs side by side in
 * chrome://tracing or Perfetto, or to analyse several hosts' traces as one.
 */
#include <stdio.h>
#include <string.h>

#include <tpa/chrome_writer.h>

#include "cmd_logdir.h"
#include "commands.h"
#include "output.h"
#include "run_load.h"

static const char *base_name(const char *path)
{
        const char *slash = strrchr(path, '/');
        return slash != NULL ? slash + 1 : path;
}

/* Input i's label in the merged file: its file name, or its path where two
 * inputs share a file name (worker0/host.trace.json.gz, worker1/...), and
 * "#2", "#3" after the same path given again. Labels must differ: they
 * keep each input's devices apart when the merged file is analysed. */
static const char *merge_label(const cli_args *args, int i, char *buf, size_t size)
{
        const char *path = args->inputs[i], *base = base_name(path);
        bool shared = false;
        int again = 0;

        for (int j = 0; j < args->input_count; j++) {
                if (j == i || strcmp(base_name(args->inputs[j]), base) != 0)
                        continue;
                shared = true;
                if (j < i && strcmp(args->inputs[j], path) == 0)
                        again++;
        }
        if (!shared)
                return base;
        if (again == 0)
                return path;
        snprintf(buf, size, "%s #%d", path, again + 1);
        return buf;
}

static int merge(const cli_args *args)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w = NULL;
        cli_out out;
        int rc;

        if (args->input_count < 1) {
                cli_errorf("merge: no traces given");
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        ro.strict = args->strict;
        ro.max_events = args->max_events;
        /* The output is a file beside -o until every input is in it:
         * `merge a.json b.json -o a.json` reads a.json whole. */
        if ((rc = cli_out_begin_chrome(&out, &w, args->output)) != EXIT_OK)
                return rc;
        /* One trace at a time: each input is read, written, freed. */
        for (int i = 0; i < args->input_count && rc == EXIT_OK; i++) {
                const char *path = args->inputs[i], *label;
                char buf[4200];
                tpa_trace *tr = NULL;

                /* a saved report holds no events: read as a trace, it was a
                 * rank merged in as nothing, with exit 0 */
                if (strcmp(path, "-") != 0 && cli_is_report(path)) {
                        cli_errorf("%s: a saved report, not a trace: merge reads traces "
                                   "(aggregate reads the reports of several ranks)", path);
                        rc = EXIT_INPUT;
                        break;
                }
                if (tpa_trace_new(&tr, &err) < 0) {
                        rc = cli_report_error(&err, NULL);
                        break;
                }
                rc = tpa_read_path(tr, path, &ro, &err) < 0 ? cli_report_error(&err, path)
                                                             : EXIT_OK;
                if (rc == EXIT_OK)
                        cli_print_warnings(tr, path);
                label = merge_label(args, i, buf, sizeof(buf));
                if (rc == EXIT_OK && tpa_chrome_writer_add(w, tr, label, &err) < 0)
                        rc = cli_out_error(&err);
                tpa_trace_free(tr);
        }
        if (rc != EXIT_OK) {
                cli_out_discard_chrome(&out, w);
                return rc;
        }
        return cli_out_commit_chrome(&out, w);
}

int cmd_merge(const cli_args *args)
{
        cli_expanded e;
        bool listed;
        int rc = cli_logdir_expand(args, &e, &listed);

        if (rc == EXIT_OK)
                rc = merge(&e.args);
        cli_logdir_free(&e);
        return rc;
}
