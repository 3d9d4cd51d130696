/* SPDX-License-Identifier: MIT */
/*
 * tpa/compare.h - two runs side by side (doc/design.md 7: diff and check).
 * A tpa_run is the part of an analysis that comparing needs: the kept
 * steps (time, group fractions, class), the run's medians and class, the
 * top ops and the run metrics. It comes from a fresh analysis
 * (tpa_run_from_analysis) or from a saved JSON report (tpa_report_load in
 * tpa/report.h), so a report and a trace compare alike.
 */
#ifndef TPA_COMPARE_H
#define TPA_COMPARE_H

#include "analysis.h"

typedef struct tpa_run_step {
        int64_t number;
        tpa_ns  step_time;
        double  group_frac[TPA_GROUP__COUNT];
        char   *class_name;             /* NULL: none */
} tpa_run_step;

typedef struct tpa_run_op {
        char    *name;
        tpa_ns   time;                  /* over all kept steps */
        uint64_t count;
        double   frac;                  /* time / kept step time */
} tpa_run_op;

typedef struct tpa_run_metric {
        char  *name;
        double value;
} tpa_run_metric;

typedef struct tpa_run_finding {
        char        *name;
        tpa_severity severity;
        char        *message;
        double       gain_frac;         /* < 0: none */
} tpa_run_finding;

/* Everything a tpa_run points to is owned by it. */
typedef struct tpa_run {
        tpa_run_step   *steps;          /* kept steps only, in time order */
        size_t          step_count;
        tpa_ns          step_time_median, step_time_p90;
        double          run_group_frac[TPA_GROUP__COUNT];
        char           *run_class;      /* NULL: no rules, or no verdict */
        char           *no_verdict;     /* why the run has no verdict; NULL: it has one */
        bool            no_markers;     /* one step for the whole trace: no marker or
                                           iteration was found */
        tpa_run_op     *ops;            /* ops by device time, ranked */
        size_t          op_count;
        size_t          op_listed;      /* the top ops are the first op_listed (0: all);
                                           the rest are there to look an op up */
        bool            ops_partial;    /* ops may lack ops below the top (a saved
                                           report): an op missing is unknown, not absent */
        tpa_run_metric *metrics;        /* run metrics (doc/metrics.md), by name */
        size_t          metric_count;
        /* What a saved report is re-rendered with besides the above. */
        tpa_run_finding *findings;      /* run findings, in rule order */
        size_t           finding_count;
        char            *trace_path;    /* the trace analysed; NULL: unknown */
} tpa_run;

/* The comparable part of `a` in *out (copies; `a` may go first). Free it
 * with tpa_run_free(). TPA_ENOMEM on failure. */
int  tpa_run_from_analysis(tpa_run **out, const tpa_analysis *a, tpa_error *err);
void tpa_run_free(tpa_run *r);                  /* NULL is a no-op */
/* A tpa_metric_fn over a run's metrics; ctx is a const tpa_run *. */
bool tpa_run_metric_fn(void *ctx, const char *name, size_t len, double *out);

typedef struct tpa_compare_options {
        uint64_t seed;                  /* bootstrap PRNG seed; 0: a fixed default */
        unsigned resamples;             /* bootstrap resamples; 0: 2000 */
        double   confidence;            /* two-sided level; 0: 0.95 */
        double   op_slower_min;         /* an op is "slower" above this relative growth
                                         * per step; 0: 0.10 */
} tpa_compare_options;
#define TPA_COMPARE_OPTIONS_INIT { .seed = 0, .resamples = 0, .confidence = 0, \
                                   .op_slower_min = 0 }

/* A change of one step-time statistic, NEW against BASE. */
typedef struct tpa_change {
        double base_ns, new_ns;         /* the statistic on each side */
        double rel;                     /* new / base - 1; 0 when base is 0 */
        double ci_lo, ci_hi;            /* confidence interval of rel (bootstrap) */
        bool   significant;             /* the interval excludes 0 */
        bool   too_few;                 /* fewer than 3 steps on a side: no interval;
                                         * ci_lo = ci_hi = rel, significant = rel != 0 */
} tpa_change;

typedef enum tpa_op_change_kind {
        TPA_OP_ADDED = 0,               /* in NEW's top ops only */
        TPA_OP_REMOVED,                 /* in BASE's top ops only */
        TPA_OP_SLOWER,                  /* in both, per-step time grew */
        TPA_OP_FASTER,                  /* in both, per-step time shrank */
} tpa_op_change_kind;

typedef struct tpa_op_change {
        const char        *name;        /* borrowed from the runs */
        tpa_op_change_kind kind;
        double             base_ns, new_ns;     /* mean time per kept step; 0: absent */
} tpa_op_change;

typedef struct tpa_class_shift {
        const char *name;               /* borrowed from the runs */
        size_t      base_count, new_count;
} tpa_class_shift;

typedef struct tpa_comparison {
        size_t           base_steps, new_steps;  /* kept steps compared */
        tpa_change       median, p90;
        double           base_group_frac[TPA_GROUP__COUNT];
        double           new_group_frac[TPA_GROUP__COUNT];
        double           shift_pp[TPA_GROUP__COUNT];     /* (new - base) * 100 */
        const char      *base_class, *new_class;         /* NULL: none */
        bool             class_changed;
        tpa_class_shift *classes;       /* step counts per class, by name */
        size_t           class_count;
        tpa_op_change   *ops;           /* added, removed, then slower and faster ops */
        size_t           op_count;
} tpa_comparison;

/* Compare NEW against BASE. The result borrows names from both runs: free
 * it first. Deterministic: the bootstrap uses its own seeded PRNG.
 * TPA_EFORMAT when a run has no kept steps, TPA_ENOMEM. */
int  tpa_compare(tpa_comparison **out, const tpa_run *base, const tpa_run *cur,
                 const tpa_compare_options *opts, tpa_error *err);
void tpa_comparison_free(tpa_comparison *c);    /* NULL is a no-op */

#endif
