/* SPDX-License-Identifier: MIT */
/*
 * report_text.c - the text report (doc/design.md 6): what was read, the steps
 * found and excluded, the verdict, the per-step table, top idle gaps,
 * copies, host gaps and top ops. Plain text, at most 100 columns, and
 * deterministic: it only formats what the analysis computed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpa/report.h"
#include "model/utf8.h"
#include "report_util.h"

/* "41.0 ms", "12.3 us", "1.25 s", "512 ns": as every report says it. */
#define fmt_time tpa_report__time

static const char *fmt_bytes(char *buf, size_t size, double b)
{
        if (b >= 1073741824.0)
                snprintf(buf, size, "%.1f GiB", b / 1073741824.0);
        else if (b >= 1048576.0)
                snprintf(buf, size, "%.1f MiB", b / 1048576.0);
        else if (b >= 1024.0)
                snprintf(buf, size, "%.1f KiB", b / 1024.0);
        else
                snprintf(buf, size, "%.0f B", b);
        return buf;
}

static double pct(double f)
{
        return f * 100.0;
}

/* Print at most `width` bytes of `s`, ending in "..." when cut (between
 * characters, not inside one), control characters as '?'. */
static void put_cut(FILE *fp, const char *s, size_t width)
{
        size_t n = strlen(s);

        if (n <= width) {
                tpa_report__put_plain(fp, s, n);
        } else {
                tpa_report__put_plain(fp, s, tpa_utf8__cut(s, width - 3));
                fputs("...", fp);
        }
}

/* End `line` in "..." when it is longer than 100 bytes, between
 * characters. */
static void cut_line(char *line)
{
        if (strlen(line) > 100)
                memcpy(line + tpa_utf8__cut(line, 97), "...", 4);
}

/* Print `s` word-wrapped to 100 columns; the cursor is at column `col`, and
 * continuation lines are indented by `indent`. A word longer than a line
 * (a long device name) is cut, with "..."; control characters (of names
 * in a note or a finding) are '?'. */
static void put_wrapped(FILE *fp, const char *s, size_t col, size_t indent)
{
        while (*s != '\0') {
                size_t word = strcspn(s, " "), shown = word, width = word;
                if (indent + word > 100) {
                        shown = tpa_utf8__cut(s, 100 - indent - 3);
                        width = shown + 3;
                }
                if (col > indent && col + 1 + width > 100) {
                        fprintf(fp, "\n%*s", (int)indent, "");
                        col = indent;
                } else if (col > indent) {
                        fputc(' ', fp);
                        col++;
                }
                tpa_report__put_plain(fp, s, shown);
                if (shown < word)
                        fputs("...", fp);
                col += width;
                s += word;
                while (*s == ' ')
                        s++;
        }
}

static double group_frac(const tpa_step *s, tpa_group g)
{
        double f = 0;
        for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                if (tpa_bucket_group((tpa_bucket)b) == g)
                        f += s->frac[b];
        return f;
}

static void section_steps(FILE *fp, const tpa_analysis *a)
{
        size_t excluded = a->step_count - a->kept_count;
        /* the source names what made the steps (a detected function,
         * --step-marker's pattern in the note): wrapped, not cut */
        size_t room = strlen(a->step_source) + 96;
        char *line = malloc(room);

        if (line != NULL) {
                snprintf(line, room, "steps: %zu found (%s), %zu kept, %zu excluded",
                         a->step_count, a->step_source, a->kept_count, excluded);
                fputc('\n', fp);
                put_wrapped(fp, line, 0, 4);
                fputc('\n', fp);
                free(line);
        } else {
                fprintf(fp, "\nsteps: %zu found (", a->step_count);
                tpa_report__put_plain(fp, a->step_source, strlen(a->step_source));
                fprintf(fp, "), %zu kept, %zu excluded\n", a->kept_count, excluded);
        }
        if (a->step_note[0] != '\0') {
                fprintf(fp, "  NOTE:");
                put_wrapped(fp, a->step_note, 7, 6);
                fprintf(fp, ".\n");
        }
        if (a->step_count == 0)
                fprintf(fp, "  NOTE: the trace has no timed events: nothing to analyse.\n");
        else if (a->no_markers)
                fprintf(fp, "  NOTE: no step markers found; the whole trace is one step. "
                        "Use --step-marker REGEX.\n");
        if (a->all_kept)
                fprintf(fp, "  NOTE: every step would be excluded as warm-up or cut off; "
                        "all are kept.\n");
        for (size_t i = 0; i < a->step_count; i++)
                if (a->steps[i].excluded) {
                        int col = fprintf(fp, "  step %" PRId64 " excluded:", a->steps[i].number);
                        put_wrapped(fp, a->steps[i].reason, col > 0 ? (size_t)col : 0, 4);
                        fputc('\n', fp);
                }
        if (a->cpu_only && a->unrecorded_launches > 0)
                fprintf(fp, "devices: none recorded: %zu kernel launch%s with no device "
                        "activity in the trace\n", a->unrecorded_launches,
                        a->unrecorded_launches == 1 ? "" : "es");
        else if (a->cpu_only)
                fprintf(fp, "devices: none (CPU-only trace: framework ops on host threads "
                        "count as compute)\n");
        else {
                /* every device named, however many (a merged job's) */
                size_t size = 1, len = 0;
                char *list;

                for (size_t d = 0; d < a->device_count; d++)
                        size += strlen(a->device_names[d]) + 2;
                fprintf(fp, "devices: %zu:", a->device_count);
                if ((list = malloc(size)) == NULL) {
                        fprintf(fp, " (no memory to name them)\n");
                        return;
                }
                for (size_t d = 0; d < a->device_count; d++)
                        len += (size_t)snprintf(list + len, size - len, "%s%s",
                                                d ? ", " : "", a->device_names[d]);
                put_wrapped(fp, list, 12, 4);
                free(list);
                if (a->device_count > 1)
                        put_wrapped(fp, "(figures are the mean over the devices that worked in each step)", 100, 4);
                fputc('\n', fp);
        }
}

static void section_verdict(FILE *fp, const tpa_analysis *a, bool color)
{
        char t1[32], t2[32], t3[32], t4[32];
        double host_input;
        static const struct { tpa_group g; const char *label; } rows[] = {
                { TPA_GROUP_COMPUTE, "compute" }, { TPA_GROUP_TRANSFER, "transfer" },
                { TPA_GROUP_SYNC, "sync" }, { TPA_GROUP_INPUT, "input" },
                { TPA_GROUP_HOST, "host" }, { TPA_GROUP_IDLE, "idle" },
        };
        char why[200];

        /* Colour (a tty, no NO_COLOR: the CLI decides) marks only the verdict
         * and severities; the words carry the meaning without it. */
        tpa_report__verdict_why(a, why, sizeof(why));
        fprintf(fp, "\nverdict: %s%s%s", color ? "\033[1m" : "", tpa_report__verdict(a),
                color ? "\033[0m" : "");
        put_wrapped(fp, why, strlen("verdict: ") + strlen(tpa_report__verdict(a)), 4);
        fputc('\n', fp);
        if (a->class_kinds > 0) {
                fprintf(fp, "  steps by class:");
                for (size_t i = 0; i < a->class_kinds; i++)
                        fprintf(fp, "%s %zu %s", i ? "," : "", a->classes[i].count,
                                a->classes[i].name);
                fputc('\n', fp);
        }
        fprintf(fp, "  step time: median %s, p90 %s, min %s, max %s\n",
                fmt_time(t1, sizeof(t1), (double)a->step_time_median),
                fmt_time(t2, sizeof(t2), (double)a->step_time_p90),
                fmt_time(t3, sizeof(t3), (double)a->step_time_min),
                fmt_time(t4, sizeof(t4), (double)a->step_time_max));
        if (!tpa_analysis_metric(a, -1, "input_host_frac", strlen("input_host_frac"),
                                 &host_input))
                host_input = 0;
        fprintf(fp, "  breakdown of kept step time:\n");
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                tpa_group g = rows[i].g;
                bool wrap;
                fprintf(fp, "    %-13s %5.1f%%", rows[i].label, pct(a->run_group_frac[g]));
                if (g == TPA_GROUP_TRANSFER)
                        fprintf(fp, "  (h2d %.1f%%, d2h %.1f%%, d2d %.1f%%, p2p %.1f%%)",
                                pct(a->run_frac[TPA_BUCKET_H2D]),
                                pct(a->run_frac[TPA_BUCKET_D2H]),
                                pct(a->run_frac[TPA_BUCKET_D2D]),
                                pct(a->run_frac[TPA_BUCKET_P2P]));
                else if (g == TPA_GROUP_SYNC)
                        fprintf(fp, "  (host wait %.1f%%, collective %.1f%%)",
                                pct(a->run_frac[TPA_BUCKET_SYNC_HOST_WAIT]),
                                pct(a->run_frac[TPA_BUCKET_SYNC_COLLECTIVE]));
                else if (g == TPA_GROUP_HOST)
                        fprintf(fp, "  (launch %.1f%%, setup %.1f%%, python %.1f%%, "
                                "CPU ops %.1f%%)",
                                pct(a->run_frac[TPA_BUCKET_HOST_LAUNCH]),
                                pct(a->run_frac[TPA_BUCKET_HOST_SETUP]),
                                pct(a->run_frac[TPA_BUCKET_HOST_PYTHON]),
                                pct(a->run_frac[TPA_BUCKET_HOST_COMPUTE]));
                /* Input work the device did not wait for is no bottleneck, but
                 * a user comparing with the loader's own share of the step
                 * needs both figures. */
                wrap = g == TPA_GROUP_TRANSFER || g == TPA_GROUP_SYNC || g == TPA_GROUP_HOST;
                if (g == TPA_GROUP_INPUT && host_input - a->run_group_frac[g] >= 0.0005) {
                        fprintf(fp, "  (host input work %.1f%%, the rest overlapped)",
                                pct(host_input));
                        wrap = true;
                }
                if (g != TPA_GROUP_COMPUTE && a->gain_frac[g] > 0.0005)
                        fprintf(fp, "%s  step time if hidden: %s",
                                wrap ? "\n                        " : "",
                                fmt_time(t1, sizeof(t1), (double)a->step_time_median *
                                         (1.0 - a->gain_frac[g])));
                fputc('\n', fp);
        }
        fprintf(fp, "  device busy   %5.1f%%  (compute, copies and collectives; %s)\n",
                pct(tpa_report__device_busy(a)),
                a->unrecorded_launches > 0 ? "host ops, the device unrecorded"
                : a->cpu_only ? "CPU-only: framework ops" : "the rest the device idles");
        if (a->finding_count > 0) {
                fprintf(fp, "  findings:\n");
                for (size_t i = 0; i < a->finding_count; i++) {
                        const tpa_finding *f = &a->findings[i];
                        static const char *const sev[] = { "info", "warning", "error" };
                        static const char *const hue[] = { "\033[36m", "\033[33m",
                                                           "\033[31m" };
                        unsigned k = f->severity <= 2 ? (unsigned)f->severity : 0;
                        char text[700];
                        int col = fprintf(fp, "    %s%-7s%s %s:", color ? hue[k] : "", sev[k],
                                          color ? "\033[0m" : "", f->name);

                        if (color)      /* the escapes take no columns */
                                col -= (int)(strlen(hue[k]) + strlen("\033[0m"));
                        if (f->gain_frac >= 0)
                                snprintf(text, sizeof(text), "%s (gain up to %.1f%%)", f->message,
                                         pct(f->gain_frac));
                        else
                                snprintf(text, sizeof(text), "%s", f->message);
                        put_wrapped(fp, text, (size_t)col, 12);
                        fputc('\n', fp);
                }
        }
}

static void section_table(FILE *fp, const tpa_analysis *a)
{
        fprintf(fp, "\nper step (%% of step time; * = excluded):\n");
        fprintf(fp, "  %8s %11s %7s %7s %7s %7s %7s %7s  %s\n", "step", "time ms",
                "compute", "transfr", "sync", "input", "host", "idle", "class");
        for (size_t i = 0; i < a->step_count; i++) {
                const tpa_step *s = &a->steps[i];
                char line[512];
                size_t n = (size_t)snprintf(line, sizeof(line), " %c%8" PRId64 " %11.3f",
                                            s->excluded ? '*' : ' ', s->number,
                                            (double)s->step_time / 1e6);
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        n += (size_t)snprintf(line + n, sizeof(line) - n, " %6.1f%%",
                                              pct(group_frac(s, (tpa_group)g)));
                n += (size_t)snprintf(line + n, sizeof(line) - n, "  %s",
                                      s->class_name != NULL ? s->class_name : "-");
                if (a->device_count > 1 && s->slowest_device >= 0)
                        snprintf(line + n, sizeof(line) - n, " (slowest %s)",
                                 a->device_names[s->slowest_device]);
                cut_line(tpa_report__plain(line));
                fprintf(fp, "%s\n", line);
        }
}

static void section_gaps(FILE *fp, const tpa_analysis *a)
{
        char t1[32], t2[32];

        fprintf(fp, "\ndevice idle gaps >= %s: %" PRIu64 " in kept steps, %s total\n",
                fmt_time(t1, sizeof(t1), (double)a->gap_min), a->gap_total_count,
                fmt_time(t2, sizeof(t2), (double)a->gap_total_ns));
        for (size_t i = 0; i < a->gap_count; i++) {
                const tpa_gap *g = &a->gaps[i];
                char line[512];
                size_t n = (size_t)snprintf(line, sizeof(line), "  %s at +%s, step %" PRId64
                                            "%s%s:", fmt_time(t1, sizeof(t1), (double)g->len),
                                            fmt_time(t2, sizeof(t2), (double)g->offset), g->step,
                                            g->device >= 0 && a->device_count > 1 ? " " : "",
                                            g->device >= 0 && a->device_count > 1
                                            ? a->device_names[g->device] : "");
                if (g->host_count == 0)
                        n += (size_t)snprintf(line + n, sizeof(line) - n, " no host event seen");
                for (size_t k = 0; k < g->host_count && n < sizeof(line); k++) {
                        const char *name = g->host[k].name;
                        bool cut = strlen(name) > 40;
                        n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%.*s%s %.0f%%",
                                              k ? ", " : " ",
                                              (int)(cut ? tpa_utf8__cut(name, 40) : 40),
                                              name, cut ? "..." : "", pct(g->host[k].frac));
                }
                cut_line(tpa_report__plain(line));
                fprintf(fp, "%s\n", line);
        }
}

static void section_copies(FILE *fp, const tpa_analysis *a)
{
        static const char *const dir[] = { "h2d", "d2h", "d2d", "p2p" };
        char t[32], b[32];
        bool any = false;

        for (int d = 0; d < 4; d++)
                any |= a->copies[d].count > 0;
        fprintf(fp, "\ncopies in kept steps:%s\n", any ? "" : " none");
        if (!any)
                return;
        fprintf(fp, "  %-4s %8s %11s %11s %9s %8s %7s\n", "dir", "count", "time", "bytes",
                "GB/s", "exposed", "small");
        for (int d = 0; d < 4; d++) {
                const tpa_copy_stats *c = &a->copies[d];
                if (c->count == 0)
                        continue;
                fprintf(fp, "  %-4s %8" PRIu64 " %11s %11s %9.2f %7.1f%% %7" PRIu64 "\n",
                        dir[d], c->count, fmt_time(t, sizeof(t), (double)c->time),
                        fmt_bytes(b, sizeof(b), (double)c->bytes), c->gbps,
                        pct(c->exposed_frac), c->small);
        }
}

static void section_host_gaps(FILE *fp, const tpa_analysis *a)
{
        char t1[32], t2[32], t3[32];

        fprintf(fp, "\nhost gaps > %s on the thread driving each step: %" PRIu64 "\n"
                "  %s (%.1f%% of kept step time), median %s, %.2f per ms\n",
                fmt_time(t1, sizeof(t1), (double)a->host_gap_min), a->host_gap_count,
                fmt_time(t2, sizeof(t2), (double)a->host_gap_ns), pct(a->host_gap_frac),
                fmt_time(t3, sizeof(t3), (double)a->host_gap_median), a->host_gap_per_ms);
}

/* Self time (nested ops subtracted: the column sums to at most 100%), then
 * total time, each with its share of the table's base. */
static void section_ops(FILE *fp, const char *title, const tpa_op_stat *ops, size_t n)
{
        char t1[32], t2[32];

        fprintf(fp, "\n%s:%s\n", title, n ? "" : " none");
        if (n > 0)
                fprintf(fp, "  %11s %7s %11s %7s %7s  %s\n", "self", "%", "total", "%",
                        "count", "op");
        for (size_t i = 0; i < n; i++) {
                fprintf(fp, "  %11s %6.1f%% %11s %6.1f%% %7" PRIu64 "  ",
                        fmt_time(t1, sizeof(t1), (double)ops[i].self), pct(ops[i].self_frac),
                        fmt_time(t2, sizeof(t2), (double)ops[i].time), pct(ops[i].frac),
                        ops[i].count);
                put_cut(fp, ops[i].name, 49);
                fputc('\n', fp);
        }
}

void tpa_report_text(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path)
{
        tpa_report_text_color(fp, tr, a, path, false);
}

void tpa_report_text_color(FILE *fp, const tpa_trace *tr, const tpa_analysis *a,
                           const char *path, bool color)
{
        /* the verdict first, what was read last (doc/design.md 6) */
        tpa_report__put_plain(fp, path, strlen(path));
        fprintf(fp, ": %s, dialect %s\n", tpa_format_name(tpa_trace_format(tr)),
                tpa_dialect_name(tpa_trace_dialect(tr)));
        if (a->step_count == 0) {
                char why[200];
                /* why there is none may be long: wrapped, as the notes */
                fputs("\nverdict: none", fp);
                put_wrapped(fp, tpa_report__verdict_why(a, why, sizeof(why)),
                            strlen("verdict: none"), 4);
                fputc('\n', fp);
                section_steps(fp, a);
                fputs("\nwhat was read:\n", fp);
                tpa_report__input_summary(fp, tr, a, path);
                return;
        }
        section_verdict(fp, a, color);
        section_steps(fp, a);
        section_table(fp, a);
        section_gaps(fp, a);
        section_copies(fp, a);
        section_host_gaps(fp, a);
        section_ops(fp, "top ops by device time", a->device_ops, a->device_op_count);
        if (!a->cpu_only)
                section_ops(fp, "top host ops by exposed time (device idle)", a->host_ops,
                            a->host_op_count);
        else if (a->host_op_count > 0)  /* input waits, runtime dispatch */
                section_ops(fp, "top host ops by exposed time (no op computing)", a->host_ops,
                            a->host_op_count);
        fputs("\nwhat was read:\n", fp);
        tpa_report__input_summary(fp, tr, a, path);
}

void tpa_report_text_aggregate(FILE *fp, const tpa_analysis *const *runs,
                               const char *const *paths, size_t n)
{
        char t[32];

        fprintf(fp, "\nall %zu inputs:\n", n);
        fprintf(fp, "  %-40s %6s %11s %7s %7s  %s\n", "input", "steps", "median", "input",
                "compute", "class");
        for (size_t i = 0; i < n; i++) {
                const tpa_analysis *a = runs[i];
                const char *p = paths[i];
                size_t cols = tpa_report__columns(p, strlen(p));
                fputs("  ", fp);
                if (cols > 40) {
                        /* the tail of 37 columns, from a character's first byte */
                        while (cols > 37) {
                                size_t k = 1;
                                while (((unsigned char)p[k] & 0xC0) == 0x80)
                                        k++;
                                cols -= tpa_report__columns(p, k);
                                p += k;
                        }
                        fputs("...", fp);
                        tpa_report__put_padded(fp, p, 37);
                } else {
                        tpa_report__put_padded(fp, p, 40);
                }
                fprintf(fp, " %6zu %11s %6.1f%% %6.1f%%  %s\n", a->kept_count,
                        fmt_time(t, sizeof(t), (double)a->step_time_median),
                        pct(a->run_group_frac[TPA_GROUP_INPUT]),
                        pct(a->run_group_frac[TPA_GROUP_COMPUTE]),
                        a->run_class != NULL ? a->run_class : "-");
        }
}
