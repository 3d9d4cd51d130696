/* SPDX-License-Identifier: MIT */
/*
 * trace_build.h - (library-internal) the calls that build a tpa_trace:
 * interning strings, finding or creating processes and threads, adding
 * events and their extras, and recording format, runtime, job placement,
 * parse health and warnings. The readers (lib/parse/, lib/input/read.c)
 * and the classifier use them; everything else reads a trace through
 * <tpa/trace.h>, which is all a library user sees.
 */
#ifndef TPA_MODEL_TRACE_BUILD_H
#define TPA_MODEL_TRACE_BUILD_H

#include <tpa/trace.h>

/* Strings. Copies `s` (need not be NUL-terminated); the same bytes give
 * the same id. */
int tpa_trace__intern(tpa_trace *tr, tpa_str *out, const char *s, size_t len,
                      tpa_error *err);

/* Processes and threads are found or created by id. */
int tpa_trace__get_process(tpa_trace *tr, uint32_t *out, tpa_id pid, tpa_error *err);
int tpa_trace__get_thread(tpa_trace *tr, uint32_t *out, uint32_t process, tpa_id tid,
                          tpa_error *err);
/* As tpa_trace_process_c() and tpa_trace_thread_c(), to fill in. */
tpa_process *tpa_trace__process(tpa_trace *tr, uint32_t i);
tpa_thread  *tpa_trace__thread(tpa_trace *tr, uint32_t i);

/* Events. tpa_trace__add_event copies *ev and gives its index in *out_index
 * (which may be NULL). Fails with TPA_ELIMIT past max_events. */
int        tpa_trace__add_event(tpa_trace *tr, const tpa_event *ev, size_t *out_index,
                                tpa_error *err);
/* Room for `n` more events (fewer past max_events), for a reader that
 * knows how many may come, so that adding them moves none: a hint, which
 * does nothing when memory is short (adding the events then fails as
 * usual). The room's first 64 MiB, if it is 1 MiB or more, have their
 * pages faulted in on a thread of its own (with two CPUs or more) while
 * the reader adds events; it is done before the events move or go. */
void       tpa_trace__reserve_events(tpa_trace *tr, size_t n);
tpa_event *tpa_trace__events_mut(tpa_trace *tr);
/* Room to write events in place after the last, for a reader that adds
 * many (speed, bench/: a call and its checks per event): its start, and
 * in *n how many fit without moving the events (within max_events; 0:
 * add them as usual). tpa_trace__commit_events() adds the first k
 * written; until then nothing else may add events or extras. The rest of
 * the room, k further on, stays room until something else adds events. */
tpa_event *tpa_trace__event_room(tpa_trace *tr, size_t *n);
void       tpa_trace__commit_events(tpa_trace *tr, size_t k);
void       tpa_trace__set_max_events(tpa_trace *tr, uint64_t max);  /* 0: none */

/* Extras. Setting a key twice keeps the last value. */
int tpa_trace__set_aux(tpa_trace *tr, size_t event, tpa_aux_key key, int64_t value,
                       tpa_error *err);
/* An extra to set: the event and the value. */
typedef struct tpa_aux_set {
        size_t  event;
        int64_t value;
} tpa_aux_set;
/* tpa_trace__set_aux() of v[0..n), values of `key` for events in
 * increasing order that the trace holds none of yet (the caller looked):
 * without a search for each (speed, bench/: a search of a large trace's
 * extras is a few cache misses). */
int tpa_trace__set_new_aux(tpa_trace *tr, tpa_aux_key key, const tpa_aux_set *v, size_t n,
                           tpa_error *err);
/* OR `flags` into the event's TPA_AUX_FLAGS. */
int tpa_trace__add_flags(tpa_trace *tr, size_t event, unsigned flags, tpa_error *err);

/* What was read: format and dialect, runtime, the place in a job. */
void           tpa_trace__set_format(tpa_trace *tr, tpa_format f, tpa_dialect d);
void           tpa_trace__set_runtime(tpa_trace *tr, tpa_runtime r);
/* OR tpa_trace_fact bits into what the trace shows. */
void           tpa_trace__add_facts(tpa_trace *tr, unsigned facts);
tpa_dist_info *tpa_trace__dist_mut(tpa_trace *tr);
/* Mark process `process` as input `index`'s (a file written by `merge`);
 * the first name and dist info given for an index are kept. TPA_ELIMIT
 * past TPA_TRACK_MAX inputs. */
int tpa_trace__set_input(tpa_trace *tr, uint32_t process, uint32_t index,
                         const tpa_input_info *in, tpa_error *err);

/* The number of a reader's next step marker, into *out: `num`, or the
 * count of step numbers given so far when num < 0 (none in the input);
 * one taken already becomes one past the largest given (and at least the
 * count): a number names one step, and two inputs of one number (tfevents
 * records written without global_step, all 0) are two steps. */
int tpa_trace__step_number(tpa_trace *tr, int64_t num, int64_t *out, tpa_error *err);
/* How many step numbers tpa_trace__step_number() gave. */
size_t tpa_trace__step_numbers(const tpa_trace *tr);

/* Parse health, for the readers to count into. */
tpa_health *tpa_trace__health(tpa_trace *tr);

/* Record a non-fatal problem; identical messages are counted together. */
int tpa_trace__warn(tpa_trace *tr, uint64_t offset, const char *fmt, ...) TPA_PRINTF(3, 4);

#endif
