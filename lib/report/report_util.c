/* SPDX-License-Identifier: MIT */
/*
 * report_util.c - formatting helpers shared by the JSON, Markdown and HTML
 * reports: UTF-8 repair, durations, HTML and Markdown escaping.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

#if defined(__GNUC__) && defined(__SSE2__) && !defined(TPA_JSON_SCALAR)
#define JW_SSE2 1
#include <emmintrin.h>
#endif

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
        uint32_t cp;
        size_t len;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                len = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                len = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                len = 4, cp = s[0] & 0x07;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

size_t tpa_report__utf8(char *dst, const char *s, size_t len)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t o = 0;

        for (size_t i = 0; i < len;) {
                size_t k = utf8_seq(u + i, len - i);
                if (k == 0) {
                        memcpy(dst + o, "\xef\xbf\xbd", 3);
                        o += 3;
                        i++;
                } else {
                        memcpy(dst + o, s + i, k);
                        o += k;
                        i += k;
                }
        }
        dst[o] = '\0';
        return o;
}

const char *tpa_report__verdict(const tpa_analysis *a)
{
        if (a->no_verdict != NULL)
                return "none";
        return a->run_class != NULL ? a->run_class : "(no rules)";
}

const char *tpa_report__host_part(const tpa_analysis *a)
{
        static const struct { tpa_bucket b; const char *name; } parts[] = {
                { TPA_BUCKET_HOST_LAUNCH, "launch" }, { TPA_BUCKET_HOST_SETUP, "setup" },
                { TPA_BUCKET_HOST_PYTHON, "python" }, { TPA_BUCKET_HOST_COMPUTE, "CPU ops" },
        };
        size_t best = 0;

        for (size_t i = 1; i < sizeof(parts) / sizeof(parts[0]); i++)
                if (a->run_frac[parts[i].b] > a->run_frac[parts[best].b])
                        best = i;
        return parts[best].name;
}

const char *tpa_report__verdict_why(const tpa_analysis *a, char *buf, size_t size)
{
        buf[0] = '\0';
        if (a->no_verdict != NULL)
                snprintf(buf, size, "(%s)", a->no_verdict);
        else if (a->run_class != NULL && a->breakdown_class != NULL &&
                 strcmp(a->run_class, a->breakdown_class) != 0)
                snprintf(buf, size, "(most step time; the breakdown says %s: mixed)",
                         a->breakdown_class);
        else if (a->run_class != NULL && strcmp(a->run_class, "host-bound") == 0)
                snprintf(buf, size, "(mostly %s)", tpa_report__host_part(a));
        return buf;
}

double tpa_report__device_busy(const tpa_analysis *a)
{
        double v;

        return tpa_analysis_metric(a, -1, "device_busy_frac", strlen("device_busy_frac"), &v)
               ? v : 0;
}

double tpa_report__group_delta(const tpa_comparison *c, int g)
{
        /* shares to the 6 digits a saved report keeps, so that a trace and
         * its own report differ by nothing */
        return c->median.new_ns * (round(c->new_group_frac[g] * 1e6) / 1e6) -
               c->median.base_ns * (round(c->base_group_frac[g] * 1e6) / 1e6);
}

const char *tpa_report__time_change(char *buf, size_t size, double ns)
{
        char t[32];

        tpa_report__time(t, sizeof(t), fabs(ns));
        snprintf(buf, size, "%c%s", ns < 0 ? '-' : '+', t);
        return buf;
}

const char *tpa_report__time(char *buf, size_t size, double ns)
{
        if (ns >= 1e9)
                snprintf(buf, size, "%.2f s", ns / 1e9);
        else if (ns >= 1e6)
                snprintf(buf, size, "%.1f ms", ns / 1e6);
        else if (ns >= 1e3)
                snprintf(buf, size, "%.1f us", ns / 1e3);
        else
                snprintf(buf, size, "%.0f ns", ns);
        return buf;
}

/* "00" to "99": two digits a division. */
static const char digit_pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";

size_t tpa_report__g6(char *buf, double v)
{
        static const double pow10[] = {
                1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                1e15, 1e16,
        };
        double a = fabs(v), scaled, frac;
        uint64_t bits;
        uint32_t digits;
        int k, x;
        /* the digits, and room after them for the copies of 8 bytes */
        char d[16] = { 0 }, *p = buf;
        size_t n;

        /* the reports' most common value (speed, bench/: snprintf wrote
         * each zero fraction of every step) */
        if (v == 0) {
                if (signbit(v))
                        *p++ = '-';
                *p++ = '0';
                *p = '\0';
                return (size_t)(p - buf);
        }
        /* scaled = a * 10^k in [1e5, 1e6): six digits before the point. The
         * product is rounded once (relative error 2^-53, < 2e-10 here; the
         * powers are exact), so the digits are right unless the fraction is
         * that close to .5; values near the ends of the range take snprintf
         * too. Below 1e-4 %g writes an exponent: to 1e-10 here. */
        if (!(a >= 1e-10 && a < 1e6))
                goto slow;
        /* k from the binary exponent e: floor(e * log10(2)) (1233 / 4096,
         * kept positive for the division) is the decimal exponent or one
         * less, so k is right or one too large. Any k that puts scaled in
         * the range gives the right digits. */
        memcpy(&bits, &a, sizeof(bits));
        x = (int)(bits >> 52) - 1023;
        k = 5 - ((x * 1233 + 4096 * 20) / 4096 - 20);
        scaled = a * pow10[k];
        if (scaled >= 1e6 && k > 0)
                scaled = a * pow10[--k];
        if (scaled < 100000.0 || scaled >= 999999.0)
                goto slow;
        digits = (uint32_t)scaled;
        frac = scaled - digits;
        if (frac > 0.5 - 1e-6 && frac < 0.5 + 1e-6)
                goto slow;
        digits += frac > 0.5;
        memcpy(d, digit_pairs + 2 * (digits / 10000), 2);
        memcpy(d + 2, digit_pairs + 2 * (digits / 100 % 100), 2);
        memcpy(d + 4, digit_pairs + 2 * (digits % 100), 2);
        n = 6;
        while (n > 1 && d[n - 1] == '0')
                n--;                    /* %g drops trailing zeros */
        x = 5 - k;                      /* the exponent of the first digit */
        if (v < 0)
                *p++ = '-';
        /* runs of digits copied 8 bytes at a time, what is past them written
         * over next or past the end (speed, bench/: a call of memcpy for a
         * length it cannot know cost more than the rest of a number); buf
         * has room: at most "-0.000" and 8 bytes */
        if (x < -4) {                   /* d.ddddde-XX */
                *p++ = d[0];
                if (n > 1) {
                        *p++ = '.';
                        memcpy(p, d + 1, 8);
                        p += n - 1;
                }
                memcpy(p, "e-", 2);
                memcpy(p + 2, digit_pairs + 2 * -x, 2);
                p += 4;
        } else if (x >= 0) {
                memcpy(p, d, 8);
                p += x + 1;
                if (n > (size_t)x + 1) {
                        *p++ = '.';
                        memcpy(p, d + x + 1, 8);
                        p += n - (size_t)x - 1;
                }
        } else {                        /* 0.ddddd, 0.0ddddd to 0.000ddddd */
                memcpy(p, "0.000", 5);
                p += 1 - x;
                memcpy(p, d, 8);
                p += n;
        }
        *p = '\0';
        return (size_t)(p - buf);
slow:
        return (size_t)snprintf(buf, 32, "%.6g", v);
}

double tpa_report__step_group(const tpa_step *s, tpa_group g)
{
        double f = 0;

        for (int b = 0; b < TPA_BUCKET__COUNT; b++)
                if (tpa_bucket_group((tpa_bucket)b) == g)
                        f += s->frac[b];
        return f;
}

/* What an escaper writes for a byte, NULL for the byte itself. */
typedef const char *escape_fn(unsigned char c);

static const char *html_entity(unsigned char c)
{
        switch (c) {
        case '&':  return "&amp;";
        case '<':  return "&lt;";
        case '>':  return "&gt;";
        case '"':  return "&quot;";
        case '\'': return "&#39;";
        default:   return NULL;
        }
}

static const char *md_entity(unsigned char c)
{
        switch (c) {
        case '|':  return "\\|";
        case '\\': return "\\\\";      /* or "a\\|b" would end the cell */
        case '[':  return "\\[";       /* or "[x](url)" would be a link */
        case ']':  return "\\]";
        case '`':  return "\\`";
        case '*':  return "\\*";
        case '_':  return "\\_";
        case '<':  return "&lt;";
        case '>':  return "&gt;";
        case '&':  return "&amp;";     /* or "&lt;" in a name would show as "<" */
        default:   return NULL;
        }
}

/* Write s[0, cut) through `esc`, n bytes of `s` being readable: a
 * character that would cross `cut` is left out whole, a byte of invalid
 * UTF-8 is `bad`, a control character a space. */
static void escape_to(FILE *fp, const char *s, size_t n, size_t cut, escape_fn *esc,
                      const char *bad)
{
        const unsigned char *u = (const unsigned char *)s;

        for (size_t i = 0; i < cut;) {
                size_t k = utf8_seq(u + i, n - i);
                const char *e;
                if (k == 0) {
                        fputs(bad, fp);
                        i++;
                        continue;
                }
                if (i + k > cut)
                        break;
                if ((e = esc(u[i])) != NULL)
                        fputs(e, fp);
                else if (u[i] < 0x20)
                        fputc(' ', fp);
                else
                        fwrite(s + i, 1, k, fp);
                i += k;
        }
}

void tpa_report__html_escape(FILE *fp, const char *s)
{
        size_t n = strlen(s);

        escape_to(fp, s, n, n, html_entity, "&#xfffd;");
}

/* Markdown's escape of s[0, cut), as escape_to(). */
static void md_escape_to(FILE *fp, const char *s, size_t n, size_t cut)
{
        escape_to(fp, s, n, cut, md_entity, "\xef\xbf\xbd");
}

void tpa_report__md_escape(FILE *fp, const char *s, size_t max)
{
        size_t n = strlen(s), cut = n > max ? (max > 3 ? max - 3 : 0) : n;

        md_escape_to(fp, s, n, cut);
        if (cut < n)
                fputs("...", fp);
}

void tpa_report__md_escape_span(FILE *fp, const char *s, size_t len)
{
        md_escape_to(fp, s, len, len);
}

/* The length of the control character at s (n > 0 bytes readable): 1 for
 * C0 and DEL, 2 for C1 (U+0080..U+009F, "\xc2\x80" to "\xc2\x9f"), else 0. */
static size_t control_len(const unsigned char *s, size_t n)
{
        if (s[0] < 0x20 || s[0] == 0x7f)
                return 1;
        if (s[0] == 0xc2 && n > 1 && s[1] >= 0x80 && s[1] <= 0x9f)
                return 2;
        return 0;
}

void tpa_report__put_plain(FILE *fp, const char *s, size_t n)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t from = 0, i = 0, k;

        while (i < n) {
                if ((k = control_len(u + i, n - i)) == 0) {
                        i++;
                        continue;
                }
                fwrite(s + from, 1, i - from, fp);
                fputc('?', fp);
                from = i += k;
        }
        fwrite(s + from, 1, n - from, fp);
}

/* The columns a terminal gives code point c: two for the wide characters
 * of the East Asian scripts and for emoji, none for combining marks and
 * variation selectors, else one (a control character is written as '?').
 * wcwidth() would need a UTF-8 locale, and the tool runs in the C locale. */
static size_t char_columns(uint32_t c)
{
        static const uint32_t wide[][2] = {
                { 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff },
                { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
                { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe30, 0xfe4f },
                { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
                { 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
        };

        if ((c >= 0x300 && c <= 0x36f) || c == 0x200b || (c >= 0xfe00 && c <= 0xfe0f))
                return 0;
        for (size_t k = 0; k < sizeof(wide) / sizeof(wide[0]); k++)
                if (c >= wide[k][0] && c <= wide[k][1])
                        return 2;
        return 1;
}

/* The code point of the UTF-8 character at s (n > 0 bytes readable) and
 * its length in *len; a byte that starts none is one character. */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
        size_t k = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
        uint32_t c = k == 1 ? s[0] : s[0] & (0x7f >> k);

        if (k > n)
                k = 1;
        for (size_t i = 1; i < k; i++)
                c = c << 6 | (s[i] & 0x3f);
        *len = k;
        return k == 1 ? s[0] : c;
}

size_t tpa_report__columns(const char *s, size_t n)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t cols = 0, k;

        for (size_t i = 0; i < n; i += k)
                cols += char_columns(decode(u + i, n - i, &k));
        return cols;
}

size_t tpa_report__cut_columns(const char *s, size_t width)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t n = strlen(s), cols = 0, i = 0, k;

        while (i < n) {
                size_t w = char_columns(decode(u + i, n - i, &k));
                if (cols + w > width)
                        break;
                cols += w;
                i += k;
        }
        return i;
}

void tpa_report__put_padded(FILE *fp, const char *s, size_t width)
{
        size_t n = strlen(s);

        tpa_report__put_plain(fp, s, n);
        for (size_t cols = tpa_report__columns(s, n); cols < width; cols++)
                fputc(' ', fp);
}

char *tpa_report__plain(char *s)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t n = strlen(s), o = 0, k;

        for (size_t i = 0; i < n;) {
                if ((k = control_len(u + i, n - i)) == 0) {
                        s[o++] = s[i++];
                } else {
                        s[o++] = '?';
                        i += k;
                }
        }
        s[o] = '\0';
        return s;
}

tpa_json_out *tpa_report__json_open(FILE *fp)
{
        tpa_json_out *o = malloc(sizeof(*o));

        if (o != NULL) {
                o->fp = fp;
                o->open = 0;
                o->held = 0;
                o->len = 0;
        }
        return o;
}

static void json_put(tpa_json_out *o, const char *s, size_t len)
{
        if (o->len + len > sizeof(o->buf)) {
                fwrite(o->buf, 1, o->len, o->fp);
                o->len = 0;
                if (len > sizeof(o->buf)) {
                        fwrite(s, 1, len, o->fp);
                        return;
                }
        }
        memcpy(o->buf + o->len, s, len);
        o->len += len;
}

/* Give back what was held after an opening bracket that turned out not to
 * start an empty container. */
static void json_release(tpa_json_out *o)
{
        json_put(o, "\n\n", o->held < 2 ? o->held : 2);
        for (size_t k = 2; k < o->held; k++)
                json_put(o, " ", 1);
        o->open = 0;
        o->held = 0;
}

void tpa_report__json_print(void *ctx, const char *s, size_t len)
{
        tpa_json_out *o = ctx;
        size_t start = 0;       /* s[start..i) is passed on as it is */

        for (size_t i = 0; i < len; i++) {
                char c;

                if (o->open == 0) {     /* nothing held: on to the next bracket */
                        while (i < len && s[i] != '[' && s[i] != '{')
                                i++;
                        if (i == len)
                                break;
                        o->open = s[i];
                        continue;
                }
                c = s[i];
                if (o->open != 0 && o->held == 0 && c == '\n') {
                        json_put(o, s + start, i - start);
                        o->held = 1;
                } else if (o->held == 1 && c == '\n') {
                        o->held = 2;
                } else if (o->held >= 2 && c == ' ') {
                        o->held++;
                } else if (o->held >= 2 && c == (o->open == '[' ? ']' : '}')) {
                        o->open = 0;    /* "[]": only the closer is passed on */
                        o->held = 0;
                        start = i;
                        continue;
                } else {
                        if (o->held > 0) {
                                json_release(o);
                                start = i;
                        }
                        o->open = c == '[' || c == '{' ? c : 0;
                        continue;
                }
                start = i + 1;          /* c is held back */
        }
        json_put(o, s + start, len - start);
}

void tpa_report__json_close(tpa_json_out *o)
{
        if (o == NULL)
                return;
        json_release(o);
        if (o->len > 0)
                fwrite(o->buf, 1, o->len, o->fp);
        free(o);
}

/* Where a tpa_json_writer is in each open container: what comes next. */
enum {
        JW_TOP,                 /* nothing written yet */
        JW_MAP_EMPTY,           /* '{' written, its "\n" not yet */
        JW_ARRAY_EMPTY,
        JW_KEY,                 /* a map after a value: a key (or the end) */
        JW_VALUE,               /* a map after a key */
        JW_ITEM,                /* an array after an item */
        JW_DONE,
};

tpa_json_writer *tpa_report__jw_new(FILE *fp)
{
        tpa_json_writer *w = malloc(sizeof(*w));

        if (w != NULL) {
                w->fp = fp;
                w->mem = NULL;
                w->mem_len = w->mem_cap = 0;
                w->oom = false;
                w->depth = 0;
                w->state[0] = JW_TOP;
                w->len = 0;
        }
        return w;
}

/* s goes out: to the file, or to the end of mem. */
static void jw_out(tpa_json_writer *w, const char *s, size_t len)
{
        if (w->fp != NULL) {
                fwrite(s, 1, len, w->fp);
                return;
        }
        if (w->mem_len + len > w->mem_cap) {
                size_t cap = w->mem_cap > 0 ? w->mem_cap : sizeof(w->buf);
                char *m;
                while (cap < w->mem_len + len)
                        cap *= 2;
                if ((m = realloc(w->mem, cap)) == NULL) {
                        w->oom = true;
                        return;
                }
                w->mem = m;
                w->mem_cap = cap;
        }
        memcpy(w->mem + w->mem_len, s, len);
        w->mem_len += len;
}

/* Where n more bytes go in buf (n at most its size), what it holds sent
 * out first when they would not fit. Each token asks for room once, for
 * the most it can write, and writes straight into buf: one test of the
 * length a token, not one a piece of it. The caller sets w->len to the
 * end of what it wrote. */
static inline char *jw_room(tpa_json_writer *w, size_t n)
{
        assert(n <= sizeof(w->buf));
        if (w->len + n > sizeof(w->buf)) {
                jw_out(w, w->buf, w->len);
                w->len = 0;
        }
        return w->buf + w->len;
}

static inline void jw_end_at(tpa_json_writer *w, const char *p)
{
        w->len = (size_t)(p - w->buf);
}

static void jw_put(tpa_json_writer *w, const char *s, size_t len)
{
        if (len > sizeof(w->buf)) {
                jw_out(w, w->buf, w->len);
                w->len = 0;
                jw_out(w, s, len);
                return;
        }
        memcpy(jw_room(w, len), s, len);
        w->len += len;
}

/* Copy n <= 16 bytes as two words that overlap, or fewer: a memcpy call
 * for a length the compiler cannot know costs more than the short keys,
 * numbers and runs of text it would copy. */
static inline void copy_short(char *dst, const char *src, size_t n)
{
        assert(n <= 16);
        if (n >= 8) {
                uint64_t a, b;
                memcpy(&a, src, 8);
                memcpy(&b, src + n - 8, 8);
                memcpy(dst, &a, 8);
                memcpy(dst + n - 8, &b, 8);
        } else if (n >= 4) {
                uint32_t a, b;
                memcpy(&a, src, 4);
                memcpy(&b, src + n - 4, 4);
                memcpy(dst, &a, 4);
                memcpy(dst + n - 4, &b, 4);
        } else if (n > 0) {
                dst[0] = src[0];
                dst[n / 2] = src[n / 2];
                dst[n - 1] = src[n - 1];
        }
}

void tpa_report__jw_resume(tpa_json_writer *w, const tpa_json_writer *at)
{
        w->mem_len = 0;
        w->len = 0;
        w->depth = at->depth;
        memcpy(w->state, at->state, sizeof(w->state));
        w->state[w->depth] = JW_ITEM;
}

void tpa_report__jw_take(tpa_json_writer *w, tpa_json_writer *items)
{
        if (items->mem_len > 0)
                jw_put(w, items->mem, items->mem_len);
        jw_put(w, items->buf, items->len);
        w->oom |= items->oom;
        w->state[w->depth] = items->state[items->depth];
        items->mem_len = 0;
        items->len = 0;
}

/* ",\n" and the indent of the deepest level, to put a tail of in one go. */
static const char comma_indent[] =
        ",\n                                                                ";
_Static_assert(sizeof(comma_indent) == 2 + 2 * TPA_JSON_MAX_DEPTH + 1, "an indent per depth");
/* The most a token's separator takes, and its own "\n" at the end of the
 * document. */
#define JW_SEP_MAX (sizeof(comma_indent) - 1 + 1)

/* A newline and the indent of this depth at p, with a comma before them or
 * not; returns the end. To the usual depths the copy is a fixed 32 bytes,
 * two moves rather than a call: the room asked for a separator holds them,
 * and what is past the indent is written over next. */
static inline char *jw_newline(char *p, unsigned depth, bool comma)
{
        const char *s = comma_indent + 1 - comma;
        size_t n = 1 + 2 * (size_t)depth + comma;

        if (n <= 32)
                memcpy(p, s, 32);
        else
                memcpy(p, s, n);
        return p + n;
}

/* yajl's INSERT_SEP and INSERT_WHITESPACE at p, with the newline after an
 * opening bracket written only now that the container is not empty;
 * returns the end. At most JW_SEP_MAX - 1 bytes. */
static inline char *jw_before(const tpa_json_writer *w, char *p)
{
        switch (w->state[w->depth]) {
        case JW_MAP_EMPTY:
        case JW_ARRAY_EMPTY:
                return jw_newline(p, w->depth, false);
        case JW_KEY:
        case JW_ITEM:
                return jw_newline(p, w->depth, true);
        case JW_VALUE:
                p[0] = ':';
                p[1] = ' ';
                return p + 2;
        default:
                return p;
        }
}

/* yajl's APPENDED_ATOM and FINAL_NEWLINE, at p; sets the end of what the
 * token wrote. */
static inline void jw_after(tpa_json_writer *w, char *p)
{
        uint8_t *st = &w->state[w->depth];

        switch (*st) {
        case JW_TOP:
                *st = JW_DONE;
                *p++ = '\n';
                break;
        case JW_MAP_EMPTY:
        case JW_KEY:
                *st = JW_VALUE;
                break;
        case JW_VALUE:
                *st = JW_KEY;
                break;
        default:
                *st = JW_ITEM;
                break;
        }
        jw_end_at(w, p);
}

void tpa_report__jw_open(tpa_json_writer *w, char bracket)
{
        char *p;

        assert(w->depth < TPA_JSON_MAX_DEPTH);
        p = jw_before(w, jw_room(w, JW_SEP_MAX + 1));
        *p++ = bracket;
        jw_end_at(w, p);
        w->state[++w->depth] = bracket == '{' ? JW_MAP_EMPTY : JW_ARRAY_EMPTY;
}

void tpa_report__jw_close(tpa_json_writer *w)
{
        uint8_t st = w->state[w->depth];
        char *p = jw_room(w, JW_SEP_MAX + 1);

        assert(w->depth > 0);
        w->depth--;
        if (st != JW_MAP_EMPTY && st != JW_ARRAY_EMPTY)
                p = jw_newline(p, w->depth, false);
        *p++ = st == JW_MAP_EMPTY || st == JW_KEY || st == JW_VALUE ? '}' : ']';
        jw_after(w, p);
}

/* What the escapes can make of a byte at most ("\u00XX"), and the bytes of
 * a long string escaped at a time, so that room for the most they become
 * fits in the buffer. */
#define JW_ESC_MAX 6
#define JW_PIECE 1024
_Static_assert(JW_SEP_MAX + 2 + JW_ESC_MAX * (JW_PIECE + 3) <= TPA_JSON_BUF, "a piece fits");

/* Whether byte c stops a plain run: it needs an escape ('"', '\\', below
 * 0x20), or may be invalid UTF-8 when the string is repaired. */
static inline bool is_special(unsigned char c, bool repair)
{
        return c < 0x20 || c == '"' || c == '\\' || (repair && c >= 0x80);
}

/* Nonzero when one of the 8 bytes of x is_special(): the has-less and
 * has-zero tests of "Bit Twiddling Hacks", exact about whether there is
 * one (not about which). */
static inline uint64_t special8(uint64_t x, bool repair)
{
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
        uint64_t hit = ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b);

        return (repair ? hit | x : hit) & highs;
}

/* Whether one of the n bytes at s, 4 <= n <= 16, is_special(): two words
 * that overlap, as copy_short() copies them. */
static inline bool special_short(const char *s, size_t n, bool repair)
{
        uint64_t a, b;

        if (n >= 8) {
                memcpy(&a, s, 8);
                memcpy(&b, s + n - 8, 8);
                return (special8(a, repair) | special8(b, repair)) != 0;
        } else {
                uint32_t lo, hi;
                memcpy(&lo, s, 4);
                memcpy(&hi, s + n - 4, 4);
                return special8((uint64_t)hi << 32 | lo, repair) != 0;
        }
}

#ifdef JW_SSE2
/* Bit k: byte k of v is_special(). A signed compare with 0x20 takes the
 * bytes from 0x80 up along with the control bytes, as repair wants. */
static inline unsigned special16(__m128i v, bool repair)
{
        const __m128i v1f = _mm_set1_epi8(0x1f);
        __m128i low = repair ? _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))
                             : _mm_cmpeq_epi8(_mm_max_epu8(v, v1f), v1f);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                   low);

        return (unsigned)_mm_movemask_epi8(hit);
}
#endif

/* Write s[i, n) escaped as yajl escapes strings (\" \\ \b \f \n \r \t,
 * other bytes below 0x20 as \u00XX, the rest as they are) at p, which has
 * room for JW_ESC_MAX bytes per byte of s[i, n + 3); with `repair`, each
 * byte that is not part of valid UTF-8 as U+FFFD (tpa_report__utf8()), a
 * sequence that starts before n read to its end (s holds len bytes).
 * Returns the end; *next is where the next piece starts.
 *
 * The runs that need nothing are found and copied 16 bytes at a time with
 * SSE2 (8 without): a block is stored as it is loaded, and where it holds
 * a special byte the output goes on from that byte, over the rest of the
 * block. Less than a block is read as words that overlap, never past n. */
static inline char *escape_span(char *p, const char *s, size_t i, size_t n, size_t len,
                                bool repair, size_t *next)
{
        static const char hex[] = "0123456789ABCDEF";
        const unsigned char *u = (const unsigned char *)s;

        while (i < n) {
                size_t r;
                unsigned char c;

#ifdef JW_SSE2
                for (; n - i >= 16; i += 16, p += 16) {
                        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
                        unsigned m = special16(v, repair);

                        _mm_storeu_si128((__m128i *)(void *)p, v);
                        if (m != 0) {
                                unsigned k = (unsigned)__builtin_ctz(m);
                                i += k;
                                p += k;
                                goto special;
                        }
                }
                if (i == n)
                        break;
                r = n - i;
                if (n >= 16) {
                        /* the block that ends at n, its bytes before i
                         * shifted out of the mask */
                        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
                        unsigned m = special16(v, repair) >> (16 - r);
                        size_t k = m != 0 ? (size_t)__builtin_ctz(m) : r;

                        copy_short(p, s + i, k);
                        i += k;
                        p += k;
                        if (i == n)
                                break;
                        goto special;
                }
#else
                for (; n - i >= 8; i += 8, p += 8) {
                        uint64_t x;

                        memcpy(&x, s + i, 8);
                        if (special8(x, repair) != 0)
                                break;
                        memcpy(p, &x, 8);
                }
                r = n - i;
#endif
                if (r >= 4 && r <= 16 && !special_short(s + i, r, repair)) {
                        copy_short(p, s + i, r);
                        p += r;
                        i = n;
                        break;
                }
                while (i < n && !is_special(u[i], repair))
                        *p++ = s[i++];
                if (i == n)
                        break;
#ifdef JW_SSE2
special:
#endif
                c = u[i];
                if (c >= 0x80) {        /* only when repairing */
                        size_t k = utf8_seq(u + i, len - i);

                        if (k == 0) {
                                memcpy(p, "\xef\xbf\xbd", 3);
                                p += 3;
                                i++;
                        } else {
                                copy_short(p, s + i, k);
                                p += k;
                                i += k;
                        }
                        continue;
                }
                *p++ = '\\';
                switch (c) {
                case '"':
                case '\\': *p++ = (char)c; break;
                case '\b': *p++ = 'b'; break;
                case '\f': *p++ = 'f'; break;
                case '\n': *p++ = 'n'; break;
                case '\r': *p++ = 'r'; break;
                case '\t': *p++ = 't'; break;
                default:
                        memcpy(p, "u00", 3);
                        p[3] = hex[c >> 4];
                        p[4] = hex[c & 15];
                        p += 5;
                }
                i++;
        }
        *next = i;
        return p;
}

/* A string or key, in one piece when it is short enough for room for the
 * most it can become, else JW_PIECE bytes at a time. */
static inline void jw_str(tpa_json_writer *w, const char *s, size_t len, bool repair)
{
        char *p;
        size_t i = 0;

        if (len <= JW_PIECE) {
                p = jw_before(w, jw_room(w, JW_SEP_MAX + 2 + JW_ESC_MAX * (len + 3)));
                *p++ = '"';
                p = escape_span(p, s, 0, len, len, repair, &i);
                *p++ = '"';
                jw_after(w, p);
                return;
        }
        p = jw_before(w, jw_room(w, JW_SEP_MAX + 1));
        *p++ = '"';
        jw_end_at(w, p);
        while (i < len) {
                size_t n = len - i > JW_PIECE ? i + JW_PIECE : len;

                p = jw_room(w, JW_ESC_MAX * (JW_PIECE + 3));
                jw_end_at(w, escape_span(p, s, i, n, len, repair, &i));
        }
        p = jw_room(w, 2);
        *p++ = '"';
        jw_after(w, p);
}

void tpa_report__jw_string(tpa_json_writer *w, const char *s, size_t len)
{
        jw_str(w, s, len, false);
}

void tpa_report__jw_string_utf8(tpa_json_writer *w, const char *s, size_t len)
{
        jw_str(w, s, len, true);
}

void tpa_report__jw_key(tpa_json_writer *w, const char *k, size_t len)
{
        char *p;

        assert(w->state[w->depth] == JW_MAP_EMPTY || w->state[w->depth] == JW_KEY);
        if (len > 16) {
                jw_str(w, k, len, false);
                return;
        }
        for (size_t i = 0; i < len; i++)
                assert(!is_special((unsigned char)k[i], true));
        p = jw_before(w, jw_room(w, JW_SEP_MAX + 2 + len));
        *p++ = '"';
        copy_short(p, k, len);
        p += len;
        *p++ = '"';
        jw_after(w, p);
}

void tpa_report__jw_raw(tpa_json_writer *w, const char *s, size_t len)
{
        char *p;

        if (len > TPA_JSON_BUF / 2) {
                jw_end_at(w, jw_before(w, jw_room(w, JW_SEP_MAX)));
                jw_put(w, s, len);
                jw_after(w, jw_room(w, 1));
                return;
        }
        p = jw_before(w, jw_room(w, JW_SEP_MAX + len));
        if (len <= 16)
                copy_short(p, s, len);
        else
                memcpy(p, s, len);
        jw_after(w, p + len);
}

/* The decimal digits of u at p; returns the end. */
static inline char *jw_digits(char *p, uint64_t u)
{
        size_t n = 1;
        char *end;

        /* the length first, four digits a division */
        for (uint64_t t = u;; t /= 10000, n += 4) {
                if (t < 10)
                        break;
                if (t < 100) {
                        n += 1;
                        break;
                }
                if (t < 1000) {
                        n += 2;
                        break;
                }
                if (t < 10000) {
                        n += 3;
                        break;
                }
        }
        end = p + n;
        while (u >= 100) {
                unsigned d = (unsigned)(u % 100);

                u /= 100;
                end -= 2;
                memcpy(end, digit_pairs + 2 * d, 2);
        }
        if (u >= 10)
                memcpy(end - 2, digit_pairs + 2 * u, 2);
        else
                end[-1] = (char)('0' + u);
        return p + n;
}

void tpa_report__jw_int(tpa_json_writer *w, int64_t v)
{
        char *p = jw_before(w, jw_room(w, JW_SEP_MAX + 20));

        if (v < 0)
                *p++ = '-';
        jw_after(w, jw_digits(p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v));
}

/* The longest key and value that tpa_report__jw_key_int() and _raw()
 * write as one token; longer ones go as two. */
#define JW_KV_KEY_MAX 16
#define JW_KV_RAW_MAX 40

/* Key k (no escape needed) and ": " at p, in room for them after the
 * separator of a map expecting a key; returns the end. */
static inline char *jw_key_at(const tpa_json_writer *w, char *p, const char *k, size_t len)
{
        assert(w->state[w->depth] == JW_MAP_EMPTY || w->state[w->depth] == JW_KEY);
        for (size_t i = 0; i < len; i++)
                assert(!is_special((unsigned char)k[i], true));
        p = jw_newline(p, w->depth, w->state[w->depth] == JW_KEY);
        *p++ = '"';
        copy_short(p, k, len);
        p += len;
        p[0] = '"';
        p[1] = ':';
        p[2] = ' ';
        return p + 3;
}

void tpa_report__jw_key_int(tpa_json_writer *w, const char *k, size_t len, int64_t v)
{
        char *p;

        if (len > JW_KV_KEY_MAX) {
                tpa_report__jw_key(w, k, len);
                tpa_report__jw_int(w, v);
                return;
        }
        p = jw_key_at(w, jw_room(w, JW_SEP_MAX + JW_KV_KEY_MAX + 4 + 20), k, len);
        if (v < 0)
                *p++ = '-';
        p = jw_digits(p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
        w->state[w->depth] = JW_KEY;    /* the value after it done */
        jw_end_at(w, p);
}

void tpa_report__jw_key_raw(tpa_json_writer *w, const char *k, size_t len, const char *s,
                            size_t slen)
{
        char *p;

        if (len > JW_KV_KEY_MAX || slen > JW_KV_RAW_MAX) {
                tpa_report__jw_key(w, k, len);
                tpa_report__jw_raw(w, s, slen);
                return;
        }
        p = jw_key_at(w, jw_room(w, JW_SEP_MAX + JW_KV_KEY_MAX + 4 + JW_KV_RAW_MAX), k, len);
        memcpy(p, s, slen);
        w->state[w->depth] = JW_KEY;
        jw_end_at(w, p + slen);
}

void tpa_report__jw_uint(tpa_json_writer *w, uint64_t v)
{
        jw_after(w, jw_digits(jw_before(w, jw_room(w, JW_SEP_MAX + 20)), v));
}

void tpa_report__jw_free(tpa_json_writer *w)
{
        if (w == NULL)
                return;
        if (w->len > 0 && w->fp != NULL)
                fwrite(w->buf, 1, w->len, w->fp);
        free(w->mem);
        free(w);
}

void tpa_report__census(tpa_report_census *c, const tpa_trace *tr, const tpa_analysis *a)
{
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr), nt = tpa_trace_thread_count(tr);

        memset(c, 0, sizeof(*c));
        c->span = n > 0;
        c->by_track = calloc(nt + 1, sizeof(*c->by_track));
        if (a != NULL && a->events_by_track != NULL) {
                c->start = a->events_start;
                c->end = a->events_end;
                memcpy(c->by_kind, a->events_by_kind, sizeof(c->by_kind));
                if (c->by_track != NULL)
                        memcpy(c->by_track, a->events_by_track, nt * sizeof(*c->by_track));
                return;
        }
        c->start = n > 0 ? INT64_MAX : 0;
        c->end = n > 0 ? INT64_MIN : 0;
        for (size_t i = 0; i < n; i++) {
                const tpa_event *e = &ev[i];
                if (e->ts < c->start)
                        c->start = e->ts;
                if (e->ts + e->dur > c->end)
                        c->end = e->ts + e->dur;
                if (e->kind < TPA_KIND__COUNT)
                        c->by_kind[e->kind]++;
                if (e->track < nt && c->by_track != NULL)
                        c->by_track[e->track]++;
        }
}

void tpa_report__census_free(tpa_report_census *c)
{
        free(c->by_track);
        c->by_track = NULL;
}
