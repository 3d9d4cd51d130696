/* SPDX-License-Identifier: MIT */
/*
 * output.c - diagnostics on stderr, atomic report output, colour and
 * progress decisions (the only code that reads the environment or isatty).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__linux__)
#include <sys/sendfile.h>
#endif

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
        case TPA_ENOTTRACE:
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

void cli_print_step_note(const tpa_analysis *a, const char *path)
{
        if (a->step_note[0] != '\0')
                cli_warnf("%s: warning: %s", path, a->step_note);
}

/* The staging file's stdio buffer, bytes. */
#define STAGE_BUF (256u * 1024u)

/* An unnamed file in $TMPDIR (else /tmp) that vanishes when closed, or NULL. */
static FILE *anonymous_file(void)
{
        const char *dirs[2] = { getenv("TMPDIR"), "/tmp" };

        for (int i = 0; i < 2; i++) {
                char name[4096];
                FILE *fp;
                int fd;

                if (dirs[i] == NULL || dirs[i][0] == '\0' ||
                    snprintf(name, sizeof(name), "%s/tfprof-analyze-XXXXXX", dirs[i]) >=
                    (int)sizeof(name))
                        continue;
                fd = mkstemp(name);
                if (fd < 0)
                        continue;
                unlink(name);
                fp = fdopen(fd, "w+b");
                if (fp != NULL)
                        return fp;
                close(fd);
        }
        return NULL;
}

/* True when `path` exists and is not a regular file. */
static bool is_special(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* The staging file beside the target while one exists: a signal that
 * ends the process (Ctrl-C, a CI job's timeout, a closed terminal)
 * removes it, so that a kill leaves neither half an output nor a
 * "PATH.XXXXXX" behind (the target itself is never touched before the
 * rename). One output at a time. */
static char *volatile pending_tmp;
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void remove_pending(int sig)
{
        char *t = pending_tmp;

        if (t != NULL)
                unlink(t);
        signal(sig, SIG_DFL);
        raise(sig);
}

static void watch_pending(char *tmp)
{
        pending_tmp = tmp;
        for (size_t i = 0; tmp != NULL && i < sizeof(fatal_signals) / sizeof(*fatal_signals);
             i++) {
                struct sigaction sa, old;

                /* A signal ignored (nohup, a shell's background job) stays so. */
                if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
                        continue;
                memset(&sa, 0, sizeof(sa));
                sa.sa_handler = remove_pending;
                sigemptyset(&sa.sa_mask);
                sigaction(fatal_signals[i], &sa, NULL);
        }
}

/* A new file "PATH.XXXXXX" beside `path`, with the mode `path` has (or a
 * new file would get): o->tmp names it. An exit code, the error said. */
static int open_beside(cli_out *o, const char *path)
{
        size_t n = strlen(path) + 8;
        struct stat st;
        mode_t mode;
        int fd;

        /* A file its owner made read-only (a baseline kept for the CI
         * gate) is refused as `>` would refuse it: the rename beside it
         * needs only the folder's permission and would replace it. */
        if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
                cli_errorf("%s: cannot write: %s", path, strerror(errno));
                return EXIT_INTERNAL;
        }
        o->tmp = malloc(n);
        if (o->tmp == NULL) {
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
        }
        snprintf(o->tmp, n, "%s.XXXXXX", path);
        fd = mkstemp(o->tmp);
        if (fd < 0) {
                cli_errorf("%s: cannot write: %s", path, strerror(errno));
                free(o->tmp);
                o->tmp = NULL;
                return EXIT_INTERNAL;
        }
        watch_pending(o->tmp);
        if (stat(path, &st) == 0) {
                mode = st.st_mode & 0777;
        } else {
                mode = umask(0);
                umask(mode);
                mode = 0666 & ~mode;
        }
        o->fp = fchmod(fd, mode) == 0 ? fdopen(fd, "w+b") : NULL;    /* read back to gzip */
        if (o->fp == NULL) {
                cli_errorf("%s: cannot write: %s", path, strerror(errno));
                close(fd);
                unlink(o->tmp);
                pending_tmp = NULL;
                free(o->tmp);
                o->tmp = NULL;
                return EXIT_INTERNAL;
        }
        return EXIT_OK;
}

int cli_out_begin(cli_out *o, const char *path)
{
        int rc;

        memset(o, 0, sizeof(*o));
        if (path != NULL && strcmp(path, "-") != 0) {
                struct stat st;
                bool in_place;
                size_t n = strlen(path);

                o->path = o->target = path;
                o->gzip = n > 3 && strcmp(path + n - 3, ".gz") == 0;
                /* A symbolic link is followed to the file it names, which
                 * is the one replaced: a rename over the link would put a
                 * file in its place (-o /dev/stdout with stdout a file,
                 * run as root, replaced /dev/stdout). One that names no
                 * file (dangling, or a pipe's /proc/self/fd/N) is written
                 * through, in place. */
                if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
                    (o->real = realpath(path, NULL)) != NULL)
                        o->target = o->real;
                in_place = o->target == path && lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
                /* A file is written beside its target and renamed over it:
                 * never half a file, and the old one stays until then. -o
                 * /dev/null, a fifo or a terminal is written in place, from
                 * the staging file (run as root, a rename would replace the
                 * device with a file). */
                if (!in_place && !is_special(o->target) &&
                    (rc = open_beside(o, o->target)) != EXIT_OK) {
                        free(o->real);
                        o->real = NULL;
                        return rc;
                }
        }
        /* A report can be as large as a tenth of the trace (the JSON one of a
         * 1 GB trace is 24 MB): staged on disk, it costs no memory. */
        if (o->fp == NULL)
                o->fp = anonymous_file();
        /* A large report in few writes: with stdio's 4 KiB buffer the 24 MB
         * one took ~3000. Without the memory, the default buffer does. */
        if (o->fp != NULL && (o->vbuf = malloc(STAGE_BUF)) != NULL &&
            setvbuf(o->fp, o->vbuf, _IOFBF, STAGE_BUF) != 0) {
                free(o->vbuf);
                o->vbuf = NULL;
        }
        if (o->fp == NULL) {
                o->fp = open_memstream(&o->buf, &o->len);
                o->in_memory = true;
        }
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
        if (o->tmp != NULL)
                unlink(o->tmp);
        if (o->tmp != NULL && pending_tmp == o->tmp)
                pending_tmp = NULL;
        free(o->tmp);
        free(o->real);
        free(o->buf);
        free(o->vbuf);          /* after fclose(): it was fp's buffer */
        memset(o, 0, sizeof(*o));
}

/* Copy the staged report to `fp` and flush it: 0, -1 on a write error, -2
 * when the staging file cannot be read back (errno says why). */
static int copy_out(cli_out *o, FILE *fp)
{
        char chunk[65536];
        size_t n;

        if (o->in_memory) {
                if (o->len > 0 && fwrite(o->buf, 1, o->len, fp) != o->len)
                        return -1;
        } else {
#if defined(__linux__)
                /* In the kernel, without a copy through here (bench/: the
                 * 24 MB JSON report of a 1 GB trace), when it can. */
                off_t at = 0, end = ftello(o->fp);
                ssize_t k = 0;

                if (end > 0 && fflush(fp) == 0) {
                        while (at < end &&
                               (k = sendfile(fileno(fp), fileno(o->fp), &at,
                                             (size_t)(end - at))) > 0)
                                ;
                        if (at == end)
                                return 0;
                        if (at > 0 || (k < 0 && errno != EINVAL && errno != ENOSYS))
                                return -1;      /* written in part: no going back */
                }
#endif
                rewind(o->fp);
                while ((n = fread(chunk, 1, sizeof(chunk), o->fp)) > 0)
                        if (fwrite(chunk, 1, n, fp) != n)
                                return -1;
                if (ferror(o->fp))
                        return -2;
        }
        if (fflush(fp) != 0 || ferror(fp))
                return -1;
        return 0;
}

/* fclose(fp) after copy_out() returned `w`: the first error wins, with its
 * errno. */
static int close_after(int w, FILE *fp)
{
        int e = errno;

        if (fclose(fp) != 0 && w == 0)
                return -1;
        errno = e;
        return w;
}

/* Copy the staged report into the device or fifo at o->path; an exit code,
 * the error said. */
static int write_special(cli_out *o)
{
        FILE *fp = fopen(o->target, "wb");
        int w;

        if (fp == NULL) {
                cli_errorf("%s: cannot write: %s", o->path, strerror(errno));
                return EXIT_INTERNAL;
        }
        w = close_after(copy_out(o, fp), fp);
        if (w == -2)
                cli_errorf("cannot read back the report's temporary file: %s", strerror(errno));
        else if (w < 0)
                cli_errorf("%s: error writing: %s", o->path, strerror(errno));
        return w < 0 ? EXIT_INTERNAL : EXIT_OK;
}

/* Close the file beside the target and rename it over the target. */
static int rename_into_place(cli_out *o)
{
        FILE *fp = o->fp;

        o->fp = NULL;
        if (fclose(fp) != 0) {
                cli_errorf("%s: error writing: %s", o->path, strerror(errno));
                return EXIT_INTERNAL;
        }
        if (rename(o->tmp, o->target) != 0) {
                cli_errorf("%s: cannot write: %s", o->path, strerror(errno));
                return EXIT_INTERNAL;
        }
        pending_tmp = NULL;
        free(o->tmp);
        o->tmp = NULL;
        return EXIT_OK;
}

/* The staged output, deflated into a gzip member in place of itself: read
 * in chunks, the compressed whole (a fifth of a JSON report, about) kept
 * in memory until the stage is emptied and it is written back. 0, or -1
 * with errno (ENOMEM where zlib failed). */
static int gzip_staged(cli_out *o)
{
        z_stream z = { 0 };
        unsigned char chunk[65536], *out = NULL;
        size_t size, cap;
        off_t end;
        int zr = Z_OK, r = -1;

        end = o->in_memory ? (off_t)o->len : ftello(o->fp);
        if (end < 0 || deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                                    Z_DEFAULT_STRATEGY) != Z_OK) {
                errno = end < 0 ? errno : ENOMEM;
                return -1;
        }
        cap = deflateBound(&z, (uLong)end);
        if ((out = malloc(cap)) == NULL)
                goto done;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        if (o->in_memory) {
                z.next_in = (unsigned char *)o->buf;
                z.avail_in = (uInt)o->len;
                zr = deflate(&z, Z_FINISH);
        } else {
                rewind(o->fp);
                do {
                        size_t n = fread(chunk, 1, sizeof(chunk), o->fp);
                        z.next_in = chunk;
                        z.avail_in = (uInt)n;
                        zr = deflate(&z, n < sizeof(chunk) ? Z_FINISH : Z_NO_FLUSH);
                } while (zr == Z_OK && !ferror(o->fp) && !feof(o->fp));
                if (ferror(o->fp))
                        goto done;
        }
        if (zr != Z_STREAM_END) {
                errno = ENOMEM;
                goto done;
        }
        size = cap - z.avail_out;
        if (o->in_memory) {
                /* a new stage: a memstream cannot be cut short */
                fclose(o->fp);
                free(o->buf);
                o->buf = NULL;
                o->len = 0;
                if ((o->fp = open_memstream(&o->buf, &o->len)) == NULL)
                        goto done;
        } else if (ftruncate(fileno(o->fp), 0) != 0) {
                goto done;
        }
        rewind(o->fp);
        if (fwrite(out, 1, size, o->fp) == size && fflush(o->fp) == 0)
                r = 0;
done:
        deflateEnd(&z);
        free(out);
        return r;
}

int cli_out_commit(cli_out *o)
{
        int rc = EXIT_OK, w;

        if (fflush(o->fp) != 0 || ferror(o->fp)) {
                if (o->in_memory)
                        cli_errorf("out of memory while rendering the report");
                else if (o->tmp != NULL)
                        cli_errorf("%s: error writing: %s", o->path, strerror(errno));
                else
                        cli_errorf("cannot write the report to a temporary file: %s",
                                   strerror(errno));
                cli_out_discard(o);
                return EXIT_INTERNAL;
        }
        if (o->gzip && gzip_staged(o) != 0) {
                cli_errorf("%s: cannot gzip the output: %s", o->path, strerror(errno));
                cli_out_discard(o);
                return EXIT_INTERNAL;
        }
        if (o->tmp != NULL) {
                rc = rename_into_place(o);
        } else if (o->path != NULL) {
                rc = write_special(o);
        } else {
                w = copy_out(o, stdout);
                if (w == -1)
                        cli_errorf("error writing to stdout: %s", strerror(errno));
                if (w == -2)
                        cli_errorf("cannot read back the report's temporary file: %s",
                                   strerror(errno));
                if (w < 0)
                        rc = EXIT_INTERNAL;
        }
        cli_out_discard(o);
        return rc;
}

int cli_out_begin_chrome(cli_out *o, tpa_chrome_writer **w, const char *path)
{
        size_t n = path != NULL ? strlen(path) : 0;
        tpa_error err = TPA_ERROR_INIT;
        int rc = cli_out_begin(o, path);

        if (rc != EXIT_OK)
                return rc;
        o->gzip = false;        /* the writer deflates as it goes */
        if (tpa_chrome_writer_open_stream(w, o->fp, n > 3 && strcmp(path + n - 3, ".gz") == 0,
                                          o->path, &err) < 0) {
                cli_out_discard(o);
                return cli_out_error(&err);
        }
        return EXIT_OK;
}

int cli_out_commit_chrome(cli_out *o, tpa_chrome_writer *w)
{
        tpa_error err = TPA_ERROR_INIT;

        if (tpa_chrome_writer_close(w, &err) < 0) {
                cli_out_discard(o);
                return cli_out_error(&err);
        }
        return cli_out_commit(o);
}

void cli_out_discard_chrome(cli_out *o, tpa_chrome_writer *w)
{
        tpa_chrome_writer_abort(w);
        cli_out_discard(o);
}

int cli_out_error(const tpa_error *err)
{
        cli_errorf("%s", err->msg);
        return err->code == TPA_ENOMEM || err->code == TPA_EIO ? EXIT_INTERNAL
                                                               : cli_exit_for(err->code);
}

/* True when `out` is `in`: the same file where both exist (a link or
 * another spelling of the path is caught), else the same path. */
static bool same_file(const char *out, const char *in)
{
        struct stat so, si;

        if (strcmp(in, "-") == 0)
                return false;
        if (stat(out, &so) == 0 && stat(in, &si) == 0)
                return so.st_dev == si.st_dev && so.st_ino == si.st_ino;
        return strcmp(out, in) == 0;
}

int cli_check_output(const char *output, const char *const *inputs, int n)
{
        if (output == NULL || strcmp(output, "-") == 0 || is_special(output))
                return EXIT_OK;
        for (int i = 0; i < n; i++)
                if (inputs[i] != NULL && same_file(output, inputs[i])) {
                        cli_errorf("-o '%s' is the input '%s': refusing to write over it",
                                   output, inputs[i]);
                        fprintf(stderr, "Try 'tfprof-analyze --help' for more information.\n");
                        return EXIT_USAGE;
                }
        return EXIT_OK;
}

void cli_guard_std_fds(void)
{
        for (int fd = 0; fd <= 2; fd++) {
                int nfd;

                if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
                        continue;
                /* Read-only, so that a write to it fails as it would have. */
                nfd = open("/dev/null", O_RDONLY);
                if (nfd >= 0 && nfd != fd) {
                        dup2(nfd, fd);
                        close(nfd);
                }
        }
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
