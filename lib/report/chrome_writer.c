/* SPDX-License-Identifier: MIT */
/*
 * chrome_writer.c - traces out as Chrome trace JSON (convert, merge).
 *
 * What the Chrome reader reads back is what is written: process and thread
 * names and sort indexes as M records, every event as an X record with ts
 * and dur in microseconds printed exactly from ns, and in args the extras
 * the reader turns back into the model: correlation_id, group_id, bytes,
 * step_num, tf_op, tf_function_call (a tf.function's call, "traced" when
 * it traced the function: compile evidence). Kinds are not
 * written: the reader derives them again from the same names, and for
 * Kineto traces from the 'cat' written for each kind.
 *
 * Merged, each input's correlation and group ids are moved past those of
 * the inputs before it, as its pids are: two ranks of one job number their
 * launches alike, and the same id in two inputs would tie one rank's
 * launch to another rank's kernel.
 *
 * The output is buffered and written as it goes (deflated into a gzip
 * member first when asked), so memory stays flat.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tpa/chrome_writer.h"
#include "report_util.h"

#define BUF_SIZE (64u * 1024u)

struct tpa_chrome_writer {
        FILE    *fp;
        bool     own_fp;        /* opened here, closed here */
        bool     gzip;          /* z deflates buf into zbuf before fp */
        z_stream z;
        char    *path;          /* the name errors give; NULL: standard output */
        bool     created;       /* path is a file created here */
        char     buf[BUF_SIZE];
        char     zbuf[BUF_SIZE];
        size_t   len;
        int64_t  next_pid;
        uint32_t next_input;    /* merged: inputs of earlier traces end here */
        uint64_t corr_base;     /* merged: ids of earlier inputs end here */
        uint64_t group_base;
        bool     first;         /* no record written yet */
        int      sys_errno;
        bool     failed;
};

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void write_out(tpa_chrome_writer *w, const char *p, size_t n)
{
        if (!w->failed && n > 0 && fwrite(p, 1, n, w->fp) != n) {
                w->sys_errno = errno != 0 ? errno : EIO;
                w->failed = true;
        }
}

/* Hand buf to the output, through deflate() for gzip; `mode` Z_FINISH
 * ends the gzip member. */
static void flush_mode(tpa_chrome_writer *w, int mode)
{
        int zr;

        if (w->failed)
                return;
        if (!w->gzip) {
                write_out(w, w->buf, w->len);
                w->len = 0;
                return;
        }
        w->z.next_in = (Bytef *)w->buf;
        w->z.avail_in = (uInt)w->len;
        do {
                w->z.next_out = (Bytef *)w->zbuf;
                w->z.avail_out = BUF_SIZE;
                zr = deflate(&w->z, mode);
                write_out(w, w->zbuf, BUF_SIZE - w->z.avail_out);
        } while (!w->failed && (w->z.avail_out == 0 || (mode == Z_FINISH && zr == Z_OK)));
        w->len = 0;
}

static void flush(tpa_chrome_writer *w)
{
        if (w->len > 0)
                flush_mode(w, Z_NO_FLUSH);
}

static void put(tpa_chrome_writer *w, const char *s, size_t n)
{
        while (n > 0) {
                size_t take = BUF_SIZE - w->len;
                if (take > n)
                        take = n;
                memcpy(w->buf + w->len, s, take);
                w->len += take;
                s += take;
                n -= take;
                if (w->len == BUF_SIZE)
                        flush(w);
        }
}

static void puts_(tpa_chrome_writer *w, const char *s)
{
        put(w, s, strlen(s));
}

static void put_i64(tpa_chrome_writer *w, int64_t v)
{
        char b[32];
        put(w, b, (size_t)snprintf(b, sizeof(b), "%" PRId64, v));
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void put_str(tpa_chrome_writer *w, const char *s, size_t n)
{
        static const char hex[] = "0123456789abcdef";
        size_t run = 0;

        put(w, "\"", 1);
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                char esc[6];
                if (c >= 0x20 && c != '"' && c != '\\')
                        continue;
                put(w, s + run, i - run);
                run = i + 1;
                esc[0] = '\\';
                if (c == '"' || c == '\\') {
                        esc[1] = (char)c;
                        put(w, esc, 2);
                } else if (c == '\n') {
                        put(w, "\\n", 2);
                } else if (c == '\t') {
                        put(w, "\\t", 2);
                } else {
                        esc[1] = 'u';
                        esc[2] = '0';
                        esc[3] = '0';
                        esc[4] = hex[c >> 4];
                        esc[5] = hex[c & 15];
                        put(w, esc, 6);
                }
        }
        put(w, s + run, n - run);
        put(w, "\"", 1);
}

size_t tpa_chrome__format_us(char *buf, tpa_ns ns)
{
        uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        int n;

        if (a % 1000 == 0)
                n = snprintf(buf, 32, "%s%" PRIu64, ns < 0 ? "-" : "", a / 1000);
        else
                n = snprintf(buf, 32, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
                             (unsigned)(a % 1000));
        /* "1.500" -> "1.5": shorter, and still exact */
        while (n > 0 && memchr(buf, '.', (size_t)n) != NULL && buf[n - 1] == '0')
                buf[--n] = '\0';
        return (size_t)n;
}

static void put_us(tpa_chrome_writer *w, tpa_ns ns)
{
        char b[32];
        put(w, b, tpa_chrome__format_us(b, ns));
}

static void record_start(tpa_chrome_writer *w)
{
        puts_(w, w->first ? "\n" : ",\n");
        w->first = false;
}

int tpa_chrome_writer_open_stream(tpa_chrome_writer **out, FILE *fp, bool gzip,
                                  const char *name, tpa_error *err)
{
        tpa_chrome_writer *w = calloc(1, sizeof(*w));

        if (w == NULL || (name != NULL && (w->path = strdup(name)) == NULL)) {
                free(w);
                return tpa_error_oom(err);
        }
        /* windowBits 15 + 16: a gzip header and trailer around the data */
        if (gzip && deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                                 Z_DEFAULT_STRATEGY) != Z_OK) {
                free(w->path);
                free(w);
                return tpa_error_oom(err);
        }
        w->fp = fp;
        w->gzip = gzip;
        w->next_pid = 1;
        w->first = true;
        puts_(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
        *out = w;
        return 0;
}

int tpa_chrome_writer_open(tpa_chrome_writer **out, const char *path, tpa_error *err)
{
        tpa_chrome_writer *w;
        bool created;
        FILE *fp;
        int r;

        if (path == NULL || strcmp(path, "-") == 0)
                return tpa_chrome_writer_open_stream(out, stdout, false, NULL, err);
        /* Only a file we create is removed on failure: never an existing
         * file, a device or a pipe. */
        created = access(path, F_OK) != 0;
        fp = fopen(path, "wb");
        if (fp == NULL)
                return tpa_error_set_sys(err, errno, "cannot create '%s'", path);
        r = tpa_chrome_writer_open_stream(&w, fp, has_suffix(path, ".gz"), path, err);
        if (r < 0) {
                fclose(fp);
                if (created)
                        unlink(path);
                return r;
        }
        w->own_fp = true;
        w->created = created;
        *out = w;
        return 0;
}

/* What one tpa_chrome_writer_add() call writes ids with. */
struct ids {
        const tpa_trace *tr;
        const char      *label;         /* NULL: none */
        int64_t          base;          /* numeric pids are base + process index */
        uint64_t         corr_base;     /* correlation ids are written + corr_base */
        uint64_t         group_base;    /* group ids are written + group_base */
};

/* Merged inputs get disjoint id ranges: input k's ids are its own plus
 * what the inputs before it used (correlation id c becomes corr_base + c;
 * group id g, stored g + 1, becomes group_base + g), in input order, so
 * the same inputs always merge alike and each id still reads back within
 * what the reader keeps (32 bits). Nothing is moved for convert. */
static int id_bases(tpa_chrome_writer *w, struct ids *c, tpa_error *err)
{
        const tpa_event *ev = tpa_trace_events(c->tr);
        size_t ne = tpa_trace_event_count(c->tr);
        uint64_t corr_max = 0, group_max = 0;

        if (c->label == NULL)
                return 0;
        for (size_t i = 0; i < ne; i++) {
                if (ev[i].corr > corr_max)
                        corr_max = ev[i].corr;
                if (ev[i].group > group_max)
                        group_max = ev[i].group;
        }
        if (w->corr_base + corr_max > UINT32_MAX || w->group_base + group_max > UINT32_MAX)
                return tpa_error_setf(err, TPA_ELIMIT,
                                      "'%s': its correlation or group ids do not fit beside "
                                      "those of the inputs before it (2^32 in all)",
                                      c->label);
        c->corr_base = w->corr_base;
        c->group_base = w->group_base;
        w->corr_base += corr_max;
        w->group_base += group_max;
        return 0;
}

/* A process id. Without a label (convert) it is the input's own. With one
 * (merge), numeric pids are renumbered from `base` and string pids
 * ("Spans", "Traces") are prefixed with the label, so inputs never
 * collide. */
static void put_pid(tpa_chrome_writer *w, const struct ids *c, uint32_t proc)
{
        const tpa_process *p = tpa_trace_process_c(c->tr, proc);
        const char *s = tpa_trace_str(c->tr, p->pid.str);
        size_t n = tpa_trace_str_len(c->tr, p->pid.str);

        if (tpa_id_is_number(p->pid)) {
                put_i64(w, c->label == NULL ? p->pid.num : c->base + proc);
        } else if (c->label == NULL) {
                put_str(w, s, n);
        } else {
                size_t ll = strlen(c->label);
                char *t = malloc(ll + 2 + n);
                if (t == NULL) {                /* keep going: a number still works */
                        put_i64(w, c->base + proc);
                        return;
                }
                memcpy(t, c->label, ll);
                memcpy(t + ll, ": ", 2);
                memcpy(t + ll + 2, s, n);
                put_str(w, t, ll + 2 + n);
                free(t);
        }
}

/* A thread id as the input spelled it: a number or a string. */
static void put_tid(tpa_chrome_writer *w, const struct ids *c, const tpa_thread *t)
{
        if (tpa_id_is_number(t->tid))
                put_i64(w, t->tid.num);
        else
                put_str(w, tpa_trace_str(c->tr, t->tid.str), tpa_trace_str_len(c->tr, t->tid.str));
}

static void put_meta(tpa_chrome_writer *w, const struct ids *c, const char *what, uint32_t proc,
                     const tpa_thread *t, const char *key)
{
        record_start(w);
        puts_(w, "{\"ph\":\"M\",\"pid\":");
        put_pid(w, c, proc);
        if (t != NULL) {
                puts_(w, ",\"tid\":");
                put_tid(w, c, t);
        }
        puts_(w, ",\"name\":\"");
        puts_(w, what);
        puts_(w, "\",\"args\":{\"");
        puts_(w, key);
        puts_(w, "\":");
}

/* Merged, which input process `i` came from (tpa_trace_input): the input
 * `label` names, or, for a trace that is itself a merge, the input it
 * says, numbered after those of the traces before it. So the reader can
 * take the merge apart again (tpa_trace_split_input). */
static void put_input(tpa_chrome_writer *w, const struct ids *c, uint32_t i)
{
        const tpa_process *p = tpa_trace_process_c(c->tr, i);
        const tpa_input_info *in = p->input != 0 ? tpa_trace_input(c->tr, p->input - 1) : NULL;
        const tpa_dist_info *d = in != NULL ? &in->dist : tpa_trace_dist(c->tr);

        if (in == NULL && c->label == NULL)
                return;
        put_meta(w, c, "tpa_input", i, NULL, "name");
        if (in != NULL)
                put_str(w, tpa_trace_str(c->tr, in->name), tpa_trace_str_len(c->tr, in->name));
        else
                put_str(w, c->label, strlen(c->label));
        puts_(w, ",\"sort_index\":");
        put_i64(w, (int64_t)w->next_input + (in != NULL ? (int64_t)p->input - 1 : 0));
        if (d->rank >= 0) {
                puts_(w, ",\"rank\":");
                put_i64(w, d->rank);
        }
        if (d->world_size >= 0) {
                puts_(w, ",\"world_size\":");
                put_i64(w, d->world_size);
        }
        if (d->backend[0] != '\0') {
                puts_(w, ",\"backend\":");
                put_str(w, d->backend, strlen(d->backend));
        }
        puts_(w, "}}");
}

/* True when name s[0, len) starts with p. */
static bool starts(const char *s, size_t len, const char *p)
{
        size_t n = strlen(p);

        return len >= n && memcmp(s, p, n) == 0;
}

/* Kineto tells kinds by 'cat', not by name: write the category each kind
 * reads back as (parse/classify.c). Other dialects go by names alone. An
 * annotation or a CPU collective's span (gloo's "gloo:all_reduce",
 * "nccl:...") on a host thread is a user_annotation: gpu_user_annotation
 * and kernel are device work's categories, and would make its thread a
 * stream. Another collective on a host thread, PyTorch's dispatcher op of
 * one ("c10d::recv_", "c10d::allreduce_", "_c10d_functional::..."), is a
 * cpu_op: as a user_annotation it read back as an annotation, and a merged
 * gloo rank lost the time it blocked in them. */
static const char *kineto_cat(unsigned kind, const tpa_thread *t, const char *name, size_t len)
{
        if (kind == TPA_KIND_COLLECTIVE && t->role == TPA_TRACK_HOST)
                return starts(name, len, "gloo:") || starts(name, len, "nccl:")
                       ? "user_annotation" : "cpu_op";
        if (kind == TPA_KIND_ANNOTATION && t->role == TPA_TRACK_HOST)
                return "user_annotation";
        switch (kind) {
        case TPA_KIND_KERNEL:
        case TPA_KIND_COLLECTIVE:       return "kernel";
        case TPA_KIND_COPY_H2D:
        case TPA_KIND_COPY_D2H:
        case TPA_KIND_COPY_D2D:
        case TPA_KIND_COPY_P2P:         return "gpu_memcpy";
        case TPA_KIND_MEMSET:           return "gpu_memset";
        case TPA_KIND_HOST_OP:
        case TPA_KIND_INPUT:            return "cpu_op";
        case TPA_KIND_SYNC:             return "cuda_sync";
        case TPA_KIND_LAUNCH:
        case TPA_KIND_SETUP:            return "cuda_runtime";
        case TPA_KIND_STEP:             return "user_annotation";
        case TPA_KIND_ANNOTATION:       return "gpu_user_annotation";
        default:                        return NULL;
        }
}

int tpa_chrome_writer_add(tpa_chrome_writer *w, const tpa_trace *tr, const char *label,
                          tpa_error *err)
{
        size_t np = tpa_trace_process_count(tr), nt = tpa_trace_thread_count(tr);
        size_t ne = tpa_trace_event_count(tr);
        const tpa_event *ev = tpa_trace_events(tr);
        int64_t base = w->next_pid;
        struct ids c = { tr, label, base, 0, 0 };
        bool kineto = tpa_trace_dialect(tr) == TPA_DIALECT_KINETO;
        int rc = id_bases(w, &c, err);

        if (rc < 0)
                return rc;

        for (uint32_t i = 0; i < np; i++) {
                const tpa_process *p = tpa_trace_process_c(tr, i);
                put_meta(w, &c, "process_name", i, NULL, "name");
                put_str(w, tpa_trace_str(tr, p->name), tpa_trace_str_len(tr, p->name));
                puts_(w, "}}");
                /* Merged, the file goes in the process labels, after the
                 * input's own ("GPU 0, a.json"): the name stays what the
                 * dialect is told by ("/device:GPU:0"), so the merged file
                 * reads back with its devices and host threads. */
                if (p->label != TPA_STR_EMPTY || label != NULL) {
                        size_t pl = tpa_trace_str_len(tr, p->label);
                        size_t ll = label != NULL ? strlen(label) : 0;
                        char *s = malloc(pl + 2 + ll + 1);
                        size_t n = 0;
                        if (s == NULL)
                                return tpa_error_oom(err);
                        memcpy(s, tpa_trace_str(tr, p->label), pl);
                        n = pl;
                        if (pl > 0 && ll > 0) {
                                memcpy(s + n, ", ", 2);
                                n += 2;
                        }
                        if (ll > 0)
                                memcpy(s + n, label, ll);
                        n += ll;
                        put_meta(w, &c, "process_labels", i, NULL, "labels");
                        put_str(w, s, n);
                        puts_(w, "}}");
                        free(s);
                }
                put_meta(w, &c, "process_sort_index", i, NULL, "sort_index");
                /* merged inputs stay in groups, in input order */
                put_i64(w, label == NULL && p->sort_index != 0 ? p->sort_index : base + i);
                puts_(w, "}}");
                put_input(w, &c, i);
        }
        for (uint32_t i = 0; i < nt; i++) {
                const tpa_thread *t = tpa_trace_thread_c(tr, i);
                if (t->name != TPA_STR_EMPTY) {
                        put_meta(w, &c, "thread_name", t->process, t, "name");
                        put_str(w, tpa_trace_str(tr, t->name), tpa_trace_str_len(tr, t->name));
                        puts_(w, "}}");
                }
                if (t->sort_index != 0) {
                        put_meta(w, &c, "thread_sort_index", t->process, t, "sort_index");
                        put_i64(w, t->sort_index);
                        puts_(w, "}}");
                }
        }
        for (size_t i = 0; i < ne && !w->failed; i++) {
                const tpa_event *e = &ev[i];
                const tpa_thread *t = tpa_trace_thread_c(tr, e->track);
                const char *cat;
                int64_t v;
                bool any = false;

                record_start(w);
                puts_(w, "{\"ph\":\"X\",\"pid\":");
                put_pid(w, &c, t->process);
                puts_(w, ",\"tid\":");
                put_tid(w, &c, t);
                puts_(w, ",\"ts\":");
                put_us(w, e->ts);
                puts_(w, ",\"dur\":");
                put_us(w, e->dur);
                puts_(w, ",\"name\":");
                put_str(w, tpa_trace_str(tr, e->name), tpa_trace_str_len(tr, e->name));
                cat = kineto ? kineto_cat(e->kind, t, tpa_trace_str(tr, e->name),
                                          tpa_trace_str_len(tr, e->name)) : NULL;
                if (cat != NULL) {
                        puts_(w, ",\"cat\":\"");
                        puts_(w, cat);
                        puts_(w, "\"");
                }
#define ARG(key) (puts_(w, any ? ",\"" key "\":" : ",\"args\":{\"" key "\":"), any = true)
                if (e->corr != 0) {
                        ARG("correlation_id");
                        put_i64(w, (int64_t)(c.corr_base + e->corr));
                }
                if (e->group != 0) {
                        ARG("group_id");
                        put_i64(w, (int64_t)(c.group_base + e->group - 1));
                }
                if (tpa_trace_get_aux(tr, i, TPA_AUX_BYTES, &v)) {
                        ARG("bytes");
                        put_i64(w, v);
                }
                if (tpa_trace_get_aux(tr, i, TPA_AUX_STEP_NUM, &v)) {
                        ARG("step_num");
                        put_i64(w, v);
                }
                if (tpa_trace_get_aux(tr, i, TPA_AUX_OP, &v) && v > 0 &&
                    (size_t)v < tpa_trace_str_count(tr)) {
                        ARG("tf_op");
                        put_str(w, tpa_trace_str(tr, (tpa_str)v),
                                tpa_trace_str_len(tr, (tpa_str)v));
                }
                /* a compile by its name is known again by its name */
                if (tpa_trace_get_aux(tr, i, TPA_AUX_FLAGS, &v) && (v & TPA_FLAG_TF_CALL)) {
                        ARG("tf_function_call");
                        puts_(w, v & TPA_FLAG_COMPILE ? "\"traced\"" : "\"notTraced\"");
                }
#undef ARG
                puts_(w, any ? "}}" : "}");
        }
        w->next_pid = base + (int64_t)np;
        if (tpa_trace_input_count(tr) > 0)
                w->next_input += (uint32_t)tpa_trace_input_count(tr);
        else if (label != NULL)
                w->next_input++;
        for (uint32_t i = 0; label == NULL && i < np; i++) {
                const tpa_process *p = tpa_trace_process_c(tr, i);
                if (p->pid.str == TPA_STR_EMPTY && p->pid.num >= w->next_pid &&
                    p->pid.num < INT64_MAX)
                        w->next_pid = p->pid.num + 1;
        }
        if (w->failed)
                return tpa_error_set_sys(err, w->sys_errno, "cannot write '%s'",
                                         w->path ? w->path : "standard output");
        return 0;
}

static int finish(tpa_chrome_writer *w, bool keep, tpa_error *err)
{
        int rc = 0;

        if (keep) {
                puts_(w, "\n]}\n");
                if (w->gzip)
                        flush_mode(w, Z_FINISH);
                else
                        flush(w);
        }
        if (w->gzip)
                deflateEnd(&w->z);
        if ((w->own_fp ? fclose(w->fp) : fflush(w->fp)) != 0 && !w->failed) {
                w->sys_errno = errno != 0 ? errno : EIO;
                w->failed = true;
        }
        if (keep && w->failed)
                rc = tpa_error_set_sys(err, w->sys_errno, "cannot write '%s'",
                                       w->path ? w->path : "standard output");
        if ((!keep || rc < 0) && w->created)
                unlink(w->path);
        free(w->path);
        free(w);
        return rc;
}

int tpa_chrome_writer_close(tpa_chrome_writer *w, tpa_error *err)
{
        return finish(w, true, err);
}

void tpa_chrome_writer_abort(tpa_chrome_writer *w)
{
        if (w != NULL)
                finish(w, false, NULL);
}
