/* SPDX-License-Identifier: MIT */
/*
 * logdir.c - find the profile runs of a TensorBoard logdir: every folder
 * plugins/profile/<run>/ below it, and in each run one trace per host
 * (<host>.xplane.pb preferred to <host>.trace.json.gz, see tpa/logdir.h);
 * and every folder of PyTorch's tensorboard_trace_handler files.
 * Symbolic links are followed, but each directory is visited once (by
 * device and inode) and never outside the folder the walk starts in, so a
 * link to "." or ".." costs one look and finds nothing twice.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input/readers.h"
#include "model/utf8.h"
#include "tpa/logdir.h"

#define MAX_DEPTH 8

/* A directory's identity: where it is, whatever the path that led to it. */
struct dir_id {
        dev_t dev;
        ino_t ino;
        bool  used;
};

/* One scan: the runs found, the directories seen (a hash set, open
 * addressing), and the real path of the folder it may not leave. */
struct scan {
        tpa_logdir    *ld;
        struct dir_id *seen;
        size_t         seen_cap, seen_count;       /* cap: 0 or a power of two */
        char          *root;
        size_t         root_len;
};

bool tpa_logdir_is_dir(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && strcmp(s + n - k, suffix) == 0;
}

static char *join(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        char *s = malloc(la + lb + 2);

        if (s == NULL)
                return NULL;
        memcpy(s, a, la);
        s[la] = '/';
        memcpy(s + la + 1, b, lb + 1);
        if (la > 0 && a[la - 1] == '/')
                memmove(s + la, s + la + 1, lb + 1);
        return s;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* Names in the order a person counts them: a run of digits compares as
 * its number ("worker-2" before "worker-10"), the rest byte by byte;
 * names equal so compare as strcmp() does, for a total order. */
static int cmp_natural(const char *x, const char *y)
{
        const char *p = x, *q = y;

        while (*p != '\0' && *q != '\0') {
                if (is_digit(*p) && is_digit(*q)) {
                        const char *ep, *eq;
                        while (*p == '0' && is_digit(p[1]))
                                p++;
                        while (*q == '0' && is_digit(q[1]))
                                q++;
                        for (ep = p; is_digit(*ep); ep++)
                                ;
                        for (eq = q; is_digit(*eq); eq++)
                                ;
                        if (ep - p != eq - q)
                                return ep - p < eq - q ? -1 : 1;
                        for (; p < ep; p++, q++)
                                if (*p != *q)
                                        return *p < *q ? -1 : 1;
                        continue;
                }
                if (*p != *q)
                        return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
                p++;
                q++;
        }
        if (*p != *q)
                return *p == '\0' ? -1 : 1;
        return strcmp(x, y);
}

/* Hosts, the ranks of a job, by name as a person counts them. */
static int cmp_host(const void *a, const void *b)
{
        return cmp_natural(((const tpa_logdir_host *)a)->name,
                           ((const tpa_logdir_host *)b)->name);
}

static int cmp_run(const void *a, const void *b)
{
        const tpa_logdir_run *x = a, *y = b;
        int c;

        if ((x->time != 0) != (y->time != 0))
                return x->time != 0 ? 1 : -1;
        if (x->time != y->time)
                return x->time < y->time ? -1 : 1;
        c = strcmp(x->name, y->name);
        return c != 0 ? c : strcmp(x->label, y->label);
}

static int oom(tpa_error *err)
{
        return tpa_error_oom(err);
}

/* Add a warning to ld: "'PATH' ..., ignoring", whole however long the
 * path. */
static int TPA_PRINTF(3, 4) warn(tpa_logdir *ld, tpa_error *err, const char *fmt, ...)
{
        char *msg, **p;
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0 || (msg = malloc((size_t)n + 1)) == NULL)
                return oom(err);
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
        tpa_utf8__one_line(msg);
        p = realloc(ld->warnings, (ld->warning_count + 1) * sizeof(*p));
        if (p == NULL) {
                free(msg);
                return oom(err);
        }
        ld->warnings = p;
        p[ld->warning_count++] = msg;
        return 0;
}

/* A folder of the logdir that cannot be listed (another user's run,
 * made with umask 077): said, never skipped in silence, for the newest
 * run found would then be an older one. */
static int unreadable(tpa_logdir *ld, const char *dir, tpa_error *err)
{
        if (errno == ENOENT)
                return 0;       /* gone since it was listed */
        return warn(ld, err, "'%s' cannot be read (%s), ignoring", dir, strerror(errno));
}

static size_t id_slot(const struct scan *s, dev_t dev, ino_t ino)
{
        uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15u) ^ (uint64_t)ino;
        size_t i = (size_t)(h * 0xff51afd7ed558ccdu >> 17) & (s->seen_cap - 1);

        while (s->seen[i].used && (s->seen[i].dev != dev || s->seen[i].ino != ino))
                i = (i + 1) & (s->seen_cap - 1);
        return i;
}

/* Mark (dev, ino) seen; *is_new says whether it was not before. */
static int see(struct scan *s, dev_t dev, ino_t ino, bool *is_new, tpa_error *err)
{
        size_t i;

        if (2 * (s->seen_count + 1) > s->seen_cap) {
                struct scan grown = *s;
                grown.seen_cap = s->seen_cap ? 2 * s->seen_cap : 64;
                grown.seen = calloc(grown.seen_cap, sizeof(*grown.seen));
                if (grown.seen == NULL)
                        return oom(err);
                for (size_t k = 0; k < s->seen_cap; k++)
                        if (s->seen[k].used)
                                grown.seen[id_slot(&grown, s->seen[k].dev, s->seen[k].ino)] =
                                        s->seen[k];
                free(s->seen);
                s->seen = grown.seen;
                s->seen_cap = grown.seen_cap;
        }
        i = id_slot(s, dev, ino);
        *is_new = !s->seen[i].used;
        s->seen[i] = (struct dir_id){ .dev = dev, .ino = ino, .used = true };
        s->seen_count += *is_new;
        return 0;
}

/* Whether to look into `path`: a directory not seen yet, and, when a link
 * leads there, one inside the root. A link out is a warning. */
static int may_enter(struct scan *s, const char *path, bool *ok, tpa_error *err)
{
        struct stat st, lst;
        char *real;
        bool inside;

        *ok = false;
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
                return 0;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
                /* A directory reached without a link is inside its parent,
                 * so only links need their real path checked. */
                real = realpath(path, NULL);
                if (real == NULL)
                        return 0;
                inside = strncmp(real, s->root, s->root_len) == 0 &&
                         (real[s->root_len] == '\0' || real[s->root_len] == '/' ||
                          s->root_len == 1);
                free(real);
                if (!inside)
                        return warn(s->ld, err, "'%s' leads out of the logdir, ignoring", path);
        }
        return see(s, st.st_dev, st.st_ino, ok, err);
}

/* PyTorch's tensorboard_trace_handler names a file
 * <worker>.<time>.pt.trace.json[.gz], one per profiling cycle of the
 * worker (a schedule that repeats): the host name "<worker>.<time>.pt" is
 * then one span of that worker. The length of "<worker>" (the time at
 * name + length + 1) when it is one, else 0. The time is 10 digits or
 * more (milliseconds or nanoseconds since 1970), so that a host named by
 * its address ("10.0.0.1") is no span. */
static size_t span_worker_n(const char *name, size_t n)
{
        size_t d;

        if (n < 4 || memcmp(name + n - 3, ".pt", 3) != 0)
                return 0;
        n -= 3;
        for (d = n; d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9'; d--)
                ;
        return n - d >= 10 && d >= 2 && name[d - 1] == '.' ? d - 1 : 0;
}

static size_t span_worker(const char *name)
{
        return span_worker_n(name, strlen(name));
}

/* The time of span `name` in ns since 1970 (its digits: milliseconds, as
 * older PyTorch wrote, or nanoseconds), or 0 when it is no span. */
static uint64_t span_time(const char *name)
{
        size_t w = span_worker(name), n;
        uint64_t t = 0;

        if (w == 0)
                return 0;
        n = strlen(name) - w - 4;       /* the digits between '.' and ".pt" */
        for (size_t i = 0; i < n && i < 19; i++)
                t = t * 10 + (uint64_t)(name[w + 1 + i] - '0');
        for (size_t i = n; i < 19; i++)
                t = t <= UINT64_MAX / 10 ? t * 10 : UINT64_MAX;
        return t;
}

/* By worker (a name that is no span: by itself, before a worker's spans
 * of the same name), then time (digits: the shorter first): a worker's
 * spans next to each other, in the order it wrote them. */
static int cmp_span(const void *a, const void *b)
{
        const char *x = ((const tpa_logdir_host *)a)->name;
        const char *y = ((const tpa_logdir_host *)b)->name;
        size_t wx = span_worker(x), wy = span_worker(y);
        size_t gx = wx > 0 ? wx : strlen(x), gy = wy > 0 ? wy : strlen(y);
        int c = memcmp(x, y, gx < gy ? gx : gy);

        if (c != 0 || gx != gy)
                return c != 0 ? c : gx < gy ? -1 : 1;
        if (wx == 0 || wy == 0)
                return (wx > 0) - (wy > 0);
        if (strlen(x) != strlen(y))
                return strlen(x) < strlen(y) ? -1 : 1;
        return strcmp(x, y);
}

static void run_free(tpa_logdir_run *run)
{
        for (size_t i = 0; i < run->host_count; i++) {
                free(run->hosts[i].name);
                free(run->hosts[i].path);
        }
        free(run->hosts);
        free(run->name);
        free(run->label);
}

/* Add run to ld, which takes what it holds, named `name` and `label`
 * with `tag` after each. */
static int add_run(tpa_logdir *ld, tpa_logdir_run *run, const char *name, const char *label,
                   const char *tag, tpa_error *err)
{
        size_t nn = strlen(name) + strlen(tag) + 1, nl = strlen(label) + strlen(tag) + 1;
        void *p = realloc(ld->runs, (ld->run_count + 1) * sizeof(*ld->runs));

        if (p != NULL)
                ld->runs = p;
        run->name = malloc(nn);
        run->label = malloc(nl);
        if (p == NULL || run->name == NULL || run->label == NULL) {
                run_free(run);
                return oom(err);
        }
        snprintf(run->name, nn, "%s%s", name, tag);
        snprintf(run->label, nl, "%s%s", label, tag);
        qsort(run->hosts, run->host_count, sizeof(*run->hosts), cmp_host);
        run->time = 0;
        for (size_t i = 0; i < run->host_count; i++)
                if (span_time(run->hosts[i].name) > run->time)
                        run->time = span_time(run->hosts[i].name);
        ld->runs[ld->run_count++] = *run;
        return 0;
}

/* How far apart, in seconds, the folders of one profile session's hosts
 * may be named: each worker of a job that profiles itself (tf.profiler.
 * experimental.start/stop in every worker) writes its host's file into a
 * folder named by the second it stopped, and workers stop a little apart.
 * So far apart too may the spans of a job's workers be written (each
 * rank's handler runs when its profiler stops); spans further apart are
 * of runs one after another. */
enum { SPLIT_SECONDS = 30 };

/* By span time, then name: hosts in the order they were written. */
static int cmp_span_time(const void *a, const void *b)
{
        const char *x = ((const tpa_logdir_host *)a)->name;
        const char *y = ((const tpa_logdir_host *)b)->name;
        uint64_t tx = span_time(x), ty = span_time(y);

        if (tx != ty)
                return tx < ty ? -1 : 1;
        return strcmp(x, y);
}

/* True when host i (of hosts sorted by cmp_span_time) was written over
 * SPLIT_SECONDS after host i - 1: it starts a session of its own. */
static bool starts_session(const tpa_logdir_run *all, size_t i)
{
        uint64_t t = span_time(all->hosts[i].name), p = span_time(all->hosts[i - 1].name);

        return t - p > (uint64_t)SPLIT_SECONDS * 1000000000u;
}

/* The hosts of a run folder into ld: one run; or, where a worker wrote
 * several spans (span_worker()), a run per span, the k-th of each: its
 * profiling cycles are profiles of one time each, not ranks of one job
 * (several workers, the ranks of one, wrote theirs at once). Where every
 * host is a span, spans written over SPLIT_SECONDS apart are sessions of
 * their own, split so first: a script run again into the folder (the
 * worker is "<host>_<pid>", a new one each run) is a later run, not a
 * rank beside the first. They are named "<run>:span<k>", k from 1 with
 * as many digits as the last one's, so that they sort in time and the
 * newest is the last. */
static int add_runs(tpa_logdir *ld, tpa_logdir_run *all, const char *name, const char *label,
                    tpa_error *err)
{
        size_t n = all->host_count, nspan = 0, *span = malloc((n + 1) * sizeof(*span));
        bool timed = n > 1;
        int width = 1, r = 0;

        if (span == NULL) {
                run_free(all);
                return oom(err);
        }
        for (size_t i = 0; i < n && timed; i++)
                timed = span_time(all->hosts[i].name) != 0;
        if (timed)
                qsort(all->hosts, n, sizeof(*all->hosts), cmp_span_time);
        /* each session by worker, then time; the k-th of a worker's spans
         * in it is its span k, numbered on from the sessions before */
        for (size_t first = 0, end; first < n; first = end) {
                size_t base = nspan;

                for (end = first + 1; end < n && !(timed && starts_session(all, end)); end++)
                        ;
                qsort(all->hosts + first, end - first, sizeof(*all->hosts), cmp_span);
                for (size_t i = first; i < end; i++) {
                        const char *h = all->hosts[i].name;
                        size_t w = span_worker(h);
                        span[i] = i > first && w > 0 &&
                                  w == span_worker(all->hosts[i - 1].name) &&
                                  memcmp(h, all->hosts[i - 1].name, w) == 0
                                  ? span[i - 1] + 1 : base;
                        if (span[i] + 1 > nspan)
                                nspan = span[i] + 1;
                }
        }
        if (nspan <= 1) {
                free(span);
                return add_run(ld, all, name, label, "", err);
        }
        for (size_t k = nspan; k >= 10; k /= 10)
                width++;
        for (size_t j = 0; j < nspan && r == 0; j++) {
                tpa_logdir_run run = { 0 };
                char tag[48], num[24];
                int len = snprintf(num, sizeof(num), "%zu", j + 1);
                size_t m = 0;

                for (size_t i = 0; i < n; i++)
                        m += span[i] == j;
                if ((run.hosts = calloc(m, sizeof(*run.hosts))) == NULL) {
                        r = oom(err);
                        break;
                }
                for (size_t i = 0; i < n; i++)
                        if (span[i] == j) {
                                run.hosts[run.host_count++] = all->hosts[i];
                                all->hosts[i] = (tpa_logdir_host){ NULL, NULL };
                        }
                snprintf(tag, sizeof(tag), ":span%.*s%s", width - len, "0000000000000000000",
                         num);
                r = add_run(ld, &run, name, label, tag, err);
        }
        free(span);
        run_free(all);
        return r;
}

/* `python -m jax.collect_profile PORT MS` writes the XSpace it captured,
 * <host>_<port>.xplane.pb, and xprof's trace viewer conversion of it beside
 * it as "remote.trace.json.gz" (jax/collect_profile.py): the same profile
 * under another name, which read as a second host made the one process a
 * job of two ranks (and every report twice). Where no remote.xplane.pb is
 * there and an XSpace is, that file is the copy: the XSpace is read, as
 * for a host with both (tpa/logdir.h). */
static void drop_remote_copy(tpa_logdir_run *run)
{
        size_t remote = run->host_count;
        bool xspace = false;

        for (size_t i = 0; i < run->host_count; i++) {
                if (has_suffix(run->hosts[i].path, ".xplane.pb"))
                        xspace = true;
                else if (strcmp(run->hosts[i].name, "remote") == 0 &&
                         has_suffix(run->hosts[i].path, ".trace.json.gz"))
                        remote = i;
        }
        if (remote == run->host_count || !xspace)
                return;
        free(run->hosts[remote].name);
        free(run->hosts[remote].path);
        run->hosts[remote] = run->hosts[--run->host_count];
}

/* The hosts of one run folder. */
static int scan_run(tpa_logdir *ld, const char *dir, const char *name, const char *label,
                    tpa_error *err)
{
        /* tensorboard_trace_handler writes .pt.trace.json unless asked for gzip */
        static const char *const suffixes[] = { ".xplane.pb", ".trace.json.gz",
                                                ".trace.json" };
        tpa_logdir_run run = { 0 };
        size_t cap = 0;
        DIR *d = opendir(dir);
        struct dirent *e;
        void *p;

        if (d == NULL)
                return unreadable(ld, dir, err);
        while ((e = readdir(d)) != NULL) {
                for (size_t s = 0; s < 3; s++) {
                        size_t n = strlen(e->d_name), k = strlen(suffixes[s]);
                        tpa_logdir_host *h = NULL;
                        struct stat st;
                        char *path;
                        int r;
                        if (n <= k || !has_suffix(e->d_name, suffixes[s]))
                                continue;
                        /* plain JSON: only the handler's, a span of a worker */
                        if (s == 2 && span_worker_n(e->d_name, n - k) == 0)
                                continue;
                        /* A fifo or device would block the read or never end. */
                        path = join(dir, e->d_name);
                        if (path == NULL)
                                goto fail;
                        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
                                r = warn(ld, err, "'%s' is not a regular file, ignoring",
                                         path);
                                free(path);
                                if (r < 0)
                                        goto fail;
                                continue;
                        }
                        for (size_t i = 0; i < run.host_count; i++)
                                if (strlen(run.hosts[i].name) == n - k &&
                                    memcmp(run.hosts[i].name, e->d_name, n - k) == 0)
                                        h = &run.hosts[i];
                        if (h != NULL && s >= 1) {
                                free(path);
                                continue;       /* xplane.pb wins, then the first */
                        }
                        if (h == NULL) {
                                if (run.host_count == cap) {
                                        cap = cap ? cap * 2 : 8;
                                        p = realloc(run.hosts, cap * sizeof(*run.hosts));
                                        if (p == NULL) {
                                                free(path);
                                                goto fail;
                                        }
                                        run.hosts = p;
                                }
                                h = &run.hosts[run.host_count++];
                                h->name = strndup(e->d_name, n - k);
                                h->path = NULL;
                                if (h->name == NULL) {
                                        free(path);
                                        goto fail;
                                }
                        }
                        free(h->path);
                        h->path = path;
                }
        }
        closedir(d);
        d = NULL;
        drop_remote_copy(&run);
        if (run.host_count == 0)
                return 0;
        return add_runs(ld, &run, name, label, err);
fail:
        if (d != NULL)
                closedir(d);
        run_free(&run);
        return oom(err);
}

/* True when folder `dir` holds a file tensorboard_trace_handler named
 * (span_worker()): a PyTorch run. */
static bool has_spans(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        bool found = false;

        while (d != NULL && !found && (e = readdir(d)) != NULL) {
                size_t n = strlen(e->d_name);
                found = (has_suffix(e->d_name, ".trace.json") &&
                         span_worker_n(e->d_name, n - 11) > 0) ||
                        (has_suffix(e->d_name, ".trace.json.gz") &&
                         span_worker_n(e->d_name, n - 14) > 0);
        }
        if (d != NULL)
                closedir(d);
        return found;
}

/* Walk `dir` (shown as `rel`) looking for plugins/profile, and for the
 * folders of PyTorch's runs (has_spans()). */
static int walk(struct scan *sc, const char *dir, const char *rel, int depth, tpa_error *err)
{
        DIR *d;
        struct dirent *e;
        char *names = NULL;
        size_t len = 0;
        int rc = 0;

        if (depth > MAX_DEPTH)
                return 0;
        if ((d = opendir(dir)) == NULL)
                return unreadable(sc->ld, dir, err);
        /* Collect the names first: no open DIR across the recursion. */
        while ((e = readdir(d)) != NULL) {
                size_t n = strlen(e->d_name) + 1;
                char *p;
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                p = realloc(names, len + n);
                if (p == NULL) {
                        closedir(d);
                        free(names);
                        return oom(err);
                }
                names = p;
                memcpy(names + len, e->d_name, n);
                len += n;
        }
        closedir(d);
        for (size_t off = 0; off < len && rc == 0; off += strlen(names + off) + 1) {
                const char *n = names + off;
                char *sub = join(dir, n), *subrel = *rel ? join(rel, n) : strdup(n);
                bool enter = false;
                if (sub == NULL || subrel == NULL)
                        rc = oom(err);
                else
                        rc = may_enter(sc, sub, &enter, err);
                if (enter) {
                        size_t sl = strlen(sub);
                        if (sl >= 16 && strcmp(sub + sl - 16, "/plugins/profile") == 0) {
                                /* each folder in here is a run */
                                DIR *rd = opendir(sub);
                                if (rd == NULL)
                                        rc = unreadable(sc->ld, sub, err);
                                while (rd != NULL && rc == 0 && (e = readdir(rd)) != NULL) {
                                        char *run, *runrel;
                                        bool is_run = false;
                                        if (e->d_name[0] == '.')
                                                continue;
                                        run = join(sub, e->d_name);
                                        runrel = join(subrel, e->d_name);
                                        if (run == NULL || runrel == NULL)
                                                rc = oom(err);
                                        else
                                                rc = may_enter(sc, run, &is_run, err);
                                        if (is_run)
                                                rc = scan_run(sc->ld, run, e->d_name, runrel,
                                                              err);
                                        free(run);
                                        free(runrel);
                                }
                                if (rd != NULL)
                                        closedir(rd);
                        } else if (has_spans(sub)) {
                                rc = scan_run(sc->ld, sub, n, subrel, err);
                        } else {
                                rc = walk(sc, sub, subrel, depth + 1, err);
                        }
                }
                free(sub);
                free(subrel);
        }
        free(names);
        return rc;
}

/* Walk `root` with a scan that never leaves it. */
static int walk_root(tpa_logdir *ld, const char *root, tpa_error *err)
{
        struct scan sc = { .ld = ld };
        struct stat st;
        bool is_new;
        int rc;

        sc.root = realpath(root, NULL);
        if (sc.root == NULL || stat(sc.root, &st) != 0)
                rc = tpa_error_set_sys(err, errno, "cannot open directory");
        else
                rc = see(&sc, st.st_dev, st.st_ino, &is_new, err);
        if (rc == 0) {
                sc.root_len = strlen(sc.root);
                rc = walk(&sc, root, "", 0, err);
        }
        free(sc.root);
        free(sc.seen);
        return rc;
}

/* The seconds since 1970 a TF run folder's name says ("2024_03_01_
 * 17_05_09", UTC as the profiler names it), or -1 for another name. */
static int64_t run_seconds(const char *name)
{
        int v[6], n = 0;
        int64_t y, m, days;

        if (sscanf(name, "%4d_%2d_%2d_%2d_%2d_%2d%n", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &n) != 6 || name[n] != '\0' || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
            v[2] > 31)
                return -1;
        /* days from 1970-01-01 of a proleptic Gregorian date (civil) */
        y = v[0] - (v[1] <= 2);
        m = v[1] <= 2 ? v[1] + 9 : v[1] - 3;
        days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + v[2] - 1 - 719468;
        return days * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
}

/* The folder a run's label names it in ("plugins/profile" of "logs/
 * plugins/profile/2024_..."), as its length. */
static size_t label_dir_len(const char *label)
{
        const char *slash = strrchr(label, '/');

        return slash != NULL ? (size_t)(slash - label) : 0;
}

static bool shares_host(const tpa_logdir_run *a, const tpa_logdir_run *b)
{
        for (size_t i = 0; i < a->host_count; i++)
                for (size_t k = 0; k < b->host_count; k++)
                        if (strcmp(a->hosts[i].name, b->hosts[k].name) == 0)
                                return true;
        return false;
}

/* TF runs of one profiling session split over folders of adjacent seconds
 * are one run: two folders in one plugins/profile, named within
 * SPLIT_SECONDS of each other, whose hosts differ, are joined, the older's
 * hosts moved into the newer (its name kept; its label says both). Done
 * from the newest back, so a chain of such folders becomes one run. */
static int join_split_runs(tpa_logdir *ld, tpa_error *err)
{
        for (size_t r = ld->run_count; r-- > 1;) {
                tpa_logdir_run *older = &ld->runs[r - 1], *newer = &ld->runs[r];
                int64_t to = run_seconds(newer->name), from = run_seconds(older->name);
                size_t ln = label_dir_len(newer->label), lo = label_dir_len(older->label);
                tpa_logdir_host *h;
                char *label;
                size_t n;

                if (newer->time != 0 || older->time != 0 || to < 0 || from < 0 ||
                    to - from > SPLIT_SECONDS || ln != lo ||
                    strncmp(newer->label, older->label, ln) != 0 || shares_host(newer, older))
                        continue;
                n = newer->host_count + older->host_count;
                h = realloc(newer->hosts, n * sizeof(*h));
                if (h == NULL)
                        return oom(err);
                newer->hosts = h;
                memcpy(h + newer->host_count, older->hosts, older->host_count * sizeof(*h));
                newer->host_count = n;
                qsort(h, n, sizeof(*h), cmp_host);
                n = strlen(newer->label) + strlen(older->name) + 4;
                if ((label = malloc(n)) == NULL)
                        return oom(err);
                snprintf(label, n, "%s + %s", newer->label, older->name);
                free(newer->label);
                newer->label = label;
                free(older->hosts);
                free(older->name);
                free(older->label);
                memmove(older, newer, (ld->run_count - r) * sizeof(*older));
                ld->run_count--;
        }
        return 0;
}

int tpa_logdir_scan(tpa_logdir **out, const char *dir, tpa_error *err)
{
        tpa_logdir *ld = calloc(1, sizeof(*ld));
        size_t dl = strlen(dir);
        int rc;

        if (ld == NULL)
                return oom(err);
        /* The logdir itself may be plugins/profile, or a run folder. */
        while (dl > 1 && dir[dl - 1] == '/')
                dl--;
        if (dl >= 15 && strncmp(dir + dl - 15, "plugins/profile", 15) == 0) {
                char *parent = strndup(dir, dl >= 16 ? dl - 16 : 0);
                rc = parent == NULL ? oom(err) : walk_root(ld, *parent ? parent : ".", err);
                free(parent);
        } else {
                rc = walk_root(ld, dir, err);
                if (rc == 0 && ld->run_count == 0) {
                        const char *base = strrchr(dir, '/');
                        rc = scan_run(ld, dir, base != NULL && base[1] ? base + 1 : dir, ".",
                                      err);
                }
        }
        if (rc == 0 && ld->run_count == 0)
                rc = tpa_error_setf(err, TPA_EFORMAT, "no profile runs (plugins/profile/<run>/ "
                                    "with *.xplane.pb or *.trace.json.gz, <run>/ with "
                                    "*.pt.trace.json[.gz]) in this directory");
        if (rc < 0) {
                tpa_logdir_free(ld);
                return rc;
        }
        qsort(ld->runs, ld->run_count, sizeof(*ld->runs), cmp_run);
        if ((rc = join_split_runs(ld, err)) < 0) {
                tpa_logdir_free(ld);
                return rc;
        }
        *out = ld;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int tpa_logdir__list_files(char ***out, size_t *count, const char *dir, tpa_error *err)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        char **v = NULL;
        size_t n = 0;

        if (d == NULL)
                return tpa_error_set_sys(err, errno, "cannot open directory");
        while ((e = readdir(d)) != NULL) {
                char *p, **nv;
                struct stat st;
                if (e->d_name[0] == '.')
                        continue;
                p = join(dir, e->d_name);
                if (p == NULL)
                        goto fail;
                if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
                        free(p);
                        continue;
                }
                nv = realloc(v, (n + 1) * sizeof(*v));
                if (nv == NULL) {
                        free(p);
                        goto fail;
                }
                v = nv;
                v[n++] = p;
        }
        closedir(d);
        if (n > 0)
                qsort(v, n, sizeof(*v), cmp_str);
        *out = v;
        *count = n;
        return 0;
fail:
        closedir(d);
        while (n > 0)
                free(v[--n]);
        free(v);
        return oom(err);
}

/* True when `name` names run: its folder name or label, or, for a run
 * joined of several folders (join_split_runs()), any of their names. */
static bool names_run(const tpa_logdir_run *run, const char *name)
{
        size_t n = strlen(name);

        if (strcmp(run->name, name) == 0 || strcmp(run->label, name) == 0)
                return true;
        for (const char *p = strstr(run->label, " + "); p != NULL; p = strstr(p + 3, " + "))
                if (strncmp(p + 3, name, n) == 0 && (p[3 + n] == '\0' || p[3 + n] == ' '))
                        return true;
        return false;
}

const tpa_logdir_run *tpa_logdir_find_run(const tpa_logdir *ld, const char *name)
{
        if (ld->run_count == 0)
                return NULL;
        if (name == NULL)
                return &ld->runs[ld->run_count - 1];
        for (size_t i = ld->run_count; i-- > 0;)
                if (names_run(&ld->runs[i], name))
                        return &ld->runs[i];
        return NULL;
}

void tpa_logdir_free(tpa_logdir *ld)
{
        if (ld == NULL)
                return;
        for (size_t r = 0; r < ld->run_count; r++) {
                for (size_t i = 0; i < ld->runs[r].host_count; i++) {
                        free(ld->runs[r].hosts[i].name);
                        free(ld->runs[r].hosts[i].path);
                }
                free(ld->runs[r].hosts);
                free(ld->runs[r].name);
                free(ld->runs[r].label);
        }
        free(ld->runs);
        for (size_t i = 0; i < ld->warning_count; i++)
                free(ld->warnings[i]);
        free(ld->warnings);
        free(ld);
}
