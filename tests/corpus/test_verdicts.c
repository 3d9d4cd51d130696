/* SPDX-License-Identifier: MIT */
/*
 * test_verdicts.c - the verdicts on real traces against the frameworks'
 * own analyses: for every TF2 profile session in the corpus, our input,
 * launch and host shares, run class and median step time against TF's
 * (expect_tf2.txt, expect_tf_overview.txt: decoded by tools/tf_overview.py);
 * for the Kineto ResNet50 samples, each step's buckets and time against
 * PyTorch's TensorBoard plugin (tools/tb_plugin_steps.py). The files (the
 * arguments) say why where we differ on purpose. Skips when the corpus is
 * absent.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "../unit/tap.h"

/* The first *.trace.json.gz in `dir`, in a static buffer; NULL if none. */
static const char *trace_in(const char *dir)
{
        static char path[4096 + 512];
        DIR *d = opendir(dir);
        struct dirent *de;
        const char *found = NULL;

        if (d == NULL)
                return NULL;
        while ((de = readdir(d)) != NULL) {
                size_t n = strlen(de->d_name);
                if (n > 14 && strcmp(de->d_name + n - 14, ".trace.json.gz") == 0) {
                        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                        found = path;
                        break;
                }
        }
        closedir(d);
        return found;
}

static tpa_analysis *analyze(const char *path, const tpa_rules *rules, tpa_trace **trp)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_analysis *a = NULL;
        tpa_trace *tr = NULL;

        ao.rules = rules;
        if (tpa_trace_new(&tr, &err) < 0 || tpa_read_path(tr, path, &ro, &err) < 0 ||
            tpa_analyze(&a, tr, &ao, &err) < 0) {
                printf("# %s: %s\n", path, err.msg);
                tpa_trace_free(tr);
                return NULL;
        }
        *trp = tr;
        return a;
}

/* The analysis of TF2 session `session`'s trace.json.gz (its trace in
 * *trp), or NULL, each failure a failed check. */
static tpa_analysis *analyze_session(const char *corpus, const char *session,
                                     const tpa_rules *rules, tpa_trace **trp)
{
        char dir[4096];
        const char *path;
        tpa_analysis *a;

        snprintf(dir, sizeof(dir), "%s/%s", corpus, session);
        path = trace_in(dir);
        if (!ok(path != NULL, "%s: has a trace.json.gz", session))
                return NULL;
        a = analyze(path, rules, trp);
        ok(a != NULL, "%s: analyzed", session);
        return a;
}

static void check_tf2(const char *corpus, const tpa_rules *rules, char *rest)
{
        char session[2048], verdict[32], *ours;
        double tf_input, tf_step_ms, want, got, step_ms;
        tpa_trace *tr = NULL;
        tpa_analysis *a;
        bool input_bound;

        if (sscanf(rest, "%2047s %lf %lf %31s", session, &tf_input, &tf_step_ms, verdict) != 4) {
                ok(false, "malformed line: %s", rest);
                return;
        }
        if ((a = analyze_session(corpus, session, rules, &tr)) == NULL)
                return;
        got = a->run_group_frac[TPA_GROUP_INPUT] * 100.0;
        ours = strstr(rest, " ours=");
        if (ours != NULL) {
                want = atof(ours + 6);
                ok(fabs(got - want) <= 1.0, "%s: input %.1f%% (TF %.1f%%; ours on purpose %.1f%%)",
                   session, got, tf_input, want);
        } else {
                ok(fabs(got - tf_input) <= 5.0, "%s: input %.1f%% within 5 points of TF %.1f%%",
                   session, got, tf_input);
        }
        input_bound = a->run_class != NULL && strcmp(a->run_class, "input-bound") == 0;
        ok(strcmp(verdict, "HIGHLY") == 0 ? input_bound : !input_bound,
           "%s: class %s agrees with TF %s input-bound", session,
           a->run_class ? a->run_class : "-", verdict);
        step_ms = (double)a->step_time_median / 1e6;
        ok(fabs(step_ms - tf_step_ms) <= 0.02 * tf_step_ms,
           "%s: step time %.1f ms within 2%% of TF %.1f ms", session, step_ms, tf_step_ms);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A row of expect_tf_overview.txt: TF's own figures for a session
 * against ours on its trace.json.gz (the file's header says how each is
 * made): input, launch and host share within 5 points, HIGHLY input-bound
 * -> input-bound, else not, and host-bound where TF's host share is half
 * the step or more. */
static void check_overview(const char *corpus, const tpa_rules *rules, char *rest)
{
        char session[2048], verdict[32], *want;
        double step_ms, input, launch, host, compute, got, tol = 5;
        int steps;
        tpa_trace *tr = NULL;
        tpa_analysis *a;
        bool highly;

        if (sscanf(rest, "%2047s %d %lf %lf %lf %lf %lf %31s", session, &steps, &step_ms,
                   &input, &launch, &host, &compute, verdict) != 8) {
                ok(false, "malformed line: %s", rest);
                return;
        }
        if ((a = analyze_session(corpus, session, rules, &tr)) == NULL)
                return;
        /* ours=INPUT,LAUNCH,HOST: where we differ on purpose (the row says
         * why), our figures within 1 point of those */
        if ((want = strstr(rest, " ours=")) != NULL &&
            sscanf(want + 6, "%lf,%lf,%lf", &input, &launch, &host) == 3)
                tol = 1;
        got = a->run_group_frac[TPA_GROUP_INPUT] * 100;
        ok(fabs(got - input) <= tol, "%s: input %.1f%% within %.0f points of %.1f%%", session,
           got, tol, input);
        got = a->run_frac[TPA_BUCKET_HOST_LAUNCH] * 100;
        ok(fabs(got - launch) <= tol, "%s: launch %.1f%% within %.0f points of %.1f%%",
           session, got, tol, launch);
        got = a->run_group_frac[TPA_GROUP_HOST] * 100;
        ok(fabs(got - host) <= tol, "%s: host %.1f%% within %.0f points of %.1f%%", session,
           got, tol, host);
        highly = strcmp(verdict, "HIGHLY") == 0;
        ok(a->run_class != NULL && (strcmp(a->run_class, "input-bound") == 0) == highly,
           "%s: %s, as TF's %s input-bound says", session,
           a->run_class ? a->run_class : "-", verdict);
        if (!highly && host >= 50)
                ok(a->run_class != NULL && strcmp(a->run_class, "host-bound") == 0,
                   "%s: %s where TF's host share is %.1f%%", session,
                   a->run_class ? a->run_class : "-", host);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A row of expect_hta.txt: HTA's temporal breakdown over the listed steps
 * (tools/hta_breakdown.py says how) against ours over the same steps:
 * device idle (1 - device busy), compute, and non-compute (copies and
 * collectives), each within 1 point. */
static void check_hta(const char *corpus, const tpa_rules *rules, char *rest)
{
        char path[4096], file[2048], list[1024];
        double idle, compute, noncompute, total = 0, busy = 0, comp = 0, other = 0;
        size_t used = 0, listed = 0;
        tpa_trace *tr = NULL;
        tpa_analysis *a;

        if (sscanf(rest, "%2047s %1023s %lf %lf %lf", file, list, &idle, &compute,
                   &noncompute) != 5) {
                ok(false, "malformed line: %s", rest);
                return;
        }
        snprintf(path, sizeof(path), "%s/%s", corpus, file);
        a = analyze(path, rules, &tr);
        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        for (char *p = list; *p != '\0';) {
                char *end;
                long long n = strtoll(p, &end, 10);
                listed++;
                for (size_t i = 0; i < a->step_count; i++) {
                        const tpa_step *s = &a->steps[i];
                        const tpa_ns *b = s->bucket_ns;
                        double cp = (double)(b[TPA_BUCKET_H2D] + b[TPA_BUCKET_D2H] +
                                             b[TPA_BUCKET_D2D] + b[TPA_BUCKET_P2P] +
                                             b[TPA_BUCKET_SYNC_COLLECTIVE]);
                        if (s->number != n || s->excluded)
                                continue;
                        used++;
                        total += (double)s->step_time;
                        comp += (double)b[TPA_BUCKET_COMPUTE];
                        other += cp;
                        busy += (double)b[TPA_BUCKET_COMPUTE] + cp;
                }
                p = *end == ',' ? end + 1 : end;
                if (end == p && *p != '\0')
                        break;
        }
        if (ok(used == listed && total > 0, "%s: ours keeps the %zu steps HTA measured", file,
               listed)) {
                ok(fabs(100 * (total - busy) / total - idle) <= 1,
                   "%s: device idle %.2f%% within 1 point of HTA's %.2f%%", file,
                   100 * (total - busy) / total, idle);
                ok(fabs(100 * comp / total - compute) <= 1,
                   "%s: compute %.2f%% within 1 point of HTA's %.2f%%", file,
                   100 * comp / total, compute);
                ok(fabs(100 * other / total - noncompute) <= 1,
                   "%s: non-compute %.2f%% within 1 point of HTA's %.2f%%", file,
                   100 * other / total, noncompute);
        }
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

/* A step's figure as a field of a kineto row names it: "steps" its input
 * share, "times" its time (ms), "kernel" compute, "memcpy" transfer,
 * "runtime" launch + setup + host wait, "host" the rest of the step (all
 * host time, host waits and idle), all in %. */
static double step_figure(const tpa_step *s, const char *field)
{
        const double *f = s->frac;

        if (strcmp(field, "times") == 0)
                return (double)s->step_time / 1e6;
        if (strcmp(field, "steps") == 0)
                return f[TPA_BUCKET_INPUT] * 100;
        if (strcmp(field, "kernel") == 0)
                return f[TPA_BUCKET_COMPUTE] * 100;
        if (strcmp(field, "memcpy") == 0)
                return (f[TPA_BUCKET_H2D] + f[TPA_BUCKET_D2H] + f[TPA_BUCKET_D2D] +
                        f[TPA_BUCKET_P2P]) * 100;
        if (strcmp(field, "runtime") == 0)
                return (f[TPA_BUCKET_HOST_LAUNCH] + f[TPA_BUCKET_HOST_SETUP] +
                        f[TPA_BUCKET_SYNC_HOST_WAIT]) * 100;
        return (f[TPA_BUCKET_HOST_LAUNCH] + f[TPA_BUCKET_HOST_SETUP] +
                f[TPA_BUCKET_HOST_PYTHON] + f[TPA_BUCKET_HOST_COMPUTE] +
                f[TPA_BUCKET_SYNC_HOST_WAIT] + f[TPA_BUCKET_IDLE]) * 100;
}

/* One figure per step, in step order, comma-separated, within `tol` of
 * ours (ms for times=, points for the shares). */
static void check_steps(const tpa_analysis *a, const char *file, const char *p,
                        const char *field, double tol)
{
        size_t k = 0;

        for (size_t i = 0; i < a->step_count; i++, k++) {
                const tpa_step *s = &a->steps[i];
                double got = step_figure(s, field);
                char *end;
                double v = strtod(p, &end);

                if (!ok(end != p, "%s: %s= has a figure for step %" PRId64, file, field,
                        s->number))
                        return;
                ok(fabs(got - v) <= tol, "%s: step %" PRId64 " %s %.3f within %.2f of %.3f", file,
                   s->number, field, got, tol, v);
                p = *end == ',' ? end + 1 : end;
        }
        ok(*p == ' ' || *p == '\0', "%s: %zu steps, as many as the row lists", file, k);
}

static void check_kineto(const char *corpus, const tpa_rules *rules, char *rest)
{
        char path[4096], file[2048], cls[32], *want;
        double lo, hi, got;
        tpa_trace *tr = NULL;
        tpa_analysis *a;
        bool input_bound;

        if (sscanf(rest, "%2047s %lf %lf %31s", file, &lo, &hi, cls) != 4) {
                ok(false, "malformed line: %s", rest);
                return;
        }
        snprintf(path, sizeof(path), "%s/%s", corpus, file);
        a = analyze(path, rules, &tr);
        if (!ok(a != NULL, "%s: analyzed", file))
                return;
        got = a->run_group_frac[TPA_GROUP_INPUT] * 100.0;
        ok(got >= lo && got <= hi, "%s: input %.1f%% in [%.0f, %.0f]", file, got, lo, hi);
        /* steps=A,B,... and times=A,B,...: each step's input % and step
         * time (ms), from PyTorch's TensorBoard plugin (the row says how) */
        static const struct { const char *field; double tol; } fields[] = {
                { "steps", 0.5 }, { "times", 0.05 }, { "kernel", 1 }, { "memcpy", 1 },
                { "runtime", 1 }, { "host", 1 },
        };
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
                char key[16];
                snprintf(key, sizeof(key), " %s=", fields[f].field);
                if ((want = strstr(rest, key)) != NULL)
                        check_steps(a, file, want + strlen(key), fields[f].field,
                                    fields[f].tol);
        }
        input_bound = a->run_class != NULL && strcmp(a->run_class, "input-bound") == 0;
        ok(strcmp(cls, "input-bound") == 0 ? input_bound : !input_bound, "%s: class %s (want %s)",
           file, a->run_class ? a->run_class : "-", cls);
        ok(a->step_source != NULL && strcmp(a->step_source, "ProfilerStep#N") == 0,
           "%s: steps from ProfilerStep#N", file);
        tpa_analysis_free(a);
        tpa_trace_free(tr);
}

int main(int argc, char **argv)
{
        const char *corpus = tap_corpus();
        tpa_rules *rules = NULL;
        tpa_error err = TPA_ERROR_INIT;
        char line[8192];
        FILE *fp;

        if (corpus == NULL) {
                tap_skip("corpus absent (TPA_CORPUS)");
                return tap_done();
        }
        if (argc < 2) {
                ok(false, "expectations files given");
                return tap_done();
        }
        if (!ok(tpa_rules_new_default(&rules, &err) == 0, "default rules load"))
                return tap_done();
        for (int i = 1; i < argc; i++) {
                if (!ok((fp = fopen(argv[i], "r")) != NULL, "%s readable", argv[i]))
                        continue;
                while (fgets(line, sizeof(line), fp) != NULL) {
                        line[strcspn(line, "\n")] = '\0';
                        if (strncmp(line, "tf2 ", 4) == 0)
                                check_tf2(corpus, rules, line + 4);
                        else if (strncmp(line, "kineto ", 7) == 0)
                                check_kineto(corpus, rules, line + 7);
                        else if (strncmp(line, "overview ", 9) == 0)
                                check_overview(corpus, rules, line + 9);
                        else if (strncmp(line, "hta ", 4) == 0)
                                check_hta(corpus, rules, line + 4);
                }
                fclose(fp);
        }
        tpa_rules_free(rules);
        return tap_done();
}
