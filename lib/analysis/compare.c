/* SPDX-License-Identifier: MIT */
/*
 * compare.c - two runs side by side for diff and check: the change of the
 * median and p90 step time with a bootstrap confidence interval over the
 * kept steps (seeded PRNG: the same inputs give the same interval), group
 * shifts in percentage points, class changes and top-op changes. Also the
 * tpa_run summary that a fresh analysis or a saved JSON report gives.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "results_build.h"
#include <tpa/compare.h>

/* ---- tpa_run ---------------------------------------------------------------- */

/* A tpa_run keeps every run metric the analysis has (doc/metrics.md). */
#define RUN_METRIC_COUNT tpa_analysis_metric_count()

int tpa_run__new(tpa_run **out, tpa_error *err)
{
        tpa_run *r = calloc(1, sizeof(*r));

        if (r == NULL)
                return tpa_error_oom(err);
        *out = r;
        return 0;
}

void tpa_run_free(tpa_run *r)
{
        if (r == NULL)
                return;
        for (size_t i = 0; i < r->step_count; i++)
                free(r->steps[i].class_name);
        for (size_t i = 0; i < r->op_count; i++)
                free(r->ops[i].name);
        for (size_t i = 0; i < r->metric_count; i++)
                free(r->metrics[i].name);
        for (size_t i = 0; i < r->finding_count; i++) {
                free(r->findings[i].name);
                free(r->findings[i].message);
        }
        free(r->findings);
        free(r->trace_path);
        free(r->steps);
        free(r->ops);
        free(r->metrics);
        free(r->run_class);
        free(r->no_verdict);
        free(r);
}

static char *dup_str(const char *s)
{
        size_t n;
        char *d;

        if (s == NULL)
                return NULL;
        n = strlen(s) + 1;
        d = malloc(n);
        if (d != NULL)
                memcpy(d, s, n);
        return d;
}

int tpa_run_from_analysis(tpa_run **out, const tpa_analysis *a, tpa_error *err)
{
        size_t nops = a->device_op_total > a->device_op_count ? a->device_op_total
                                                               : a->device_op_count;
        tpa_run *r;
        size_t k = 0;

        if (tpa_run__new(&r, err) < 0)
                return TPA_ENOMEM;
        r->steps = calloc(a->kept_count ? a->kept_count : 1, sizeof(*r->steps));
        r->ops = calloc(nops ? nops : 1, sizeof(*r->ops));
        r->metrics = calloc(RUN_METRIC_COUNT, sizeof(*r->metrics));
        if (r->steps == NULL || r->ops == NULL || r->metrics == NULL)
                goto oom;
        for (size_t i = 0; i < a->step_count && k < a->kept_count; i++) {
                const tpa_step *s = &a->steps[i];
                tpa_run_step *d = &r->steps[k];
                if (s->excluded)
                        continue;
                d->number = s->number;
                d->step_time = s->step_time;
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        d->group_frac[tpa_bucket_group((tpa_bucket)b)] += s->frac[b];
                r->step_count = ++k;
                if (s->class_name != NULL && (d->class_name = dup_str(s->class_name)) == NULL)
                        goto oom;
        }
        r->step_time_median = a->step_time_median;
        r->step_time_p90 = a->step_time_p90;
        memcpy(r->run_group_frac, a->run_group_frac, sizeof(r->run_group_frac));
        if (a->run_class != NULL && (r->run_class = dup_str(a->run_class)) == NULL)
                goto oom;
        if (a->no_verdict != NULL && (r->no_verdict = dup_str(a->no_verdict)) == NULL)
                goto oom;
        r->no_markers = a->no_markers;
        /* every op, so that one below the other run's top is found there,
         * never taken for added or removed */
        r->op_listed = a->device_op_count;
        for (size_t i = 0; i < nops; i++) {
                tpa_run_op *o = &r->ops[i];
                o->time = a->device_ops[i].time;
                o->count = a->device_ops[i].count;
                o->frac = a->device_ops[i].frac;
                r->op_count = i + 1;
                if ((o->name = dup_str(a->device_ops[i].name)) == NULL)
                        goto oom;
        }
        for (size_t i = 0; i < RUN_METRIC_COUNT; i++) {
                const char *n = tpa_analysis_metric_name(i);
                double v;
                if (!tpa_analysis_metric(a, -1, n, strlen(n), &v))
                        continue;
                r->metrics[r->metric_count].value = v;
                if ((r->metrics[r->metric_count].name = dup_str(n)) == NULL)
                        goto oom;
                r->metric_count++;
        }
        if (a->finding_count > 0 &&
            (r->findings = calloc(a->finding_count, sizeof(*r->findings))) == NULL)
                goto oom;
        for (size_t i = 0; i < a->finding_count; i++) {
                tpa_run_finding *f = &r->findings[i];
                f->severity = a->findings[i].severity;
                f->gain_frac = a->findings[i].gain_frac;
                r->finding_count = i + 1;
                if ((f->name = dup_str(a->findings[i].name)) == NULL ||
                    (f->message = dup_str(a->findings[i].message)) == NULL)
                        goto oom;
        }
        *out = r;
        return 0;
oom:
        tpa_run_free(r);
        return tpa_error_oom(err);
}

bool tpa_run_metric_fn(void *ctx, const char *name, size_t len, double *out)
{
        const tpa_run *r = ctx;

        for (size_t i = 0; i < r->metric_count; i++) {
                if (strlen(r->metrics[i].name) == len &&
                    memcmp(r->metrics[i].name, name, len) == 0) {
                        *out = r->metrics[i].value;
                        return true;
                }
        }
        return false;
}

/* ---- the bootstrap ------------------------------------------------------------ */

/* splitmix64 (Steele, Lea, Flood 2014): small, seedable, good enough to
 * draw resample indexes; the output never depends on the platform. */
static uint64_t next_u64(uint64_t *state)
{
        uint64_t z = (*state += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
}

static double resampled_quantile(uint64_t *rng, const tpa_ns *v, size_t n, double q,
                                 double *scratch)
{
        for (size_t i = 0; i < n; i++)
                scratch[i] = (double)v[next_u64(rng) % n];
        return tpa_analysis__quantile(scratch, n, q);
}

static double rel_change(double base, double cur)
{
        return base > 0 ? cur / base - 1.0 : 0.0;
}

int tpa_compare__quantile(tpa_change *out, const tpa_ns *base, size_t nb, const tpa_ns *cur,
                          size_t nc, double q, const tpa_compare_options *opts,
                          tpa_error *err)
{
        tpa_compare_options o = opts ? *opts : (tpa_compare_options)TPA_COMPARE_OPTIONS_INIT;
        uint64_t rng;
        double *scratch, *rel;
        tpa_change c;
        double alpha;

        if (nb == 0 || nc == 0)
                return tpa_error_setf(err, TPA_EINVAL, "no kept steps to compare");
        if (o.resamples == 0)
                o.resamples = 2000;
        if (o.confidence <= 0 || o.confidence >= 1)
                o.confidence = 0.95;
        rng = o.seed ? o.seed : 0x7466707266ull;        /* "tfprf" */
        scratch = malloc((nb > nc ? nb : nc) * sizeof(*scratch));
        rel = malloc(o.resamples * sizeof(*rel));
        if (scratch == NULL || rel == NULL) {
                free(scratch);
                free(rel);
                return tpa_error_oom(err);
        }
        memset(&c, 0, sizeof(c));
        for (size_t i = 0; i < nb; i++)
                scratch[i] = (double)base[i];
        c.base_ns = tpa_analysis__quantile(scratch, nb, q);
        for (size_t i = 0; i < nc; i++)
                scratch[i] = (double)cur[i];
        c.new_ns = tpa_analysis__quantile(scratch, nc, q);
        c.rel = rel_change(c.base_ns, c.new_ns);
        if (nb < 3 || nc < 3) {
                /* No spread to resample: the point estimate is all there is. */
                c.too_few = true;
                c.ci_lo = c.ci_hi = c.rel;
                c.significant = c.rel != 0;
        } else {
                for (unsigned r = 0; r < o.resamples; r++) {
                        double b = resampled_quantile(&rng, base, nb, q, scratch);
                        double n = resampled_quantile(&rng, cur, nc, q, scratch);
                        rel[r] = rel_change(b, n);
                }
                alpha = (1.0 - o.confidence) / 2;
                c.ci_lo = tpa_analysis__quantile(rel, o.resamples, alpha);
                c.ci_hi = tpa_analysis__quantile(rel, o.resamples, 1.0 - alpha);
                c.significant = c.ci_lo > 0 || c.ci_hi < 0;
        }
        free(scratch);
        free(rel);
        *out = c;
        return 0;
}

/* ---- the comparison ----------------------------------------------------------- */

void tpa_comparison_free(tpa_comparison *c)
{
        if (c == NULL)
                return;
        free(c->classes);
        free(c->ops);
        free(c);
}

static int add_class(tpa_comparison *c, const char *name, bool is_new)
{
        size_t i;

        if (name == NULL)
                return 0;
        for (i = 0; i < c->class_count; i++)
                if (strcmp(c->classes[i].name, name) == 0)
                        break;
        if (i == c->class_count) {
                tpa_class_shift *v = realloc(c->classes, (i + 1) * sizeof(*v));
                if (v == NULL)
                        return -1;
                c->classes = v;
                c->classes[i] = (tpa_class_shift){ .name = name };
                c->class_count++;
        }
        if (is_new)
                c->classes[i].new_count++;
        else
                c->classes[i].base_count++;
        return 0;
}

static int cmp_class(const void *pa, const void *pb)
{
        const tpa_class_shift *x = pa, *y = pb;
        return strcmp(x->name, y->name);
}

static const tpa_run_op *find_op(const tpa_run *r, const char *name)
{
        for (size_t i = 0; i < r->op_count; i++)
                if (strcmp(r->ops[i].name, name) == 0)
                        return &r->ops[i];
        return NULL;
}

static size_t listed(const tpa_run *r)
{
        return r->op_listed > 0 && r->op_listed < r->op_count ? r->op_listed : r->op_count;
}

/* An op in both runs: slower or faster by more than `min` (a fraction),
 * into ch->kind; false when neither. */
static bool speed_change(tpa_op_change *ch, double min)
{
        if (ch->new_ns > ch->base_ns * (1 + min))
                ch->kind = TPA_OP_SLOWER;
        else if (ch->new_ns < ch->base_ns * (1 - min))
                ch->kind = TPA_OP_FASTER;
        else
                return false;
        return true;
}

static double per_step(const tpa_run *r, const tpa_run_op *o)
{
        return r->step_count ? (double)o->time / (double)r->step_count : 0.0;
}

/* Added, removed, slower, faster; within a kind the largest change first,
 * then by name, so the order never depends on the input order. */
static int cmp_op_change(const void *pa, const void *pb)
{
        const tpa_op_change *x = pa, *y = pb;
        double dx, dy;

        if (x->kind != y->kind)
                return (int)x->kind - (int)y->kind;
        dx = x->new_ns - x->base_ns;
        dy = y->new_ns - y->base_ns;
        if (dx < 0)
                dx = -dx;
        if (dy < 0)
                dy = -dy;
        if (dx != dy)
                return dx > dy ? -1 : 1;
        return strcmp(x->name, y->name);
}

int tpa_compare(tpa_comparison **out, const tpa_run *base, const tpa_run *cur,
                const tpa_compare_options *opts, tpa_error *err)
{
        tpa_compare_options o = opts ? *opts : (tpa_compare_options)TPA_COMPARE_OPTIONS_INIT;
        tpa_comparison *c;
        tpa_ns *tb = NULL, *tn = NULL;
        int rc;

        if (o.op_slower_min <= 0)
                o.op_slower_min = 0.10;
        if (base->step_count == 0 || cur->step_count == 0)
                return tpa_error_setf(err, TPA_EFORMAT, "%s run has no kept steps",
                                      base->step_count == 0 ? "the base" : "the new");
        c = calloc(1, sizeof(*c));
        tb = malloc(base->step_count * sizeof(*tb));
        tn = malloc(cur->step_count * sizeof(*tn));
        if (c == NULL || tb == NULL || tn == NULL)
                goto oom;
        for (size_t i = 0; i < base->step_count; i++)
                tb[i] = base->steps[i].step_time;
        for (size_t i = 0; i < cur->step_count; i++)
                tn[i] = cur->steps[i].step_time;
        c->base_steps = base->step_count;
        c->new_steps = cur->step_count;
        rc = tpa_compare__quantile(&c->median, tb, base->step_count, tn, cur->step_count, 0.5,
                                   &o, err);
        if (rc == 0)
                rc = tpa_compare__quantile(&c->p90, tb, base->step_count, tn,
                                           cur->step_count, 0.9, &o, err);
        if (rc < 0) {
                free(tb);
                free(tn);
                tpa_comparison_free(c);
                return rc;
        }
        for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                c->base_group_frac[g] = base->run_group_frac[g];
                c->new_group_frac[g] = cur->run_group_frac[g];
                c->shift_pp[g] = (cur->run_group_frac[g] - base->run_group_frac[g]) * 100;
        }
        c->base_class = base->run_class;
        c->new_class = cur->run_class;
        c->class_changed = (base->run_class == NULL) != (cur->run_class == NULL) ||
                           (base->run_class != NULL &&
                            strcmp(base->run_class, cur->run_class) != 0);
        for (size_t i = 0; i < base->step_count; i++)
                if (add_class(c, base->steps[i].class_name, false) < 0)
                        goto oom;
        for (size_t i = 0; i < cur->step_count; i++)
                if (add_class(c, cur->steps[i].class_name, true) < 0)
                        goto oom;
        if (c->class_count > 1)
                qsort(c->classes, c->class_count, sizeof(*c->classes), cmp_class);

        c->ops = calloc(base->op_count + cur->op_count + 1, sizeof(*c->ops));
        if (c->ops == NULL)
                goto oom;
        for (size_t i = 0; i < listed(cur); i++) {
                const tpa_run_op *n = &cur->ops[i], *b = find_op(base, n->name);
                tpa_op_change ch = { .name = n->name, .new_ns = per_step(cur, n) };
                if (b == NULL && base->ops_partial) {
                        continue;       /* below base's top: its time is unknown */
                } else if (b == NULL) {
                        ch.kind = TPA_OP_ADDED;
                } else {
                        ch.base_ns = per_step(base, b);
                        if (!speed_change(&ch, o.op_slower_min))
                                continue;
                }
                c->ops[c->op_count++] = ch;
        }
        for (size_t i = 0; i < listed(base); i++) {
                const tpa_run_op *b = &base->ops[i], *n = find_op(cur, b->name);
                tpa_op_change ch = { .name = b->name, .base_ns = per_step(base, b) };
                if (n == NULL) {
                        if (cur->ops_partial)
                                continue;       /* below new's top: unknown */
                        ch.kind = TPA_OP_REMOVED;
                } else if ((size_t)(n - cur->ops) < listed(cur)) {
                        continue;               /* compared above */
                } else {                        /* fell out of new's top */
                        ch.new_ns = per_step(cur, n);
                        if (!speed_change(&ch, o.op_slower_min))
                                continue;
                }
                c->ops[c->op_count++] = ch;
        }
        if (c->op_count > 1)
                qsort(c->ops, c->op_count, sizeof(*c->ops), cmp_op_change);
        free(tb);
        free(tn);
        *out = c;
        return 0;
oom:
        free(tb);
        free(tn);
        tpa_comparison_free(c);
        return tpa_error_oom(err);
}
