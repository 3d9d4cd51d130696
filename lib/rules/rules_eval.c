/* SPDX-License-Identifier: MIT */
/*
 * rules_eval.c - evaluating rule expressions and rendering message
 * templates. Names resolve to a threshold first, else to a metric from the
 * caller; an unknown name is a TPA_ERULE at the name's file:line:column.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules_internal.h"

int tpa_rules__unknown_name(const rules_unit *u, const char *name, size_t len, uint32_t line,
                            uint32_t column, tpa_error *err)
{
        tpa_error_setf(err, TPA_ERULE, "unknown metric '%.*s'", (int)(len > 80 ? 80 : len), name);
        if (err != NULL) {
                err->path = u->path;
                err->line = line;
                err->column = column;
        }
        return TPA_ERULE;
}

/* Keep in slot (RULES_MEMO_SLOTS: none free) that `name` is entry `at`. */
static void remember(rules_memo *m, size_t slot, const char *name, size_t len, size_t at)
{
        if (slot < RULES_MEMO_SLOTS) {
                m->by_ptr[slot].name = name;
                m->by_ptr[slot].len = (uint32_t)len;
                m->by_ptr[slot].at = (uint32_t)at;
        }
}

/* The memo's value for `name` into *out, or false; *slot gets a free
 * slot for the pointer (RULES_MEMO_SLOTS: none) when it was not there. */
static bool memo_find(rules_memo *m, const char *name, size_t len, bool metric, double *out,
                      size_t *slot)
{
        size_t h = (size_t)(((uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15u) >> 58);

        *slot = RULES_MEMO_SLOTS;
        for (size_t p = 0; p < RULES_MEMO_PROBES; p++, h = (h + 1) % RULES_MEMO_SLOTS) {
                if (m->by_ptr[h].name == NULL) {
                        *slot = h;
                        break;
                }
                if (m->by_ptr[h].name == name && m->by_ptr[h].len == len) {
                        *out = m->v[m->by_ptr[h].at].value;
                        return true;
                }
        }
        /* a name looked up before by another pointer, or not at all; a
         * metric is named by its canonical pointer, which a look-up of the
         * same unit's expressions found by pointer, if at all (a message
         * comes after its finding's condition) */
        for (size_t i = 0; !metric && i < m->n; i++)
                if (m->v[i].len == len && memcmp(m->v[i].name, name, len) == 0) {
                        *out = m->v[i].value;
                        remember(m, *slot, name, len, i);
                        return true;
                }
        return false;
}

/* tpa_rules__lookup() of a name that is no threshold when `metric`. */
static bool lookup_name(const rules_env *env, const char *name, size_t len, bool metric,
                        double *out)
{
        rules_memo *m = env->memo;
        size_t slot = RULES_MEMO_SLOTS;
        bool found;

        if (m != NULL && !m->ready) {
                memset(m, 0, sizeof(*m));
                m->ready = true;
        }
        if (m != NULL && memo_find(m, name, len, metric, out, &slot))
                return true;
        found = (!metric && tpa_rules__lookup_threshold(env->rules, name, len, out)) ||
                (env->fn != NULL && env->fn(env->ctx, name, len, out));
        if (found && m != NULL && m->n < RULES_MEMO_MAX) {
                m->v[m->n].name = name;
                m->v[m->n].len = len;
                m->v[m->n].value = *out;
                remember(m, slot, name, len, m->n);
                m->n++;
        }
        return found;
}

bool tpa_rules__lookup(const rules_env *env, const char *name, size_t len, double *out)
{
        return lookup_name(env, name, len, false, out);
}

/* Name rn of a unit when the query holds its value: a threshold's, or a
 * metric fetched before; false otherwise. */
static inline bool held(const rules_env *env, const rules_name *rn, double *out)
{
        int32_t k = rn->slot;

        if (rn->is_threshold) {
                *out = rn->value;
                return true;
        }
        if (k < 0 || env->slots == NULL || !(env->slots->have[k / 64] >> (k % 64) & 1))
                return false;
        *out = env->slots->v[k];
        return true;
}

/* Name rn (len bytes) of a unit as the query has it, a metric fetched on
 * first use; false when it is neither threshold nor metric. */
static bool resolved(const rules_env *env, const rules_name *rn, size_t len, double *out)
{
        rules_slots *q = env->slots;
        int32_t k = rn->slot;

        if (held(env, rn, out))
                return true;
        if (q == NULL || k < 0)
                return lookup_name(env, rn->canon, len, true, out);
        if (env->fn == NULL || !env->fn(env->ctx, rn->canon, len, out))
                return false;
        q->v[k] = *out;
        q->have[k / 64] |= (uint64_t)1 << (k % 64);
        return true;
}

static int lookup(const rules_env *env, const rules_unit *u, const char *name, size_t len,
                  uint32_t line, uint32_t column, double *out, tpa_error *err)
{
        if (tpa_rules__lookup(env, name, len, out))
                return 0;
        return tpa_rules__unknown_name(u, name, len, line, column, err);
}

static bool truthy(double v)
{
        return v != 0 && !isnan(v);
}

/* Node `node` when the query has its value at hand: a number, a
 * threshold, a metric already fetched; false otherwise. */
static inline bool at_hand(const rules_env *env, const rules_unit *u, int32_t node,
                           double *out)
{
        const rules_node *n = &u->nodes[node];

        if (n->kind == NODE_NUM) {
                *out = n->num;
                return true;
        }
        return n->kind == NODE_NAME && u->names != NULL && held(env, &u->names[node], out);
}

/* A child of a node: its value at hand, else evaluated (speed, bench/:
 * most leaves are metrics fetched before, and a call each cost more than
 * finding the value). */
static inline int child(const rules_env *env, const rules_unit *u, int32_t node, double *out,
                        tpa_error *err)
{
        return at_hand(env, u, node, out) ? 0 : tpa_rules__eval(env, u, node, out, err);
}

int tpa_rules__eval(const rules_env *env, const rules_unit *u, int32_t node, double *out,
                    tpa_error *err)
{
        const rules_node *n = &u->nodes[node];
        double a, b;
        int r;

        switch ((rules_node_kind)n->kind) {
        case NODE_NUM:
                *out = n->num;
                return 0;
        case NODE_NAME:
                if (u->names != NULL && resolved(env, &u->names[node], n->name.len, out))
                        return 0;
                return lookup(env, u, rules_str_ptr(u, n->name), n->name.len, n->line, n->column,
                              out, err);
        case NODE_NEG:
                r = child(env, u, n->a, &a, err);
                if (r == 0)
                        *out = -a;
                return r;
        case NODE_NOT:
                r = child(env, u, n->a, &a, err);
                if (r == 0)
                        *out = truthy(a) ? 0 : 1;
                return r;
        case NODE_CALL:
                r = child(env, u, n->a, &a, err);
                if (r < 0)
                        return r;
                if (n->op == FN_ABS) {
                        *out = fabs(a);
                        return 0;
                }
                for (int32_t c = u->nodes[n->a].next; c >= 0; c = u->nodes[c].next) {
                        r = child(env, u, c, &b, err);
                        if (r < 0)
                                return r;
                        if (n->op == FN_MIN ? b < a : b > a)
                                a = b;
                }
                *out = a;
                return 0;
        case NODE_BINARY:
                break;
        }
        r = child(env, u, n->a, &a, err);
        if (r < 0)
                return r;
        /* 'and' and 'or' short-circuit: the right side is not evaluated, so
         * a metric it names need not exist. */
        if (n->op == OP_AND && !truthy(a)) {
                *out = 0;
                return 0;
        }
        if (n->op == OP_OR && truthy(a)) {
                *out = 1;
                return 0;
        }
        r = child(env, u, n->b, &b, err);
        if (r < 0)
                return r;
        switch ((rules_op)n->op) {
        case OP_ADD: *out = a + b; break;
        case OP_SUB: *out = a - b; break;
        case OP_MUL: *out = a * b; break;
        case OP_DIV: *out = b == 0 ? 0 : a / b; break;  /* doc/rules.md: x / 0 is 0 */
        case OP_LT:  *out = a < b; break;
        case OP_LE:  *out = a <= b; break;
        case OP_GT:  *out = a > b; break;
        case OP_GE:  *out = a >= b; break;
        case OP_EQ:  *out = a == b; break;
        case OP_NE:  *out = a != b; break;
        case OP_AND:
        case OP_OR:  *out = truthy(b); break;
        }
        return 0;
}

/* Append printf output to buf at *n, truncating at size - 1. */
static void put(char *buf, size_t size, size_t *n, const char *fmt, ...) TPA_PRINTF(4, 5);

static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
        va_list ap;
        int w;

        if (*n + 1 >= size)
                return;
        va_start(ap, fmt);
        w = vsnprintf(buf + *n, size - *n, fmt, ap);
        va_end(ap);
        if (w > 0)
                *n = *n + (size_t)w >= size ? size - 1 : *n + (size_t)w;
}

/*
 * Numbers without printf where it is sure to write the same (speed,
 * bench/: the findings of every step are rendered, and the vsnprintf()
 * calls for their numbers were half of the rules' instructions). printf
 * rounds the exact binary value, half to even: scaled() gives up on a
 * value whose scaled fraction is within a hair of one half, and on one so
 * large that the scaled product is not that close to the exact one.
 */
static const double   scale10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
static const uint64_t iscale10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };

/* |v| * 10^dec (dec <= 6) rounded as printf rounds v to dec decimals. */
static bool scaled(double v, int dec, uint64_t *u)
{
        double x = fabs(v) * scale10[dec], fl = floor(x);

        /* below 1e9 the product is within 1e-7 of the exact one */
        if (!(x < 1e9) || fabs(x - fl - 0.5) < 1e-6)
                return false;
        *u = (uint64_t)fl + (x - fl > 0.5);
        return true;
}

/* u / 10^dec with dec decimals and v's sign (printf keeps the sign of what
 * rounds to 0: "-0.0") into out; its length. */
static size_t decimal(char *out, double v, uint64_t u, int dec)
{
        char tmp[32], *p = tmp + sizeof(tmp);
        uint64_t frac = u % iscale10[dec];
        size_t len;

        u /= iscale10[dec];
        for (int d = 0; d < dec; d++, frac /= 10)
                *--p = (char)('0' + frac % 10);
        if (dec > 0)
                *--p = '.';
        do {
                *--p = (char)('0' + u % 10);
                u /= 10;
        } while (u > 0);
        if (signbit(v))
                *--p = '-';
        len = (size_t)(tmp + sizeof(tmp) - p);
        memcpy(out, p, len);
        out[len] = '\0';
        return len;
}

/* What put(buf, size, n, "%.0f%s", v, unit) writes (unit: ulen bytes),
 * for an integer v of less than 1e15 in magnitude, without printf: the
 * findings of every step are rendered, and vsnprintf was a third of the
 * rules' time (bench/). The number and its unit in one rules_put_text(). */
static void put_int(char *buf, size_t size, size_t *n, double v, const char *unit,
                    size_t ulen)
{
        char tmp[48], *end = tmp + 24, *p = end;
        uint64_t u = (uint64_t)fabs(v);

        /* decimal(tmp, v, u, 0), its digits written where they go (speed,
         * bench/: a memcpy() each, and the unit's, were a third of it) */
        do {
                *--p = (char)('0' + u % 10);
                u /= 10;
        } while (u > 0);
        if (signbit(v))
                *--p = '-';
        for (size_t i = 0; i < ulen; i++)
                end[i] = unit[i];
        rules_put_text(buf, size, n, p, (size_t)(end - p) + ulen);
}

size_t tpa_rules__fmt_fixed(char *out, double v, int dec)
{
        uint64_t u;

        return scaled(v, dec, &u) ? decimal(out, v, u, dec) : 0;
}

/* printf's exponent X is that of v rounded to 3 digits; X >= -4 here,
 * and "%.{2-X}f" without trailing zeros is what it writes. */
size_t tpa_rules__fmt_g3(char *out, double v)
{
        static const double next[] = { 1e-3, 1e-2, 1e-1, 1 };        /* 10^(X+1) */
        double a = fabs(v);
        uint64_t u;
        int x = -4, dec;
        size_t len;

        if (!(a >= 1e-4 && a < 10))
                return 0;
        while (x < 0 && a >= next[x + 4])
                x++;
        /* rounded up to 10^(X+1) ("10.00"), it is the same once the
         * trailing zeros go */
        if (!scaled(v, dec = 2 - x, &u))
                return 0;
        len = decimal(out, v, u, dec);
        while (dec > 0 && out[len - 1] == '0')
                out[--len] = '\0';
        if (out[len - 1] == '.')
                out[--len] = '\0';
        return len;
}

/* A number as people write it: integers without decimals, else 3
 * significant digits ("0.125", "12.5", "1250"); unit (ulen bytes) after. */
static void put_plain(char *buf, size_t size, size_t *n, double v, const char *unit,
                      size_t ulen)
{
        char tmp[48];
        size_t len;

        if (!isfinite(v))
                put(buf, size, n, "%s%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf", unit);
        else if (v == floor(v) && fabs(v) < 1e15)
                put_int(buf, size, n, v, unit, ulen);
        else if (fabs(v) >= 100 && fabs(v) < 1e15)
                put_int(buf, size, n, nearbyint(v), unit, ulen);  /* as "%.0f" rounds */
        else if (fabs(v) >= 100)
                put(buf, size, n, "%.0f%s", v, unit);
        else if (fabs(v) >= 10 && (len = tpa_rules__fmt_fixed(tmp, v, 1)) > 0) {
                memcpy(tmp + len, unit, ulen);
                rules_put_text(buf, size, n, tmp, len + ulen);
        } else if (fabs(v) >= 10) {
                put(buf, size, n, "%.1f%s", v, unit);
        } else if ((len = tpa_rules__fmt_g3(tmp, v)) > 0) {
                memcpy(tmp + len, unit, ulen);
                rules_put_text(buf, size, n, tmp, len + ulen);
        } else {
                put(buf, size, n, "%.3g%s", v, unit);
        }
}

/* The formats of doc/rules.md by name (the parser's list), and what the
 * ones of a fixed unit divide by and append. */
static const struct {
        const char *name;
        size_t      len;
        double      scale;
        const char *unit;
        size_t      ulen;
} formats[] = {
        [RULES_FMT_PLAIN] = { "", 0, 1, "", 0 },
        [RULES_FMT_PCT] = { "%", 1, 1, "%", 1 },
        [RULES_FMT_INT] = { "int", 3, 1, "", 0 },
        [RULES_FMT_TIME] = { "time", 4, 1, "", 0 },
        [RULES_FMT_BYTES] = { "bytes", 5, 1, " B", 2 },
        [RULES_FMT_NS] = { "ns", 2, 1, " ns", 3 },
        [RULES_FMT_US] = { "us", 2, 1e3, " us", 3 },
        [RULES_FMT_MS] = { "ms", 2, 1e6, " ms", 3 },
        [RULES_FMT_S] = { "s", 1, 1e9, " s", 2 },
        [RULES_FMT_KIB] = { "KiB", 3, 1024.0, " KiB", 4 },
        [RULES_FMT_MIB] = { "MiB", 3, 1048576.0, " MiB", 4 },
        [RULES_FMT_GIB] = { "GiB", 3, 1073741824.0, " GiB", 4 },
};

void tpa_rules__put_value(char *buf, size_t size, size_t *n, double v, rules_fmt fmt)
{
        double a = fabs(v);

        switch (fmt) {
        case RULES_FMT_PLAIN:
                put_plain(buf, size, n, v, "", 0);
                return;
        case RULES_FMT_PCT: {
                double pct = v * 100;
                char tmp[64];
                size_t l;

                /* 34%, 7.5%, 7% (not 7.0%) */
                if (fabs(pct) >= 9.95 && fabs(pct) < 1e15) {
                        put_int(buf, size, n, nearbyint(pct), "%", 1);    /* as "%.0f" */
                        return;
                }
                if ((l = tpa_rules__fmt_fixed(tmp, pct, fabs(pct) >= 9.95 ? 0 : 1)) == 0) {
                        snprintf(tmp, sizeof(tmp), fabs(pct) >= 9.95 ? "%.0f" : "%.1f", pct);
                        l = strlen(tmp);
                }
                if (l > 2 && strcmp(tmp + l - 2, ".0") == 0)
                        tmp[l -= 2] = '\0';
                rules_put_text(buf, size, n, tmp, l);
                rules_put_text(buf, size, n, "%", 1);
                return;
        }
        case RULES_FMT_INT:
                if (isfinite(v) && fabs(v) < 1e15)
                        put_int(buf, size, n, nearbyint(v), "", 0);
                else
                        put(buf, size, n, "%.0f", v);
                return;
        case RULES_FMT_TIME:
                tpa_rules__put_value(buf, size, n, v,
                                     a >= 1e9 ? RULES_FMT_S : a >= 1e6 ? RULES_FMT_MS
                                     : a >= 1e3 ? RULES_FMT_US : RULES_FMT_NS);
                return;
        case RULES_FMT_BYTES:
                if (a >= 1024.0)
                        tpa_rules__put_value(buf, size, n, v,
                                             a >= 1073741824.0 ? RULES_FMT_GIB
                                             : a >= 1048576.0 ? RULES_FMT_MIB : RULES_FMT_KIB);
                else
                        put_plain(buf, size, n, v, " B", 2);
                return;
        default:
                put_plain(buf, size, n, v / formats[fmt].scale, formats[fmt].unit,
                          formats[fmt].ulen);
                return;
        }
}

bool tpa_rules__template_next(const char *s, size_t len, size_t *at, rules_piece *p)
{
        size_t i = *at, end, fmt;

        if (i >= len)
                return false;
        memset(p, 0, sizeof(*p));
        if ((s[i] == '{' || s[i] == '}') && i + 1 < len && s[i + 1] == s[i]) {
                p->text = s + i;
                p->len = 1;
                *at = i + 2;
                return true;
        }
        if (s[i] != '{') {
                /* the text up to the next brace, as it is */
                const char *open = memchr(s + i + 1, '{', len - i - 1);
                const char *close = memchr(s + i + 1, '}', len - i - 1);

                end = open != NULL ? (size_t)(open - s) : len;
                if (close != NULL && (size_t)(close - s) < end)
                        end = (size_t)(close - s);
                p->text = s + i;
                p->len = end - i;
                *at = end;
                return true;
        }
        end = i + 1;
        while (end < len && s[end] != '}' && s[end] != ':')
                end++;
        fmt = end;
        while (fmt < len && s[fmt] != '}')
                fmt++;
        p->name = s + i + 1;
        p->name_len = end - (i + 1);
        p->fmt = end < fmt ? s + end + 1 : "";
        p->fmt_len = end < fmt ? fmt - end - 1 : 0;
        p->kind = RULES_FMT_PLAIN;      /* an unknown format: checked at load */
        for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++)
                if (formats[k].len == p->fmt_len &&
                    memcmp(formats[k].name, p->fmt, p->fmt_len) == 0)
                        p->kind = (rules_fmt)k;
        *at = fmt + 1;
        return true;
}

int tpa_rules__render(const rules_env *env, const rules_unit *u, const rules_rule *rule,
                      char *buf, size_t size, tpa_error *err)
{
        const char *s = rules_str_ptr(u, rule->message);
        size_t len = rule->message.len, n = 0, at = 0, k = 0, r = (size_t)(rule - u->rules);
        /* the message in pieces and its names, made with the rule set */
        const rules_piece *piece = u->pieces != NULL ? u->pieces + u->piece_at[r] : NULL;
        const rules_piece *last = u->pieces != NULL ? u->pieces + u->piece_at[r + 1] : NULL;
        const rules_name *names = u->pieces != NULL ? u->msg_names + u->msg_at[r] : NULL;
        rules_piece p;

        buf[0] = '\0';
        while (piece != NULL ? piece < last : tpa_rules__template_next(s, len, &at, &p)) {
                double v;

                if (piece != NULL)
                        p = *piece++;
                if (p.name == NULL) {
                        rules_put_text(buf, size, &n, p.text, p.len);
                        continue;
                }
                if (names != NULL ? !resolved(env, &names[k++], p.name_len, &v)
                                  : !tpa_rules__lookup(env, p.name, p.name_len, &v))
                        return tpa_rules__unknown_in_message(u, rule, &p, err);
                tpa_rules__put_value(buf, size, &n, v, p.kind);
        }
        return 0;
}

int tpa_rules__unknown_in_message(const rules_unit *u, const rules_rule *rule,
                                  const rules_piece *p, tpa_error *err)
{
        tpa_error_setf(err, TPA_ERULE, "unknown metric '%.*s' in the message",
                       (int)(p->name_len > 80 ? 80 : p->name_len), p->name);
        if (err != NULL) {
                err->path = u->path;
                err->line = rule->msg_line;
                err->column = rule->msg_column;
        }
        return TPA_ERULE;
}

