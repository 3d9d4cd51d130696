/* SPDX-License-Identifier: MIT */
/*
 * analysis_fixture.h - what the analysis tests share: small traces built in
 * memory, whose right answers are known by construction (times in
 * microseconds), and the checks several stages' tests make on a result.
 */
#ifndef TPA_ANALYSIS_FIXTURE_H
#define TPA_ANALYSIS_FIXTURE_H

#include <stdbool.h>

#include <tpa/tpa.h>

#define US 1000

typedef struct tb {
        tpa_trace *tr;
        uint32_t   host, host2, gpu0, gpu1, steps;
} tb;

uint32_t mk_proc(tpa_trace *tr, int64_t pid, const char *name, int role, int dev);
uint32_t mk_thread(tpa_trace *tr, uint32_t p, int64_t tid, int role);
/* A host process with two threads and, when gpus > 0, GPU processes with
 * one stream each (and a Steps line on GPU 0). */
tb mk(int gpus);
size_t ev(tb *b, uint32_t track, int kind, const char *name, double ts_us,
          double dur_us, uint32_t corr, uint32_t group);
tpa_analysis *run(tb *b, const char *marker, int warmup);
bool sums_to_one(const tpa_step *s);
double metric(const tpa_analysis *a, int step, const char *name);
/* A trace read from JSON text, so that the dialect tables classify it. */
tpa_trace *read_json(const char *json);
tpa_analysis *analyze_with_rules(const tpa_trace *tr, tpa_rules *rules);
/* analyze_with_rules() with the default rules, made once and kept for the
 * process (an analysis may point into its rules). */
tpa_analysis *analyze_default(const tpa_trace *tr);
/* The kind the reader gave the first event named `name`, or -1. */
int kind_of(const tpa_trace *tr, const char *name);
bool has_finding(const tpa_analysis *a, const char *name);

/* The JSON, Markdown and text reports (every figure the tool prints) and
 * every step metric. */
char *render(const tpa_trace *tr, const tpa_analysis *a, size_t *len);
/* The analysis' census of the events adds up to the trace's events. */
bool census_adds_up(const tpa_trace *tr, const tpa_analysis *a);
/* Analyze `tr` on one thread and on two (whatever its size); true when
 * both give the same bytes, and the same again when the report counts
 * the events itself (an analysis without memory for its census). */
bool same_both_ways(const tpa_trace *tr, const tpa_rules *rules, const char *what);

#endif
