/* SPDX-License-Identifier: MIT */
/*
 * test_invariants.c - what must hold of the verdict on every trace of the
 * corpus, tuned for or not (doc/design.md 5.3, 5.5; issue 20's acceptance):
 *   - no step and no run is compute-bound while its device computes less
 *     than 30% of the time;
 *   - the run's class is the class of the most kept-step time;
 *   - a browser trace (chrome-catapult/) gets no verdict;
 *   - no finding's gain exceeds the bucket it explains;
 *   - the run's breakdown sums to 1 and device busy is at most 1;
 *   - accelerators by their own names: the MTIA trace's device is MTIA, its
 *     DMA is transfer and no advice names CUDA; the MI250 trace's device is
 *     a ROCm GPU;
 *   - the self column of each top-op table sums to at most 100% of its
 *     base, and no op's self time exceeds its total (20 rows a table).
 * Every file under the corpus that reads as a trace is checked; TF's own
 * analysis files (*.overview_page.pb, ...) and the XSpace twins of the
 * trace.json.gz files are left out. Skips when the corpus is absent.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tpa/tpa.h>

#include "../unit/tap.h"

static bool has_suffix(const char *s, const char *suf)
{
        size_t n = strlen(s), k = strlen(suf);

        return n >= k && strcmp(s + n - k, suf) == 0;
}

static bool is_trace_name(const char *name)
{
        return (has_suffix(name, ".json") || has_suffix(name, ".json.gz") ||
                has_suffix(name, ".pbtxt")) && strstr(name, "overview_page") == NULL;
}

static double metric(const tpa_analysis *a, int step, const char *name)
{
        double v = 0;

        tpa_analysis_metric(a, step, name, strlen(name), &v);
        return v;
}

/* The bucket a finding explains, by the finding's name: its gain may not
 * exceed it. NULL: a finding of no one bucket. */
static const char *bucket_of(const char *finding)
{
        static const struct { const char *prefix, *metric; } map[] = {
                { "input_", "input_frac" }, { "python_gaps", "host_python_frac" },
                { "host_launches", "host_launch_frac" }, { "host_syncs", "sync_host_wait_frac" },
                { "host_", "host_frac" }, { "copies_", "transfer_frac" },
                { "small_copies", "transfer_frac" }, { "collectives", "sync_collective_frac" },
                { "unexplained_idle", "idle_frac" },
        };

        for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
                if (strncmp(finding, map[i].prefix, strlen(map[i].prefix)) == 0)
                        return map[i].metric;
        return NULL;
}

/* A top-op table: self time, nested ops subtracted, sums to at most its
 * base; an op's self time is at most its total. */
static void check_ops(const char *rel, const char *table, const tpa_op_stat *ops, size_t n)
{
        double sum = 0;
        bool self_ok = true;

        for (size_t i = 0; i < n; i++) {
                sum += ops[i].self_frac;
                if (ops[i].self < 0 || ops[i].self > ops[i].time) {
                        printf("# %s: %s self %" PRId64 " ns, total %" PRId64 " ns\n", rel,
                               ops[i].name, ops[i].self, ops[i].time);
                        self_ok = false;
                }
        }
        ok(sum <= 1.0 + 1e-9 && self_ok,
           "%s: %s ops' self time sums to %.1f%% (at most 100%%), none above its total", rel,
           table, sum * 100);
}

static void check(const char *root, const char *rel, const tpa_rules *rules)
{
        char path[8192 + 8192];
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr = NULL;
        tpa_analysis *a = NULL;
        double sum = 0, busy;
        bool compute_ok = true, gains_ok = true;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        ao.rules = rules;
        ao.top_n = 20;
        if (tpa_trace_new(&tr, &err) < 0 || tpa_read_path(tr, path, &ro, &err) < 0 ||
            tpa_analyze(&a, tr, &ao, &err) < 0) {
                printf("# %s: not a trace (%s)\n", rel, err.msg);
                tpa_trace_free(tr);
                return;
        }
        if (strncmp(rel, "chrome-catapult/", 16) == 0)
                ok(a->no_verdict != NULL && a->run_class == NULL, "%s: no verdict", rel);
        for (size_t k = 0; k < a->step_count; k++) {
                const tpa_step *s = &a->steps[k];
                if (s->class_name != NULL && strcmp(s->class_name, "compute-bound") == 0 &&
                    s->frac[TPA_BUCKET_COMPUTE] < 0.30)
                        compute_ok = false;
        }
        ok(compute_ok, "%s: no compute-bound step computes under 30%%", rel);
        if (a->run_class != NULL) {
                ok(strcmp(a->run_class, "compute-bound") != 0 ||
                   a->run_frac[TPA_BUCKET_COMPUTE] >= 0.30,
                   "%s: a compute-bound run computes 30%% or more (%.1f%%)", rel,
                   a->run_frac[TPA_BUCKET_COMPUTE] * 100);
                ok(a->class_kinds > 0 && strcmp(a->run_class, a->classes[0].name) == 0,
                   "%s: the run's class %s holds the most kept-step time", rel, a->run_class);
                for (size_t j = 1; j < a->class_kinds; j++)
                        if (a->classes[j].time > a->classes[0].time)
                                ok(false, "%s: %s holds more time than %s", rel,
                                   a->classes[j].name, a->classes[0].name);
        }
        for (size_t i = 0; i < a->finding_count; i++) {
                const tpa_finding *f = &a->findings[i];
                const char *b = bucket_of(f->name);
                if (b != NULL && f->gain_frac > metric(a, -1, b) + 1e-9) {
                        printf("# %s: %s gains %.4f over %s %.4f\n", rel, f->name, f->gain_frac,
                               b, metric(a, -1, b));
                        gains_ok = false;
                }
        }
        ok(gains_ok, "%s: no finding gains more than its bucket", rel);
        if (strstr(rel, "mtia_inference_trace/") != NULL) {
                bool cuda = false;
                for (size_t i = 0; i < a->finding_count; i++)
                        cuda = cuda || strstr(a->findings[i].message, "CUDA") != NULL;
                ok(a->device_count == 1 && strncmp(a->device_names[0], "MTIA:", 5) == 0,
                   "%s: the device is named MTIA (%s)", rel,
                   a->device_count ? a->device_names[0] : "none");
                ok(a->run_frac[TPA_BUCKET_D2D] > 0, "%s: DMA is transfer (%.2f%%)", rel,
                   a->run_frac[TPA_BUCKET_D2D] * 100);
                ok(!cuda, "%s: no advice names CUDA", rel);
        }
        if (strstr(rel, "amd_trace/mi250") != NULL)
                ok(a->device_count == 1 && strncmp(a->device_names[0], "ROCm GPU:", 9) == 0,
                   "%s: the device is a ROCm GPU (%s)", rel,
                   a->device_count ? a->device_names[0] : "none");
        if (a->kept_count > 0) {
                for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                        sum += a->run_frac[b];
                busy = metric(a, -1, "device_busy_frac");
                ok(sum > 0.999 && sum < 1.001 && busy >= 0 && busy <= 1.0 + 1e-9,
                   "%s: the breakdown sums to 1 (%.4f), device busy %.4f", rel, sum, busy);
        }
        check_ops(rel, "device", a->device_ops, a->device_op_count);
        check_ops(rel, "host", a->host_ops, a->host_op_count);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* Every trace file under root/rel, in name order. */
static void walk(const char *root, const char *rel, const tpa_rules *rules, int depth)
{
        char dir[8192];
        struct dirent **names;
        int n;

        snprintf(dir, sizeof(dir), "%s/%s", root, rel);
        if (depth > 16 || (n = scandir(dir, &names, NULL, alphasort)) < 0)
                return;
        for (int i = 0; i < n; i++) {
                char sub[8192], full[8192 + 256];
                struct stat st;
                const char *nm = names[i]->d_name;

                if (nm[0] != '.') {
                        snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", nm);
                        snprintf(full, sizeof(full), "%s/%s", root, sub);
                        if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
                                walk(root, sub, rules, depth + 1);
                        else if (is_trace_name(nm))
                                check(root, sub, rules);
                }
                free(names[i]);
        }
        free(names);
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
        walk(corpus, "", rules, 0);
        tpa_rules_free(rules);
        return tap_done();
}
