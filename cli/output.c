/* SPDX-License-Identifier: MIT */
/*
 * output.c - diagnostics on stderr, atomic report output, colour and
 * progress decisions (the only code that reads the environment or isatty).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "output.h"

int cli_verbosity;

void cli_errorf(const char *fmt, ...)
{
        va_list ap;

        fputs("tfprof-analyze: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

void cli_warnf(const char *fmt, ...)
{
        va_list ap;

        if (cli_verbosity < 0)
                return;
        fputs("tfprof-analyze: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

int cli_exit_for(int status)
{
        switch (status) {
        case TPA_OK:            return EXIT_OK;
        case TPA_EFORMAT:
        case TPA_ELIMIT:
        case TPA_EIO:           return EXIT_INPUT;
        case TPA_ERULE:         return EXIT_RULES;
        case TPA_EINVAL:        return EXIT_USAGE;
        }
        return EXIT_INTERNAL;
}

int cli_report_error(const tpa_error *err, const char *path)
{
        const char *p = err->path ? err->path : path;

        if (p == NULL)
                cli_errorf("%s", err->msg);
        else if (err->line > 0)
                cli_errorf("%s:%u:%u: %s", p, err->line, err->column, err->msg);
        else if (err->has_offset)
                cli_errorf("%s:%llu: %s", p, (unsigned long long)err->offset, err->msg);
        else
                cli_errorf("%s: %s", p, err->msg);
        return cli_exit_for(err->code);
}

void cli_print_warnings(const tpa_trace *tr, const char *path)
{
        size_t n = tpa_trace_warning_count(tr);

        for (size_t i = 0; i < n; i++) {
                const tpa_warning *w = tpa_trace_warning(tr, i);
                if (w->count > 1)
                        cli_warnf("%s: warning: %llu times: %s (first at %llu)", path,
                                  (unsigned long long)w->count, w->msg,
                                  (unsigned long long)w->first_offset);
                else
                        cli_warnf("%s:%llu: warning: %s", path,
                                  (unsigned long long)w->first_offset, w->msg);
        }
}

int cli_out_begin(cli_out *o)
{
        memset(o, 0, sizeof(*o));
        o->fp = open_memstream(&o->buf, &o->len);
        if (o->fp == NULL) {
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        return 0;
}

void cli_out_discard(cli_out *o)
{
        if (o->fp != NULL)
                fclose(o->fp);
        free(o->buf);
        memset(o, 0, sizeof(*o));
}

static int write_all(FILE *fp, const char *buf, size_t len)
{
        if (len > 0 && fwrite(buf, 1, len, fp) != len)
                return -1;
        if (fflush(fp) != 0 || ferror(fp))
                return -1;
        return 0;
}

int cli_out_commit(cli_out *o, const char *path)
{
        int rc = EXIT_OK;

        if (fflush(o->fp) != 0 || ferror(o->fp)) {
                cli_errorf("out of memory while rendering the report");
                cli_out_discard(o);
                return EXIT_INTERNAL;
        }
        if (path == NULL || strcmp(path, "-") == 0) {
                if (write_all(stdout, o->buf, o->len) < 0) {
                        cli_errorf("error writing to stdout: %s", strerror(errno));
                        rc = EXIT_INTERNAL;
                }
        } else {
                /* Write beside the target, then rename: never half a file. */
                size_t n = strlen(path) + 16;
                char *tmp = malloc(n);
                FILE *fp;

                if (tmp == NULL) {
                        cli_out_discard(o);
                        cli_errorf("out of memory");
                        return EXIT_INTERNAL;
                }
                snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
                fp = fopen(tmp, "wb");
                if (fp == NULL) {
                        cli_errorf("%s: cannot write: %s", path, strerror(errno));
                        rc = EXIT_INTERNAL;
                } else if (write_all(fp, o->buf, o->len) < 0 || fclose(fp) != 0) {
                        if (fp != NULL)
                                fclose(fp);
                        cli_errorf("%s: error writing: %s", path, strerror(errno));
                        remove(tmp);
                        rc = EXIT_INTERNAL;
                } else if (rename(tmp, path) != 0) {
                        cli_errorf("%s: cannot write: %s", path, strerror(errno));
                        remove(tmp);
                        rc = EXIT_INTERNAL;
                }
                free(tmp);
        }
        cli_out_discard(o);
        return rc;
}

bool cli_use_color(int mode)
{
        const char *nc = getenv("NO_COLOR");

        if (mode == COLOR_ALWAYS)
                return true;
        if (mode == COLOR_NEVER)
                return false;
        if (nc != NULL && nc[0] != '\0')
                return false;
        return isatty(STDOUT_FILENO) != 0;
}

/* On a terminal, progress starts only once this much has been parsed, so a
 * small trace never flickers a line; --progress shows it from the start. */
#define PROGRESS_MIN_BYTES (16u << 20)

static bool progress_forced;

bool cli_show_progress(bool forced, bool disabled)
{
        if (disabled || cli_verbosity < 0)
                return false;
        progress_forced = forced;
        return forced || isatty(STDERR_FILENO) != 0;
}

static bool progress_shown;

void cli_progress(void *ctx, uint64_t bytes_in, uint64_t bytes_out)
{
        (void)ctx;
        if (!progress_forced && bytes_out < PROGRESS_MIN_BYTES)
                return;
        fprintf(stderr, "\rtfprof-analyze: read %.1f MB (%.1f MB parsed)",
                (double)bytes_in / 1e6, (double)bytes_out / 1e6);
        progress_shown = true;
}

void cli_progress_done(void)
{
        if (progress_shown)
                fputs("\r\033[K", stderr);
        progress_shown = false;
}
