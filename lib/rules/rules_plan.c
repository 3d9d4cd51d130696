/* SPDX-License-Identifier: MIT */
/*
 * rules_plan.c - a rule set compiled for many queries over one numbering of
 * the metrics (tpa_rules_plan): each name resolved once, to a constant or to
 * a place in the caller's vector, and the whole query (the classes in the
 * order they are tried, then each finding's condition, gain and message's
 * names) made one straight program over registers, 'and', 'or' and 'not'
 * as jumps. A query puts the values its rules name in the registers, runs
 * the program and renders the messages of the findings that hold; it gives
 * what tpa_rules_classify_findings() gives, errors included.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

/* The code: each op reads registers a and b and writes register dst, or
 * jumps to dst. The comparisons keep the order of rules_op's; each test
 * jumps when it holds, or (its _NOT) when it does not, a code apart (speed,
 * bench/: no load and compare of the sense a test). A _NOT is no other
 * comparison: with a NaN, a value not below another is not at or above it. */
typedef enum plan_code {
        C_ADD, C_SUB, C_MUL, C_DIV,             /* v[dst] = v[a] op v[b] */
        C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE,     /* v[dst] = v[a] op v[b], 0 or 1 */
        C_NEG, C_NOT, C_ABS, C_MOV,             /* v[dst] = f(v[a]) */
        C_MIN, C_MAX,                           /* v[dst] = v[b] if below (above) v[a] */
        C_JLT, C_JLT_NOT, C_JLE, C_JLE_NOT,     /* to dst when v[a] op v[b] (does not) */
        C_JGT, C_JGT_NOT, C_JGE, C_JGE_NOT,
        C_JEQ, C_JEQ_NOT, C_JNE, C_JNE_NOT,
        C_JTRUE, C_JTRUE_NOT,                   /* to dst when v[a] is true (is not) */
        C_JMP,                                  /* to dst */
        C_CLASS,                                /* class a holds: to dst */
        C_HIT,                                  /* finding a holds, its gain in v[b] */
        C_END,                                  /* the query's end */
        C_NO_CLASS,                             /* no class holds: an error */
        C_FAIL,                                 /* an unknown metric: fails[a] */
} plan_code;

typedef struct plan_op {
        uint32_t code;          /* plan_code */
        uint32_t dst;
        uint32_t a, b;
} plan_op;

/* Where the query meets a name that is no metric: node `node` of unit u,
 * or (rule not NULL) the placeholder `piece` of rule's message. */
typedef struct plan_fail {
        const rules_unit *u;
        int32_t           node;
        const rules_rule *rule;
        rules_piece       piece;
} plan_fail;

/* A piece of a message as a query writes it: text[off..off + len) of the
 * plan (reg < 0), or the value of register reg in format `kind`. The
 * thresholds a message names are text (speed, bench/: written once, not
 * once a step), joined with the text around them. */
typedef struct plan_piece {
        size_t    off, len;
        int32_t   reg;
        rules_fmt kind;
} plan_piece;

typedef struct plan_finding {
        tpa_finding head;               /* the name, severity, no gain */
        bool        has_gain;
        size_t      piece, end;         /* its message: pieces[piece..end) */
} plan_finding;

/* What the program found: the class, the findings that hold in turn. */
typedef struct plan_hit {
        size_t finding;
        double gain;
} plan_hit;

/* The registers: the metrics the rules name, the constants (numbers,
 * thresholds) from const_base, then the temporaries. The metrics are
 * metric[fetch[0]], metric[fetch[1]], ...; or, when their places are
 * dense (span > 0), each at its place: metric[0..span) in one copy (speed,
 * bench/: the analysis' steps have some 100 metrics, the rules name half). */
struct tpa_rules_plan {
        plan_op      *code;             /* the program, from code[0] */
        size_t        code_len, code_cap;
        double       *consts;
        size_t        const_count, const_cap;
        int          *fetch;
        size_t        fetch_count, fetch_cap;
        size_t        span;
        uint32_t      const_base;
        uint32_t      leaves;           /* registers of metrics and constants */
        uint32_t      reg_count;        /* and of the temporaries after them */
        plan_fail    *fails;
        size_t        fail_count, fail_cap;
        plan_piece   *pieces;
        size_t        piece_count, piece_cap;
        char         *text;             /* of the pieces that are text */
        size_t        text_len, text_cap;
        const char  **classes;          /* names, in the order they are tried */
        plan_finding *findings;         /* in rule order, overridden ones left out */
        size_t        finding_count;
};

/* ---- compiling ----------------------------------------------------------- */

/* A map from 64-bit keys (a constant's bits, a metric's place) to their
 * leaves: open addressing, for rule files of any size. */
typedef struct reg_map {
        uint64_t *key;
        uint32_t *reg;          /* the leaf; UINT32_MAX: empty */
        size_t    cap, n;
} reg_map;

static uint32_t *map_slot(reg_map *m, uint64_t key)
{
        size_t h = (size_t)((key * 0x9e3779b97f4a7c15u) >> 32) & (m->cap - 1);

        while (m->reg[h] != UINT32_MAX && m->key[h] != key)
                h = (h + 1) & (m->cap - 1);
        m->key[h] = key;
        return &m->reg[h];
}

/* The leaf *reg of `key` (UINT32_MAX when new); false out of memory. */
static bool map_find(reg_map *m, uint64_t key, uint32_t **reg)
{
        if (2 * (m->n + 1) > m->cap) {
                reg_map g = { NULL, NULL, m->cap ? m->cap * 2 : 64, 0 };

                g.key = malloc(g.cap * sizeof(*g.key));
                g.reg = malloc(g.cap * sizeof(*g.reg));
                if (g.key == NULL || g.reg == NULL) {
                        free(g.key);
                        free(g.reg);
                        return false;
                }
                memset(g.reg, 0xff, g.cap * sizeof(*g.reg));
                for (size_t i = 0; i < m->cap; i++)
                        if (m->reg[i] != UINT32_MAX)
                                *map_slot(&g, m->key[i]) = m->reg[i];
                g.n = m->n;
                free(m->key);
                free(m->reg);
                *m = g;
        }
        *reg = map_slot(m, key);
        m->n += **reg == UINT32_MAX;
        return true;
}

/* A piece of a message as the template has it: its register (-1: no
 * metric), or for a threshold its value. */
typedef struct raw_piece {
        rules_piece p;
        int32_t     reg;
        bool        is_const;
        double      value;
} raw_piece;

typedef struct compiler {
        tpa_rules_plan     *p;
        const tpa_rules    *r;
        tpa_metric_index_fn index;
        void               *ctx;
        reg_map             consts, metrics;
        const rules_unit   *u;          /* the unit being compiled */
        int32_t            *reg;        /* per node of u: its register; -1: no metric */
        uint32_t            zero, one;  /* registers of the constants 0 and 1 */
        uint32_t            top;        /* temporaries in use */
        size_t             *label;      /* per label of the program: where it is */
        size_t              label_count, label_cap;
        raw_piece          *raw;        /* the messages' pieces, rule after rule */
        size_t              raw_count, raw_cap;
        bool                oom;
} compiler;

/* Until lay_out() places the registers, a leaf of the expressions is a
 * metric by its number in fetch[], or constant k as LEAF_CONST + k. */
#define LEAF_CONST 0x40000000u

static uint32_t constant(compiler *c, double value)
{
        uint64_t bits;
        uint32_t *leaf;
        tpa_rules_plan *p = c->p;

        memcpy(&bits, &value, sizeof(bits));
        if (!map_find(&c->consts, bits, &leaf) ||
            (*leaf == UINT32_MAX &&
             !tpa_rules__grow((void **)&p->consts, &p->const_cap, p->const_count,
                              sizeof(*p->consts)))) {
                c->oom = true;
                return 0;
        }
        if (*leaf == UINT32_MAX) {
                *leaf = LEAF_CONST + (uint32_t)p->const_count;
                p->consts[p->const_count++] = value;
        }
        return *leaf;
}

/* The leaf of name[0..len): a threshold's value, else the caller's
 * metric; -1 when it is neither. */
static int32_t name_reg(compiler *c, const char *name, size_t len)
{
        tpa_rules_plan *p = c->p;
        uint32_t *leaf;
        double v;
        int idx;

        if (tpa_rules__lookup_threshold(c->r, name, len, &v))
                return (int32_t)constant(c, v);
        if ((idx = c->index(c->ctx, name, len)) < 0)
                return -1;
        if (!map_find(&c->metrics, (uint64_t)idx, &leaf) ||
            (*leaf == UINT32_MAX &&
             !tpa_rules__grow((void **)&p->fetch, &p->fetch_cap, p->fetch_count,
                              sizeof(*p->fetch)))) {
                c->oom = true;
                return 0;
        }
        if (*leaf == UINT32_MAX) {
                *leaf = (uint32_t)p->fetch_count;
                p->fetch[p->fetch_count++] = idx;
        }
        return (int32_t)*leaf;
}

static uint32_t leaf_reg(const tpa_rules_plan *p, uint32_t leaf)
{
        if (leaf >= LEAF_CONST)
                return p->const_base + (leaf - LEAF_CONST);
        return p->span > 0 ? (uint32_t)p->fetch[leaf] : leaf;
}

/* Place the registers of the leaves (the plan's comment), and turn the
 * leaves of the nodes (regs), the messages and the constants 0 and 1 into
 * their registers. */
static void lay_out(compiler *c, int32_t **regs)
{
        tpa_rules_plan *p = c->p;
        size_t span = 0;

        for (size_t i = 0; i < p->fetch_count; i++)
                if ((size_t)p->fetch[i] + 1 > span)
                        span = (size_t)p->fetch[i] + 1;
        p->span = span <= 2 * p->fetch_count + 32 ? span : 0;
        p->const_base = (uint32_t)(p->span > 0 ? p->span : p->fetch_count);
        p->leaves = p->const_base + (uint32_t)p->const_count;
        for (size_t i = 0; i < c->r->unit_count; i++)
                for (size_t k = 0; k < c->r->units[i]->node_count; k++)
                        if (regs[i][k] >= 0)
                                regs[i][k] = (int32_t)leaf_reg(p, (uint32_t)regs[i][k]);
        for (size_t i = 0; i < c->raw_count; i++)
                if (c->raw[i].reg >= 0)
                        c->raw[i].reg = (int32_t)leaf_reg(p, (uint32_t)c->raw[i].reg);
        c->zero = leaf_reg(p, c->zero);
        c->one = leaf_reg(p, c->one);
}

/* The leaves of unit u's numbers and names, node by node, into reg;
 * its messages' pieces into c->raw. */
static void resolve_unit(compiler *c, const rules_unit *u, int32_t *reg)
{
        for (size_t k = 0; k < u->node_count; k++) {
                const rules_node *n = &u->nodes[k];

                reg[k] = n->kind == NODE_NUM ? (int32_t)constant(c, n->num)
                       : n->kind == NODE_NAME ? name_reg(c, rules_str_ptr(u, n->name),
                                                         n->name.len)
                       : -1;
        }
        for (size_t i = 0; i < u->rule_count; i++) {
                const rules_rule *f = &u->rules[i];
                size_t at = 0;
                rules_piece q;

                while (tpa_rules__template_next(rules_str_ptr(u, f->message), f->message.len,
                                                &at, &q)) {
                        raw_piece *w;

                        if (!tpa_rules__grow((void **)&c->raw, &c->raw_cap, c->raw_count,
                                             sizeof(*c->raw))) {
                                c->oom = true;
                                return;
                        }
                        w = &c->raw[c->raw_count++];
                        *w = (raw_piece){ q, -1, false, 0 };
                        if (q.name != NULL)
                                w->is_const = tpa_rules__lookup_threshold(c->r, q.name,
                                                                          q.name_len, &w->value);
                        if (q.name != NULL && !w->is_const)
                                w->reg = name_reg(c, q.name, q.name_len);
                }
        }
}

static void emit(compiler *c, plan_code code, uint32_t dst, uint32_t a, uint32_t b)
{
        tpa_rules_plan *p = c->p;

        if (!tpa_rules__grow((void **)&p->code, &p->code_cap, p->code_len, sizeof(*p->code))) {
                c->oom = true;
                return;
        }
        p->code[p->code_len++] = (plan_op){ code, dst, a, b };
}

/* A test's jump: to `to` when the test holds (sense) or does not. */
static void jump(compiler *c, plan_code test, bool sense, uint32_t to, uint32_t a, uint32_t b)
{
        emit(c, sense ? test : (plan_code)(test + 1), to, a, b);
}

static uint32_t temp(compiler *c)
{
        uint32_t reg = c->p->leaves + c->top++;

        if (reg + 1 > c->p->reg_count)
                c->p->reg_count = reg + 1;
        return reg;
}

/* A new label of the program, placed later by place(). */
static uint32_t label(compiler *c)
{
        if (!tpa_rules__grow((void **)&c->label, &c->label_cap, c->label_count,
                             sizeof(*c->label))) {
                c->oom = true;
                return 0;
        }
        c->label[c->label_count] = 0;
        return (uint32_t)c->label_count++;
}

static void place(compiler *c, uint32_t l)
{
        if (l < c->label_count)
                c->label[l] = c->p->code_len;
}

static bool truthy(double v)
{
        return v != 0 && !isnan(v);
}

static void cond(compiler *c, int32_t node, bool sense, uint32_t to);

/* Code that leaves node's value in the register it returns. A temporary
 * it returns stays in use (c->top is past it); the ones below it are free
 * again. The order of evaluation, and so of errors, is tpa_rules__eval()'s. */
static uint32_t value(compiler *c, int32_t node)
{
        const rules_node *n = &c->u->nodes[node];
        uint32_t mark = c->top, a, b, dst, zero, end;
        tpa_rules_plan *p = c->p;

        switch ((rules_node_kind)n->kind) {
        case NODE_NUM:
        case NODE_NAME:
                if (c->reg[node] >= 0)
                        return (uint32_t)c->reg[node];
                if (!tpa_rules__grow((void **)&p->fails, &p->fail_cap, p->fail_count,
                                     sizeof(*p->fails))) {
                        c->oom = true;
                        return c->zero;
                }
                p->fails[p->fail_count] = (plan_fail){ .u = c->u, .node = node };
                emit(c, C_FAIL, 0, (uint32_t)p->fail_count++, 0);
                return c->zero;         /* not reached when run */
        case NODE_NEG:
        case NODE_NOT:
                a = value(c, n->a);
                c->top = mark;
                dst = temp(c);
                emit(c, n->kind == NODE_NEG ? C_NEG : C_NOT, dst, a, 0);
                return dst;
        case NODE_CALL:
                a = value(c, n->a);
                if (n->op == FN_ABS) {
                        c->top = mark;
                        dst = temp(c);
                        emit(c, C_ABS, dst, a, 0);
                        return dst;
                }
                for (int32_t k = c->u->nodes[n->a].next; k >= 0; k = c->u->nodes[k].next) {
                        b = value(c, k);
                        c->top = mark;
                        dst = temp(c);
                        emit(c, n->op == FN_MIN ? C_MIN : C_MAX, dst, a, b);
                        a = dst;
                }
                return a;
        case NODE_BINARY:
                break;
        }
        if (n->op == OP_AND || n->op == OP_OR) {
                zero = label(c);
                end = label(c);
                cond(c, node, false, zero);
                c->top = mark;
                dst = temp(c);
                emit(c, C_MOV, dst, c->one, 0);
                emit(c, C_JMP, end, 0, 0);
                place(c, zero);
                emit(c, C_MOV, dst, c->zero, 0);
                place(c, end);
                return dst;
        }
        a = value(c, n->a);
        b = value(c, n->b);
        c->top = mark;
        dst = temp(c);
        emit(c, (plan_code)(C_ADD + (n->op - OP_ADD)), dst, a, b);
        return dst;
}

/* Code that jumps to label `to` when node's value is true (sense) or
 * false (!sense), and else goes on: 'and' and 'or' stop at the side that
 * decides, as tpa_rules__eval() does. */
static void cond(compiler *c, int32_t node, bool sense, uint32_t to)
{
        const rules_node *n = &c->u->nodes[node];
        uint32_t mark = c->top, a, b, skip;

        if (n->kind == NODE_NUM) {
                if (truthy(n->num) == sense)
                        emit(c, C_JMP, to, 0, 0);
                return;
        }
        if (n->kind == NODE_NOT) {
                cond(c, n->a, !sense, to);
                return;
        }
        if (n->kind == NODE_BINARY && (n->op == OP_AND || n->op == OP_OR)) {
                if (sense == (n->op == OP_OR)) {        /* either side decides */
                        cond(c, n->a, sense, to);
                        cond(c, n->b, sense, to);
                        return;
                }
                skip = label(c);                        /* both sides must */
                cond(c, n->a, !sense, skip);
                cond(c, n->b, sense, to);
                place(c, skip);
                return;
        }
        if (n->kind == NODE_BINARY && n->op >= OP_LT && n->op <= OP_NE) {
                a = value(c, n->a);
                b = value(c, n->b);
                jump(c, (plan_code)(C_JLT + 2 * (n->op - OP_LT)), sense, to, a, b);
        } else {
                a = value(c, node);
                jump(c, C_JTRUE, sense, to, a, 0);
        }
        c->top = mark;
}

/* Code that fails on the first placeholder of f's message (pieces q[0..n))
 * that names no metric, as rendering it would. */
static void check_message(compiler *c, const rules_rule *f, const raw_piece *q, size_t n)
{
        tpa_rules_plan *p = c->p;
        size_t i = 0;

        while (i < n && !(q[i].p.name != NULL && !q[i].is_const && q[i].reg < 0))
                i++;
        if (i == n)
                return;
        if (!tpa_rules__grow((void **)&p->fails, &p->fail_cap, p->fail_count, sizeof(*p->fails))) {
                c->oom = true;
                return;
        }
        p->fails[p->fail_count] = (plan_fail){ .u = c->u, .node = -1, .rule = f, .piece = q[i].p };
        emit(c, C_FAIL, 0, (uint32_t)p->fail_count++, 0);
}

/* Append len bytes of s to the plan's text, to the piece of text last
 * added when it is the last piece (`join`), else to a new one. */
static void add_text(compiler *c, const char *s, size_t len, bool join)
{
        tpa_rules_plan *p = c->p;

        while (p->text_len + len > p->text_cap) {
                char *t = realloc(p->text, p->text_cap ? p->text_cap * 2 : 256);

                if (t == NULL) {
                        c->oom = true;
                        return;
                }
                p->text = t;
                p->text_cap = p->text_cap ? p->text_cap * 2 : 256;
        }
        if (!join) {
                if (!tpa_rules__grow((void **)&p->pieces, &p->piece_cap, p->piece_count,
                          sizeof(*p->pieces))) {
                        c->oom = true;
                        return;
                }
                p->pieces[p->piece_count++] = (plan_piece){ p->text_len, 0, -1, RULES_FMT_PLAIN };
        }
        memcpy(p->text + p->text_len, s, len);
        p->text_len += len;
        p->pieces[p->piece_count - 1].len += len;
}

/* The pieces a query writes for message q[0..n) (finding pf's): text,
 * the thresholds written in their formats, the metrics' placeholders. A
 * name that is no metric leaves nothing: the program fails first. */
static void add_message(compiler *c, plan_finding *pf, const raw_piece *q, size_t n)
{
        tpa_rules_plan *p = c->p;
        char buf[TPA_FINDING_MESSAGE_MAX];
        bool join = false;

        pf->piece = p->piece_count;
        for (size_t i = 0; i < n && !c->oom; i++) {
                size_t len = 0;

                if (q[i].p.name == NULL) {
                        add_text(c, q[i].p.text, q[i].p.len, join);
                } else if (q[i].is_const) {
                        tpa_rules__put_value(buf, sizeof(buf), &len, q[i].value, q[i].p.kind);
                        add_text(c, buf, len, join);
                } else if (q[i].reg >= 0) {
                        if (!tpa_rules__grow((void **)&p->pieces, &p->piece_cap, p->piece_count,
                                  sizeof(*p->pieces))) {
                                c->oom = true;
                                break;
                        }
                        p->pieces[p->piece_count++] = (plan_piece){ 0, 0, q[i].reg, q[i].p.kind };
                }
                join = p->piece_count > pf->piece && p->pieces[p->piece_count - 1].reg < 0;
        }
        pf->end = p->piece_count;
}

/* The program: the classes of the last unit first, each jumping to the
 * findings when it holds; then each finding of the units in turn. */
static void compile_queries(compiler *c, int32_t **regs)
{
        const tpa_rules *r = c->r;
        tpa_rules_plan *p = c->p;
        size_t classes = 0, rules = 0, raw = 0;
        uint32_t found, next;

        for (size_t i = 0; i < r->unit_count; i++) {
                classes += r->units[i]->class_count;
                rules += r->units[i]->rule_count;
        }
        p->classes = malloc((classes ? classes : 1) * sizeof(*p->classes));
        p->findings = malloc((rules ? rules : 1) * sizeof(*p->findings));
        if (p->classes == NULL || p->findings == NULL) {
                c->oom = true;
                return;
        }
        found = label(c);
        classes = 0;
        for (size_t i = r->unit_count; i-- > 0;) {
                c->u = r->units[i];
                c->reg = regs[i];
                for (size_t k = 0; k < c->u->class_count; k++, classes++) {
                        p->classes[classes] = rules_str_ptr(c->u, c->u->classes[k].name);
                        next = label(c);
                        cond(c, c->u->classes[k].when, false, next);
                        emit(c, C_CLASS, found, (uint32_t)classes, 0);
                        place(c, next);
                }
        }
        emit(c, C_NO_CLASS, 0, 0, 0);
        place(c, found);
        for (size_t i = 0; i < r->unit_count; i++) {
                const rules_unit *u = c->u = r->units[i];

                c->reg = regs[i];
                for (size_t k = 0; k < u->rule_count; k++) {
                        const rules_rule *f = &u->rules[k];
                        size_t at = 0, pieces = 0;
                        plan_finding *pf = &p->findings[p->finding_count];
                        uint32_t gain = c->zero;
                        rules_piece q;

                        while (tpa_rules__template_next(rules_str_ptr(u, f->message),
                                                        f->message.len, &at, &q))
                                pieces++;
                        raw += pieces;
                        if (tpa_rules__overridden(r, i, u, f))
                                continue;
                        memset(pf, 0, sizeof(*pf));
                        memcpy(pf->head.name, rules_str_ptr(u, f->name), f->name.len);
                        pf->head.severity = f->severity;
                        pf->head.gain_frac = -1;
                        pf->has_gain = f->gain >= 0;
                        add_message(c, pf, c->raw + raw - pieces, pieces);
                        next = label(c);
                        c->top = 0;
                        cond(c, f->when, false, next);
                        if (pf->has_gain)
                                gain = value(c, f->gain);
                        check_message(c, f, c->raw + raw - pieces, pieces);
                        emit(c, C_HIT, 0, (uint32_t)p->finding_count++, gain);
                        place(c, next);
                }
        }
        emit(c, C_END, 0, 0, 0);
        for (size_t i = 0; !c->oom && i < p->code_len; i++)
                if (p->code[i].code >= C_JLT && p->code[i].code <= C_CLASS)
                        p->code[i].dst = (uint32_t)c->label[p->code[i].dst];
}

int tpa_rules_plan_new(tpa_rules_plan **out, const tpa_rules *r, tpa_metric_index_fn index,
                       void *ctx, tpa_error *err)
{
        tpa_rules_plan *p = calloc(1, sizeof(*p));
        int32_t **regs = calloc(r->unit_count + 1, sizeof(*regs));
        compiler c = { .p = p, .r = r, .index = index, .ctx = ctx };

        c.oom = p == NULL || regs == NULL;
        if (!c.oom) {
                c.zero = constant(&c, 0);
                c.one = constant(&c, 1);
        }
        /* the leaves of every unit first: the temporaries come after them */
        for (size_t i = 0; !c.oom && i < r->unit_count; i++) {
                const rules_unit *u = r->units[i];

                regs[i] = malloc((u->node_count ? u->node_count : 1) * sizeof(*regs[i]));
                if (regs[i] == NULL)
                        c.oom = true;
                else
                        resolve_unit(&c, u, regs[i]);
        }
        if (!c.oom) {
                lay_out(&c, regs);
                p->reg_count = p->leaves;
                compile_queries(&c, regs);
        }
        for (size_t i = 0; regs != NULL && i < r->unit_count; i++)
                free(regs[i]);
        free(regs);
        free(c.consts.key);
        free(c.consts.reg);
        free(c.metrics.key);
        free(c.metrics.reg);
        free(c.label);
        free(c.raw);
        if (c.oom) {
                tpa_rules_plan_free(p);
                return tpa_error_oom(err);
        }
        *out = p;
        return 0;
}

void tpa_rules_plan_free(tpa_rules_plan *p)
{
        if (p == NULL)
                return;
        free(p->code);
        free(p->consts);
        free(p->fetch);
        free(p->fails);
        free(p->pieces);
        free(p->text);
        free(p->classes);
        free(p->findings);
        free(p);
}

/* ---- queries ------------------------------------------------------------- */

/* Run the program over registers v: the class into *cls, the findings
 * that hold into hits[0..*nhit); or an error. */
static int run(const tpa_rules_plan *p, double *v, size_t *cls, plan_hit *hits, size_t *nhit,
               tpa_error *err)
{
        const plan_op *o = p->code;
        const plan_fail *f;
        const rules_node *nd;
        size_t n = 0;

#define JUMP_IF(test)                                   \
        if (test) {                                     \
                o = &p->code[o->dst];                   \
                continue;                               \
        }                                               \
        break
        for (;;) {
                switch ((plan_code)o->code) {
                case C_ADD: v[o->dst] = v[o->a] + v[o->b]; break;
                case C_SUB: v[o->dst] = v[o->a] - v[o->b]; break;
                case C_MUL: v[o->dst] = v[o->a] * v[o->b]; break;
                case C_DIV: v[o->dst] = v[o->b] == 0 ? 0 : v[o->a] / v[o->b]; break;
                case C_LT:  v[o->dst] = v[o->a] < v[o->b]; break;
                case C_LE:  v[o->dst] = v[o->a] <= v[o->b]; break;
                case C_GT:  v[o->dst] = v[o->a] > v[o->b]; break;
                case C_GE:  v[o->dst] = v[o->a] >= v[o->b]; break;
                case C_EQ:  v[o->dst] = v[o->a] == v[o->b]; break;
                case C_NE:  v[o->dst] = v[o->a] != v[o->b]; break;
                case C_NEG: v[o->dst] = -v[o->a]; break;
                case C_NOT: v[o->dst] = truthy(v[o->a]) ? 0 : 1; break;
                case C_ABS: v[o->dst] = fabs(v[o->a]); break;
                case C_MOV: v[o->dst] = v[o->a]; break;
                case C_MIN: v[o->dst] = v[o->b] < v[o->a] ? v[o->b] : v[o->a]; break;
                case C_MAX: v[o->dst] = v[o->b] > v[o->a] ? v[o->b] : v[o->a]; break;
                case C_JLT:      JUMP_IF(v[o->a] < v[o->b]);
                case C_JLT_NOT:  JUMP_IF(!(v[o->a] < v[o->b]));
                case C_JLE:      JUMP_IF(v[o->a] <= v[o->b]);
                case C_JLE_NOT:  JUMP_IF(!(v[o->a] <= v[o->b]));
                case C_JGT:      JUMP_IF(v[o->a] > v[o->b]);
                case C_JGT_NOT:  JUMP_IF(!(v[o->a] > v[o->b]));
                case C_JGE:      JUMP_IF(v[o->a] >= v[o->b]);
                case C_JGE_NOT:  JUMP_IF(!(v[o->a] >= v[o->b]));
                case C_JEQ:      JUMP_IF(v[o->a] == v[o->b]);
                case C_JEQ_NOT:  JUMP_IF(!(v[o->a] == v[o->b]));
                case C_JNE:      JUMP_IF(v[o->a] != v[o->b]);
                case C_JNE_NOT:  JUMP_IF(!(v[o->a] != v[o->b]));
                case C_JTRUE:    JUMP_IF(truthy(v[o->a]));
                case C_JTRUE_NOT: JUMP_IF(!truthy(v[o->a]));
                case C_JMP:      JUMP_IF(true);
                case C_CLASS:
                        *cls = o->a;
                        JUMP_IF(true);
                case C_HIT:
                        hits[n++] = (plan_hit){ o->a, v[o->b] };
                        break;
                case C_END:
                        *nhit = n;
                        return 0;
                case C_NO_CLASS:
                        return tpa_rules__no_class(err);
                case C_FAIL:
                        f = &p->fails[o->a];
                        if (f->rule != NULL)
                                return tpa_rules__unknown_in_message(f->u, f->rule, &f->piece,
                                                                     err);
                        nd = &f->u->nodes[f->node];
                        return tpa_rules__unknown_name(f->u, rules_str_ptr(f->u, nd->name),
                                                       nd->name.len, nd->line, nd->column, err);
                }
                o++;
        }
#undef JUMP_IF
}

/* Finding f's message, over registers v, into buf (size bytes); its
 * length. The program checked its names. */
static size_t render(const tpa_rules_plan *p, const plan_finding *f, const double *v,
                     char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = f->piece; i < f->end; i++) {
                const plan_piece *q = &p->pieces[i];

                if (q->reg < 0)
                        rules_put_text(buf, size, &n, p->text + q->off, q->len);
                else
                        tpa_rules__put_value(buf, size, &n, v[q->reg], q->kind);
        }
        return n;
}

/* The query over registers v, their leaves set, and room for every
 * finding in hits. */
static int verdict(const tpa_rules_plan *p, double *v, plan_hit *hits, const char **out_class,
                   tpa_finding **out, size_t *count, tpa_error *err)
{
        size_t cls = 0, nhit = 0;
        rules_found found;
        int rc = run(p, v, &cls, hits, &nhit, err);

        if (rc < 0)
                return rc;
        *out_class = p->classes[cls];
        tpa_rules__found_init(&found);
        for (size_t i = 0; i < nhit && rc == 0; i++) {
                const plan_finding *f = &p->findings[hits[i].finding];
                tpa_finding fd = f->head;
                char *msg = rules_found_room(&found, TPA_FINDING_MESSAGE_MAX, err);

                if (msg == NULL) {
                        rc = TPA_ENOMEM;
                        break;
                }
                if (f->has_gain)
                        fd.gain_frac = hits[i].gain;
                rules_found_put(&found, &fd, render(p, f, v, msg, TPA_FINDING_MESSAGE_MAX));
        }
        return tpa_rules__found_end(&found, rc, out, count, err);
}

/* Speed (bench/): registers and findings on the stack unless the rules
 * need more. */
enum { PLAN_STACK_REGS = 256, PLAN_STACK_HITS = 64 };

int tpa_rules_plan_verdict(const tpa_rules_plan *p, const double *metric,
                           const char **out_class, tpa_finding **out, size_t *count,
                           tpa_error *err)
{
        double stack[PLAN_STACK_REGS];
        plan_hit stack_hits[PLAN_STACK_HITS];
        double *v = p->reg_count <= PLAN_STACK_REGS ? stack : malloc(p->reg_count * sizeof(*v));
        plan_hit *hits = p->finding_count <= PLAN_STACK_HITS ? stack_hits
                       : malloc(p->finding_count * sizeof(*hits));
        int rc = TPA_ENOMEM;

        if (v != NULL && hits != NULL) {
                if (p->span > 0)
                        memcpy(v, metric, p->span * sizeof(*v));
                for (size_t i = 0; p->span == 0 && i < p->fetch_count; i++)
                        v[i] = metric[p->fetch[i]];
                memcpy(v + p->const_base, p->consts, p->const_count * sizeof(*v));
                rc = verdict(p, v, hits, out_class, out, count, err);
        } else {
                tpa_error_oom(err);
        }
        if (v != stack)
                free(v);
        if (hits != stack_hits)
                free(hits);
        return rc;
}
