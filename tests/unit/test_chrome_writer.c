/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_writer.c - the Chrome JSON writer: microseconds printed
 * exactly from ns, names escaped, merge labels and pids that never collide,
 * gzip output, and write failures reported (and the file removed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tpa/tpa.h>

#include "tap.h"

static void test_chrome_writer__format_us(void)
{
        static const struct {
                tpa_ns      ns;
                const char *text;
        } cases[] = {
                { 0, "0" },             { 1234567, "1234.567" },        { 1000, "1" },
                { 1500, "1.5" },        { 1, "0.001" },                 { -1, "-0.001" },
                { -2500, "-2.5" },      { 1666382280874284123, "1666382280874284.123" },
                { INT64_MAX, "9223372036854775.807" },
                { INT64_MIN, "-9223372036854775.808" },
        };
        char buf[32];

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                tpa_chrome_format_us(buf, cases[i].ns);
                tap_streq(buf, cases[i].text, "%lld ns", (long long)cases[i].ns);
        }
}

/* A small trace by hand: a device and a host process, names to escape. */
static tpa_trace *make_trace(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        uint32_t p, t;
        tpa_event ev = { .ts = 1500, .dur = 2001, .kind = TPA_KIND_KERNEL, .corr = 5 };
        size_t idx;

        tpa_trace_new(&tr, &err);
        tpa_trace_get_process(tr, &p, (tpa_id){ .num = 1 }, &err);
        tpa_trace_intern(tr, &tpa_trace_process(tr, p)->name, "/device:GPU:0", 13, &err);
        tpa_trace_get_thread(tr, &t, p, (tpa_id){ .num = 7 }, &err);
        tpa_trace_intern(tr, &tpa_trace_thread(tr, t)->name, "Stream #7(Compute)", 18, &err);
        ev.track = t;
        tpa_trace_intern(tr, &ev.name, "k<\"quoted\"\\\n>", 13, &err);
        tpa_trace_add_event(tr, &ev, &idx, &err);
        return tr;
}

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "rb");
        char *s = calloc(1, 65536);

        if (f != NULL) {
                size_t n = fread(s, 1, 65535, f);
                s[n] = '\0';
                fclose(f);
        }
        return s;
}

static void test_chrome_writer__merge(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *a = make_trace(), *b = make_trace(), *back;
        const char *out = "test_chrome_writer_merge.json";
        char *text;

        ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
           tpa_chrome_writer_add(w, a, "a.json", &err) == 0 &&
           tpa_chrome_writer_add(w, b, "b.pb", &err) == 0 &&
           tpa_chrome_writer_close(w, &err) == 0, "two traces merged (%s)", err.msg);
        text = slurp(out);
        ok(strstr(text, "\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"") != NULL &&
           strstr(text, "\"labels\":\"a.json\"") != NULL &&
           strstr(text, "\"labels\":\"b.pb\"") != NULL,
           "process names kept, the input's label in the process labels");
        ok(strstr(text, "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":1.5,\"dur\":2.001,") != NULL &&
           strstr(text, "{\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":1.5,\"dur\":2.001,") != NULL,
           "pids 1 and 2: one per input, exact us");
        ok(strstr(text, "\"name\":\"k<\\\"quoted\\\"\\\\\\n>\"") != NULL, "name escaped");
        ok(strstr(text, "\"args\":{\"correlation_id\":5}") != NULL, "correlation id in args");
        tpa_trace_new(&back, &err);
        if (ok(tpa_read_path(back, out, NULL, &err) == 0, "merged file reads (%s)", err.msg)) {
                tap_eq((int64_t)tpa_trace_event_count(back), 2, "both events");
                tap_eq((int64_t)tpa_trace_process_count(back), 2, "two processes");
                ok(strcmp(tpa_trace_str(back, tpa_trace_events(back)[0].name),
                          "k<\"quoted\"\\\n>") == 0, "name reads back unescaped");
        }
        free(text);
        remove(out);
        tpa_trace_free(back);
        tpa_trace_free(a);
        tpa_trace_free(b);
}

static void test_chrome_writer__gzip_and_errors(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *a = make_trace(), *back;
        const char *out = "test_chrome_writer.json.gz";
        FILE *f;
        unsigned char magic[2] = { 0, 0 };

        ok(tpa_chrome_writer_open(&w, out, &err) == 0 &&
           tpa_chrome_writer_add(w, a, NULL, &err) == 0 &&
           tpa_chrome_writer_close(w, &err) == 0, "gzip output written (%s)", err.msg);
        f = fopen(out, "rb");
        if (f != NULL) {
                if (fread(magic, 1, 2, f) != 2)
                        magic[0] = 0;
                fclose(f);
        }
        ok(magic[0] == 0x1f && magic[1] == 0x8b, "a .gz path gets gzip");
        tpa_trace_new(&back, &err);
        ok(tpa_read_path(back, out, NULL, &err) == 0 && tpa_trace_event_count(back) == 1 &&
           tpa_trace_events(back)[0].ts == 1500 && tpa_trace_events(back)[0].dur == 2001,
           "gzip output reads back to the ns");
        tpa_trace_free(back);
        remove(out);

        tap_eq(tpa_chrome_writer_open(&w, "no/such/dir/out.json", &err), TPA_EIO,
               "a path that cannot be created is an i/o error (%s)", err.msg);
        if (access("/dev/full", W_OK) == 0) {
                int rc = tpa_chrome_writer_open(&w, "/dev/full", &err);
                if (rc == 0)
                        rc = tpa_chrome_writer_add(w, a, NULL, &err);
                if (rc == 0)
                        rc = tpa_chrome_writer_close(w, &err);
                else
                        tpa_chrome_writer_abort(w);
                tap_eq(rc, TPA_EIO, "writing to a full disk is an i/o error (%s)", err.msg);
        } else {
                tap_skip("no /dev/full");
        }
        tpa_trace_free(a);
}

int main(void)
{
        test_chrome_writer__format_us();
        test_chrome_writer__merge();
        test_chrome_writer__gzip_and_errors();
        return tap_done();
}
