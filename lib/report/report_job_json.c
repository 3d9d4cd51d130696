/* SPDX-License-Identifier: MIT */
/*
 * report_job_json.c - the cross-rank figures as JSON (doc/report-json.md):
 * the `distributed` object each rank's report carries (what `aggregate`
 * needs, written right after `tool` so that a reader can stop there), and
 * the job document of `aggregate --format json` (schema
 * "tfprof-analyze/job/v1") with its top-level `job` object.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpa/report.h"
#include "report_util.h"

typedef struct jw {
        tpa_json_writer *g;
        bool             oom;
} jw;

static void null(jw *w)
{
        tpa_report__jw_raw(w->g, "null", 4);
}

static void key(jw *w, const char *k)
{
        tpa_report__jw_string(w->g, k, strlen(k));
}

/* A string, invalid UTF-8 repaired; NULL as null. */
static void str(jw *w, const char *s)
{
        size_t n;
        char *b;

        if (s == NULL) {
                null(w);
                return;
        }
        n = strlen(s);
        if ((b = malloc(n * 3 + 1)) == NULL) {
                w->oom = true;
                null(w);
                return;
        }
        n = tpa_report__utf8(b, s, n);
        tpa_report__jw_string(w->g, b, n);
        free(b);
}

static void num_d(jw *w, double v)
{
        char b[40];

        if (!isfinite(v)) {
                null(w);
                return;
        }
        if (v == floor(v) && fabs(v) < 9007199254740992.0) {
                tpa_report__jw_int(w->g, (int64_t)v);
                return;
        }
        tpa_report__jw_raw(w->g, b, tpa_report__g6(b, v));
}

static void kv_str(jw *w, const char *k, const char *v) { key(w, k); str(w, v); }
static void kv_i(jw *w, const char *k, int64_t v) { key(w, k); tpa_report__jw_int(w->g, v); }
static void kv_u(jw *w, const char *k, uint64_t v) { key(w, k); tpa_report__jw_uint(w->g, v); }
static void kv_d(jw *w, const char *k, double v) { key(w, k); num_d(w, v); }
static void kv_b(jw *w, const char *k, bool v)
{
        key(w, k);
        tpa_report__jw_raw(w->g, v ? "true" : "false", v ? 4 : 5);
}
/* A value that is unknown when negative. */
static void kv_i_or_null(jw *w, const char *k, int64_t v)
{
        key(w, k);
        if (v < 0)
                null(w);
        else
                tpa_report__jw_int(w->g, v);
}
static void obj(jw *w) { tpa_report__jw_open(w->g, '{'); }
static void arr(jw *w) { tpa_report__jw_open(w->g, '['); }
static void end(jw *w) { tpa_report__jw_close(w->g); }

void tpa_report__json_rank(tpa_json_writer *g, const tpa_rank *r, bool *oom)
{
        jw w = { g, false };

        obj(&w);
        kv_i_or_null(&w, "rank", r->rank);
        kv_i_or_null(&w, "world_size", r->world_size);
        kv_str(&w, "backend", r->backend);
        kv_str(&w, "path", r->path);
        kv_i(&w, "comm_ns", r->comm_ns);
        kv_i(&w, "overlap_ns", r->overlap_ns);
        key(&w, "launch");
        if (r->launch_count == 0) {
                null(&w);
        } else {
                obj(&w);
                kv_u(&w, "count", r->launch_count);
                kv_i(&w, "delay_median_ns", r->launch_delay_median);
                kv_i(&w, "delay_p90_ns", r->launch_delay_p90);
                kv_i(&w, "delay_max_ns", r->launch_delay_max);
                end(&w);
        }
        key(&w, "streams");
        arr(&w);
        for (size_t i = 0; i < r->stream_count; i++) {
                obj(&w);
                kv_str(&w, "name", r->streams[i].name);
                kv_d(&w, "queue_mean", r->streams[i].queue_mean);
                kv_i(&w, "queue_max", r->streams[i].queue_max);
                end(&w);
        }
        end(&w);
        key(&w, "steps");
        arr(&w);
        for (size_t i = 0; i < r->step_count; i++) {
                const tpa_rank_step *s = &r->steps[i];
                obj(&w);
                kv_i(&w, "number", s->number);
                kv_i(&w, "step_time_ns", s->step_time);
                kv_i(&w, "collective_ns", s->collective);
                kv_b(&w, "excluded", s->excluded);
                kv_str(&w, "class", s->class_name);
                end(&w);
        }
        end(&w);
        end(&w);
        *oom |= w.oom;
}

static void job_steps(jw *w, const tpa_job *j)
{
        key(w, "steps");
        arr(w);
        for (size_t s = 0; s < j->step_count; s++) {
                const tpa_job_step *st = &j->steps[s];
                obj(w);
                kv_i(w, "number", st->number);
                kv_u(w, "ranks", st->ranks);
                kv_u(w, "missing", st->missing);
                kv_i(w, "step_time_max_ns", st->step_time_max);
                kv_i(w, "busy_median_ns", st->busy_median);
                kv_d(w, "spread", st->spread);
                key(w, "straggler");
                obj(w);
                kv_i(w, "rank", j->ranks[st->straggler].rank);
                kv_i(w, "excess_ns", st->excess);
                kv_d(w, "excess_frac", st->excess_frac);
                kv_str(w, "class", st->straggler_class);
                end(w);
                key(w, "step_time_ns");
                arr(w);
                for (size_t r = 0; r < j->rank_count; r++) {
                        tpa_ns v = j->cells[r * j->step_count + s];
                        if (v < 0)
                                null(w);
                        else
                                tpa_report__jw_int(w->g, v);
                }
                end(w);
                end(w);
        }
        end(w);
}

static void job_ranks(jw *w, const tpa_job *j)
{
        key(w, "ranks");
        arr(w);
        for (size_t i = 0; i < j->rank_count; i++) {
                const tpa_job_rank *jr = &j->ranks[i];
                const tpa_rank *r = jr->r;
                obj(w);
                kv_i(w, "rank", jr->rank);
                kv_str(w, "path", r->path);
                kv_u(w, "steps", jr->steps);
                kv_u(w, "missing_steps", jr->missing);
                kv_u(w, "straggler_steps", jr->straggler_steps);
                kv_i(w, "step_time_ns", jr->step_time);
                kv_i(w, "collective_ns", jr->collective);
                kv_i(w, "wait_ns", jr->wait);
                kv_d(w, "wait_frac", jr->wait_frac);
                key(w, "comm_overlap_frac");
                if (jr->overlap_frac < 0)
                        null(w);
                else
                        num_d(w, jr->overlap_frac);
                key(w, "launch_delay");
                if (r->launch_count == 0) {
                        null(w);
                } else {
                        obj(w);
                        kv_u(w, "count", r->launch_count);
                        kv_i(w, "median_ns", r->launch_delay_median);
                        kv_i(w, "p90_ns", r->launch_delay_p90);
                        kv_i(w, "max_ns", r->launch_delay_max);
                        end(w);
                }
                key(w, "queues");
                arr(w);
                for (size_t k = 0; k < r->stream_count; k++) {
                        obj(w);
                        kv_str(w, "stream", r->streams[k].name);
                        kv_d(w, "mean", r->streams[k].queue_mean);
                        kv_i(w, "max", r->streams[k].queue_max);
                        end(w);
                }
                end(w);
                end(w);
        }
        end(w);
}

int tpa_report_job_json(FILE *fp, const tpa_job *j, tpa_error *err)
{
        jw w = { tpa_report__jw_new(fp), false };

        if (w.g == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        obj(&w);
        kv_str(&w, "schema", TPA_JOB_SCHEMA);
        key(&w, "tool");
        obj(&w);
        kv_str(&w, "name", "tfprof-analyze");
        kv_str(&w, "version", tpa_version());
        end(&w);
        key(&w, "job");
        obj(&w);
        kv_u(&w, "rank_count", j->rank_count);
        kv_i_or_null(&w, "world_size", j->world_size);
        kv_b(&w, "ranks_by_position", j->ranks_by_position);
        kv_u(&w, "step_count", j->step_count);
        kv_u(&w, "steps_with_missing", j->steps_with_missing);
        key(&w, "summary");
        obj(&w);
        kv_i(&w, "top_straggler", j->ranks[j->top_straggler].rank);
        kv_u(&w, "top_straggler_steps", j->top_straggler_steps);
        kv_i(&w, "excess_median_ns", j->excess_median);
        kv_d(&w, "excess_frac_median", j->excess_frac_median);
        kv_d(&w, "excess_frac_max", j->excess_frac_max);
        kv_d(&w, "spread_median", j->spread_median);
        end(&w);
        job_steps(&w, j);
        job_ranks(&w, j);
        key(&w, "metrics");
        obj(&w);
        for (size_t m = 0; m < tpa_job_metric_count(); m++) {
                const char *name = tpa_job_metric_name(m);
                double v = 0;
                tpa_job_metric(j, name, strlen(name), &v);
                kv_d(&w, name, v);
        }
        end(&w);
        end(&w);
        end(&w);
        w.oom |= w.g->oom;
        tpa_report__jw_free(w.g);
        if (w.oom)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        return 0;
}
