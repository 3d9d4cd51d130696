/* SPDX-License-Identifier: MIT */
/*
 * fuzz_chrome_json.c - libFuzzer target: Chrome trace JSON
 * (lib/parse/chrome_json.c). First through tpa_read_memory() with the
 * format given, so gzip framing is exercised too (fuzz_check.h lists the
 * contracts checked). Then, for plain input, the push parser is fed the
 * same bytes whole and in chunks of 1..64 bytes: the events, the warnings
 * and the error (code and offset) must not depend on where the bytes were
 * cut (chrome_json.h promises it). Then gzip'd and read with
 * and without an inflating thread (with one, the events array's records
 * are read side by side on two threads): the same again. Last, the input
 * as each record of an events array long enough to be cut into segments
 * (1 MiB), so that the segments' scanner reads it, on two threads and on
 * one: the same as yajl alone.
 */
#include <zlib.h>

#include "fuzz_check.h"
#include "model/trace_build.h"
#include "model/utf8.h"
#include "parse/chrome_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
        tpa_trace *tr;
        int        r;
        tpa_error  err;
};

static void parse(struct run *out, const uint8_t *data, size_t size, size_t chunk)
{
        tpa_read_options ro = fuzz_read_options(TPA_FORMAT_CHROME_JSON);
        tpa_chrome_parser *p;
        size_t at = 0;

        out->err = (tpa_error)TPA_ERROR_INIT;
        out->tr = NULL;
        if (tpa_trace_new(&out->tr, &out->err) < 0)
                abort();
        tpa_trace__set_max_events(out->tr, ro.max_events);
        out->r = tpa_chrome__parser_new(&p, out->tr, &ro, &out->err);
        if (out->r < 0)
                abort();
        while (out->r == 0 && at < size) {
                size_t n = size - at < chunk ? size - at : chunk;
                out->r = tpa_chrome__parser_feed(p, data + at, n, &out->err);
                at += n;
        }
        if (out->r == 0)
                out->r = tpa_chrome__parser_finish(p, false, &out->err);
        /* what tpa_read_memory(), which the runs below take, adds */
        if (out->r == 0)
                tpa_utf8__warn_repaired(out->tr, 0);
        tpa_chrome__parser_free(p);
}

static void same(const struct run *a, const struct run *b)
{
        size_t n = tpa_trace_event_count(a->tr);
        const tpa_event *ea = tpa_trace_events(a->tr), *eb = tpa_trace_events(b->tr);

        FUZZ_ASSERT(a->r == b->r);
        if (a->r < 0) {
                FUZZ_ASSERT(a->err.has_offset == b->err.has_offset);
                FUZZ_ASSERT(a->err.offset == b->err.offset);
                FUZZ_ASSERT(strcmp(a->err.msg, b->err.msg) == 0);
                return;         /* what was read before an error may differ */
        }
        FUZZ_ASSERT(n == tpa_trace_event_count(b->tr));
        for (size_t i = 0; i < n; i++) {
                FUZZ_ASSERT(ea[i].ts == eb[i].ts && ea[i].dur == eb[i].dur);
                FUZZ_ASSERT(ea[i].kind == eb[i].kind && ea[i].track == eb[i].track);
                FUZZ_ASSERT(strcmp(tpa_trace_str(a->tr, ea[i].name),
                                   tpa_trace_str(b->tr, eb[i].name)) == 0);
        }
        FUZZ_ASSERT(tpa_trace_warning_count(a->tr) == tpa_trace_warning_count(b->tr));
        for (size_t i = 0; i < tpa_trace_warning_count(a->tr); i++) {
                const tpa_warning *wa = tpa_trace_warning(a->tr, i);
                const tpa_warning *wb = tpa_trace_warning(b->tr, i);
                FUZZ_ASSERT(strcmp(wa->msg, wb->msg) == 0 && wa->count == wb->count &&
                            wa->first_offset == wb->first_offset);
        }
}

/* `data` gzip'd and read; `threaded` as large inputs are: inflate, filter
 * and the records on threads of their own (chrome_split.c, "two threads"). */
static void parse_gzip(struct run *out, const uint8_t *data, size_t size, bool threaded)
{
        tpa_read_options ro = fuzz_read_options(TPA_FORMAT_CHROME_JSON);
        size_t cap = size + size / 100 + 1024;
        unsigned char *gz = malloc(cap);
        z_stream z;

        memset(&z, 0, sizeof(z));
        out->err = (tpa_error)TPA_ERROR_INIT;
        out->tr = NULL;
        if (gz == NULL || tpa_trace_new(&out->tr, &out->err) < 0 ||
            deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                abort();
        z.next_in = (unsigned char *)(uintptr_t)data;  /* deflate does not write it */
        z.avail_in = (uInt)size;
        z.next_out = gz;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
                abort();
        ro.threaded = threaded;
        tpa_trace__set_max_events(out->tr, ro.max_events);
        out->r = tpa_read_memory(out->tr, gz, z.total_out, "fuzz", &ro, &out->err);
        deflateEnd(&z);
        free(gz);
}

/* {"traceEvents":[ data, data, ... {}]} of at least `min` bytes. */
static uint8_t *as_records(const uint8_t *data, size_t size, size_t min, size_t *len)
{
        static const char head[] = "{\"traceEvents\":[", tail[] = "{}]}";
        size_t copies = min / (size + 2) + 1, n = 0;
        uint8_t *t = malloc(sizeof(head) + copies * (size + 2) + sizeof(tail));

        if (t == NULL)
                abort();
        memcpy(t, head, sizeof(head) - 1);
        n += sizeof(head) - 1;
        for (size_t i = 0; i < copies; i++) {
                memcpy(t + n, data, size);
                n += size;
                memcpy(t + n, ",\n", 2);
                n += 2;
        }
        memcpy(t + n, tail, sizeof(tail) - 1);
        *len = n + sizeof(tail) - 1;
        return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        uint8_t *records;
        size_t len;
        struct run whole, cut, ref;
        uint32_t h = 2166136261u;

        fuzz_read(data, size, TPA_FORMAT_CHROME_JSON);
        if (fuzz_is_gzip(data, size))
                return 0;
        for (size_t i = 0; i < size; i++)
                h = (h ^ data[i]) * 16777619u;
        parse(&whole, data, size, size == 0 ? 1 : size);
        parse(&cut, data, size, 1 + h % 64);
        fuzz_check_trace(whole.tr, data, size);
        same(&whole, &cut);
        tpa_trace_free(whole.tr);
        tpa_trace_free(cut.tr);
        parse_gzip(&whole, data, size, false);
        parse_gzip(&cut, data, size, true);
        same(&whole, &cut);
        tpa_trace_free(whole.tr);
        tpa_trace_free(cut.tr);
        if (size == 0 || size > 4096)
                return 0;
        records = as_records(data, size, 1u << 20, &len);
        parse(&ref, records, len, len);
        parse_gzip(&whole, records, len, false);
        parse_gzip(&cut, records, len, true);
        same(&ref, &whole);
        same(&whole, &cut);
        tpa_trace_free(ref.tr);
        tpa_trace_free(whole.tr);
        tpa_trace_free(cut.tr);
        free(records);
        return 0;
}
