/* SPDX-License-Identifier: MIT */
/*
 * readers.h - (library-internal) one entry point per format. Each reads the
 * whole source into `tr` and sets its format and dialect. On error, `err`
 * says where; what was read stays in `tr` (the caller does not report it).
 */
#ifndef TPA_INPUT_READERS_H
#define TPA_INPUT_READERS_H

#include "input/source.h"

int tpa_chrome__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                     tpa_error *err);
int tpa_xspace__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                     tpa_error *err);
int tpa_stepstats__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                        tpa_error *err);
int tpa_stepstats_text__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                             tpa_error *err);
int tpa_tfevents__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                       tpa_error *err);

/* The regular files directly in `dir`, sorted by name, as malloc'd paths
 * in a malloc'd array (free each, then the array). */
int tpa_logdir__list_files(char ***out, size_t *count, const char *dir, tpa_error *err);

#endif
