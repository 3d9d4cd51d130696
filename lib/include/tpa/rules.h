/* SPDX-License-Identifier: MIT */
/*
 * tpa/rules.h - the rule engine (doc/design.md 5.5): named thresholds, classes
 * (first match wins) and findings with message templates, written in a small
 * expression language over the metric names of doc/metrics.md. The language
 * is described in doc/rules.md.
 */
#ifndef TPA_RULES_H
#define TPA_RULES_H

#include "common.h"

/* A loaded rule set: thresholds, classes and findings, in file order. */
typedef struct tpa_rules tpa_rules;

typedef enum tpa_severity {
        TPA_SEVERITY_INFO    = 0,
        TPA_SEVERITY_WARNING = 1,
        TPA_SEVERITY_ERROR   = 2,
} tpa_severity;

/* Look up a metric by name (not NUL-terminated); false when unknown. */
typedef bool (*tpa_metric_fn)(void *ctx, const char *name, size_t len, double *out);

/* The longest message of a finding, bytes, with its NUL. */
#define TPA_FINDING_MESSAGE_MAX 512

typedef struct tpa_finding {
        char         name[64];      /* rule name, e.g. "input_pipeline" */
        tpa_severity severity;
        /* the template rendered: {metric} {metric:%} {metric:ms} ...; in the
         * block that holds the finding (tpa_rules_findings()) */
        const char  *message;
        double       gain_frac;     /* what-if gain (fraction of step time); < 0: none */
} tpa_finding;

/* A new rule set holding the compiled-in rules/default.tpr. On success *out
 * owns it; free it with tpa_rules_free(). */
int  tpa_rules_new_default(tpa_rules **out, tpa_error *err);
/* Read the rule file at `path` into `r`: with `replace` false it extends the
 * set (its thresholds override, its classes are tried before the ones already
 * loaded, its findings are added); with `replace` true it replaces the set.
 * Errors are TPA_ERULE with err->path = path and err->line/column, or TPA_EIO.
 * On failure `r` is unchanged. */
int  tpa_rules_load_file(tpa_rules *r, const char *path, bool replace, tpa_error *err);
/* As tpa_rules_load_file() with replace false, from `len` bytes of `text`
 * (any bytes; need not be NUL-terminated); `name` (borrowed, may be NULL) is
 * what errors give as err->path. */
int  tpa_rules_load_string(tpa_rules *r, const char *text, size_t len, const char *name,
                           tpa_error *err);
/* Override a threshold from "NAME=VALUE" (e.g. "gap.min=20us"): TPA_EINVAL
 * for an unknown threshold or a bad value. */
int  tpa_rules_set_threshold(tpa_rules *r, const char *name_eq_value, tpa_error *err);
/* The value of threshold `name`; false when there is none. */
bool tpa_rules_threshold(const tpa_rules *r, const char *name, double *out);
/* The first class whose condition holds; *out_class is borrowed from r.
 * TPA_ERULE (with the rule's file:line:column) for an unknown metric, or
 * when no class matches. */
int  tpa_rules_classify(const tpa_rules *r, tpa_metric_fn fn, void *ctx,
                        const char **out_class, tpa_error *err);
/* All findings whose condition holds, in file order; *out is one malloc'd
 * block, the findings and then their messages (free it; NULL when *count
 * is 0). */
int  tpa_rules_findings(const tpa_rules *r, tpa_metric_fn fn, void *ctx,
                        tpa_finding **out, size_t *count, tpa_error *err);
/* tpa_rules_classify() then tpa_rules_findings(), with one look-up of
 * each metric for both (a step's verdict, as the analysis makes it). */
int  tpa_rules_classify_findings(const tpa_rules *r, tpa_metric_fn fn, void *ctx,
                                 const char **out_class, tpa_finding **out, size_t *count,
                                 tpa_error *err);
/* The rule set compiled for many queries over one numbering of the
 * metrics: each name resolved once, to a threshold or to a place in the
 * caller's vector of values, so that a query is no look-up per name (the
 * analysis asks one for each step). */
typedef struct tpa_rules_plan tpa_rules_plan;

/* The place of metric `name` (len bytes, not NUL-terminated) in the
 * vectors a plan's queries are given, or -1 when they hold no metric of
 * that name. */
typedef int (*tpa_metric_index_fn)(void *ctx, const char *name, size_t len);

/* Compile `r`, with its thresholds and overrides as they are now, for
 * vectors numbered by `index` (called while compiling, not after). On
 * success *out owns the plan; free it with tpa_rules_plan_free(), before
 * `r` changes or is freed. */
int  tpa_rules_plan_new(tpa_rules_plan **out, const tpa_rules *r, tpa_metric_index_fn index,
                        void *ctx, tpa_error *err);
/* tpa_rules_classify_findings() over the values in `metric`, each at the
 * place `index` gave: the same class, findings and errors (a name with
 * no place is an unknown metric when it is evaluated). Plans are not
 * changed by queries: threads may share one. */
int  tpa_rules_plan_verdict(const tpa_rules_plan *p, const double *metric,
                            const char **out_class, tpa_finding **out, size_t *count,
                            tpa_error *err);
/* NULL is a no-op. */
void tpa_rules_plan_free(tpa_rules_plan *p);

/* Evaluate one expression in the rule language (for check --fail-if);
 * thresholds are visible. Errors give err->column in `expr`. */
int  tpa_rules_eval(const tpa_rules *r, const char *expr, tpa_metric_fn fn, void *ctx,
                    double *out, tpa_error *err);
/* Names of the classes the rule set can produce (no duplicates, in the order
 * they are tried), for --fail-on validation. */
size_t      tpa_rules_class_count(const tpa_rules *r);
const char *tpa_rules_class_name(const tpa_rules *r, size_t i);
/* NULL is a no-op. */
void tpa_rules_free(tpa_rules *r);

#endif
