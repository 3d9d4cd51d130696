/* SPDX-License-Identifier: MIT */
/*
 * test_analysis.c - analysis.c: devices found from processes, the rules' classes, and
 * the same result on one thread as on two, on small traces built in memory
 * (analysis_fixture.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>
#include <tpa/analysis.h>
#include <tpa/report.h>

#include "analysis/analysis_internal.h"
#include "model/trace_build.h"

#include "analysis_fixture.h"
#include "tap.h"

/* TF1 timelines name a process per stream of one GPU: one device, not one
 * per stream (each stream's idle time would be averaged in); a merged
 * file's inputs, told apart by their labels, stay apart. */
static void test_analysis__device_processes(void)
{
        tb b = mk(1);
        tpa_analysis *a;
        uint32_t s13 = mk_thread(b.tr, mk_proc(b.tr, 13, "/device:GPU:0/stream:13 Compute",
                                               TPA_PROC_DEVICE, 0), 0, TPA_TRACK_STREAM);

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        ev(&b, s13, TPA_KIND_KERNEL, "k2", 50, 50, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->device_count, 1, "test_analysis__device_processes: one GPU");
        tap_streq(a->device_names[0], "GPU:0", "test_analysis__device_processes: named by ordinal");
        ok(a->steps[0].frac[TPA_BUCKET_COMPUTE] == 1.0,
           "test_analysis__device_processes: its streams together are always busy");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);

        b = mk(1);
        {
                uint32_t p = mk_proc(b.tr, 2, "/device:GPU:0", TPA_PROC_DEVICE, 0);
                tpa_str l;
                uint32_t t = mk_thread(b.tr, p, 7, TPA_TRACK_STREAM);
                tpa_trace__intern(b.tr, &l, "b.json", 6, NULL);
                tpa_trace__process(b.tr, p)->label = l;
                ev(&b, t, TPA_KIND_KERNEL, "k2", 50, 50, 0, 0);
        }
        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 0, 50, 0, 0);
        a = run(&b, NULL, 0);
        tap_eq((int64_t)a->device_count, 2, "test_analysis__device_processes: merged inputs apart");
        tap_streq(a->device_names[1], "/device:GPU:0 [b.json]",
                  "test_analysis__device_processes: the label tells them apart");
        tpa_analysis_free(a);
        tpa_trace_free(b.tr);
}

static void test_analysis__rules(void)
{
        tb b = mk(1);
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *a = NULL;
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;

        ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#1", 0, 100, 0, 0);
        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", 0, 40, 0, 0);
        ev(&b, b.gpu0, TPA_KIND_KERNEL, "k", 40, 60, 0, 0);
        ok(tpa_rules_new_default(&rules, &err) == 0, "test_analysis__rules: default rules");
        o.rules = rules;
        o.warmup = 0;
        ok(tpa_analyze(&a, b.tr, &o, &err) == 0, "test_analysis__rules: analyze");
        if (a != NULL) {
                tap_streq(a->steps[0].class_name, "input-bound", "test_analysis__rules: step class");
                tap_streq(a->run_class, "input-bound", "test_analysis__rules: run class");
                ok(a->finding_count > 0, "test_analysis__rules: findings");
        }
        tpa_analysis_free(a);
        tpa_rules_free(rules);
        tpa_trace_free(b.tr);
}

static int cmp_span(const void *x, const void *y)
{
        const tpa_ns *a = x, *b = y;

        return (a[0] > b[0]) - (a[0] < b[0]);
}

/* True when each step's compute time is the time its window holds of the
 * union of the trace's kernels (one device: compute wins every overlap),
 * counted here from the events. */
static bool compute_is_kernels(const tpa_trace *tr, const tpa_analysis *a)
{
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), m = 0, w = 0;
        tpa_ns *v = malloc((2 * n + 2) * sizeof(*v));
        bool same = v != NULL && a->step_count > 0;

        for (size_t i = 0; v != NULL && i < n; i++)
                if (ev[i].kind == TPA_KIND_KERNEL) {
                        v[2 * m] = ev[i].ts;
                        v[2 * m++ + 1] = ev[i].ts + ev[i].dur;
                }
        if (v != NULL)
                qsort(v, m, 2 * sizeof(*v), cmp_span);
        for (size_t i = 1; v != NULL && i < m; i++) {   /* merged, in place */
                if (v[2 * i] <= v[2 * w + 1]) {
                        if (v[2 * i + 1] > v[2 * w + 1])
                                v[2 * w + 1] = v[2 * i + 1];
                } else {
                        w++;
                        v[2 * w] = v[2 * i];
                        v[2 * w + 1] = v[2 * i + 1];
                }
        }
        m = m > 0 ? w + 1 : 0;
        for (size_t k = 0, j = 0; same && k < a->step_count; k++) {
                const tpa_step *st = &a->steps[k];
                tpa_ns busy = 0;

                while (j < m && v[2 * j + 1] <= st->start)
                        j++;
                for (size_t q = j; q < m && v[2 * q] < st->end; q++)
                        busy += (v[2 * q + 1] < st->end ? v[2 * q + 1] : st->end) -
                                (v[2 * q] > st->start ? v[2 * q] : st->start);
                same = busy == st->bucket_ns[TPA_BUCKET_COMPUTE];
                if (!same)
                        printf("# step %zu: compute %" PRId64 " ns, kernels %" PRId64 " ns\n", k,
                               (int64_t)st->bucket_ns[TPA_BUCKET_COMPUTE], (int64_t)busy);
        }
        free(v);
        return same;
}

/* Many steps on two GPUs with everything the analysis looks at: markers,
 * launches and their kernels by correlation id, copies with sizes, syncs,
 * input work, a compiling first step and a cut-off last one. */
static void test_analysis__threaded_same(void)
{
        static const char *const files[] = {
                "synth_tf2.trace.json.gz", "kineto_small.json", "tf1_timeline.json",
                "synth_tf1_timeline.json", "torch_compiled.trace.json.gz",
                "torch_input_bound.trace.json.gz", "tf2_host_bound.xplane.pb",
                "tf2_input_bound.trace.json.gz", "tf1_steps.tfevents",
        };
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;
        size_t i;

        ok(tpa_rules_new_default(&rules, &err) == 0, "test_analysis__threaded_same: rules");
        /* 41 steps; 7130 (200 k events: the metrics' host side in several
         * chunks of 64 k events taken by either thread; the JSON report's
         * steps in 446 chunks of 16 on two threads, the last one short and
         * the second thread's); 3000 on one GPU of two streams (its lists
         * sized from the census, the second half's kernels in room the
         * first half's block lends, kernels of the two streams overlapping
         * where the halves meet) */
        for (int round = 0; round < 3; round++) {
                int steps = round == 0 ? 41 : round == 1 ? 7130 : 3000;
                tb b = mk(round < 2 ? 2 : 1);
                uint32_t corr = 1;

                if (round == 2)         /* GPU 0's second stream */
                        b.gpu1 = mk_thread(b.tr, tpa_trace_thread_c(b.tr, b.gpu0)->process, 8,
                                           TPA_TRACK_STREAM);
                for (int k = 0; k < steps; k++) {
                        double t0 = k * 1000.0, len = k == 0 ? 900 : 600 + (k % 7) * 10;
                        uint32_t g = b.gpu0;

                        i = ev(&b, b.host, TPA_KIND_STEP, "ProfilerStep#", t0, len, 0, 0);
                        tpa_trace__set_aux(b.tr, i, TPA_AUX_STEP_NUM, k, NULL);
                        if (k == 0)
                                tpa_trace__add_flags(b.tr, i, TPA_FLAG_COMPILE, NULL);
                        ev(&b, b.host, TPA_KIND_INPUT, "IteratorGetNext", t0 + 5, 40 + k % 5, 0, 0);
                        ev(&b, b.host2, TPA_KIND_HOST_OP, "Prefetch", t0 + 2, 30, 0, 0);
                        for (int j = 0; j < 12; j++, corr++) {
                                double at = t0 + 50 + j * 45;
                                g = j % 3 == 2 ? b.gpu1 : b.gpu0;
                                ev(&b, b.host, TPA_KIND_LAUNCH, "cudaLaunchKernel", at, 4, corr, 0);
                                if (k == steps - 1 && j > 8)
                                        continue;       /* cut off at the end of the trace */
                                i = ev(&b, g, j % 4 == 1 ? TPA_KIND_COPY_H2D : TPA_KIND_KERNEL,
                                       j % 4 == 1 ? "MemcpyH2D" : j % 2 ? "conv" : "matmul",
                                       at + 6, 20 + (j * 7 + k) % 30, corr, 0);
                                if (j % 4 == 1)
                                        tpa_trace__set_aux(b.tr, i, TPA_AUX_BYTES,
                                                           4096 << (j % 8), NULL);
                        }
                        ev(&b, b.host, TPA_KIND_SYNC, "cudaStreamSynchronize", t0 + 600, 30, 0, 0);
                }
                ok(same_both_ways(b.tr, rules, "generated"),
                   "test_analysis__threaded_same: a generated trace of %d steps, one thread or two",
                   steps);
                ok(same_both_ways(b.tr, NULL, "generated, no rules"),
                   "test_analysis__threaded_same: ... without rules");
                if (round == 2) {
                        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
                        tpa_analysis *a = NULL;

                        o.threads = 2;
                        ok(tpa_analyze(&a, b.tr, &o, &err) == 0 && compute_is_kernels(b.tr, a),
                           "test_analysis__threaded_same: one GPU, each step's compute is "
                           "its kernels' union");
                        tpa_analysis_free(a);
                }
                tpa_trace_free(b.tr);
        }
        for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                tpa_read_options ro = TPA_READ_OPTIONS_INIT;
                tpa_trace *tr = NULL;

                if (tpa_trace_new(&tr, &err) < 0 ||
                    tpa_read_path(tr, tap_testdata(files[i]), &ro, &err) < 0)
                        printf("# %s: %s\n", files[i], err.msg);
                ok(same_both_ways(tr, rules, files[i]),
                   "test_analysis__threaded_same: %s, one thread or two", files[i]);
                tpa_trace_free(tr);
        }
        tpa_rules_free(rules);
}

/* The text report carries no control character from the trace to the
 * terminal (an escape sequence in an op name would retitle it, or write
 * its clipboard; a newline would add a line of its own) and no line over
 * 100 columns: each is '?', in op, thread, process and device names and
 * the path alike. */
static void test_analysis__text_report_controls(void)
{
        static const char bad[] = "x\\n- \\u001b]52;c;eA==\\u0007\\r\\t\\u0085\\u007f|y";
        char json[8192];
        size_t n = 0;
        tpa_trace *tr;
        tpa_analysis *a;
        char *out = NULL;
        size_t size = 0, lines = 0, over = 0, controls = 0;
        FILE *fp;

        n += (size_t)snprintf(json + n, sizeof(json) - n, "{\"traceEvents\":["
                              "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,"
                              "\"args\":{\"name\":\"main %s\"}},"
                              "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,"
                              "\"args\":{\"name\":\"gpu %s\"}},"
                              "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,"
                              "\"args\":{\"name\":\"stream %s\"}}", bad, bad, bad);
        for (int s = 0; s < 4; s++) {
                int t = s * 1000;
                n += (size_t)snprintf(json + n, sizeof(json) - n,
                        ",{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                        "\"ts\":%d,\"dur\":990}"
                        ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op %s\",\"pid\":1,"
                        "\"tid\":1,\"ts\":%d,\"dur\":600}"
                        ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                        "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":10,\"args\":{\"correlation\":%d}}"
                        ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel %s\",\"pid\":0,"
                        "\"tid\":7,\"ts\":%d,\"dur\":100,\"args\":{\"correlation\":%d}}",
                        s, t, bad, t + 10, t + 700, s + 1, bad, t + 720, s + 1);
        }
        snprintf(json + n, sizeof(json) - n, "]}");
        tr = read_json(json);
        a = tr != NULL ? analyze_default(tr) : NULL;
        ok(a != NULL && a->step_count == 4, "test_analysis__text_report_controls: four steps");
        if (a == NULL) {
                tpa_trace_free(tr);
                return;
        }
        fp = open_memstream(&out, &size);
        tpa_report_text(fp, tr, a, "path \x1b[2J\nname\xc2\x9b.json");
        fclose(fp);
        for (const char *l = out; *l != '\0';) {
                size_t len = strcspn(l, "\n");
                for (size_t i = 0; i < len; i++) {
                        unsigned char c = (unsigned char)l[i];
                        controls += c < 0x20 || c == 0x7f ||
                                    (c == 0xc2 && i + 1 < len &&
                                     (unsigned char)l[i + 1] >= 0x80 &&
                                     (unsigned char)l[i + 1] <= 0x9f);
                }
                over += len > 100;
                lines++;
                l += len + (l[len] == '\n');
        }
        tap_eq((int64_t)controls, 0, "test_analysis__text_report_controls: no control character");
        tap_eq((int64_t)over, 0, "test_analysis__text_report_controls: no line over 100 columns");
        ok(strstr(out, "op x?- ?]52;c;eA==?????|y") != NULL,
           "test_analysis__text_report_controls: each control a '?' in the op's name");
        ok(strstr(out, "path ?[2J?name?.json: ") != NULL,
           "test_analysis__text_report_controls: and in the path");
        printf("# %zu lines\n", lines);
        free(out);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

int main(void)
{
        test_analysis__device_processes();
        test_analysis__rules();
        test_analysis__threaded_same();
        test_analysis__text_report_controls();
        return tap_done();
}
