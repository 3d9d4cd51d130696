/* SPDX-License-Identifier: MIT */
/*
 * report_markdown.c - a PR-comment-sized Markdown report: the verdict line,
 * the median breakdown table with what-if gains, the top findings, and the
 * per-step table folded in a <details> block. It only formats what the
 * analysis computed; deterministic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tpa/report.h"
#include "report_util.h"

#define FINDINGS_SHOWN 5
#define STEPS_SHOWN    100     /* a PR comment holds 65536 characters */

static const char *const group_labels[TPA_GROUP__COUNT] = {
        "compute", "transfer", "sync", "input", "host", "idle",
};

void tpa_report_markdown(FILE *fp, const tpa_trace *tr, const tpa_analysis *a,
                         const char *path)
{
        static const char *const sev[] = { "info", "warning", "error" };
        const tpa_health *h = tpa_trace_health_c(tr);
        char t1[32], t2[32], why[200];
        size_t shown = 0;

        tpa_report__verdict_why(a, why, sizeof(why));
        fprintf(fp, "### tfprof-analyze: **%s**%s", tpa_report__verdict(a), why[0] ? " " : "");
        tpa_report__md_escape(fp, why, sizeof(why));
        fputs("\n\n", fp);
        tpa_report__md_escape(fp, path, 80);
        fprintf(fp, " (%s, %s): median step **%s** (p90 %s) over %zu kept of %zu steps",
                tpa_format_name(tpa_trace_format(tr)), tpa_dialect_name(tpa_trace_dialect(tr)),
                tpa_report__time(t1, sizeof(t1), (double)a->step_time_median),
                tpa_report__time(t2, sizeof(t2), (double)a->step_time_p90),
                a->kept_count, a->step_count);
        if (a->class_kinds > 0) {
                fputs("; steps by class:", fp);
                for (size_t i = 0; i < a->class_kinds; i++)
                        fprintf(fp, "%s %zu %s", i ? "," : "", a->classes[i].count,
                                a->classes[i].name);
        }
        fputs(".\n", fp);
        if (a->step_note[0] != '\0') {
                fputs("\n> **Note:** ", fp);
                tpa_report__md_escape(fp, a->step_note, sizeof(a->step_note));
                fputs(".\n", fp);
        }
        if (a->no_markers)
                fputs("\n> **Note:** no step markers found; the whole trace is one step "
                      "(use `--step-marker REGEX`).\n", fp);
        if (h->truncated)
                fprintf(fp, "\n> **Note:** the trace is truncated at byte %" PRIu64
                        "; this report covers what was read.\n", h->truncated_at);

        if (tpa_trace_warning_count(tr) > 0) {
                uint64_t n = 0;
                for (size_t i = 0; i < tpa_trace_warning_count(tr); i++)
                        n += tpa_trace_warning(tr, i)->count;
                fprintf(fp, "\n> **Note:** %" PRIu64 " warning%s while reading, e.g. ", n,
                        n == 1 ? "" : "s");
                tpa_report__md_escape(fp, tpa_trace_warning(tr, 0)->msg, 160);
                fputs(".\n", fp);
        }
        fputs("\n| where the kept step time goes | share | step time if hidden |\n"
              "| --- | ---: | ---: |\n", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                fprintf(fp, "| %s | %.1f%%", group_labels[g], a->run_group_frac[g] * 100);
                if (g == TPA_GROUP_HOST && a->run_group_frac[g] > 0.0005)
                        fprintf(fp, " (launch %.1f%%, setup %.1f%%, python %.1f%%, CPU ops "
                                "%.1f%%)", a->run_frac[TPA_BUCKET_HOST_LAUNCH] * 100,
                                a->run_frac[TPA_BUCKET_HOST_SETUP] * 100,
                                a->run_frac[TPA_BUCKET_HOST_PYTHON] * 100,
                                a->run_frac[TPA_BUCKET_HOST_COMPUTE] * 100);
                fputs(" | ", fp);
                if (g != TPA_GROUP_COMPUTE && a->gain_frac[g] > 0.0005)
                        fprintf(fp, "%s (-%.1f%%)",
                                tpa_report__time(t1, sizeof(t1), (double)a->step_time_median *
                                                 (1.0 - a->gain_frac[g])),
                                a->gain_frac[g] * 100);
                fputs(" |\n", fp);
        }
        fprintf(fp, "\nDevice busy %.1f%% of kept step time (compute, copies, collectives).\n",
                tpa_report__device_busy(a) * 100);

        if (a->finding_count > 0) {
                fputs("\n**Findings**\n\n", fp);
                for (size_t i = 0; i < a->finding_count && shown < FINDINGS_SHOWN; i++) {
                        const tpa_finding *f = &a->findings[i];
                        fprintf(fp, "- **%s** `%s`: ", sev[f->severity <= 2 ? f->severity : 0],
                                f->name);
                        tpa_report__md_escape(fp, f->message, 300);
                        if (f->gain_frac >= 0)
                                fprintf(fp, " _(gain up to %.1f%%)_", f->gain_frac * 100);
                        fputc('\n', fp);
                        shown++;
                }
                if (a->finding_count > shown)
                        fprintf(fp, "- and %zu more (see the full report)\n",
                                a->finding_count - shown);
        }

        fprintf(fp, "\n<details><summary>Per step (%zu steps, %zu excluded)</summary>\n\n",
                a->step_count, a->step_count - a->kept_count);
        fputs("| step | time (ms) | compute | transfer | sync | input | host | idle | class |\n"
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n", fp);
        for (size_t i = 0; i < a->step_count && i < STEPS_SHOWN; i++) {
                const tpa_step *s = &a->steps[i];
                fprintf(fp, "| %" PRId64 " | %.3f |", s->number, (double)s->step_time / 1e6);
                for (int g = 0; g < TPA_GROUP__COUNT; g++)
                        fprintf(fp, " %.1f%% |", tpa_report__step_group(s, (tpa_group)g) * 100);
                if (s->excluded) {
                        fputs(" excluded: ", fp);
                        tpa_report__md_escape(fp, s->reason, 96);
                } else {
                        fprintf(fp, " %s", s->class_name != NULL ? s->class_name : "-");
                }
                fputs(" |\n", fp);
        }
        if (a->step_count > STEPS_SHOWN)
                fprintf(fp, "\nand %zu more steps (all are in `--format json`)\n",
                        a->step_count - STEPS_SHOWN);
        fputs("\n</details>\n", fp);
}
