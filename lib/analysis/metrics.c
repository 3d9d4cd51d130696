/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - the evidence of doc/design.md 5.4 per step (device idle gaps,
 * copies, Python gaps on the driving thread, launches, what-if gains), the
 * run summary over kept steps (medians, top gaps with the host events that
 * overlapped them, copies per direction, the events of the top ops for
 * top_ops.c), the classes and findings from the rules, and the metric names
 * of doc/metrics.md.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

#define B(x) (M_BUCKET_NS + TPA_BUCKET_##x)
#define F(x) (M_BUCKET_FRAC + TPA_BUCKET_##x)

/* A name and its length, so that a look-up compares lengths, not strlen()s:
 * the rules look up some 60 names per step (bench/). */
#define N(s) s, sizeof(s) - 1

static const struct metric_name {
        const char *name;
        size_t      len;
        int         idx;
} metric_names[] = {
        { N("step_time_ns"), M_STEP_TIME },
        { N("compute_ns"), B(COMPUTE) }, { N("compute_frac"), F(COMPUTE) },
        { N("transfer_ns"), M_TRANSFER_NS }, { N("transfer_frac"), M_TRANSFER_FRAC },
        { N("transfer_h2d_ns"), B(H2D) }, { N("transfer_h2d_frac"), F(H2D) },
        { N("transfer_d2h_ns"), B(D2H) }, { N("transfer_d2h_frac"), F(D2H) },
        { N("transfer_d2d_ns"), B(D2D) }, { N("transfer_d2d_frac"), F(D2D) },
        { N("transfer_p2p_ns"), B(P2P) }, { N("transfer_p2p_frac"), F(P2P) },
        { N("sync_ns"), M_SYNC_NS }, { N("sync_frac"), M_SYNC_FRAC },
        { N("sync_host_wait_ns"), B(SYNC_HOST_WAIT) },
        { N("sync_host_wait_frac"), F(SYNC_HOST_WAIT) },
        { N("sync_collective_ns"), B(SYNC_COLLECTIVE) },
        { N("sync_collective_frac"), F(SYNC_COLLECTIVE) },
        { N("input_ns"), B(INPUT) }, { N("input_frac"), F(INPUT) },
        { N("input_host_ns"), M_INPUT_HOST_NS }, { N("input_host_frac"), M_INPUT_HOST_FRAC },
        { N("host_py_op_ns"), M_PY_OP_NS }, { N("host_py_op_frac"), M_PY_OP_FRAC },
        { N("host_checkpoint_ns"), M_CKPT_NS }, { N("host_checkpoint_frac"), M_CKPT_FRAC },
        { N("host_compile_ns"), M_COMPILE_NS }, { N("host_compile_frac"), M_COMPILE_FRAC },
        { N("host_ns"), M_HOST_NS }, { N("host_frac"), M_HOST_FRAC },
        { N("host_launch_ns"), B(HOST_LAUNCH) }, { N("host_launch_frac"), F(HOST_LAUNCH) },
        { N("host_setup_ns"), B(HOST_SETUP) }, { N("host_setup_frac"), F(HOST_SETUP) },
        { N("host_python_ns"), B(HOST_PYTHON) }, { N("host_python_frac"), F(HOST_PYTHON) },
        { N("host_compute_ns"), B(HOST_COMPUTE) }, { N("host_compute_frac"), F(HOST_COMPUTE) },
        { N("idle_ns"), B(IDLE) }, { N("idle_frac"), F(IDLE) },
        { N("max_other_frac"), M_MAX_OTHER_FRAC }, { N("cpu_only"), M_CPU_ONLY },
        { N("devices"), M_DEVICES },
        { N("framework_tf"), M_FRAMEWORK_TF }, { N("framework_pytorch"), M_FRAMEWORK_PYTORCH },
        { N("tf_function"), M_TF_FUNCTION }, { N("loader_workers"), M_LOADER_WORKERS },
        { N("tf_data_prefetch"), M_TF_DATA_PREFETCH },
        { N("tf_data_parallel"), M_TF_DATA_PARALLEL },
        { N("tf_py_function"), M_TF_PY_FUNCTION },
        { N("tf_data_generator"), M_TF_DATA_GENERATOR },
        { N("torch_compiled"), M_TORCH_COMPILED },
        { N("runtime_cuda"), M_RUNTIME_CUDA }, { N("runtime_rocm"), M_RUNTIME_ROCM },
        { N("runtime_mtia"), M_RUNTIME_MTIA }, { N("device_busy_frac"), M_DEVICE_BUSY_FRAC },
        { N("gap_count"), M_GAP_COUNT }, { N("gap_total_ns"), M_GAP_TOTAL },
        { N("gap_max_ns"), M_GAP_MAX }, { N("gap_frac"), M_GAP_FRAC },
        { N("copy_count"), M_COPY_COUNT }, { N("copy_ns"), M_COPY_NS },
        { N("copy_bytes"), M_COPY_BYTES }, { N("copy_frac"), M_COPY_FRAC },
        { N("copy_exposed_frac"), M_COPY_EXPOSED_FRAC },
        { N("small_copy_count"), M_SMALL_COPY_COUNT },
        { N("h2d_count"), M_DIR_COUNT + 0 }, { N("d2h_count"), M_DIR_COUNT + 1 },
        { N("d2d_count"), M_DIR_COUNT + 2 }, { N("p2p_count"), M_DIR_COUNT + 3 },
        { N("h2d_bytes"), M_DIR_BYTES + 0 }, { N("d2h_bytes"), M_DIR_BYTES + 1 },
        { N("d2d_bytes"), M_DIR_BYTES + 2 }, { N("p2p_bytes"), M_DIR_BYTES + 3 },
        { N("h2d_gbps"), M_DIR_GBPS + 0 }, { N("d2h_gbps"), M_DIR_GBPS + 1 },
        { N("d2d_gbps"), M_DIR_GBPS + 2 }, { N("p2p_gbps"), M_DIR_GBPS + 3 },
        { N("host_gap_count"), M_HOST_GAP_COUNT }, { N("host_gap_ns"), M_HOST_GAP_NS },
        { N("host_gap_frac"), M_HOST_GAP_FRAC }, { N("host_gap_median_ns"), M_HOST_GAP_MEDIAN },
        { N("host_gap_per_ms"), M_HOST_GAP_PER_MS },
        { N("host_gap_max_ns"), M_HOST_GAP_MAX }, { N("host_gap_max_frac"), M_HOST_GAP_MAX_FRAC },
        { N("launch_count"), M_LAUNCH_COUNT },
        { N("launch_slow_count"), M_LAUNCH_SLOW_COUNT }, { N("launch_slow_ns"), M_LAUNCH_SLOW_NS },
        { N("launch_slow_frac"), M_LAUNCH_SLOW_FRAC },
        { N("gain_transfer_frac"), M_GAIN + TPA_GROUP_TRANSFER },
        { N("gain_sync_frac"), M_GAIN + TPA_GROUP_SYNC },
        { N("gain_input_frac"), M_GAIN + TPA_GROUP_INPUT },
        { N("gain_host_frac"), M_GAIN + TPA_GROUP_HOST },
        { N("gain_idle_frac"), M_GAIN + TPA_GROUP_IDLE },
        /* run only */
        { N("steps"), M_STEPS }, { N("kept_steps"), M_KEPT_STEPS },
        { N("excluded_steps"), M_EXCLUDED_STEPS }, { N("step_time_p90_ns"), M_P90 },
        { N("step_time_min_ns"), M_MIN }, { N("step_time_max_ns"), M_MAX },
};
#undef N
#define METRIC_NAME_COUNT (sizeof(metric_names) / sizeof(metric_names[0]))

size_t tpa_analysis_metric_count(void)
{
        return METRIC_NAME_COUNT;
}

const char *tpa_analysis_metric_name(size_t i)
{
        return i < METRIC_NAME_COUNT ? metric_names[i].name : NULL;
}

/* The index of metric `name`, or -1 when there is none. */
static int metric_index(const char *name, size_t len)
{
        for (size_t i = 0; i < METRIC_NAME_COUNT; i++) {
                const struct metric_name *m = &metric_names[i];
                if (m->len == len && m->name[0] == name[0] && memcmp(m->name, name, len) == 0)
                        return m->idx;
        }
        return -1;
}

/* Metric `idx` (or none, -1) of a step or the run, as tpa_analysis_metric(). */
static bool metric_value(const tpa_analysis *a, int step, int idx, double *out)
{
        if (idx < 0)
                return false;
        if (step < 0) {
                if (a->run_metric == NULL)
                        return false;
                *out = a->run_metric[idx];
                return true;
        }
        if ((size_t)step >= a->step_count || idx >= M_STEP__COUNT)
                return false;
        *out = a->steps[step].metric[idx];
        return true;
}

bool tpa_analysis_metric(const tpa_analysis *a, int step, const char *name, size_t len,
                         double *out)
{
        return metric_value(a, step, metric_index(name, len), out);
}

bool tpa_analysis_metric_fn(void *ctx, const char *name, size_t len, double *out)
{
        const tpa_analysis_metric_ctx *m = ctx;
        return tpa_analysis_metric(m->a, m->step, name, len, out);
}

/* ---- per step ------------------------------------------------------------ */

/* The run's top gaps: longest first, then earliest, then by device (no
 * two gaps tie: one device's gaps do not share a start). */
static int cmp_gap(const void *pa, const void *pb)
{
        const tpa_gap *x = pa, *y = pb;
        if (x->len != y->len)
                return x->len > y->len ? -1 : 1;
        if (x->start != y->start)
                return x->start < y->start ? -1 : 1;
        return x->device - y->device;
}

/* The `top` first gaps in cmp_gap() order of those offered, as a heap
 * whose root v[0] is the last of them (speed and memory: a large trace
 * has tens of thousands of gaps, and keeping and sorting all is waste). */
typedef struct gap_list {
        tpa_gap *v;
        size_t   n, cap, top;
} gap_list;

static void gap_swap(tpa_gap *v, size_t i, size_t j)
{
        tpa_gap t = v[i];

        v[i] = v[j];
        v[j] = t;
}

static int keep_gap(gap_list *g, const tpa_gap *x, tpa_error *err)
{
        size_t i;

        if (g->n == g->cap && g->n < g->top) {
                size_t cap = g->cap ? g->cap * 2 : 32;
                tpa_gap *v = realloc(g->v, (cap < g->top ? cap : g->top) * sizeof(*v));
                if (v == NULL)
                        return tpa_error_oom(err);
                g->v = v;
                g->cap = cap < g->top ? cap : g->top;
        }
        if (g->n < g->top) {
                /* in at the bottom, up while after its parent */
                for (i = g->n++, g->v[i] = *x;
                     i > 0 && cmp_gap(&g->v[i], &g->v[(i - 1) / 2]) > 0; i = (i - 1) / 2)
                        gap_swap(g->v, i, (i - 1) / 2);
                return 0;
        }
        if (cmp_gap(x, &g->v[0]) >= 0)
                return 0;               /* after all of the top ones */
        /* in at the root, down while before the later of its children */
        for (i = 0, g->v[0] = *x;;) {
                size_t k = 2 * i + 1;
                if (k >= g->n)
                        break;
                if (k + 1 < g->n && cmp_gap(&g->v[k + 1], &g->v[k]) > 0)
                        k++;
                if (cmp_gap(&g->v[k], &g->v[i]) <= 0)
                        break;
                gap_swap(g->v, i, k);
                i = k;
        }
        return 0;
}

/* Holes of `l` inside [ws, we) of at least `min`, edges included. */
static int step_gaps(const tpa_ivl_list *l, const tpa_step *s, int dev, tpa_ns min,
                     double *count, double *total, double *max, gap_list *keep,
                     size_t *near, tpa_error *err)
{
        const tpa_ivl *v = l->v;
        tpa_ns cur = s->start, end = s->end;
        size_t i = tpa_ivl__first_after_near(l, s->start, near), n = l->n;
        int r = 0;

        for (;; i++) {
                /* the hole before interval i, or before the window's end */
                bool last = i >= n || v[i].s >= end;
                tpa_ns next = last ? end : v[i].s;
                if (next > cur && next - cur >= min) {
                        tpa_gap g = { .device = dev, .step = s->number, .start = cur,
                                      .len = next - cur, .offset = cur - s->start };
                        *count += 1;
                        *total += (double)g.len;
                        if ((double)g.len > *max)
                                *max = (double)g.len;
                        if (keep != NULL && (r = keep_gap(keep, &g, err)) < 0)
                                return r;
                }
                if (last)
                        break;
                if (v[i].e > cur)
                        cur = v[i].e;
                if (cur >= end)
                        break;
        }
        return 0;
}

/* Python gaps: holes of the driving thread's framework intervals inside
 * the window, longer than `min`: between consecutive ones, and from the
 * window's start to its first, from its last to the window's end (the
 * Python that prepares a batch before the step's first op, that logs
 * after its last; a hole between ops only, these were missing: a step
 * with 4 ms of Python after its optimizer step had a fifth of its time in
 * the python bucket and none of it in its gaps). A thread with no
 * framework event in the window has no gap. */
static void host_gaps(const tpa_ivl_list *l, const tpa_step *s, tpa_ns min, double *m,
                      double *scratch, size_t *near)
{
        size_t i = tpa_ivl__first_after_near(l, s->start, near), n = 0;
        tpa_ns prev = s->start, most = 0;
        double total = 0;

        for (; i < l->n && l->v[i].s < s->end; i++) {
                tpa_ns b = l->v[i].s;
                if (b - prev > min) {
                        scratch[n++] = (double)(b - prev);
                        total += (double)(b - prev);
                        most = b - prev > most ? b - prev : most;
                }
                if (l->v[i].e > prev)
                        prev = l->v[i].e;
        }
        if (prev > s->start && prev < s->end && s->end - prev > min) {
                scratch[n++] = (double)(s->end - prev);
                total += (double)(s->end - prev);
                most = s->end - prev > most ? s->end - prev : most;
        }
        m[M_HOST_GAP_COUNT] = (double)n;
        m[M_HOST_GAP_NS] = total;
        m[M_HOST_GAP_FRAC] = total / (double)s->step_time;
        m[M_HOST_GAP_MEDIAN] = tpa_analysis__quantile(scratch, n, 0.5);
        m[M_HOST_GAP_PER_MS] = (double)n / ((double)s->step_time / 1e6);
        m[M_HOST_GAP_MAX] = (double)most;
        m[M_HOST_GAP_MAX_FRAC] = (double)most / (double)s->step_time;
}

static int dir_of(unsigned kind)
{
        return (int)kind - TPA_KIND_COPY_H2D;
}

/* The time of event e in [start, end). */
static tpa_ns clipped(const tpa_event *e, tpa_ns start, tpa_ns end)
{
        tpa_ns a = e->ts > start ? e->ts : start;
        tpa_ns b = e->ts + e->dur < end ? e->ts + e->dur : end;
        return b > a ? b - a : 0;
}

static int push_index(tpa_index_list *l, size_t i, tpa_error *err)
{
        if (tpa_analysis__room((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 64, err) < 0)
                return TPA_ENOMEM;
        l->v[l->n++] = i;
        return 0;
}

/* A device copy in a step, with what copy_event() adds of it, found by
 * the pass over the events (speed, bench/: looked up after, on one
 * thread, each copy was a wait for memory: its event, its extras). */
typedef struct copy_rec {
        uint32_t i;             /* the event (the steps' tables took its index) */
        uint32_t dir;           /* its direction, dir_of() */
        size_t  k;              /* its step */
        tpa_ns  t;              /* its time in the step */
        int64_t bytes;
} copy_rec;

typedef struct copy_list {
        copy_rec *v;
        size_t    n, cap;
} copy_list;

static int push_copy(copy_list *l, const copy_rec *x, tpa_error *err)
{
        if (tpa_analysis__room((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 64, err) < 0)
                return TPA_ENOMEM;
        l->v[l->n++] = *x;
        return 0;
}

/* What the metrics' two passes share: the per-step pass keeps the device
 * idle gaps of each half of the steps apart, for the run's top gaps in step
 * order; the pass over the events marks the top ops' events. */
/* The run's top gaps as the host side asks of every host event whether
 * it overlaps one: their starts in order and, for each, the latest end of
 * the gaps up to it (speed, bench/: a test of each gap per host event was
 * a sixth of the metrics' pass over the events). Gap k is at k + 1, after
 * a start and an end before all times, and before a start after them
 * (speed: no tests of the first and last gap per event). */
typedef struct gap_index {
        tpa_ns *start, *end;
        size_t  n;
} gap_index;

/* A step's launches, and the time in it of those of SLOW_LAUNCH or more:
 * a launch call that long is the runtime loading or compiling the kernel
 * on its first use (CUDA's lazy module loading, a JIT), not the cost of a
 * launch. */
enum { SLOW_LAUNCH = 1000000 };

struct step_launches {
        size_t count, slow_count;
        tpa_ns slow;
};

struct metrics_job {
        gap_list gaps[2];       /* idle gaps of kept steps, per half of the steps */
        gap_index top;          /* the run's top gaps, from them */
        tpa_top  tables;        /* the top ops' events, marked */
        /* per part, summed after (integers: in any order the same sums) */
        struct step_launches *launches[2];      /* per step */
        atomic_size_t next;     /* the first event of the next chunk of the pass */
        tpa_index_list cand[2]; /* per part: host events overlapping a top gap */
        copy_list copies[2];    /* per part: device copies in a step */
};

/* The figures made of the buckets' (m[B(x)] and m[F(x)] set): the groups,
 * the largest cause besides compute, device busy time and the what-if
 * gains. For a step, and for the run's time-weighted breakdown. */
static void group_metrics(double *m)
{
        double most;

        m[M_TRANSFER_NS] = m[B(H2D)] + m[B(D2H)] + m[B(D2D)] + m[B(P2P)];
        m[M_TRANSFER_FRAC] = m[F(H2D)] + m[F(D2H)] + m[F(D2D)] + m[F(P2P)];
        m[M_SYNC_NS] = m[B(SYNC_HOST_WAIT)] + m[B(SYNC_COLLECTIVE)];
        m[M_SYNC_FRAC] = m[F(SYNC_HOST_WAIT)] + m[F(SYNC_COLLECTIVE)];
        m[M_HOST_NS] = m[B(HOST_LAUNCH)] + m[B(HOST_SETUP)] + m[B(HOST_PYTHON)] +
                       m[B(HOST_COMPUTE)];
        m[M_HOST_FRAC] = m[F(HOST_LAUNCH)] + m[F(HOST_SETUP)] + m[F(HOST_PYTHON)] +
                         m[F(HOST_COMPUTE)];
        most = m[M_TRANSFER_FRAC];
        if (m[M_SYNC_FRAC] > most) most = m[M_SYNC_FRAC];
        if (m[F(INPUT)] > most) most = m[F(INPUT)];
        if (m[M_HOST_FRAC] > most) most = m[M_HOST_FRAC];
        m[M_MAX_OTHER_FRAC] = most;
        m[M_DEVICE_BUSY_FRAC] = m[F(COMPUTE)] + m[M_TRANSFER_FRAC] + m[F(SYNC_COLLECTIVE)];
        m[M_GAIN + TPA_GROUP_TRANSFER] = m[M_TRANSFER_FRAC];
        m[M_GAIN + TPA_GROUP_SYNC] = m[M_SYNC_FRAC];
        m[M_GAIN + TPA_GROUP_INPUT] = m[F(INPUT)];
        m[M_GAIN + TPA_GROUP_HOST] = m[M_HOST_FRAC];
        m[M_GAIN + TPA_GROUP_IDLE] = m[F(IDLE)];
}

/* Device d computed, copied or ran a collective in step s. */
static bool device_worked(const tpa_step *s, size_t d)
{
        const tpa_ns *row;

        if (s->device_ns == NULL)
                return true;
        row = &s->device_ns[d * TPA_BUCKET__COUNT];
        return row[TPA_BUCKET_COMPUTE] + row[TPA_BUCKET_H2D] + row[TPA_BUCKET_D2H] +
               row[TPA_BUCKET_D2D] + row[TPA_BUCKET_P2P] + row[TPA_BUCKET_SYNC_COLLECTIVE] > 0;
}

/* The devices that worked in step s, the ones its figures are the mean of
 * (partition.c); all when none did. */
static size_t worked_devices(const tpa_actx *c, const tpa_step *s)
{
        size_t n = 0;

        for (size_t d = 0; d < c->ndev; d++)
                n += device_worked(s, d);
        return n ? n : c->ndev;
}

/* A part's hints into the lists its steps read, which come in time
 * order: per device (dev_any), per thread (fw), per host channel (speed,
 * bench/: a search of each whole list per step). */
typedef struct step_near {
        size_t *dev, *fw;
        size_t  host[HOST_CH__COUNT];
} step_near;

/* The metrics of step k that need no pass over the events. */
static int step_metrics(tpa_actx *c, size_t k, gap_list *gaps, double *scratch,
                        step_near *near, tpa_error *err)
{
        tpa_analysis *a = c->a;
        tpa_step *s = &a->steps[k];
        double *m = s->metric = calloc(M_STEP__COUNT, sizeof(*m));
        double st = (double)s->step_time, cnt = 0, tot = 0, mx = 0;
        size_t nbusy = 0;
        /* the framework, from the dialect: TF2 trace viewer and XSpace, TF1
         * timeline, RunMetadata and tfevents are TensorFlow; Kineto is
         * PyTorch; a generic Chrome trace is neither */
        tpa_dialect dialect = tpa_trace_dialect(c->tr);
        tpa_runtime runtime = tpa_trace_runtime(c->tr);
        unsigned facts = tpa_trace_facts(c->tr);
        int r = 0;

        if (m == NULL)
                return tpa_error_oom(err);
        m[M_STEP_TIME] = st;
        for (int b = 0; b < TPA_BUCKET__COUNT; b++) {
                m[M_BUCKET_NS + b] = (double)s->bucket_ns[b];
                m[M_BUCKET_FRAC + b] = s->frac[b];
        }
        group_metrics(m);
        m[M_CPU_ONLY] = a->cpu_only;
        m[M_DEVICES] = (double)a->device_count;
        /* a JAX XSpace reads as TF2's, but TF's advice (tf.data,
         * tf.function) is not for it: the neutral advice is */
        m[M_FRAMEWORK_TF] = (dialect == TPA_DIALECT_TF2 || dialect == TPA_DIALECT_TF1) &&
                            !(facts & TPA_FACT_JAX);
        m[M_FRAMEWORK_PYTORCH] = dialect == TPA_DIALECT_KINETO;
        m[M_TF_FUNCTION] = (facts & TPA_FACT_TF_FUNCTION) != 0;
        m[M_LOADER_WORKERS] = (facts & TPA_FACT_LOADER_WORKERS) != 0;
        m[M_TF_DATA_PREFETCH] = (facts & TPA_FACT_TF_DATA_PREFETCH) != 0;
        m[M_TF_DATA_PARALLEL] = (facts & TPA_FACT_TF_DATA_PARALLEL) != 0;
        m[M_TF_PY_FUNCTION] = (facts & TPA_FACT_TF_PY_FUNCTION) != 0;
        m[M_TF_DATA_GENERATOR] = (facts & TPA_FACT_TF_DATA_GENERATOR) != 0;
        m[M_TORCH_COMPILED] = (facts & TPA_FACT_TORCH_COMPILED) != 0;
        m[M_RUNTIME_CUDA] = !a->cpu_only && runtime == TPA_RUNTIME_CUDA;
        m[M_RUNTIME_ROCM] = !a->cpu_only && runtime == TPA_RUNTIME_ROCM;
        m[M_RUNTIME_MTIA] = !a->cpu_only && runtime == TPA_RUNTIME_MTIA;
        /* over the devices that worked in the step, as its breakdown
         * (partition.c): one idle all through it has no gaps of the step */
        nbusy = worked_devices(c, s);
        for (size_t d = 0; d < c->ndev && r == 0; d++)
                if (nbusy == c->ndev || device_worked(s, d))
                        r = step_gaps(&c->dev_any[d], s, a->cpu_only ? -1 : (int)d,
                                      a->gap_min, &cnt, &tot, &mx,
                                      s->excluded ? NULL : gaps, &near->dev[d], err);
        if (r < 0)
                return r;
        m[M_GAP_COUNT] = cnt / (double)nbusy;
        m[M_GAP_TOTAL] = tot / (double)nbusy;
        m[M_GAP_MAX] = mx;
        m[M_GAP_FRAC] = m[M_GAP_TOTAL] / st;
        m[M_COPY_EXPOSED_FRAC] = m[M_TRANSFER_FRAC];
        /* All the input work the host did in the step, hidden under
         * device work or not: input_frac is the exposed part. */
        m[M_INPUT_HOST_NS] = (double)tpa_ivl__covered_near(&c->host[HCH_INPUT], s->start,
                                                           s->end, &near->host[HCH_INPUT]);
        m[M_INPUT_HOST_FRAC] = m[M_INPUT_HOST_NS] / st;
        /* The Python that ops run in the step (tf.py_function): the part
         * of host python it explains, at most all of it. */
        m[M_PY_OP_NS] = (double)tpa_ivl__covered_near(&c->host[HCH_PYOP], s->start, s->end,
                                                      &near->host[HCH_PYOP]);
        if (m[M_PY_OP_NS] > m[B(HOST_PYTHON)])
                m[M_PY_OP_NS] = m[B(HOST_PYTHON)];
        m[M_PY_OP_FRAC] = m[M_PY_OP_NS] / st;
        /* A checkpoint's I/O in the step: the part of host setup it is */
        m[M_CKPT_NS] = (double)tpa_ivl__covered_near(&c->host[HCH_CKPT], s->start, s->end,
                                                     &near->host[HCH_CKPT]);
        if (m[M_CKPT_NS] > m[B(HOST_SETUP)])
                m[M_CKPT_NS] = m[B(HOST_SETUP)];
        m[M_CKPT_FRAC] = m[M_CKPT_NS] / st;
        /* Tracing and compiling in the step: the part of host setup it is */
        m[M_COMPILE_NS] = (double)tpa_ivl__covered_near(&c->host[HCH_COMPILE], s->start,
                                                        s->end, &near->host[HCH_COMPILE]);
        if (m[M_COMPILE_NS] > m[B(HOST_SETUP)])
                m[M_COMPILE_NS] = m[B(HOST_SETUP)];
        m[M_COMPILE_FRAC] = m[M_COMPILE_NS] / st;
        if (s->driver_track != UINT32_MAX)
                host_gaps(&c->fw[s->driver_track], s, a->host_gap_min, m, scratch,
                          &near->fw[s->driver_track]);
        return 0;
}

/* Half of the steps each. */
static int steps_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        struct metrics_job *job = arg;
        size_t lo, hi, maxn = 0;
        double *scratch;
        step_near near = { 0 };
        int r = 0;

        for (size_t t = 0; t < c->ntracks; t++)
                if (c->fw[t].n > maxn)
                        maxn = c->fw[t].n;
        scratch = malloc((maxn + 1) * sizeof(*scratch));
        near.dev = calloc(c->ndev + c->ntracks + 1, sizeof(*near.dev));
        if (scratch == NULL || near.dev == NULL) {
                free(scratch);
                free(near.dev);
                return tpa_error_oom(err);
        }
        near.fw = near.dev + c->ndev;
        tpa_analysis__half(c->a->step_count, part, &lo, &hi);
        for (size_t k = lo; k < hi && r == 0; k++)
                r = step_metrics(c, k, &job->gaps[part], scratch, &near, err);
        free(scratch);
        free(near.dev);
        return r;
}

static int cmp_gap_start(const void *pa, const void *pb)
{
        const tpa_gap *x = pa, *y = pb;

        return (x->start > y->start) - (x->start < y->start);
}

static int gap_index_new(gap_index *gi, const tpa_analysis *a, tpa_error *err)
{
        tpa_gap *g = malloc((a->gap_count + 1) * sizeof(*g));

        gi->n = a->gap_count;
        gi->start = malloc((gi->n + 2) * sizeof(*gi->start));
        gi->end = malloc((gi->n + 1) * sizeof(*gi->end));
        if (g == NULL || gi->start == NULL || gi->end == NULL) {
                free(g);
                return tpa_error_oom(err);
        }
        memcpy(g, a->gaps, gi->n * sizeof(*g));
        qsort(g, gi->n, sizeof(*g), cmp_gap_start);
        gi->start[0] = INT64_MIN;
        gi->end[0] = INT64_MIN;
        for (size_t k = 0; k < gi->n; k++) {
                tpa_ns end = g[k].start + g[k].len;
                gi->start[k + 1] = g[k].start;
                gi->end[k + 1] = k > 0 && gi->end[k] > end ? gi->end[k] : end;
        }
        gi->start[gi->n + 1] = INT64_MAX;
        free(g);
        return 0;
}

/* Device copy x into its step's copy figures and the run's. The sums
 * are doubles: made in event order, as on one thread. */
static void copy_event(tpa_actx *c, const copy_rec *x)
{
        tpa_analysis *a = c->a;
        tpa_step *s = &a->steps[x->k];
        tpa_ns t = x->t;
        int dir = (int)x->dir;
        int64_t bytes = x->bytes;

        s->metric[M_COPY_COUNT] += 1;
        s->metric[M_COPY_NS] += (double)t;
        s->metric[M_COPY_BYTES] += (double)bytes;
        s->metric[M_DIR_COUNT + dir] += 1;
        s->metric[M_DIR_BYTES + dir] += (double)bytes;
        s->metric[M_DIR_GBPS + dir] += (double)t;  /* time, for now */
        if (bytes < a->small_copy_max)
                s->metric[M_SMALL_COPY_COUNT] += 1;
        if (!s->excluded) {
                tpa_copy_stats *cs = &a->copies[dir];
                cs->count++;
                cs->time += t;
                cs->bytes += (uint64_t)bytes;
                cs->small += bytes < a->small_copy_max;
        }
}

/* The step found last by a pass over the events: what the pass reads of
 * it. */
typedef struct step_hint {
        long   k;               /* -1: none yet */
        tpa_ns s, e;            /* steps[k]'s start and end; empty for none */
        bool   excluded;        /* steps[k].excluded */
} step_hint;

/* tpa_analysis__step_of(), the hint's window tested first, in locals of
 * the pass (speed, bench/: the hint's test through the steps was most of
 * the look per event). After an answer k >= 0, *h is step k's. */
static inline long step_at(const tpa_analysis *a, tpa_ns t, step_hint *h)
{
        long k;

        if (h->s <= t && t < h->e)
                return h->k;
        if ((k = tpa_analysis__step_of(a, t, &h->k)) >= 0)
                *h = (step_hint){ k, a->steps[k].start, a->steps[k].end, a->steps[k].excluded };
        return k;
}

/* The device interval a pass over host events met last: interval k of
 * c->dev_all, [s, e), and the end of the one before it, `from`. An event
 * that starts in [from, e) has k as tpa_ivl__first_after()'s answer, with
 * no look at the list (speed, bench/: tpa_ivl__covers_near() per host op
 * read its hint, the list and two intervals each time). */
typedef struct cover_hint {
        size_t k;
        tpa_ns from, s, e;
} cover_hint;

/* tpa_ivl__covers_near(l, s, s + len, ...) for len > 0, by the hint's
 * interval when s lies in its reach. */
static inline bool device_covers(const tpa_ivl_list *l, tpa_ns s, tpa_ns len, cover_hint *h)
{
        if (!(h->from <= s && s < h->e)) {
                size_t k = tpa_ivl__first_after_near(l, s, &h->k);
                h->from = k > 0 ? l->v[k - 1].e : INT64_MIN;
                h->s = k < l->n ? l->v[k].s : INT64_MAX;
                h->e = k < l->n ? l->v[k].e : INT64_MAX;
        }
        return h->s <= s && s + len <= h->e;
}

/* The top gaps a pass over host events met last: for an event that ends
 * in (start, next], those that start before its end are the gaps up to
 * the one at `start` in the gap index, and `end` is the latest of their
 * ends. */
typedef struct gap_hint {
        tpa_ns start, next, end;
} gap_hint;

/* True when host event e, which ends at te, overlaps one of the run's top
 * gaps: a gap that starts before e ends (before its start, for an
 * instant) and ends after e starts; of those that start before, the
 * latest end tells. The hint's gaps are tried first (the events come in
 * about time order; a search each was a tenth of the host side's
 * instructions). */
static inline bool overlaps_top_gap(const gap_index *gi, tpa_ns ts, tpa_ns te, gap_hint *h)
{
        if (!(h->start < te && te <= h->next)) {
                size_t lo = 0, hi = gi->n;
                while (lo < hi) {
                        size_t mid = lo + (hi - lo) / 2;
                        if (gi->start[mid + 1] < te)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                *h = (gap_hint){ gi->start[lo], gi->start[lo + 1], gi->end[lo] };
        }
        return h->end > ts;
}

/* What a part's pass keeps from chunk to chunk: the hints of its
 * look-ups. */
typedef struct pass_hints {
        step_hint  step;
        gap_hint   gap;
        cover_hint cover;
        size_t     bytes;       /* tpa_trace_get_aux_seq()'s cursor */
} pass_hints;

/* Events [lo, hi) of the pass, by part `part`:
 * - a device event (or a CPU-only trace's CPU compute) in a kept step
 *   with time in it is marked for the device top-op table; a copy in a
 *   step goes in `copies`, for copy_event() after, in event order;
 * - a host event: launches per step (not into the steps' metrics, which
 *   the copies write), the events of the host top-op table (those the
 *   device leaves exposed; the others counted by name), and the host
 *   events that overlap a top gap, into cand, for the summary. */
static int chunk_events(tpa_actx *c, const gap_index *top, tpa_top *ops, int part,
                        struct step_launches *launches, tpa_index_list *cand, copy_list *copies,
                        size_t lo, size_t hi, pass_hints *ph, tpa_error *err)
{
        const tpa_analysis *a = c->a;
        /* what the loop reads, in locals: the stores of its counts could
         * alias any of them, read again per event */
        const tpa_event *ev = c->ev;
        const int8_t *hch = c->hch;
        const tpa_ivl_list *dev_all = &c->dev_all;
        bool cpu_only = a->cpu_only;
        pass_hints p = *ph;
        int r;

        for (size_t i = lo; i < hi; i++) {
                const tpa_event *e = &ev[i];
                int h = hch[i];
                tpa_ns ts, te, t0, t1;
                long k;
                bool launch;

                tpa_analysis__ahead_of(ev, i);
                if (h == HCH_NONE)
                        continue;
                ts = e->ts;
                te = ts + e->dur;
                if ((h == HCH_DEVICE || h == HCH_CPU_COMPUTE) &&
                    (k = step_at(a, ts, &p.step)) >= 0) {
                        tpa_ns in_step = clipped(e, p.step.s, p.step.e);

                        if (h == HCH_DEVICE && tpa_kind_is_copy(e->kind)) {
                                copy_rec x = { (uint32_t)i, (uint32_t)dir_of(e->kind),
                                               (size_t)k, in_step, 0 };
                                tpa_trace_get_aux_seq(c->tr, i, TPA_AUX_BYTES, &p.bytes,
                                                      &x.bytes);
                                if ((r = push_copy(copies, &x, err)) < 0)
                                        return r;
                        }
                        if (!p.step.excluded && in_step > 0)
                                tpa_top__mark(&ops->dev, part, i, e->track);
                }
                if (h == HCH_DEVICE)
                        continue;       /* not a host event (event_class()) */
                if (overlaps_top_gap(top, ts, te, &p.gap) && (r = push_index(cand, i, err)) < 0)
                        return r;
                /* launches: host events of the launch channel that carry a
                 * correlation id with a device (launch calls, copies
                 * enqueued, TF's host side of a kernel); CPU-only, the
                 * runtime scopes that dispatch host ops. Ops: the host
                 * events of a channel. */
                if (h < 0 || h >= HOST_CH__COUNT || (k = step_at(a, ts, &p.step)) < 0)
                        continue;
                launch = h == HCH_LAUNCH && (cpu_only || e->corr != 0);
                if (launch) {
                        launches[k].count++;
                        if (!cpu_only && e->dur >= SLOW_LAUNCH) {
                                launches[k].slow_count++;
                                launches[k].slow += clipped(e, p.step.s, p.step.e);
                        }
                }
                if (p.step.excluded)
                        continue;
                /* its time in the step, as clipped() */
                t0 = ts > p.step.s ? ts : p.step.s;
                t1 = te < p.step.e ? te : p.step.e;
                if (t1 > t0)
                        tpa_top__host_op(ops, part, i, e,
                                         device_covers(dev_all, ts, t1 - t0, &p.cover));
        }
        *ph = p;
        return 0;
}

/* The metrics' pass over the events, in chunks that each part takes
 * until none is left, whichever is free, into the part's tables and
 * lists (speed, bench/: the device side was a pass of its own on one
 * part, over memory the host side read again). Chunks are whole words
 * of the top ops' marks, so the parts write apart. */
static int events_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        enum { CHUNK = 65536 };
        struct metrics_job *job = arg;
        pass_hints hints = { .step = { -1, 0, 0, false },
                             .gap = { INT64_MIN, INT64_MIN, INT64_MIN },
                             .cover = { 0, INT64_MAX, INT64_MAX, INT64_MAX } };
        size_t lo;
        int r = 0;

        while (r == 0 && (lo = atomic_fetch_add(&job->next, CHUNK)) < c->n)
                r = chunk_events(c, &job->top, &job->tables, part, job->launches[part],
                                 &job->cand[part], &job->copies[part], lo,
                                 c->n - lo > CHUNK ? lo + CHUNK : c->n, &hints, err);
        return r;
}

/* The copies the parts found, in event order (each part's chunks come in
 * event order: a merge of the two), into the copy figures. */
static void copy_events(tpa_actx *c, const copy_list *p0, const copy_list *p1)
{
        size_t i = 0, j = 0;

        while (i < p0->n || j < p1->n)
                copy_event(c, j == p1->n || (i < p0->n && p0->v[i].i < p1->v[j].i)
                              ? &p0->v[i++] : &p1->v[j++]);
}

/* Into *out (empty), the indexes of a and b (each ascending), ascending:
 * each part's chunks come in event order, the parts' in turn. */
static int merge_indexes(tpa_index_list *out, const tpa_index_list *a,
                         const tpa_index_list *b, tpa_error *err)
{
        size_t i = 0, j = 0;
        int r = 0;

        while (r == 0 && (i < a->n || j < b->n))
                r = push_index(out, j == b->n || (i < a->n && a->v[i] < b->v[j])
                                    ? a->v[i++] : b->v[j++], err);
        return r;
}

int tpa_analysis__metrics(tpa_actx *c, tpa_error *err)
{
        tpa_analysis *a = c->a;
        size_t top = c->opts->top_n > 0 ? (size_t)c->opts->top_n : 5;
        struct metrics_job job = { 0 };
        double kept_time = 0;
        int r = tpa_top__new(&job.tables, c, err);
        bool fail = false;

        if (r < 0)
                return r;
        for (int p = 0; p < 2; p++) {
                job.launches[p] = calloc(a->step_count ? a->step_count : 1,
                                         sizeof(*job.launches[p]));
                fail = fail || job.launches[p] == NULL;
        }
        job.gaps[0].top = job.gaps[1].top = top;
        atomic_init(&job.next, 0);
        if (fail) {
                r = tpa_error_oom(err);
                goto out;
        }
        if ((r = tpa_analysis__in_two(c, steps_part, &job, err)) < 0)
                goto out;
        /* the last readers of the host lists and of each device's own
         * union: memory for the top ops' lanes (dev_all stays) */
        for (int ch = 0; ch < HOST_CH__COUNT; ch++)
                tpa_ivl__free(&c->host[ch]);
        for (size_t t = 0; t < c->ntracks; t++)
                tpa_ivl__free(&c->fw[t]);
        for (size_t d = 0; c->ndev > 1 && d < c->ndev; d++)
                tpa_ivl__free(&c->dev_any[d]);
        /* the run's top gaps: the top of both halves' */
        a->gaps = malloc((job.gaps[0].n + job.gaps[1].n + 1) * sizeof(*a->gaps));
        if (a->gaps == NULL) {
                r = tpa_error_oom(err);
                goto out;
        }
        for (int p = 0; p < 2; p++)
                for (size_t i = 0; i < job.gaps[p].n; i++)
                        a->gaps[a->gap_count++] = job.gaps[p].v[i];
        if (a->gap_count > 0)
                qsort(a->gaps, a->gap_count, sizeof(*a->gaps), cmp_gap);
        if (a->gap_count > top)
                a->gap_count = top;
        if ((r = gap_index_new(&job.top, a, err)) < 0 ||
            (r = tpa_analysis__in_two(c, events_part, &job, err)) < 0 ||
            (r = merge_indexes(&c->gap_cand, &job.cand[0], &job.cand[1], err)) < 0)
                goto out;
        copy_events(c, &job.copies[0], &job.copies[1]);
        /* the last readers of the events' channels and of the parts'
         * lists: memory for the top ops' lanes, next */
        free(c->hch);
        c->hch = NULL;
        for (int p = 0; p < 2; p++) {
                free(job.copies[p].v);
                free(job.cand[p].v);
                job.copies[p] = (copy_list){ 0 };
                job.cand[p] = (tpa_index_list){ 0 };
        }
        for (size_t k = 0; k < a->step_count; k++) {
                job.launches[0][k].count += job.launches[1][k].count;
                job.launches[0][k].slow_count += job.launches[1][k].slow_count;
                job.launches[0][k].slow += job.launches[1][k].slow;
        }
        for (size_t k = 0; k < a->step_count; k++) {
                double *m = a->steps[k].metric;
                double denom = (double)a->steps[k].step_time * (double)c->ndev;
                m[M_LAUNCH_COUNT] = (double)job.launches[0][k].count;
                m[M_LAUNCH_SLOW_COUNT] = (double)job.launches[0][k].slow_count;
                m[M_LAUNCH_SLOW_NS] = (double)job.launches[0][k].slow;
                m[M_LAUNCH_SLOW_FRAC] = m[M_LAUNCH_SLOW_NS] / m[M_STEP_TIME];
                m[M_COPY_FRAC] = m[M_COPY_NS] / denom;
                for (int dir = 0; dir < 4; dir++)
                        m[M_DIR_GBPS + dir] = m[M_DIR_GBPS + dir] > 0
                                ? m[M_DIR_BYTES + dir] / m[M_DIR_GBPS + dir] : 0;
                if (!a->steps[k].excluded)
                        kept_time += m[M_STEP_TIME];
        }
        for (int dir = 0; dir < 4; dir++) {
                tpa_copy_stats *cs = &a->copies[dir];
                cs->gbps = cs->time > 0 ? (double)cs->bytes / (double)cs->time : 0;
                for (size_t k = 0; k < a->step_count; k++)
                        if (!a->steps[k].excluded)
                                cs->exposed += a->steps[k].bucket_ns[TPA_BUCKET_H2D + dir];
                cs->exposed_frac = kept_time > 0 ? (double)cs->exposed / kept_time : 0;
        }
        r = tpa_top__tables(c, &job.tables, kept_time, err);
out:
        free(job.gaps[0].v);
        free(job.gaps[1].v);
        free(job.cand[0].v);
        free(job.cand[1].v);
        free(job.copies[0].v);
        free(job.copies[1].v);
        free(job.top.start);
        free(job.top.end);
        tpa_top__free(&job.tables);
        for (int p = 0; p < 2; p++)
                free(job.launches[p]);
        return r;
}

/* ---- run summary ------------------------------------------------------------ */

/* explain_gap()'s scratch, for all the gaps: a slot per string, zero
 * but for the names the gap in hand has met, listed in `names`. Speed and
 * memory (bench/): a pair of slots per string for each gap, all read for
 * the names met, faulted in pages of zeros by the thousand on a large
 * trace. */
typedef struct gap_names {
        tpa_ns  *ov, *shortest;
        tpa_str *names;         /* room for every candidate */
} gap_names;

/* The host events that overlapped a gap most, by name: overlap first, then
 * the shorter (more specific) event, then the name. */
static void explain_gap(const tpa_actx *c, tpa_gap *g, const size_t *cand, size_t ncand,
                        gap_names *gn)
{
        tpa_ns *ov = gn->ov, *shortest = gn->shortest;
        size_t nn = 0;

        for (size_t k = 0; k < ncand; k++) {
                const tpa_event *e = &c->ev[cand[k]];
                tpa_ns a, b;
                a = e->ts > g->start ? e->ts : g->start;
                b = e->ts + e->dur < g->start + g->len ? e->ts + e->dur : g->start + g->len;
                if (b <= a)
                        continue;
                if (ov[e->name] == 0)
                        gn->names[nn++] = e->name;
                ov[e->name] += b - a;
                if (shortest[e->name] == 0 || e->dur < shortest[e->name])
                        shortest[e->name] = e->dur;
        }
        /* the names in string order, as a look at every string's slot
         * would meet them: the order breaks ties */
        qsort(gn->names, nn, sizeof(*gn->names), tpa_analysis__cmp_u32);
        struct { tpa_str s; tpa_ns ov, sh; } best[3];
        size_t nb = 0;

        for (size_t k = 0; k < nn; k++) {
                tpa_str s = gn->names[k];
                size_t pos;
                if (s == 0)
                        continue;
                if (ov[s] > g->len)
                        ov[s] = g->len;
                for (pos = nb; pos > 0; pos--)
                        if (best[pos - 1].ov > ov[s] ||
                            (best[pos - 1].ov == ov[s] && best[pos - 1].sh <= shortest[s]))
                                break;
                if (pos >= 3)
                        continue;
                if (nb < 3)
                        nb++;
                memmove(&best[pos + 1], &best[pos], (nb - 1 - pos) * sizeof(best[0]));
                best[pos].s = s;
                best[pos].ov = ov[s];
                best[pos].sh = shortest[s];
        }
        g->host_count = nb;
        for (size_t i = 0; i < nb; i++)
                g->host[i] = (tpa_gap_host){ tpa_trace_str(c->tr, best[i].s), best[i].ov,
                                             (double)best[i].ov / (double)g->len };
        for (size_t k = 0; k < nn; k++)         /* zero again for the next gap */
                ov[gn->names[k]] = shortest[gn->names[k]] = 0;
}

/* The top gaps explained by the host events that overlap any of them. */
static int explain_gaps(tpa_actx *c, tpa_error *err)
{
        size_t ns = tpa_trace_str_count(c->tr), nc = c->gap_cand.n;
        gap_names gn;
        bool ok;

        if (c->a->gap_count == 0)
                return 0;
        gn.ov = calloc(ns ? ns : 1, sizeof(*gn.ov));
        gn.shortest = calloc(ns ? ns : 1, sizeof(*gn.shortest));
        gn.names = malloc((nc ? nc : 1) * sizeof(*gn.names));
        ok = gn.ov != NULL && gn.shortest != NULL && gn.names != NULL;
        for (size_t i = 0; ok && i < c->a->gap_count; i++)
                explain_gap(c, &c->a->gaps[i], c->gap_cand.v, nc, &gn);
        free(gn.ov);
        free(gn.shortest);
        free(gn.names);
        return ok ? 0 : tpa_error_oom(err);
}

/* Classes by kept-step time, most first; on a tie, in the order the rules
 * try them (tpa_class_count.count holds that order while they are sorted). */
static int cmp_class(const void *pa, const void *pb)
{
        const tpa_class_count *x = pa, *y = pb;
        if (x->time != y->time)
                return x->time > y->time ? -1 : 1;
        return x->count < y->count ? -1 : x->count > y->count;
}

/* The place of class `name` in the rules (its first class rule). */
static size_t class_order(const tpa_rules *rules, const char *name)
{
        size_t n = tpa_rules_class_count(rules), i = 0;

        while (i < n && strcmp(tpa_rules_class_name(rules, i), name) != 0)
                i++;
        return i;
}

/* The run's breakdown, time-weighted over the kept steps: bucket time
 * over step time, so that a long step weighs as much as its time, and
 * the figures made of it (doc/design.md 5.5). Bucket times are per kept step,
 * on average. */
static void run_breakdown(tpa_analysis *a)
{
        static const int part_idx[3] = { M_PY_OP_NS, M_CKPT_NS, M_COMPILE_NS };  /* _NS, _FRAC */
        double *m = a->run_metric, ns[TPA_BUCKET__COUNT] = { 0 }, total = 0, part[3] = { 0 };

        for (size_t k = 0; k < a->step_count; k++) {
                const tpa_step *s = &a->steps[k];
                if (s->excluded)
                        continue;
                total += (double)s->step_time;
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        ns[b] += (double)s->bucket_ns[b];
                for (int p = 0; p < 3; p++)
                        part[p] += s->metric[part_idx[p]];
        }
        for (int b = 0; b < TPA_BUCKET__COUNT; b++) {
                m[M_BUCKET_NS + b] = a->kept_count ? ns[b] / (double)a->kept_count : 0;
                m[M_BUCKET_FRAC + b] = total > 0 ? ns[b] / total : 0;
        }
        /* the parts of a bucket likewise, so that they stay within it (a
         * checkpoint every few steps: a median would be 0) */
        for (int p = 0; p < 3; p++) {
                m[part_idx[p]] = a->kept_count ? part[p] / (double)a->kept_count : 0;
                m[part_idx[p] + 1] = total > 0 ? part[p] / total : 0;
        }
        group_metrics(m);
}

/* No work of any kind: no device event, framework op, input, runtime call
 * or collective (annotations, markers and unknown events only). */
static bool no_work(const tpa_analysis *a)
{
        uint64_t work = 0;

        for (int k = 0; k < TPA_KIND__COUNT; k++)
                if (k != TPA_KIND_OTHER && k != TPA_KIND_STEP && k != TPA_KIND_ANNOTATION)
                        work += a->events_by_kind[k];
        return work == 0;
}

/*
 * The steps' work runs after them: the host ran ahead of the work it
 * dispatched (JAX's asynchronous dispatch: a loop with no
 * jax.block_until_ready in its step marker times only each dispatch, tens
 * to hundreds of microseconds, and the ops run after the loop, or as far
 * behind as the loop runs ahead). Ops that run after the last step ends
 * span over ten times the kept steps' time from then, the first of them
 * runs before the thread that drove the steps dispatches anything after
 * the last one (the work was dispatched in the steps: an evaluation after
 * them would dispatch its own first), and that thread runs none of them
 * (a CPU's evaluation after the loop runs its ops on the thread that ran
 * the steps'): a verdict on the steps (host-bound: the
 * dispatch) would be one on the wrong thing. The span of that work goes
 * into the step note. Ops are a device's kernels, or on a CPU-only trace
 * the framework ops on host threads. One pass over the events.
 */
static bool work_after_steps(tpa_actx *c)
{
        tpa_analysis *a = c->a;
        tpa_ns end, first = -1, last = -1, kept = 0, launch = -1;
        unsigned op = a->cpu_only ? TPA_KIND_HOST_OP : TPA_KIND_KERNEL;
        uint32_t drv;

        /* JAX's runtime runs ops behind the Python that dispatched them;
         * PyTorch's and TF's step windows reach to the end of the device
         * work they launched, and on a CPU their ops after the steps are
         * other work (and a trace that is not JAX's pays no pass) */
        if (a->step_count == 0 || a->no_markers || !(tpa_trace_facts(c->tr) & TPA_FACT_JAX))
                return false;
        end = a->steps[a->step_count - 1].end;
        drv = a->steps[a->step_count - 1].driver_track;
        for (size_t k = 0; k < a->step_count; k++)
                if (!a->steps[k].excluded)
                        kept += a->steps[k].step_time;
        for (size_t i = 0; i < c->n; i++) {
                const tpa_event *e = &c->ev[i];
                tpa_ns s0 = e->ts > end ? e->ts : end;
                if (e->kind == TPA_KIND_LAUNCH && e->track == drv && e->ts >= end &&
                    (launch < 0 || e->ts < launch))
                        launch = e->ts;
                if (e->kind != op || e->ts + e->dur <= end)
                        continue;
                /* the driving thread runs ops itself after the steps (an
                 * evaluation after the loop, on a CPU): its own work */
                if (e->track == drv && e->ts >= end)
                        return false;
                if (first < 0 || s0 < first)
                        first = s0;
                if (e->ts + e->dur > last)
                        last = e->ts + e->dur;
        }
        if (first < 0 || kept <= 0 || last - first <= 10 * kept ||
            (launch >= 0 && launch <= first))
                return false;
        snprintf(a->step_note, sizeof(a->step_note),
                 "the steps' work runs after them: %.1f ms of ops after the last of %zu steps "
                 "(%.1f ms a step); asynchronous dispatch: block on each step's result in its "
                 "marker (jax.block_until_ready)",
                 (double)(last - first) / 1e6, a->step_count,
                 (double)(last - first) / 1e6 / (double)a->step_count);
        return true;
}

/* No training steps to speak of: a trace of no framework we know, with no
 * device and no step marker (a browser's or a server's), one with no step
 * marker and no work at all (a framework's that recorded nothing: PyTorch's
 * export_chrome_trace() after a schedule's cycle has ended holds the
 * profiler's own span alone), or no step at all. Its figures would read as
 * a verdict on nothing. */
static const char *no_verdict(tpa_actx *c)
{
        const tpa_analysis *a = c->a;

        if (a->kept_count == 0 && a->step_count == 1)
                return "no training step: every step is empty (the profiler stopped as it "
                       "began)";
        /* several steps and no op in any: the loop ran on a thread the
         * profiler did not record (warmup.c) */
        if (a->kept_count == 0 && a->step_count > 1)
                return "no training step: no op recorded in any step (the loop runs on a "
                       "thread the profiler does not record: start the profiler in it)";
        if (a->kept_count == 0)
                return "no step in the trace";
        if (tpa_trace_dialect(c->tr) == TPA_DIALECT_GENERIC && a->cpu_only && a->no_markers)
                return "no training steps: no framework, device or step marker in the trace";
        /* the device ran what these launched, unseen: the host's ops
         * are its dispatch, not the compute a CPU-only run's are */
        if (a->unrecorded_launches > 0)
                return "the device's work is not in the trace: it holds kernel launches but "
                       "no device activity (record the device: torch's ProfilerActivity.CUDA)";
        if (a->no_markers && no_work(a))
                return "no training steps: the profiler recorded no framework op, device or "
                       "input event";
        if (work_after_steps(c))
                return "the steps hold almost none of the work, which runs after them: the "
                       "step markers time its dispatch";
        return NULL;
}

/* The median of the n values at v as tpa_analysis__median() gives it,
 * into *out, when its two middle ones are zeros and none is below zero:
 * zero, with no selection (speed, bench/: most step metrics are zero in
 * most steps, a bucket or a flag that a run never has, and their
 * selection was a third of the medians' instructions). False for any other
 * values; values of which the first few are mostly not zero are not
 * looked at further, and the look stops once too few zeros can be left. */
static bool zero_median(const double *v, size_t n, double *out)
{
        enum { FIRST = 8 };
        size_t lo, other = 0;

        if (n < 2)
                return false;
        lo = (size_t)(0.5 * (double)(n - 1));   /* as tpa_analysis__median()'s */
        for (size_t i = 0; i < n && i < FIRST; i++)
                other += v[i] != 0;
        if (other > FIRST / 2)
                return false;
        other = 0;
        for (size_t i = 0; i < n; i++) {
                if (v[i] == 0)
                        continue;
                if (!(v[i] > 0) || ++other > n - lo - 2)
                        return false;   /* below zero, NaN, or too few zeros */
        }
        *out = 0;
        return true;
}

/* The run's value of each step metric, the median over the kept steps:
 * half of the metrics per part, each part with its own scratch. The values
 * are gathered step by step, a block of metrics at a time, each step's
 * block in one read (speed, bench/: a metric at a time read every step's
 * array once per metric; memory: all of a part's metrics at once was a
 * copy of half of every step's). */
static int medians_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        enum { BLOCK = 8 };
        tpa_analysis *a = c->a;
        size_t lo, hi, kept = 0;
        double *v;
        uint64_t *tmp;

        (void)arg;
        tpa_analysis__half(M_STEP__COUNT, part, &lo, &hi);
        for (size_t k = 0; k < a->step_count; k++)
                kept += !a->steps[k].excluded;
        v = malloc((BLOCK * kept + 1) * sizeof(*v));
        tmp = malloc((kept + 1) * sizeof(*tmp));       /* NULL: medians by sorting */
        if (v == NULL) {
                free(tmp);
                return tpa_error_oom(err);
        }
        for (size_t b = lo; b < hi; b += BLOCK) {
                size_t nb = hi - b < BLOCK ? hi - b : BLOCK, j = 0;
                for (size_t k = 0; k < a->step_count; k++) {
                        const double *m = a->steps[k].metric;
                        if (a->steps[k].excluded)
                                continue;
                        for (size_t i = 0; i < nb; i++)
                                v[i * kept + j] = m[b + i];
                        j++;
                }
                for (size_t i = 0; i < nb; i++)
                        if (!zero_median(v + i * kept, kept, &a->run_metric[b + i]))
                                a->run_metric[b + i] = tpa_analysis__median(v + i * kept, kept,
                                                                            tmp);
        }
        free(tmp);
        free(v);
        return 0;
}

/* A step's metric `name` as a place in tpa_step.metric, for the rules'
 * plan; -1 for one of the run's alone, or none. */
static int step_metric_index(void *ctx, const char *name, size_t len)
{
        int idx = metric_index(name, len);

        (void)ctx;
        return idx < M_STEP__COUNT ? idx : -1;
}

/* The class and the findings the rules give each step: half of the steps
 * per part, each a query of the plan (`arg`) over the step's metrics. */
static int rules_part(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        const tpa_rules_plan *plan = arg;
        tpa_analysis *a = c->a;
        size_t lo, hi;
        int r;

        tpa_analysis__half(a->step_count, part, &lo, &hi);
        for (size_t k = lo; k < hi; k++) {
                tpa_step *s = &a->steps[k];
                if ((r = tpa_rules_plan_verdict(plan, s->metric, &s->class_name, &s->findings,
                                                &s->finding_count, err)) < 0)
                        return r;
        }
        return 0;
}

int tpa_analysis__summary(tpa_actx *c, tpa_error *err)
{
        tpa_analysis *a = c->a;
        size_t kept = 0;
        double *v = malloc((a->step_count + 1) * sizeof(*v)), kept_time = 0, stretch = 0, nw;
        int r = 0;

        a->run_metric = calloc(M__COUNT, sizeof(*a->run_metric));
        if (v == NULL || a->run_metric == NULL) {
                free(v);
                return tpa_error_oom(err);
        }
        if ((r = tpa_analysis__in_two(c, medians_part, NULL, err)) < 0) {
                free(v);
                return r;
        }
        for (size_t k = 0; k < a->step_count; k++)
                kept += !a->steps[k].excluded;
        a->run_metric[M_STEPS] = (double)a->step_count;
        a->run_metric[M_KEPT_STEPS] = (double)kept;
        a->run_metric[M_EXCLUDED_STEPS] = (double)(a->step_count - kept);
        kept = 0;
        for (size_t k = 0; k < a->step_count; k++) {
                const tpa_step *s = &a->steps[k];
                if (s->excluded)
                        continue;
                v[kept++] = (double)s->step_time;
                kept_time += (double)s->step_time;
                a->host_gap_count += (uint64_t)s->metric[M_HOST_GAP_COUNT];
                a->host_gap_ns += (tpa_ns)s->metric[M_HOST_GAP_NS];
                stretch += s->metric[M_HOST_GAP_MAX];
                nw = (double)worked_devices(c, s);
                a->gap_total_count += (uint64_t)(s->metric[M_GAP_COUNT] * nw + 0.5);
                a->gap_total_ns += (tpa_ns)(s->metric[M_GAP_TOTAL] * nw + 0.5);
        }
        /* each step's longest Python gap, as the Python time it is weighed
         * against: time-weighted, its mean length a step. A checkpoint
         * every third step (a stretch of 100 ms in those, none in the
         * rest) has a median of nothing, and the run read 'torch.compile,
         * less Python per step' for Python that is I/O. */
        a->run_metric[M_HOST_GAP_MAX] = kept ? stretch / (double)kept : 0;
        a->run_metric[M_HOST_GAP_MAX_FRAC] = kept_time > 0 ? stretch / kept_time : 0;
        a->run_metric[M_P90] = tpa_analysis__quantile(v, kept, 0.9);
        a->run_metric[M_MIN] = kept ? v[0] : 0;
        a->run_metric[M_MAX] = kept ? v[kept - 1] : 0;
        a->step_time_median = (tpa_ns)(a->run_metric[M_STEP_TIME] + 0.5);
        a->step_time_p90 = (tpa_ns)(a->run_metric[M_P90] + 0.5);
        a->step_time_min = (tpa_ns)a->run_metric[M_MIN];
        a->step_time_max = (tpa_ns)a->run_metric[M_MAX];
        run_breakdown(a);
        for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                a->run_frac[b] = a->run_metric[M_BUCKET_FRAC + b];
        a->run_group_frac[TPA_GROUP_COMPUTE] = a->run_metric[F(COMPUTE)];
        a->run_group_frac[TPA_GROUP_TRANSFER] = a->run_metric[M_TRANSFER_FRAC];
        a->run_group_frac[TPA_GROUP_SYNC] = a->run_metric[M_SYNC_FRAC];
        a->run_group_frac[TPA_GROUP_INPUT] = a->run_metric[F(INPUT)];
        a->run_group_frac[TPA_GROUP_HOST] = a->run_metric[M_HOST_FRAC];
        a->run_group_frac[TPA_GROUP_IDLE] = a->run_metric[F(IDLE)];
        for (int g = 1; g < TPA_GROUP__COUNT; g++)
                a->gain_frac[g] = a->run_metric[M_GAIN + g];
        a->host_gap_frac = kept_time > 0 ? (double)a->host_gap_ns / kept_time : 0;
        a->host_gap_per_ms = kept_time > 0 ? (double)a->host_gap_count / (kept_time / 1e6) : 0;
        a->host_gap_median = (tpa_ns)(a->run_metric[M_HOST_GAP_MEDIAN] + 0.5);
        free(v);

        /* the top gaps (the metrics kept them), explained by the host
         * events that overlap any of them (the metrics found those too) */
        if ((r = explain_gaps(c, err)) < 0)
                return r;

        /* classes and findings */
        a->no_verdict = no_verdict(c);
        if (c->opts->rules == NULL || a->no_verdict != NULL)
                return 0;
        a->classes = calloc(a->step_count + 1, sizeof(*a->classes));
        if (a->classes == NULL)
                return tpa_error_oom(err);
        {
                /* speed, bench/: every name of the rules found once, not once a step */
                tpa_rules_plan *plan = NULL;
                if ((r = tpa_rules_plan_new(&plan, c->opts->rules, step_metric_index, NULL,
                                            err)) < 0)
                        return r;
                r = tpa_analysis__in_two(c, rules_part, plan, err);
                tpa_rules_plan_free(plan);
                if (r < 0)
                        return r;
        }
        for (size_t k = 0; k < a->step_count; k++) {
                const tpa_step *s = &a->steps[k];
                size_t j;
                if (s->excluded || s->class_name == NULL)
                        continue;
                for (j = 0; j < a->class_kinds; j++)
                        if (strcmp(a->classes[j].name, s->class_name) == 0)
                                break;
                if (j == a->class_kinds)
                        a->classes[a->class_kinds++] = (tpa_class_count){
                                s->class_name, class_order(c->opts->rules, s->class_name), 0 };
                a->classes[j].time += s->step_time;
        }
        qsort(a->classes, a->class_kinds, sizeof(*a->classes), cmp_class);
        for (size_t j = 0; j < a->class_kinds; j++)
                a->classes[j].count = 0;
        for (size_t k = 0; k < a->step_count; k++)
                for (size_t j = 0; j < a->class_kinds && !a->steps[k].excluded; j++)
                        if (a->steps[k].class_name != NULL &&
                            strcmp(a->classes[j].name, a->steps[k].class_name) == 0)
                                a->classes[j].count++;
        {
                tpa_analysis_metric_ctx mc = { a, -1 };
                if ((r = tpa_rules_classify(c->opts->rules, tpa_analysis_metric_fn, &mc,
                                            &a->breakdown_class, err)) < 0 ||
                    (r = tpa_rules_findings(c->opts->rules, tpa_analysis_metric_fn, &mc,
                                            &a->findings, &a->finding_count, err)) < 0)
                        return r;
        }
        a->run_class = a->class_kinds > 0 ? a->classes[0].name : a->breakdown_class;
        return 0;
}
