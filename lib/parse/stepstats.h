/* SPDX-License-Identifier: MIT */
/*
 * stepstats.h - (library-internal) one StepStats into the event model, as
 * one step: shared by the RunMetadata reader and the tfevents reader, whose
 * tagged_run_metadata records hold serialized RunMetadata.
 */
#ifndef TPA_PARSE_STEPSTATS_H
#define TPA_PARSE_STEPSTATS_H

#include <tpa/read.h>

#include "step_stats.pb-c.h"

/* Add the node stats of `ss` to `tr` plus one STEP event spanning them,
 * named `step_name` (NULL: "step N") with step number `step_num` (< 0: the
 * number of steps the trace holds so far). Then classify with the TF1
 * tables and set the format to `format`. */
int tpa_stepstats__add(tpa_trace *tr, const Tpapb__StepStats *ss, const char *step_name,
                       int64_t step_num, tpa_format format, tpa_error *err);

/* One more step of the events [first, last) of `tr`, classified already:
 * a STEP event spanning them, as tpa_stepstats__add() makes for a
 * StepStats (a TF1 timeline's Chrome trace is one Session.run's). */
int tpa_stepstats__mark(tpa_trace *tr, size_t first, size_t last, tpa_error *err);

/* Unpack a serialized RunMetadata (or a bare StepStats) with an arena of
 * at most `limit` bytes, add it as above, free it. `offset` is where the
 * bytes start in the stream, for messages. */
int tpa_stepstats__add_bytes(tpa_trace *tr, const uint8_t *data, size_t len, uint64_t limit,
                             const char *step_name, int64_t step_num, tpa_format format,
                             uint64_t offset, tpa_error *err);

#endif
