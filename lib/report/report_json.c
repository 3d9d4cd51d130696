/* SPDX-License-Identifier: MIT */
/*
 * report_json.c - the JSON report (schema "tfprof-analyze/report/v3",
 * doc/report-json.md): every figure of the text report, keys in a fixed
 * order, integer nanoseconds with the unit in the key, fractions as plain
 * numbers. Written with report_util's JSON writer (yajl_gen's beautified
 * layout, byte for byte); it only formats what the analysis computed, and
 * the same input always gives the same bytes. Also the cross-rank figures:
 * the `distributed` object each rank's report carries (what `aggregate`
 * needs, right after `tool` so that a reader can stop there), and the job
 * document of `aggregate --format json` (schema "tfprof-analyze/job/v1").
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpa/compare.h"
#include "tpa/report.h"
#include "analysis/results_build.h"
#include "report_util.h"

typedef struct jw {
        tpa_json_writer *g;
        bool     oom;
} jw;

static void null(jw *w)
{
        tpa_report__jw_raw(w->g, "null", 4);
}

/* A string from the trace, the rules or the analysis: repaired where it
 * is not valid UTF-8. */
static void str(jw *w, const char *s)
{
        if (s == NULL)
                null(w);
        else
                tpa_report__jw_string_utf8(w->g, s, strlen(s));
}

/* A key this file spells, or a name of the library's (kinds, groups,
 * buckets): none needs an escape. */
static void key(jw *w, const char *k)
{
        tpa_report__jw_key(w->g, k, strlen(k));
}

/* A key that may need an escape: a phase letter of the input, a metric's
 * name from the rules. */
static void key_any(jw *w, const char *k)
{
        tpa_report__jw_string(w->g, k, strlen(k));
}

static void num_i(jw *w, int64_t v)
{
        tpa_report__jw_int(w->g, v);
}

static void num_u(jw *w, uint64_t v)
{
        tpa_report__jw_uint(w->g, v);
}

/* A fraction or rate: 6 significant digits, integers as integers, and
 * null for what JSON cannot hold (NaN, infinities). */
static void num_d(jw *w, double v)
{
        char b[40];

        if (!isfinite(v)) {
                null(w);
                return;
        }
        if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
                /* what "%.0f" prints, "-0" as "0" (the cast rather than
                 * floor(), a call to libm without SSE4.1) */
                tpa_report__jw_int(w->g, (int64_t)v);
                return;
        }
        tpa_report__jw_raw(w->g, b, tpa_report__g6(b, v));
}

static void kv_str(jw *w, const char *k, const char *v) { key(w, k); str(w, v); }
static void kv_i(jw *w, const char *k, int64_t v)
{
        tpa_report__jw_key_int(w->g, k, strlen(k), v);
}
static void kv_u(jw *w, const char *k, uint64_t v) { key(w, k); num_u(w, v); }
/* Key k (len bytes) and num_d(), in one token */
static void kv_d_len(jw *w, const char *k, size_t len, double v)
{
        char b[40];

        if (!isfinite(v)) {
                tpa_report__jw_key_raw(w->g, k, len, "null", 4);
                return;
        }
        if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
                tpa_report__jw_key_int(w->g, k, len, (int64_t)v);
                return;
        }
        tpa_report__jw_key_raw(w->g, k, len, b, tpa_report__g6(b, v));
}
static void kv_d(jw *w, const char *k, double v) { kv_d_len(w, k, strlen(k), v); }
static void kv_b(jw *w, const char *k, bool v)
{
        tpa_report__jw_key_raw(w->g, k, strlen(k), v ? "true" : "false", v ? 4 : 5);
}
/* A value that is unknown when negative. */
static void kv_i_or_null(jw *w, const char *k, int64_t v)
{
        key(w, k);
        if (v < 0)
                null(w);
        else
                num_i(w, v);
}
static void obj(jw *w) { tpa_report__jw_open(w->g, '{'); }
static void arr(jw *w) { tpa_report__jw_open(w->g, '['); }
static void end(jw *w) { tpa_report__jw_close(w->g); }       /* the innermost */

static const char *const severity_names[] = { "info", "warning", "error" };

static void findings(jw *w, const tpa_finding *f, size_t n)
{
        arr(w);
        for (size_t i = 0; i < n; i++) {
                obj(w);
                kv_str(w, "name", f[i].name);
                kv_str(w, "severity", severity_names[f[i].severity <= 2 ? f[i].severity : 0]);
                kv_str(w, "message", f[i].message);
                key(w, "gain_frac");
                if (f[i].gain_frac >= 0)
                        num_d(w, f[i].gain_frac);
                else
                        null(w);
                end(w);
        }
        end(w);
}

/* Threads that hold events: device streams first, then host threads, then
 * the rest, each in trace order (processes and threads as first seen).
 * `count`: events per track. */
static void tracks(jw *w, const tpa_trace *tr, const uint64_t *count)
{
        static const char *const role_names[] = {
                "unknown", "host", "stream", "steps", "annotation", "other",
        };
        static const uint8_t order[] = {
                TPA_TRACK_STREAM, TPA_TRACK_HOST, TPA_TRACK_STEPS, TPA_TRACK_ANNOTATION,
                TPA_TRACK_OTHER, TPA_TRACK_UNKNOWN,
        };
        size_t nt = tpa_trace_thread_count(tr);

        key(w, "tracks");
        arr(w);
        if (count == NULL) {
                w->oom = true;
                end(w);
                return;
        }
        for (size_t o = 0; o < sizeof(order); o++) {
                for (uint32_t t = 0; t < nt; t++) {
                        const tpa_thread *th = tpa_trace_thread_c(tr, t);
                        const tpa_process *pr = tpa_trace_process_c(tr, th->process);
                        if (th->role != order[o] || count[t] == 0)
                                continue;
                        obj(w);
                        kv_str(w, "process", tpa_trace_str(tr, pr->name));
                        key(w, "pid");
                        if (!tpa_id_is_number(pr->pid))
                                str(w, tpa_trace_str(tr, pr->pid.str));
                        else
                                num_i(w, pr->pid.num);
                        kv_str(w, "thread", tpa_trace_str(tr, th->name));
                        key(w, "tid");
                        if (!tpa_id_is_number(th->tid))
                                str(w, tpa_trace_str(tr, th->tid.str));
                        else
                                num_i(w, th->tid.num);
                        kv_str(w, "role", th->role < sizeof(role_names) / sizeof(role_names[0])
                               ? role_names[th->role] : "unknown");
                        key(w, "device");
                        if (pr->device >= 0)
                                num_i(w, pr->device);
                        else
                                null(w);
                        kv_u(w, "events", count[t]);
                        end(w);
                }
        }
        end(w);
}

static void section_input(jw *w, const tpa_trace *tr, const tpa_analysis *a,
                          const char *path)
{
        const tpa_health *h = tpa_trace_health_c(tr);
        size_t n = tpa_trace_event_count(tr);
        tpa_report_census ec;

        tpa_report__census(&ec, tr, a);
        key(w, "input");
        obj(w);
        kv_str(w, "path", path);
        kv_str(w, "format", tpa_format_name(tpa_trace_format(tr)));
        kv_str(w, "dialect", tpa_dialect_name(tpa_trace_dialect(tr)));
        kv_u(w, "processes", tpa_trace_process_count(tr));
        kv_u(w, "threads", tpa_trace_thread_count(tr));
        kv_u(w, "events", n);
        key(w, "events_by_kind");
        obj(w);
        for (int k = 0; k < TPA_KIND__COUNT; k++)
                kv_u(w, tpa_kind_name((tpa_kind)k), ec.by_kind[k]);
        end(w);
        kv_i(w, "start_ns", ec.span ? ec.start : 0);
        kv_i(w, "end_ns", ec.span ? ec.end : 0);
        kv_i(w, "span_ns", ec.span ? ec.end - ec.start : 0);
        tracks(w, tr, ec.by_track);
        tpa_report__census_free(&ec);
        key(w, "health");
        obj(w);
        kv_u(w, "bytes_in", h->bytes_in);
        kv_u(w, "bytes_read", h->bytes_read);
        kv_u(w, "records_read", h->records_read);
        kv_u(w, "events_kept", h->events_kept);
        kv_u(w, "metadata_records", h->metadata);
        key(w, "ignored_by_phase");
        obj(w);
        for (int c = 0; c < 128; c++) {
                char k[2] = { (char)c, 0 };
                if (h->by_phase[c] > 0 && c > ' ' && c < 127) {
                        key_any(w, k);
                        num_u(w, h->by_phase[c]);
                }
        }
        end(w);
        kv_u(w, "unknown_phase", h->unknown_phase);
        kv_u(w, "unmatched_begin", h->unmatched_begin);
        kv_u(w, "unmatched_end", h->unmatched_end);
        kv_u(w, "duplicates_dropped", h->duplicates_dropped);
        kv_u(w, "empty_records", h->empty_records);
        kv_b(w, "truncated", h->truncated);
        key(w, "truncated_at");
        if (h->truncated)
                num_u(w, h->truncated_at);
        else
                null(w);
        key(w, "warnings");
        arr(w);
        for (size_t i = 0; i < tpa_trace_warning_count(tr); i++) {
                const tpa_warning *wa = tpa_trace_warning(tr, i);
                obj(w);
                kv_str(w, "message", wa->msg);
                kv_u(w, "count", wa->count);
                kv_u(w, "first_offset", wa->first_offset);
                end(w);
        }
        end(w);
        end(w);
        end(w);
}

/* The fractions of each group, from the buckets', bucket b in group bg[b]. */
static void group_fracs(jw *w, const double *frac_by_bucket, const tpa_group *bg)
{
        double g[TPA_GROUP__COUNT] = { 0 };

        for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                g[bg[b]] += frac_by_bucket[b];
        obj(w);
        for (int i = 0; i < TPA_GROUP__COUNT; i++)
                kv_d(w, tpa_group_name((tpa_group)i), g[i]);
        end(w);
}

static void section_summary(jw *w, const tpa_analysis *a)
{
        key(w, "summary");
        obj(w);
        kv_u(w, "steps", a->step_count);
        kv_u(w, "kept_steps", a->kept_count);
        kv_u(w, "excluded_steps", a->step_count - a->kept_count);
        kv_i(w, "step_time_median_ns", a->step_time_median);
        kv_i(w, "step_time_p90_ns", a->step_time_p90);
        kv_i(w, "step_time_min_ns", a->step_time_min);
        kv_i(w, "step_time_max_ns", a->step_time_max);
        kv_str(w, "verdict", tpa_report__verdict(a));
        kv_str(w, "no_verdict_reason", a->no_verdict);
        kv_str(w, "class", a->run_class);
        kv_str(w, "breakdown_class", a->breakdown_class);
        kv_b(w, "mixed", a->run_class != NULL && a->breakdown_class != NULL &&
                         strcmp(a->run_class, a->breakdown_class) != 0);
        kv_str(w, "host_part", tpa_report__host_part(a));
        kv_d(w, "device_busy_frac", tpa_report__device_busy(a));
        key(w, "classes");
        arr(w);
        for (size_t i = 0; i < a->class_kinds; i++) {
                obj(w);
                kv_str(w, "name", a->classes[i].name);
                kv_u(w, "steps", a->classes[i].count);
                kv_i(w, "time_ns", a->classes[i].time);
                end(w);
        }
        end(w);
        key(w, "group_frac");
        obj(w);
        for (int g = 0; g < TPA_GROUP__COUNT; g++)
                kv_d(w, tpa_group_name((tpa_group)g), a->run_group_frac[g]);
        end(w);
        key(w, "bucket_frac");
        obj(w);
        for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                kv_d(w, tpa_bucket_name((tpa_bucket)b), a->run_frac[b]);
        end(w);
        key(w, "what_if");
        arr(w);
        for (int g = 1; g < TPA_GROUP__COUNT; g++) {
                obj(w);
                kv_str(w, "hidden", tpa_group_name((tpa_group)g));
                kv_d(w, "gain_frac", a->gain_frac[g]);
                kv_i(w, "step_time_ns", (tpa_ns)llround((double)a->step_time_median *
                                                         (1.0 - a->gain_frac[g])));
                end(w);
        }
        end(w);
        key(w, "findings");
        findings(w, a->findings, a->finding_count);
        end(w);
}

/* The objects of steps [lo, hi), items of the "steps" array. */
static void step_items(jw *w, const tpa_analysis *a, size_t lo, size_t hi)
{
        /* the buckets' names, their lengths and groups, once for the steps
         * (speed, bench/: a look-up of each per step and bucket) */
        const char *bn[TPA_BUCKET__COUNT];
        size_t bl[TPA_BUCKET__COUNT];
        tpa_group bg[TPA_BUCKET__COUNT];

        for (int b = 0; b < TPA_BUCKET__COUNT; b++) {
                bn[b] = tpa_bucket_name((tpa_bucket)b);
                bl[b] = strlen(bn[b]);
                bg[b] = tpa_bucket_group((tpa_bucket)b);
        }
        for (size_t i = lo; i < hi; i++) {
                const tpa_step *s = &a->steps[i];
                obj(w);
                kv_i(w, "number", s->number);
                kv_i(w, "start_ns", s->start);
                kv_i(w, "end_ns", s->end);
                kv_i(w, "step_time_ns", s->step_time);
                kv_b(w, "excluded", s->excluded);
                kv_str(w, "excluded_reason", s->excluded ? s->reason : NULL);
                kv_str(w, "class", s->class_name);
                key(w, "group_frac");
                group_fracs(w, s->frac, bg);
                key(w, "bucket_ns");
                obj(w);
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        tpa_report__jw_key_int(w->g, bn[b], bl[b], s->bucket_ns[b]);
                end(w);
                key(w, "bucket_frac");
                obj(w);
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        kv_d_len(w, bn[b], bl[b], s->frac[b]);
                end(w);
                kv_str(w, "slowest_device", a->device_count > 1 && s->slowest_device >= 0
                       ? a->device_names[s->slowest_device] : NULL);
                key(w, "findings");
                findings(w, s->findings, s->finding_count);
                end(w);
        }
}

/* The steps array is nine tenths of the report of a long run (22 MB of
 * the 24 MB of the 1 GB bench trace's). Speed (bench/): when the analysis
 * ran on two threads, so do the steps: chunks of STEP_CHUNK steps, the
 * even ones formatted here straight to the file, the odd ones on a second
 * thread into two buffers in turn, each put in the file in its place. The
 * second thread is at most two chunks ahead, so the report's memory grows
 * by two chunks (about 60 KB), not by the array: the 1 GB trace's peak RSS
 * is the same (64 steps a chunk put 0.3 MB on it). */
#define STEP_CHUNK 16

typedef struct steps_job {
        const tpa_analysis *a;
        size_t          n;              /* chunks */
        jw              out[2];         /* chunks 1, 3, 5, ... in turn */
        bool            full[2];
        pthread_mutex_t lock;
        pthread_cond_t  changed;
} steps_job;

static void chunk_bounds(const tpa_analysis *a, size_t c, size_t *lo, size_t *hi)
{
        *lo = c * STEP_CHUNK;
        *hi = *lo + STEP_CHUNK < a->step_count ? *lo + STEP_CHUNK : a->step_count;
}

static void *odd_chunks(void *arg)
{
        steps_job *j = arg;

        for (size_t c = 1; c < j->n; c += 2) {
                jw *o = &j->out[c / 2 % 2];
                size_t lo, hi;

                pthread_mutex_lock(&j->lock);
                while (j->full[c / 2 % 2])
                        pthread_cond_wait(&j->changed, &j->lock);
                pthread_mutex_unlock(&j->lock);
                chunk_bounds(j->a, c, &lo, &hi);
                step_items(o, j->a, lo, hi);
                pthread_mutex_lock(&j->lock);
                j->full[c / 2 % 2] = true;
                pthread_cond_broadcast(&j->changed);
                pthread_mutex_unlock(&j->lock);
        }
        return NULL;
}

/* The steps on two threads; false when a thread or memory cannot be had
 * (then nothing was written). */
static bool steps_in_two(jw *w, const tpa_analysis *a)
{
        steps_job j = { .a = a, .n = (a->step_count + STEP_CHUNK - 1) / STEP_CHUNK };
        pthread_t th;
        bool ok = false;

        j.out[0].g = tpa_report__jw_new(NULL);
        j.out[1].g = tpa_report__jw_new(NULL);
        if (j.out[0].g == NULL || j.out[1].g == NULL)
                goto done;
        tpa_report__jw_resume(j.out[0].g, w->g);
        tpa_report__jw_resume(j.out[1].g, w->g);
        if (pthread_mutex_init(&j.lock, NULL) != 0)
                goto done;
        if (pthread_cond_init(&j.changed, NULL) != 0) {
                pthread_mutex_destroy(&j.lock);
                goto done;
        }
        if (pthread_create(&th, NULL, odd_chunks, &j) != 0) {
                pthread_cond_destroy(&j.changed);
                pthread_mutex_destroy(&j.lock);
                goto done;
        }
        for (size_t c = 0; c < j.n; c++) {
                jw *o = &j.out[c / 2 % 2];
                size_t lo, hi;

                if (c % 2 == 0) {
                        chunk_bounds(a, c, &lo, &hi);
                        step_items(w, a, lo, hi);
                        continue;
                }
                pthread_mutex_lock(&j.lock);
                while (!j.full[c / 2 % 2])
                        pthread_cond_wait(&j.changed, &j.lock);
                pthread_mutex_unlock(&j.lock);
                tpa_report__jw_take(w->g, o->g);
                w->oom |= o->oom;
                tpa_report__jw_resume(o->g, w->g);
                pthread_mutex_lock(&j.lock);
                j.full[c / 2 % 2] = false;
                pthread_cond_broadcast(&j.changed);
                pthread_mutex_unlock(&j.lock);
        }
        pthread_join(th, NULL);
        pthread_cond_destroy(&j.changed);
        pthread_mutex_destroy(&j.lock);
        ok = true;
done:
        for (int k = 0; k < 2; k++)
                tpa_report__jw_free(j.out[k].g);
        return ok;
}

static void section_steps(jw *w, const tpa_analysis *a)
{
        key(w, "steps");
        arr(w);
        if (!a->threaded || a->step_count <= 2 * STEP_CHUNK || !steps_in_two(w, a))
                step_items(w, a, 0, a->step_count);
        end(w);
}

static void section_gaps(jw *w, const tpa_analysis *a)
{
        key(w, "gaps");
        obj(w);
        kv_i(w, "min_ns", a->gap_min);
        kv_u(w, "count", a->gap_total_count);
        kv_i(w, "total_ns", a->gap_total_ns);
        key(w, "top");
        arr(w);
        for (size_t i = 0; i < a->gap_count; i++) {
                const tpa_gap *g = &a->gaps[i];
                obj(w);
                kv_str(w, "device", g->device >= 0 && (size_t)g->device < a->device_count
                       ? a->device_names[g->device] : NULL);
                kv_i(w, "step", g->step);
                kv_i(w, "start_ns", g->start);
                kv_i(w, "len_ns", g->len);
                kv_i(w, "offset_ns", g->offset);
                key(w, "host");
                arr(w);
                for (size_t k = 0; k < g->host_count; k++) {
                        obj(w);
                        kv_str(w, "name", g->host[k].name);
                        kv_i(w, "overlap_ns", g->host[k].overlap);
                        kv_d(w, "frac", g->host[k].frac);
                        end(w);
                }
                end(w);
                end(w);
        }
        end(w);
        end(w);
}

static void section_copies(jw *w, const tpa_analysis *a)
{
        static const char *const dir[] = { "h2d", "d2h", "d2d", "p2p" };

        key(w, "copies");
        obj(w);
        kv_u(w, "small_max_bytes", (uint64_t)a->small_copy_max);
        for (int d = 0; d < 4; d++) {
                const tpa_copy_stats *c = &a->copies[d];
                key(w, dir[d]);
                obj(w);
                kv_u(w, "count", c->count);
                kv_i(w, "time_ns", c->time);
                kv_u(w, "bytes", c->bytes);
                kv_d(w, "gbps", c->gbps);
                kv_i(w, "exposed_ns", c->exposed);
                kv_d(w, "exposed_frac", c->exposed_frac);
                kv_u(w, "small_count", c->small);
                end(w);
        }
        end(w);
}

static void ops(jw *w, const char *k, const tpa_op_stat *o, size_t n)
{
        key(w, k);
        arr(w);
        for (size_t i = 0; i < n; i++) {
                obj(w);
                kv_str(w, "name", o[i].name);
                kv_i(w, "time_ns", o[i].time);
                kv_u(w, "count", o[i].count);
                kv_d(w, "frac", o[i].frac);
                kv_i(w, "self_ns", o[i].self);
                kv_d(w, "self_frac", o[i].self_frac);
                kv_i(w, "total_ns", o[i].time);
                end(w);
        }
        end(w);
}

int tpa_report_json(FILE *fp, const tpa_trace *tr, const tpa_analysis *a, const char *path,
                    tpa_error *err)
{
        jw w = { 0 };
        tpa_run *run = NULL;
        tpa_rank *rank = NULL;
        int rc;

        rc = tpa_run_from_analysis(&run, a, err);
        if (rc < 0)
                return rc;
        /* the job's figures for a trace that says it is a rank, or that
         * shows collectives (a TF worker's profile never says its rank:
         * without them, `aggregate` of its report sees no wait and no
         * straggler); another trace's report carries its steps (design.md
         * 5.6) */
        rc = tpa_trace_dist(tr)->rank >= 0 || a->events_by_kind[TPA_KIND_COLLECTIVE] > 0
             ? tpa_rank_from_trace(&rank, tr, a, path, err)
             : tpa_rank__from_steps(&rank, tr, a, path, err);
        if (rc < 0) {
                tpa_run_free(run);
                return rc;
        }
        w.g = tpa_report__jw_new(fp);
        if (w.g == NULL) {
                tpa_rank_free(rank);
                tpa_run_free(run);
                return tpa_error_oom(err);
        }
        obj(&w);
        kv_str(&w, "schema", TPA_REPORT_SCHEMA);
        key(&w, "tool");
        obj(&w);
        kv_str(&w, "name", "tfprof-analyze");
        kv_str(&w, "version", tpa_version());
        end(&w);
        key(&w, "distributed");
        tpa_report__json_rank(w.g, rank, &w.oom);
        section_input(&w, tr, a, path);
        key(&w, "devices");
        arr(&w);
        for (size_t d = 0; d < a->device_count; d++)
                str(&w, a->device_names[d]);
        end(&w);
        kv_b(&w, "cpu_only", a->cpu_only);
        key(&w, "thresholds");
        obj(&w);
        kv_i(&w, "gap_min_ns", a->gap_min);
        kv_i(&w, "host_gap_min_ns", a->host_gap_min);
        kv_i(&w, "small_copy_max_bytes", a->small_copy_max);
        kv_d(&w, "warmup_ratio", a->warmup_ratio);
        end(&w);
        kv_str(&w, "step_source", a->step_source);
        kv_str(&w, "step_note", a->step_note[0] != '\0' ? a->step_note : NULL);
        kv_b(&w, "no_step_markers", a->no_markers);
        kv_b(&w, "all_kept", a->all_kept);
        section_summary(&w, a);
        section_steps(&w, a);
        section_gaps(&w, a);
        section_copies(&w, a);
        key(&w, "host_gaps");
        obj(&w);
        kv_i(&w, "min_ns", a->host_gap_min);
        kv_u(&w, "count", a->host_gap_count);
        kv_i(&w, "total_ns", a->host_gap_ns);
        kv_d(&w, "frac", a->host_gap_frac);
        kv_i(&w, "median_ns", a->host_gap_median);
        kv_d(&w, "per_ms", a->host_gap_per_ms);
        end(&w);
        key(&w, "top_ops");
        obj(&w);
        ops(&w, "device", a->device_ops, a->device_op_count);
        ops(&w, "host_exposed", a->host_ops, a->host_op_count);
        end(&w);
        key(&w, "metrics");
        obj(&w);
        for (size_t i = 0; i < run->metric_count; i++) {
                key_any(&w, run->metrics[i].name);
                num_d(&w, run->metrics[i].value);
        }
        end(&w);
        end(&w);
        w.oom |= w.g->oom;      /* a chunk of steps lost bytes */
        tpa_report__jw_free(w.g);
        tpa_run_free(run);
        tpa_rank_free(rank);
        if (w.oom)
                return tpa_error_oom(err);
        return 0;
}

/* ---- the cross-rank figures (design.md 5.6) ----------------------------- */

void tpa_report__json_rank(tpa_json_writer *g, const tpa_rank *r, bool *oom)
{
        jw w = { .g = g };

        obj(&w);
        kv_i_or_null(&w, "rank", r->rank);
        kv_i_or_null(&w, "world_size", r->world_size);
        kv_str(&w, "backend", r->backend);
        kv_str(&w, "path", r->path);
        kv_i(&w, "comm_ns", r->comm_ns);
        kv_i(&w, "overlap_ns", r->overlap_ns);
        kv_i_or_null(&w, "wall_start_ns", r->wall_start_ns);
        kv_i_or_null(&w, "wall_end_ns", r->wall_end_ns);
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
                if (st->straggler == TPA_JOB_NONE) {
                        null(w);
                } else {
                        obj(w);
                        kv_i(w, "rank", j->ranks[st->straggler].rank);
                        kv_i(w, "excess_ns", st->excess);
                        kv_d(w, "excess_frac", st->excess_frac);
                        kv_str(w, "class", st->straggler_class);
                        end(w);
                }
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
        jw w = { .g = tpa_report__jw_new(fp) };

        if (w.g == NULL)
                return tpa_error_oom(err);
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
        kv_b(&w, "one_after_another", j->one_after_another);
        key(&w, "summary");
        obj(&w);
        kv_i_or_null(&w, "top_straggler", j->top_straggler != TPA_JOB_NONE
                                          ? j->ranks[j->top_straggler].rank : -1);
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
                key_any(&w, name);
                num_d(&w, v);
        }
        end(&w);
        end(&w);
        end(&w);
        w.oom |= w.g->oom;
        tpa_report__jw_free(w.g);
        if (w.oom)
                return tpa_error_oom(err);
        return 0;
}
