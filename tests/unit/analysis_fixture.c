/* SPDX-License-Identifier: MIT */
/*
 * analysis_fixture.c - the traces and checks of analysis_fixture.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>
#include <tpa/analysis.h>

#include "analysis/analysis_internal.h"
#include "model/trace_build.h"

#include "analysis_fixture.h"

uint32_t mk_proc(tpa_trace *tr, int64_t pid, const char *name, int role, int dev)
{
        uint32_t p;
        tpa_str s;

        tpa_trace__get_process(tr, &p, (tpa_id){ .num = pid }, NULL);
        tpa_trace__intern(tr, &s, name, strlen(name), NULL);
        tpa_trace__process(tr, p)->name = s;
        tpa_trace__process(tr, p)->role = (uint8_t)role;
        tpa_trace__process(tr, p)->device = dev;
        return p;
}

uint32_t mk_thread(tpa_trace *tr, uint32_t p, int64_t tid, int role)
{
        uint32_t t;

        tpa_trace__get_thread(tr, &t, p, (tpa_id){ .num = tid }, NULL);
        tpa_trace__thread(tr, t)->role = (uint8_t)role;
        return t;
}

/* A host process with two threads and, when gpus > 0, GPU processes with
 * one stream each (and a Steps line on GPU 0). */
tb mk(int gpus)
{
        tb b;
        uint32_t hp;

        memset(&b, 0, sizeof(b));
        tpa_trace_new(&b.tr, NULL);
        hp = mk_proc(b.tr, 501, "/host:CPU", TPA_PROC_HOST, -1);
        b.host = mk_thread(b.tr, hp, 1, TPA_TRACK_HOST);
        b.host2 = mk_thread(b.tr, hp, 2, TPA_TRACK_HOST);
        if (gpus > 0) {
                uint32_t g0 = mk_proc(b.tr, 1, "/device:GPU:0", TPA_PROC_DEVICE, 0);
                b.gpu0 = mk_thread(b.tr, g0, 7, TPA_TRACK_STREAM);
                b.steps = mk_thread(b.tr, g0, 99, TPA_TRACK_STEPS);
        }
        if (gpus > 1) {
                uint32_t g1 = mk_proc(b.tr, 2, "/device:GPU:1", TPA_PROC_DEVICE, 1);
                b.gpu1 = mk_thread(b.tr, g1, 7, TPA_TRACK_STREAM);
        }
        return b;
}

size_t ev(tb *b, uint32_t track, int kind, const char *name, double ts_us,
          double dur_us, uint32_t corr, uint32_t group)
{
        tpa_event e;
        size_t idx;

        memset(&e, 0, sizeof(e));
        tpa_trace__intern(b->tr, &e.name, name, strlen(name), NULL);
        e.ts = (tpa_ns)(ts_us * US);
        e.dur = (tpa_ns)(dur_us * US);
        e.track = track;
        e.kind = (unsigned)kind;
        e.corr = corr;
        e.group = group;
        tpa_trace__add_event(b->tr, &e, &idx, NULL);
        return idx;
}

tpa_analysis *run(tb *b, const char *marker, int warmup)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a = NULL;
        tpa_error err = TPA_ERROR_INIT;

        o.step_marker = marker;
        o.warmup = warmup;
        if (tpa_analyze(&a, b->tr, &o, &err) < 0)
                printf("# tpa_analyze: %s\n", err.msg);
        return a;
}

bool sums_to_one(const tpa_step *s)
{
        double f = 0;
        tpa_ns ns = 0;

        for (int k = 0; k < TPA_BUCKET__COUNT; k++) {
                f += s->frac[k];
                ns += s->bucket_ns[k];
        }
        return fabs(f - 1.0) < 1e-12 && ns == s->step_time;
}

double metric(const tpa_analysis *a, int step, const char *name)
{
        double v = -1;

        if (!tpa_analysis_metric(a, step, name, strlen(name), &v))
                printf("# unknown metric %s\n", name);
        return v;
}

/* A trace read from JSON text, so that the dialect tables classify it. */
tpa_trace *read_json(const char *json)
{
        tpa_trace *tr = NULL;
        tpa_error err = TPA_ERROR_INIT;

        if (tpa_trace_new(&tr, &err) < 0 ||
            tpa_read_memory(tr, json, strlen(json), "test.json", NULL, &err) < 0) {
                printf("# read: %s\n", err.msg);
                tpa_trace_free(tr);
                return NULL;
        }
        return tr;
}

tpa_analysis *analyze_with_rules(const tpa_trace *tr, tpa_rules *rules)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a = NULL;
        tpa_error err = TPA_ERROR_INIT;

        o.rules = rules;
        o.warmup = 0;
        if (tr == NULL || tpa_analyze(&a, tr, &o, &err) < 0) {
                printf("# tpa_analyze: %s\n", tr ? err.msg : "no trace");
                return NULL;
        }
        return a;
}

tpa_analysis *analyze_default(const tpa_trace *tr)
{
        static tpa_rules *rules;
        tpa_error err = TPA_ERROR_INIT;

        if (rules == NULL && tpa_rules_new_default(&rules, &err) < 0) {
                printf("# default rules: %s\n", err.msg);
                return NULL;
        }
        return analyze_with_rules(tr, rules);
}

/* The kind the reader gave the first event named `name`, or -1. */
int kind_of(const tpa_trace *tr, const char *name)
{
        const tpa_event *e = tpa_trace_events(tr);

        for (size_t i = 0; i < tpa_trace_event_count(tr); i++)
                if (strcmp(tpa_trace_str(tr, e[i].name), name) == 0)
                        return (int)e[i].kind;
        return -1;
}

bool has_finding(const tpa_analysis *a, const char *name)
{
        for (size_t i = 0; i < a->finding_count; i++)
                if (strcmp(a->findings[i].name, name) == 0)
                        return true;
        return false;
}

/* ---- one thread or two: the same result ------------------------------------ */

/* The JSON, Markdown and text reports (every figure the tool prints) and
 * every step metric. */
char *render(const tpa_trace *tr, const tpa_analysis *a, size_t *len)
{
        char *buf = NULL;
        FILE *fp = open_memstream(&buf, len);

        if (fp == NULL)
                return NULL;
        tpa_report_json(fp, tr, a, "t", NULL);
        tpa_report_markdown(fp, tr, a, "t");
        tpa_report_text(fp, tr, a, "t");
        for (size_t k = 0; k < a->step_count; k++) {
                for (size_t i = 0; i < tpa_analysis_metric_count(); i++) {
                        const char *name = tpa_analysis_metric_name(i);
                        double v;
                        if (tpa_analysis_metric(a, (int)k, name, strlen(name), &v))
                                fprintf(fp, "%zu %s %a\n", k, name, v);
                }
                for (size_t d = 0; d < a->device_count * TPA_BUCKET__COUNT; d++)
                        fprintf(fp, "%zu dev %" PRId64 "\n", k, a->steps[k].device_ns[d]);
        }
        fclose(fp);
        return buf;
}

/* The analysis' census of the events adds up to the trace's events. */
bool census_adds_up(const tpa_trace *tr, const tpa_analysis *a)
{
        size_t n = tpa_trace_event_count(tr), nt = tpa_trace_thread_count(tr);
        const tpa_event *ev = tpa_trace_events(tr);
        uint64_t kinds = 0, tracks = 0, on_tracks = 0;

        if (a->events_by_track == NULL)
                return false;
        for (int k = 0; k < TPA_KIND__COUNT; k++)
                kinds += a->events_by_kind[k];
        for (size_t t = 0; t < nt; t++)
                tracks += a->events_by_track[t];
        for (size_t i = 0; i < n; i++)
                on_tracks += ev[i].track < nt;
        return kinds == n && tracks == on_tracks;
}

/* Analyze `tr` on one thread and on two (whatever its size); true when
 * both give the same bytes, and the same again when the report counts
 * the events itself (an analysis without memory for its census). */
bool same_both_ways(const tpa_trace *tr, const tpa_rules *rules, const char *what)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a[2] = { NULL, NULL };
        tpa_error err = TPA_ERROR_INIT;
        char *out[3] = { NULL, NULL, NULL };
        size_t len[3] = { 0, 0, 0 };
        bool same;

        o.rules = rules;
        for (int t = 0; t < 2; t++) {
                o.threads = t + 1;
                if (tpa_analyze(&a[t], tr, &o, &err) < 0)
                        printf("# %s, %d thread(s): %s\n", what, t + 1, err.msg);
                else
                        out[t] = render(tr, a[t], &len[t]);
        }
        if (a[1] != NULL && census_adds_up(tr, a[1])) {
                free(a[1]->events_by_track);
                a[1]->events_by_track = NULL;
                out[2] = render(tr, a[1], &len[2]);
        }
        same = out[0] != NULL && out[1] != NULL && out[2] != NULL && len[0] == len[1] &&
               len[0] == len[2] && memcmp(out[0], out[1], len[0]) == 0 &&
               memcmp(out[0], out[2], len[0]) == 0;
        if (!same)
                printf("# %s: %zu bytes on one thread, %zu on two, %zu without the census\n",
                       what, len[0], len[1], len[2]);
        for (int t = 0; t < 3; t++)
                free(out[t]);
        for (int t = 0; t < 2; t++)
                tpa_analysis_free(a[t]);
        return same;
}
