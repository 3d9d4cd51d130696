/* SPDX-License-Identifier: MIT */
/*
 * rules.c - a rule set: the parsed rule files ("units") in load order, the
 * --set overrides, and the queries the analysis makes (thresholds, the
 * first matching class, the findings that hold). Later units override:
 * their thresholds win, their classes are tried first, and their findings
 * replace earlier findings of the same name.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

static const rules_threshold *find_threshold(const tpa_rules *r, const char *name, size_t len)
{
        for (size_t i = r->unit_count; i-- > 0;) {
                const rules_unit *u = r->units[i];

                for (size_t k = u->threshold_count; k-- > 0;) {
                        const rules_threshold *t = &u->thresholds[k];

                        if (t->name.len == len && memcmp(rules_str_ptr(u, t->name), name, len) == 0)
                                return t;
                }
        }
        return NULL;
}

bool tpa_rules__lookup_threshold(const tpa_rules *r, const char *name, size_t len, double *out)
{
        const rules_threshold *t;

        for (size_t i = r->override_count; i-- > 0;)
                if (strlen(r->overrides[i].name) == len &&
                    memcmp(r->overrides[i].name, name, len) == 0) {
                        *out = r->overrides[i].value;
                        return true;
                }
        t = find_threshold(r, name, len);
        if (t == NULL)
                return false;
        *out = t->value;
        return true;
}

bool tpa_rules_threshold(const tpa_rules *r, const char *name, double *out)
{
        return tpa_rules__lookup_threshold(r, name, strlen(name), out);
}

/* A unit's metric names by a hash of their text: a slot holds the first
 * node of a name (its index + 1; 0: empty), found in a probe or two where
 * a search went through every node before it (speed, bench/: that search,
 * quadratic, was a third of loading the default rules at every start). */
typedef struct name_index {
        uint32_t *at;           /* NULL: none (no memory, or a unit too large) */
        size_t    mask;
} name_index;

/* FNV-1a */
static uint32_t name_hash(const char *s, size_t len)
{
        uint32_t h = 2166136261u;

        for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char)s[i]) * 16777619u;
        return h;
}

/* The slot of `name` (len bytes) in x: its first node's, or the empty one
 * it would go in. */
static uint32_t *name_slot(const rules_unit *u, const name_index *x, const char *name,
                           size_t len)
{
        for (size_t i = name_hash(name, len) & x->mask;; i = (i + 1) & x->mask) {
                const rules_node *n;

                if (x->at[i] == 0)
                        return &x->at[i];
                n = &u->nodes[x->at[i] - 1];
                if (n->name.len == len && memcmp(rules_str_ptr(u, n->name), name, len) == 0)
                        return &x->at[i];
        }
}

/* Name `name` (len bytes) of unit u, at node `before` or in a message
 * (before: u->node_count), resolved into *rn: a threshold and its value,
 * else a metric, named by the first node of u that names it (among the
 * nodes before `before`: those x holds; without x searched, quadratic, so
 * only in units of rule-file size) and given that node's slot, or the next
 * free one in *slots. Returns the name's slot in x, NULL for a threshold
 * or without x. */
static uint32_t *resolve_name(const tpa_rules *r, const rules_unit *u, const name_index *x,
                              size_t before, const char *name, size_t len, rules_name *rn,
                              int32_t *slots)
{
        const rules_name *first = NULL;
        uint32_t *at = NULL;

        rn->is_threshold = false;
        rn->value = 0;
        rn->canon = name;
        rn->slot = -1;
        if (tpa_rules__lookup_threshold(r, name, len, &rn->value)) {
                rn->is_threshold = true;
                return NULL;
        }
        if (x->at != NULL) {
                at = name_slot(u, x, name, len);
                assert(*at <= before);
                if (*at != 0)
                        first = &u->names[*at - 1];
        } else {
                for (size_t j = 0; j < before && u->node_count <= 4096; j++)
                        if (u->nodes[j].kind == NODE_NAME && !u->names[j].is_threshold &&
                            u->nodes[j].name.len == len &&
                            memcmp(rules_str_ptr(u, u->nodes[j].name), name, len) == 0) {
                                first = &u->names[j];
                                break;
                        }
        }
        if (first != NULL) {
                rn->canon = first->canon;
                rn->slot = first->slot;
        } else if (*slots < RULES_SLOTS) {
                rn->slot = (*slots)++;
        }
        return at;
}

/* A unit's messages in pieces and the names of their placeholders
 * (rules_unit.pieces, msg_names), rule by rule; false out of memory. */
static bool resolve_messages(const tpa_rules *r, rules_unit *u, const name_index *x,
                             int32_t *slots)
{
        size_t pieces = 0, names = 0, k = 0, q = 0;
        rules_piece p;

        for (size_t i = 0; i < u->rule_count; i++) {
                const rules_rule *f = &u->rules[i];
                size_t at = 0;

                while (tpa_rules__template_next(rules_str_ptr(u, f->message), f->message.len,
                                                &at, &p)) {
                        pieces++;
                        names += p.name != NULL;
                }
        }
        u->pieces = malloc((pieces ? pieces : 1) * sizeof(*u->pieces));
        u->piece_at = malloc((u->rule_count + 1) * sizeof(*u->piece_at));
        u->msg_names = malloc((names ? names : 1) * sizeof(*u->msg_names));
        u->msg_at = malloc((u->rule_count + 1) * sizeof(*u->msg_at));
        if (u->pieces == NULL || u->piece_at == NULL || u->msg_names == NULL || u->msg_at == NULL)
                return false;
        for (size_t i = 0; i < u->rule_count; i++) {
                const rules_rule *f = &u->rules[i];
                size_t at = 0;

                u->piece_at[i] = q;
                u->msg_at[i] = k;
                while (tpa_rules__template_next(rules_str_ptr(u, f->message), f->message.len,
                                                &at, &p)) {
                        u->pieces[q++] = p;
                        if (p.name != NULL)
                                resolve_name(r, u, x, u->node_count, p.name, p.name_len,
                                             &u->msg_names[k++], slots);
                }
        }
        u->piece_at[u->rule_count] = q;
        u->msg_at[u->rule_count] = k;
        return true;
}

/* Drop what resolve_messages() made. */
static void free_messages(rules_unit *u)
{
        free(u->pieces);
        free(u->piece_at);
        free(u->msg_names);
        free(u->msg_at);
        u->pieces = NULL;
        u->piece_at = NULL;
        u->msg_names = NULL;
        u->msg_at = NULL;
}

/* Resolve the names of every unit's nodes and messages against the
 * thresholds and overrides as they are now (rules_unit.names, msg_names),
 * and number the metrics they name (slots, for a query's values). Out of
 * memory a unit keeps none, and its names are looked up as they come: no
 * error. */
static void resolve_names(tpa_rules *r)
{
        int32_t slots = 0;

        for (size_t i = 0; i < r->unit_count; i++) {
                rules_unit *u = r->units[i];
                name_index x = { NULL, 15 };

                free(u->names);
                free_messages(u);
                u->names = malloc((u->node_count ? u->node_count : 1) * sizeof(*u->names));
                /* twice the nodes' slots, at least: a probe or two; none in
                 * a unit too large for the search (each name a slot of its
                 * own there) */
                if (u->node_count <= 4096) {
                        while (x.mask + 1 < 2 * u->node_count)
                                x.mask = x.mask * 2 + 1;
                        x.at = calloc(x.mask + 1, sizeof(*x.at));
                }
                for (size_t k = 0; u->names != NULL && k < u->node_count; k++) {
                        const rules_node *n = &u->nodes[k];
                        rules_name *rn = &u->names[k];
                        const char *name = rules_str_ptr(u, n->name);

                        if (n->kind == NODE_NAME) {
                                uint32_t *at = resolve_name(r, u, &x, k, name, n->name.len, rn,
                                                            &slots);
                                if (at != NULL && *at == 0)
                                        *at = (uint32_t)k + 1;  /* the name's first node */
                                continue;
                        }
                        rn->is_threshold = false;
                        rn->value = 0;
                        rn->canon = name;
                        rn->slot = -1;
                }
                if (u->names != NULL && !resolve_messages(r, u, &x, &slots))
                        free_messages(u);
                free(x.at);
        }
}

static int rebuild_class_names(tpa_rules *r, tpa_error *err)
{
        size_t total = 0, n = 0;
        const char **names;

        for (size_t i = 0; i < r->unit_count; i++)
                total += r->units[i]->class_count;
        names = malloc((total ? total : 1) * sizeof(*names));
        if (names == NULL)
                return tpa_error_oom(err);
        for (size_t i = r->unit_count; i-- > 0;) {
                const rules_unit *u = r->units[i];

                for (size_t k = 0; k < u->class_count; k++) {
                        const char *name = rules_str_ptr(u, u->classes[k].name);
                        size_t j;

                        for (j = 0; j < n && strcmp(names[j], name) != 0; j++)
                                ;
                        if (j == n)
                                names[n++] = name;
                }
        }
        free(r->class_names);
        r->class_names = names;
        r->class_name_count = n;
        return 0;
}

static void free_units(rules_unit **units, size_t count)
{
        for (size_t i = 0; i < count; i++)
                tpa_rules__unit_free(units[i]);
}

static void clear_overrides(tpa_rules *r)
{
        for (size_t i = 0; i < r->override_count; i++)
                free(r->overrides[i].name);
        free(r->overrides);
        r->overrides = NULL;
        r->override_count = 0;
}

/* Parse and add one unit; all or nothing. */
static int add_text(tpa_rules *r, const char *text, size_t len, const char *name, bool replace,
                    tpa_error *err)
{
        rules_unit *u = NULL;
        rules_unit **units;
        size_t keep = replace ? 0 : r->unit_count;
        int rc = tpa_rules__parse(&u, text, len, name, false, NULL, err);

        if (rc < 0)
                return rc;
        units = malloc((keep + 1) * sizeof(*units));
        if (units == NULL) {
                tpa_rules__unit_free(u);
                return tpa_error_oom(err);
        }
        if (keep > 0)
                memcpy(units, r->units, keep * sizeof(*units));
        units[keep] = u;
        {
                tpa_rules next = { .units = units, .unit_count = keep + 1 };

                rc = rebuild_class_names(&next, err);
                if (rc < 0) {
                        tpa_rules__unit_free(u);
                        free(units);
                        return rc;
                }
                if (replace) {
                        free_units(r->units, r->unit_count);
                        clear_overrides(r);
                }
                free(r->units);
                free(r->class_names);
                r->units = units;
                r->unit_count = keep + 1;
                r->class_names = next.class_names;
                r->class_name_count = next.class_name_count;
        }
        resolve_names(r);
        return 0;
}

int tpa_rules_new_default(tpa_rules **out, tpa_error *err)
{
        tpa_rules *r = calloc(1, sizeof(*r));
        int rc;

        if (r == NULL)
                return tpa_error_oom(err);
        rc = add_text(r, tpa_rules__default_text, tpa_rules__default_len, "default.tpr", false,
                      err);
        if (rc < 0) {
                tpa_rules_free(r);
                return rc;
        }
        *out = r;
        return 0;
}

int tpa_rules_load_string(tpa_rules *r, const char *text, size_t len, const char *name,
                          tpa_error *err)
{
        return add_text(r, text, len, name, false, err);
}

int tpa_rules_load_file(tpa_rules *r, const char *path, bool replace, tpa_error *err)
{
        char *buf = NULL;
        size_t len = 0, cap = 0;
        FILE *fp = fopen(path, "rb");
        int rc;

        if (fp == NULL) {
                rc = tpa_error_set_sys(err, errno, "cannot open the rule file");
                if (err != NULL)
                        err->path = path;
                return rc;
        }
        for (;;) {
                size_t got;

                if (len == cap) {
                        char *n;

                        if (cap > TPA_RULES_MAX_BYTES) {
                                fclose(fp);
                                free(buf);
                                rc = tpa_error_setf(err, TPA_ERULE,
                                                    "rule file larger than %u bytes",
                                                    TPA_RULES_MAX_BYTES);
                                if (err != NULL)
                                        err->path = path;
                                return rc;
                        }
                        cap = cap ? cap * 2 : 4096;
                        n = realloc(buf, cap);
                        if (n == NULL) {
                                fclose(fp);
                                free(buf);
                                return tpa_error_oom(err);
                        }
                        buf = n;
                }
                got = fread(buf + len, 1, cap - len, fp);
                len += got;
                if (got == 0)
                        break;
        }
        if (ferror(fp)) {
                int e = errno;

                fclose(fp);
                free(buf);
                rc = tpa_error_set_sys(err, e, "cannot read the rule file");
                if (err != NULL)
                        err->path = path;
                return rc;
        }
        fclose(fp);
        rc = add_text(r, buf, len, path, replace, err);
        free(buf);
        return rc;
}

int tpa_rules_set_threshold(tpa_rules *r, const char *name_eq_value, tpa_error *err)
{
        const char *eq = strchr(name_eq_value, '=');
        const char *name = name_eq_value, *value;
        const rules_threshold *t;
        size_t nlen, vlen;
        rules_override *n;
        double v;

        if (eq == NULL)
                return tpa_error_setf(err, TPA_EINVAL, "expected NAME=VALUE, not '%.60s'",
                                      name_eq_value);
        while (*name == ' ')
                name++;
        nlen = (size_t)(eq - name);
        while (nlen > 0 && name[nlen - 1] == ' ')
                nlen--;
        value = eq + 1;
        while (*value == ' ')
                value++;
        vlen = strlen(value);
        while (vlen > 0 && value[vlen - 1] == ' ')
                vlen--;
        if ((t = find_threshold(r, name, nlen)) == NULL)
                return tpa_error_setf(err, TPA_EINVAL, "unknown threshold '%.*s'",
                                      (int)(nlen > 60 ? 60 : nlen), name);
        if (!tpa_rules__parse_value(value, vlen, &v))
                return tpa_error_setf(err, TPA_EINVAL,
                                      "bad value '%.*s' for '%.*s' (a number with an optional "
                                      "unit: 20us, 5%%, 64KiB)", (int)(vlen > 40 ? 40 : vlen),
                                      value, (int)(nlen > 60 ? 60 : nlen), name);
        /* A fraction given bare is ambiguous: "bound.min=30" would be
         * 3000%, and "0.3" reads as 0.3% to many. Only "30%" says it. */
        if (t->is_frac && (vlen == 0 || value[vlen - 1] != '%'))
                return tpa_error_setf(err, TPA_EINVAL, "'%.*s' is a percentage of step time: "
                                      "did you mean %.6g%%?", (int)(nlen > 60 ? 60 : nlen),
                                      name, v > 1 ? v : v * 100);
        if (t->is_frac && (v < 0 || v > 1))
                return tpa_error_setf(err, TPA_EINVAL, "'%.*s' is a percentage of step time, "
                                      "from 0%% to 100%%, not '%.*s'",
                                      (int)(nlen > 60 ? 60 : nlen), name,
                                      (int)(vlen > 40 ? 40 : vlen), value);
        n = realloc(r->overrides, (r->override_count + 1) * sizeof(*n));
        if (n == NULL)
                return tpa_error_oom(err);
        r->overrides = n;
        n[r->override_count].name = strndup(name, nlen);
        if (n[r->override_count].name == NULL)
                return tpa_error_oom(err);
        n[r->override_count++].value = v;
        resolve_names(r);
        return 0;
}

/* A query's look-ups: the memo and the values by slot, none yet. */
typedef struct query {
        rules_memo  memo;
        rules_slots slots;
        rules_env   env;
} query;

static const rules_env *query_start(query *q, const tpa_rules *r, tpa_metric_fn fn, void *ctx)
{
        q->memo.ready = false;
        memset(q->slots.have, 0, sizeof(q->slots.have));
        q->env = (rules_env){ .rules = r, .fn = fn, .ctx = ctx, .memo = &q->memo,
                              .slots = &q->slots };
        return &q->env;
}

static int classify(const tpa_rules *r, const rules_env *env, const char **out_class,
                    tpa_error *err)
{
        for (size_t i = r->unit_count; i-- > 0;) {
                const rules_unit *u = r->units[i];

                for (size_t k = 0; k < u->class_count; k++) {
                        double v;
                        int rc = tpa_rules__eval(env, u, u->classes[k].when, &v, err);

                        if (rc < 0)
                                return rc;
                        if (v != 0 && v == v) {
                                *out_class = rules_str_ptr(u, u->classes[k].name);
                                return 0;
                        }
                }
        }
        return tpa_rules__no_class(err);
}

int tpa_rules__no_class(tpa_error *err)
{
        tpa_error_setf(err, TPA_ERULE, "no class matched (end the rules with a catch-all "
                       "such as 'class compute-bound when 1')");
        if (err != NULL)
                err->path = NULL;
        return TPA_ERULE;
}

int tpa_rules_classify(const tpa_rules *r, tpa_metric_fn fn, void *ctx,
                       const char **out_class, tpa_error *err)
{
        query q;

        return classify(r, query_start(&q, r, fn, ctx), out_class, err);
}

bool tpa_rules__overridden(const tpa_rules *r, size_t i, const rules_unit *u,
                           const rules_rule *f)
{
        for (size_t j = i + 1; j < r->unit_count; j++) {
                const rules_unit *later = r->units[j];

                for (size_t k = 0; k < later->rule_count; k++)
                        if (later->rules[k].name.len == f->name.len &&
                            memcmp(rules_str_ptr(later, later->rules[k].name),
                                   rules_str_ptr(u, f->name), f->name.len) == 0)
                                return true;
        }
        return false;
}

void tpa_rules__found_init(rules_found *f)
{
        f->list = f->list_in;
        f->text_at = f->text_at_in;
        f->text = f->text_in;
        f->n = f->len = 0;
        f->cap = RULES_FOUND_INLINE;
        f->text_cap = sizeof(f->text_in);
        f->heap_list = f->heap_text = false;
}

int tpa_rules__found_grow(rules_found *f, size_t len, tpa_error *err)
{
        if (f->n == f->cap) {
                size_t cap = f->cap * 2;
                tpa_finding *l = malloc(cap * sizeof(*l));
                size_t *at = malloc(cap * sizeof(*at));

                if (l == NULL || at == NULL) {
                        free(l);
                        free(at);
                        return tpa_error_oom(err);
                }
                memcpy(l, f->list, f->n * sizeof(*l));
                memcpy(at, f->text_at, f->n * sizeof(*at));
                if (f->heap_list) {
                        free(f->list);
                        free(f->text_at);
                }
                f->list = l;
                f->text_at = at;
                f->cap = cap;
                f->heap_list = true;
        }
        if (f->len + len > f->text_cap) {
                size_t cap = (f->len + len) * 2;
                char *t = f->heap_text ? realloc(f->text, cap) : malloc(cap);

                if (t == NULL)
                        return tpa_error_oom(err);
                if (!f->heap_text)
                        memcpy(t, f->text, f->len);
                f->text = t;
                f->text_cap = cap;
                f->heap_text = true;
        }
        return 0;
}

int tpa_rules__found_add(rules_found *f, const tpa_finding *fd, const char *msg, size_t len,
                         tpa_error *err)
{
        char *at = rules_found_room(f, len + 1, err);

        if (at == NULL)
                return TPA_ENOMEM;
        memcpy(at, msg, len);
        at[len] = '\0';
        rules_found_put(f, fd, len);
        return 0;
}

/* The findings and their messages in one block, exactly (memory, bench/:
 * a message inline, 512 bytes, made the findings of the 1 GB trace's 12 k
 * steps 21 MB, of messages of ~70 bytes). */
static tpa_finding *pack_findings(const rules_found *f)
{
        size_t head = f->n * sizeof(*f->list);
        tpa_finding *block = malloc(head + f->len);

        if (block == NULL)
                return NULL;
        memcpy(block, f->list, head);
        memcpy((char *)block + head, f->text, f->len);
        for (size_t i = 0; i < f->n; i++)
                block[i].message = (const char *)block + head + f->text_at[i];
        return block;
}

int tpa_rules__found_end(rules_found *f, int rc, tpa_finding **out, size_t *count,
                         tpa_error *err)
{
        tpa_finding *packed = NULL;

        if (rc == 0 && f->n > 0 && (packed = pack_findings(f)) == NULL)
                rc = tpa_error_oom(err);
        if (f->heap_list) {
                free(f->list);
                free(f->text_at);
        }
        if (f->heap_text)
                free(f->text);
        if (rc < 0)
                return rc;
        *out = packed;
        *count = f->n;
        return 0;
}

static int findings(const tpa_rules *r, const rules_env *env, tpa_finding **out,
                    size_t *count, tpa_error *err)
{
        char buf[TPA_FINDING_MESSAGE_MAX];
        rules_found f;
        int rc = 0;

        tpa_rules__found_init(&f);
        for (size_t i = 0; i < r->unit_count && rc == 0; i++) {
                const rules_unit *u = r->units[i];

                for (size_t k = 0; k < u->rule_count && rc == 0; k++) {
                        const rules_rule *fr = &u->rules[k];
                        tpa_finding fd;
                        double v;

                        if (tpa_rules__overridden(r, i, u, fr))
                                continue;
                        rc = tpa_rules__eval(env, u, fr->when, &v, err);
                        if (rc < 0 || v == 0 || v != v)
                                continue;
                        memset(&fd, 0, sizeof(fd));
                        memcpy(fd.name, rules_str_ptr(u, fr->name), fr->name.len);
                        fd.severity = fr->severity;
                        fd.gain_frac = -1;
                        if (fr->gain >= 0)
                                rc = tpa_rules__eval(env, u, fr->gain, &fd.gain_frac, err);
                        if (rc == 0)
                                rc = tpa_rules__render(env, u, fr, buf, sizeof(buf), err);
                        if (rc == 0)
                                rc = tpa_rules__found_add(&f, &fd, buf, strlen(buf), err);
                }
        }
        return tpa_rules__found_end(&f, rc, out, count, err);
}

int tpa_rules_findings(const tpa_rules *r, tpa_metric_fn fn, void *ctx,
                       tpa_finding **out, size_t *count, tpa_error *err)
{
        query q;

        return findings(r, query_start(&q, r, fn, ctx), out, count, err);
}

int tpa_rules_classify_findings(const tpa_rules *r, tpa_metric_fn fn, void *ctx,
                                const char **out_class, tpa_finding **out, size_t *count,
                                tpa_error *err)
{
        query q;
        const rules_env *env = query_start(&q, r, fn, ctx);
        int rc = classify(r, env, out_class, err);

        return rc < 0 ? rc : findings(r, env, out, count, err);
}

int tpa_rules_eval(const tpa_rules *r, const char *expr, tpa_metric_fn fn, void *ctx,
                   double *out, tpa_error *err)
{
        rules_env env = { .rules = r, .fn = fn, .ctx = ctx };
        rules_unit *u = NULL;
        int32_t root = -1;
        double v;
        int rc = tpa_rules__parse(&u, expr, strlen(expr), NULL, true, &root, err);

        if (rc < 0)
                return rc;
        rc = tpa_rules__eval(&env, u, root, &v, err);
        tpa_rules__unit_free(u);
        if (rc == 0)
                *out = v;
        return rc;
}

size_t tpa_rules_class_count(const tpa_rules *r)
{
        return r->class_name_count;
}

const char *tpa_rules_class_name(const tpa_rules *r, size_t i)
{
        return i < r->class_name_count ? r->class_names[i] : NULL;
}

void tpa_rules_free(tpa_rules *r)
{
        if (r == NULL)
                return;
        free_units(r->units, r->unit_count);
        free(r->units);
        clear_overrides(r);
        free(r->class_names);
        free(r);
}
