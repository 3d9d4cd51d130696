/* SPDX-License-Identifier: MIT */
/*
 * report_input_summary.c - the "what was read" section of the text report
 * (not report_load.c, which reads saved JSON reports): format and dialect,
 * devices and their streams, host threads, events by kind, time span and
 * parse health. Deterministic (sorted by count, then name)
 * and at most 100 columns wide.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpa/report.h"
#include "model/utf8.h"
#include "report_util.h"

#define NAME_WIDTH 56
#define HOST_THREADS_SHOWN 10

/* A duration for people: "812 ns", "12.345 us", "3.210 ms", "1.500 s". */
static void fmt_ns(char *buf, size_t size, tpa_ns ns)
{
        const char *sign = ns < 0 ? "-" : "";
        uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

        if (v < 1000)
                snprintf(buf, size, "%s%" PRIu64 " ns", sign, v);
        else if (v < 1000000)
                snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 " us", sign, v / 1000, v % 1000);
        else if (v < 1000000000)
                snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 " ms", sign, v / 1000000,
                         v / 1000 % 1000);
        else
                snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 " s", sign, v / 1000000000,
                         v / 1000000 % 1000);
}

/* `s` cut to `width` columns, with "..." when cut, control characters as
 * '?'. */
static void fit(char *buf, size_t size, const char *s, size_t width)
{
        size_t len = strlen(s);

        if (len < size && tpa_report__columns(s, len) <= width) {
                snprintf(buf, size, "%s", s);
                tpa_report__plain(buf);
                return;
        }
        len = tpa_report__cut_columns(s, width - 3);
        if (len + 4 > size)
                len = tpa_utf8__cut(s, size - 4);
        snprintf(buf, size, "%.*s...", (int)len, s);
        tpa_report__plain(buf);
}

static void fmt_id(char *buf, size_t size, const tpa_trace *tr, tpa_id id)
{
        if (!tpa_id_is_number(id))
                snprintf(buf, size, "%s", id.str != TPA_STR_EMPTY ? tpa_trace_str(tr, id.str)
                                                                  : "\"\"");
        else
                snprintf(buf, size, "%" PRId64, id.num);
}

/* The label of a thread: its name, else its process's name (TF1 names
 * processes only), else "tid N". */
static void thread_label(char *buf, size_t size, const tpa_trace *tr, uint32_t t)
{
        const tpa_thread *th = tpa_trace_thread_c(tr, t);
        const tpa_process *pr = tpa_trace_process_c(tr, th->process);
        char id[64], full[256];

        if (th->name != TPA_STR_EMPTY) {
                snprintf(full, sizeof(full), "%s", tpa_trace_str(tr, th->name));
        } else {
                fmt_id(id, sizeof(id), tr, th->tid);
                if (pr->name != TPA_STR_EMPTY)
                        snprintf(full, sizeof(full), "%s, tid %s", tpa_trace_str(tr, pr->name),
                                 id);
                else
                        snprintf(full, sizeof(full), "tid %s", id);
        }
        fit(buf, size, full, NAME_WIDTH);
}

struct row {
        uint32_t thread;
        uint64_t events;
        char     label[NAME_WIDTH + 1];
};

static int row_cmp(const void *a, const void *b)
{
        const struct row *x = a, *y = b;

        if (x->events != y->events)
                return x->events > y->events ? -1 : 1;
        int c = strcmp(x->label, y->label);
        if (c != 0)
                return c;
        return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static const char *role_word(int role)
{
        switch (role) {
        case TPA_TRACK_STREAM:     return "stream";
        case TPA_TRACK_STEPS:      return "steps";
        case TPA_TRACK_ANNOTATION: return "view";
        case TPA_TRACK_HOST:       return "host";
        default:                   return "other";
        }
}

static void devices(FILE *fp, const tpa_trace *tr, const uint64_t *per_thread)
{
        size_t np = tpa_trace_process_count(tr), nt = tpa_trace_thread_count(tr);
        int32_t max_dev = -1;
        size_t ndev = 0;
        struct row *rows = calloc(nt + 1, sizeof(*rows));

        if (rows == NULL)
                return;
        for (uint32_t i = 0; i < np; i++) {
                const tpa_process *pr = tpa_trace_process_c(tr, i);
                if (pr->role == TPA_PROC_DEVICE && pr->device > max_dev)
                        max_dev = pr->device;
        }
        /* A device is an ordinal and labels: processes of one device share
         * both (TF1: one process per stream); a merged file's inputs differ
         * in labels (as lib/analysis groups them). */
        for (int32_t d = 0; d <= max_dev; d++) {
                for (uint32_t first = 0; first < np; first++) {
                        const tpa_process *head = tpa_trace_process_c(tr, first);
                        const char *pname = NULL, *plabel = NULL;
                        uint64_t events = 0;
                        size_t nrow = 0, streams = 0;
                        char name[NAME_WIDTH + 1];
                        bool seen = false;

                        if (head->role != TPA_PROC_DEVICE || head->device != d)
                                continue;
                        for (uint32_t i = 0; i < first && !seen; i++) {
                                const tpa_process *pr = tpa_trace_process_c(tr, i);
                                seen = pr->role == TPA_PROC_DEVICE && pr->device == d &&
                                       pr->label == head->label;
                        }
                        if (seen)
                                continue;       /* listed with the first of its processes */
                        for (uint32_t i = 0; i < np; i++) {
                                const tpa_process *pr = tpa_trace_process_c(tr, i);
                                if (pr->role != TPA_PROC_DEVICE || pr->device != d ||
                                    pr->label != head->label)
                                        continue;
                                if (pname == NULL && pr->name != TPA_STR_EMPTY)
                                        pname = tpa_trace_str(tr, pr->name);
                                if (plabel == NULL && pr->label != TPA_STR_EMPTY)
                                        plabel = tpa_trace_str(tr, pr->label);
                        }
                        for (uint32_t t = 0; t < nt; t++) {
                                const tpa_thread *th = tpa_trace_thread_c(tr, t);
                                const tpa_process *pr = tpa_trace_process_c(tr, th->process);
                                if (pr->role != TPA_PROC_DEVICE || pr->device != d ||
                                    pr->label != head->label)
                                        continue;
                                if (per_thread[t] == 0 && th->role != TPA_TRACK_STREAM)
                                        continue;
                                rows[nrow].thread = t;
                                rows[nrow].events = per_thread[t];
                                thread_label(rows[nrow].label, sizeof(rows[nrow].label), tr, t);
                                events += per_thread[t];
                                streams += th->role == TPA_TRACK_STREAM;
                                nrow++;
                        }
                        if (events == 0)
                                continue;       /* named (Kineto names every GPU) but idle */
                        if (ndev++ == 0)
                                fprintf(fp, "  devices:\n");
                        qsort(rows, nrow, sizeof(*rows), row_cmp);
                        /* TF1 names a process per stream: name the device by its busiest */
                        if (nrow > 0 &&
                            tpa_trace_thread_c(tr, rows[0].thread)->name == TPA_STR_EMPTY) {
                                const tpa_process *pr = tpa_trace_process_c(tr,
                                                tpa_trace_thread_c(tr, rows[0].thread)->process);
                                if (pr->name != TPA_STR_EMPTY)
                                        pname = tpa_trace_str(tr, pr->name);
                        }
                        fit(name, sizeof(name), pname != NULL ? pname : "", NAME_WIDTH - 16);
                        fprintf(fp, "    device %d: %s", d, name);
                        if (plabel != NULL) {
                                fputs(" [", fp);
                                tpa_report__put_plain(fp, plabel, strlen(plabel));
                                fputc(']', fp);
                        }
                        fprintf(fp, " (%zu stream%s, %" PRIu64 " events)\n", streams,
                                streams == 1 ? "" : "s", events);
                        for (size_t r = 0; r < nrow; r++) {
                                fprintf(fp, "      %-6s  ",
                                        role_word(tpa_trace_thread_c(tr, rows[r].thread)->role));
                                tpa_report__put_padded(fp, rows[r].label, NAME_WIDTH);
                                fprintf(fp, " %10" PRIu64 "\n", rows[r].events);
                        }
                }
        }
        if (ndev == 0)
                fprintf(fp, "  devices: none (no device streams in the trace)\n");
        free(rows);
}

static void host_threads(FILE *fp, const tpa_trace *tr, const uint64_t *per_thread)
{
        size_t nt = tpa_trace_thread_count(tr), nrow = 0, busy = 0;
        struct row *rows = calloc(nt + 1, sizeof(*rows));

        if (rows == NULL)
                return;
        for (uint32_t t = 0; t < nt; t++) {
                const tpa_thread *th = tpa_trace_thread_c(tr, t);
                if (th->role != TPA_TRACK_HOST)
                        continue;
                rows[nrow].thread = t;
                rows[nrow].events = per_thread[t];
                thread_label(rows[nrow].label, sizeof(rows[nrow].label), tr, t);
                busy += per_thread[t] != 0;
                nrow++;
        }
        fprintf(fp, "  host threads: %zu (%zu with events)\n", nrow, busy);
        qsort(rows, nrow, sizeof(*rows), row_cmp);
        for (size_t r = 0; r < nrow && r < HOST_THREADS_SHOWN && rows[r].events > 0; r++) {
                fputs("      thread  ", fp);
                tpa_report__put_padded(fp, rows[r].label, NAME_WIDTH);
                fprintf(fp, " %10" PRIu64 "\n", rows[r].events);
        }
        if (busy > HOST_THREADS_SHOWN)
                fprintf(fp, "      ... and %zu more\n", busy - HOST_THREADS_SHOWN);
        free(rows);
}

static void other_tracks(FILE *fp, const tpa_trace *tr, const uint64_t *per_thread)
{
        size_t nt = tpa_trace_thread_count(tr), n = 0;
        uint64_t events = 0;

        for (uint32_t t = 0; t < nt; t++) {
                const tpa_thread *th = tpa_trace_thread_c(tr, t);
                const tpa_process *pr = tpa_trace_process_c(tr, th->process);
                if (th->role == TPA_TRACK_HOST || pr->role == TPA_PROC_DEVICE ||
                    per_thread[t] == 0)
                        continue;
                n++;
                events += per_thread[t];
        }
        if (n > 0)
                fprintf(fp, "  other tracks: %zu (%" PRIu64 " events)\n", n, events);
}

static void health(FILE *fp, const tpa_trace *tr)
{
        const tpa_health *h = tpa_trace_health_c(tr);
        char line[512];
        size_t len = 0;
        uint64_t ignored = 0;

        fprintf(fp, "  parse health:\n");
        for (int c = 0; c < 128; c++) {
                if (h->by_phase[c] == 0)
                        continue;
                ignored += h->by_phase[c];
                if (len < sizeof(line) - 32)
                        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%c %" PRIu64,
                                                len == 0 ? "" : ", ", c, h->by_phase[c]);
        }
        if (ignored == 0)
                fprintf(fp, "    ignored by phase: none\n");
        else
                fprintf(fp, "    ignored by phase: %" PRIu64 " (%s)\n", ignored, line);
        if (h->unknown_phase != 0)
                fprintf(fp, "    unknown phases: %" PRIu64 " (counted above)\n", h->unknown_phase);
        fprintf(fp, "    unmatched B/E: %" PRIu64 " B closed at the trace end, %" PRIu64
                " E dropped\n", h->unmatched_begin, h->unmatched_end);
        fprintf(fp, "    duplicates dropped: %" PRIu64 "\n", h->duplicates_dropped);
        fprintf(fp, "    empty records: %" PRIu64 "\n", h->empty_records);
        if (h->truncated)
                fprintf(fp, "    truncated: yes, the input ends early at byte %" PRIu64
                        "; read what came before\n", h->truncated_at);
        else
                fprintf(fp, "    truncated: no\n");
        if (tpa_trace_warning_count(tr) != 0)
                fprintf(fp, "    warnings: %zu kinds (on stderr)\n", tpa_trace_warning_count(tr));
}

void tpa_report__input_summary(FILE *fp, const tpa_trace *tr, const tpa_analysis *an,
                               const char *path)
{
        const tpa_health *h = tpa_trace_health_c(tr);
        size_t n = tpa_trace_event_count(tr);
        tpa_report_census c;
        const uint64_t *by_kind = c.by_kind, *per_thread;
        char a[32], b[32];

        tpa_report__census(&c, tr, an);
        if ((per_thread = c.by_track) == NULL)
                return;
        tpa_report__put_plain(fp, path, strlen(path));
        fprintf(fp, ": %s, dialect %s\n", tpa_format_name(tpa_trace_format(tr)),
                tpa_dialect_name(tpa_trace_dialect(tr)));
        fprintf(fp, "  bytes: %" PRIu64 " read, %" PRIu64 " parsed\n", h->bytes_in,
                h->bytes_read);
        fprintf(fp, "  records: %" PRIu64 " (%zu events kept, %" PRIu64 " metadata)\n",
                h->records_read, n, h->metadata);
        if (c.span) {
                fmt_ns(a, sizeof(a), c.end - c.start);
                fmt_ns(b, sizeof(b), c.start);
                fprintf(fp, "  time span: %s (from %s)\n", a, b);
        } else {
                fprintf(fp, "  time span: none (no events)\n");
        }
        devices(fp, tr, per_thread);
        host_threads(fp, tr, per_thread);
        other_tracks(fp, tr, per_thread);
        fprintf(fp, "  events by kind:\n");
        for (int k = 0; k < TPA_KIND__COUNT; k++) {
                if (by_kind[k] == 0)
                        continue;
                uint64_t tenths = n ? (by_kind[k] * 1000 + n / 2) / n : 0;
                fprintf(fp, "    %-12s %10" PRIu64 "  %3" PRIu64 ".%" PRIu64 "%%\n",
                        tpa_kind_name((tpa_kind)k), by_kind[k], tenths / 10, tenths % 10);
        }
        if (n == 0)
                fprintf(fp, "    none\n");
        health(fp, tr);
        tpa_report__census_free(&c);
}
