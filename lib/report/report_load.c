/* SPDX-License-Identifier: MIT */
/*
 * report_load.c - read a saved JSON report (report_json.c) back into a
 * tpa_run for diff and check: the kept steps (time, group fractions,
 * class), the run's medians and class, the top device ops and the run
 * metrics. A report is small (kilobytes), so it is read whole with
 * yajl_tree; a syntax error is located by a second, callback-free pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "tpa/report.h"
#include "analysis/results_build.h"
#include "input/source.h"
#include "model/utf8.h"

#define REPORT_MAX_BYTES (256u << 20)

/* gzip's magic bytes lead the data. */
static bool gzip_data(const void *data, size_t size)
{
        return size >= 2 && memcmp(data, "\x1f\x8b", 2) == 0;
}

/* The text of a report given in memory, inflated when gzip-compressed
 * (a report.json.gz piped in): *text is data itself or a copy to free. */
static int report_text(const void *data, size_t size, uint8_t **copy, const void **text,
                       size_t *len, tpa_error *err)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_source *src = NULL;
        int rc;

        *copy = NULL;
        if (!gzip_data(data, size)) {
                *text = data;
                *len = size;
                return 0;
        }
        if ((rc = tpa_source__open_memory(&src, data, size, &ro, err)) < 0)
                return rc;
        rc = tpa_source__read_all(src, copy, len, REPORT_MAX_BYTES, err);
        tpa_source__free(src);
        *text = *copy;
        return rc;
}

bool tpa_report_sniff_memory(const void *data, size_t size)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_source *src = NULL;
        const uint8_t *head;
        size_t n = 0;
        bool is = false;

        if (!gzip_data(data, size))
                return tpa_report_sniff(data, size);
        if (tpa_source__open_memory(&src, data, size, &ro, NULL) < 0)
                return false;
        if (tpa_source__peek(src, &head, &n, 512, NULL) >= 0)
                is = tpa_report_sniff(head, n);
        tpa_source__free(src);
        return is;
}

bool tpa_report_sniff(const void *data, size_t size)
{
        const char *p = data, *end = p + size;
        static const char key[] = "\"schema\"", ours[] = "\"tfprof-analyze/";

        if (size >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
                p += 3;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
        if (p == end || *p++ != '{')
                return false;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
        if ((size_t)(end - p) < sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1) != 0)
                return false;
        /* and its value names this tool: PyTorch's execution trace
         * (ExecutionTraceObserver) begins {"schema": "1.1.1-chakra...",
         * and is no report of ours of another version */
        p += sizeof(key) - 1;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
        if (p == end || *p++ != ':')
                return false;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
        return (size_t)(end - p) >= sizeof(ours) - 1 && memcmp(p, ours, sizeof(ours) - 1) == 0;
}

static yajl_val get(yajl_val obj, const char *key)
{
        const char *path[] = { key, NULL };
        return obj != NULL ? yajl_tree_get(obj, path, yajl_t_any) : NULL;
}

static int bad(tpa_error *err, const char *what, const char *key)
{
        return tpa_error_setf(err, TPA_EFORMAT, "not a tfprof-analyze report: '%s' %s",
                              key, what);
}

static bool is_integer(yajl_val v)
{
        return YAJL_IS_INTEGER(v);
}

static bool is_number(yajl_val v)
{
        return YAJL_IS_NUMBER(v);
}

static bool is_string(yajl_val v)
{
        return YAJL_IS_STRING(v);
}

/* obj's `key` in *out, checked: TPA_EFORMAT, naming `where` + `key`, when
 * it is missing, or when it is not null (where `null_ok`) and `is_type`
 * is false of it, `type` saying what it should be. *out is NULL for null. */
static int get_value(yajl_val obj, const char *key, const char *where, bool null_ok,
                     bool (*is_type)(yajl_val), const char *type, yajl_val *out,
                     tpa_error *err)
{
        yajl_val v = get(obj, key);
        char full[96];

        snprintf(full, sizeof(full), "%s%s", where, key);
        if (v == NULL)
                return bad(err, "is missing", full);
        if (null_ok && YAJL_IS_NULL(v)) {
                *out = NULL;
                return 0;
        }
        if (!is_type(v))
                return bad(err, type, full);
        *out = v;
        return 0;
}

/* A number: an integer into *i when i is not NULL, else any number into
 * *d, where null reads as 0. */
static int get_number(yajl_val obj, const char *key, const char *where, int64_t *i,
                      double *d, tpa_error *err)
{
        yajl_val v = NULL;
        int rc = i != NULL
                 ? get_value(obj, key, where, false, is_integer, "is not an integer", &v, err)
                 : get_value(obj, key, where, true, is_number, "is not a number", &v, err);

        if (rc == 0 && i != NULL)
                *i = YAJL_GET_INTEGER(v);
        else if (rc == 0)
                *d = v != NULL ? YAJL_GET_DOUBLE(v) : 0;
        return rc;
}

/* NULL stays NULL; a string is copied. */
static int get_str(yajl_val obj, const char *key, const char *where, char **out,
                   tpa_error *err)
{
        yajl_val v = NULL;
        int rc = get_value(obj, key, where, true, is_string, "is not a string", &v, err);

        if (rc < 0)
                return rc;
        if (v == NULL) {
                *out = NULL;
                return 0;
        }
        *out = strdup(v->u.string);
        if (*out == NULL)
                return tpa_error_oom(err);
        return 0;
}

static int group_fracs(yajl_val obj, const char *where, double *out, tpa_error *err)
{
        char w[64];

        if (obj == NULL || !YAJL_IS_OBJECT(obj))
                return bad(err, "is not an object", where);
        snprintf(w, sizeof(w), "%s.", where);
        for (int g = 0; g < TPA_GROUP__COUNT; g++) {
                int rc = get_number(obj, tpa_group_name((tpa_group)g), w, NULL, &out[g], err);
                if (rc < 0)
                        return rc;
        }
        return 0;
}

/* summary.findings: what re-rendering a report shows beside the figures. */
static int load_findings(tpa_run *r, yajl_val arr, tpa_error *err)
{
        static const char *const severities[] = { "info", "warning", "error" };
        const char *w = "summary.findings[].";
        int rc;

        if (arr == NULL || !YAJL_IS_ARRAY(arr))
                return bad(err, "is not an array", "summary.findings");
        r->findings = calloc(arr->u.array.len + 1, sizeof(*r->findings));
        if (r->findings == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < arr->u.array.len; i++) {
                yajl_val f = arr->u.array.values[i];
                tpa_run_finding *d = &r->findings[r->finding_count];
                char *severity = NULL;
                int k;

                if (!YAJL_IS_OBJECT(f))
                        return bad(err, "is not an object", "summary.findings[]");
                r->finding_count++;
                if ((rc = get_str(f, "name", w, &d->name, err)) < 0 ||
                    (rc = get_str(f, "message", w, &d->message, err)) < 0 ||
                    (rc = get_str(f, "severity", w, &severity, err)) < 0 ||
                    (rc = get_number(f, "gain_frac", w, NULL, &d->gain_frac, err)) < 0) {
                        free(severity);
                        return rc;
                }
                if (YAJL_IS_NULL(get(f, "gain_frac")))
                        d->gain_frac = -1;
                for (k = 0; k < 3 && (severity == NULL || strcmp(severity, severities[k])); k++)
                        ;
                free(severity);
                if (k == 3 || d->name == NULL || d->message == NULL)
                        return bad(err, "is not a finding", "summary.findings[]");
                d->severity = (tpa_severity)k;
        }
        return 0;
}

static int load_tree(tpa_run *r, yajl_val root, tpa_error *err)
{
        yajl_val schema = get(root, "schema"), summary, steps, ops, metrics;
        int64_t v;
        int rc;

        if (schema == NULL || !YAJL_IS_STRING(schema))
                return bad(err, "is missing", "schema");
        if (strcmp(schema->u.string, TPA_REPORT_SCHEMA) != 0) {
                /* at most 60 bytes of it, cut between characters (the
                 * message's control bytes become '?' in tpa_error_setf()) */
                const char *q = schema->u.string;
                size_t n = strlen(q);
                return tpa_error_setf(err, TPA_EFORMAT, "report schema '%.*s' is not '%s': "
                                      "analyze the trace again with this version",
                                      (int)(n > 60 ? tpa_utf8__cut(q, 60) : n), q,
                                      TPA_REPORT_SCHEMA);
        }
        /* reports before the key were written by versions that had it false
         * or not at all: absent reads as false */
        r->no_markers = get(root, "no_step_markers") != NULL &&
                        YAJL_IS_TRUE(get(root, "no_step_markers"));
        summary = get(root, "summary");
        if (summary == NULL || !YAJL_IS_OBJECT(summary))
                return bad(err, "is not an object", "summary");
        if ((rc = get_number(summary, "step_time_median_ns", "summary.", &v, NULL, err)) < 0)
                return rc;
        r->step_time_median = v;
        if ((rc = get_number(summary, "step_time_p90_ns", "summary.", &v, NULL, err)) < 0)
                return rc;
        r->step_time_p90 = v;
        if ((rc = get_str(summary, "class", "summary.", &r->run_class, err)) < 0 ||
            (rc = get_str(summary, "no_verdict_reason", "summary.", &r->no_verdict, err)) < 0)
                return rc;
        if ((rc = group_fracs(get(summary, "group_frac"), "summary.group_frac",
                              r->run_group_frac, err)) < 0)
                return rc;

        steps = get(root, "steps");
        if (steps == NULL || !YAJL_IS_ARRAY(steps))
                return bad(err, "is not an array", "steps");
        r->steps = calloc(steps->u.array.len + 1, sizeof(*r->steps));
        if (r->steps == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < steps->u.array.len; i++) {
                yajl_val s = steps->u.array.values[i], ex;
                tpa_run_step *d = &r->steps[r->step_count];
                char where[48];

                snprintf(where, sizeof(where), "steps[%zu].", i);
                if (!YAJL_IS_OBJECT(s))
                        return bad(err, "is not an object", where);
                ex = get(s, "excluded");
                if (ex == NULL || !(YAJL_IS_TRUE(ex) || YAJL_IS_FALSE(ex)))
                        return bad(err, "is not true or false", "steps[].excluded");
                if (YAJL_IS_TRUE(ex))
                        continue;
                if ((rc = get_number(s, "number", where, &d->number, NULL, err)) < 0 ||
                    (rc = get_number(s, "step_time_ns", where, &d->step_time, NULL, err)) < 0)
                        return rc;
                strcat(where, "group_frac");
                if ((rc = group_fracs(get(s, "group_frac"), where, d->group_frac, err)) < 0)
                        return rc;
                r->step_count++;
                if ((rc = get_str(s, "class", "steps[].", &d->class_name, err)) < 0)
                        return rc;
        }

        ops = get(get(root, "top_ops"), "device");
        if (ops == NULL || !YAJL_IS_ARRAY(ops))
                return bad(err, "is not an array", "top_ops.device");
        r->ops = calloc(ops->u.array.len + 1, sizeof(*r->ops));
        if (r->ops == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < ops->u.array.len; i++) {
                yajl_val o = ops->u.array.values[i];
                tpa_run_op *d = &r->ops[r->op_count];
                int64_t count;

                if (!YAJL_IS_OBJECT(o))
                        return bad(err, "is not an object", "top_ops.device[]");
                if ((rc = get_number(o, "time_ns", "top_ops.device[].", &d->time, NULL, err)) < 0 ||
                    (rc = get_number(o, "count", "top_ops.device[].", &count, NULL, err)) < 0 ||
                    (rc = get_number(o, "frac", "top_ops.device[].", NULL, &d->frac, err)) < 0)
                        return rc;
                d->count = (uint64_t)count;
                r->op_count++;
                if ((rc = get_str(o, "name", "top_ops.device[].", &d->name, err)) < 0)
                        return rc;
                if (d->name == NULL)
                        return bad(err, "is null", "top_ops.device[].name");
        }

        /* a report keeps the top ops only: an op not in it may have run */
        r->ops_partial = true;

        if ((rc = load_findings(r, get(summary, "findings"), err)) < 0 ||
            (rc = get_str(get(root, "input"), "path", "input.", &r->trace_path, err)) < 0)
                return rc;

        metrics = get(root, "metrics");
        if (metrics == NULL || !YAJL_IS_OBJECT(metrics))
                return bad(err, "is not an object", "metrics");
        r->metrics = calloc(metrics->u.object.len + 1, sizeof(*r->metrics));
        if (r->metrics == NULL)
                return tpa_error_oom(err);
        for (size_t i = 0; i < metrics->u.object.len; i++) {
                yajl_val m = metrics->u.object.values[i];
                tpa_run_metric *d = &r->metrics[r->metric_count];
                if (YAJL_IS_NULL(m))
                        continue;
                if (!YAJL_IS_NUMBER(m))
                        return bad(err, "is not a number", metrics->u.object.keys[i]);
                d->value = YAJL_GET_DOUBLE(m);
                d->name = strdup(metrics->u.object.keys[i]);
                if (d->name == NULL)
                        return tpa_error_oom(err);
                r->metric_count++;
        }
        return 0;
}

/* Where the syntax goes wrong: yajl_tree says what, a bare yajl parse says
 * where (bytes consumed when it stopped). */
static int syntax_error(const char *text, size_t size, const char *what, tpa_error *err)
{
        yajl_handle h = yajl_alloc(NULL, NULL, NULL);
        uint64_t off = size;
        char msg[120];
        size_t n;

        if (h != NULL) {
                if (yajl_parse(h, (const unsigned char *)text, size) != yajl_status_ok)
                        off = yajl_get_bytes_consumed(h);
                else if (yajl_complete_parse(h) != yajl_status_ok)
                        off = size;
                yajl_free(h);
        }
        /* yajl's message is "lexical error: ..." plus an arrow display on
         * later lines: keep the first line only. */
        snprintf(msg, sizeof(msg), "%s", what[0] ? what : "invalid JSON");
        n = strcspn(msg, "\n");
        msg[n] = '\0';
        /* another report after the first: --format json of a logdir's
         * several hosts writes one each */
        if (strstr(msg, "trailing garbage") != NULL && off <= size) {
                size_t j = (size_t)off;
                /* yajl stops past the second one's '{' */
                while (j > 0 && text[j - 1] != '{' && strchr(" \t\r\n", text[j - 1]) != NULL)
                        j--;
                if (j > 0 && text[j - 1] == '{')
                        j--;
                if (j < size && tpa_report_sniff(text + j, size - j))
                        return tpa_error_set(err, TPA_EFORMAT, j, "several reports one after "
                                             "another (one per host of a logdir run): give "
                                             "one host's report");
        }
        return tpa_error_set(err, TPA_EFORMAT, off, "report is not valid JSON: %s", msg);
}

static int load_text(tpa_run **out, const void *data, size_t size, tpa_error *err)
{
        char *text, ebuf[256] = "";
        yajl_val root;
        tpa_run *r;
        int rc;

        if (!tpa_report_sniff(data, size))
                return tpa_error_set(err, TPA_EFORMAT, 0,
                                     "not a tfprof-analyze report (no leading \"schema\" key)");
        text = malloc(size + 1);
        if (text == NULL)
                return tpa_error_oom(err);
        memcpy(text, data, size);
        text[size] = '\0';
        if (memchr(text, '\0', size) != NULL) {
                rc = tpa_error_set(err, TPA_EFORMAT,
                                   (uint64_t)((char *)memchr(text, '\0', size) - text),
                                   "report is not valid JSON: a NUL byte");
                free(text);
                return rc;
        }
        root = yajl_tree_parse(text, ebuf, sizeof(ebuf));
        if (root == NULL) {
                rc = syntax_error(text, size, ebuf, err);
                free(text);
                return rc;
        }
        free(text);
        if (!YAJL_IS_OBJECT(root)) {
                yajl_tree_free(root);
                return bad(err, "is not an object", "(top level)");
        }
        if ((rc = tpa_run__new(&r, err)) < 0) {
                yajl_tree_free(root);
                return rc;
        }
        rc = load_tree(r, root, err);
        yajl_tree_free(root);
        if (rc < 0) {
                tpa_run_free(r);
                return rc;
        }
        *out = r;
        return 0;
}

int tpa_report_load_memory(tpa_run **out, const void *data, size_t size, tpa_error *err)
{
        uint8_t *copy;
        const void *text;
        size_t len;
        int rc = report_text(data, size, &copy, &text, &len, err);

        if (rc >= 0)
                rc = load_text(out, text, len, err);
        free(copy);
        return rc;
}

int tpa_report_load(tpa_run **out, const char *path, tpa_error *err)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_source *src = NULL;
        uint8_t *buf = NULL;
        size_t len = 0;
        int rc;

        /* a report kept gzip-compressed (r.json.gz, as CI keeps artifacts)
         * is read as a trace is: inflated */
        if ((rc = tpa_source__open(&src, path, &ro, err)) < 0)
                return rc;
        rc = tpa_source__read_all(src, &buf, &len, REPORT_MAX_BYTES, err);
        if (rc >= 0)
                rc = tpa_report_load_memory(out, buf, len, err);
        tpa_source__free(src);
        free(buf);
        return rc;
}

bool tpa_report_is_file(const char *path)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_source *src = NULL;
        const uint8_t *head;
        size_t n = 0;
        bool is = false;

        if (tpa_source__open(&src, path, &ro, NULL) < 0)
                return false;
        if (tpa_source__peek(src, &head, &n, 512, NULL) >= 0)
                is = tpa_report_sniff(head, n);
        tpa_source__free(src);
        return is;
}
