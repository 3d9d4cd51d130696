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

size_t tpa_report__g6(char *buf, double v)
{
        static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
        double a = fabs(v), scaled, frac;
        uint32_t digits;
        int k = 0, x;
        char d[6], *p = buf;
        size_t n;

        /* scaled = a * 10^k in [1e5, 1e6): six digits before the point. The
         * product is rounded once (relative error 2^-53, < 2e-10 here), so
         * the digits are right unless the fraction is that close to .5;
         * values near the ends of the range take snprintf too. */
        if (!(a >= 1e-4 && a < 1e6))
                goto slow;
        while (k < 9 && a * pow10[k] < 1e5)
                k++;
        scaled = a * pow10[k];
        if (scaled < 100000.0 || scaled >= 999999.0)
                goto slow;
        digits = (uint32_t)scaled;
        frac = scaled - digits;
        if (frac > 0.5 - 1e-6 && frac < 0.5 + 1e-6)
                goto slow;
        digits += frac > 0.5;
        for (int i = 5; i >= 0; i--, digits /= 10)
                d[i] = (char)('0' + digits % 10);
        n = 6;
        while (n > 1 && d[n - 1] == '0')
                n--;                    /* %g drops trailing zeros */
        x = 5 - k;                      /* the exponent of the first digit */
        if (v < 0)
                *p++ = '-';
        if (x >= 0) {
                memcpy(p, d, (size_t)x + 1);
                p += x + 1;
                if (n > (size_t)x + 1) {
                        *p++ = '.';
                        memcpy(p, d + x + 1, n - (size_t)x - 1);
                        p += n - (size_t)x - 1;
                }
        } else {
                *p++ = '0';
                *p++ = '.';
                for (int z = -1; z > x; z--)
                        *p++ = '0';
                memcpy(p, d, n);
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
        case '`':  return "\\`";
        case '*':  return "\\*";
        case '_':  return "\\_";
        case '<':  return "&lt;";
        case '>':  return "&gt;";
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

static void jw_put(tpa_json_writer *w, const char *s, size_t len)
{
        if (w->len + len > sizeof(w->buf)) {
                jw_out(w, w->buf, w->len);
                w->len = 0;
                if (len > sizeof(w->buf)) {
                        jw_out(w, s, len);
                        return;
                }
        }
        memcpy(w->buf + w->len, s, len);
        w->len += len;
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

/* A newline and the indent of this depth, with a comma before them or not. */
static void jw_newline(tpa_json_writer *w, bool comma)
{
        size_t n = 1 + 2 * (size_t)w->depth;

        jw_put(w, comma_indent + 1 - comma, n + comma);
}

/* yajl's INSERT_SEP and INSERT_WHITESPACE, with the newline after an
 * opening bracket written only now that the container is not empty. */
static void jw_before(tpa_json_writer *w)
{
        switch (w->state[w->depth]) {
        case JW_MAP_EMPTY:
        case JW_ARRAY_EMPTY:
                jw_newline(w, false);
                break;
        case JW_KEY:
        case JW_ITEM:
                jw_newline(w, true);
                break;
        case JW_VALUE:
                jw_put(w, ": ", 2);
                break;
        }
}

/* yajl's APPENDED_ATOM and FINAL_NEWLINE. */
static void jw_after(tpa_json_writer *w)
{
        uint8_t *st = &w->state[w->depth];

        switch (*st) {
        case JW_TOP:
                *st = JW_DONE;
                jw_put(w, "\n", 1);
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
}

void tpa_report__jw_open(tpa_json_writer *w, char bracket)
{
        assert(w->depth < TPA_JSON_MAX_DEPTH);
        jw_before(w);
        jw_put(w, &bracket, 1);
        w->state[++w->depth] = bracket == '{' ? JW_MAP_EMPTY : JW_ARRAY_EMPTY;
}

void tpa_report__jw_close(tpa_json_writer *w)
{
        uint8_t st = w->state[w->depth];
        const char *closer = st == JW_MAP_EMPTY || st == JW_KEY || st == JW_VALUE ? "}" : "]";

        assert(w->depth > 0);
        w->depth--;
        if (st != JW_MAP_EMPTY && st != JW_ARRAY_EMPTY)
                jw_newline(w, false);
        jw_put(w, closer, 1);
        jw_after(w);
}

/* True when one of the 8 bytes at s may need an escape (a byte below 0x20,
 * '"' or '\\'): the has-less and has-zero tests of "Bit Twiddling Hacks",
 * exact about whether there is one. Speed (bench/): names and keys are
 * mostly long runs that need none, and a test per byte was a fifth of the
 * JSON report. */
static bool may_escape8(const char *s)
{
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        uint64_t x, q, b;

        memcpy(&x, s, sizeof(x));
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

/* True when none of the len bytes at s needs an escape. */
static bool plain(const char *s, size_t len)
{
        size_t i = 0;

        for (; i + 8 <= len; i += 8)
                if (may_escape8(s + i))
                        return false;
        for (; i < len; i++)
                if ((unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
                        return false;
        return true;
}

void tpa_report__jw_string(tpa_json_writer *w, const char *s, size_t len)
{
        size_t start = 0;

        jw_before(w);
        /* a short one that needs no escape (every key, most names) straight
         * into the buffer with its quotes (speed: the general way's three puts
         * and scan dominate the JSON report, most of it for the steps'
         * keys) */
        if (len <= 64 && w->len + len + 2 <= sizeof(w->buf) && plain(s, len)) {
                char *p = w->buf + w->len;

                p[0] = '"';
                memcpy(p + 1, s, len);
                p[len + 1] = '"';
                w->len += len + 2;
                jw_after(w);
                return;
        }
        jw_put(w, "\"", 1);
        for (size_t i = 0; i < len; i++) {
                unsigned char c;
                const char *esc;
                char hex[7];

                while (i + 8 <= len && !may_escape8(s + i))
                        i += 8;
                if (i == len)
                        break;
                c = (unsigned char)s[i];
                if (c >= 0x20 && c != '"' && c != '\\')
                        continue;
                switch (c) {
                case '"':  esc = "\\\""; break;
                case '\\': esc = "\\\\"; break;
                case '\b': esc = "\\b"; break;
                case '\f': esc = "\\f"; break;
                case '\n': esc = "\\n"; break;
                case '\r': esc = "\\r"; break;
                case '\t': esc = "\\t"; break;
                default:
                        snprintf(hex, sizeof(hex), "\\u00%02X", c);
                        esc = hex;
                }
                jw_put(w, s + start, i - start);
                jw_put(w, esc, strlen(esc));
                start = i + 1;
        }
        jw_put(w, s + start, len - start);
        jw_put(w, "\"", 1);
        jw_after(w);
}

void tpa_report__jw_raw(tpa_json_writer *w, const char *s, size_t len)
{
        jw_before(w);
        jw_put(w, s, len);
        jw_after(w);
}

/* Decimal digits of u, ending at end; returns where they start. */
static char *jw_digits(char *end, uint64_t u)
{
        do {
                *--end = (char)('0' + u % 10);
                u /= 10;
        } while (u > 0);
        return end;
}

void tpa_report__jw_int(tpa_json_writer *w, int64_t v)
{
        char b[24], *p = jw_digits(b + sizeof(b), v < 0 ? 0 - (uint64_t)v : (uint64_t)v);

        if (v < 0)
                *--p = '-';
        tpa_report__jw_raw(w, p, (size_t)(b + sizeof(b) - p));
}

void tpa_report__jw_uint(tpa_json_writer *w, uint64_t v)
{
        char b[24], *p = jw_digits(b + sizeof(b), v);

        tpa_report__jw_raw(w, p, (size_t)(b + sizeof(b) - p));
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
