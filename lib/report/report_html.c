/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - one self-contained HTML page (no scripts, no network):
 * the verdict and breakdown, step times as SVG bars stacked by bucket
 * group, and the timeline of the median kept step with the device streams
 * and the thread driving the step as lanes and device idle gaps marked.
 * The numbers come from the analysis; the timeline walks the trace's
 * events in that step's window, which is drawing, not analysis.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpa/report.h"
#include "model/utf8.h"
#include "report_util.h"

#define PAGE_W     1100
#define LABEL_W    190
#define LANE_H     22
#define LANES_MAX  16
#define BARS_H     170
#define EVENTS_MAX 20000        /* per lane; the rest are counted, not drawn */

static const char *const group_color[TPA_GROUP__COUNT] = {
        "#4caf50", "#2196f3", "#9c27b0", "#ff9800", "#f44336", "#bdbdbd",
};

/* The group an event's time goes to; framework ops are compute when the
 * trace has no device, host time otherwise (DESIGN.md 4). */
static tpa_group kind_group(unsigned kind, bool cpu_only)
{
        switch (kind) {
        case TPA_KIND_KERNEL: case TPA_KIND_MEMSET:     return TPA_GROUP_COMPUTE;
        case TPA_KIND_COPY_H2D: case TPA_KIND_COPY_D2H:
        case TPA_KIND_COPY_D2D: case TPA_KIND_COPY_P2P: return TPA_GROUP_TRANSFER;
        case TPA_KIND_COLLECTIVE: case TPA_KIND_SYNC:   return TPA_GROUP_SYNC;
        case TPA_KIND_INPUT:                            return TPA_GROUP_INPUT;
        case TPA_KIND_LAUNCH: case TPA_KIND_SETUP:      return TPA_GROUP_HOST;
        case TPA_KIND_HOST_OP:
                return cpu_only ? TPA_GROUP_COMPUTE : TPA_GROUP_HOST;
        }
        return TPA_GROUP_IDLE;
}

static bool is_device_kind(unsigned kind)
{
        return kind == TPA_KIND_KERNEL || kind == TPA_KIND_MEMSET ||
               kind == TPA_KIND_COLLECTIVE || tpa_kind_is_copy(kind);
}

static double step_group(const tpa_step *s, tpa_group g)
{
        double f = 0;

        for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                if (tpa_bucket_group((tpa_bucket)b) == g)
                        f += s->frac[b];
        return f;
}

/* The kept step whose time is nearest the median (the first on ties). */
static const tpa_step *median_step(const tpa_analysis *a)
{
        const tpa_step *best = NULL;
        tpa_ns best_d = 0;

        for (size_t i = 0; i < a->step_count; i++) {
                const tpa_step *s = &a->steps[i];
                tpa_ns d = s->step_time - a->step_time_median;
                if (s->excluded)
                        continue;
                if (d < 0)
                        d = -d;
                if (best == NULL || d < best_d) {
                        best = s;
                        best_d = d;
                }
        }
        return best;
}

static void lane_label(char *buf, size_t size, const tpa_trace *tr, uint32_t t)
{
        const tpa_thread *th = tpa_trace_thread_c(tr, t);
        const tpa_process *pr = tpa_trace_process_c(tr, th->process);
        const char *pn = tpa_trace_str(tr, pr->name), *tn = tpa_trace_str(tr, th->name);

        if (!tpa_id_is_number(th->tid))
                snprintf(buf, size, "%s %s", pn, tn[0] ? tn : tpa_trace_str(tr, th->tid.str));
        else if (tn[0])
                snprintf(buf, size, "%s %s", pn, tn);
        else
                snprintf(buf, size, "%s tid %" PRId64, pn, th->tid.num);
}

static void css(FILE *fp)
{
        fputs("<style>\n"
              "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}\n"
              "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}\n"
              "table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid "
              "#ddd;text-align:right}td:first-child,th:first-child{text-align:left}\n"
              ".sw{display:inline-block;width:10px;height:10px;margin-right:4px}\n"
              "svg text{font:11px sans-serif;fill:#333}.muted{color:#777}\n"
              ".note{background:#fff8e1;border-left:3px solid #ffb300;padding:4px 8px}\n"
              "</style>\n", fp);
}

static void legend(FILE *fp)
{
        fputs("<p>", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "<span class=\"sw\" style=\"background:%s\"></span>%s &nbsp; ",
                        group_color[g], tpa_group_name((tpa_group)g));
        fputs("<span class=\"sw\" style=\"background:rgba(229,57,53,.25);outline:1px solid "
              "#e53935\"></span>device idle gap</p>\n", fp);
}

static void summary(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path)
{
        char t1[32], t2[32];

        fputs("<h1>tfprof-analyze: ", fp);
        tpa_report__html_escape(fp, tpa_report__verdict(a));
        fputs("</h1>\n<p class=\"muted\">", fp);
        tpa_report__html_escape(fp, path);
        fprintf(fp, " &middot; %s, %s &middot; median step %s, p90 %s &middot; %zu kept of "
                "%zu steps</p>\n", tpa_format_name(tpa_trace_format(tr)),
                tpa_dialect_name(tpa_trace_dialect(tr)),
                tpa_report__time(t1, sizeof(t1), (double)a->step_time_median),
                tpa_report__time(t2, sizeof(t2), (double)a->step_time_p90), a->kept_count,
                a->step_count);
        if (a->no_markers)
                fputs("<p class=\"note\">no step markers found: the whole trace is one step "
                      "(use --step-marker REGEX)</p>\n", fp);
        if (tpa_trace_health_c(tr)->truncated)
                fprintf(fp, "<p class=\"note\">the trace is truncated at byte %" PRIu64
                        "; this report covers what was read</p>\n",
                        tpa_trace_health_c(tr)->truncated_at);
        for (size_t i = 0; i < tpa_trace_warning_count(tr); i++) {
                fputs("<p class=\"note\">warning: ", fp);
                tpa_report__html_escape(fp, tpa_trace_warning(tr, i)->msg);
                if (tpa_trace_warning(tr, i)->count > 1)
                        fprintf(fp, " (%" PRIu64 " times)", tpa_trace_warning(tr, i)->count);
                fputs("</p>\n", fp);
                if (i == 4)
                        break;
        }
}

static void tables(FILE *fp, const tpa_analysis *a)
{
        static const char *const sev[] = { "info", "warning", "error" };
        char t1[32];

        fputs("<h2>Breakdown of kept step time</h2>\n<table id=\"breakdown\"><tr><th>bucket</th>"
              "<th>share</th>"
              "<th>step time if hidden</th></tr>\n", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                fprintf(fp, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
                        "<td>%.1f%%</td><td>", group_color[g], tpa_group_name((tpa_group)g),
                        a->run_group_frac[g] * 100);
                if (g != TPA_GROUP_COMPUTE && a->gain_frac[g] > 0.0005)
                        fputs(tpa_report__time(t1, sizeof(t1), (double)a->step_time_median *
                                               (1.0 - a->gain_frac[g])), fp);
                fputs("</td></tr>\n", fp);
        }
        fputs("</table>\n", fp);
        if (a->finding_count > 0) {
                fputs("<h2>Findings</h2>\n<ul id=\"findings\">\n", fp);
                for (size_t i = 0; i < a->finding_count; i++) {
                        const tpa_finding *f = &a->findings[i];
                        fprintf(fp, "<li><b>%s</b> ", sev[f->severity <= 2 ? f->severity : 0]);
                        tpa_report__html_escape(fp, f->name);
                        fputs(": ", fp);
                        tpa_report__html_escape(fp, f->message);
                        if (f->gain_frac >= 0)
                                fprintf(fp, " <i>(gain up to %.1f%%)</i>", f->gain_frac * 100);
                        fputs("</li>\n", fp);
                }
                fputs("</ul>\n", fp);
        }
}

/* Step times as bars, each kept step stacked by group; excluded steps as
 * one grey outline. */
static void bars(FILE *fp, const tpa_analysis *a)
{
        const double x0 = 60, w = PAGE_W - x0 - 10, h = BARS_H, top = 10;
        double slot, bw, max = 0;
        char t[32];

        for (size_t i = 0; i < a->step_count; i++)
                if ((double)a->steps[i].step_time > max)
                        max = (double)a->steps[i].step_time;
        if (max <= 0)
                max = 1;
        slot = a->step_count ? w / (double)a->step_count : w;
        bw = slot * 0.8 > 1 ? slot * 0.8 : 1;
        fputs("<h2>Step time by bucket</h2>\n", fp);
        legend(fp);
        fprintf(fp, "<svg id=\"steps\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\">\n", PAGE_W, BARS_H + 40, PAGE_W,
                BARS_H + 40);
        for (int k = 0; k <= 4; k++) {
                double y = top + h - h * k / 4.0;
                fprintf(fp, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                        "stroke=\"#eee\"/><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">"
                        "%s</text>\n", x0, y, PAGE_W - 10, y, x0 - 4, y + 4,
                        tpa_report__time(t, sizeof(t), max * k / 4.0));
        }
        for (size_t i = 0; i < a->step_count; i++) {
                const tpa_step *s = &a->steps[i];
                double x = x0 + slot * (double)i + (slot - bw) / 2;
                double full = h * (double)s->step_time / max, y = top + h;
                if (s->excluded) {
                        fprintf(fp, "<rect class=\"bar-excluded\" x=\"%.2f\" y=\"%.2f\" "
                                "width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#999\" "
                                "stroke-dasharray=\"3 2\"><title>step %" PRId64 " excluded: ",
                                x, y - full, bw, full, s->number);
                        tpa_report__html_escape(fp, s->reason);
                        fputs("</title></rect>\n", fp);
                        continue;
                }
                for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                        double f = step_group(s, (tpa_group)g), bh = full * f;
                        y -= bh;
                        fprintf(fp, "<rect class=\"bar g-%s\" data-step=\"%" PRId64 "\" "
                                "x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                                "fill=\"%s\"><title>step %" PRId64 ": %s %.1f%% of %s"
                                "</title></rect>\n", tpa_group_name((tpa_group)g), s->number,
                                x, y, bw, bh, group_color[g], s->number,
                                tpa_group_name((tpa_group)g), f * 100,
                                tpa_report__time(t, sizeof(t), (double)s->step_time));
                }
        }
        if (a->step_count <= 40)
                for (size_t i = 0; i < a->step_count; i++)
                        fprintf(fp, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%"
                                PRId64 "</text>\n", x0 + slot * ((double)i + 0.5), BARS_H + 28,
                                a->steps[i].number);
        fputs("</svg>\n", fp);
}

typedef struct lane {
        uint32_t track;
        bool     device;
        uint64_t drawn, skipped;
} lane;

static int cmp_u32(const void *pa, const void *pb)
{
        uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
        return (x > y) - (x < y);
}

typedef struct ivl {
        tpa_ns s, e;
} ivl;

static int cmp_ivl(const void *pa, const void *pb)
{
        const ivl *x = pa, *y = pb;
        if (x->s != y->s)
                return x->s < y->s ? -1 : 1;
        return (x->e > y->e) - (x->e < y->e);
}

static int timeline(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, tpa_error *err)
{
        const tpa_step *s = median_step(a);
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), nthreads = tpa_trace_thread_count(tr);
        uint32_t *streams = NULL;
        size_t nstreams = 0, nlanes = 0, nbusy = 0;
        lane lanes[LANES_MAX];
        ivl *busy = NULL;
        double x0 = LABEL_W, w = PAGE_W - LABEL_W - 10, scale;
        char t[32], label[160];
        int height;

        fputs("<h2>Timeline of the median step</h2>\n", fp);
        if (s == NULL || s->step_time <= 0) {
                fputs("<p>no kept step to draw</p>\n", fp);
                return 0;
        }
        /* Lanes: device streams with work in the window, then the driving
         * thread (for a CPU-only trace, also the busiest other threads). */
        streams = calloc(nthreads + 1, sizeof(*streams));
        busy = malloc((n + 1) * sizeof(*busy));
        if (streams == NULL || busy == NULL) {
                free(streams);
                free(busy);
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
                const tpa_event *e = &ev[i];
                if (!is_device_kind(e->kind) || e->ts >= s->end || e->ts + e->dur <= s->start)
                        continue;
                busy[nbusy++] = (ivl){ e->ts, e->ts + e->dur };
                if (tpa_trace_thread_c(tr, e->track)->role != TPA_TRACK_STREAM)
                        continue;
                size_t k;
                for (k = 0; k < nstreams && streams[k] != e->track; k++)
                        ;
                if (k == nstreams)
                        streams[nstreams++] = e->track;
        }
        qsort(streams, nstreams, sizeof(*streams), cmp_u32);
        for (size_t k = 0; k < nstreams && nlanes < LANES_MAX - 1; k++)
                lanes[nlanes++] = (lane){ .track = streams[k], .device = true };
        if (s->driver_track != UINT32_MAX && s->driver_track < nthreads)
                lanes[nlanes++] = (lane){ .track = s->driver_track };
        free(streams);

        scale = w / (double)s->step_time;
        height = 30 + (int)nlanes * LANE_H + 20;
        fprintf(fp, "<p class=\"muted\">step %" PRId64 ", %s, %zu lane%s</p>\n", s->number,
                tpa_report__time(t, sizeof(t), (double)s->step_time), nlanes,
                nlanes == 1 ? "" : "s");
        fprintf(fp, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\">\n", PAGE_W, height, PAGE_W, height);
        for (int k = 0; k <= 4; k++) {
                double x = x0 + w * k / 4.0;
                fprintf(fp, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                        "<text x=\"%.1f\" y=\"14\" text-anchor=\"%s\">+%s</text>\n", x, x,
                        height - 20, x, k == 4 ? "end" : k == 0 ? "start" : "middle",
                        tpa_report__time(t, sizeof(t),
                                                         (double)s->step_time * k / 4.0));
        }
        for (size_t l = 0; l < nlanes; l++) {
                double y = 24 + (double)l * LANE_H;
                lane_label(label, sizeof(label), tr, lanes[l].track);
                tpa_utf8__trim(label);
                fprintf(fp, "<g class=\"lane %s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"%d\" fill=\"#fafafa\" stroke=\"#eee\"/>"
                        "<text x=\"4\" y=\"%.1f\">%s ", lanes[l].device ? "lane-device"
                        : "lane-host", x0, y, w, LANE_H - 4, y + 13,
                        lanes[l].device ? "&#9632;" : "&#9675;");
                if (strlen(label) > 28)
                        strcpy(label + tpa_utf8__cut(label, 25), "...");
                tpa_report__html_escape(fp, label);
                fputs("</text></g>\n", fp);
        }
        /* Events, longest first so short ones stay visible on top. Two
         * passes (long, then short) keep this without a sort. */
        for (int pass = 0; pass < 2; pass++) {
                for (size_t i = 0; i < n; i++) {
                        const tpa_event *e = &ev[i];
                        tpa_ns a0, a1;
                        double x, ew;
                        size_t l;

                        if (e->ts >= s->end || e->ts + e->dur <= s->start ||
                            e->kind == TPA_KIND_ANNOTATION || e->kind == TPA_KIND_STEP ||
                            e->dur <= 0)
                                continue;
                        for (l = 0; l < nlanes && lanes[l].track != e->track; l++)
                                ;
                        if (l == nlanes)
                                continue;
                        if ((pass == 0) != (e->dur * 50 >= s->step_time))
                                continue;
                        a0 = e->ts > s->start ? e->ts : s->start;
                        a1 = e->ts + e->dur < s->end ? e->ts + e->dur : s->end;
                        x = x0 + (double)(a0 - s->start) * scale;
                        ew = (double)(a1 - a0) * scale;
                        if (lanes[l].drawn >= EVENTS_MAX) {
                                lanes[l].skipped++;
                                continue;
                        }
                        lanes[l].drawn++;
                        fprintf(fp, "<rect class=\"ev\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                                "height=\"%d\" fill=\"%s\" fill-opacity=\"0.85\"><title>",
                                x, 24 + (double)l * LANE_H + 2, ew < 0.5 ? 0.5 : ew,
                                LANE_H - 8, group_color[kind_group(e->kind, a->cpu_only)]);
                        tpa_report__html_escape(fp, tpa_trace_str(tr, e->name));
                        fprintf(fp, " (%s)</title></rect>\n",
                                tpa_report__time(t, sizeof(t), (double)e->dur));
                }
        }
        /* Device idle gaps: holes in the union of device work, at least
         * gap.min long, across the device lanes. */
        if (nbusy > 0 && nstreams > 0) {
                tpa_ns cur = s->start;
                size_t ndev = nstreams < LANES_MAX - 1 ? nstreams : LANES_MAX - 1;
                qsort(busy, nbusy, sizeof(*busy), cmp_ivl);
                for (size_t i = 0; i <= nbusy; i++) {
                        tpa_ns gs = cur, ge = i < nbusy ? busy[i].s : s->end;
                        if (ge > s->end)
                                ge = s->end;
                        /* Outlined only when wide enough not to hide the
                         * kernels around it. */
                        double gx = x0 + (double)(gs - s->start) * scale;
                        double gw = (double)(ge - gs) * scale;
                        if (ge - gs >= a->gap_min && ge > gs)
                                fprintf(fp, "<rect class=\"gap\" x=\"%.2f\" y=\"22\" "
                                        "width=\"%.2f\" height=\"%.1f\" fill=\"#e53935\" "
                                        "fill-opacity=\"0.25\"%s><title>device idle %s"
                                        "</title></rect>\n", gx, gw < 0.5 ? 0.5 : gw,
                                        (double)ndev * LANE_H,
                                        gw >= 4 ? " stroke=\"#e53935\"" : "",
                                        tpa_report__time(t, sizeof(t), (double)(ge - gs)));
                        if (i < nbusy && busy[i].e > cur)
                                cur = busy[i].e;
                }
        }
        fputs("</svg>\n", fp);
        for (size_t l = 0; l < nlanes; l++)
                if (lanes[l].skipped > 0)
                        fprintf(fp, "<p class=\"muted\">lane %zu: %" PRIu64 " more events not "
                                "drawn</p>\n", l + 1, lanes[l].skipped);
        free(busy);
        return 0;
}

int tpa_report_html(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path,
                    tpa_error *err)
{
        int rc;

        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<title>tfprof-analyze: ", fp);
        tpa_report__html_escape(fp, path);
        fputs("</title>\n", fp);
        css(fp);
        fputs("</head><body>\n", fp);
        summary(fp, tr, a, path);
        bars(fp, a);
        rc = timeline(fp, tr, a, err);
        tables(fp, a);
        fprintf(fp, "<p class=\"muted\">tfprof-analyze %s</p>\n</body></html>\n", tpa_version());
        return rc;
}
