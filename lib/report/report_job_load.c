/* SPDX-License-Identifier: MIT */
/*
 * report_job_load.c - read the `distributed` object of a saved JSON report
 * back into a tpa_rank, for `aggregate`. The object comes right after
 * `schema` and `tool`, so the reader streams the file through yajl and
 * stops when the object closes: a report of many steps costs what its
 * first kilobytes cost, and 10,000 of them aggregate in seconds (bench/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "tpa/report.h"
#include "analysis/results_build.h"
#include "input/source.h"

enum where { W_TOP, W_DIST, W_LAUNCH, W_STREAMS, W_STREAM, W_STEPS, W_STEP };

typedef struct loader {
        tpa_rank  *r;
        tpa_error *err;
        int        depth;
        enum where at;
        char       key[32];
        bool       first_key_seen, schema_ok, done, oom;
        size_t     stream_cap, step_cap;
} loader;

/* Cancel the parse with `what` as the error. */
static int fail(loader *l, const char *what)
{
        tpa_error_setf(l->err, TPA_EFORMAT, "%s", what);
        return 0;
}

static bool is(const loader *l, const char *k)
{
        return strcmp(l->key, k) == 0;
}

static char *dup_n(loader *l, const unsigned char *s, size_t len)
{
        char *p = malloc(len + 1);

        if (p == NULL) {
                l->oom = true;
                return NULL;
        }
        memcpy(p, s, len);
        p[len] = '\0';
        return p;
}

static int on_int(void *ctx, long long v)
{
        loader *l = ctx;
        tpa_rank *r = l->r;

        if (l->at == W_DIST) {
                if (is(l, "rank"))
                        r->rank = v;
                else if (is(l, "world_size"))
                        r->world_size = v;
                else if (is(l, "comm_ns"))
                        r->comm_ns = v;
                else if (is(l, "wall_start_ns"))
                        r->wall_start_ns = v;
                else if (is(l, "wall_end_ns"))
                        r->wall_end_ns = v;
                else if (is(l, "overlap_ns"))
                        r->overlap_ns = v;
        } else if (l->at == W_LAUNCH) {
                if (is(l, "count"))
                        r->launch_count = (uint64_t)v;
                else if (is(l, "delay_median_ns"))
                        r->launch_delay_median = v;
                else if (is(l, "delay_p90_ns"))
                        r->launch_delay_p90 = v;
                else if (is(l, "delay_max_ns"))
                        r->launch_delay_max = v;
        } else if (l->at == W_STREAM) {
                tpa_rank_stream *s = &r->streams[r->stream_count - 1];
                if (is(l, "queue_max"))
                        s->queue_max = v;
                else if (is(l, "queue_mean"))
                        s->queue_mean = (double)v;
        } else if (l->at == W_STEP) {
                tpa_rank_step *s = &r->steps[r->step_count - 1];
                if (is(l, "number"))
                        s->number = v;
                else if (is(l, "step_time_ns"))
                        s->step_time = v;
                else if (is(l, "collective_ns"))
                        s->collective = v;
        }
        return 1;
}

static int on_double(void *ctx, double v)
{
        loader *l = ctx;

        if (l->at == W_STREAM && is(l, "queue_mean"))
                l->r->streams[l->r->stream_count - 1].queue_mean = v;
        return 1;
}

static int on_bool(void *ctx, int v)
{
        loader *l = ctx;

        if (l->at == W_STEP && is(l, "excluded"))
                l->r->steps[l->r->step_count - 1].excluded = v != 0;
        return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
        loader *l = ctx;
        char **slot = NULL;

        if (l->at == W_TOP && l->depth == 1 && is(l, "schema")) {
                l->schema_ok = len == strlen(TPA_REPORT_SCHEMA) &&
                               memcmp(s, TPA_REPORT_SCHEMA, len) == 0;
                if (!l->schema_ok)
                        return fail(l, "a report of another schema (this one reads '"
                                    TPA_REPORT_SCHEMA "')");
                return 1;
        }
        if (l->at == W_DIST && is(l, "backend"))
                slot = &l->r->backend;
        else if (l->at == W_DIST && is(l, "path"))
                slot = &l->r->path;
        else if (l->at == W_STREAM && is(l, "name"))
                slot = &l->r->streams[l->r->stream_count - 1].name;
        else if (l->at == W_STEP && is(l, "class"))
                slot = &l->r->steps[l->r->step_count - 1].class_name;
        if (slot != NULL && *slot == NULL && (*slot = dup_n(l, s, len)) == NULL)
                return 0;
        return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
        loader *l = ctx;

        if (l->depth == 1 && !l->first_key_seen) {
                l->first_key_seen = true;
                if (len != 6 || memcmp(s, "schema", 6) != 0)
                        return fail(l, "not a tfprof-analyze report: 'schema' is not its "
                                    "first key");
        }
        if (len >= sizeof(l->key))
                len = sizeof(l->key) - 1;
        memcpy(l->key, s, len);
        l->key[len] = '\0';
        return 1;
}

/* Room for one more element of a growing array. */
static bool grow(loader *l, void **p, size_t *cap, size_t n, size_t size)
{
        void *q;

        if (n < *cap)
                return true;
        *cap = *cap ? *cap * 2 : 16;
        if ((q = realloc(*p, *cap * size)) == NULL) {
                l->oom = true;
                return false;
        }
        *p = q;
        return true;
}

static int on_start_map(void *ctx)
{
        loader *l = ctx;
        tpa_rank *r = l->r;

        l->depth++;
        if (l->at == W_TOP && l->depth == 2 && is(l, "distributed")) {
                l->at = W_DIST;
        } else if (l->at == W_DIST && l->depth == 3 && is(l, "launch")) {
                l->at = W_LAUNCH;
        } else if (l->at == W_STREAMS && l->depth == 4) {
                if (!grow(l, (void **)&r->streams, &l->stream_cap, r->stream_count,
                          sizeof(*r->streams)))
                        return 0;
                memset(&r->streams[r->stream_count++], 0, sizeof(*r->streams));
                l->at = W_STREAM;
        } else if (l->at == W_STEPS && l->depth == 4) {
                if (!grow(l, (void **)&r->steps, &l->step_cap, r->step_count,
                          sizeof(*r->steps)))
                        return 0;
                memset(&r->steps[r->step_count++], 0, sizeof(*r->steps));
                l->at = W_STEP;
        }
        l->key[0] = '\0';
        return 1;
}

static int on_end_map(void *ctx)
{
        loader *l = ctx;

        if (l->at == W_DIST && l->depth == 2) {
                l->done = true;
                return 0;               /* the rest of the report is not needed */
        }
        if (l->at == W_LAUNCH && l->depth == 3)
                l->at = W_DIST;
        else if (l->at == W_STREAM && l->depth == 4)
                l->at = W_STREAMS;
        else if (l->at == W_STEP && l->depth == 4)
                l->at = W_STEPS;
        l->depth--;
        return 1;
}

static int on_start_array(void *ctx)
{
        loader *l = ctx;

        l->depth++;
        if (l->at == W_DIST && l->depth == 3 && is(l, "streams"))
                l->at = W_STREAMS;
        else if (l->at == W_DIST && l->depth == 3 && is(l, "steps"))
                l->at = W_STEPS;
        return 1;
}

static int on_end_array(void *ctx)
{
        loader *l = ctx;

        if ((l->at == W_STREAMS || l->at == W_STEPS) && l->depth == 3)
                l->at = W_DIST;
        l->depth--;
        return 1;
}

static int on_null(void *ctx)
{
        (void)ctx;
        return 1;
}

static const yajl_callbacks callbacks = {
        on_null, on_bool, on_int, on_double, NULL, on_string,
        on_start_map, on_key, on_end_map, on_start_array, on_end_array,
};

int tpa_report_load_rank(tpa_rank **out, const char *path, tpa_error *err)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        loader l = { .err = err };
        yajl_handle h = NULL;
        yajl_status st = yajl_status_ok;
        tpa_source *src = NULL;
        bool read_error = false;
        int rc;

        /* gzip-compressed (r.json.gz) or not, as a trace is read */
        if ((rc = tpa_source__open(&src, path, &ro, err)) < 0)
                return rc;
        if ((rc = tpa_rank__new(&l.r, err)) < 0) {
                tpa_source__free(src);
                return rc;
        }
        if ((h = yajl_alloc(&callbacks, NULL, &l)) == NULL) {
                rc = tpa_error_oom(err);
                goto done;
        }
        while (st == yajl_status_ok) {
                const uint8_t *buf;
                size_t n = 0;

                if (tpa_source__read(src, &buf, &n, err) < 0) {
                        read_error = true;
                        break;
                }
                if (n == 0)
                        break;
                st = yajl_parse(h, buf, n);
        }
        if (read_error) {
                rc = err != NULL && err->code != TPA_OK ? err->code : TPA_EIO;
        } else if (l.oom) {
                rc = tpa_error_oom(err);
        } else if (l.done) {
                rc = 0;
        } else if (err->code != TPA_OK) {
                rc = err->code;         /* a callback said what is wrong */
        } else if (st == yajl_status_error) {
                rc = tpa_error_set(err, TPA_EFORMAT, yajl_get_bytes_consumed(h),
                                   "not a tfprof-analyze report: invalid JSON");
        } else {
                rc = tpa_error_setf(err, TPA_EFORMAT, "the report has no 'distributed' object "
                                    "(a report from before schema %s?)", TPA_REPORT_SCHEMA);
        }
done:
        if (h != NULL)
                yajl_free(h);
        tpa_source__free(src);
        if (rc < 0) {
                tpa_rank_free(l.r);
                return rc;
        }
        *out = l.r;
        return 0;
}
