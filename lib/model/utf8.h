/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - (library-internal) strings from the input become valid UTF-8 at
 * the intern boundary, so every report (JSON, markdown, HTML) is valid
 * UTF-8 whatever the trace held, and hold no NUL (a JSON "\u0000", a
 * protobuf string's zero byte), where every report would end the name.
 * Shared by every reader.
 */
#ifndef TPA_MODEL_UTF8_H
#define TPA_MODEL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/trace_build.h"

/* The length of the longest prefix of `s` that is valid UTF-8 (Unicode
 * 3.9, Table 3-7: no overlongs, surrogates or code points past U+10FFFF);
 * `len` when all of it is. */
size_t tpa_utf8__valid_prefix(const char *s, size_t len);

/* The length of the longest prefix of `s`, at most n bytes, that splits
 * no UTF-8 character: where to cut a name for "..." (n <= strlen(s); the
 * trace's strings are valid UTF-8, so only continuation bytes are stepped
 * back over). */
size_t tpa_utf8__cut(const char *s, size_t n);

/* End `s` (valid UTF-8 but where snprintf() may have cut it short) before
 * a character the cut fell inside. */
void tpa_utf8__trim(char *s);

/* Make the message `msg` one line of UTF-8 in place, whatever names from
 * the input it quotes: a control byte (a newline in a node name, say) and
 * each byte that is not part of a valid UTF-8 character (a name cut by
 * the message's size, binary input) become '?'. */
void tpa_utf8__one_line(char *msg);

/* Copy `s` to `out` with each maximal ill-formed subsequence, and each NUL,
 * replaced by U+FFFD (Unicode 3.9, "U+FFFD Substitution of Maximal
 * Subparts"). `out` holds at least 3 * len bytes. Returns the bytes
 * written. */
size_t tpa_utf8__repair(char *out, const char *s, size_t len);

/* tpa_trace__intern(), with invalid UTF-8 and NULs replaced as above. Each
 * string repaired counts in the trace's health (invalid_utf8;
 * invalid_utf8_at is `offset` for the first one), for the reader's one
 * warning. */
int tpa_utf8__intern_slow(tpa_trace *tr, tpa_str *out, const char *s, size_t len,
                          uint64_t offset, tpa_error *err);

/* The reader's one warning for the strings repaired since the trace's
 * health counted `before` of them (none: no warning). */
void tpa_utf8__warn_repaired(tpa_trace *tr, uint64_t before);

/* ASCII first, 8 bytes at a time, inline: names are nearly always ASCII
 * without NUL, and interning is on every event's path. */
static inline int tpa_utf8__intern(tpa_trace *tr, tpa_str *out, const char *s, size_t len,
                                   uint64_t offset, tpa_error *err)
{
        size_t i = 0;

        for (; i + 8 <= len; i += 8) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                /* a byte >= 0x80, or a zero byte (its borrow sets bit 7) */
                if ((w | (w - UINT64_C(0x0101010101010101))) & UINT64_C(0x8080808080808080))
                        break;
        }
        for (; i < len; i++)
                if ((unsigned char)s[i] >= 0x80 || s[i] == '\0')
                        return tpa_utf8__intern_slow(tr, out, s, len, offset, err);
        return tpa_trace__intern(tr, out, s, len, err);
}

#endif
