/* SPDX-License-Identifier: MIT */
/*
 * test_steps.c - issue 27's step finding on real traces: detected
 * iterations in the ResNet50 autograd-API samples against the ProfilerStep
 * samples of the same num_workers, and against markers added at the
 * detected starts; --step-marker boundaries, the MI250
 * trace's tail, and a copy of a real trace with one launch cut out (made
 * here, in memory: see missing_launch()). Skips when the corpus is absent.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <tpa/tpa.h>

#include "../unit/tap.h"
#include "model/trace_build.h"

#define SAMPLES "kineto-pytorch/tb_plugin/samples/"

static tpa_analysis *analyze(tpa_trace *tr, const tpa_rules *rules, const char *marker)
{
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;

        ao.rules = rules;
        ao.step_marker = marker;
        if (tpa_analyze(&a, tr, &ao, &err) < 0)
                printf("# tpa_analyze: %s\n", err.msg);
        return a;
}

/* The trace at corpus/rel, or NULL when it is not there. */
static tpa_trace *load(const char *corpus, const char *rel)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        char path[4096];
        FILE *fp;

        snprintf(path, sizeof(path), "%s/%s", corpus, rel);
        if ((fp = fopen(path, "rb")) == NULL)
                return NULL;
        fclose(fp);
        if (tpa_trace_new(&tr, &err) < 0 || tpa_read_path(tr, path, &ro, &err) < 0) {
                printf("# %s: %s\n", rel, err.msg);
                tpa_trace_free(tr);
                return NULL;
        }
        return tr;
}

static bool same_steps(const tpa_analysis *a, const tpa_analysis *b)
{
        if (a->step_count != b->step_count)
                return false;
        for (size_t i = 0; i < a->step_count; i++)
                if (a->steps[i].start != b->steps[i].start || a->steps[i].end != b->steps[i].end ||
                    a->steps[i].excluded != b->steps[i].excluded)
                        return false;
        return true;
}

/* The trace with a ProfilerStep#N marker added on the driving thread from
 * each detected step's start to the next's (the last to its end), as a
 * profiler schedule would have recorded them: the steps and every bucket
 * of every step come out the same, so what detection gives is what the
 * markers would. */
static void check_injected(tpa_trace *tr, const tpa_analysis *a, const tpa_rules *rules,
                           int workers)
{
        tpa_analysis *m;
        int bad = 0;

        for (size_t i = 0; i < a->step_count; i++) {
                const tpa_step *st = &a->steps[i];
                tpa_event marker = { .ts = st->start, .dur = st->end - st->start,
                                     .kind = TPA_KIND_STEP };
                char name[32];
                int n = snprintf(name, sizeof(name), "ProfilerStep#%zu", i);
                size_t at;

                marker.track = st->driver_track;
                if (st->driver_track == UINT32_MAX ||
                    tpa_trace__intern(tr, &marker.name, name, (size_t)n, NULL) < 0 ||
                    tpa_trace__add_event(tr, &marker, &at, NULL) < 0 ||
                    tpa_trace__set_aux(tr, at, TPA_AUX_STEP_NUM, (int64_t)i, NULL) < 0) {
                        bad++;
                        break;
                }
        }
        m = bad == 0 ? analyze(tr, rules, NULL) : NULL;
        ok(m != NULL && strcmp(m->step_source, "ProfilerStep#N") == 0 && same_steps(a, m),
           "autograd nw%d: ProfilerStep markers at the detected starts give the same steps (%s)",
           workers, m != NULL ? m->step_source : "-");
        for (size_t i = 0; m != NULL && i < m->step_count && i < a->step_count; i++)
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        bad += m->steps[i].bucket_ns[b] != a->steps[i].bucket_ns[b];
        ok(m != NULL && bad == 0, "autograd nw%d: ... and every bucket of every step", workers);
        tpa_analysis_free(m);
}

/* An autograd-API sample (no ProfilerStep) against the ProfilerStep one of
 * the same num_workers, recorded from the same script. */
static void check_autograd(const char *corpus, const tpa_rules *rules, int workers)
{
        char rel[256], ref_rel[256];
        tpa_trace *tr, *ref_tr;
        tpa_analysis *a, *m, *ref;
        double got, want;

        snprintf(rel, sizeof(rel), SAMPLES "resnet50_autograd_api_num_workers_%d/"
                 "worker0.pt.trace.json.gz", workers);
        snprintf(ref_rel, sizeof(ref_rel), SAMPLES "resnet50_num_workers_%d/"
                 "worker0.pt.trace.json.gz", workers);
        if ((tr = load(corpus, rel)) == NULL) {
                printf("# %s: not in the corpus\n", rel);
                return;
        }
        a = analyze(tr, rules, NULL);
        if (!ok(a != NULL, "autograd nw%d: analyzed", workers)) {
                tpa_trace_free(tr);
                return;
        }
        ok(strncmp(a->step_source, "detected iterations: enumerate(DataLoader)#", 43) == 0,
           "autograd nw%d: steps from the DataLoader (%s)", workers, a->step_source);
        tap_eq((int64_t)a->step_count, 6, "autograd nw%d: six steps", workers);
        ok(a->step_count > 0 && a->steps[0].excluded &&
           strncmp(a->steps[0].reason, "warm-up", 7) == 0,
           "autograd nw%d: the first is warm-up", workers);
        tap_eq((int64_t)a->kept_count, 5, "autograd nw%d: the rest kept", workers);
        m = analyze(tr, rules, "^enumerate\\(DataLoader\\)");
        ok(m != NULL && same_steps(a, m),
           "autograd nw%d: --step-marker '^enumerate\\(DataLoader\\)' gives the same steps",
           workers);
        tpa_analysis_free(m);

        if ((ref_tr = load(corpus, ref_rel)) != NULL && (ref = analyze(ref_tr, rules, NULL)) != NULL) {
                got = (double)a->step_time_median / 1e6;
                want = (double)ref->step_time_median / 1e6;
                ok(fabs(got - want) <= 0.05 * want,
                   "autograd nw%d: median step %.1f ms within 5%% of ProfilerStep's %.1f ms",
                   workers, got, want);
                ok(a->run_class != NULL && ref->run_class != NULL &&
                   strcmp(a->run_class, ref->run_class) == 0,
                   "autograd nw%d: class %s, as ProfilerStep's %s", workers,
                   a->run_class ? a->run_class : "-", ref->run_class ? ref->run_class : "-");
                /* Two recordings of one script, not one trace, so within
                 * 7 points, not the 3 the issue asks. The data differ
                 * before any analysis: the DataLoader calls' own time is
                 * 33.4% of the kept span here against 30.1% there, and the
                 * ProfilerStep sample's first step starts when the kernels
                 * queued before it end (36 ms in, as tb-profiler's does),
                 * which leaves its first DataLoader call mostly outside:
                 * input 7.7% in that step, 18-38% in every step here.
                 * What detection itself adds is nothing: check_injected(). */
                for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                        double x = a->run_group_frac[g] * 100, y = ref->run_group_frac[g] * 100;
                        ok(fabs(x - y) <= 7.0, "autograd nw%d: %s %.1f%% within 7 points of %.1f%%",
                           workers, tpa_group_name((tpa_group)g), x, y);
                }
                tpa_analysis_free(ref);
        }
        tpa_trace_free(ref_tr);
        check_injected(tr, a, rules, workers);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* The MI250 trace's second ProfilerStep is a 49 us stub the profiler
 * stopped in: the tail. The verdict comes from the first. */
static void check_mi250(const char *corpus, const tpa_rules *rules)
{
        static const char rel[] =
                "hta-facebookresearch/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
        tpa_trace *tr = load(corpus, rel);
        tpa_analysis *a;

        if (tr == NULL) {
                printf("# %s: not in the corpus\n", rel);
                return;
        }
        a = analyze(tr, rules, NULL);
        if (ok(a != NULL && a->step_count == 2, "mi250: two steps")) {
                ok(!a->steps[0].excluded && a->steps[0].number == 1,
                   "mi250: ProfilerStep#1 kept (%s)", a->steps[0].reason);
                ok(a->steps[1].excluded && strncmp(a->steps[1].reason, "tail", 4) == 0,
                   "mi250: ProfilerStep#2 excluded, tail (%s)", a->steps[1].reason);
                tap_eq(a->step_time_median, a->steps[0].step_time,
                       "mi250: the summary is the real step's");
                ok(a->run_class != NULL && a->steps[0].class_name != NULL &&
                   strcmp(a->run_class, a->steps[0].class_name) == 0,
                   "mi250: the verdict is the real step's class (%s)",
                   a->run_class ? a->run_class : "-");
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* The whole of the gzip file at path, inflated, NUL-terminated, in *out
 * (malloc'd), *len bytes before the NUL. */
static bool inflate_file(const char *path, char **out, size_t *len)
{
        gzFile gz = gzopen(path, "rb");
        size_t n = 0, cap = 1 << 20;
        char *buf = malloc(cap);
        int r;

        if (gz == NULL || buf == NULL) {
                if (gz != NULL)
                        gzclose(gz);
                free(buf);
                return false;
        }
        while ((r = gzread(gz, buf + n, (unsigned)(cap - 1 - n))) > 0) {
                n += (size_t)r;
                if (n + 1 == cap) {
                        char *v = realloc(buf, cap * 2);
                        if (v == NULL)
                                break;
                        buf = v;
                        cap *= 2;
                }
        }
        gzclose(gz);
        if (r < 0 || n + 1 == cap) {
                free(buf);
                return false;
        }
        buf[n] = '\0';
        *out = buf;
        *len = n;
        return true;
}

/*
 * A copy of the ResNet50 num_workers_0 ProfilerStep sample with one edit:
 * the host event that launched the first step's input copy (the
 * cudaMemcpyAsync with correlation 36037, 46 ms into ProfilerStep#5, the
 * first step) is blanked out, as a sampled trace loses launches. The copy
 * itself stays, so its launch is missing. That copy is the step's own work:
 * the first step starts where it does with the launch (130.0 ms; before
 * the fix its start moved to the copy's end, 118.3 ms).
 */
static void check_missing_launch(const char *corpus, const tpa_rules *rules)
{
        static const char rel[] = SAMPLES "resnet50_num_workers_0/worker0.pt.trace.json.gz";
        static const char key[] = "\"cbid\": 41, \"correlation\": 36037,";
        char path[4096], *text = NULL, *at, *open_, *close_;
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = load(corpus, rel), *cut = NULL;
        tpa_analysis *a = NULL, *b = NULL;
        size_t len;

        snprintf(path, sizeof(path), "%s/%s", corpus, rel);
        if (tr == NULL || !inflate_file(path, &text, &len)) {
                printf("# %s: not in the corpus\n", rel);
                tpa_trace_free(tr);
                return;
        }
        at = strstr(text, key);
        if (!ok(at != NULL, "missing launch: the launch is in the sample")) {
                free(text);
                tpa_trace_free(tr);
                return;
        }
        /* the event's object: "\n  {" before it to "\n  }," after it */
        for (open_ = at; open_ > text && memcmp(open_, "\n  {", 4) != 0; open_--)
                ;
        close_ = strstr(at, "\n  },");
        if (!ok(open_ > text && close_ != NULL, "missing launch: its event found")) {
                free(text);
                tpa_trace_free(tr);
                return;
        }
        memset(open_, ' ', (size_t)(close_ + 5 - open_));
        if (tpa_trace_new(&cut, &err) < 0 ||
            tpa_read_memory(cut, text, len, "missing-launch", &ro, &err) < 0)
                printf("# missing launch: %s\n", err.msg);
        free(text);
        a = analyze(tr, rules, NULL);
        b = analyze(cut, rules, NULL);
        if (ok(a != NULL && b != NULL && a->step_count > 0 && b->step_count == a->step_count,
               "missing launch: both analyzed")) {
                tap_eq(tpa_trace_event_count(cut) + 1, tpa_trace_event_count(tr),
                       "missing launch: one event fewer");
                tap_eq(b->steps[0].start, a->steps[0].start,
                       "missing launch: the first step starts where it did");
                tap_eq(b->steps[0].step_time, a->steps[0].step_time,
                       "missing launch: its time is the same (%.1f ms)",
                       (double)a->steps[0].step_time / 1e6);
        }
        tpa_analysis_free(a);
        tpa_analysis_free(b);
        tpa_trace_free(cut);
        tpa_trace_free(tr);
}

int main(void)
{
        const char *corpus = tap_corpus();
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;

        if (corpus == NULL) {
                tap_skip("corpus absent (TPA_CORPUS)");
                return tap_done();
        }
        if (!ok(tpa_rules_new_default(&rules, &err) == 0, "default rules load"))
                return tap_done();
        check_autograd(corpus, rules, 0);
        check_autograd(corpus, rules, 4);
        check_mi250(corpus, rules);
        check_missing_launch(corpus, rules);
        tpa_rules_free(rules);
        return tap_done();
}
