/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_writer.c - the Chrome JSON writer: microseconds printed
 * exactly from ns, names escaped, merge labels and pids that never collide,
 * correlation ids kept apart per input (two ranks merged analyse like each
 * rank alone), gzip output, and write failures reported (and the file
 * removed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tpa/tpa.h>

#include "model/trace_build.h"
#include "report/report_util.h"
#include "tap.h"

static void test_chrome_writer__format_us(void)
{
        static const struct {
                tpa_ns      ns;
                const char *text;
        } cases[] = {
                { 0, "0" },             { 1234567, "1234.567" },        { 1000, "1" },
                { 1500, "1.5" },        { 1, "0.001" },                 { -1, "-0.001" },
                { -2500, "-2.5" },      { 1666382280874284123, "1666382280874284.123" },
                { INT64_MAX, "9223372036854775.807" },
                { INT64_MIN, "-9223372036854775.808" },
        };
        char buf[32];

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                tpa_chrome__format_us(buf, cases[i].ns);
                tap_streq(buf, cases[i].text, "%lld ns", (long long)cases[i].ns);
        }
}

/* A small trace by hand: a device and a host process, names to escape. */
static tpa_trace *make_trace(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        uint32_t p, t;
        tpa_event ev = { .ts = 1500, .dur = 2001, .kind = TPA_KIND_KERNEL, .corr = 5 };
        size_t idx;

        tpa_trace_new(&tr, &err);
        tpa_trace__get_process(tr, &p, (tpa_id){ .num = 1 }, &err);
        tpa_trace__intern(tr, &tpa_trace__process(tr, p)->name, "/device:GPU:0", 13, &err);
        tpa_trace__get_thread(tr, &t, p, (tpa_id){ .num = 7 }, &err);
        tpa_trace__intern(tr, &tpa_trace__thread(tr, t)->name, "Stream #7(Compute)", 18, &err);
        ev.track = t;
        tpa_trace__intern(tr, &ev.name, "k<\"quoted\"\\\n>", 13, &err);
        tpa_trace__add_event(tr, &ev, &idx, &err);
        return tr;
}

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "rb");
        char *s = calloc(1, 65536);

        if (f != NULL) {
                size_t n = fread(s, 1, 65535, f);
                s[n] = '\0';
                fclose(f);
        }
        return s;
}

static void test_chrome_writer__merge(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *a = make_trace(), *b = make_trace(), *back;
        const char *out = "test_chrome_writer_merge.json";
        char *text;

        tpa_trace__events_mut(a)[0].group = 3;   /* TF group_id 2 */
        tpa_trace__events_mut(b)[0].group = 3;
        ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
           tpa_chrome_writer_add(w, a, "a.json", &err) == 0 &&
           tpa_chrome_writer_add(w, b, "b.pb", &err) == 0 &&
           tpa_chrome_writer_close(w, &err) == 0, "two traces merged (%s)", err.msg);
        text = slurp(out);
        ok(strstr(text, "\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"") != NULL &&
           strstr(text, "\"labels\":\"a.json\"") != NULL &&
           strstr(text, "\"labels\":\"b.pb\"") != NULL,
           "process names kept, the input's label in the process labels");
        ok(strstr(text, "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":1.5,\"dur\":2.001,") != NULL &&
           strstr(text, "{\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":1.5,\"dur\":2.001,") != NULL,
           "pids 1 and 2: one per input, exact us");
        ok(strstr(text, "\"name\":\"k<\\\"quoted\\\"\\\\\\n>\"") != NULL, "name escaped");
        ok(strstr(text, "\"args\":{\"correlation_id\":5,\"group_id\":2}") != NULL,
           "correlation and group id in args");
        ok(strstr(text, "\"args\":{\"correlation_id\":10,\"group_id\":5}") != NULL,
           "the second input's ids moved past the first's (5 + 5, 2 + 3)");
        tpa_trace_new(&back, &err);
        if (ok(tpa_read_path(back, out, NULL, &err) == 0, "merged file reads (%s)", err.msg)) {
                tap_eq((int64_t)tpa_trace_event_count(back), 2, "both events");
                tap_eq((int64_t)tpa_trace_process_count(back), 2, "two processes");
                ok(strcmp(tpa_trace_str(back, tpa_trace_events(back)[0].name),
                          "k<\"quoted\"\\\n>") == 0, "name reads back unescaped");
        }
        free(text);
        remove(out);
        tpa_trace_free(back);
        tpa_trace_free(a);
        tpa_trace_free(b);
}

static tpa_trace *read_testdata(const char *file)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;

        if (tpa_trace_new(&tr, &err) < 0 || tpa_read_path(tr, tap_testdata(file), NULL, &err) < 0) {
                printf("# %s: %s\n", file, err.msg);
                tpa_trace_free(tr);
                return NULL;
        }
        return tr;
}

static tpa_analysis *analyze(const tpa_trace *tr)
{
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;

        if (tr != NULL && tpa_analyze(&a, tr, &ao, &err) < 0)
                printf("# analysis: %s\n", err.msg);
        return a;
}

/* Two ranks of one job: kineto_small.json twice, the second with its
 * correlation ids 5 ahead (as a rank that made 5 more CUDA calls before the
 * profiler started: its step 10 launches carry the ids of the first rank's
 * step 11 kernels). Merged, each rank must keep its own launches' kernels:
 * the merged report's steps are each rank's steps, figure for figure.
 * Before ids were kept apart, step 10 reached into step 11's kernels. */
static void test_chrome_writer__merge_ranks(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *r0 = read_testdata("kineto_small.json");
        tpa_trace *r1 = read_testdata("kineto_small.json"), *back = NULL;
        tpa_analysis *a0 = NULL, *a1 = NULL, *am = NULL;
        const char *out = "test_chrome_writer_ranks.json";

        if (!ok(r0 != NULL && r1 != NULL, "kineto_small.json read twice"))
                goto done;
        for (size_t i = 0; i < tpa_trace_event_count(r1); i++)
                if (tpa_trace__events_mut(r1)[i].corr != 0)
                        tpa_trace__events_mut(r1)[i].corr += 5;
        ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
           tpa_chrome_writer_add(w, r0, "rank0.json", &err) == 0 &&
           tpa_chrome_writer_add(w, r1, "rank1.json", &err) == 0 &&
           tpa_chrome_writer_close(w, &err) == 0, "two ranks merged (%s)", err.msg);
        tpa_trace_new(&back, &err);
        if (!ok(tpa_read_path(back, out, NULL, &err) == 0, "merged ranks read (%s)", err.msg))
                goto done;
        a0 = analyze(r0);
        a1 = analyze(r1);
        am = analyze(back);
        if (!ok(a0 != NULL && a1 != NULL && am != NULL, "each rank and the merge analysed"))
                goto done;
        tap_eq((int64_t)a0->step_count, 3, "rank 0: 3 steps");
        tap_eq((int64_t)am->step_count, (int64_t)a0->step_count, "merged: the ranks' steps");
        for (size_t i = 0; i < a0->step_count && i < am->step_count; i++) {
                const tpa_analysis *ranks[2] = { a0, a1 };
                for (int r = 0; r < 2; r++) {
                        const tpa_step *s = &ranks[r]->steps[i], *m = &am->steps[i];
                        tap_eq(m->number, s->number, "step %zu: rank %d's number", i, r);
                        tap_eq(m->start, s->start, "step %lld: rank %d's start",
                               (long long)s->number, r);
                        tap_eq(m->end, s->end, "step %lld: rank %d's end", (long long)s->number, r);
                        tap_eq(m->step_time, s->step_time, "step %lld: rank %d's step time",
                               (long long)s->number, r);
                }
        }
        {
                /* each launch of the merge finds its kernels in its own rank */
                const tpa_event *ev = tpa_trace_events(back);
                uint32_t lo[2] = { UINT32_MAX, UINT32_MAX }, hi[2] = { 0, 0 };
                for (size_t i = 0; i < tpa_trace_event_count(back); i++) {
                        const tpa_thread *t = tpa_trace_thread_c(back, ev[i].track);
                        const tpa_process *p = tpa_trace_process_c(back, t->process);
                        int r = strstr(tpa_trace_str(back, p->label), "rank1.json") != NULL;
                        if (ev[i].corr == 0)
                                continue;
                        lo[r] = ev[i].corr < lo[r] ? ev[i].corr : lo[r];
                        hi[r] = ev[i].corr > hi[r] ? ev[i].corr : hi[r];
                }
                ok(hi[0] < lo[1], "correlation ids apart: rank 0 %u..%u, rank 1 %u..%u", lo[0],
                   hi[0], lo[1], hi[1]);
        }
done:
        remove(out);
        tpa_analysis_free(a0);
        tpa_analysis_free(a1);
        tpa_analysis_free(am);
        tpa_trace_free(back);
        tpa_trace_free(r0);
        tpa_trace_free(r1);
}

/* The kind the first event named `name` has in tr, or -1. */
static int kind_named(const tpa_trace *tr, const char *name)
{
        const tpa_event *ev = tpa_trace_events(tr);

        for (size_t i = 0; i < tpa_trace_event_count(tr); i++)
                if (strcmp(tpa_trace_str(tr, ev[i].name), name) == 0)
                        return (int)ev[i].kind;
        return -1;
}

/* A gloo rank's collectives merged read back as collectives: PyTorch's
 * dispatcher ops of them (cpu_op "c10d::recv_", "c10d::allreduce_") and
 * gloo's spans (user_annotation "gloo:recv"). The dispatcher ops were
 * written as user_annotations and read back as annotations: a merged
 * pipeline stage blocked in c10d::recv_ (probe run out_pp, torch 2.13,
 * 40 ms of its 526) lost them, 86.5% collective where alone it was 94.5%. */
static void test_chrome_writer__merge_collectives(void)
{
        static const char json[] =
                "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"gloo\","
                "\"rank\":0,\"world_size\":2},\"traceEvents\":["
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::recv_\","
                "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:recv\","
                "\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::allreduce_\","
                "\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":5},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_reduce\","
                "\"pid\":1,\"tid\":2,\"ts\":71,\"dur\":20},"
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"forward\","
                "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10}"
                "]}";
        static const char *const names[] = {
                "ProfilerStep#1", "aten::mm", "c10d::recv_", "gloo:recv", "c10d::allreduce_",
                "gloo:all_reduce", "forward",
        };
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *tr = NULL, *back = NULL;
        const char *in = "test_chrome_writer_coll_in.json", *out = "test_chrome_writer_coll.json";
        FILE *f = fopen(in, "w");

        if (!ok(f != NULL && fputs(json, f) >= 0 && fclose(f) == 0, "the rank's trace written"))
                return;
        tpa_trace_new(&tr, &err);
        tpa_trace_new(&back, &err);
        if (ok(tpa_read_path(tr, in, NULL, &err) == 0, "the rank's trace reads (%s)", err.msg) &&
            ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
               tpa_chrome_writer_add(w, tr, "rank0.json", &err) == 0 &&
               tpa_chrome_writer_close(w, &err) == 0, "merged (%s)", err.msg) &&
            ok(tpa_read_path(back, out, NULL, &err) == 0, "merged file reads (%s)", err.msg)) {
                tap_eq(kind_named(tr, "c10d::recv_"), TPA_KIND_COLLECTIVE,
                       "c10d::recv_ is a collective in the rank's trace");
                for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
                        tap_eq(kind_named(back, names[k]), kind_named(tr, names[k]),
                               "%s: its kind read back", names[k]);
        }
        remove(in);
        remove(out);
        tpa_trace_free(back);
        tpa_trace_free(tr);
}

/* Ids that cannot be kept apart within 32 bits are refused, not lost. */
static void test_chrome_writer__merge_ids_cap(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *a = make_trace(), *b = make_trace();
        const char *out = "test_chrome_writer_cap.json";
        int rc;

        tpa_trace__events_mut(b)[0].corr = UINT32_MAX - 2;
        rc = tpa_chrome_writer_open(&w, out, &err);
        if (rc == 0)
                rc = tpa_chrome_writer_add(w, a, "a.json", &err);
        if (rc == 0)
                rc = tpa_chrome_writer_add(w, b, "b.json", &err);
        tap_eq(rc, TPA_ELIMIT, "ids past 2^32 once moved are a limit (%s)", err.msg);
        if (rc == 0)
                tpa_chrome_writer_close(w, &err);
        else
                tpa_chrome_writer_abort(w);
        ok(access(out, F_OK) != 0, "no file left");
        tpa_trace_free(a);
        tpa_trace_free(b);
}

static void test_chrome_writer__gzip_and_errors(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *a = make_trace(), *back;
        const char *out = "test_chrome_writer.json.gz";
        FILE *f;
        unsigned char magic[2] = { 0, 0 };

        ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
           tpa_chrome_writer_add(w, a, NULL, &err) == 0 &&
           tpa_chrome_writer_close(w, &err) == 0, "gzip output written (%s)", err.msg);
        f = fopen(out, "rb");
        if (f != NULL) {
                if (fread(magic, 1, 2, f) != 2)
                        magic[0] = 0;
                fclose(f);
        }
        ok(magic[0] == 0x1f && magic[1] == 0x8b, "a .gz path gets gzip");
        tpa_trace_new(&back, &err);
        ok(tpa_read_path(back, out, NULL, &err) == 0 && tpa_trace_event_count(back) == 1 &&
           tpa_trace_events(back)[0].ts == 1500 && tpa_trace_events(back)[0].dur == 2001,
           "gzip output reads back to the ns");
        tpa_trace_free(back);
        remove(out);

        tap_eq(tpa_chrome_writer_open(&w, "no/such/dir/out.json", &err), TPA_EIO,
               "a path that cannot be created is an i/o error (%s)", err.msg);
        if (access("/dev/full", W_OK) == 0) {
                int rc = tpa_chrome_writer_open(&w, "/dev/full", &err);
                if (rc == 0)
                        rc = tpa_chrome_writer_add(w, a, NULL, &err);
                if (rc == 0)
                        rc = tpa_chrome_writer_close(w, &err);
                else
                        tpa_chrome_writer_abort(w);
                tap_eq(rc, TPA_EIO, "writing to a full disk is an i/o error (%s)", err.msg);
        } else {
                tap_skip("no /dev/full");
        }
        tpa_trace_free(a);
}

int main(void)
{
        test_chrome_writer__format_us();
        test_chrome_writer__merge();
        test_chrome_writer__merge_ranks();
        test_chrome_writer__merge_collectives();
        test_chrome_writer__merge_ids_cap();
        test_chrome_writer__gzip_and_errors();
        return tap_done();
}
