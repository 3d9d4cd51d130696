/* SPDX-License-Identifier: MIT */
/*
 * rules_internal.h - the rule engine's inside: one parsed rule file (a
 * "unit": its names, expression nodes and statements), the lexer and parser
 * that build it, and the evaluator that walks its expressions.
 */
#ifndef TPA_RULES_INTERNAL_H
#define TPA_RULES_INTERNAL_H

#include <string.h>

#include <tpa/rules.h>

/* Caps on what a rule file controls. */
#define TPA_RULES_MAX_BYTES   (1u << 20)  /* one rule file or expression */
#define TPA_RULES_MAX_DEPTH   64          /* parentheses, calls, 'not', unary '-' */
#define TPA_RULES_MAX_HEIGHT  256         /* expression tree height */
#define TPA_RULES_MAX_NAME    63          /* class, finding and threshold names */

/* A text slice inside a unit's string pool. */
typedef struct rules_str {
        uint32_t off;
        uint32_t len;
} rules_str;

typedef enum rules_node_kind {
        NODE_NUM,       /* num */
        NODE_NAME,      /* name: a threshold or a metric */
        NODE_NEG,       /* -a */
        NODE_NOT,       /* not a */
        NODE_BINARY,    /* a op b */
        NODE_CALL,      /* fn(a, a.next, ...) */
} rules_node_kind;

typedef enum rules_op {
        OP_ADD, OP_SUB, OP_MUL, OP_DIV,
        OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
        OP_AND, OP_OR,
} rules_op;

typedef enum rules_fn { FN_MIN, FN_MAX, FN_ABS } rules_fn;

typedef struct rules_node {
        uint8_t   kind;         /* rules_node_kind */
        uint8_t   op;           /* rules_op or rules_fn */
        uint32_t  line, column; /* 1-based, of the token that names the node */
        double    num;
        rules_str name;
        int32_t   a, b;         /* children; -1: none */
        int32_t   next;         /* next call argument; -1: none */
        uint32_t  height;       /* 1 + the tallest child: bounds evaluation recursion */
} rules_node;

typedef struct rules_threshold {
        rules_str name;
        double    value;
        bool      is_frac;      /* declared in %: a fraction of step time, 0..1 */
        uint32_t  line, column;
} rules_threshold;

typedef struct rules_class {
        rules_str name;
        int32_t   when;
        uint32_t  line, column;
} rules_class;

typedef struct rules_rule {
        rules_str    name;
        tpa_severity severity;
        int32_t      when;
        int32_t      gain;      /* -1: none */
        rules_str    message;   /* the template, escapes resolved */
        uint32_t     msg_line, msg_column;  /* of the first character inside the quotes */
        uint32_t     line, column;
} rules_rule;

/* What a NODE_NAME, or a name in a message, names in the rule set that
 * holds its unit. */
typedef struct rules_name {
        uint8_t     is_threshold;
        double      value;      /* the threshold's */
        const char *canon;      /* a metric: the unit's first node of that name */
        int32_t     slot;       /* a metric: its place in a query's values
                                   (rules_slots); -1: looked up by name */
} rules_name;

/* The format of a placeholder (doc/rules.md): none, %, int, time, bytes,
 * or a fixed unit. */
typedef enum rules_fmt {
        RULES_FMT_PLAIN, RULES_FMT_PCT, RULES_FMT_INT, RULES_FMT_TIME, RULES_FMT_BYTES,
        RULES_FMT_NS, RULES_FMT_US, RULES_FMT_MS, RULES_FMT_S,
        RULES_FMT_KIB, RULES_FMT_MIB, RULES_FMT_GIB,
} rules_fmt;

/* A piece of a message template: text to copy as it is (`name` NULL),
 * or a placeholder {name} or {name:format}, its format parsed (kind). */
typedef struct rules_piece {
        const char *text, *name, *fmt;
        size_t      len, name_len, fmt_len;
        rules_fmt   kind;
} rules_piece;

/* One parsed rule file. Immutable once parsed, so pointers into `chars`
 * stay valid while the unit lives; only `names` and the messages' pieces
 * and names change, made by the rule set for its thresholds. */
typedef struct rules_unit {
        char            *path;          /* owned copy; NULL for an expression */
        char            *chars;         /* string pool */
        size_t           chars_len, chars_cap;
        rules_node      *nodes;
        size_t           node_count, node_cap;
        rules_threshold *thresholds;
        size_t           threshold_count, threshold_cap;
        rules_class     *classes;
        size_t           class_count, class_cap;
        rules_rule      *rules;
        size_t           rule_count, rule_cap;
        /* per node: its name resolved once (rules.c), so that evaluation
         * neither looks for a threshold nor compares names to find one
         * the query looked up before (bench/: some 60 look-ups per step);
         * NULL: look names up */
        rules_name      *names;
        /* per rule: its message in pieces (rules_piece), rule k's from
         * piece_at[k] to piece_at[k + 1], and the names of its
         * placeholders in turn, from msg_at[k]; NULL: the template read
         * and its names looked up as they come */
        rules_piece     *pieces;
        size_t          *piece_at;
        rules_name      *msg_names;
        size_t          *msg_at;
} rules_unit;

/* A --set override of a threshold. */
typedef struct rules_override {
        char  *name;
        double value;
} rules_override;

struct tpa_rules {
        rules_unit     **units;         /* load order */
        size_t           unit_count;
        rules_override  *overrides;     /* --set, latest wins */
        size_t           override_count;
        const char     **class_names;   /* unique, in the order they are tried */
        size_t           class_name_count;
};

/* True when a unit after the rule set's unit `i` (which is `u`) has a
 * finding named like `f`: f is not queried. */
bool tpa_rules__overridden(const tpa_rules *r, size_t i, const rules_unit *u,
                           const rules_rule *f);

/* The errors of a query: no class matched; name (len bytes) of unit u at
 * line:column names no metric; a message's name does not. Each returns
 * TPA_ERULE. */
int tpa_rules__no_class(tpa_error *err);
int tpa_rules__unknown_name(const rules_unit *u, const char *name, size_t len, uint32_t line,
                            uint32_t column, tpa_error *err);
int tpa_rules__unknown_in_message(const rules_unit *u, const rules_rule *rule,
                                  const rules_piece *p, tpa_error *err);

/* What snprintf(out, 32, "%.*f", dec, v) writes (dec <= 6), and what
 * snprintf(out, 32, "%.3g", v) writes for 1e-4 <= |v| < 10, without
 * printf; 0 (nothing written) when printf must say (rules_eval.c). */
size_t tpa_rules__fmt_fixed(char *out, double v, int dec);
size_t tpa_rules__fmt_g3(char *out, double v);

/* rules/default.tpr, embedded at build time by tools/embed.c. */
extern const char   tpa_rules__default_text[];
extern const size_t tpa_rules__default_len;

/* Parse `len` bytes of rule text into a new unit (`*out`). `path` (may be
 * NULL) is copied and reported in errors. With `expr_only` the text is one
 * expression, whose root goes to *root. */
int  tpa_rules__parse(rules_unit **out, const char *text, size_t len, const char *path,
                      bool expr_only, int32_t *root, tpa_error *err);
void tpa_rules__unit_free(rules_unit *u);

/* Room for one more in *items (of *cap, count used, size bytes each),
 * doubling from 16; false out of memory, *items as it was. */
bool tpa_rules__grow(void **items, size_t *cap, size_t count, size_t size);

static inline const char *rules_str_ptr(const rules_unit *u, rules_str s)
{
        return u->chars + s.off;
}

/* The piece of template s[0..len) at *at, and *at past it; false at the
 * end. A doubled brace is text, one brace. The placeholders were checked
 * at load. */
bool tpa_rules__template_next(const char *s, size_t len, size_t *at, rules_piece *p);

/* Parse a number with an optional unit ("20%", "10us", "64KiB", "-1.5") that
 * fills all `len` bytes; false when it is not one. */
bool tpa_rules__parse_value(const char *s, size_t len, double *out);

/* What evaluation needs besides the unit: the rule set (for thresholds) and
 * the caller's metric lookup. */
/* Names already resolved during one query (a step's findings): the rules
 * name the same few metrics over and over (input_frac in 11 places of the
 * default rules), and the caller's look-up may be a scan of its names. */
#define RULES_MEMO_MAX 32
/* The entries by the pointer a look-up names them with: the expressions
 * name a metric by its canonical node's string, a message by its own text,
 * the same pointers step after step (speed, bench/: a scan of the entries
 * per look-up was a tenth of the analysis' instructions at 100 MB).
 * Open addressing; a pointer not found by RULES_MEMO_PROBES is scanned for. */
#define RULES_MEMO_SLOTS  64
#define RULES_MEMO_PROBES 8
typedef struct rules_memo {
        bool ready;             /* the rest is set on the first look-up */
        struct {
                const char *name;       /* in a unit's string pool */
                size_t      len;
                double      value;
        } v[RULES_MEMO_MAX];
        size_t n;
        struct {
                const char *name;       /* NULL: empty */
                uint32_t    len;
                uint32_t    at;         /* its entry in v[] */
        } by_ptr[RULES_MEMO_SLOTS];
} rules_memo;

/* A query's metric values by slot (rules_name.slot), each fetched once
 * (speed, bench/: the pointer memo's probes and the caller's look-ups
 * were near a third of the rules' instructions). Only `have` is set up
 * for a query. */
#define RULES_SLOTS 256
typedef struct rules_slots {
        uint64_t have[RULES_SLOTS / 64];
        double   v[RULES_SLOTS];
} rules_slots;

typedef struct rules_env {
        const tpa_rules *rules;
        tpa_metric_fn    fn;
        void            *ctx;
        rules_memo      *memo;          /* NULL: look everything up */
        rules_slots     *slots;         /* NULL: by name, through memo */
} rules_env;

/* `name` as a threshold, else as a metric from env->fn; false when it is
 * neither. */
bool tpa_rules__lookup(const rules_env *env, const char *name, size_t len, double *out);

/* Look up `name` as a threshold of the rule set; false when it is none. */
bool tpa_rules__lookup_threshold(const tpa_rules *r, const char *name, size_t len,
                                 double *out);
int  tpa_rules__eval(const rules_env *env, const rules_unit *u, int32_t node, double *out,
                     tpa_error *err);
/* Render a message template into `buf` (always NUL-terminated, truncated). */
int  tpa_rules__render(const rules_env *env, const rules_unit *u, const rules_rule *rule,
                       char *buf, size_t size, tpa_error *err);
/* Append to buf at *n, as tpa_rules__render() does (truncated at
 * size - 1, NUL-terminated): len bytes of s (rules_put_text()), or v in
 * format `kind`. */
static inline void rules_put_text(char *buf, size_t size, size_t *n, const char *s, size_t len)
{
        if (*n + len >= size)
                len = *n + 1 >= size ? 0 : size - 1 - *n;
        memcpy(buf + *n, s, len);
        *n += len;
        buf[*n] = '\0';
}

void tpa_rules__put_value(char *buf, size_t size, size_t *n, double v, rules_fmt kind);

/* A query's findings as they are found: the first few, and their
 * messages, in place, more on the heap (speed, bench/: a malloc per
 * finding's message and per list, for each of a long run's many steps,
 * was much of the queries' time). The messages are one text, each ended
 * by its '\0'; text_at[i] is where list[i]'s starts. Set up by
 * tpa_rules__found_init(); not to be moved after. */
enum { RULES_FOUND_INLINE = 16, RULES_FOUND_TEXT_INLINE = 2048 };

typedef struct rules_found {
        tpa_finding *list;
        size_t      *text_at;
        char        *text;
        size_t       n, cap, len, text_cap;
        bool         heap_list, heap_text;
        tpa_finding  list_in[RULES_FOUND_INLINE];
        size_t       text_at_in[RULES_FOUND_INLINE];
        char         text_in[RULES_FOUND_TEXT_INLINE];
} rules_found;

void tpa_rules__found_init(rules_found *f);
/* Add finding fd with its message, msg[0..len). */
int  tpa_rules__found_add(rules_found *f, const tpa_finding *fd, const char *msg, size_t len,
                          tpa_error *err);
/* Room for one more finding and `len` bytes of its message: 0 or
 * TPA_ENOMEM. */
int  tpa_rules__found_grow(rules_found *f, size_t len, tpa_error *err);

/* Where to write the message (at most `max` bytes with its '\0') of a
 * finding to add; NULL out of memory. Then rules_found_put() adds the
 * finding, its message written, len bytes and the '\0'. Inline: the
 * plan's queries add each finding so (speed, bench/). */
static inline char *rules_found_room(rules_found *f, size_t max, tpa_error *err)
{
        if ((f->n == f->cap || f->len + max > f->text_cap) &&
            tpa_rules__found_grow(f, max, err) < 0)
                return NULL;
        return f->text + f->len;
}

static inline void rules_found_put(rules_found *f, const tpa_finding *fd, size_t len)
{
        f->list[f->n] = *fd;
        f->text_at[f->n++] = f->len;
        f->len += len + 1;
}

/* The query's end: with rc 0, the findings into *out and *count as
 * tpa_rules_findings() gives them; f's memory freed either way. Returns rc,
 * or TPA_ENOMEM. */
int  tpa_rules__found_end(rules_found *f, int rc, tpa_finding **out, size_t *count,
                          tpa_error *err);

#endif
