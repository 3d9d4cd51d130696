/* SPDX-License-Identifier: MIT */
/*
 * stepstats_text.c - RunMetadata (or StepStats) in protobuf text format, as
 * str(run_metadata) prints it and TensorBoard's test data keeps it (*.pbtxt):
 *
 *   step_stats { dev_stats { device: "/job:.../cpu:0"
 *     node_stats { node_name: "_SOURCE" all_start_micros: 1459365298611334 ... } } }
 *
 * A small recursive-descent parser for the text format (fields "name: value"
 * and "name { ... }" or "name < ... >", strings with C escapes, adjacent
 * strings joined, '#' comments, ',' and ';' separators, [a, b] lists, and
 * messages in [ {...}, {...} ] lists, which protobuf's parser accepts though
 * it never prints them) that keeps the step_stats path and skips every other
 * field, then hands the StepStats to the binary reader's code
 * (parse/stepstats.h).
 */
#include <stdlib.h>
#include <string.h>

#include "input/readers.h"
#include "parse/pb_trim.h"
#include "parse/stepstats.h"

#define MAX_DEPTH 64

struct parser {
        const char *s;
        size_t      n, pos;
        tpa_error  *err;
        bool        cut;        /* the input ends inside a message */
        /* What was read, in malloc'd arrays freed at the end. */
        Tpapb__StepStats         ss;
        void                   **owned;
        size_t                   owned_count, owned_cap;
};

enum ctx { C_ROOT, C_STEP_STATS, C_DEV_STATS, C_NODE_STATS, C_THREAD_NAMES, C_SKIP };

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_ident(char c, bool first)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
               (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+'));
}

static void skip_ws(struct parser *p)
{
        for (;;) {
                while (p->pos < p->n && (is_space(p->s[p->pos]) || p->s[p->pos] == ',' ||
                                         p->s[p->pos] == ';'))
                        p->pos++;
                if (p->pos < p->n && p->s[p->pos] == '#') {
                        while (p->pos < p->n && p->s[p->pos] != '\n')
                                p->pos++;
                        continue;
                }
                return;
        }
}

static int fail(struct parser *p, const char *what)
{
        /* A token cut by the end of the input may leave pos past it. */
        return tpa_error_set(p->err, TPA_EFORMAT, p->pos < p->n ? p->pos : p->n, "%s", what);
}

static int own(struct parser *p, void *ptr)
{
        if (ptr == NULL)
                return tpa_error_oom(p->err);
        if (p->owned_count == p->owned_cap) {
                size_t cap = p->owned_cap ? p->owned_cap * 2 : 64;
                void **o = realloc(p->owned, cap * sizeof(*o));
                if (o == NULL) {
                        free(ptr);
                        return tpa_error_oom(p->err);
                }
                p->owned = o;
                p->owned_cap = cap;
        }
        p->owned[p->owned_count++] = ptr;
        return 0;
}

/* Append `item` to a protobuf-c repeated field (n, array). The array grows
 * by doubling when n reaches a power of two; arrays are freed by
 * free_arrays(), not through the owned list. */
static int push(struct parser *p, size_t *n, void ***array, void *item)
{
        if (*n == 0 || (*n & (*n - 1)) == 0) {
                void **a = realloc(*array, (*n ? *n * 2 : 4) * sizeof(*a));
                if (a == NULL)
                        return tpa_error_oom(p->err);
                *array = a;
        }
        (*array)[(*n)++] = item;
        return 0;
}

static void free_arrays(Tpapb__StepStats *ss)
{
        for (size_t i = 0; i < ss->n_dev_stats; i++) {
                free(ss->dev_stats[i]->node_stats);
                free(ss->dev_stats[i]->thread_names);
        }
        free(ss->dev_stats);
}

static int hex(char c)
{
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One or more adjacent quoted strings, unescaped into a new owned string. */
static int read_string(struct parser *p, char **out)
{
        size_t len = 0, start = p->pos;
        char *buf;

        /* The unescaped text is never longer than the quoted text. */
        while (p->pos < p->n && (p->s[p->pos] == '"' || p->s[p->pos] == '\'')) {
                char q = p->s[p->pos++];
                while (p->pos < p->n && p->s[p->pos] != q && p->s[p->pos] != '\n')
                        p->pos += p->s[p->pos] == '\\' && p->pos + 1 < p->n ? 2 : 1;
                if (p->pos >= p->n || p->s[p->pos] != q)
                        return fail(p, "unterminated string");
                p->pos++;
                skip_ws(p);
        }
        buf = malloc(p->pos - start + 1);
        if (own(p, buf) < 0)
                return TPA_ENOMEM;
        p->pos = start;
        while (p->pos < p->n && (p->s[p->pos] == '"' || p->s[p->pos] == '\'')) {
                char q = p->s[p->pos++];
                while (p->s[p->pos] != q) {
                        char c = p->s[p->pos++];
                        if (c == '\\') {
                                char e = p->s[p->pos++];
                                switch (e) {
                                case 'n': c = '\n'; break;
                                case 't': c = '\t'; break;
                                case 'r': c = '\r'; break;
                                case 'a': c = '\a'; break;
                                case 'b': c = '\b'; break;
                                case 'f': c = '\f'; break;
                                case 'v': c = '\v'; break;
                                case 'x': {
                                        int v = 0, d, k = 0;
                                        while (k < 2 && (d = hex(p->s[p->pos])) >= 0) {
                                                v = v * 16 + d;
                                                p->pos++;
                                                k++;
                                        }
                                        c = (char)v;
                                        break;
                                }
                                default:
                                        if (e >= '0' && e <= '7') {
                                                int v = e - '0', k = 1;
                                                while (k < 3 && p->s[p->pos] >= '0' &&
                                                       p->s[p->pos] <= '7') {
                                                        v = v * 8 + (p->s[p->pos++] - '0');
                                                        k++;
                                                }
                                                c = (char)v;
                                        } else {
                                                c = e;  /* \" \' \\ \? */
                                        }
                                }
                        }
                        buf[len++] = c;
                }
                p->pos++;
                skip_ws(p);
        }
        buf[len] = '\0';
        *out = buf;
        return 0;
}

/* A scalar value: a string, a number or an enum name. Strings go to *str,
 * integers to *num (when the text is one). */
static int read_scalar(struct parser *p, char **str, int64_t *num, bool *is_num)
{
        size_t start = p->pos;

        *is_num = false;
        if (p->pos < p->n && (p->s[p->pos] == '"' || p->s[p->pos] == '\''))
                return read_string(p, str);
        while (p->pos < p->n && (is_ident(p->s[p->pos], false) || p->s[p->pos] == '.'))
                p->pos++;
        if (p->pos == start)
                return fail(p, "expected a value");
        {
                char buf[32];
                size_t len = p->pos - start;
                char *end;
                if (len < sizeof(buf)) {
                        memcpy(buf, p->s + start, len);
                        buf[len] = '\0';
                        *num = strtoll(buf, &end, 0);
                        *is_num = end == buf + len;
                }
        }
        skip_ws(p);
        return 0;
}

static int parse_fields(struct parser *p, enum ctx ctx, void *msg, int depth, char close);

static enum ctx child_ctx(enum ctx parent, const char *name, size_t len)
{
#define IS(s) (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
        switch (parent) {
        case C_ROOT:
                if (IS("step_stats"))
                        return C_STEP_STATS;
                if (IS("dev_stats"))
                        return C_DEV_STATS;
                return C_SKIP;
        case C_STEP_STATS:
                return IS("dev_stats") ? C_DEV_STATS : C_SKIP;
        case C_DEV_STATS:
                return IS("node_stats") ? C_NODE_STATS : IS("thread_names") ? C_THREAD_NAMES
                                                                            : C_SKIP;
        default:
                return C_SKIP;
        }
#undef IS
}

static void set_scalar(enum ctx ctx, void *msg, const char *name, size_t len, char *str,
                       int64_t num, bool is_num)
{
#define IS(s) (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
        if (ctx == C_DEV_STATS) {
                Tpapb__DeviceStepStats *d = msg;
                if (IS("device") && str != NULL)
                        d->device = str;
        } else if (ctx == C_THREAD_NAMES) {
                Tpapb__ThreadNamesEntry *t = msg;
                if (IS("key") && is_num)
                        t->key = (uint32_t)num;
                else if (IS("value") && str != NULL)
                        t->value = str;
        } else if (ctx == C_NODE_STATS) {
                Tpapb__NodeExecStats *ns = msg;
                if (str != NULL) {
                        if (IS("node_name"))
                                ns->node_name = str;
                        else if (IS("timeline_label"))
                                ns->timeline_label = str;
                        return;
                }
                if (!is_num)
                        return;
                if (IS("all_start_micros"))
                        ns->all_start_micros = num;
                else if (IS("all_end_rel_micros"))
                        ns->all_end_rel_micros = num;
                else if (IS("op_start_rel_micros"))
                        ns->op_start_rel_micros = num;
                else if (IS("op_end_rel_micros"))
                        ns->op_end_rel_micros = num;
                else if (IS("scheduled_micros"))
                        ns->scheduled_micros = num;
                else if (IS("thread_id"))
                        ns->thread_id = (uint32_t)num;
                else if (IS("all_start_nanos"))
                        ns->all_start_nanos = num;
                else if (IS("all_end_rel_nanos"))
                        ns->all_end_rel_nanos = num;
                else if (IS("op_start_rel_nanos"))
                        ns->op_start_rel_nanos = num;
                else if (IS("op_end_rel_nanos"))
                        ns->op_end_rel_nanos = num;
                else if (IS("scheduled_nanos"))
                        ns->scheduled_nanos = num;
        }
#undef IS
}

/* A new child message for `ctx` inside `parent`. */
static int new_child(struct parser *p, enum ctx parent_ctx, void *parent, enum ctx ctx,
                     void **out)
{
        int rc;

        *out = NULL;
        switch (ctx) {
        case C_STEP_STATS:
                *out = &p->ss;
                return 0;
        case C_DEV_STATS: {
                Tpapb__DeviceStepStats *d = malloc(sizeof(*d));
                if ((rc = own(p, d)) < 0)
                        return rc;
                tpapb__device_step_stats__init(d);
                *out = d;
                return push(p, &p->ss.n_dev_stats, (void ***)&p->ss.dev_stats, d);
        }
        case C_NODE_STATS: {
                Tpapb__DeviceStepStats *d = parent;
                Tpapb__NodeExecStats *ns = malloc(sizeof(*ns));
                if ((rc = own(p, ns)) < 0)
                        return rc;
                tpapb__node_exec_stats__init(ns);
                *out = ns;
                (void)parent_ctx;
                return push(p, &d->n_node_stats, (void ***)&d->node_stats, ns);
        }
        case C_THREAD_NAMES: {
                Tpapb__DeviceStepStats *d = parent;
                Tpapb__ThreadNamesEntry *t = malloc(sizeof(*t));
                if ((rc = own(p, t)) < 0)
                        return rc;
                tpapb__thread_names_entry__init(t);
                *out = t;
                return push(p, &d->n_thread_names, (void ***)&d->thread_names, t);
        }
        default:
                return 0;
        }
}

static int parse_fields(struct parser *p, enum ctx ctx, void *msg, int depth, char close);

/* The message of field `name` that opens at p->pos ('{' or '<'), one level
 * below `depth`: a new child of `msg` where the path is kept. */
static int parse_child(struct parser *p, enum ctx ctx, void *msg, const char *name, size_t len,
                       int depth)
{
        char end = p->s[p->pos++] == '{' ? '}' : '>';
        enum ctx c = ctx == C_SKIP ? C_SKIP : child_ctx(ctx, name, len);
        void *child;
        int rc;

        if ((rc = new_child(p, ctx, msg, c, &child)) < 0)
                return rc;
        rc = parse_fields(p, c, child, depth + 1, end);
        /* Input that ends inside a message is cut, not wrong: the messages
         * around keep what they hold, and a node or thread name missing
         * its end is dropped, to be read whole or not at all. */
        if (rc == TPA_EFORMAT && p->pos >= p->n) {
                Tpapb__DeviceStepStats *d = msg;
                if (p->err != NULL)
                        *p->err = (tpa_error)TPA_ERROR_INIT;
                p->cut = true;
                rc = 0;
                if (c == C_NODE_STATS)
                        d->n_node_stats--;
                else if (c == C_THREAD_NAMES)
                        d->n_thread_names--;
        }
        return rc;
}

static int parse_fields(struct parser *p, enum ctx ctx, void *msg, int depth, char close)
{
        int rc;

        /* the caller has just taken the '{' or '<' that opened this level */
        if (depth > MAX_DEPTH)
                return tpa_error_set(p->err, TPA_ELIMIT, p->pos - 1,
                                     "nesting deeper than %d levels", MAX_DEPTH);
        for (;;) {
                const char *name;
                size_t len, start;
                bool colon = false;

                skip_ws(p);
                if (p->pos >= p->n) {
                        if (close != 0)
                                return fail(p, "the input ends inside a message");
                        return 0;
                }
                if (p->s[p->pos] == close) {
                        p->pos++;
                        return 0;
                }
                start = p->pos;
                if (p->s[p->pos] == '[') {      /* [type.url] extensions: skip the name */
                        while (p->pos < p->n && p->s[p->pos] != ']')
                                p->pos++;
                        p->pos++;
                } else {
                        while (p->pos < p->n && is_ident(p->s[p->pos], p->pos == start))
                                p->pos++;
                }
                if (p->pos == start)
                        return fail(p, "expected a field name");
                name = p->s + start;
                len = p->pos - start;
                skip_ws(p);
                if (p->pos < p->n && p->s[p->pos] == ':') {
                        colon = true;
                        p->pos++;
                        skip_ws(p);
                }
                if (p->pos < p->n && (p->s[p->pos] == '{' || p->s[p->pos] == '<')) {
                        if ((rc = parse_child(p, ctx, msg, name, len, depth)) < 0)
                                return rc;
                        continue;
                }
                if (p->pos < p->n && p->s[p->pos] == '[') {    /* a list */
                        p->pos++;
                        for (;;) {
                                char *str = NULL;
                                int64_t num;
                                bool is_num;
                                skip_ws(p);
                                if (p->pos < p->n && p->s[p->pos] == ']') {
                                        p->pos++;
                                        break;
                                }
                                /* name: [ {...}, {...} ] is name {...} name {...} */
                                if (p->pos < p->n && (p->s[p->pos] == '{' ||
                                                      p->s[p->pos] == '<')) {
                                        if ((rc = parse_child(p, ctx, msg, name, len,
                                                              depth)) < 0)
                                                return rc;
                                        continue;
                                }
                                if ((rc = read_scalar(p, &str, &num, &is_num)) < 0)
                                        return rc;
                        }
                        continue;
                }
                if (!colon)
                        return fail(p, "expected ':' or '{' after a field name");
                {
                        char *str = NULL;
                        int64_t num = 0;
                        bool is_num;
                        if ((rc = read_scalar(p, &str, &num, &is_num)) < 0)
                                return rc;
                        set_scalar(ctx, msg, name, len, str, num, is_num);
                }
        }
}

int tpa_stepstats_text__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                             tpa_error *err)
{
        struct parser p = { .err = err };
        uint8_t *data;
        size_t len;
        int rc;

        rc = tpa_pb__read_all(src, opts, &data, &len, err);
        if (rc < 0)
                return rc;
        tpapb__step_stats__init(&p.ss);
        p.s = (const char *)data;
        p.n = len;
        rc = parse_fields(&p, C_ROOT, NULL, 0, 0);
        if (rc == 0 && p.cut)
                rc = tpa_pb__cut(tr, len, opts->strict, err);
        if (rc == 0 && p.ss.n_dev_stats == 0)
                rc = tpa_error_set(err, TPA_EFORMAT, 0, "no step_stats in this text protobuf");
        if (rc == 0)
                rc = tpa_stepstats__add(tr, &p.ss, NULL, -1, TPA_FORMAT_STEPSTATS_TEXT, err);
        free_arrays(&p.ss);
        for (size_t i = 0; i < p.owned_count; i++)
                free(p.owned[i]);
        free(p.owned);
        return rc;
}
