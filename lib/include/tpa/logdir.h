/* SPDX-License-Identifier: MIT */
/*
 * tpa/logdir.h - TensorBoard logdirs (doc/design.md 3): the profile runs under
 * <logdir>/.../plugins/profile/<run>/ and, in each, one trace file per host.
 *
 * A host with both <host>.xplane.pb and <host>.trace.json.gz gets the
 * xplane.pb: the two read into the same events (tests/corpus checks every
 * session we have), and the XSpace holds every event where the trace
 * viewer's JSON stops at its event cap. So does the XSpace that
 * `python -m jax.collect_profile` wrote beside its conversion,
 * remote.trace.json.gz (no remote.xplane.pb there): one host, not two.
 *
 * PyTorch's tensorboard_trace_handler writes a file per profiling cycle and
 * worker, <worker>.<time>.pt.trace.json[.gz], in a folder of the run's
 * (TensorBoard's PyTorch plugin reads <logdir>/<run>/): any folder below
 * the logdir that holds such files is a run, and one where a worker wrote
 * several is a run per cycle, "<folder>:span<k>" holding the k-th file of
 * each worker.
 */
#ifndef TPA_LOGDIR_H
#define TPA_LOGDIR_H

#include "common.h"

typedef struct tpa_logdir_host {
        char *name;             /* "d1792a5a2842" */
        char *path;             /* the file to read */
} tpa_logdir_host;

typedef struct tpa_logdir_run {
        char            *name;  /* the run folder, "2020_12_22_03_28_27"; a
                                   cycle of a PyTorch schedule: "log:span2" */
        char            *label; /* its path below the logdir, for listings */
        tpa_logdir_host *hosts; /* sorted by name */
        size_t           host_count;
        uint64_t         time;  /* PyTorch handler files: the newest one's time
                                   (ns since 1970), by which such runs sort;
                                   0: a TF run, sorted by name */
} tpa_logdir_run;

typedef struct tpa_logdir {
        tpa_logdir_run *runs;   /* oldest first: TF runs by name (TF names runs by
                                   time), then label; then PyTorch runs by time */
        size_t          run_count;
        char          **warnings;       /* what the scan skipped, one line each */
        size_t          warning_count;
} tpa_logdir;

/* True when `path` is a directory. */
bool tpa_logdir_is_dir(const char *path);

/* Find every profile run below `dir` (at most 8 levels down). Symbolic
 * links are followed, but every directory is looked at once and never one
 * outside `dir` (a link out is a warning). Runs with no trace file are left
 * out, and so are trace names that are not regular files (a fifo would
 * block the read; a warning each). Fails with TPA_EFORMAT when there is no
 * run. On success free *out with tpa_logdir_free(). */
int  tpa_logdir_scan(tpa_logdir **out, const char *dir, tpa_error *err);
/* The run called `name` (its folder name or its label; a run joined of
 * folders of adjacent seconds, any of theirs), or the newest when `name`
 * is NULL; NULL when there is no such run. */
const tpa_logdir_run *tpa_logdir_find_run(const tpa_logdir *ld, const char *name);
void tpa_logdir_free(tpa_logdir *ld);           /* NULL is a no-op */

#endif
