/* SPDX-License-Identifier: MIT */
/*
 * render.c - the --format dispatch of analyze: one analysed trace in the
 * format asked for (text, json, markdown, html). Several inputs give one
 * report each, back to back (for json: a stream of JSON documents, which
 * jq reads as such), except html, which is one page for one trace; the
 * short aggregate table is text only. html goes to stdout unless -o.
 */
#include <string.h>

#include "commands.h"
#include "output.h"
#include "render.h"

bool cli_render_is_text(const cli_args *args)
{
        return args->format == NULL || strcmp(args->format, "text") == 0;
}

int cli_render(FILE *fp, const cli_args *args, const tpa_trace *tr, const tpa_analysis *a,
               const char *path)
{
        tpa_error err = TPA_ERROR_INIT;
        int rc = 0;

        static int html_pages;          /* one command per process */

        if (args->format != NULL && strcmp(args->format, "html") == 0 &&
            html_pages++ > 0) {
                /* Several RunMetadata files can make one trace: count the
                 * traces rendered, not the inputs. */
                cli_errorf("--format html takes one trace (%d given)", args->input_count);
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        if (cli_render_is_text(args))
                tpa_report_text_color(fp, tr, a, path, cli_use_color((int)args->color));
        else if (strcmp(args->format, "json") == 0)
                rc = tpa_report_json(fp, tr, a, path, &err);
        else if (strcmp(args->format, "markdown") == 0)
                tpa_report_markdown(fp, tr, a, path);
        else if (strcmp(args->format, "html") == 0)
                rc = tpa_report_html(fp, tr, a, path, &err);
        if (rc < 0)
                return cli_report_error(&err, NULL);
        return EXIT_OK;
}
