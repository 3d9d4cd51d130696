/* SPDX-License-Identifier: MIT */
/*
 * tpa/chrome_writer.h - write traces as Chrome trace JSON that
 * chrome://tracing and Perfetto load, and that tpa_read_path() reads back
 * into the same events (convert, merge; doc/design.md 7):
 *
 *   {"displayTimeUnit":"ns","traceEvents":[ M process/thread names,
 *    X events with ts/dur in us printed exactly from ns, args ]}
 *
 * Output streams as it is written, gzipped when asked.
 */
#ifndef TPA_CHROME_WRITER_H
#define TPA_CHROME_WRITER_H

#include <stdio.h>

#include "trace.h"

typedef struct tpa_chrome_writer tpa_chrome_writer;

/* Create `path` ("-": standard output) and write the JSON head; a path
 * ending in ".gz" is gzipped. The file is written in place: a caller that
 * must never leave half a file writes to a temporary one with
 * tpa_chrome_writer_open_stream() and renames it. */
int  tpa_chrome_writer_open(tpa_chrome_writer **out, const char *path, tpa_error *err);
/* Write to `fp`, which stays the caller's: close flushes it, and neither
 * close nor abort closes it. `gzip` makes the output one gzip member.
 * `name` is what error messages call the output (NULL: "standard
 * output"); it is copied. */
int  tpa_chrome_writer_open_stream(tpa_chrome_writer **out, FILE *fp, bool gzip,
                                   const char *name, tpa_error *err);
/* Write every process, thread and event of `tr`. With a NULL `label`
 * (convert) pids and tids are the input's own; with a label (merge) it is
 * added to each process' labels ("GPU 0, a.json"; names stay as they are,
 * so the merged file reads back with its devices); pids are renumbered and
 * correlation and group ids moved past those of earlier calls, so that no
 * id of one input ties its events to another's. Fails with TPA_ELIMIT when
 * the ids of all inputs together pass 2^32. */
int  tpa_chrome_writer_add(tpa_chrome_writer *w, const tpa_trace *tr, const char *label,
                           tpa_error *err);
/* Write the JSON tail, flush and close; frees `w` whatever happens. */
int  tpa_chrome_writer_close(tpa_chrome_writer *w, tpa_error *err);
/* Give up: close, remove a file created by tpa_chrome_writer_open(), free.
 * NULL is a no-op. */
void tpa_chrome_writer_abort(tpa_chrome_writer *w);

#endif
