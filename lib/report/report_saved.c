/* SPDX-License-Identifier: MIT */
/*
 * report_saved.c - a saved JSON report shown again (`tfprof-analyze
 * saved.json`), as text, Markdown or an HTML page, from what
 * tpa_report_load() reads back: the verdict, step time, breakdown by group,
 * findings, the kept steps and the top device ops. A report holds no events,
 * so the sections drawn from them (idle gaps, copies, host gaps, the
 * timeline) are not there, and each format says so.
 */
#include <stdio.h>
#include <string.h>

#include "tpa/report.h"
#include "model/utf8.h"
#include "report_util.h"

#define WIDTH 100

static const char *const severity_name[] = { "info", "warning", "error" };

static const char *sev(tpa_severity s)
{
        return (unsigned)s < 3 ? severity_name[s] : "info";
}

/* The steps of each class, in the order they first appear. */
static void class_counts(FILE *fp, const tpa_run *r, const char *sep)
{
        bool any = false;

        for (size_t i = 0; i < r->step_count; i++) {
                const char *c = r->steps[i].class_name;
                size_t n = 0;
                bool seen = false;

                if (c == NULL)
                        continue;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = r->steps[k].class_name != NULL &&
                               strcmp(r->steps[k].class_name, c) == 0;
                if (seen)
                        continue;
                for (size_t k = i; k < r->step_count; k++)
                        n += r->steps[k].class_name != NULL &&
                             strcmp(r->steps[k].class_name, c) == 0;
                fprintf(fp, "%s%zu %s", any ? sep : "", n, c);
                any = true;
        }
        if (!any)
                fputs("none", fp);
}

/* The breakdown of the kept steps' time: each step weighs by its time. */
static void breakdown(const tpa_run *r, double frac[TPA_GROUP__COUNT])
{
        double total = 0;

        memset(frac, 0, TPA_GROUP__COUNT * sizeof(frac[0]));
        for (size_t i = 0; i < r->step_count; i++) {
                total += (double)r->steps[i].step_time;
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        frac[g] += r->steps[i].group_frac[g] * (double)r->steps[i].step_time;
        }
        for (int g = 0; g < TPA_GROUP__COUNT && total > 0; g++)
                frac[g] /= total;
}

/* `s` from column `col`, wrapped at spaces to WIDTH with `indent` spaces
 * before each continued line. */
static void put_wrapped(FILE *fp, const char *s, size_t col, size_t indent)
{
        while (*s != '\0') {
                size_t n = strlen(s), cut = n;

                if (col + n > WIDTH) {
                        cut = WIDTH > col ? WIDTH - col : 0;
                        while (cut > 0 && s[cut] != ' ')
                                cut--;
                        if (cut == 0)           /* one long word: as it is */
                                cut = strcspn(s, " ");
                }
                fprintf(fp, "%.*s", (int)cut, s);
                s += cut;
                while (*s == ' ')
                        s++;
                if (*s != '\0')
                        fprintf(fp, "\n%*s", (int)indent, "");
                col = indent;
        }
        fputc('\n', fp);
}

void tpa_report_saved_text(FILE *fp, const tpa_run *r, const char *path)
{
        char t1[32], t2[32], line[TPA_FINDING_MESSAGE_MAX + 160];
        double frac[TPA_GROUP__COUNT];
        int col;

        breakdown(r, frac);
        fprintf(fp, "%s: saved report of %s (%s)\n", path,
                r->trace_path != NULL ? r->trace_path : "a trace", TPA_REPORT_SCHEMA);
        fputs("  NOTE: shown from the report's figures; it holds no events, so no idle gaps,\n"
              "  copies or host gaps here: analyze the trace for those.\n", fp);
        fprintf(fp, "\nverdict: %s\n", r->run_class != NULL ? r->run_class : "none");
        fputs("  steps by class: ", fp);
        class_counts(fp, r, ", ");
        fprintf(fp, "\n  step time: median %s, p90 %s over %zu kept step%s\n",
                tpa_report__time(t1, sizeof(t1), (double)r->step_time_median),
                tpa_report__time(t2, sizeof(t2), (double)r->step_time_p90), r->step_count,
                r->step_count == 1 ? "" : "s");
        fputs("  breakdown of kept step time:\n", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "    %-13s %5.1f%%\n", tpa_group_name((tpa_group)g),
                        frac[g] * 100);
        fprintf(fp, "  findings:%s\n", r->finding_count > 0 ? "" : " none");
        for (size_t i = 0; i < r->finding_count; i++) {
                const tpa_run_finding *f = &r->findings[i];

                col = snprintf(line, sizeof(line), "    %s %s: %s", sev(f->severity), f->name,
                               f->message);
                if (f->gain_frac >= 0 && col > 0 && (size_t)col < sizeof(line))
                        snprintf(line + col, sizeof(line) - (size_t)col,
                                 " (gain up to %.1f%%)", f->gain_frac * 100);
                put_wrapped(fp, line, 0, 12);
        }
        fputs("\nper kept step (% of step time):\n      step     time ms", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, " %7.7s", tpa_group_name((tpa_group)g));
        fputs("  class\n", fp);
        for (size_t i = 0; i < r->step_count; i++) {
                const tpa_run_step *s = &r->steps[i];

                fprintf(fp, "%10lld %11.3f", (long long)s->number, (double)s->step_time / 1e6);
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        fprintf(fp, " %6.1f%%", s->group_frac[g] * 100);
                fprintf(fp, "  %s\n", s->class_name != NULL ? s->class_name : "-");
        }
        fprintf(fp, "\ntop ops by device time:%s\n", r->op_count > 0 ? "" : " none");
        if (r->op_count > 0)
                fprintf(fp, "  %10s %7s %8s  %s\n", "time", "share", "count", "op");
        for (size_t i = 0; i < r->op_count; i++) {
                const tpa_run_op *o = &r->ops[i];
                size_t n = strlen(o->name);

                fprintf(fp, "  %10s %6.1f%% %8llu  ",
                        tpa_report__time(t1, sizeof(t1), (double)o->time), o->frac * 100,
                        (unsigned long long)o->count);
                if (n > 70)
                        fprintf(fp, "%.*s...\n", (int)tpa_utf8__cut(o->name, 67), o->name);
                else
                        fprintf(fp, "%s\n", o->name);
        }
}

void tpa_report_saved_markdown(FILE *fp, const tpa_run *r, const char *path)
{
        char t1[32], t2[32];
        double frac[TPA_GROUP__COUNT];

        breakdown(r, frac);
        fprintf(fp, "### tfprof-analyze: **%s**\n\n",
                r->run_class != NULL ? r->run_class : "no verdict");
        tpa_report__md_escape(fp, path, 80);
        fputs(" (saved report of ", fp);
        tpa_report__md_escape(fp, r->trace_path != NULL ? r->trace_path : "a trace", 80);
        fprintf(fp, "): median step **%s** (p90 %s) over %zu kept steps; steps by class: ",
                tpa_report__time(t1, sizeof(t1), (double)r->step_time_median),
                tpa_report__time(t2, sizeof(t2), (double)r->step_time_p90), r->step_count);
        class_counts(fp, r, ", ");
        fputs(".\n\n| where the kept step time goes | share |\n| --- | ---: |\n", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "| %s | %.1f%% |\n", tpa_group_name((tpa_group)g),
                        frac[g] * 100);
        if (r->finding_count > 0)
                fputs("\n**Findings**\n\n", fp);
        for (size_t i = 0; i < r->finding_count; i++) {
                const tpa_run_finding *f = &r->findings[i];

                fprintf(fp, "- **%s** `%s`: ", sev(f->severity), f->name);
                tpa_report__md_escape(fp, f->message, TPA_FINDING_MESSAGE_MAX);
                if (f->gain_frac >= 0)
                        fprintf(fp, " _(gain up to %.1f%%)_", f->gain_frac * 100);
                fputc('\n', fp);
        }
        fprintf(fp, "\n<details><summary>Per kept step (%zu steps)</summary>\n\n| step | "
                "time (ms) |", r->step_count);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, " %s |", tpa_group_name((tpa_group)g));
        fputs(" class |\n| ---: | ---: |", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fputs(" ---: |", fp);
        fputs(" --- |\n", fp);
        for (size_t i = 0; i < r->step_count; i++) {
                const tpa_run_step *s = &r->steps[i];

                fprintf(fp, "| %lld | %.3f |", (long long)s->number, (double)s->step_time / 1e6);
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        fprintf(fp, " %.1f%% |", s->group_frac[g] * 100);
                fprintf(fp, " %s |\n", s->class_name != NULL ? s->class_name : "-");
        }
        fputs("\n</details>\n\n_A saved report holds no events: analyze the trace for idle "
              "gaps, copies and host gaps._\n", fp);
}

void tpa_report_saved_html(FILE *fp, const tpa_run *r, const char *path)
{
        char t1[32], t2[32];
        double frac[TPA_GROUP__COUNT];
        const char *verdict = r->run_class != NULL ? r->run_class : "no verdict";

        breakdown(r, frac);
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<title>tfprof-analyze: ", fp);
        tpa_report__html_escape(fp, verdict);
        fputs("</title>\n<style>\nbody { font: 14px/1.4 system-ui, sans-serif; margin: 2em; }\n"
              "table { border-collapse: collapse; margin: 1em 0; }\n"
              "td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }\n"
              "td:last-child, th:first-child { text-align: left; }\n"
              "</style></head><body>\n<h1>tfprof-analyze: ", fp);
        tpa_report__html_escape(fp, verdict);
        fputs("</h1>\n<p>", fp);
        tpa_report__html_escape(fp, path);
        fputs(": saved report of ", fp);
        tpa_report__html_escape(fp, r->trace_path != NULL ? r->trace_path : "a trace");
        fprintf(fp, ". Median step <b>%s</b> (p90 %s) over %zu kept steps; steps by class: ",
                tpa_report__time(t1, sizeof(t1), (double)r->step_time_median),
                tpa_report__time(t2, sizeof(t2), (double)r->step_time_p90), r->step_count);
        class_counts(fp, r, ", ");
        fputs(".</p>\n<p>A saved report holds no events: no timeline, idle gaps, copies or "
              "host gaps here; analyze the trace for those.</p>\n"
              "<table id=\"breakdown\"><tr><th>where the kept step time goes</th><th>share</th></tr>\n",
              fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "<tr><th>%s</th><td>%.1f%%</td></tr>\n",
                        tpa_group_name((tpa_group)g), frac[g] * 100);
        fputs("</table>\n", fp);
        if (r->finding_count > 0)
                fputs("<h2>Findings</h2>\n<ul>\n", fp);
        for (size_t i = 0; i < r->finding_count; i++) {
                const tpa_run_finding *f = &r->findings[i];

                fprintf(fp, "<li><b>%s</b> <code>", sev(f->severity));
                tpa_report__html_escape(fp, f->name);
                fputs("</code>: ", fp);
                tpa_report__html_escape(fp, f->message);
                if (f->gain_frac >= 0)
                        fprintf(fp, " <i>(gain up to %.1f%%)</i>", f->gain_frac * 100);
                fputs("</li>\n", fp);
        }
        if (r->finding_count > 0)
                fputs("</ul>\n", fp);
        fputs("<h2>Kept steps</h2>\n<table id=\"steps\"><tr><th>step</th><th>time (ms)</th>",
              fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "<th>%s</th>", tpa_group_name((tpa_group)g));
        fputs("<th>class</th></tr>\n", fp);
        for (size_t i = 0; i < r->step_count; i++) {
                const tpa_run_step *s = &r->steps[i];

                fprintf(fp, "<tr><th>%lld</th><td>%.3f</td>", (long long)s->number,
                        (double)s->step_time / 1e6);
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        fprintf(fp, "<td>%.1f%%</td>", s->group_frac[g] * 100);
                fputs("<td>", fp);
                tpa_report__html_escape(fp, s->class_name != NULL ? s->class_name : "-");
                fputs("</td></tr>\n", fp);
        }
        fputs("</table>\n</body></html>\n", fp);
}
