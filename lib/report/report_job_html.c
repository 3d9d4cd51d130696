/* SPDX-License-Identifier: MIT */
/*
 * report_job_html.c - the job view as one self-contained HTML page: the
 * straggler verdict, a ranks x steps heat map of step time (inline SVG,
 * darker is slower, the straggler of each step outlined, a missing step
 * hatched grey) and the per-step and per-rank tables of the text report.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tpa/report.h"
#include "report_util.h"

#define MAP_WIDTH  800.0
#define MAP_HEIGHT 480.0

/* White (fast) to deep red (slow), by where v sits in [lo, hi]. */
static void heat(char *buf, size_t size, tpa_ns v, tpa_ns lo, tpa_ns hi)
{
        double f = hi > lo ? (double)(v - lo) / (double)(hi - lo) : 0;
        int g = (int)(245 - 200 * f + 0.5), b = (int)(240 - 210 * f + 0.5);

        snprintf(buf, size, "rgb(250,%d,%d)", g, b);
}

static void heat_map(FILE *fp, const tpa_job *j)
{
        double cw = j->step_count > 0 ? MAP_WIDTH / (double)j->step_count : MAP_WIDTH;
        double ch = j->rank_count <= 30 ? 16 : MAP_HEIGHT / (double)j->rank_count;
        double left = 70, top = 20, w, h;
        tpa_ns lo = -1, hi = -1;
        char t[32], color[32];

        for (size_t i = 0; i < j->rank_count * j->step_count; i++) {
                tpa_ns v = j->cells[i];
                if (v < 0)
                        continue;
                if (lo < 0 || v < lo)
                        lo = v;
                if (v > hi)
                        hi = v;
        }
        w = left + cw * (double)j->step_count + 10;
        h = top + ch * (double)j->rank_count + 30;
        fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "role=\"img\" aria-label=\"step time per rank and step\">\n", w, h);
        fprintf(fp, "<text x=\"%.1f\" y=\"14\" font-size=\"12\">step &#8594;</text>\n", left);
        for (size_t r = 0; r < j->rank_count; r++) {
                double y = top + ch * (double)r;
                if (j->rank_count <= 30 || r % (j->rank_count / 16 + 1) == 0)
                        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                                "text-anchor=\"end\">rank %" PRId64 "</text>\n", left - 4,
                                y + (ch < 12 ? 4 : ch - 4), j->ranks[r].rank);
                for (size_t s = 0; s < j->step_count; s++) {
                        tpa_ns v = j->cells[r * j->step_count + s];
                        double x = left + cw * (double)s;
                        if (v < 0) {
                                fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                                        "height=\"%.2f\" fill=\"#bbb\"><title>rank %" PRId64
                                        ", step %" PRId64 ": missing</title></rect>\n", x, y,
                                        cw, ch, j->ranks[r].rank, j->steps[s].number);
                                continue;
                        }
                        heat(color, sizeof(color), v, lo, hi);
                        fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                                "fill=\"%s\"%s><title>rank %" PRId64 ", step %" PRId64
                                ": %s%s</title></rect>\n", x, y, cw, ch, color,
                                j->steps[s].straggler == r
                                ? " stroke=\"#000\" stroke-width=\"2\"" : "",
                                j->ranks[r].rank, j->steps[s].number,
                                tpa_report__time(t, sizeof(t), (double)v),
                                j->steps[s].straggler == r ? " (straggler)" : "");
                }
        }
        for (size_t s = 0; s < j->step_count; s++)
                if (j->step_count <= 40 || s % (j->step_count / 20 + 1) == 0)
                        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                                "text-anchor=\"middle\">%" PRId64 "</text>\n",
                                left + cw * ((double)s + 0.5),
                                top + ch * (double)j->rank_count + 14, j->steps[s].number);
        fputs("</svg>\n", fp);
}

void tpa_report_job_html(FILE *fp, const tpa_job *j)
{
        fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<title>tfprof-analyze: job</title>\n<style>\n"
              "body{font-family:sans-serif;margin:2em;max-width:70em}\n"
              "pre{background:#f6f6f6;padding:1em;overflow-x:auto}\n"
              "</style>\n</head>\n<body>\n<h1>Job: several ranks</h1>\n", fp);
        fputs("<h2>Step time per rank and step</h2>\n<p>Darker is slower; the straggler of "
              "each step is outlined; grey: the rank lacks the step.</p>\n", fp);
        heat_map(fp, j);
        fputs("<h2>Figures</h2>\n<pre>\n", fp);
        {
                /* The text report, escaped: the same figures, one source. */
                char *buf = NULL;
                size_t len = 0;
                FILE *mem = open_memstream(&buf, &len);
                if (mem != NULL) {
                        tpa_report_job_text(mem, j);
                        fclose(mem);
                        tpa_report__html_escape(fp, buf);
                        free(buf);
                }
        }
        fputs("</pre>\n</body>\n</html>\n", fp);
}
