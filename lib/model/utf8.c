/* SPDX-License-Identifier: MIT */
/*
 * utf8.c - see utf8.h: check and repair UTF-8 from the input.
 */
#include <stdlib.h>

#include "model/utf8.h"

/* The length of the well-formed sequence at s[0..n), or 0 when it is not
 * one; *bad is then the length of its maximal subpart (>= 1): the lead
 * byte and the continuation bytes that could still have followed it. */
static size_t sequence(const unsigned char *s, size_t n, size_t *bad)
{
        unsigned char c = s[0], lo = 0x80, hi = 0xbf;
        size_t need;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                need = 1;
        else if (c >= 0xe0 && c <= 0xef) {
                need = 2;
                if (c == 0xe0)
                        lo = 0xa0;              /* no overlongs */
                else if (c == 0xed)
                        hi = 0x9f;              /* no surrogates */
        } else if (c >= 0xf0 && c <= 0xf4) {
                need = 3;
                if (c == 0xf0)
                        lo = 0x90;
                else if (c == 0xf4)
                        hi = 0x8f;              /* nothing past U+10FFFF */
        } else {
                *bad = 1;                       /* 80..C1, F5..FF */
                return 0;
        }
        for (size_t k = 1; k <= need; k++) {
                if (k >= n || s[k] < lo || s[k] > hi) {
                        *bad = k;
                        return 0;
                }
                lo = 0x80;
                hi = 0xbf;
        }
        return need + 1;
}

size_t tpa_utf8__cut(const char *s, size_t n)
{
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
                n--;
        return n;
}

void tpa_utf8__trim(char *s)
{
        s[tpa_utf8__valid_prefix(s, strlen(s))] = '\0';
}

void tpa_utf8__one_line(char *msg)
{
        size_t len = strlen(msg), i = 0;

        for (char *c = msg; *c != '\0'; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        *c = '?';
        while ((i += tpa_utf8__valid_prefix(msg + i, len - i)) < len)
                msg[i++] = '?';
}

size_t tpa_utf8__valid_prefix(const char *s, size_t len)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t i = 0, bad, n;

        while (i < len) {
                if (u[i] < 0x80) {
                        i++;
                        continue;
                }
                n = sequence(u + i, len - i, &bad);
                if (n == 0)
                        return i;
                i += n;
        }
        return len;
}

size_t tpa_utf8__repair(char *out, const char *s, size_t len)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t i = 0, o = 0, bad, n;

        while (i < len) {
                n = u[i] != 0 ? sequence(u + i, len - i, &bad) : (bad = 1, 0);
                if (n > 0) {
                        memcpy(out + o, s + i, n);
                        o += n;
                        i += n;
                } else {
                        memcpy(out + o, "\xef\xbf\xbd", 3);     /* U+FFFD */
                        o += 3;
                        i += bad;
                }
        }
        return o;
}

int tpa_utf8__intern_slow(tpa_trace *tr, tpa_str *out, const char *s, size_t len,
                          uint64_t offset, tpa_error *err)
{
        char stack[768], *buf = stack;
        tpa_health *h;
        size_t n;
        int r;

        if (tpa_utf8__valid_prefix(s, len) == len && memchr(s, '\0', len) == NULL)
                return tpa_trace__intern(tr, out, s, len, err);
        if (len > sizeof(stack) / 3) {
                if (len > SIZE_MAX / 3 || (buf = malloc(3 * len)) == NULL)
                        return tpa_error_oom(err);
        }
        n = tpa_utf8__repair(buf, s, len);
        r = tpa_trace__intern(tr, out, buf, n, err);
        if (buf != stack)
                free(buf);
        if (r < 0)
                return r;
        h = tpa_trace__health(tr);
        if (h->invalid_utf8++ == 0)
                h->invalid_utf8_at = offset;
        return 0;
}

void tpa_utf8__warn_repaired(tpa_trace *tr, uint64_t before)
{
        const tpa_health *h = tpa_trace__health(tr);
        unsigned long long n = h->invalid_utf8 - before;

        if (n > 0)
                tpa_trace__warn(tr, before == 0 ? h->invalid_utf8_at : 0,
                                "%llu %s invalid UTF-8 or a NUL, replaced by U+FFFD", n,
                                n == 1 ? "string has" : "strings have");
}
