/* SPDX-License-Identifier: MIT */
/* render.h - the --format dispatch shared by analyze, diff and check. */
#ifndef TPA_CLI_RENDER_H
#define TPA_CLI_RENDER_H

#include <stdio.h>

#include <tpa/tpa.h>

#include "opts.h"

/* True for --format text (or none). */
bool cli_render_is_text(const cli_args *args);
/* Render one analysed trace in args->format into fp; an exit code. */
int  cli_render(FILE *fp, const cli_args *args, const tpa_trace *tr, const tpa_analysis *a,
                const char *path);
/* Render the saved report at `path`, loaded as `r`; an exit code. */
int  cli_render_saved(FILE *fp, const cli_args *args, const tpa_run *r, const char *path);

#endif
