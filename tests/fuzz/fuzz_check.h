/* SPDX-License-Identifier: MIT */
/*
 * fuzz_check.h - what every reader fuzz target does with its input: read it
 * through the public tpa_read_memory() in a given format, then check the
 * contracts of tpa/read.h and tpa/trace.h on what came back, and run the
 * analysis (with the default rules) on every trace that was read, as the
 * CLI does, and write its reports (fuzz_report()). A broken contract
 * aborts, so libFuzzer (and the replay main) report it as a crash.
 */
#ifndef TPA_FUZZ_CHECK_H
#define TPA_FUZZ_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "model/utf8.h"

#define FUZZ_ASSERT(cond)                                                             \
        do {                                                                          \
                if (!(cond)) {                                                        \
                        fprintf(stderr, "%s:%d: broken contract: %s\n", __FILE__,     \
                                __LINE__, #cond);                                     \
                        abort();                                                      \
                }                                                                     \
        } while (0)

/* Every message and report is valid UTF-8, whatever the input held. */
static inline void fuzz_check_utf8(const char *buf, size_t len)
{
        FUZZ_ASSERT(tpa_utf8__valid_prefix(buf, len) == len);
}

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
                fuzz_check_utf8(w->msg, strlen(w->msg));
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
        FUZZ_ASSERT(r == TPA_EFORMAT || r == TPA_ENOTTRACE || r == TPA_ELIMIT ||
                    r == TPA_ENOMEM);
        FUZZ_ASSERT(err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL);
        fuzz_check_utf8(err->msg, strlen(err->msg));
        if (err->has_offset && !fuzz_is_gzip(data, size))
                FUZZ_ASSERT(err->offset <= size);
}

/* No line of the text report is wider than 100 code points. */
static inline void fuzz_check_columns(const char *buf, size_t len)
{
        size_t col = 0;

        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)buf[i];
                if (c == '\n') {
                        col = 0;
                        continue;
                }
                col += (c & 0xC0) != 0x80;     /* code points, not bytes */
                FUZZ_ASSERT(col <= 100);
        }
}

/* The run read back from the JSON report is the analysis' own. */
static inline void fuzz_check_run(const tpa_run *want, const tpa_run *got)
{
        FUZZ_ASSERT(got->step_count == want->step_count);
        for (size_t i = 0; i < want->step_count; i++) {
                FUZZ_ASSERT(got->steps[i].number == want->steps[i].number);
                FUZZ_ASSERT(got->steps[i].step_time == want->steps[i].step_time);
                FUZZ_ASSERT((got->steps[i].class_name == NULL) ==
                            (want->steps[i].class_name == NULL));
                if (want->steps[i].class_name != NULL)
                        FUZZ_ASSERT(strcmp(got->steps[i].class_name,
                                           want->steps[i].class_name) == 0);
        }
        FUZZ_ASSERT(got->step_time_median == want->step_time_median);
        FUZZ_ASSERT(got->step_time_p90 == want->step_time_p90);
        FUZZ_ASSERT((got->run_class == NULL) == (want->run_class == NULL));
        if (want->run_class != NULL)
                FUZZ_ASSERT(strcmp(got->run_class, want->run_class) == 0);
        /* the report lists the top ops; the analysis' run holds them all,
         * the top first (op_listed) */
        FUZZ_ASSERT(got->op_count == (want->op_listed > 0 && want->op_listed < want->op_count
                                              ? want->op_listed : want->op_count));
        for (size_t i = 0; i < got->op_count; i++) {
                FUZZ_ASSERT(strcmp(got->ops[i].name, want->ops[i].name) == 0);
                FUZZ_ASSERT(got->ops[i].time == want->ops[i].time);
                FUZZ_ASSERT(got->ops[i].count == want->ops[i].count);
        }
}

/* Every report of an analysed trace, into memory. The JSON report is
 * whole and valid UTF-8, and reads back (tpa_report_load_memory(), as diff
 * and check do) to the run the analysis holds; the text report is valid
 * UTF-8 and keeps to its 100 columns; Markdown and HTML are valid UTF-8.
 * A writer may fail only for memory. */
static inline void fuzz_report(const tpa_trace *tr, const tpa_analysis *a)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_run *want = NULL, *got = NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *fp;
        int r;

        if ((fp = open_memstream(&buf, &len)) == NULL)
                return;
        r = tpa_report_json(fp, tr, a, "fuzz", &err);
        FUZZ_ASSERT(fclose(fp) == 0);
        if (r < 0) {
                FUZZ_ASSERT(r == TPA_ENOMEM && r == err.code);
        } else {
                fuzz_check_utf8(buf, len);
                r = tpa_report_load_memory(&got, buf, len, &err);
                if (r < 0)
                        fprintf(stderr, "fuzz: the JSON report does not read back: %s\n",
                                err.msg);
                FUZZ_ASSERT(r == 0);
                if (tpa_run_from_analysis(&want, a, &err) == 0)
                        fuzz_check_run(want, got);
                tpa_run_free(want);
                tpa_run_free(got);
        }
        free(buf);

        if ((fp = open_memstream(&buf, &len)) == NULL)
                return;
        tpa_report_text(fp, tr, a, "fuzz");
        FUZZ_ASSERT(fclose(fp) == 0);
        fuzz_check_utf8(buf, len);
        fuzz_check_columns(buf, len);
        free(buf);

        if ((fp = open_memstream(&buf, &len)) == NULL)
                return;
        tpa_report_markdown(fp, tr, a, "fuzz");
        r = tpa_report_html(fp, tr, a, "fuzz", &err);
        FUZZ_ASSERT(r == 0 || (r == TPA_ENOMEM && r == err.code));
        FUZZ_ASSERT(fclose(fp) == 0);
        fuzz_check_utf8(buf, len);
        free(buf);
}

/* The analysis of a trace that was read: it may fail only as documented;
 * then its reports (fuzz_report()). */
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
        ao.keep_spans = true;   /* the HTML report draws them */
        r = tpa_analyze(&a, tr, &ao, &err);
        if (r < 0) {
                FUZZ_ASSERT(r == err.code);
                FUZZ_ASSERT(r == TPA_ERULE || r == TPA_ENOMEM || r == TPA_ELIMIT);
                FUZZ_ASSERT(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
                return;
        }
        fuzz_report(tr, a);
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
