/* SPDX-License-Identifier: MIT */
/*
 * report_diff.c - a comparison of two runs (tpa/compare.h) as text, JSON
 * (schema "tfprof-analyze/diff/v1") or Markdown: the median and p90 step
 * time change with its confidence interval and whether it is significant,
 * group shifts in percentage points, class changes, top-op changes.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "tpa/report.h"
#include "model/utf8.h"
#include "report_util.h"

static const char *const op_kind[] = { "added", "removed", "slower", "faster" };

static const char *verdict(const tpa_change *c)
{
        if (c->too_few)
                return "too few steps to estimate noise";
        return c->significant ? "significant" : "inside the noise";
}

static void change_line(FILE *fp, const char *label, const tpa_change *c)
{
        char t1[32], t2[32];

        fprintf(fp, "  %-6s %10s -> %-10s %+7.1f%%", label,
                tpa_report__time(t1, sizeof(t1), c->base_ns),
                tpa_report__time(t2, sizeof(t2), c->new_ns), c->rel * 100);
        if (!c->too_few)
                fprintf(fp, "  (95%% CI %+.1f%% .. %+.1f%%)", c->ci_lo * 100, c->ci_hi * 100);
        fprintf(fp, "  %s\n", verdict(c));
}

void tpa_report_diff_text(FILE *fp, const tpa_comparison *c, const char *base_path,
                          const char *new_path)
{
        char t1[32], t2[32];

        fputs("diff: ", fp);
        tpa_report__put_plain(fp, base_path, strlen(base_path));
        fputs(" -> ", fp);
        tpa_report__put_plain(fp, new_path, strlen(new_path));
        fputc('\n', fp);
        fprintf(fp, "\nstep time over kept steps (%zu -> %zu):\n", c->base_steps, c->new_steps);
        change_line(fp, "median", &c->median);
        change_line(fp, "p90", &c->p90);
        fprintf(fp, "\nmedian breakdown of step time (share, and time in a median step):\n");
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "  %-13s %5.1f%% -> %5.1f%%  %+6.1f pp  %10s\n",
                        tpa_group_name((tpa_group)g), c->base_group_frac[g] * 100,
                        c->new_group_frac[g] * 100, c->shift_pp[g],
                        tpa_report__time_change(t1, sizeof(t1),
                                                tpa_report__group_delta(c, g)));
        fprintf(fp, "\nclass: %s -> %s%s\n", c->base_class ? c->base_class : "-",
                c->new_class ? c->new_class : "-", c->class_changed ? " (changed)" : "");
        for (size_t i = 0; i < c->class_count; i++)
                fprintf(fp, "  %-16s %4zu -> %zu steps\n", c->classes[i].name,
                        c->classes[i].base_count, c->classes[i].new_count);
        fprintf(fp, "\ntop ops by device time, per kept step:%s\n", c->op_count ? "" : " no change");
        for (size_t i = 0; i < c->op_count; i++) {
                const tpa_op_change *o = &c->ops[i];
                fprintf(fp, "  %-7s %10s -> %-10s ", op_kind[o->kind],
                        o->kind == TPA_OP_ADDED ? "-" : tpa_report__time(t1, sizeof(t1),
                                                                         o->base_ns),
                        o->kind == TPA_OP_REMOVED ? "-" : tpa_report__time(t2, sizeof(t2),
                                                                           o->new_ns));
                if (strlen(o->name) > 60) {
                        tpa_report__put_plain(fp, o->name, tpa_utf8__cut(o->name, 57));
                        fputs("...\n", fp);
                } else {
                        tpa_report__put_plain(fp, o->name, strlen(o->name));
                        fputc('\n', fp);
                }
        }
}

/* A string whole (a path or a name of any length), its invalid UTF-8
 * repaired into memory of its own; false when there is none. */
static bool gstr(yajl_gen g, const char *s)
{
        size_t n;
        char *buf;

        if (s == NULL) {
                yajl_gen_null(g);
                return true;
        }
        n = strlen(s);
        if (tpa_utf8__valid_prefix(s, n) == n) {
                yajl_gen_string(g, (const unsigned char *)s, n);
                return true;
        }
        if ((buf = malloc(3 * n + 1)) == NULL)
                return false;
        n = tpa_report__utf8(buf, s, n);
        yajl_gen_string(g, (const unsigned char *)buf, n);
        free(buf);
        return true;
}

static void gnum(yajl_gen g, double v)
{
        char b[40];
        int n;

        if (!isfinite(v)) {
                yajl_gen_null(g);
                return;
        }
        if (v == floor(v) && fabs(v) < 9007199254740992.0)
                n = snprintf(b, sizeof(b), "%.0f", v);
        else
                n = snprintf(b, sizeof(b), "%.6g", v);
        if (strcmp(b, "-0") == 0)
                n = snprintf(b, sizeof(b), "0");
        yajl_gen_number(g, b, (size_t)n);
}

static void gkey(yajl_gen g, const char *k)
{
        yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

static void gchange(yajl_gen g, const char *k, const tpa_change *c)
{
        gkey(g, k);
        yajl_gen_map_open(g);
        gkey(g, "base_ns");
        yajl_gen_integer(g, llround(c->base_ns));
        gkey(g, "new_ns");
        yajl_gen_integer(g, llround(c->new_ns));
        gkey(g, "change_frac");
        gnum(g, c->rel);
        gkey(g, "ci_low_frac");
        gnum(g, c->ci_lo);
        gkey(g, "ci_high_frac");
        gnum(g, c->ci_hi);
        gkey(g, "confidence");
        gnum(g, 0.95);
        gkey(g, "significant");
        yajl_gen_bool(g, c->significant);
        gkey(g, "too_few_steps");
        yajl_gen_bool(g, c->too_few);
        yajl_gen_map_close(g);
}

int tpa_report_diff_json(FILE *fp, const tpa_comparison *c, const char *base_path,
                         const char *new_path, tpa_error *err)
{
        tpa_json_out *out = tpa_report__json_open(fp);
        yajl_gen g = out != NULL ? yajl_gen_alloc(NULL) : NULL;
        bool ok = true;

        if (g == NULL) {
                free(out);
                return tpa_error_oom(err);
        }
        yajl_gen_config(g, yajl_gen_beautify, 1);
        yajl_gen_config(g, yajl_gen_indent_string, "  ");
        yajl_gen_config(g, yajl_gen_print_callback, tpa_report__json_print, out);
        yajl_gen_map_open(g);
        gkey(g, "schema");
        ok &= gstr(g, "tfprof-analyze/diff/v1");
        gkey(g, "base");
        ok &= gstr(g, base_path);
        gkey(g, "new");
        ok &= gstr(g, new_path);
        gkey(g, "base_kept_steps");
        yajl_gen_integer(g, (long long)c->base_steps);
        gkey(g, "new_kept_steps");
        yajl_gen_integer(g, (long long)c->new_steps);
        gchange(g, "step_time_median", &c->median);
        gchange(g, "step_time_p90", &c->p90);
        gkey(g, "groups");
        yajl_gen_map_open(g);
        for (int i = 0; i < TPA_GROUP__COUNT; i++) {
                gkey(g, tpa_group_name((tpa_group)i));
                yajl_gen_map_open(g);
                gkey(g, "base_frac");
                gnum(g, c->base_group_frac[i]);
                gkey(g, "new_frac");
                gnum(g, c->new_group_frac[i]);
                /* To 0.001 pp: a saved report keeps 6 digits, so a trace and
                 * its own report differ by ~1e-6 pp, which is no shift. */
                gkey(g, "shift_pp");
                gnum(g, round(c->shift_pp[i] * 1000) / 1000);
                gkey(g, "delta_ns_per_step");
                yajl_gen_integer(g, llround(tpa_report__group_delta(c, i)));
                yajl_gen_map_close(g);
        }
        yajl_gen_map_close(g);
        gkey(g, "class");
        yajl_gen_map_open(g);
        gkey(g, "base");
        ok &= gstr(g, c->base_class);
        gkey(g, "new");
        ok &= gstr(g, c->new_class);
        gkey(g, "changed");
        yajl_gen_bool(g, c->class_changed);
        gkey(g, "steps");
        yajl_gen_array_open(g);
        for (size_t i = 0; i < c->class_count; i++) {
                yajl_gen_map_open(g);
                gkey(g, "name");
                ok &= gstr(g, c->classes[i].name);
                gkey(g, "base_steps");
                yajl_gen_integer(g, (long long)c->classes[i].base_count);
                gkey(g, "new_steps");
                yajl_gen_integer(g, (long long)c->classes[i].new_count);
                yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
        yajl_gen_map_close(g);
        gkey(g, "top_ops");
        yajl_gen_array_open(g);
        for (size_t i = 0; i < c->op_count; i++) {
                const tpa_op_change *o = &c->ops[i];
                yajl_gen_map_open(g);
                gkey(g, "change");
                ok &= gstr(g, op_kind[o->kind]);
                gkey(g, "name");
                ok &= gstr(g, o->name);
                gkey(g, "base_ns_per_step");
                yajl_gen_integer(g, llround(o->base_ns));
                gkey(g, "new_ns_per_step");
                yajl_gen_integer(g, llround(o->new_ns));
                yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
        yajl_gen_map_close(g);
        yajl_gen_free(g);
        tpa_report__json_close(out);
        return ok ? 0 : tpa_error_oom(err);
}

/* The paths in the Markdown heading: whole when both fit PATH_WHOLE
 * characters, else where they differ (at most PATH_DIFF characters of it)
 * with PATH_CONTEXT characters around, "&hellip;" for what is left out. */
enum { PATH_WHOLE = 80, PATH_DIFF = 48, PATH_CONTEXT = 24 };

static bool is_cont(char c)
{
        return ((unsigned char)c & 0xc0) == 0x80;
}

static size_t chars(const char *s, size_t from, size_t to)
{
        size_t k = 0;

        for (size_t i = from; i < to; i++)
                k += !is_cont(s[i]);
        return k;
}

/* From byte `i` of `s`, `k` characters forward (to `end` > i at most) or
 * back (to `end` < i at most). */
static size_t step_chars(const char *s, size_t i, size_t end, size_t k)
{
        for (; i != end && k > 0; k--) {
                do
                        i = end > i ? i + 1 : i - 1;
                while (i != end && is_cont(s[i]));
        }
        return i;
}

/* Write `path` as it differs from `other`. The bytes that differ, [lo, hi),
 * widen to the components around them when that adds at most PATH_CONTEXT
 * characters a side, so "logs/resnet50_num_workers_4/plugins/host.pb"
 * beside "logs/resnet50_num_workers_8/plugins/host.pb" is
 * "…/resnet50\_num\_workers\_4/…". A difference longer than PATH_DIFF
 * keeps the component where it begins and the one where it ends, or, when
 * those are long too, its first and last PATH_DIFF / 2 characters. Cuts
 * fall between characters, never inside one. */
static void md_path(FILE *fp, const char *path, const char *other)
{
        size_t n = strlen(path), m = strlen(other), lo = 0, hi, suf = 0, from, to, cut1, cut2;

        if (chars(path, 0, n) <= PATH_WHOLE && chars(other, 0, m) <= PATH_WHOLE) {
                tpa_report__md_escape_span(fp, path, n);
                return;
        }
        while (lo < n && lo < m && path[lo] == other[lo])
                lo++;
        while (suf < n - lo && suf < m - lo && path[n - 1 - suf] == other[m - 1 - suf])
                suf++;
        for (hi = n - suf; hi < n && is_cont(path[hi]); hi++)
                ;
        while (lo > 0 && is_cont(path[lo]))
                lo--;
        for (from = lo; from > 0 && path[from - 1] != '/'; from--)
                ;
        for (to = hi; to < n && path[to] != '/'; to++)
                ;
        from -= from > 0;       /* the slashes around the components too */
        to += to < n;
        if (chars(path, from, lo) > PATH_CONTEXT)
                from = step_chars(path, lo, 0, PATH_CONTEXT);
        if (chars(path, hi, to) > PATH_CONTEXT)
                to = step_chars(path, hi, n, PATH_CONTEXT);
        cut1 = cut2 = hi;
        if (chars(path, lo, hi) > PATH_DIFF) {
                for (cut1 = lo; cut1 < hi && path[cut1] != '/'; cut1++)
                        ;
                for (cut2 = hi; cut2 > cut1 && path[cut2 - 1] != '/'; cut2--)
                        ;
                if (cut2 <= cut1 + 1 || chars(path, from, cut1) > PATH_DIFF ||
                    chars(path, cut2, to) > PATH_DIFF) {
                        cut1 = step_chars(path, lo, hi, PATH_DIFF / 2);
                        cut2 = step_chars(path, hi, lo, PATH_DIFF / 2);
                } else {
                        cut1++, cut2--;         /* "/first/&hellip;/last" */
                }
        }
        if (from > 0)
                fputs("&hellip;", fp);
        tpa_report__md_escape_span(fp, path + from, cut1 - from);
        if (cut1 < cut2)
                fputs("&hellip;", fp);
        tpa_report__md_escape_span(fp, path + cut2, to - cut2);
        if (to < n)
                fputs("&hellip;", fp);
}

void tpa_report_diff_markdown(FILE *fp, const tpa_comparison *c, const char *base_path,
                              const char *new_path)
{
        char t1[32], t2[32];

        fputs("### tfprof-analyze diff: ", fp);
        if (c->median.significant)
                fprintf(fp, "median step time **%+.1f%%**", c->median.rel * 100);
        else
                fprintf(fp, "median step time %+.1f%% (not significant)", c->median.rel * 100);
        fputs("\n\n", fp);
        md_path(fp, base_path, new_path);
        fputs(" &rarr; ", fp);
        md_path(fp, new_path, base_path);
        fprintf(fp, " (%zu &rarr; %zu kept steps)\n\n", c->base_steps, c->new_steps);
        fputs("| step time | base | new | change | 95% CI | |\n"
              "| --- | ---: | ---: | ---: | ---: | --- |\n", fp);
        for (int k = 0; k < 2; k++) {
                const tpa_change *ch = k ? &c->p90 : &c->median;
                fprintf(fp, "| %s | %s | %s | %+.1f%% | ", k ? "p90" : "median",
                        tpa_report__time(t1, sizeof(t1), ch->base_ns),
                        tpa_report__time(t2, sizeof(t2), ch->new_ns), ch->rel * 100);
                if (ch->too_few)
                        fputs("- ", fp);
                else
                        fprintf(fp, "%+.1f%% .. %+.1f%% ", ch->ci_lo * 100, ch->ci_hi * 100);
                fprintf(fp, "| %s |\n", verdict(ch));
        }
        fputs("\n| median breakdown | base | new | shift | time per step |\n"
              "| --- | ---: | ---: | ---: | ---: |\n", fp);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                fprintf(fp, "| %s | %.1f%% | %.1f%% | %+.1f pp | %s |\n",
                        tpa_group_name((tpa_group)g), c->base_group_frac[g] * 100,
                        c->new_group_frac[g] * 100, c->shift_pp[g],
                        tpa_report__time_change(t1, sizeof(t1),
                                                tpa_report__group_delta(c, g)));
        fprintf(fp, "\nClass: %s &rarr; %s%s\n", c->base_class ? c->base_class : "-",
                c->new_class ? c->new_class : "-", c->class_changed ? " **(changed)**" : "");
        if (c->op_count > 0) {
                fputs("\n| top op | change | base per step | new per step |\n"
                      "| --- | --- | ---: | ---: |\n", fp);
                for (size_t i = 0; i < c->op_count; i++) {
                        const tpa_op_change *o = &c->ops[i];
                        fputs("| ", fp);
                        tpa_report__md_escape(fp, o->name, 60);
                        fprintf(fp, " | %s | %s | %s |\n", op_kind[o->kind],
                                o->kind == TPA_OP_ADDED ? "-" : tpa_report__time(t1,
                                        sizeof(t1), o->base_ns),
                                o->kind == TPA_OP_REMOVED ? "-" : tpa_report__time(t2,
                                        sizeof(t2), o->new_ns));
                }
        }
}
