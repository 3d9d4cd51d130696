/* SPDX-License-Identifier: MIT */
/*
 * test_corpus_xspace.c - every *.xplane.pb under the corpus reads as XSpace;
 * where the session also has its *.trace.json.gz (the TF trace viewer's
 * rendering of the same XSpace), both read into the same events (count per
 * kind and per track, and event by event: ts, dur, kind, name to the ns) and
 * give the same analysis: the same steps, step times within 1 us, bucket
 * fractions within 1 percentage point (issue 4). Each xplane.pb also goes
 * through convert (the Chrome JSON writer) and must read back to the same
 * events. Skips when the corpus is absent.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tpa/tpa.h>

#include "tap.h"

static char  *files[256];
static size_t file_count;

static int collect(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
        size_t len = strlen(path);

        (void)sb;
        (void)ftw;
        if (type == FTW_F && len > 10 && strcmp(path + len - 10, ".xplane.pb") == 0 &&
            file_count < sizeof(files) / sizeof(files[0]))
                files[file_count++] = strdup(path);
        return 0;
}

static int cmp_path(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

struct key {
        tpa_ns   ts, dur;
        unsigned kind;
        const char *name, *track, *proc;
};

static int cmp_key(const void *a, const void *b)
{
        const struct key *x = a, *y = b;
        int c;

        if (x->ts != y->ts)
                return x->ts < y->ts ? -1 : 1;
        if (x->dur != y->dur)
                return x->dur < y->dur ? -1 : 1;
        if ((c = strcmp(x->proc, y->proc)) != 0)
                return c;
        if ((c = strcmp(x->track, y->track)) != 0)
                return c;
        return strcmp(x->name, y->name);
}

static struct key *keys(const tpa_trace *tr)
{
        size_t n = tpa_trace_event_count(tr);
        const tpa_event *ev = tpa_trace_events(tr);
        struct key *k = calloc(n + 1, sizeof(*k));

        for (size_t i = 0; k != NULL && i < n; i++) {
                const tpa_thread *t = tpa_trace_thread_c(tr, ev[i].track);
                k[i] = (struct key){ ev[i].ts, ev[i].dur, ev[i].kind,
                                     tpa_trace_str(tr, ev[i].name), tpa_trace_str(tr, t->name),
                                     tpa_trace_str(tr, tpa_trace_process_c(tr, t->process)->name) };
        }
        if (k != NULL)
                qsort(k, n, sizeof(*k), cmp_key);
        return k;
}

/* Events equal one by one; the first difference is reported. */
static void compare_events(const tpa_trace *a, const tpa_trace *b, const char *what)
{
        size_t n = tpa_trace_event_count(a), bad = 0, first = 0;
        struct key *ka, *kb;

        if (!tap_eq((int64_t)tpa_trace_event_count(b), (int64_t)n, "%s: event count", what))
                return;
        ka = keys(a);
        kb = keys(b);
        for (size_t i = 0; ka != NULL && kb != NULL && i < n; i++) {
                if (cmp_key(&ka[i], &kb[i]) != 0 || ka[i].kind != kb[i].kind) {
                        if (bad++ == 0)
                                first = i;
                }
        }
        if (!ok(ka != NULL && kb != NULL && bad == 0, "%s: events equal (ts, dur, kind, name, "
                "track)", what) && ka != NULL && kb != NULL)
                printf("# %zu differ; first: xspace %lld+%lld %s '%s' on '%s' vs json %lld+%lld "
                       "%s '%s' on '%s'\n", bad, (long long)ka[first].ts,
                       (long long)ka[first].dur, tpa_kind_name(ka[first].kind), ka[first].name,
                       ka[first].track, (long long)kb[first].ts, (long long)kb[first].dur,
                       tpa_kind_name(kb[first].kind), kb[first].name, kb[first].track);
        free(ka);
        free(kb);
}

static void compare_analysis(const tpa_trace *a, const tpa_trace *b, const char *what)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_analysis *x = NULL, *y = NULL;
        tpa_error err = TPA_ERROR_INIT;
        double worst = 0;
        tpa_ns worst_ns = 0;

        if (!ok(tpa_analyze(&x, a, &o, &err) == 0 && tpa_analyze(&y, b, &o, &err) == 0,
                "%s: both analyze (%s)", what, err.msg))
                goto out;
        if (!tap_eq((int64_t)x->step_count, (int64_t)y->step_count, "%s: same steps", what))
                goto out;
        for (size_t s = 0; s < x->step_count; s++) {
                tpa_ns d = x->steps[s].step_time - y->steps[s].step_time;
                if (d < 0)
                        d = -d;
                if (d > worst_ns)
                        worst_ns = d;
                if (x->steps[s].number != y->steps[s].number)
                        worst_ns = INT64_MAX;
                for (int k = 0; k < TPA_BUCKET__COUNT; k++) {
                        double f = x->steps[s].frac[k] - y->steps[s].frac[k];
                        if (f < 0)
                                f = -f;
                        if (f > worst)
                                worst = f;
                }
        }
        ok(worst_ns <= 1000, "%s: step numbers equal, step times within 1 us (worst %lld ns)",
           what, (long long)worst_ns);
        ok(worst <= 0.01, "%s: bucket fractions within 1 point (worst %.4f)", what, worst);
        tap_eq((int64_t)x->kept_count, (int64_t)y->kept_count, "%s: same kept steps", what);
out:
        tpa_analysis_free(x);
        tpa_analysis_free(y);
}

int main(void)
{
        const char *corpus = tap_corpus();
        size_t pairs = 0;

        if (corpus == NULL) {
                tap_skip("corpus absent (TPA_CORPUS)");
                return tap_done();
        }
        nftw(corpus, collect, 16, FTW_PHYS);
        qsort(files, file_count, sizeof(files[0]), cmp_path);
        for (size_t i = 0; i < file_count; i++) {
                const char *path = files[i];
                const char *what = strstr(path, "corpus/") ? strstr(path, "corpus/") + 7 : path;
                tpa_error err = TPA_ERROR_INIT;
                tpa_trace *x = NULL, *j = NULL;
                char json[4096];
                int rc;

                tpa_trace_new(&x, &err);
                rc = tpa_read_path(x, path, NULL, &err);
                if (!ok(rc == 0 && tpa_trace_format(x) == TPA_FORMAT_XSPACE &&
                        tpa_trace_dialect(x) == TPA_DIALECT_TF2 && tpa_trace_event_count(x) > 0,
                        "%s reads as xspace tf2 (%s)", what, rc ? err.msg : "ok")) {
                        tpa_trace_free(x);
                        continue;
                }
                /* convert: written as Chrome JSON, read back the same */
                {
                        const char *out = "corpus_xspace_roundtrip.json.gz";
                        tpa_chrome_writer *w;
                        tpa_trace *back = NULL;
                        char label[4200];

                        snprintf(label, sizeof(label), "%s converted", what);
                        tpa_trace_new(&back, &err);
                        if (ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
                               tpa_chrome_writer_add(w, x, NULL, &err) == 0 &&
                               tpa_chrome_writer_close(w, &err) == 0 &&
                               tpa_read_path(back, out, NULL, &err) == 0,
                               "%s: converted and read back (%s)", what, err.msg))
                                compare_events(x, back, label);
                        tpa_trace_free(back);
                        remove(out);
                }
                snprintf(json, sizeof(json), "%.*s.trace.json.gz",
                         (int)(strlen(path) - 10), path);
                if (access(json, R_OK) == 0) {
                        tpa_trace_new(&j, &err);
                        if (ok(tpa_read_path(j, json, NULL, &err) == 0, "%s: json reads",
                               what)) {
                                compare_events(x, j, what);
                                compare_analysis(x, j, what);
                                pairs++;
                        }
                        tpa_trace_free(j);
                }
                tpa_trace_free(x);
        }
        ok(file_count > 0, "found %zu xplane.pb files, %zu with a trace.json.gz", file_count,
           pairs);
        {
                /* the one real RunMetadata in text format */
                char path[4096];
                tpa_error err = TPA_ERROR_INIT;
                tpa_trace *tr = NULL;

                snprintf(path, sizeof(path), "%s/tensorboard-tensorflow/tensorboard/components/"
                         "tf_backend/test/data/run_metadata_run_step99_tag_train.pbtxt", corpus);
                if (access(path, R_OK) == 0) {
                        tpa_trace_new(&tr, &err);
                        ok(tpa_read_path(tr, path, NULL, &err) == 0 &&
                           tpa_trace_format(tr) == TPA_FORMAT_STEPSTATS_TEXT &&
                           tpa_trace_event_count(tr) == 2 &&
                           tpa_trace_events(tr)[0].ts == 1459365298611334000 &&
                           tpa_trace_events(tr)[0].dur == 52000,
                           "run_metadata_run_step99_tag_train.pbtxt: one node (_SOURCE, 52 us) "
                           "and its step (%s)", err.msg);
                        tpa_trace_free(tr);
                }
        }
        for (size_t i = 0; i < file_count; i++)
                free(files[i]);
        return tap_done();
}
