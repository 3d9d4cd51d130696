/* SPDX-License-Identifier: MIT */
/*
 * fuzz_check.h - what every reader fuzz target does with its input: read it
 * through the public tpa_read_memory() in a given format, then check the
 * contracts of tpa/read.h and tpa/trace.h on what came back, and run the
 * analysis (with the default rules) on every trace that was read, as the
 * CLI does. A broken contract aborts, so libFuzzer (and the replay main)
 * report it as a crash.
 */
#ifndef TPA_FUZZ_CHECK_H
#define TPA_FUZZ_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#define FUZZ_ASSERT(cond)                                                             \
        do {                                                                          \
                if (!(cond)) {                                                        \
                        fprintf(stderr, "%s:%d: broken contract: %s\n", __FILE__,     \
                                __LINE__, #cond);                                     \
                        abort();                                                      \
                }                                                                     \
        } while (0)

/* Caps small enough that the fuzzer does not spend its time on allocations,
 * but big enough that every code path stays reachable. */
static inline tpa_read_options fuzz_read_options(tpa_format format)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;

        ro.format = format;
        ro.max_events = 100000;
        ro.max_string = 4096;
        ro.max_depth = 32;
        ro.max_message = 16u << 20;
        return ro;
}

static inline int fuzz_is_gzip(const uint8_t *data, size_t size)
{
        return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

/* The trace is consistent whatever the reader returned. */
static inline void fuzz_check_trace(tpa_trace *tr, const uint8_t *data, size_t size)
{
        const tpa_health *h = tpa_trace_health_c(tr);
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr);
        size_t threads = tpa_trace_thread_count(tr);
        size_t procs = tpa_trace_process_count(tr);
        size_t strs = tpa_trace_str_count(tr);
        tpa_ns lo, hi;

        FUZZ_ASSERT(h->events_kept == n);
        FUZZ_ASSERT(n <= 100000);
        if (!fuzz_is_gzip(data, size))
                FUZZ_ASSERT(h->bytes_read <= size);
        for (size_t i = 0; i < n; i++) {
                tpa_ns end;
                FUZZ_ASSERT(ev[i].dur >= 0);
                /* The analysis computes ts + dur: the end must fit in 64 bits. */
                FUZZ_ASSERT(!__builtin_add_overflow(ev[i].ts, ev[i].dur, &end));
                FUZZ_ASSERT(ev[i].track < threads);
                FUZZ_ASSERT(ev[i].kind < TPA_KIND__COUNT);
                FUZZ_ASSERT(ev[i].name < strs);
                (void)strlen(tpa_trace_str(tr, ev[i].name));
        }
        for (size_t i = 0; i < threads; i++)
                FUZZ_ASSERT(tpa_trace_thread_c(tr, (uint32_t)i)->process < procs);
        for (size_t i = 0; i < tpa_trace_warning_count(tr); i++) {
                const tpa_warning *w = tpa_trace_warning(tr, i);
                FUZZ_ASSERT(w->count > 0);
                FUZZ_ASSERT(w->msg[0] != '\0' && strchr(w->msg, '\n') == NULL);
        }
        if (tpa_trace_span(tr, &lo, &hi))
                FUZZ_ASSERT(lo <= hi);
        (void)tpa_format_name(tpa_trace_format(tr));
        (void)tpa_dialect_name(tpa_trace_dialect(tr));
}

/* A failed read says what and where, with a status input can cause. */
static inline void fuzz_check_error(int r, const tpa_error *err, const uint8_t *data,
                                    size_t size)
{
        FUZZ_ASSERT(r == err->code);
        FUZZ_ASSERT(r == TPA_EFORMAT || r == TPA_ELIMIT || r == TPA_ENOMEM);
        FUZZ_ASSERT(err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL);
        if (err->has_offset && !fuzz_is_gzip(data, size))
                FUZZ_ASSERT(err->offset <= size);
}

/* The analysis of a trace that was read: it may fail only as documented. */
static inline void fuzz_analyze(const tpa_trace *tr)
{
        static tpa_rules *rules;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;
        int r;

        if (rules == NULL && tpa_rules_new_default(&rules, NULL) < 0)
                abort();        /* the shipped rules always load */
        ao.rules = rules;
        r = tpa_analyze(&a, tr, &ao, &err);
        if (r < 0) {
                FUZZ_ASSERT(r == err.code);
                FUZZ_ASSERT(r == TPA_ERULE || r == TPA_ENOMEM || r == TPA_ELIMIT);
                FUZZ_ASSERT(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
                return;
        }
        tpa_analysis_free(a);
}

/* Read `data` as `format` and check everything; returns the read's status. */
static inline int fuzz_read(const uint8_t *data, size_t size, tpa_format format)
{
        tpa_read_options ro = fuzz_read_options(format);
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        int r;

        if (tpa_trace_new(&tr, &err) < 0)
                return 0;
        r = tpa_read_memory(tr, data, size, "fuzz", &ro, &err);
        if (r < 0)
                fuzz_check_error(r, &err, data, size);
        else
                FUZZ_ASSERT(r == 0);
        fuzz_check_trace(tr, data, size);
        if (r == 0)
                fuzz_analyze(tr);
        tpa_trace_free(tr);
        return r;
}

#endif
