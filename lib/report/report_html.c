/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - one self-contained HTML page (no scripts, no network)
 * that follows the window's width: the verdict, breakdown and findings,
 * step times as SVG bars stacked by bucket group, the timeline of the
 * median kept step (its partition, the device streams, the threads driving
 * the step and running the input pipeline, device idle gaps), then the
 * text report's tables: per step, idle gaps, copies, top ops. The numbers
 * come from the analysis; the timeline walks the trace's events in that
 * step's window, which is drawing, not analysis.
 */
#include <inttypes.h>
#include <math.h>
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
#define BUCKET_LANES_MAX 4      /* the partition of this many devices */
#define INPUT_LANES_MAX  2      /* input-pipeline threads drawn */
#define BARS_H     170
#define STEPS_SHOWN 100         /* rows of the per-step table */
#define EVENTS_MAX 20000        /* per lane; the rest are counted, not drawn */

static const char *const group_color[TPA_GROUP__COUNT] = {
        "#4caf50", "#2196f3", "#9c27b0", "#ff9800", "#f44336", "#bdbdbd",
};

/* The group an event's time goes to; framework ops are compute when the
 * trace has no device, host time otherwise (doc/design.md 4). */
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
              "#ddd;text-align:right}td:first-child,th:first-child,.txt{text-align:left}\n"
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

/* The per-step table: time, the share of each group, the class or why
 * the step was excluded. */
static void step_table(FILE *fp, const tpa_analysis *a)
{
        fputs("<h2>Per step</h2>\n<table id=\"per-step\"><tr><th>step</th><th>time</th>", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "<th>%s</th>", tpa_group_name((tpa_group)g));
        fputs("<th class=\"txt\">class</th></tr>\n", fp);
        for (size_t i = 0; i < a->step_count && i < STEPS_SHOWN; i++) {
                const tpa_step *s = &a->steps[i];
                char t[32];
                fprintf(fp, "<tr%s><td>%" PRId64 "</td><td>%s</td>",
                        s->excluded ? " class=\"muted\"" : "", s->number,
                        tpa_report__time(t, sizeof(t), (double)s->step_time));
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        fprintf(fp, "<td>%.1f%%</td>",
                                tpa_report__step_group(s, (tpa_group)g) * 100);
                fputs("<td class=\"txt\">", fp);
                if (s->excluded) {
                        fputs("excluded: ", fp);
                        tpa_report__html_escape(fp, s->reason);
                } else {
                        tpa_report__html_escape(fp, s->class_name ? s->class_name : "-");
                }
                fputs("</td></tr>\n", fp);
        }
        fputs("</table>\n", fp);
        if (a->step_count > STEPS_SHOWN)
                fprintf(fp, "<p class=\"muted\">and %zu more steps (all are in --format "
                        "json)</p>\n", a->step_count - STEPS_SHOWN);
}

/* The top device idle gaps, each with the host events that overlapped it. */
static void gap_table(FILE *fp, const tpa_analysis *a)
{
        char t1[32], t2[32];

        fprintf(fp, "<h2>Device idle gaps</h2>\n<p>%" PRIu64 " gaps of at least %s in kept "
                "steps, %s in all</p>\n", a->gap_total_count,
                tpa_report__time(t1, sizeof(t1), (double)a->gap_min),
                tpa_report__time(t2, sizeof(t2), (double)a->gap_total_ns));
        if (a->gap_count == 0)
                return;
        fputs("<table id=\"gaps\"><tr><th>length</th><th>step</th><th>at</th>"
              "<th class=\"txt\">host events during the gap</th></tr>\n", fp);
        for (size_t i = 0; i < a->gap_count; i++) {
                const tpa_gap *g = &a->gaps[i];
                fprintf(fp, "<tr><td>%s</td><td>%" PRId64 "</td><td>+%s</td><td class=\"txt\">",
                        tpa_report__time(t1, sizeof(t1), (double)g->len), g->step,
                        tpa_report__time(t2, sizeof(t2), (double)g->offset));
                if (g->device >= 0 && a->device_count > 1) {
                        tpa_report__html_escape(fp, a->device_names[g->device]);
                        fputs(": ", fp);
                }
                if (g->host_count == 0)
                        fputs("no host event seen", fp);
                for (size_t k = 0; k < g->host_count; k++) {
                        fputs(k ? ", " : "", fp);
                        tpa_report__html_escape(fp, g->host[k].name);
                        fprintf(fp, " %.0f%%", g->host[k].frac * 100);
                }
                fputs("</td></tr>\n", fp);
        }
        fputs("</table>\n", fp);
}

static void copy_table(FILE *fp, const tpa_analysis *a)
{
        static const char *const dir[] = { "h2d", "d2h", "d2d", "p2p" };
        bool any = false;
        char t[32];

        for (int d = 0; d < 4; d++)
                any |= a->copies[d].count > 0;
        fputs("<h2>Copies</h2>\n", fp);
        if (!any) {
                fputs("<p>none in kept steps</p>\n", fp);
                return;
        }
        fputs("<table id=\"copies\"><tr><th>direction</th><th>count</th><th>time</th>"
              "<th>bytes</th><th>GB/s</th><th>exposed</th><th>small</th></tr>\n", fp);
        for (int d = 0; d < 4; d++) {
                const tpa_copy_stats *c = &a->copies[d];
                if (c->count == 0)
                        continue;
                fprintf(fp, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%s</td><td>%.1f MB</td>"
                        "<td>%.2f</td><td>%.1f%%</td><td>%" PRIu64 "</td></tr>\n", dir[d],
                        c->count, tpa_report__time(t, sizeof(t), (double)c->time),
                        (double)c->bytes / 1e6, c->gbps, c->exposed_frac * 100, c->small);
        }
        fputs("</table>\n", fp);
}

static void op_table(FILE *fp, const char *id, const char *title, const tpa_op_stat *ops,
                     size_t n)
{
        char t[32];

        fprintf(fp, "<h2>%s</h2>\n", title);
        if (n == 0) {
                fputs("<p>none</p>\n", fp);
                return;
        }
        fprintf(fp, "<table id=\"%s\"><tr><th>op</th><th>time</th><th>share</th>"
                "<th>count</th></tr>\n", id);
        for (size_t i = 0; i < n; i++) {
                fputs("<tr><td>", fp);
                tpa_report__html_escape(fp, ops[i].name);
                fprintf(fp, "</td><td>%s</td><td>%.1f%%</td><td>%" PRIu64 "</td></tr>\n",
                        tpa_report__time(t, sizeof(t), (double)ops[i].time),
                        ops[i].frac * 100, ops[i].count);
        }
        fputs("</table>\n", fp);
}

/* What the text report shows after the verdict, in its order (doc/design.md 6). */
static void evidence(FILE *fp, const tpa_analysis *a)
{
        step_table(fp, a);
        gap_table(fp, a);
        copy_table(fp, a);
        op_table(fp, "device-ops", "Top ops by device time", a->device_ops,
                 a->device_op_count);
        if (!a->cpu_only || a->host_op_count > 0)
                op_table(fp, "host-ops", a->cpu_only ? "Top host ops by exposed time (no op "
                         "computing)" : "Top host ops by exposed time (device idle)",
                         a->host_ops, a->host_op_count);
}

/* Axis ticks at 1, 2 or 5 times a power of ten, at least `want` of them
 * over [0, max] ns, and the unit of their labels: the largest whose tick
 * step is a whole number of it. */
typedef struct ticks {
        double      step, unit;
        const char *unit_name;
} ticks;

static ticks nice_ticks(double max, int want)
{
        static const struct { double ns; const char *name; } units[] = {
                { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
        };
        double raw = (max > 1 ? max : 1) / want, p = pow(10, floor(log10(raw)));
        double m = raw / p;
        ticks t = { .step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p };
        size_t u = 0;

        while (u + 1 < sizeof(units) / sizeof(units[0]) && t.step < units[u].ns)
                u++;
        t.unit = units[u].ns;
        t.unit_name = units[u].name;
        return t;
}

/* "20 ms": the tick k, in the axis' unit. */
static const char *tick_label(char *buf, size_t size, const ticks *t, int k)
{
        snprintf(buf, size, "%.0f %s", k * t->step / t->unit, t->unit_name);
        return buf;
}

/* Step times as bars, each kept step stacked by group; excluded steps as
 * one grey outline. The axis runs to the tick above the slowest step. */
static void bars(FILE *fp, const tpa_analysis *a)
{
        const double x0 = 60, w = PAGE_W - x0 - 10, h = BARS_H, top = 24;
        double slot, bw, max = 0;
        ticks tk;
        int nticks;
        char t[32];

        for (size_t i = 0; i < a->step_count; i++)
                if ((double)a->steps[i].step_time > max)
                        max = (double)a->steps[i].step_time;
        tk = nice_ticks(max, 4);
        nticks = max > 0 ? (int)ceil(max / tk.step - 1e-9) : 1;
        max = nticks * tk.step;
        slot = a->step_count ? w / (double)a->step_count : w;
        bw = slot * 0.8 > 1 ? slot * 0.8 : 1;
        fputs("<h2>Step time by bucket</h2>\n", fp);
        legend(fp);
        fprintf(fp, "<svg id=\"steps\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" "
                "viewBox=\"0 0 %d %d\">\n<text x=\"4\" y=\"12\">step time</text>\n"
                "<text x=\"%.0f\" y=\"%d\">step</text>\n", PAGE_W, BARS_H + 54, x0 - 30,
                BARS_H + 52);
        for (int k = 0; k <= nticks; k++) {
                double y = top + h - h * k / nticks;
                fprintf(fp, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                        "stroke=\"#eee\"/><text class=\"tick\" x=\"%.0f\" y=\"%.1f\" "
                        "text-anchor=\"end\">%s</text>\n", x0, y, PAGE_W - 10, y, x0 - 4, y + 4,
                        tick_label(t, sizeof(t), &tk, k));
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
                        double f = tpa_report__step_group(s, (tpa_group)g), bh = full * f;
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
                                PRId64 "</text>\n", x0 + slot * ((double)i + 0.5), BARS_H + 40,
                                a->steps[i].number);
        fputs("</svg>\n", fp);
}

typedef enum lane_kind { LANE_BUCKETS, LANE_DEVICE, LANE_HOST } lane_kind;

typedef struct lane {
        lane_kind kind;
        uint32_t  track;        /* LANE_DEVICE, LANE_HOST */
        int       device;       /* LANE_BUCKETS */
        uint64_t  drawn, skipped;
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

/* The timeline's geometry: x of a time in the step, y of a lane. */
typedef struct frame {
        const tpa_step *s;
        double          x0, scale;
} frame;

static double lane_y(size_t l)
{
        return 24 + (double)l * LANE_H;
}

/* One coloured piece of a lane, [t0, t1) of the step, its group named in
 * the rect so that tests (and readers of the SVG) see what it shows. */
static void piece(FILE *fp, const frame *f, size_t l, const char *cls, tpa_ns t0, tpa_ns t1,
                  tpa_group g, const char *name, tpa_ns dur)
{
        double x = f->x0 + (double)(t0 - f->s->start) * f->scale;
        double w = (double)(t1 - t0) * f->scale;
        char t[32];

        fprintf(fp, "<rect class=\"%s g-%s\" data-group=\"%s\" x=\"%.2f\" y=\"%.1f\" "
                "width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", cls,
                tpa_group_name(g), tpa_group_name(g), x, lane_y(l) + 2, w < 0.5 ? 0.5 : w,
                LANE_H - 8, group_color[g]);
        if (name != NULL) {
                tpa_report__html_escape(fp, name);
                fprintf(fp, " (%s): ", tpa_report__time(t, sizeof(t), (double)dur));
        }
        fprintf(fp, "%s %s</title></rect>\n", tpa_group_name(g),
                tpa_report__time(t, sizeof(t), (double)(t1 - t0)));
}

/* The first of the n spans (one device's, in time order) that ends after t. */
static size_t span_at(const tpa_span *v, size_t n, tpa_ns t)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (v[mid].end <= t)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* The spans of device d in step s, in time order; *n of them. */
static const tpa_span *device_spans(const tpa_step *s, int d, size_t *n)
{
        size_t i = 0, k;

        while (i < s->span_count && s->spans[i].device != d)
                i++;
        for (k = i; k < s->span_count && s->spans[k].device == d; k++)
                ;
        *n = k - i;
        return s->spans + i;
}

static void lane_name(char *buf, size_t size, const tpa_analysis *a, const tpa_trace *tr,
                      const lane *l)
{
        if (l->kind != LANE_BUCKETS)
                lane_label(buf, size, tr, l->track);
        else if (a->device_count > 1 && (size_t)l->device < a->device_count)
                snprintf(buf, size, "buckets, %s", a->device_names[l->device]);
        else
                snprintf(buf, size, "step time by bucket");
        tpa_utf8__trim(buf);
        if (strlen(buf) > 28)
                strcpy(buf + tpa_utf8__cut(buf, 25), "...");
}

/*
 * The median kept step, lane by lane: first the partition itself (each
 * device's, as the analysis kept it), so its colours are the breakdown's;
 * then the device streams with work in the window, their events coloured
 * by what they are; then the thread driving the step and the threads of
 * the input pipeline, their events coloured by the bucket each moment of
 * them went to (a host op that waits for input is input, one that runs
 * beside a kernel is compute). Without kept spans, host events are
 * coloured by their kind.
 */
static int timeline(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, tpa_error *err)
{
        const tpa_step *s = median_step(a);
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), nthreads = tpa_trace_thread_count(tr);
        size_t nstreams = 0, nlanes = 0, nbusy = 0, first_stream, stream_lanes, nhost_spans;
        uint32_t *streams = NULL;
        tpa_ns *input_ns = NULL;
        ivl *busy = NULL;
        const tpa_span *host_spans;
        lane lanes[LANES_MAX];
        char t[32], label[160];
        frame f;
        ticks tk;
        int height;

        fputs("<h2>Timeline of the median step</h2>\n", fp);
        if (s == NULL || s->step_time <= 0) {
                fputs("<p>no kept step to draw</p>\n", fp);
                return 0;
        }
        streams = calloc(nthreads + 1, sizeof(*streams));
        input_ns = calloc(nthreads + 1, sizeof(*input_ns));
        busy = malloc((n + 1) * sizeof(*busy));
        if (streams == NULL || input_ns == NULL || busy == NULL) {
                free(streams);
                free(input_ns);
                free(busy);
                return tpa_error_oom(err);
        }
        for (size_t i = 0; i < n; i++) {
                const tpa_event *e = &ev[i];
                size_t k;
                if (e->ts >= s->end || e->ts + e->dur <= s->start)
                        continue;
                if (e->kind == TPA_KIND_INPUT && e->track < nthreads)
                        input_ns[e->track] += (e->ts + e->dur < s->end ? e->ts + e->dur : s->end) -
                                              (e->ts > s->start ? e->ts : s->start);
                if (!is_device_kind(e->kind))
                        continue;
                busy[nbusy++] = (ivl){ e->ts, e->ts + e->dur };
                if (tpa_trace_thread_c(tr, e->track)->role != TPA_TRACK_STREAM)
                        continue;
                for (k = 0; k < nstreams && streams[k] != e->track; k++)
                        ;
                if (k == nstreams)
                        streams[nstreams++] = e->track;
        }
        qsort(streams, nstreams, sizeof(*streams), cmp_u32);
        for (size_t i = 0; i < s->span_count && nlanes < BUCKET_LANES_MAX; i++)
                if (i == 0 || s->spans[i].device != s->spans[i - 1].device)
                        lanes[nlanes++] = (lane){ .kind = LANE_BUCKETS,
                                                  .device = s->spans[i].device };
        first_stream = nlanes;
        for (size_t k = 0; k < nstreams && nlanes < LANES_MAX - 1 - INPUT_LANES_MAX; k++)
                lanes[nlanes++] = (lane){ .kind = LANE_DEVICE, .track = streams[k] };
        stream_lanes = nlanes - first_stream;
        if (s->driver_track < nthreads)
                lanes[nlanes++] = (lane){ .kind = LANE_HOST, .track = s->driver_track };
        for (int k = 0; k < INPUT_LANES_MAX; k++) {
                uint32_t best = UINT32_MAX;
                for (uint32_t th = 0; th < nthreads; th++)
                        if (th != s->driver_track && input_ns[th] > 0 &&
                            (best == UINT32_MAX || input_ns[th] > input_ns[best]))
                                best = th;
                if (best == UINT32_MAX)
                        break;
                input_ns[best] = 0;
                lanes[nlanes++] = (lane){ .kind = LANE_HOST, .track = best };
        }
        free(streams);
        free(input_ns);
        host_spans = device_spans(s, s->slowest_device >= 0 ? s->slowest_device : 0,
                                  &nhost_spans);

        f = (frame){ s, LABEL_W, (PAGE_W - LABEL_W - 10) / (double)s->step_time };
        tk = nice_ticks((double)s->step_time, 8);
        height = 30 + (int)nlanes * LANE_H + 20;
        fprintf(fp, "<p class=\"muted\">step %" PRId64 ", %s, %zu lane%s</p>\n", s->number,
                tpa_report__time(t, sizeof(t), (double)s->step_time), nlanes,
                nlanes == 1 ? "" : "s");
        fprintf(fp, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" "
                "viewBox=\"0 0 %d %d\">\n<text x=\"4\" y=\"14\">time in the step</text>\n",
                PAGE_W, height);
        for (int k = 0; k * tk.step <= (double)s->step_time; k++) {
                double x = f.x0 + k * tk.step * f.scale;
                fprintf(fp, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                        "<text class=\"tick\" x=\"%.1f\" y=\"14\" text-anchor=\"%s\">%s</text>\n",
                        x, x, height - 20, x, k == 0 ? "start" : "middle",
                        tick_label(t, sizeof(t), &tk, k));
        }
        for (size_t l = 0; l < nlanes; l++) {
                static const char *const cls[] = { "lane-buckets", "lane-device", "lane-host" };
                static const char *const mark[] = { "&#9638;", "&#9632;", "&#9675;" };
                lane_name(label, sizeof(label), a, tr, &lanes[l]);
                fprintf(fp, "<g class=\"lane %s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"%d\" fill=\"#fafafa\" stroke=\"#eee\"/>"
                        "<text x=\"4\" y=\"%.1f\">%s ", cls[lanes[l].kind], f.x0, lane_y(l),
                        PAGE_W - LABEL_W - 10.0, LANE_H - 4, lane_y(l) + 13, mark[lanes[l].kind]);
                tpa_report__html_escape(fp, label);
                fputs("</text></g>\n", fp);
                if (lanes[l].kind == LANE_BUCKETS) {
                        size_t ns;
                        const tpa_span *sp = device_spans(s, lanes[l].device, &ns);
                        for (size_t i = 0; i < ns; i++)
                                piece(fp, &f, l, "span", sp[i].start, sp[i].end,
                                      tpa_bucket_group(sp[i].bucket), NULL, 0);
                }
        }
        /* Events, longest first so short ones stay visible on top. Two
         * passes (long, then short) keep this without a sort. */
        for (int pass = 0; pass < 2; pass++) {
                for (size_t i = 0; i < n; i++) {
                        const tpa_event *e = &ev[i];
                        const char *name = tpa_trace_str(tr, e->name);
                        tpa_ns a0, a1;
                        size_t l;

                        if (e->ts >= s->end || e->ts + e->dur <= s->start ||
                            e->kind == TPA_KIND_ANNOTATION || e->kind == TPA_KIND_STEP ||
                            e->dur <= 0 ||
                            (pass == 0) != ((double)e->dur * 50 >= (double)s->step_time))
                                continue;
                        for (l = first_stream; l < nlanes && lanes[l].track != e->track; l++)
                                ;
                        if (l == nlanes)
                                continue;
                        if (lanes[l].drawn >= EVENTS_MAX) {
                                lanes[l].skipped++;
                                continue;
                        }
                        a0 = e->ts > s->start ? e->ts : s->start;
                        a1 = e->ts + e->dur < s->end ? e->ts + e->dur : s->end;
                        if (lanes[l].kind == LANE_DEVICE || nhost_spans == 0) {
                                lanes[l].drawn++;
                                piece(fp, &f, l, "ev", a0, a1, kind_group(e->kind, a->cpu_only),
                                      name, e->dur);
                                continue;
                        }
                        for (size_t k = span_at(host_spans, nhost_spans, a0);
                             k < nhost_spans && host_spans[k].start < a1; k++) {
                                const tpa_span *sp = &host_spans[k];
                                lanes[l].drawn++;
                                piece(fp, &f, l, "ev", sp->start > a0 ? sp->start : a0,
                                      sp->end < a1 ? sp->end : a1, tpa_bucket_group(sp->bucket),
                                      name, e->dur);
                        }
                }
        }
        /* Device idle gaps: holes in the union of device work, at least
         * gap.min long, across the device lanes. */
        if (nbusy > 0 && stream_lanes > 0) {
                tpa_ns cur = s->start;
                qsort(busy, nbusy, sizeof(*busy), cmp_ivl);
                for (size_t i = 0; i <= nbusy; i++) {
                        tpa_ns gs = cur, ge = i < nbusy ? busy[i].s : s->end;
                        if (ge > s->end)
                                ge = s->end;
                        /* Outlined only when wide enough not to hide the
                         * kernels around it. */
                        double gx = f.x0 + (double)(gs - s->start) * f.scale;
                        double gw = (double)(ge - gs) * f.scale;
                        if (ge - gs >= a->gap_min && ge > gs)
                                fprintf(fp, "<rect class=\"gap\" x=\"%.2f\" y=\"%.1f\" "
                                        "width=\"%.2f\" height=\"%.1f\" fill=\"#e53935\" "
                                        "fill-opacity=\"0.25\"%s><title>device idle %s"
                                        "</title></rect>\n", gx, lane_y(first_stream) - 2,
                                        gw < 0.5 ? 0.5 : gw, (double)stream_lanes * LANE_H,
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
        tables(fp, a);
        bars(fp, a);
        rc = timeline(fp, tr, a, err);
        evidence(fp, a);
        fprintf(fp, "<p class=\"muted\">tfprof-analyze %s</p>\n</body></html>\n", tpa_version());
        return rc;
}
