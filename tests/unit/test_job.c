/* SPDX-License-Identifier: MIT */
/*
 * test_job.c - the job view of several ranks: the straggler and its
 * excess on hand-made ranks (a rank that others wait for in collectives),
 * missing and excluded steps, ranks without rank numbers, the job
 * metrics, the launch figures of a trace, and the distributed object of
 * a report read back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "analysis/results_build.h"
#include "analysis_fixture.h"
#include "tap.h"

#define MS 1000000

/* A rank of `n` steps numbered from 1: busy[s] ms of its own work, then
 * it waits in the all-reduce until `end` ms after the step start, and the
 * all-reduce itself takes 2 ms once all are in. */
static tpa_rank *rank_of(int64_t number, const int *busy, const int *end, size_t n)
{
        tpa_rank *r = NULL;

        if (tpa_rank__new(&r, NULL) < 0)
                return NULL;
        r->rank = number;
        r->world_size = 3;
        r->steps = calloc(n, sizeof(*r->steps));
        for (size_t s = 0; s < n && r->steps != NULL; s++) {
                r->steps[s].number = (int64_t)s + 1;
                r->steps[s].step_time = (tpa_ns)(end[s] + 2) * MS;
                r->steps[s].collective = (tpa_ns)(end[s] - busy[s] + 2) * MS;
                r->step_count++;
        }
        return r;
}

static void test_job__straggler(void)
{
        /* rank 2 takes 30 ms of its own in every step, the others 10-12:
         * everyone's step ends when rank 2 joins the all-reduce */
        static const int b0[] = { 10, 11, 12 }, b1[] = { 12, 10, 11 }, b2[] = { 30, 30, 30 };
        static const int end[] = { 30, 30, 30 };
        tpa_rank *r[3] = { rank_of(1, b1, end, 3), rank_of(0, b0, end, 3),
                           rank_of(2, b2, end, 3) };
        tpa_job *j = NULL;
        double v;

        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 3, NULL) == 0, "straggler: builds");
        if (j != NULL) {
                tap_eq(j->ranks[0].rank, 0, "ranks in rank order");
                tap_eq((int64_t)j->step_count, 3, "three steps");
                for (size_t s = 0; s < 3; s++) {
                        /* busy = step time less wait = own work + 2 ms; the
                         * median rank's own work is 12, 11, 12 ms */
                        tpa_ns median = s == 1 ? 11 : 12;
                        tap_eq(j->ranks[j->steps[s].straggler].rank, 2, "step %zu: rank 2", s + 1);
                        tap_eq(j->steps[s].excess, (30 - median) * MS,
                               "step %zu: excess over the median rank", s + 1);
                        tap_eq(j->steps[s].busy_median, (median + 2) * MS,
                               "step %zu: the median rank's busy time", s + 1);
                }
                tap_eq(j->ranks[0].wait, (tpa_ns)(20 + 19 + 18) * MS, "rank 0 waited");
                tap_eq(j->ranks[2].wait, 0, "the straggler did not wait");
                tap_eq((int64_t)j->ranks[2].straggler_steps, 3, "straggler in every step");
                tap_eq(j->ranks[j->top_straggler].rank, 2, "the job's straggler");
                v = -1;
                tpa_job_metric(j, "straggler_excess", 16, &v);
                ok(v > 1.285 && v < 1.286, "straggler_excess is 18/14, the median step (%g)", v);
                ok(tpa_job_metric(j, "missing_steps", 13, &v) && v == 0, "nothing missing");
                ok(!tpa_job_metric(j, "input_frac", 10, &v), "a run metric is no job metric");
                ok(tpa_job_metric_is_frac("straggler_excess"), "straggler_excess is a fraction");
        }
        tpa_job_free(j);
        for (int i = 0; i < 3; i++)
                tpa_rank_free(r[i]);
}

static void test_job__missing(void)
{
        static const int b[] = { 10, 10, 10 }, end[] = { 10, 10, 10 };
        tpa_rank *r[2] = { rank_of(-1, b, end, 3), rank_of(-1, b, end, 2) };
        tpa_job *j = NULL;
        double v;

        r[0]->steps[0].excluded = true;         /* warm-up on rank 0 */
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "missing: builds");
        if (j != NULL) {
                ok(j->ranks_by_position, "no rank numbers: by position");
                tap_eq((int64_t)j->step_count, 3, "steps kept by any rank");
                tap_eq((int64_t)j->ranks[0].missing, 1, "rank 0 lacks its excluded step");
                tap_eq((int64_t)j->ranks[1].missing, 1, "rank 1 lacks step 3");
                tap_eq(j->cells[0 * 3 + 0], -1, "the heat map marks it");
                tap_eq((int64_t)j->steps_with_missing, 2, "two steps with a missing rank");
                ok(tpa_job_metric(j, "missing_steps", 13, &v) && v == 2, "missing_steps 2");
        }
        tpa_job_free(j);
        ok(tpa_job_build(&j, NULL, 0, NULL) == TPA_EINVAL, "no rank: EINVAL");
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

/* Two ranks: the median rank is the other rank, not the mean of the two,
 * so the straggler's excess is its whole lead (not half of it). */
static void test_job__two_ranks(void)
{
        static const int b0[] = { 10, 10 }, b1[] = { 70, 70 }, end[] = { 70, 70 };
        tpa_rank *r[2] = { rank_of(0, b0, end, 2), rank_of(1, b1, end, 2) };
        tpa_job *j = NULL;

        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "two ranks: builds");
        if (j != NULL) {
                tap_eq(j->ranks[j->steps[0].straggler].rank, 1, "two ranks: rank 1 straggles");
                tap_eq(j->steps[0].excess, 60 * MS, "two ranks: the excess is its whole lead");
                tap_eq(j->steps[0].busy_median, 12 * MS, "two ranks: the other rank's busy time");
        }
        tpa_job_free(j);
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

/* One input says no rank (a stray file given with --ranks): the ranks the
 * others say stay theirs, and it comes after them. */
static void test_job__unlabelled_input(void)
{
        static const int b0[] = { 10, 10 }, b1[] = { 40, 40 }, b2[] = { 11, 11 };
        static const int end[] = { 40, 40 };
        tpa_rank *r[3] = { rank_of(-1, b2, end, 2), rank_of(1, b1, end, 2),
                           rank_of(0, b0, end, 2) };
        tpa_job *j = NULL;

        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 3, NULL) == 0,
           "unlabelled input: builds");
        if (j != NULL) {
                ok(!j->ranks_by_position, "unlabelled input: ranks as the traces say");
                tap_eq(j->ranks[j->top_straggler].rank, 1, "unlabelled input: rank 1 straggles");
                for (size_t i = 0; i < 3; i++)
                        if (j->ranks[i].rank == 2)
                                tap_eq(j->ranks[i].wait, (tpa_ns)(29 + 29) * MS,
                                       "unlabelled input: numbered 2, after the others");
        }
        tpa_job_free(j);
        for (int i = 0; i < 3; i++)
                tpa_rank_free(r[i]);
}

/* Rank 0's reports of two builds given as two ranks: numbered by position,
 * and the repeated number is kept to say so (the headline said "no rank
 * numbers", which they had). */
static void test_job__repeated_rank(void)
{
        static const int b0[] = { 10, 10 }, b1[] = { 11, 11 }, end[] = { 20, 20 };
        tpa_rank *r[3] = { rank_of(0, b0, end, 2), rank_of(1, b1, end, 2),
                           rank_of(0, b1, end, 2) };
        tpa_job *j = NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *fp;

        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 3, NULL) == 0, "repeated: builds");
        if (j != NULL) {
                ok(j->ranks_by_position, "repeated: ranks by position");
                tap_eq(j->repeated_rank, 0, "repeated: rank 0 given twice");
                if ((fp = open_memstream(&buf, &len)) != NULL) {
                        tpa_report_job_text(fp, j);
                        fclose(fp);
                        ok(buf != NULL && strstr(buf, "rank 0 given twice") != NULL &&
                                   strstr(buf, "no rank numbers") == NULL,
                           "repeated: the headline names the rank, not a missing number");
                        free(buf);
                }
        }
        tpa_job_free(j);
        for (int i = 0; i < 3; i++)
                tpa_rank_free(r[i]);
        r[0] = rank_of(-1, b0, end, 2);
        r[1] = rank_of(-1, b1, end, 2);
        j = NULL;
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "no numbers: builds");
        if (j != NULL)
                tap_eq(j->repeated_rank, -1, "no numbers: none repeated");
        tpa_job_free(j);
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

/* A step that one rank of two kept (the other's tail excluded): no one to
 * straggle against, so it counts in no straggler figure. */
static void test_job__one_rank_step(void)
{
        static const int b0[] = { 10, 10, 10 }, b1[] = { 14, 14, 30 };
        static const int end[] = { 14, 14, 30 };
        tpa_rank *r[2] = { rank_of(0, b0, end, 2), rank_of(1, b1, end, 3) };
        tpa_job *j = NULL;
        double v = -1;

        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "one-rank step: builds");
        if (j != NULL) {
                tap_eq((int64_t)j->step_count, 3, "one-rank step: three steps");
                tap_eq((int64_t)j->steps[2].ranks, 1, "one-rank step: step 3 has one rank");
                tap_eq((int64_t)j->ranks[1].straggler_steps, 2,
                       "one-rank step: rank 1 straggles in the two compared steps");
                tap_eq(j->excess_median, 4 * MS, "one-rank step: the excess of those steps");
                bool got = tpa_job_metric(j, "straggler_excess", 16, &v);
                ok(got && fabs(v - 4.0 / 12) < 1e-9, "one-rank step: straggler_excess 4/12 (%g)",
                   v);
        }
        tpa_job_free(j);
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

/* Ranks busy alike (a tie) have no straggler, nor has a step one rank
 * kept: not the lowest rank at 0 ns over the median. */
static void test_job__tie(void)
{
        static const int b[] = { 10, 12, 10 }, b2[] = { 10, 12 }, end[] = { 20, 20, 20 };
        tpa_rank *r[2] = { rank_of(0, b, end, 3), rank_of(1, b2, end, 2) };
        tpa_job *j = NULL;

        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "tie: builds");
        if (j != NULL) {
                for (size_t s = 0; s < 3; s++) {
                        ok(j->steps[s].straggler == TPA_JOB_NONE, "tie: step %zu has none",
                           s + 1);
                        tap_eq(j->steps[s].excess, 0, "tie: step %zu, no excess", s + 1);
                        ok(j->steps[s].straggler_class == NULL, "tie: step %zu, no class",
                           s + 1);
                }
                tap_eq((int64_t)j->ranks[0].straggler_steps, 0, "tie: rank 0 straggles nowhere");
                ok(j->top_straggler == TPA_JOB_NONE, "tie: the job has none");
        }
        tpa_job_free(j);
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 1, NULL) == 0, "one rank: builds");
        if (j != NULL)
                ok(j->top_straggler == TPA_JOB_NONE && j->steps[0].straggler == TPA_JOB_NONE,
                   "one rank: no straggler");
        tpa_job_free(j);
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

/* Inputs that say when they ran, none while another did, are runs one
 * after another (a script run again into one folder): no straggler; ranks
 * that ran at once, or an input that does not say, stay ranks. */
static void test_job__one_after_another(void)
{
        static const int b0[] = { 10, 10 }, b1[] = { 40, 40 }, end[] = { 40, 40 };
        tpa_rank *r[2] = { rank_of(-1, b0, end, 2), rank_of(-1, b1, end, 2) };
        tpa_job *j = NULL;

        r[0]->wall_start_ns = 5000 * (int64_t)MS;
        r[0]->wall_end_ns = 5084 * (int64_t)MS;
        r[1]->wall_start_ns = 5084 * (int64_t)MS;     /* as the first ended */
        r[1]->wall_end_ns = 5168 * (int64_t)MS;
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "runs: builds");
        if (j != NULL) {
                ok(j->one_after_another, "runs: one after another");
                ok(j->steps[0].straggler == TPA_JOB_NONE && j->steps[0].excess == 0,
                   "runs: no straggler, no excess");
                ok(j->top_straggler == TPA_JOB_NONE, "runs: the job has none");
        }
        tpa_job_free(j);
        r[1]->wall_start_ns = 5083 * (int64_t)MS;     /* began before the first ended */
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "at once: builds");
        if (j != NULL) {
                ok(!j->one_after_another, "at once: ranks");
                ok(j->steps[0].straggler == 1, "at once: rank 1 straggles");
        }
        tpa_job_free(j);
        r[1]->wall_start_ns = 5084 * (int64_t)MS;     /* apart again, but ranks 0 and 1 */
        r[0]->rank = 0;
        r[1]->rank = 1;
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "own ranks: builds");
        if (j != NULL)
                ok(!j->one_after_another, "own ranks: one job's, windows apart");
        tpa_job_free(j);
        r[0]->rank = r[1]->rank = -1;
        r[1]->wall_start_ns = r[1]->wall_end_ns = -1;
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "unknown: builds");
        if (j != NULL)
                ok(!j->one_after_another, "unknown: ranks, as the names say");
        tpa_job_free(j);
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

/* A report written by the tool reads back into the same rank. */
static void test_job__report_roundtrip(void)
{
        const char *dir = getenv("TPA_TESTDATA");
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_trace *tr = NULL;
        tpa_analysis *a = NULL;
        tpa_rank *r = NULL, *back = NULL;
        char path[4096], out[] = "/tmp/tpa_test_job_XXXXXX";
        int fd;
        FILE *fp;

        snprintf(path, sizeof(path), "%s/synth_gpu_rank1.pt.trace.json.gz", dir ? dir : "testdata");
        ok(tpa_trace_new(&tr, NULL) == 0 && tpa_read_path(tr, path, NULL, NULL) == 0,
           "roundtrip: reads the trace");
        tap_eq(tpa_trace_dist(tr)->rank, 1, "distributedInfo rank");
        tap_eq(tpa_trace_dist(tr)->world_size, 4, "distributedInfo world size");
        ok(strcmp(tpa_trace_dist(tr)->backend, "nccl") == 0, "distributedInfo backend");
        ok(tpa_analyze(&a, tr, &ao, NULL) == 0 &&
           tpa_rank_from_trace(&r, tr, a, "x.json.gz", NULL) == 0, "rank from trace");
        fd = mkstemp(out);
        fp = fd >= 0 ? fdopen(fd, "w") : NULL;
        ok(fp != NULL && tpa_report_json(fp, tr, a, "x.json.gz", NULL) == 0, "report written");
        if (fp != NULL)
                fclose(fp);
        ok(tpa_report_load_rank(&back, out, NULL) == 0, "distributed object read back");
        if (r != NULL && back != NULL) {
                tap_eq(back->rank, 1, "same rank");
                tap_eq((int64_t)back->step_count, (int64_t)r->step_count, "same steps");
                for (size_t s = 0; s < r->step_count && s < back->step_count; s++)
                        ok(back->steps[s].collective == r->steps[s].collective &&
                           back->steps[s].step_time == r->steps[s].step_time &&
                           back->steps[s].excluded == r->steps[s].excluded,
                           "step %zu: same time and collective time", s);
                tap_eq(back->comm_ns, r->comm_ns, "same comm time");
                tap_eq(back->overlap_ns, r->overlap_ns, "same overlap");
                tap_eq((int64_t)back->launch_count, (int64_t)r->launch_count, "same launches");
                tap_eq(back->launch_delay_p90, r->launch_delay_p90, "same launch p90");
                tap_eq((int64_t)back->stream_count, (int64_t)r->stream_count, "same streams");
        }
        remove(out);
        tpa_rank_free(back);
        tpa_rank_free(r);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A CUDA graph's kernels all carry its launch's correlation id: each is a
 * device event of that launch, with a delay and a place in the queue of
 * its own (a kernel launched alone, then a graph of three: 4 launched
 * device events, delays 2, 10, 20 and 30 us). */
static void test_job__graph_launch(void)
{
        static const char json[] =
                "{\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"args\":{\"correlation\":1}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                "\"ts\":12,\"dur\":5,\"args\":{\"correlation\":1}},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\","
                "\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,\"args\":{\"correlation\":2}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g1\",\"pid\":0,\"tid\":7,"
                "\"ts\":40,\"dur\":5,\"args\":{\"correlation\":2}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g2\",\"pid\":0,\"tid\":7,"
                "\"ts\":50,\"dur\":5,\"args\":{\"correlation\":2}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g3\",\"pid\":0,\"tid\":7,"
                "\"ts\":60,\"dur\":5,\"args\":{\"correlation\":2}}]}";
        tpa_trace *tr = read_json(json);
        tpa_analysis *a = analyze_with_rules(tr, NULL);
        tpa_rank *r = NULL;

        ok(a != NULL && tpa_rank_from_trace(&r, tr, a, "graph.json", NULL) == 0,
           "test_job__graph_launch: rank from trace");
        if (r != NULL) {
                tap_eq((int64_t)r->launch_count, 4, "test_job__graph_launch: every launched kernel");
                tap_eq(r->launch_delay_median, 15 * US, "test_job__graph_launch: median delay");
                tap_eq(r->launch_delay_max, 30 * US, "test_job__graph_launch: largest delay");
                tap_eq((int64_t)r->stream_count, 1, "test_job__graph_launch: one stream");
                if (r->stream_count == 1)
                        tap_eq(r->streams[0].queue_max, 3, "test_job__graph_launch: the graph queues 3");
        }
        tpa_rank_free(r);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* What the launch figures and the overlap should be, worked out the plain
 * way: times in whole microseconds, spans as the microseconds they cover. */
struct rand_launch {
        int64_t launch, launch_dur, kernel, kernel_dur;
        int     stream;                 /* 0 to 2: tids 7 to 9 */
        bool    nccl;
};

static int cmp_i64(const void *pa, const void *pb)
{
        int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

        return (a > b) - (a < b);
}

/* Queue points of one stream: time * 2, + 0 for a launch, + 1 for its
 * kernel, so that launches sort first at a time. */
static void expect_queue(const struct rand_launch *l, size_t n, int stream, double *mean,
                         int64_t *max)
{
        int64_t *p = malloc(2 * n * sizeof(*p)), depth = 0, sum = 0;
        size_t np = 0;

        *max = 0;
        for (size_t i = 0; p != NULL && i < n; i++) {
                if (l[i].stream != stream)
                        continue;
                p[np++] = 2 * l[i].launch;
                p[np++] = 2 * l[i].kernel + 1;
        }
        qsort(p, np, sizeof(*p), cmp_i64);
        for (size_t i = 0; i < np; i++) {
                depth += (p[i] & 1) != 0 ? -1 : 1;
                sum += depth;
                if (depth > *max)
                        *max = depth;
        }
        *mean = np > 0 ? (double)sum / (double)np : 0;
        free(p);
}

/* Launches in no order, on three streams, their ids unique; times on a
 * grid of 5 us, so that many fall together (a launch at its stream's
 * kernel start: the launch first), and below zero too; some kernels are
 * NCCL's (communication), a few have no launch. */
static void test_job__launches_random(void)
{
        enum { N = 3000, OFF = 40000, SPAN = 90000 };     /* microseconds -20005 to 40050 */
        struct rand_launch *l = calloc(N, sizeof(*l));
        size_t cap = (size_t)N * 400 + 64, len = 0, *order = malloc(N * sizeof(*order));
        char *json = malloc(cap);
        unsigned char *comm = calloc(SPAN, 1), *comp = calloc(SPAN, 1);
        int64_t *delay = malloc(N * sizeof(*delay)), comm_ns = 0, overlap = 0;
        uint64_t rng = 2024;
        tpa_trace *tr;
        tpa_analysis *a;
        tpa_rank *r = NULL;

        if (!ok(l != NULL && order != NULL && json != NULL && comm != NULL && comp != NULL &&
                delay != NULL, "test_job__launches_random: memory"))
                goto done;
        for (size_t i = 0; i < N; i++) {
                l[i].launch = (int64_t)(tap_rand(&rng) % 12000) * 5 - OFF / 2;
                l[i].launch_dur = (int64_t)(tap_rand(&rng) % 4) * 5;
                l[i].kernel = l[i].launch + l[i].launch_dur + (int64_t)(tap_rand(&rng) % 5) * 5 -
                              5;        /* at times before its launch's end: a delay of 0 */
                l[i].kernel_dur = (int64_t)(tap_rand(&rng) % 6) * 5 + 1;
                l[i].stream = (int)(tap_rand(&rng) % 3);
                l[i].nccl = tap_rand(&rng) % 10 == 0;
                order[i] = i;
        }
        for (size_t i = N - 1; i > 0; i--) {
                size_t j = (size_t)(tap_rand(&rng) % (i + 1)), t = order[i];
                order[i] = order[j];
                order[j] = t;
        }
        len += (size_t)snprintf(json + len, cap - len, "{\"traceEvents\":[");
        for (size_t k = 0; k < N; k++) {
                size_t i = order[k];

                len += (size_t)snprintf(json + len, cap - len,
                        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                        "\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld,"
                        "\"args\":{\"correlation\":%zu}},"
                        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,"
                        "\"ts\":%lld,\"dur\":%lld,\"args\":{\"correlation\":%zu}},",
                        (long long)l[i].launch, (long long)l[i].launch_dur, i + 1,
                        l[i].nccl ? "ncclKernel_AllReduce_RING_LL_Sum_float" : "gemm",
                        7 + l[i].stream, (long long)l[i].kernel, (long long)l[i].kernel_dur,
                        i + 1);
                if (k % 500 == 0)       /* a kernel no launch carries the id of */
                        len += (size_t)snprintf(json + len, cap - len,
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\","
                                "\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":1,"
                                "\"args\":{\"correlation\":%zu}},", N + 1 + k);
        }
        len--;                          /* the last ',' */
        snprintf(json + len, cap - len, "]}");
        tr = read_json(json);
        a = tr != NULL ? analyze_with_rules(tr, NULL) : NULL;
        if (!ok(a != NULL && tpa_rank_from_trace(&r, tr, a, "random.json", NULL) == 0,
                "test_job__launches_random: rank from trace"))
                goto done_trace;
        for (size_t i = 0; i < N; i++) {
                int64_t d = l[i].kernel - (l[i].launch + l[i].launch_dur);

                delay[i] = d > 0 ? d * 1000 : 0;
                for (int64_t t = l[i].kernel; t < l[i].kernel + l[i].kernel_dur; t++)
                        (l[i].nccl ? comm : comp)[t + OFF] = 1;
        }
        for (size_t t = 0; t < SPAN; t++) {
                comm_ns += comm[t] * 1000;
                overlap += (comm[t] & comp[t]) * 1000;
        }
        qsort(delay, N, sizeof(*delay), cmp_i64);
        tap_eq((int64_t)r->launch_count, N, "test_job__launches_random: every launch matched");
        tap_eq(r->launch_delay_median, (delay[N / 2 - 1] + delay[N / 2]) / 2,
               "test_job__launches_random: median delay");
        tap_eq(r->launch_delay_p90, delay[(size_t)((double)(N - 1) * 0.9 + 0.5)],
               "test_job__launches_random: p90 delay");
        tap_eq(r->launch_delay_max, delay[N - 1], "test_job__launches_random: largest delay");
        tap_eq(r->comm_ns, comm_ns, "test_job__launches_random: communication time");
        tap_eq(r->overlap_ns, overlap, "test_job__launches_random: overlap with computation");
        tap_eq((int64_t)r->stream_count, 3, "test_job__launches_random: three streams");
        for (size_t k = 0; k < r->stream_count; k++) {
                const char *name = r->streams[k].name;
                int stream = (int)strtol(name + strlen(name) - 1, NULL, 10) - 7;
                double mean;
                int64_t max;

                expect_queue(l, N, stream, &mean, &max);
                tap_eq(r->streams[k].queue_max, max, "test_job__launches_random: %s: queue max",
                       name);
                ok(fabs(r->streams[k].queue_mean - mean) < 1e-9,
                   "test_job__launches_random: %s: queue mean %g, expected %g", name,
                   r->streams[k].queue_mean, mean);
        }
done_trace:
        tpa_rank_free(r);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
done:
        free(l);
        free(order);
        free(json);
        free(comm);
        free(comp);
        free(delay);
}

/* The backend a trace names is the trace's text: the Markdown headline
 * escapes it (no raw HTML, no line break in the paragraph), the text one
 * writes its control characters as '?'. */
static void test_job__backend_escaped(void)
{
        static const int b0[] = { 10, 10 }, b1[] = { 11, 11 }, end[] = { 20, 20 };
        tpa_rank *r[2] = { rank_of(0, b0, end, 2), rank_of(1, b1, end, 2) };
        tpa_job *j = NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *fp;

        for (int i = 0; i < 2; i++)
                if (r[i] != NULL)
                        r[i]->backend = strdup("gl|oo<script>\n\x1b[31m");
        ok(tpa_job_build(&j, (const tpa_rank *const *)r, 2, NULL) == 0, "backend: builds");
        if (j != NULL && (fp = open_memstream(&buf, &len)) != NULL) {
                tpa_report_job_markdown(fp, j);
                fclose(fp);
                ok(buf != NULL && strstr(buf, "(gl\\|oo&lt;script&gt;  \\[31m), ") != NULL,
                   "backend: escaped in Markdown");
                free(buf);
                buf = NULL;
        }
        if (j != NULL && (fp = open_memstream(&buf, &len)) != NULL) {
                tpa_report_job_text(fp, j);
                fclose(fp);
                ok(buf != NULL && strstr(buf, "(gl|oo<script>??[31m), ") != NULL,
                   "backend: its controls '?' in text");
                free(buf);
        }
        tpa_job_free(j);
        for (int i = 0; i < 2; i++)
                tpa_rank_free(r[i]);
}

int main(void)
{
        test_job__straggler();
        test_job__missing();
        test_job__two_ranks();
        test_job__unlabelled_input();
        test_job__repeated_rank();
        test_job__one_rank_step();
        test_job__tie();
        test_job__one_after_another();
        test_job__report_roundtrip();
        test_job__graph_launch();
        test_job__launches_random();
        test_job__backend_escaped();
        return tap_done();
}
