/* SPDX-License-Identifier: MIT */
/*
 * test_report_util.c - report/report_util.h: the streaming JSON writer
 * closes up the empty containers yajl's beautify spreads over lines, the
 * same whatever pieces yajl prints the text in (it prints a token in
 * several), and passes everything else through unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_util.h"
#include "tap.h"

/* The whole text closed up at once: what the reports wrote before they
 * streamed (an opener, "\n\n", spaces, its closer -> opener and closer). */
static char *compact_whole(const char *s)
{
        size_t len = strlen(s), i = 0, o = 0;
        char *out = malloc(len + 1);

        while (i < len) {
                char c = s[i++];

                out[o++] = c;
                if ((c == '[' || c == '{') && i + 1 < len && s[i] == '\n' && s[i + 1] == '\n') {
                        size_t j = i + 2;
                        while (j < len && s[j] == ' ')
                                j++;
                        if (j < len && s[j] == (c == '[' ? ']' : '}'))
                                i = j;
                }
        }
        out[o] = '\0';
        return out;
}

/* `s` through the writer in pieces of `piece` bytes (0: whole). */
static char *stream(const char *s, size_t piece)
{
        char *buf = NULL;
        size_t size = 0, len = strlen(s);
        FILE *fp = open_memstream(&buf, &size);
        tpa_json_out *o = tpa_report__json_open(fp);

        for (size_t i = 0; i < len; i += piece ? piece : len)
                tpa_report__json_print(o, s + i, piece && len - i > piece ? piece : len - i);
        tpa_report__json_close(o);
        fclose(fp);
        return buf;
}

static void test_report_util__json_stream(void)
{
        static const char *const cases[] = {
                "{\n\n}\n",
                "[\n\n    ]",
                "[\n  1,\n  2\n]\n",
                "{\n  \"a\": [\n\n  ],\n  \"b\": {\n\n  },\n  \"c\": [\n    {\n\n    }\n  ]\n}\n",
                "[\n\n  [\n\n  ]",                 /* an empty one inside a held one */
                "[[\n\n]{\n\n}]",
                "{\n\n  ]",                         /* not its closer */
                "[\n\n  x]",
                "[\n\n  \n]",
                "[\n",                              /* held at the end */
                "[\n\n",
                "[\n\n     ",
                "\"[\\n\\n]\" [\n\n] {",
                "",
        };
        static const size_t pieces[] = { 0, 1, 2, 3, 5 };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *want = compact_whole(cases[i]);

                for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
                        char *got = stream(cases[i], pieces[p]);
                        tap_streq(got, want, "test_report_util__json_stream: case %zu, pieces "
                                  "of %zu", i + 1, pieces[p]);
                        free(got);
                }
                free(want);
        }
}

/* Longer than the writer's buffer: passed through whole, in order. */
static void test_report_util__json_stream_long(void)
{
        static const size_t pieces[] = { 0, 7000 };
        size_t n = 100000;
        char *s = malloc(n + 1), *want;

        for (size_t i = 0; i < n; i++)
                s[i] = "[\n\n ]x{\n  \"k\"\n}"[i % 15];
        s[n] = '\0';
        want = compact_whole(s);
        for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
                char *got = stream(s, pieces[p]);
                tap_streq(got, want, "test_report_util__json_stream_long: pieces of %zu",
                          pieces[p]);
                free(got);
        }
        free(want);
        free(s);
}

int main(void)
{
        test_report_util__json_stream();
        test_report_util__json_stream_long();
        return tap_done();
}
