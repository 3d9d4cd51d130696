/* SPDX-License-Identifier: MIT */
/*
 * warmup.c - which steps the summary leaves out (doc/design.md 5.2). --warmup N
 * excludes the first N steps. --warmup auto excludes leading steps with
 * compilation evidence (TPA_FLAG_COMPILE on an event inside the step) or
 * whose time exceeds the steady state (median of the later steps) by more
 * than warmup.ratio times, or by more than 3 MADs while slower than every
 * later step (the MAD floored at 5% of the median, so that identical steady
 * steps do not make every small excess an outlier; a step some later step
 * outlasts is the steady state's spread, not warm-up), unless a later step
 * is as slow (past warmup.ratio times the median, within warmup.ratio of
 * it: an evaluation every so many steps), or that spend a tenth of their
 * time or more in runtime setup calls (allocation, stream and event
 * creation) when later steps spend less than half as much; and a trailing
 * step whose device work is cut off by the end of the trace, or a "tail":
 * far shorter than the steps before it with almost no device work (the
 * profiler stopped inside it);
 * and, where a DataLoader's batches mark the steps, those that train
 * nothing (untrained()); where ProfilerStep#N marks them, those that
 * train nothing where others do (an evaluation's batches, the script's
 * work after its loop); and
 * a step past the warm-up that compiles (a recompilation), unless half the
 * steps do. If
 * every step would go, all are kept and the report says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

/* Exclude step s; a step excluded already keeps its first reason. */
static void exclude(tpa_step *s, const char *reason)
{
        if (s->excluded)
                return;
        s->excluded = true;
        snprintf(s->reason, sizeof(s->reason), "%s", reason);
}

/* Per step: events flagged as compilation, and B events never closed, that
 * start inside it (one look-up of each event's flags for both), among
 * events [lo, hi). */
static void count_flags(const tpa_actx *c, size_t lo, size_t hi, size_t *compile,
                        size_t *unclosed)
{
        long hint = -1;
        int64_t f;

        /* the flagged events in turn (speed, bench/: a look-up per event was
         * half of the evidence's pass) */
        for (size_t i = lo; i < hi && tpa_trace_next_aux(c->tr, TPA_AUX_FLAGS, &i, &f) && i < hi;
             i++) {
                long k;
                if (!(f & (TPA_FLAG_COMPILE | TPA_FLAG_UNCLOSED)))
                        continue;
                if ((k = tpa_analysis__step_of(c->a, c->ev[i].ts, &hint)) < 0)
                        continue;
                if (f & TPA_FLAG_COMPILE)
                        compile[k]++;
                if (f & TPA_FLAG_UNCLOSED)
                        unclosed[k]++;
        }
}

/* Launches whose device work never came (c->lost, from the steps), per
 * step. */
static void count_lost_launches(const tpa_actx *c, size_t *per_step)
{
        long hint = -1, k;

        for (size_t i = 0; i < c->lost_n; i++)
                if ((k = tpa_analysis__step_of(c->a, c->lost[i], &hint)) >= 0)
                        per_step[k]++;
}

/* The share of step k's window covered by list l. */
static double share(const tpa_step *s, const tpa_ivl_list *l)
{
        return s->step_time > 0 ? (double)tpa_ivl__covered(l, s->start, s->end) /
                                  (double)s->step_time : 0;
}

/* The end of the last event in step s, of any thread or device (the
 * host threads' framework time and the devices'), at most its end; its
 * start when it holds none. */
static tpa_ns last_event_end(const tpa_actx *c, const tpa_step *s)
{
        tpa_ns end = s->start;

        for (size_t t = 0; t <= c->ntracks; t++) {
                const tpa_ivl_list *l = t < c->ntracks ? &c->fw[t] : &c->dev_all;
                size_t k = tpa_ivl__first_after(l, s->end);
                /* the last interval starting before the step's end */
                if (k < l->n && l->v[k].s < s->end)
                        return s->end;          /* one runs on to the end */
                if (k > 0 && l->v[k - 1].e > end)
                        end = l->v[k - 1].e;
        }
        return end < s->end ? end : s->end;
}

/* Why the last of n steps is a tail, or NULL: under a third of the median
 * of the steps before it (of their later half: warm-up comes first, and a
 * step that compiled for seconds must not make a steady last step look
 * short), with device work under a tenth of its time; or,
 * when markers mark boundaries, under half of it or over warmup.ratio
 * times it (unless a step before it is as slow: over warmup.ratio times
 * it too, and the last within warmup.ratio of that one): no marker ends
 * that step, the end of what its thread ran does, and a profile stopped
 * before the iteration's end (a loop's Python after the call it marks) or
 * well after it (a callback stopping the profiler, writing summaries; an
 * evaluation after the loop). Where markers mark boundaries and the batch
 * fetch lies between them, on their thread, in half the gaps or more (each
 * window but the last holds the next batch's wait: a tf.function's call
 * marks the iterations, `next(it)` outside it; not Keras', which reads its
 * batch inside), a last step with no input at all is
 * the loop's last call and what the script ran after it
 * (tf.summary.trace_export writing its summary, a checkpoint), whatever
 * its length: no iteration. Where the profiler's own markers span their
 * steps (ProfilerStep#N; a user's span ends itself) and the last one runs
 * on past warmup.ratio times the median with its excess in a stretch at
 * its end, a quarter of the median or more, where nothing is recorded on
 * any thread or device (the loop left, the profiler stopping as the `with`
 * block closes: a DataLoader's workers shut down, the trace collected),
 * that stretch is no iteration's, and the step a tail (`why`: room for
 * the reason). */
static const char *tail(const tpa_actx *c, double *scratch, char *why, size_t size)
{
        const tpa_analysis *a = c->a;
        size_t n = a->step_count;
        const tpa_step *last = &a->steps[n - 1];
        size_t m = 0;
        double med, slowest = 0;
        tpa_ns quiet;

        if (c->boundaries && c->fetch_between && last->bucket_ns[TPA_BUCKET_INPUT] == 0)
                return "tail: no batch fetch, which the steps before hold: the loop's last "
                       "call and what follows";

        for (size_t k = (n - 1) / 2; k + 1 < n; k++) {
                scratch[m++] = (double)a->steps[k].step_time;
                if (scratch[m - 1] > slowest)
                        slowest = scratch[m - 1];
        }
        med = tpa_analysis__quantile(scratch, m, 0.5);
        if ((double)last->step_time < med / 3 && share(last, &c->dev_all) < 0.1)
                return "tail: far shorter than the steps before, almost no device work";
        if (c->boundaries && (double)last->step_time < med / 2)
                return "tail: under half the steps before, and no marker ends it";
        /* a step before it as far past the median, the tail within
         * warmup.ratio of it, is the run's own spread (a loaded machine,
         * an evaluation every so many steps), as a slow step that recurs
         * is no warm-up: a whole last iteration, kept */
        if ((double)last->step_time <= a->warmup_ratio * med ||
            (slowest > a->warmup_ratio * med &&
             slowest * a->warmup_ratio >= (double)last->step_time))
                return NULL;
        if (c->boundaries)
                return "tail: runs on past the steps before, and no marker ends it";
        if (a->step_source == NULL || strcmp(a->step_source, "ProfilerStep#N") != 0 ||
            (quiet = last->end - last_event_end(c, last)) == last->step_time)
                return NULL;    /* a user's span ends itself; one of nothing stays */
        if ((double)quiet >= med / 4 &&
            (double)(last->step_time - quiet) <= a->warmup_ratio * med) {
                snprintf(why, size, "tail: nothing recorded anywhere in its last %.1f ms "
                         "(the profiler stopping)", (double)quiet / 1e6);
                return why;
        }
        return NULL;
}

/* Step i spends a tenth of its time or more in runtime setup calls, and
 * the steps after it, up to last, half as much or less (median). */
static bool setup_first(const tpa_actx *c, size_t i, size_t last, double *scratch)
{
        double mine = share(&c->a->steps[i], &c->host[HCH_SETUP]);
        size_t m = 0;

        if (mine < 0.1)
                return false;
        for (size_t k = i + 1; k < last; k++)
                scratch[m++] = share(&c->a->steps[k], &c->host[HCH_SETUP]);
        return tpa_analysis__quantile(scratch, m, 0.5) <= mine / 2;
}

/* Steps a DataLoader's next batch marks that train nothing: in a profile
 * of a whole epoch and the evaluation after it, the evaluation loader's
 * batches are steps too, and so is each loader's last call (the one that
 * ends the epoch). A training iteration runs a backward pass or an
 * optimizer step (gradient accumulation: a backward pass each); where
 * some steps do, the ones with neither are excluded. A per-name look
 * (memo: 1 no, 2 yes), a pass over the events. */
static void untrained(tpa_actx *c, bool profiler_steps)
{
        static const char *const train[] = {
                "autograd::engine::evaluate_function", "Optimizer.step#",
                "Optimizer.zero_grad#",
        };
        tpa_analysis *a = c->a;
        size_t ns = tpa_trace_str_count(c->tr), any = 0;
        uint8_t *memo = calloc(ns ? ns : 1, 1);
        bool *trains = calloc(a->step_count, sizeof(*trains));
        long hint = -1, k;

        for (size_t i = 0; memo != NULL && trains != NULL && i < c->n; i++) {
                tpa_str name = c->ev[i].name;
                if (name >= ns)
                        continue;
                if (memo[name] == 0) {
                        const char *s = tpa_trace_str(c->tr, name);
                        memo[name] = 1;
                        for (size_t t = 0; t < sizeof(train) / sizeof(train[0]); t++)
                                if (strncmp(s, train[t], strlen(train[t])) == 0)
                                        memo[name] = 2;
                }
                if (memo[name] == 2 && (k = tpa_analysis__step_of(a, c->ev[i].ts, &hint)) >= 0 &&
                    !trains[k]) {
                        trains[k] = true;
                        any++;
                }
        }
        for (size_t i = 0; any > 0 && i < a->step_count; i++) {
                bool last = i + 1 == a->step_count;
                if (trains[i] || a->steps[i].excluded)
                        continue;
                if (!profiler_steps)
                        exclude(&a->steps[i], "no backward pass or optimizer step: an "
                                              "evaluation, or the loader's last call");
                else if (last)
                        exclude(&a->steps[i], "after the loop: no backward pass or optimizer "
                                              "step, unlike the steps before");
                else
                        exclude(&a->steps[i], "no backward pass or optimizer step, unlike "
                                              "other steps: an evaluation's batch");
        }
        free(memo);
        free(trains);
}

/* Step s, a ProfilerStep#N, holds no work: no device work (CPU-only: no
 * framework op) and no host work of any channel. PyTorch's profiler,
 * stopped while its schedule records (a loop whose length leaves the last
 * cycle one step into its active part), writes a trace holding only the
 * ProfilerStep#N that its last prof.step() began: Python's few
 * microseconds before the profiler stopped, no iteration. Such a step is
 * no training step, even alone. */
static bool empty(const tpa_actx *c, const tpa_step *s)
{
        if (s->step_time <= 0 || c->a->step_source == NULL ||
            strcmp(c->a->step_source, "ProfilerStep#N") != 0)
                return false;
        if (tpa_ivl__covered(&c->dev_all, s->start, s->end) > 0)
                return false;
        for (int h = 0; h < HOST_CH__COUNT; h++)
                if (tpa_ivl__covered(&c->host[h], s->start, s->end) > 0)
                        return false;
        return true;
}

/* Per step, the evidence in half of the events. */
struct evidence {
        size_t *compile, *unclosed;
};

/* Count the evidence of half of the events into ((struct evidence *)arg)[part]. */
static int count_evidence(tpa_actx *c, int part, void *arg, tpa_error *err)
{
        struct evidence *ev = (struct evidence *)arg + part;
        size_t lo, hi;

        (void)err;
        tpa_analysis__half(c->n, part, &lo, &hi);
        count_flags(c, lo, hi, ev->compile, ev->unclosed);
        return 0;
}

void tpa_analysis__warmup(tpa_actx *c)
{
        tpa_analysis *a = c->a;
        size_t n = a->step_count, kept = 0, last = n;
        size_t *compile = NULL, *lost = NULL, *unclosed = NULL;
        struct evidence ev[2];
        double *scratch = NULL;
        bool *hollow = NULL, *slow = NULL;     /* slow: excluded by its time alone */

        if (n == 0)
                return;
        /* empty steps: excluded whatever else is (below), and stay so */
        hollow = calloc(n, sizeof(*hollow));
        for (size_t i = 0; hollow != NULL && i < n; i++)
                hollow[i] = empty(c, &a->steps[i]);
        if (c->opts->warmup >= 0) {
                for (size_t i = 0; i < n && i < (size_t)c->opts->warmup; i++) {
                        char why[96];
                        snprintf(why, sizeof(why), "--warmup %d", c->opts->warmup);
                        exclude(&a->steps[i], why);
                }
                goto done;
        }
        /* per step, for each half of the events: [0, n) and [n, 2n) */
        compile = calloc(2 * n, sizeof(*compile));
        lost = calloc(n, sizeof(*lost));
        unclosed = calloc(2 * n, sizeof(*unclosed));
        scratch = malloc(n * sizeof(*scratch));
        slow = calloc(n, sizeof(*slow));
        if (compile == NULL || lost == NULL || unclosed == NULL || scratch == NULL ||
            slow == NULL)
                goto done;              /* no evidence: keep every step */
        ev[0] = (struct evidence){ compile, unclosed };
        ev[1] = (struct evidence){ compile + n, unclosed + n };
        tpa_analysis__in_two(c, count_evidence, ev, NULL);
        for (size_t i = 0; i < n; i++) {
                compile[i] += compile[n + i];
                unclosed[i] += unclosed[n + i];
        }
        count_lost_launches(c, lost);

        /* trailing step cut off by the end of the trace */
        if (n > 1) {
                const char *why;
                char buf[sizeof(a->steps[0].reason)];
                size_t worst = 0;
                for (size_t i = 0; i + 1 < n; i++)
                        if (lost[i] > worst)
                                worst = lost[i];
                if (unclosed[n - 1] > 0) {
                        exclude(&a->steps[n - 1], "cut off: an event is still open at the "
                                                  "end of the trace");
                        last = n - 1;
                } else if (lost[n - 1] > worst) {
                        exclude(&a->steps[n - 1], "cut off: device work it launched is "
                                                  "missing at the end of the trace");
                        last = n - 1;
                } else if (tpa_trace_health_c(c->tr)->truncated &&
                           !tpa_trace_health_c(c->tr)->events_whole) {
                        /* the file ends inside the events (a killed process):
                         * a trace written in time order lost the end of its
                         * last step that was read, whatever it held */
                        exclude(&a->steps[n - 1], "cut off: the trace file ends early, in "
                                                  "or after it: its events are incomplete");
                        last = n - 1;
                } else if ((why = tail(c, scratch, buf, sizeof(buf))) != NULL) {
                        exclude(&a->steps[n - 1], why);
                        last = n - 1;
                }
        }
        /* leading warm-up; where half of the steps after the first or more
         * compile (a tf.function retraced every call: a Python value among
         * its arguments), compiling is the steady state, no warm-up's
         * evidence: every step went as warm-up, and all were kept with a
         * note that said so */
        size_t by_time = 0;     /* of them, slow alone: no compilation, no setup */
        tpa_ns slow_ns = 0, slow_input = 0;     /* their time, and their input's */
        size_t later_compiling = 0;
        for (size_t i = 1; i < last; i++)
                later_compiling += compile[i] > 0;
        bool steady_compile = later_compiling >= 2 && 2 * later_compiling >= last - 1;
        for (size_t i = 0; i < last; i++) {
                size_t m = 0;
                double med, mad, slowest = 0, later = 0, t = (double)a->steps[i].step_time;
                bool recurs;
                char why[96];

                if (compile[i] > 0 && !steady_compile) {
                        snprintf(why, sizeof(why), "warm-up: compilation or tracing "
                                 "(%zu event%s)", compile[i], compile[i] == 1 ? "" : "s");
                        exclude(&a->steps[i], why);
                        continue;
                }
                if (i + 1 < last && setup_first(c, i, last, scratch)) {
                        snprintf(why, sizeof(why), "warm-up: runtime setup (allocation, "
                                 "streams, events) %.0f%% of the step",
                                 share(&a->steps[i], &c->host[HCH_SETUP]) * 100);
                        exclude(&a->steps[i], why);
                        continue;
                }
                /* the later steps that compile are no steady state, nor
                 * a slow step that recurs: a recompilation (below) */
                for (size_t k = i + 1; k < last; k++) {
                        if (compile[k] > 0)
                                continue;
                        scratch[m++] = (double)a->steps[k].step_time;
                        if (scratch[m - 1] > slowest)
                                slowest = scratch[m - 1];
                }
                if (m == 0)
                        break;
                med = tpa_analysis__quantile(scratch, m, 0.5);
                /* a slow step recurs only past the steady state: the slow
                 * steps right after this one, before any step within
                 * warmup.ratio of the median, are more of the warm-up */
                for (size_t k = i + 1; k < last; k++)
                        if ((double)a->steps[k].step_time <= a->warmup_ratio * med) {
                                for (size_t j = k + 1; j < last; j++)
                                        if (compile[j] == 0 &&
                                            (double)a->steps[j].step_time > later)
                                                later = (double)a->steps[j].step_time;
                                break;
                        }
                for (size_t k = 0; k < m; k++)
                        scratch[k] = scratch[k] > med ? scratch[k] - med : med - scratch[k];
                mad = tpa_analysis__quantile(scratch, m, 0.5);
                if (mad < 0.05 * med)
                        mad = 0.05 * med;
                /* a slow step that recurs later (an evaluation, a
                 * checkpoint every so many steps), as far past the steady
                 * state and within warmup.ratio of it, is no warm-up */
                recurs = later > a->warmup_ratio * med && later * a->warmup_ratio >= t;
                if (recurs) {
                        break;
                } else if (t > a->warmup_ratio * med) {
                        snprintf(why, sizeof(why), "warm-up: %.2fx the median of later "
                                 "steps (> %.2fx)", t / med, a->warmup_ratio);
                        exclude(&a->steps[i], why);
                        slow[i] = true;
                        by_time++;
                        slow_ns += a->steps[i].step_time;
                        slow_input += a->steps[i].bucket_ns[TPA_BUCKET_INPUT];
                } else if (m >= 3 && t > med + 3 * mad && t > slowest) {
                        snprintf(why, sizeof(why), "warm-up: %.1f MADs above the median "
                                 "of later steps", (t - med) / mad);
                        exclude(&a->steps[i], why);
                        slow[i] = true;
                        by_time++;
                        slow_ns += a->steps[i].step_time;
                        slow_input += a->steps[i].bucket_ns[TPA_BUCKET_INPUT];
                } else {
                        break;
                }
        }
        /* a warm-up is a few one-off steps: four or more leading steps
         * slow by their time alone, over a quarter of the steps, that
         * wait for input half their time or more are a phase of the run
         * (an epoch that fills tf.data's cache or snapshot, a first
         * epoch's reads from a cold disk), whose steps are the run's as
         * much as the faster ones after them: kept. A warm-up's slowness
         * is the step's own work (cold caches, allocation). */
        if (by_time >= 4 && 4 * by_time > last && 2 * slow_input >= slow_ns) {
                size_t len = strlen(a->step_note), room = sizeof(a->step_note) - len;
                for (size_t i = 0; i < last; i++)
                        if (slow[i]) {
                                a->steps[i].excluded = false;
                                a->steps[i].reason[0] = '\0';
                        }
                snprintf(a->step_note + len, room, "%s%zu slow steps at the start, waiting for "
                         "input, are a phase of the run, not a warm-up: kept",
                         len > 0 ? "; " : "", by_time);
        }
        /* a compilation past the warm-up: torch.compile recompiling for a
         * new shape (a loader's last, smaller batch), a tf.function
         * retraced. Its compile scopes are framework ops, CPU-only the
         * compute, so the step would read as seconds of compute; it is a
         * one-off like the warm-up. Where most steps compile (a retrace
         * every step) that is the steady state and they stay. */
        {
                size_t first = 0, kept_after = 0, compiling = 0;
                while (first < last && a->steps[first].excluded)
                        first++;
                for (size_t i = first; i < last; i++) {
                        kept_after += !a->steps[i].excluded;
                        compiling += !a->steps[i].excluded && compile[i] > 0;
                }
                for (size_t i = first; compiling > 0 && 2 * compiling < kept_after && i < last;
                     i++)
                        if (compile[i] > 0) {
                                char why[96];
                                snprintf(why, sizeof(why), "recompilation: compilation or "
                                         "tracing past the warm-up (%zu event%s)", compile[i],
                                         compile[i] == 1 ? "" : "s");
                                exclude(&a->steps[i], why);
                        }
        }
        if (c->loader_steps)
                untrained(c, false);
        else if (n > 1 && a->step_source != NULL &&
                 strcmp(a->step_source, "ProfilerStep#N") == 0)
                /* the ProfilerStep#N that the last prof.step() began, when
                 * the profiler stops after the loop: what the script did
                 * then (a checkpoint, a barrier, DDP's join), no iteration;
                 * and those of an evaluation loop that calls prof.step()
                 * too (Lightning's PyTorchProfiler steps the profiler after
                 * each training_step and each validation_step) */
                untrained(c, true);
done:
        /* The last step the profiler stopped in as it began; one before
         * another, as long as a step, held an iteration the profiler did
         * not see: torch.profiler records the thread that started it, and
         * a loop on another thread (threading.Thread) leaves only the
         * ProfilerStep#N spans of the thread calling prof.step(). That
         * reason stands over a warm-up's (the step holds nothing to warm);
         * the last step's is the first that applied (a tail). */
        for (size_t i = 0; hollow != NULL && i < n; i++)
                if (hollow[i]) {
                        if (i + 1 < n)
                                a->steps[i].excluded = false;
                        exclude(&a->steps[i], i + 1 < n
                                ? "empty: no op recorded in it (a loop on a thread the "
                                  "profiler did not record?)"
                                : "empty: no op ran in it (the profiler stopped as the "
                                  "step began)");
                }
        for (size_t i = 0; i < n; i++)
                kept += !a->steps[i].excluded;
        if (kept == 0) {
                for (size_t i = 0; i < n; i++)
                        if (hollow == NULL || !hollow[i]) {
                                a->steps[i].excluded = false;
                                kept++;
                        }
                a->all_kept = kept > 0;
        }
        a->kept_count = kept;
        free(compile);
        free(lost);
        free(unclosed);
        free(scratch);
        free(hollow);
        free(slow);
}
