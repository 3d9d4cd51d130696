/* SPDX-License-Identifier: MIT */
/*
 * render.c - the --format dispatch of analyze: one analysed trace in the
 * format asked for (text, json, markdown, html). Several inputs give one
 * report each, back to back (for json: a stream of JSON documents, which
 * jq reads as such), except html, which is one page for one trace; the
 * short aggregate table is text only. html goes to stdout unless -o. A
 * saved JSON report is shown again from its figures (json: as it is).
 */
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "render.h"

bool cli_render_is_text(const cli_args *args)
{
        return args->format == NULL || strcmp(args->format, "text") == 0;
}

/* EXIT_USAGE for a second HTML page: html is one page for one trace. */
static int one_html_page(const cli_args *args)
{
        static int html_pages;          /* one command per process */

        if (args->format != NULL && strcmp(args->format, "html") == 0 &&
            html_pages++ > 0) {
                /* Several RunMetadata files can make one trace: count the
                 * traces rendered, not the inputs. */
                cli_errorf("--format html takes one trace (%d given)", args->input_count);
                fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

int cli_render(FILE *fp, const cli_args *args, const tpa_trace *tr, const tpa_analysis *a,
               const char *path)
{
        tpa_error err = TPA_ERROR_INIT;
        int rc = 0;

        if ((rc = one_html_page(args)) != EXIT_OK)
                return rc;
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

/* The saved report as it is: it is our own JSON already. */
static int copy_file(FILE *fp, const char *path)
{
        char buf[65536];
        size_t n;
        FILE *in = fopen(path, "rb");

        if (in == NULL) {
                cli_errorf("%s: cannot open: %s", path, strerror(errno));
                return EXIT_INPUT;
        }
        while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
                fwrite(buf, 1, n, fp);
        if (ferror(in)) {
                cli_errorf("%s: read error: %s", path, strerror(errno));
                fclose(in);
                return EXIT_INPUT;
        }
        fclose(in);
        return EXIT_OK;
}

int cli_render_saved(FILE *fp, const cli_args *args, const tpa_run *r, const char *path)
{
        int rc;

        if ((rc = one_html_page(args)) != EXIT_OK)
                return rc;
        if (cli_render_is_text(args))
                tpa_report_saved_text(fp, r, path);
        else if (strcmp(args->format, "json") == 0)
                return copy_file(fp, path);
        else if (strcmp(args->format, "markdown") == 0)
                tpa_report_saved_markdown(fp, r, path);
        else if (strcmp(args->format, "html") == 0)
                tpa_report_saved_html(fp, r, path);
        return EXIT_OK;
}
