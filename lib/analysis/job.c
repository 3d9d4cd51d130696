/* SPDX-License-Identifier: MIT */
/*
 * job.c - the cross-rank view of one distributed job (doc/design.md 5.6):
 * ranks ordered by rank number, steps aligned by step number, per step the
 * straggler and its excess over the median rank, per rank the time it
 * waited in collectives for the others, and the job metrics `check`
 * gates on. It reads tpa_rank summaries only, never a trace, so it runs
 * as well on reports gathered from many hosts.
 */
#include <stdlib.h>
#include <string.h>

#include <tpa/job.h>

static int by_rank(const void *pa, const void *pb)
{
        const tpa_job_rank *a = pa, *b = pb;

        return (a->rank > b->rank) - (a->rank < b->rank);
}

static int by_i64(const void *pa, const void *pb)
{
        int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

        return (a > b) - (a < b);
}

static int by_double(const void *pa, const void *pb)
{
        double a = *(const double *)pa, b = *(const double *)pb;

        return (a > b) - (a < b);
}

static tpa_ns median_ns(tpa_ns *v, size_t n)
{
        qsort(v, n, sizeof(*v), by_i64);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The busy time of the median rank: a rank's own, the lower of the two
 * middle ones when the count is even. With two ranks, the mean of the two
 * would put the straggler's excess at half its lead over the other rank. */
static tpa_ns median_rank_ns(tpa_ns *v, size_t n)
{
        qsort(v, n, sizeof(*v), by_i64);
        return v[(n - 1) / 2];
}

static double median_d(double *v, size_t n)
{
        if (n == 0)
                return 0;
        qsort(v, n, sizeof(*v), by_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The kept step `number` of `r`, or NULL. Steps are in time order, which
 * is number order in every trace we know; a miss falls back to a scan. */
static const tpa_rank_step *find_step(const tpa_rank *r, int64_t number, size_t *hint)
{
        const tpa_rank_step *s = NULL;

        if (*hint < r->step_count && r->steps[*hint].number == number)
                s = &r->steps[*hint];
        for (size_t i = 0; s == NULL && i < r->step_count; i++)
                if (r->steps[i].number == number)
                        s = &r->steps[i];
        if (s != NULL)
                *hint = (size_t)(s - r->steps) + 1;
        return s != NULL && !s->excluded ? s : NULL;
}

/* The step numbers kept by any rank, sorted, without repeats. */
static int step_numbers(int64_t **out, size_t *count, const tpa_rank *const *ranks, size_t n,
                        tpa_error *err)
{
        size_t total = 0, k = 0;
        int64_t *v;

        for (size_t i = 0; i < n; i++)
                total += ranks[i]->step_count;
        if ((v = malloc((total + 1) * sizeof(*v))) == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < n; i++)
                for (size_t s = 0; s < ranks[i]->step_count; s++)
                        if (!ranks[i]->steps[s].excluded)
                                v[k++] = ranks[i]->steps[s].number;
        qsort(v, k, sizeof(*v), by_i64);
        total = 0;
        for (size_t i = 0; i < k; i++)
                if (total == 0 || v[i] != v[total - 1])
                        v[total++] = v[i];
        *out = v;
        *count = total;
        return 0;
}

static void order_ranks(tpa_job *j, const tpa_rank *const *ranks, size_t n)
{
        bool known = false;
        int64_t next = 0;

        for (size_t i = 0; i < n; i++) {
                j->ranks[i].r = ranks[i];
                j->ranks[i].rank = ranks[i]->rank;
                known |= ranks[i]->rank >= 0;
                if (ranks[i]->rank >= next)
                        next = ranks[i]->rank + 1;
                if (ranks[i]->world_size > j->world_size)
                        j->world_size = ranks[i]->world_size;
        }
        /* inputs that say no rank (a file given with --ranks that is no
         * rank's trace) come after the ranks the others say: numbering
         * every input by position would give a rank's figures to another */
        for (size_t i = 0; known && i < n; i++)
                if (j->ranks[i].rank < 0)
                        j->ranks[i].rank = next++;
        if (known) {
                qsort(j->ranks, n, sizeof(*j->ranks), by_rank);
                for (size_t i = 1; known && i < n; i++)
                        if (j->ranks[i].rank == j->ranks[i - 1].rank) {
                                j->repeated_rank = j->ranks[i].rank;
                                known = false;
                        }
        }
        if (!known) {           /* as given on the command line */
                j->ranks_by_position = true;
                for (size_t i = 0; i < n; i++) {
                        j->ranks[i].r = ranks[i];
                        j->ranks[i].rank = (int64_t)i;
                }
        }
}

/* By wall-clock start: the inputs in the order they ran. */
static int cmp_wall_start(const void *a, const void *b)
{
        const tpa_rank *x = *(const tpa_rank *const *)a, *y = *(const tpa_rank *const *)b;

        return x->wall_start_ns < y->wall_start_ns ? -1 : x->wall_start_ns > y->wall_start_ns;
}

/* True when n >= 2 inputs say when they ran and, in the order they began,
 * each began after the one before it ended: a script run again and again
 * into one folder (tensorboard_trace_handler names each run's file by a
 * new pid), which the folder's names alone cannot tell from ranks. */
static bool one_after_another(const tpa_rank *const *ranks, size_t n)
{
        const tpa_rank **v;
        bool apart = n >= 2;

        for (size_t i = 0; i < n && apart; i++)
                apart = ranks[i]->wall_start_ns >= 0 && ranks[i]->wall_end_ns >= 0;
        if (!apart || (v = malloc(n * sizeof(*v))) == NULL)
                return false;
        memcpy(v, ranks, n * sizeof(*v));
        qsort(v, n, sizeof(*v), cmp_wall_start);
        for (size_t i = 1; i < n && apart; i++)
                apart = v[i]->wall_start_ns >= v[i - 1]->wall_end_ns;
        free(v);
        return apart;
}

/* Every input says a rank, none the same: the ranks of one job, even when
 * their profilers recorded windows apart (a schedule that begins later on
 * some ranks); a script's runs say none, or the same. */
static bool own_ranks(const tpa_job *j, const tpa_rank *const *ranks, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (ranks[i]->rank < 0)
                        return false;
        return !j->ranks_by_position;
}

/* Step s of the job over the ranks that kept it: wait, busy time, the
 * straggler. `row` holds each rank's step or NULL; `busy` is scratch. */
static void job_step(tpa_job *j, size_t s, const tpa_rank_step *const *row, tpa_ns *busy)
{
        tpa_job_step *st = &j->steps[s];
        tpa_ns least = -1, most = -1;
        size_t k = 0, lead = 0;

        for (size_t r = 0; r < j->rank_count; r++)
                if (row[r] != NULL && (least < 0 || row[r]->collective < least))
                        least = row[r]->collective;
        for (size_t r = 0; r < j->rank_count; r++) {
                tpa_job_rank *jr = &j->ranks[r];
                tpa_ns wait, b;

                j->cells[r * j->step_count + s] = row[r] != NULL ? row[r]->step_time : -1;
                if (row[r] == NULL) {
                        jr->missing++;
                        st->missing++;
                        continue;
                }
                wait = row[r]->collective - least;
                b = row[r]->step_time - wait;
                jr->steps++;
                jr->step_time += row[r]->step_time;
                jr->collective += row[r]->collective;
                jr->wait += wait;
                if (b > most) {         /* the first (lowest rank) on a tie */
                        most = b;
                        lead = r;
                }
                if (row[r]->step_time > st->step_time_max)
                        st->step_time_max = row[r]->step_time;
                busy[k++] = b;
        }
        st->ranks = k;
        st->busy_median = k > 0 ? median_rank_ns(busy, k) : 0;
        if (j->one_after_another)       /* runs, none waiting for another */
                most = st->busy_median;
        st->excess = most - st->busy_median;
        st->excess_frac = st->busy_median > 0 ? (double)st->excess / (double)st->busy_median : 0;
        st->spread = st->busy_median > 0 ? (double)most / (double)st->busy_median : 1;
        /* the busiest rank straggles when it is busier than the median:
         * not when the ranks tie, nor in a step one rank kept (the others'
         * warm-up or tail excluded, or a job of one rank) */
        st->straggler = st->excess > 0 ? lead : TPA_JOB_NONE;
        if (st->straggler != TPA_JOB_NONE) {
                st->straggler_class = row[lead]->class_name;
                j->ranks[lead].straggler_steps++;
        }
}

/* Step s counts in the job's straggler figures: more than one rank kept
 * it, or the job is one rank. */
static bool compared(const tpa_job *j, size_t s)
{
        return j->steps[s].ranks >= 2 || j->rank_count == 1;
}

static void summarize(tpa_job *j, double *scratch)
{
        tpa_ns *ns = (tpa_ns *)scratch;         /* same size as double */
        size_t m = 0;

        j->top_straggler = TPA_JOB_NONE;
        for (size_t r = 0; r < j->rank_count; r++) {
                tpa_job_rank *jr = &j->ranks[r];
                jr->wait_frac = jr->step_time > 0 ? (double)jr->wait / (double)jr->step_time : 0;
                jr->overlap_frac = jr->r->comm_ns > 0
                                   ? (double)jr->r->overlap_ns / (double)jr->r->comm_ns : -1;
                if (jr->straggler_steps > j->top_straggler_steps) {
                        j->top_straggler_steps = jr->straggler_steps;
                        j->top_straggler = r;
                }
        }
        for (size_t s = 0; s < j->step_count; s++)
                j->steps_with_missing += j->steps[s].missing > 0;
        for (size_t s = 0; s < j->step_count; s++)
                if (compared(j, s))
                        ns[m++] = j->steps[s].excess;
        j->excess_median = m > 0 ? median_ns(ns, m) : 0;
        m = 0;
        for (size_t s = 0; s < j->step_count; s++) {
                if (!compared(j, s))
                        continue;
                scratch[m] = j->steps[s].excess_frac;
                if (scratch[m] > j->excess_frac_max)
                        j->excess_frac_max = scratch[m];
                m++;
        }
        j->excess_frac_median = median_d(scratch, m);
        m = 0;
        for (size_t s = 0; s < j->step_count; s++)
                if (compared(j, s))
                        scratch[m++] = j->steps[s].spread;
        j->spread_median = m > 0 ? median_d(scratch, m) : 1;
}

int tpa_job_build(tpa_job **out, const tpa_rank *const *ranks, size_t n, tpa_error *err)
{
        const tpa_rank_step **row = NULL;
        size_t *hint = NULL;
        int64_t *numbers = NULL;
        tpa_ns *busy = NULL;
        double *scratch = NULL;
        tpa_job *j;
        int rc;

        if (n == 0)
                return tpa_error_setf(err, TPA_EINVAL, "no rank to aggregate");
        if ((j = calloc(1, sizeof(*j))) == NULL)
                return tpa_error_oom(err);
        j->world_size = -1;
        j->repeated_rank = -1;
        j->rank_count = n;
        if ((j->ranks = calloc(n, sizeof(*j->ranks))) == NULL ||
            (rc = step_numbers(&numbers, &j->step_count, ranks, n, err)) < 0)
                goto nomem;
        order_ranks(j, ranks, n);
        j->one_after_another = !own_ranks(j, ranks, n) && one_after_another(ranks, n);
        j->steps = calloc(j->step_count + 1, sizeof(*j->steps));
        j->cells = malloc((j->step_count * n + 1) * sizeof(*j->cells));
        row = malloc(n * sizeof(*row));
        hint = calloc(n, sizeof(*hint));
        busy = malloc(n * sizeof(*busy));
        scratch = malloc((j->step_count + 1) * sizeof(*scratch));
        if (j->steps == NULL || j->cells == NULL || row == NULL || hint == NULL ||
            busy == NULL || scratch == NULL)
                goto nomem;
        for (size_t s = 0; s < j->step_count; s++) {
                j->steps[s].number = numbers[s];
                for (size_t r = 0; r < n; r++)
                        row[r] = find_step(j->ranks[r].r, numbers[s], &hint[r]);
                job_step(j, s, row, busy);
        }
        summarize(j, scratch);
        free(numbers);
        free(row);
        free(hint);
        free(busy);
        free(scratch);
        *out = j;
        return 0;
nomem:
        free(numbers);
        free(row);
        free(hint);
        free(busy);
        free(scratch);
        tpa_job_free(j);
        return tpa_error_oom(err);
}

void tpa_job_free(tpa_job *j)
{
        if (j == NULL)
                return;
        free(j->ranks);
        free(j->steps);
        free(j->cells);
        free(j);
}

/* ---- job metrics ---------------------------------------------------------- */

static const char *const metric_names[] = {
        "straggler_excess", "straggler_excess_max", "spread", "collective_wait_frac",
        "comm_overlap_frac", "launch_delay_p90_ns", "missing_steps", "ranks", "job_steps",
};
#define METRIC_COUNT (sizeof(metric_names) / sizeof(metric_names[0]))

size_t tpa_job_metric_count(void)
{
        return METRIC_COUNT;
}

const char *tpa_job_metric_name(size_t i)
{
        return i < METRIC_COUNT ? metric_names[i] : NULL;
}

static double metric_at(const tpa_job *j, size_t m)
{
        double v = 0;
        bool any = false;

        switch (m) {
        case 0: return j->excess_frac_median;
        case 1: return j->excess_frac_max;
        case 2: return j->spread_median;
        case 3:
                for (size_t r = 0; r < j->rank_count; r++)
                        if (j->ranks[r].wait_frac > v)
                                v = j->ranks[r].wait_frac;
                return v;
        case 4:
                for (size_t r = 0; r < j->rank_count; r++) {
                        double f = j->ranks[r].overlap_frac;
                        if (f >= 0 && (!any || f < v))
                                v = f;
                        any |= f >= 0;
                }
                return v;
        case 5:
                for (size_t r = 0; r < j->rank_count; r++)
                        if ((double)j->ranks[r].r->launch_delay_p90 > v)
                                v = (double)j->ranks[r].r->launch_delay_p90;
                return v;
        case 6:
                for (size_t r = 0; r < j->rank_count; r++)
                        v += (double)j->ranks[r].missing;
                return v;
        case 7: return (double)j->rank_count;
        default: return (double)j->step_count;
        }
}

bool tpa_job_metric(const tpa_job *j, const char *name, size_t len, double *out)
{
        for (size_t m = 0; m < METRIC_COUNT; m++)
                if (strlen(metric_names[m]) == len && memcmp(metric_names[m], name, len) == 0) {
                        *out = metric_at(j, m);
                        return true;
                }
        return false;
}

bool tpa_job_metric_is_frac(const char *name)
{
        return strcmp(name, "straggler_excess") == 0 || strcmp(name, "straggler_excess_max") == 0;
}

bool tpa_job_metric_fn(void *ctx, const char *name, size_t len, double *out)
{
        return tpa_job_metric(ctx, name, len, out);
}
