/* SPDX-License-Identifier: MIT */
/*
 * p2p.c - where gloo's point-to-point works begin to block the thread that
 * posted them (p2p.h, doc/design.md 5.3): the end of the last other event
 * of that thread that ends inside the work's span, or the span's start.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2p.h"

/* PyTorch's names of gloo's point-to-point works (ProcessGroupGloo's
 * record_function of a send, a recv and a recv from any source). Its
 * collectives run on gloo's own threads, with the copies into and out of
 * their buffers inside them: those are the collective at work, and stay
 * whole. */
static const char *const names[] = { "gloo:send", "gloo:recv", "gloo:recvAnySource" };
enum { NNAMES = sizeof(names) / sizeof(names[0]) };

typedef struct span {
        size_t   ev;
        uint32_t track;
        tpa_ns   s, e;
        tpa_ns   last;          /* the latest end of another event of its thread
                                   before e (after the prefix pass) */
} span;

static int by_track_end(const void *pa, const void *pb)
{
        const span *x = pa, *y = pb;

        if (x->track != y->track)
                return (x->track > y->track) - (x->track < y->track);
        return (x->e > y->e) - (x->e < y->e);
}

static int by_event(const void *pa, const void *pb)
{
        const tpa_p2p_wait *x = pa, *y = pb;

        return (x->ev > y->ev) - (x->ev < y->ev);
}

static bool is_p2p(const tpa_str *ids, int nids, tpa_str name)
{
        for (int k = 0; k < nids; k++)
                if (name == ids[k])
                        return true;
        return false;
}

static bool p2p_span(const tpa_trace *tr, const tpa_event *e, const tpa_str *ids, int nids)
{
        return e->dur > 0 && is_p2p(ids, nids, e->name) &&
               tpa_trace_thread_c(tr, e->track)->role != TPA_TRACK_STREAM;
}

int tpa_p2p__waits(const tpa_trace *tr, tpa_p2p_wait **out, size_t *count, tpa_error *err)
{
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), nt = tpa_trace_thread_count(tr), m = 0;
        size_t *seg = NULL;
        span *sp = NULL;
        tpa_p2p_wait *w = NULL;
        tpa_str ids[NNAMES];
        int nids = 0;

        *out = NULL;
        *count = 0;
        for (int k = 0; k < NNAMES; k++)
                nids += tpa_trace_find_str(tr, &ids[nids], names[k], strlen(names[k]));
        if (nids == 0)
                return 0;
        for (size_t i = 0; i < n; i++)
                m += p2p_span(tr, &ev[i], ids, nids);
        if (m == 0)
                return 0;
        if ((sp = malloc(m * sizeof(*sp))) == NULL ||
            (seg = calloc(nt + 1, sizeof(*seg))) == NULL ||
            (w = malloc(m * sizeof(*w))) == NULL) {
                free(sp);
                free(seg);
                return tpa_error_oom(err);
        }
        m = 0;
        for (size_t i = 0; i < n; i++)
                if (p2p_span(tr, &ev[i], ids, nids))
                        sp[m++] = (span){ i, ev[i].track, ev[i].ts, ev[i].ts + ev[i].dur,
                                          INT64_MIN };
        qsort(sp, m, sizeof(*sp), by_track_end);
        /* seg[t] .. seg[t + 1]: the spans of track t */
        for (size_t j = 0; j < m; j++)
                seg[sp[j].track + 1]++;
        for (size_t t = 0; t < nt; t++)
                seg[t + 1] += seg[t];
        /* each other event of a thread with spans: its end counts for the
         * first span (by end) that ends after it, and, by the prefix pass
         * below, for every later one */
        for (size_t i = 0; i < n; i++) {
                const tpa_event *e = &ev[i];
                size_t lo, hi;
                tpa_ns end = e->ts + e->dur;

                if (e->track >= nt || seg[e->track] == seg[e->track + 1] ||
                    is_p2p(ids, nids, e->name))
                        continue;
                lo = seg[e->track];
                hi = seg[e->track + 1];
                while (lo < hi) {               /* first span with e > end */
                        size_t mid = lo + (hi - lo) / 2;
                        if (sp[mid].e > end)
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                if (lo < seg[e->track + 1] && end > sp[lo].last)
                        sp[lo].last = end;
        }
        for (size_t t = 0; t < nt; t++) {
                tpa_ns run = INT64_MIN;

                for (size_t j = seg[t]; j < seg[t + 1]; j++) {
                        if (sp[j].last > run)
                                run = sp[j].last;
                        w[j] = (tpa_p2p_wait){ sp[j].ev, run > sp[j].s ? run : sp[j].s };
                }
        }
        qsort(w, m, sizeof(*w), by_event);
        free(sp);
        free(seg);
        *out = w;
        *count = m;
        return 0;
}

tpa_ns tpa_p2p__from(const tpa_p2p_wait *w, size_t n, size_t ev, tpa_ns ts)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (w[mid].ev < ev)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < n && w[lo].ev == ev ? w[lo].from : ts;
}
