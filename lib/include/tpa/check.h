/* SPDX-License-Identifier: MIT */
/*
 * tpa/check.h - the outcome of a CI gate (doc/design.md 7: check): one entry
 * per condition, as the command line evaluated it, for the reports to
 * write (tpa_report_check_text() and its twins in tpa/report.h).
 */
#ifndef TPA_CHECK_H
#define TPA_CHECK_H

#include "compare.h"

typedef enum tpa_check_kind {
        TPA_CHECK_REGRESSION = 0,       /* --baseline: median step time against a baseline */
        TPA_CHECK_EXPR,                 /* --fail-if EXPR over the run's metrics */
        TPA_CHECK_CLASS,                /* --fail-on CLASS */
} tpa_check_kind;

/* A metric an expression names, and its value for the run. */
typedef struct tpa_check_metric {
        char   name[64];
        double value;
} tpa_check_metric;

#define TPA_CHECK_METRICS_MAX 8

/* One condition and whether it tripped. Pointers are borrowed: the
 * caller keeps what they point to alive while the check is written. */
typedef struct tpa_check {
        tpa_check_kind kind;
        bool           tripped;
        /* REGRESSION: the baseline's path, the comparison against it, and
         * the limit on the median's growth (a fraction). When a side has
         * too few steps to estimate noise (c->median.too_few), the limit
         * alone decides, and the reports say so. */
        const char           *baseline;
        const tpa_comparison *cmp;
        double                max_regression;
        /* EXPR: the expression and the metrics it names, in the order it
         * names them (at most TPA_CHECK_METRICS_MAX). */
        const char       *expr;
        tpa_check_metric  metrics[TPA_CHECK_METRICS_MAX];
        size_t            metric_count;
        /* CLASS: the class that fails, and the run's (NULL: no verdict). */
        const char *class_name;
        const char *run_class;
} tpa_check;

#endif
