/* SPDX-License-Identifier: MIT */
/*
 * report_check.c - the outcome of a CI gate (tpa/check.h) as text (one
 * line per condition, "ok:" or "FAIL:", then why), JSON (schema
 * "tfprof-analyze/check/v1") or Markdown for a PR comment. Why a step
 * time regression tripped is what diff knows: the groups that moved, the
 * class change, the top ops that grew.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpa/report.h"
#include "model/utf8.h"
#include "report_util.h"

/* A group or op is why step time grew when its time per step grew by this
 * much of the baseline's median step time (less is noise). A group whose share fell is no
 * cause: at a median twice as long, unchanged compute has half the share. */
#define MOVED_MIN_FRAC 0.01
/* At most this many moved groups and grown ops are named. */
#define WHY_MAX 3

/* The explanation of a regression: indexes into the comparison. */
typedef struct why {
        int    groups[TPA_GROUP__COUNT];        /* grew, most time first */
        size_t group_count;
        size_t ops[WHY_MAX];                    /* added or slower, most growth first */
        size_t op_count;
} why;

static double growth(const tpa_op_change *o)
{
        return o->new_ns - o->base_ns;
}

static void explain(why *w, const tpa_comparison *c)
{
        memset(w, 0, sizeof(*w));
        for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                size_t k;

                if (tpa_report__group_delta(c, g) < MOVED_MIN_FRAC * c->median.base_ns ||
                    tpa_report__group_delta(c, g) <= 0)
                        continue;
                k = w->group_count++;
                for (; k > 0 && tpa_report__group_delta(c, w->groups[k - 1]) <
                                tpa_report__group_delta(c, g);
                     k--)
                        w->groups[k] = w->groups[k - 1];
                w->groups[k] = g;
        }
        if (w->group_count > WHY_MAX)
                w->group_count = WHY_MAX;
        /* The WHY_MAX that grew most, by insertion; ties keep the
         * comparison's order, which is by name. */
        for (size_t i = 0; i < c->op_count; i++) {
                const tpa_op_change *o = &c->ops[i];
                size_t k = w->op_count;

                if ((o->kind != TPA_OP_ADDED && o->kind != TPA_OP_SLOWER) || growth(o) <= 0 ||
                    growth(o) < MOVED_MIN_FRAC * c->median.base_ns)
                        continue;
                if (k == WHY_MAX) {
                        if (growth(&c->ops[w->ops[k - 1]]) >= growth(o))
                                continue;
                        k--;
                } else {
                        w->op_count++;
                }
                for (; k > 0 && growth(&c->ops[w->ops[k - 1]]) < growth(o); k--)
                        w->ops[k] = w->ops[k - 1];
                w->ops[k] = i;
        }
}

/* "1 kept step in the new run and 4 in the baseline". */
static void few_steps(FILE *fp, const tpa_comparison *c)
{
        fprintf(fp, "%zu kept step%s in the new run and %zu in the baseline", c->new_steps,
                c->new_steps == 1 ? "" : "s", c->base_steps);
}

/* A metric's value in the unit its name carries (doc/metrics.md). */
static const char *metric_value(char *buf, size_t size, const tpa_check_metric *m)
{
        size_t n = strlen(m->name);

        if ((n > 5 && strcmp(m->name + n - 5, "_frac") == 0) || tpa_job_metric_is_frac(m->name))
                snprintf(buf, size, "%.1f%%", m->value * 100);
        else if (n > 3 && strcmp(m->name + n - 3, "_ns") == 0)
                tpa_report__time(buf, size, m->value);
        else
                snprintf(buf, size, "%.6g", m->value);
        return buf;
}

static void metric_list(FILE *fp, const tpa_check *k, bool md)
{
        char v[32];

        for (size_t i = 0; i < k->metric_count; i++)
                fprintf(fp, "%s%s%s%s = %s", i ? ", " : "", md ? "`" : "", k->metrics[i].name,
                        md ? "`" : "", metric_value(v, sizeof(v), &k->metrics[i]));
}

/* ---- text ------------------------------------------------------------------------ */

static void text_regression(FILE *fp, const tpa_check *k)
{
        const tpa_comparison *c = k->cmp;
        const tpa_change *m = &c->median;
        char t1[32], t2[32], ci[64] = "";
        why w;

        if (!m->too_few)
                snprintf(ci, sizeof(ci), ", 95%% CI %+.1f%% .. %+.1f%%", m->ci_lo * 100,
                         m->ci_hi * 100);
        tpa_report__time(t1, sizeof(t1), m->base_ns);
        tpa_report__time(t2, sizeof(t2), m->new_ns);
        fprintf(fp, "%s %+.1f%% (%s -> %s%s) against ",
                k->tripped ? "FAIL: median step time regressed" : "ok: median step time",
                m->rel * 100, t1, t2, ci);
        tpa_report__put_plain(fp, k->baseline, strlen(k->baseline));
        if (k->tripped)
                fprintf(fp, ", above the %.1f%% limit\n", k->max_regression * 100);
        else if (m->rel <= k->max_regression)
                fprintf(fp, " is within the %.1f%% limit\n", k->max_regression * 100);
        else
                fprintf(fp, " exceeds the %.1f%% limit but is inside the noise (not "
                        "significant); not failing\n", k->max_regression * 100);
        if (m->too_few) {
                fputs("  no noise estimate: ", fp);
                few_steps(fp, c);
                fputs("; judged on --max-regression alone\n", fp);
        }
        if (!k->tripped)
                return;
        explain(&w, c);
        if (w.group_count > 0) {
                fputs("  grew:", fp);
                for (size_t i = 0; i < w.group_count; i++) {
                        int g = w.groups[i];
                        fprintf(fp, "%s %s +%s a step (%.1f%% -> %.1f%%)", i ? "," : "",
                                tpa_group_name((tpa_group)g),
                                tpa_report__time(t1, sizeof(t1), tpa_report__group_delta(c, g)),
                                c->base_group_frac[g] * 100, c->new_group_frac[g] * 100);
                }
                fputc('\n', fp);
        } else {
                fprintf(fp, "  grew: no group of step time, by %.0f%% of it or more: the whole "
                        "step is slower\n", MOVED_MIN_FRAC * 100);
        }
        if (c->class_changed)
                fprintf(fp, "  class: %s -> %s\n", c->base_class ? c->base_class : "none",
                        c->new_class ? c->new_class : "none");
        for (size_t i = 0; i < w.op_count; i++) {
                const tpa_op_change *o = &c->ops[w.ops[i]];
                size_t n = strlen(o->name);

                fputs("  grew: ", fp);
                if (n > 50) {
                        tpa_report__put_plain(fp, o->name, tpa_utf8__cut(o->name, 47));
                        fputs("...", fp);
                } else {
                        tpa_report__put_plain(fp, o->name, n);
                }
                if (o->kind == TPA_OP_ADDED)
                        fprintf(fp, ": new, %s per step\n",
                                tpa_report__time(t2, sizeof(t2), o->new_ns));
                else
                        fprintf(fp, ": %s -> %s per step\n",
                                tpa_report__time(t1, sizeof(t1), o->base_ns),
                                tpa_report__time(t2, sizeof(t2), o->new_ns));
        }
}

void tpa_report_check_text(FILE *fp, const tpa_check *checks, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                const tpa_check *k = &checks[i];

                switch (k->kind) {
                case TPA_CHECK_REGRESSION:
                        text_regression(fp, k);
                        break;
                case TPA_CHECK_EXPR:
                        fprintf(fp, "%s: --fail-if '%s' is %s", k->tripped ? "FAIL" : "ok",
                                k->expr, k->tripped ? "true" : "false");
                        if (k->metric_count > 0) {
                                fputs(": ", fp);
                                metric_list(fp, k, false);
                        }
                        fputc('\n', fp);
                        break;
                case TPA_CHECK_CLASS:
                        if (k->tripped)
                                fprintf(fp, "FAIL: the run is %s (--fail-on %s)\n",
                                        k->run_class, k->class_name);
                        else
                                fprintf(fp, "ok: the run is %s, not %s\n",
                                        k->run_class ? k->run_class : "without a verdict",
                                        k->class_name);
                        break;
                }
        }
}

/* ---- JSON ------------------------------------------------------------------------ */

static void jkey(tpa_json_writer *w, const char *k)
{
        tpa_report__jw_string(w, k, strlen(k));
}

/* A string whole (a path or a name of any length), its invalid UTF-8
 * repaired. */
static void jstr(tpa_json_writer *w, const char *s)
{
        if (s == NULL)
                tpa_report__jw_raw(w, "null", 4);
        else
                tpa_report__jw_string_utf8(w, s, strlen(s));
}

static void jnum(tpa_json_writer *w, double v)
{
        char b[40];

        if (!isfinite(v))
                tpa_report__jw_raw(w, "null", 4);
        else if (v == floor(v) && fabs(v) < 9007199254740992.0)
                tpa_report__jw_int(w, (int64_t)v);
        else
                tpa_report__jw_raw(w, b, tpa_report__g6(b, v));
}

static void jbool(tpa_json_writer *w, bool v)
{
        tpa_report__jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

static void json_regression(tpa_json_writer *w, const tpa_check *k)
{
        const tpa_comparison *c = k->cmp;
        const tpa_change *m = &c->median;
        why y;

        explain(&y, c);
        jkey(w, "baseline");
        jstr(w, k->baseline);
        jkey(w, "max_regression_frac");
        jnum(w, k->max_regression);
        jkey(w, "base_kept_steps");
        tpa_report__jw_uint(w, c->base_steps);
        jkey(w, "new_kept_steps");
        tpa_report__jw_uint(w, c->new_steps);
        jkey(w, "base_ns");
        tpa_report__jw_int(w, llround(m->base_ns));
        jkey(w, "new_ns");
        tpa_report__jw_int(w, llround(m->new_ns));
        jkey(w, "change_frac");
        jnum(w, m->rel);
        jkey(w, "noise_estimate");
        jbool(w, !m->too_few);
        jkey(w, "ci_low_frac");
        jnum(w, m->ci_lo);
        jkey(w, "ci_high_frac");
        jnum(w, m->ci_hi);
        jkey(w, "significant");
        jbool(w, m->significant);
        jkey(w, "moved");
        tpa_report__jw_open(w, '[');
        for (size_t i = 0; i < y.group_count; i++) {
                int g = y.groups[i];

                tpa_report__jw_open(w, '{');
                jkey(w, "group");
                jstr(w, tpa_group_name((tpa_group)g));
                jkey(w, "base_frac");
                jnum(w, c->base_group_frac[g]);
                jkey(w, "new_frac");
                jnum(w, c->new_group_frac[g]);
                jkey(w, "shift_pp");
                jnum(w, round(c->shift_pp[g] * 1000) / 1000);
                jkey(w, "delta_ns_per_step");
                tpa_report__jw_int(w, llround(tpa_report__group_delta(c, g)));
                tpa_report__jw_close(w);
        }
        tpa_report__jw_close(w);
        jkey(w, "base_class");
        jstr(w, c->base_class);
        jkey(w, "new_class");
        jstr(w, c->new_class);
        jkey(w, "grew");
        tpa_report__jw_open(w, '[');
        for (size_t i = 0; i < y.op_count; i++) {
                const tpa_op_change *o = &c->ops[y.ops[i]];

                tpa_report__jw_open(w, '{');
                jkey(w, "name");
                jstr(w, o->name);
                jkey(w, "change");
                jstr(w, o->kind == TPA_OP_ADDED ? "added" : "slower");
                jkey(w, "base_ns_per_step");
                tpa_report__jw_int(w, llround(o->base_ns));
                jkey(w, "new_ns_per_step");
                tpa_report__jw_int(w, llround(o->new_ns));
                tpa_report__jw_close(w);
        }
        tpa_report__jw_close(w);
}

int tpa_report_check_json(FILE *fp, const tpa_check *checks, size_t n, const char *new_path,
                          tpa_error *err)
{
        static const char *const kinds[] = { "regression", "fail_if", "fail_on" };
        tpa_json_writer *w = tpa_report__jw_new(fp);
        bool tripped = false;

        if (w == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < n; i++)
                tripped |= checks[i].tripped;
        tpa_report__jw_open(w, '{');
        jkey(w, "schema");
        jstr(w, "tfprof-analyze/check/v1");
        jkey(w, "new");
        jstr(w, new_path);
        jkey(w, "tripped");
        jbool(w, tripped);
        jkey(w, "checks");
        tpa_report__jw_open(w, '[');
        for (size_t i = 0; i < n; i++) {
                const tpa_check *k = &checks[i];

                tpa_report__jw_open(w, '{');
                jkey(w, "kind");
                jstr(w, kinds[k->kind]);
                jkey(w, "tripped");
                jbool(w, k->tripped);
                switch (k->kind) {
                case TPA_CHECK_REGRESSION:
                        json_regression(w, k);
                        break;
                case TPA_CHECK_EXPR:
                        jkey(w, "expr");
                        jstr(w, k->expr);
                        jkey(w, "metrics");
                        tpa_report__jw_open(w, '{');
                        for (size_t m = 0; m < k->metric_count; m++) {
                                jkey(w, k->metrics[m].name);
                                jnum(w, k->metrics[m].value);
                        }
                        tpa_report__jw_close(w);
                        break;
                case TPA_CHECK_CLASS:
                        jkey(w, "class");
                        jstr(w, k->class_name);
                        jkey(w, "run_class");
                        jstr(w, k->run_class);
                        break;
                }
                tpa_report__jw_close(w);
        }
        tpa_report__jw_close(w);
        tpa_report__jw_close(w);
        tpa_report__jw_free(w);
        return 0;
}

/* ---- Markdown -------------------------------------------------------------------- */

static void md_regression_why(FILE *fp, const tpa_check *k)
{
        const tpa_comparison *c = k->cmp;
        char t1[32], t2[32];
        why w;

        explain(&w, c);
        fputs("\n**Why** (against ", fp);
        tpa_report__md_escape(fp, k->baseline, 80);
        fputs("):\n\n", fp);
        for (size_t i = 0; i < w.group_count; i++) {
                int g = w.groups[i];
                fprintf(fp, "- %s +%s per step (%.1f%% &rarr; %.1f%% of step time)\n",
                        tpa_group_name((tpa_group)g),
                        tpa_report__time(t1, sizeof(t1), tpa_report__group_delta(c, g)),
                        c->base_group_frac[g] * 100, c->new_group_frac[g] * 100);
        }
        if (w.group_count == 0)
                fprintf(fp, "- no group of step time grew by %.0f%% of it or more: the whole "
                        "step is slower\n", MOVED_MIN_FRAC * 100);
        if (c->class_changed)
                fprintf(fp, "- class %s &rarr; **%s**\n", c->base_class ? c->base_class : "none",
                        c->new_class ? c->new_class : "none");
        for (size_t i = 0; i < w.op_count; i++) {
                const tpa_op_change *o = &c->ops[w.ops[i]];

                fputs("- ", fp);
                tpa_report__md_escape(fp, o->name, 60);
                if (o->kind == TPA_OP_ADDED)
                        fprintf(fp, ": new, %s per step\n",
                                tpa_report__time(t2, sizeof(t2), o->new_ns));
                else
                        fprintf(fp, ": %s &rarr; %s per step\n",
                                tpa_report__time(t1, sizeof(t1), o->base_ns),
                                tpa_report__time(t2, sizeof(t2), o->new_ns));
        }
}

void tpa_report_check_markdown(FILE *fp, const tpa_check *checks, size_t n,
                               const char *new_path)
{
        size_t tripped = 0;
        char t1[32], t2[32];

        for (size_t i = 0; i < n; i++)
                tripped += checks[i].tripped;
        if (tripped > 0)
                fprintf(fp, "### tfprof-analyze check: **FAIL** (%zu of %zu condition%s)\n\n",
                        tripped, n, n == 1 ? "" : "s");
        else
                fprintf(fp, "### tfprof-analyze check: ok (%zu condition%s)\n\n", n,
                        n == 1 ? "" : "s");
        tpa_report__md_escape(fp, new_path, 80);
        fputs("\n\n| | condition | result |\n| --- | --- | --- |\n", fp);
        for (size_t i = 0; i < n; i++) {
                const tpa_check *k = &checks[i];
                const tpa_change *m = k->cmp ? &k->cmp->median : NULL;

                fprintf(fp, "| %s | ", k->tripped ? "**FAIL**" : "ok");
                switch (k->kind) {
                case TPA_CHECK_REGRESSION:
                        fprintf(fp, "median step time at most %+.1f%% against ",
                                k->max_regression * 100);
                        tpa_report__md_escape(fp, k->baseline, 60);
                        fprintf(fp, " | %+.1f%% (%s &rarr; %s", m->rel * 100,
                                tpa_report__time(t1, sizeof(t1), m->base_ns),
                                tpa_report__time(t2, sizeof(t2), m->new_ns));
                        if (m->too_few)
                                fputs("; no noise estimate: ", fp);
                        else
                                fprintf(fp, ", 95%% CI %+.1f%% .. %+.1f%%%s", m->ci_lo * 100,
                                        m->ci_hi * 100, m->rel > k->max_regression &&
                                        !m->significant ? ", inside the noise" : "");
                        if (m->too_few) {
                                few_steps(fp, k->cmp);
                                fputs(", judged on the limit alone", fp);
                        }
                        fputs(") |\n", fp);
                        break;
                case TPA_CHECK_EXPR:
                        fputs("--fail-if ", fp);
                        tpa_report__md_escape(fp, k->expr, 80);
                        fprintf(fp, " | %s", k->tripped ? "true" : "false");
                        if (k->metric_count > 0) {
                                fputs(": ", fp);
                                metric_list(fp, k, true);
                        }
                        fputs(" |\n", fp);
                        break;
                case TPA_CHECK_CLASS:
                        fprintf(fp, "--fail-on %s | the run is %s |\n", k->class_name,
                                k->run_class ? k->run_class : "without a verdict");
                        break;
                }
        }
        for (size_t i = 0; i < n; i++)
                if (checks[i].kind == TPA_CHECK_REGRESSION && checks[i].tripped)
                        md_regression_why(fp, &checks[i]);
}
