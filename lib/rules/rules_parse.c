/* SPDX-License-Identifier: MIT */
/*
 * rules_parse.c - the lexer and recursive-descent parser of the rule
 * language (doc/rules.md). A rule file becomes one rules_unit: a string
 * pool, a flat array of expression nodes, and its thresholds, classes and
 * findings in file order. Every error carries the 1-based line and column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"
#include "model/utf8.h"

typedef enum tok_kind {
        T_EOF, T_NUM, T_IDENT, T_STRING,
        T_LPAREN, T_RPAREN, T_COMMA, T_COLON, T_ASSIGN,
        T_PLUS, T_MINUS, T_STAR, T_SLASH,
        T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE,
} tok_kind;

typedef struct token {
        tok_kind    kind;
        const char *start;      /* into the text */
        size_t      len;
        uint32_t    line, column;
        double      num;        /* T_NUM, unit applied */
} token;

typedef struct parser {
        const char *text;
        size_t      len;
        size_t      pos;
        uint32_t    line;
        size_t      line_start; /* offset of the current line's first byte */
        token       tok;        /* the current token */
        rules_unit *u;
        tpa_error  *err;
        int         depth;
} parser;

static const struct unit_def {
        const char *name;
        double      scale;
} units[] = {
        { "%", 0.01 },
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
        { "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
        { "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
};

static const char *const keywords[] = {
        "threshold", "class", "finding", "when", "gain", "and", "or", "not",
};

static bool is_alpha(int c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(int c)
{
        return c >= '0' && c <= '9';
}

static bool is_ident_char(int c)
{
        return is_alpha(c) || is_digit(c) || c == '.';
}

/* Class and finding names may also hold '-': "input-bound". */
static bool is_name_char(int c)
{
        return is_ident_char(c) || c == '-';
}

static uint32_t column_at(const parser *p, size_t pos)
{
        return (uint32_t)(pos - p->line_start + 1);
}

static int fail_at(parser *p, uint32_t line, uint32_t column, const char *fmt, ...)
        TPA_PRINTF(4, 5);

static int fail_at(parser *p, uint32_t line, uint32_t column, const char *fmt, ...)
{
        va_list ap;

        if (p->err == NULL)
                return TPA_ERULE;
        va_start(ap, fmt);
        vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
        va_end(ap);
        tpa_utf8__one_line(p->err->msg);        /* as tpa_error_set()'s */
        p->err->code = TPA_ERULE;
        p->err->sys_errno = 0;
        p->err->path = NULL;    /* the caller points it at its own copy */
        p->err->line = line;
        p->err->column = column;
        p->err->has_offset = false;
        return TPA_ERULE;
}

/* A token's text for messages: printable, at most 40 bytes. */
static const char *describe(const token *t, char *buf, size_t size)
{
        size_t n = 0;

        if (t->kind == T_EOF)
                return "end of file";
        for (size_t i = 0; i < t->len && n + 4 < size && i < 40; i++) {
                unsigned char c = (unsigned char)t->start[i];
                buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        }
        buf[n] = '\0';
        return buf;
}

static int fail_tok(parser *p, const char *what)
{
        char buf[48];

        if (p->tok.kind == T_EOF)
                return fail_at(p, p->tok.line, p->tok.column, "%s, found end of file", what);
        return fail_at(p, p->tok.line, p->tok.column, "%s, found '%s'", what,
                       describe(&p->tok, buf, sizeof(buf)));
}

static bool tok_is(const token *t, const char *word)
{
        size_t n = strlen(word);

        return t->kind == T_IDENT && t->len == n && memcmp(t->start, word, n) == 0;
}

static bool is_keyword(const token *t)
{
        /* most names are longer than the longest keyword: no compare with
         * each (speed, bench/: a look at every name the rules hold) */
        if (t->kind != T_IDENT || t->len > sizeof("threshold") - 1)
                return false;
        for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
                if (tok_is(t, keywords[i]))
                        return true;
        return false;
}

bool tpa_rules__parse_value(const char *s, size_t len, double *out)
{
        double v = 0, scale = 1;
        size_t i = 0, digits = 0, frac = 0;
        bool neg = false;

        if (i < len && (s[i] == '-' || s[i] == '+'))
                neg = s[i++] == '-';
        while (i < len && is_digit((unsigned char)s[i])) {
                v = v * 10 + (s[i++] - '0');
                digits++;
        }
        if (i < len && s[i] == '.') {
                i++;
                if (i >= len || !is_digit((unsigned char)s[i]))
                        return false;
                while (i < len && is_digit((unsigned char)s[i])) {
                        v = v * 10 + (s[i++] - '0');
                        frac++;
                }
        }
        if (digits == 0)
                return false;
        if (i + 1 < len && (s[i] == 'e' || s[i] == 'E') &&
            (is_digit((unsigned char)s[i + 1]) ||
             (i + 2 < len && (s[i + 1] == '-' || s[i + 1] == '+') &&
              is_digit((unsigned char)s[i + 2])))) {
                bool eneg = false;
                int e = 0;

                i++;
                if (s[i] == '-' || s[i] == '+')
                        eneg = s[i++] == '-';
                while (i < len && is_digit((unsigned char)s[i])) {
                        if (e < 400)
                                e = e * 10 + (s[i] - '0');
                        i++;
                }
                frac = eneg ? frac + (size_t)e : frac;
                for (int k = 0; !eneg && k < e; k++)
                        scale *= 10;
        }
        for (size_t k = 0; k < frac && v != 0; k++)
                v /= 10;
        v *= scale;
        if (i < len) {
                size_t ulen = len - i;
                size_t k;

                for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
                        if (strlen(units[k].name) == ulen &&
                            memcmp(units[k].name, s + i, ulen) == 0)
                                break;
                if (k == sizeof(units) / sizeof(units[0]))
                        return false;
                v *= units[k].scale;
        }
        *out = neg ? -v : v;
        return true;
}

/* --- lexer --------------------------------------------------------------- */

static void skip_space(parser *p)
{
        while (p->pos < p->len) {
                char c = p->text[p->pos];

                if (c == '\n') {
                        p->pos++;
                        p->line++;
                        p->line_start = p->pos;
                } else if (c == ' ' || c == '\t' || c == '\r') {
                        p->pos++;
                } else if (c == '#') {
                        /* to the end of the line: a comment line of the
                         * rules is longer than most tokens */
                        const char *nl = memchr(p->text + p->pos, '\n', p->len - p->pos);

                        p->pos = nl != NULL ? (size_t)(nl - p->text) : p->len;
                } else {
                        break;
                }
        }
}

static int lex_number(parser *p, token *t)
{
        size_t i = p->pos;
        size_t unit;

        while (i < p->len && is_digit((unsigned char)p->text[i]))
                i++;
        if (i < p->len && p->text[i] == '.') {
                i++;
                if (i >= p->len || !is_digit((unsigned char)p->text[i]))
                        return fail_at(p, t->line, column_at(p, i),
                                       "expected a digit after '.'");
                while (i < p->len && is_digit((unsigned char)p->text[i]))
                        i++;
        }
        if (i + 1 < p->len && (p->text[i] == 'e' || p->text[i] == 'E')) {
                size_t j = i + 1;

                if (j < p->len && (p->text[j] == '-' || p->text[j] == '+'))
                        j++;
                if (j < p->len && is_digit((unsigned char)p->text[j])) {
                        while (j < p->len && is_digit((unsigned char)p->text[j]))
                                j++;
                        i = j;
                }
        }
        unit = i;
        if (i < p->len && p->text[i] == '%')
                i++;
        else
                while (i < p->len && is_ident_char((unsigned char)p->text[i]))
                        i++;
        t->kind = T_NUM;
        t->len = i - p->pos;
        if (!tpa_rules__parse_value(t->start, t->len, &t->num))
                return fail_at(p, t->line, column_at(p, unit),
                               "unknown unit '%.*s' (%%, ns, us, ms, s, B, KiB, MiB, GiB, "
                               "KB, MB, GB)", (int)(i - unit > 20 ? 20 : i - unit),
                               p->text + unit);
        p->pos = i;
        return 0;
}

static int lex_string(parser *p, token *t)
{
        size_t i = p->pos + 1;

        while (i < p->len && p->text[i] != '"' && p->text[i] != '\n') {
                if (p->text[i] == '\\') {
                        if (i + 1 < p->len && (p->text[i + 1] == '"' || p->text[i + 1] == '\\')) {
                                i += 2;
                                continue;
                        }
                        if (i + 1 < p->len && p->text[i + 1] != '\n')
                                return fail_at(p, t->line, column_at(p, i),
                                               "unknown escape '\\%c' (\\\" and \\\\ only)",
                                               (unsigned char)p->text[i + 1] >= 0x20 &&
                                               (unsigned char)p->text[i + 1] < 0x7f ?
                                               p->text[i + 1] : '?');
                }
                i++;
        }
        if (i >= p->len || p->text[i] != '"')
                return fail_at(p, t->line, t->column, "unterminated string");
        t->kind = T_STRING;
        t->len = i + 1 - p->pos;
        p->pos = i + 1;
        return 0;
}

/* Read the next token into p->tok. With `names`, identifiers may hold '-'
 * (class and finding names). */
static int lex(parser *p, bool names)
{
        token *t = &p->tok;
        char c;

        skip_space(p);
        t->start = p->text + p->pos;
        t->line = p->line;
        t->column = column_at(p, p->pos);
        t->len = 1;
        if (p->pos >= p->len) {
                t->kind = T_EOF;
                t->len = 0;
                return 0;
        }
        c = p->text[p->pos];
        if (is_digit((unsigned char)c))
                return lex_number(p, t);
        if (is_alpha((unsigned char)c)) {
                size_t i = p->pos;

                while (i < p->len && (names ? is_name_char((unsigned char)p->text[i])
                                            : is_ident_char((unsigned char)p->text[i])))
                        i++;
                t->kind = T_IDENT;
                t->len = i - p->pos;
                p->pos = i;
                return 0;
        }
        if (c == '"')
                return lex_string(p, t);
        p->pos++;
        switch (c) {
        case '(': t->kind = T_LPAREN; return 0;
        case ')': t->kind = T_RPAREN; return 0;
        case ',': t->kind = T_COMMA; return 0;
        case ':': t->kind = T_COLON; return 0;
        case '+': t->kind = T_PLUS; return 0;
        case '-': t->kind = T_MINUS; return 0;
        case '*': t->kind = T_STAR; return 0;
        case '/': t->kind = T_SLASH; return 0;
        case '<':
        case '>':
        case '=':
        case '!':
                if (p->pos < p->len && p->text[p->pos] == '=') {
                        p->pos++;
                        t->len = 2;
                        t->kind = c == '<' ? T_LE : c == '>' ? T_GE : c == '=' ? T_EQ : T_NE;
                        return 0;
                }
                if (c == '!')
                        return fail_at(p, t->line, t->column,
                                       "unexpected character '!' (use 'not' or '!=')");
                t->kind = c == '<' ? T_LT : c == '>' ? T_GT : T_ASSIGN;
                return 0;
        }
        if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
                return fail_at(p, t->line, t->column, "unexpected character '%c'", c);
        return fail_at(p, t->line, t->column, "unexpected byte 0x%02x", (unsigned char)c);
}

/* --- building the unit --------------------------------------------------- */

bool tpa_rules__grow(void **items, size_t *cap, size_t count, size_t size)
{
        size_t ncap;
        void *n;

        if (count < *cap)
                return true;
        ncap = *cap ? *cap * 2 : 16;
        n = realloc(*items, ncap * size);
        if (n == NULL)
                return false;
        *items = n;
        *cap = ncap;
        return true;
}

#define GROW(p, arr, count, cap) \
        (tpa_rules__grow((void **)&(p)->u->arr, &(p)->u->cap, (p)->u->count,  \
                         sizeof((p)->u->arr[0])) ? 0 : tpa_error_oom((p)->err))

static int intern(parser *p, const char *s, size_t len, rules_str *out)
{
        rules_unit *u = p->u;

        while (u->chars_len + len + 1 > u->chars_cap) {
                size_t ncap = u->chars_cap ? u->chars_cap * 2 : 256;
                char *n = realloc(u->chars, ncap);

                if (n == NULL)
                        return tpa_error_oom(p->err);
                u->chars = n;
                u->chars_cap = ncap;
        }
        memcpy(u->chars + u->chars_len, s, len);
        u->chars[u->chars_len + len] = '\0';
        out->off = (uint32_t)u->chars_len;
        out->len = (uint32_t)len;
        u->chars_len += len + 1;
        return 0;
}

static int new_node(parser *p, rules_node_kind kind, const token *at, int32_t *out)
{
        rules_node *n;
        int r = GROW(p, nodes, node_count, node_cap);

        if (r < 0)
                return r;
        n = &p->u->nodes[p->u->node_count];
        memset(n, 0, sizeof(*n));
        n->kind = (uint8_t)kind;
        n->line = at->line;
        n->column = at->column;
        n->a = n->b = n->next = -1;
        *out = (int32_t)p->u->node_count++;
        return 0;
}

/* --- expressions --------------------------------------------------------- */

/* Levels, loosest first: or, and, not, comparison (does not chain), + -,
 * * /, unary - +, primary. Binary operators are left-associative. */
typedef int (*parse_fn)(parser *p, int32_t *out);

static int parse_or(parser *p, int32_t *out);
static int parse_unary(parser *p, int32_t *out);

static bool starts_operand(const token *t)
{
        if (t->kind == T_IDENT)
                return !is_keyword(t) || tok_is(t, "not");
        return t->kind == T_NUM || t->kind == T_LPAREN || t->kind == T_MINUS ||
               t->kind == T_PLUS;
}

/* Parse the operand that must follow the token `after`. */
static int operand(parser *p, const token *after, parse_fn sub, int32_t *out)
{
        char buf[48];

        if (!starts_operand(&p->tok)) {
                /* At the end of the file or line, point just past `after`. */
                bool at_end = p->tok.kind == T_EOF || p->tok.line != after->line;

                if (p->tok.kind == T_IDENT || p->tok.kind == T_EOF || p->tok.kind == T_RPAREN ||
                    p->tok.kind == T_COMMA || p->tok.kind == T_COLON ||
                    p->tok.kind == T_STRING)
                        return fail_at(p, at_end ? after->line : p->tok.line,
                                       at_end ? after->column + (uint32_t)after->len
                                              : p->tok.column,
                                       "expected an expression after '%s'",
                                       describe(after, buf, sizeof(buf)));
                return fail_tok(p, "expected an expression");
        }
        return sub(p, out);
}

static int enter(parser *p)
{
        if (++p->depth > TPA_RULES_MAX_DEPTH)
                return fail_at(p, p->tok.line, p->tok.column,
                               "expression nested deeper than %d", TPA_RULES_MAX_DEPTH);
        return 0;
}

static int set_height(parser *p, int32_t node)
{
        rules_node *n = &p->u->nodes[node];
        uint32_t h = 0;

        if (n->a >= 0 && p->u->nodes[n->a].height > h)
                h = p->u->nodes[n->a].height;
        if (n->b >= 0 && p->u->nodes[n->b].height > h)
                h = p->u->nodes[n->b].height;
        for (int32_t c = n->kind == NODE_CALL ? n->a : -1; c >= 0; c = p->u->nodes[c].next)
                if (p->u->nodes[c].height > h)
                        h = p->u->nodes[c].height;
        n->height = h + 1;
        if (n->height > TPA_RULES_MAX_HEIGHT)
                return fail_at(p, n->line, n->column, "expression longer than %d operators",
                               TPA_RULES_MAX_HEIGHT);
        return 0;
}

static int make(parser *p, rules_node_kind kind, int op, const token *at, int32_t a,
                int32_t b, int32_t *out)
{
        int r = new_node(p, kind, at, out);

        if (r < 0)
                return r;
        p->u->nodes[*out].op = (uint8_t)op;
        p->u->nodes[*out].a = a;
        p->u->nodes[*out].b = b;
        return set_height(p, *out);
}

static int parse_call(parser *p, const token *name, int32_t *out)
{
        static const struct { const char *name; rules_fn fn; } fns[] = {
                { "min", FN_MIN }, { "max", FN_MAX }, { "abs", FN_ABS },
        };
        char buf[48];
        size_t k, argc = 0;
        int32_t node = -1, last = -1;
        token after = p->tok;           /* '(' */
        int r;

        for (k = 0; k < sizeof(fns) / sizeof(fns[0]); k++)
                if (tok_is(name, fns[k].name))
                        break;
        if (k == sizeof(fns) / sizeof(fns[0]))
                return fail_at(p, name->line, name->column,
                               "unknown function '%s' (min, max, abs)",
                               describe(name, buf, sizeof(buf)));
        r = lex(p, false);
        while (r == 0 && !(argc == 0 && p->tok.kind == T_RPAREN)) {
                int32_t arg;

                r = operand(p, &after, parse_or, &arg);
                if (r < 0)
                        return r;
                if (last < 0)
                        node = arg;
                else
                        p->u->nodes[last].next = arg;
                last = arg;
                argc++;
                if (p->tok.kind == T_RPAREN)
                        break;
                if (p->tok.kind != T_COMMA)
                        return fail_tok(p, "expected ',' or ')' after an argument");
                after = p->tok;
                r = lex(p, false);
        }
        if (r < 0)
                return r;
        if (fns[k].fn == FN_ABS && argc != 1)
                return fail_at(p, name->line, name->column,
                               "'abs' takes 1 argument, not %zu", argc);
        if (argc == 0)
                return fail_at(p, name->line, name->column,
                               "'%s' needs at least 1 argument", fns[k].name);
        r = make(p, NODE_CALL, fns[k].fn, name, node, -1, out);
        if (r < 0)
                return r;
        return lex(p, false);           /* past ')' */
}

static int parse_primary(parser *p, int32_t *out)
{
        token t = p->tok;
        int r;

        if (t.kind == T_NUM) {
                r = make(p, NODE_NUM, 0, &t, -1, -1, out);
                if (r < 0)
                        return r;
                p->u->nodes[*out].num = t.num;
                return lex(p, false);
        }
        if (t.kind == T_LPAREN) {
                r = enter(p);
                if (r == 0)
                        r = lex(p, false);
                if (r == 0)
                        r = operand(p, &t, parse_or, out);
                p->depth--;
                if (r < 0)
                        return r;
                if (p->tok.kind != T_RPAREN)
                        return fail_tok(p, "expected ')'");
                return lex(p, false);
        }
        if (t.kind == T_IDENT && !is_keyword(&t)) {
                if (t.start[t.len - 1] == '.')
                        return fail_at(p, t.line, t.column + (uint32_t)t.len - 1,
                                       "a name cannot end with '.'");
                r = lex(p, false);
                if (r < 0)
                        return r;
                if (p->tok.kind == T_LPAREN) {
                        r = enter(p);
                        if (r == 0)
                                r = parse_call(p, &t, out);
                        p->depth--;
                        return r;
                }
                r = make(p, NODE_NAME, 0, &t, -1, -1, out);
                if (r < 0)
                        return r;
                return intern(p, t.start, t.len, &p->u->nodes[*out].name);
        }
        return fail_tok(p, "expected an expression");
}

static int parse_unary(parser *p, int32_t *out)
{
        token t = p->tok;
        int32_t a;
        int r;

        if (t.kind != T_MINUS && t.kind != T_PLUS)
                return parse_primary(p, out);
        r = enter(p);
        if (r == 0)
                r = lex(p, false);
        if (r == 0)
                r = operand(p, &t, parse_unary, &a);
        p->depth--;
        if (r < 0)
                return r;
        if (t.kind == T_PLUS) {
                *out = a;
                return 0;
        }
        return make(p, NODE_NEG, 0, &t, a, -1, out);
}

static int binary_loop(parser *p, int32_t *out, parse_fn sub, int (*op_of)(const token *))
{
        int32_t lhs = -1, rhs = -1;     /* set when r == 0; gcc -O3 cannot tell */
        int op, r = sub(p, &lhs);

        while (r == 0 && (op = op_of(&p->tok)) >= 0) {
                token t = p->tok;

                r = lex(p, false);
                if (r == 0)
                        r = operand(p, &t, sub, &rhs);
                if (r == 0)
                        r = make(p, NODE_BINARY, op, &t, lhs, rhs, &lhs);
        }
        if (r == 0)
                *out = lhs;
        return r;
}

static int mul_op(const token *t)
{
        return t->kind == T_STAR ? OP_MUL : t->kind == T_SLASH ? OP_DIV : -1;
}

static int add_op(const token *t)
{
        return t->kind == T_PLUS ? OP_ADD : t->kind == T_MINUS ? OP_SUB : -1;
}

static int cmp_op(const token *t)
{
        switch (t->kind) {
        case T_LT: return OP_LT;
        case T_LE: return OP_LE;
        case T_GT: return OP_GT;
        case T_GE: return OP_GE;
        case T_EQ: return OP_EQ;
        case T_NE: return OP_NE;
        default:   return -1;
        }
}

static int and_op(const token *t)
{
        return tok_is(t, "and") ? OP_AND : -1;
}

static int or_op(const token *t)
{
        return tok_is(t, "or") ? OP_OR : -1;
}

static int parse_mul(parser *p, int32_t *out)
{
        return binary_loop(p, out, parse_unary, mul_op);
}

static int parse_add(parser *p, int32_t *out)
{
        return binary_loop(p, out, parse_mul, add_op);
}

static int parse_cmp(parser *p, int32_t *out)
{
        int32_t lhs, rhs;
        int op, r = parse_add(p, &lhs);
        token t = p->tok;

        if (r < 0 || (op = cmp_op(&t)) < 0) {
                if (r == 0)
                        *out = lhs;
                return r;
        }
        r = lex(p, false);
        if (r == 0)
                r = operand(p, &t, parse_add, &rhs);
        if (r == 0)
                r = make(p, NODE_BINARY, op, &t, lhs, rhs, out);
        if (r == 0 && cmp_op(&p->tok) >= 0)
                return fail_at(p, p->tok.line, p->tok.column,
                               "comparisons do not chain: write 'a < b and b < c'");
        return r;
}

static int parse_not(parser *p, int32_t *out)
{
        token t = p->tok;
        int32_t a;
        int r;

        if (!tok_is(&t, "not"))
                return parse_cmp(p, out);
        r = enter(p);
        if (r == 0)
                r = lex(p, false);
        if (r == 0)
                r = operand(p, &t, parse_not, &a);
        p->depth--;
        if (r < 0)
                return r;
        return make(p, NODE_NOT, 0, &t, a, -1, out);
}

static int parse_and(parser *p, int32_t *out)
{
        return binary_loop(p, out, parse_not, and_op);
}

static int parse_or(parser *p, int32_t *out)
{
        return binary_loop(p, out, parse_and, or_op);
}

/* --- statements ---------------------------------------------------------- */

static int expect_word(parser *p, const char *word, token *out)
{
        char what[48];

        if (tok_is(&p->tok, word)) {
                *out = p->tok;
                return lex(p, false);
        }
        snprintf(what, sizeof(what), "expected '%s'", word);
        return fail_tok(p, what);
}

/* A class or finding name; the current token was lexed in name mode. */
static int take_name(parser *p, const char *what, rules_str *out)
{
        char msg[64];
        int r;

        if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
                snprintf(msg, sizeof(msg), "expected a %s name", what);
                return fail_tok(p, msg);
        }
        if (p->tok.len > TPA_RULES_MAX_NAME)
                return fail_at(p, p->tok.line, p->tok.column,
                               "%s name longer than %d characters", what, TPA_RULES_MAX_NAME);
        r = intern(p, p->tok.start, p->tok.len, out);
        if (r == 0)
                r = lex(p, false);
        return r;
}

static int parse_threshold(parser *p)
{
        rules_threshold th = { .line = p->tok.line, .column = p->tok.column };
        bool neg = false;
        int r = lex(p, false);

        if (r < 0)
                return r;
        if (p->tok.kind != T_IDENT || is_keyword(&p->tok))
                return fail_tok(p, "expected a threshold name");
        if (p->tok.len > TPA_RULES_MAX_NAME)
                return fail_at(p, p->tok.line, p->tok.column,
                               "threshold name longer than %d characters", TPA_RULES_MAX_NAME);
        if (p->tok.start[p->tok.len - 1] == '.')
                return fail_at(p, p->tok.line, p->tok.column + (uint32_t)p->tok.len - 1,
                               "a name cannot end with '.'");
        th.line = p->tok.line;
        th.column = p->tok.column;
        r = intern(p, p->tok.start, p->tok.len, &th.name);
        if (r == 0)
                r = lex(p, false);
        if (r < 0)
                return r;
        if (p->tok.kind != T_ASSIGN)
                return fail_tok(p, "expected '=' after the threshold name");
        r = lex(p, false);
        if (r == 0 && p->tok.kind == T_MINUS) {
                neg = true;
                r = lex(p, false);
        }
        if (r < 0)
                return r;
        if (p->tok.kind != T_NUM)
                return fail_tok(p, "expected a number after '='");
        th.value = neg ? -p->tok.num : p->tok.num;
        th.is_frac = p->tok.start[p->tok.len - 1] == '%';
        r = GROW(p, thresholds, threshold_count, threshold_cap);
        if (r < 0)
                return r;
        p->u->thresholds[p->u->threshold_count++] = th;
        return lex(p, false);
}

static int parse_class(parser *p)
{
        token when;
        rules_class c;
        int r = lex(p, true);

        if (r < 0)
                return r;
        c.line = p->tok.line;
        c.column = p->tok.column;
        r = take_name(p, "class", &c.name);
        if (r == 0)
                r = expect_word(p, "when", &when);
        if (r == 0)
                r = operand(p, &when, parse_or, &c.when);
        if (r == 0)
                r = GROW(p, classes, class_count, class_cap);
        if (r < 0)
                return r;
        p->u->classes[p->u->class_count++] = c;
        return 0;
}

static const char *const formats[] = {
        "%", "ns", "us", "ms", "s", "time", "bytes", "KiB", "MiB", "GiB", "int",
};

/* Check the placeholders of a message template whose first character is at
 * column `col`: "{name}" or "{name:format}"; "{{" and "}}" are literal
 * braces. */
static int check_template(parser *p, const char *s, size_t len, uint32_t line, uint32_t col)
{
        for (size_t i = 0; i < len; i++) {
                size_t name, colon, end;

                if (s[i] == '}') {
                        if (i + 1 < len && s[i + 1] == '}') {
                                i++;
                                continue;
                        }
                        return fail_at(p, line, col + (uint32_t)i,
                                       "unmatched '}' in the message (write '}}')");
                }
                if (s[i] != '{')
                        continue;
                if (i + 1 < len && s[i + 1] == '{') {
                        i++;
                        continue;
                }
                name = i + 1;
                end = name;
                while (end < len && is_ident_char((unsigned char)s[end]))
                        end++;
                if (end == name || !is_alpha((unsigned char)s[name]))
                        return fail_at(p, line, col + (uint32_t)i,
                                       "expected a metric name after '{' (write '{{' for a brace)");
                colon = end;
                if (end < len && s[end] == ':') {
                        size_t k;

                        end++;
                        while (end < len && s[end] != '}' && s[end] != '{')
                                end++;
                        for (k = 0; k < sizeof(formats) / sizeof(formats[0]); k++)
                                if (strlen(formats[k]) == end - colon - 1 &&
                                    memcmp(formats[k], s + colon + 1, end - colon - 1) == 0)
                                        break;
                        if (k == sizeof(formats) / sizeof(formats[0]))
                                return fail_at(p, line, col + (uint32_t)colon + 1,
                                               "unknown format '%.*s' (%%, ns, us, ms, s, time, "
                                               "bytes, KiB, MiB, GiB, int)",
                                               (int)(end - colon - 1 > 20 ? 20 : end - colon - 1),
                                               s + colon + 1);
                }
                if (end >= len || s[end] != '}')
                        return fail_at(p, line, col + (uint32_t)i, "unterminated '{' in the message");
                i = end;
        }
        return 0;
}

static int parse_finding(parser *p)
{
        static const char *const sev[] = { "info", "warning", "error" };
        rules_rule f = { .gain = -1 };
        token kw;
        char buf[48];
        size_t k, n, j, cap;
        char *text;
        int r = lex(p, true);

        if (r < 0)
                return r;
        f.line = p->tok.line;
        f.column = p->tok.column;
        r = take_name(p, "finding", &f.name);
        if (r < 0)
                return r;
        if (p->tok.kind != T_IDENT || is_keyword(&p->tok))
                return fail_tok(p, "expected a severity (info, warning, error)");
        for (k = 0; k < 3; k++)
                if (tok_is(&p->tok, sev[k]))
                        break;
        if (k == 3)
                return fail_at(p, p->tok.line, p->tok.column,
                               "unknown severity '%s' (info, warning, error)",
                               describe(&p->tok, buf, sizeof(buf)));
        f.severity = (tpa_severity)k;
        r = lex(p, false);
        if (r == 0)
                r = expect_word(p, "when", &kw);
        if (r == 0)
                r = operand(p, &kw, parse_or, &f.when);
        if (r == 0 && tok_is(&p->tok, "gain")) {
                kw = p->tok;
                r = lex(p, false);
                if (r == 0)
                        r = operand(p, &kw, parse_or, &f.gain);
        }
        if (r < 0)
                return r;
        if (p->tok.kind != T_COLON)
                return fail_tok(p, f.gain < 0 ? "expected 'gain' or ':' after the condition"
                                              : "expected ':' after the gain");
        r = lex(p, false);
        if (r < 0)
                return r;
        if (p->tok.kind != T_STRING)
                return fail_tok(p, "expected a message in double quotes after ':'");
        f.msg_line = p->tok.line;
        f.msg_column = p->tok.column + 1;
        /* Adjacent strings are one message, as in C; resolve the escapes
         * \" and \\ into a copy. */
        cap = 0;
        text = NULL;
        n = 0;
        while (r == 0 && p->tok.kind == T_STRING) {
                r = check_template(p, p->tok.start + 1, p->tok.len - 2, p->tok.line,
                                   p->tok.column + 1);
                if (r < 0)
                        break;
                if (n + p->tok.len > cap) {
                        char *more = realloc(text, n + p->tok.len + 256);

                        if (more == NULL) {
                                r = tpa_error_oom(p->err);
                                break;
                        }
                        text = more;
                        cap = n + p->tok.len + 256;
                }
                for (j = 1; j + 1 < p->tok.len; j++) {
                        if (p->tok.start[j] == '\\')
                                j++;
                        text[n++] = p->tok.start[j];
                }
                r = lex(p, false);
        }
        if (r == 0)
                r = intern(p, text ? text : "", n, &f.message);
        free(text);
        if (r == 0)
                r = GROW(p, rules, rule_count, rule_cap);
        if (r < 0)
                return r;
        p->u->rules[p->u->rule_count++] = f;
        return 0;
}

void tpa_rules__unit_free(rules_unit *u)
{
        if (u == NULL)
                return;
        free(u->path);
        free(u->chars);
        free(u->nodes);
        free(u->thresholds);
        free(u->classes);
        free(u->rules);
        free(u->names);
        free(u->pieces);
        free(u->piece_at);
        free(u->msg_names);
        free(u->msg_at);
        free(u);
}

int tpa_rules__parse(rules_unit **out, const char *text, size_t len, const char *path,
                     bool expr_only, int32_t *root, tpa_error *err)
{
        parser p = { .text = text, .len = len, .line = 1, .err = err };
        int r;

        if (len > TPA_RULES_MAX_BYTES)
                return fail_at(&p, 1, 1, "rule text larger than %u bytes", TPA_RULES_MAX_BYTES);
        p.u = calloc(1, sizeof(*p.u));
        if (p.u == NULL)
                return tpa_error_oom(err);
        if (path != NULL) {
                p.u->path = strdup(path);
                if (p.u->path == NULL) {
                        tpa_rules__unit_free(p.u);
                        return tpa_error_oom(err);
                }
        }
        r = lex(&p, false);
        if (expr_only) {
                if (r == 0 && p.tok.kind == T_EOF)
                        r = fail_at(&p, p.tok.line, p.tok.column, "expected an expression");
                if (r == 0)
                        r = operand(&p, &p.tok, parse_or, root);
                if (r == 0 && p.tok.kind != T_EOF)
                        r = fail_tok(&p, "expected an operator or the end of the expression");
        }
        while (r == 0 && !expr_only && p.tok.kind != T_EOF) {
                if (tok_is(&p.tok, "threshold"))
                        r = parse_threshold(&p);
                else if (tok_is(&p.tok, "class"))
                        r = parse_class(&p);
                else if (tok_is(&p.tok, "finding"))
                        r = parse_finding(&p);
                else if (p.u->threshold_count + p.u->class_count + p.u->rule_count > 0 &&
                         (starts_operand(&p.tok) || cmp_op(&p.tok) >= 0 ||
                          add_op(&p.tok) >= 0 || mul_op(&p.tok) >= 0))
                        r = fail_tok(&p, "expected an operator or a new statement");
                else
                        r = fail_tok(&p, "expected 'threshold', 'class' or 'finding'");
        }
        if (r < 0) {
                tpa_rules__unit_free(p.u);
                if (err != NULL && r != TPA_ENOMEM)
                        err->path = path;
                return r;
        }
        *out = p.u;
        return 0;
}
