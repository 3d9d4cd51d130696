/* SPDX-License-Identifier: MIT */
/*
 * p2p.h - (library-internal) where gloo's point-to-point works begin to
 * block the thread that posted them (doc/design.md 5.3). PyTorch records
 * an isend/irecv (and the work of a blocking send/recv, and each of
 * batch_isend_irecv's) as a span on the posting thread, "gloo:send",
 * "gloo:recv", "gloo:recvAnySource", from the posting to the end of
 * Work.wait(): a work in flight while the thread goes on (a pipeline stage
 * computing its next micro-batch) is no wait. The thread's wait is the
 * span's part after the last event of that thread ending inside it; the
 * analysis and the rank summary (rank.c) take that part for the collective.
 */
#ifndef TPA_P2P_H
#define TPA_P2P_H

#include <stddef.h>

#include <tpa/trace.h>

/* A point-to-point work's span, event `ev`, blocks from `from` on. */
typedef struct tpa_p2p_wait {
        size_t ev;
        tpa_ns from;
} tpa_p2p_wait;

/* The waits of the trace's point-to-point spans on threads that are not
 * device streams, in event order, into *out (malloc'd; NULL and 0 when
 * there are none: a trace without these names costs a look-up of each).
 * One pass over the events to find them and one over the events of their
 * threads: O(n log m) for m spans. */
int    tpa_p2p__waits(const tpa_trace *tr, tpa_p2p_wait **out, size_t *count,
                      tpa_error *err);

/* The start of event ev's blocking part: its wait's `from`, or `ts`, its
 * own start, when it is none of the n waits w (in event order). */
tpa_ns tpa_p2p__from(const tpa_p2p_wait *w, size_t n, size_t ev, tpa_ns ts);

#endif
