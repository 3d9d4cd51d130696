/* SPDX-License-Identifier: MIT */
/*
 * read.c - sniff what a stream holds and hand it to the reader for that
 * format (doc/design.md section 3). Content decides, never the file name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input/readers.h"
#include "model/trace_build.h"
#include "model/utf8.h"
#include "parse/stepstats.h"

static size_t skip_space_bom(const uint8_t *p, size_t n)
{
        size_t i = 0;

        if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
                i = 3;
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
                i++;
        return i;
}

static uint32_t crc32c(const uint8_t *p, size_t n)
{
        uint32_t c = 0xffffffffu;

        for (size_t i = 0; i < n; i++) {
                c ^= p[i];
                for (int k = 0; k < 8; k++)
                        c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
        }
        return ~c;
}

static bool is_tfrecord(const uint8_t *p, size_t n)
{
        uint32_t crc, want;

        if (n < 12)
                return false;
        crc = crc32c(p, 8);
        crc = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;        /* TFRecord's mask */
        want = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 |
               (uint32_t)p[11] << 24;
        return crc == want;
}

static bool is_pbtxt(const uint8_t *p, size_t n)
{
        static const char *const starts[] = { "step_stats", "dev_stats", "node_stats" };
        size_t i = 0;

        while (i < n && p[i] == '#') {          /* comment lines */
                while (i < n && p[i] != '\n')
                        i++;
                i += skip_space_bom(p + i, n - i);
        }
        for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
                size_t len = strlen(starts[k]);
                if (n - i > len && memcmp(p + i, starts[k], len) == 0)
                        return true;
        }
        return false;
}

/* Read a protobuf varint; 0 bytes on failure. */
static size_t varint(const uint8_t *p, size_t n, uint64_t *v)
{
        *v = 0;
        for (size_t i = 0; i < n && i < 10; i++) {
                *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                if (!(p[i] & 0x80))
                        return i + 1;
        }
        return 0;
}

/* True when p[0..n) opens with a whole protobuf message of `len` bytes:
 * valid tags and wire types, values that fit, ending exactly at `len`. */
static bool is_message(const uint8_t *p, size_t n, uint64_t len)
{
        size_t i = 0, k;
        uint64_t tag, v;

        if (len == 0 || len > n)
                return false;
        while (i < len) {
                k = varint(p + i, (size_t)len - i, &tag);
                if (k == 0 || tag >> 3 == 0)
                        return false;
                i += k;
                switch (tag & 7) {
                case 0:
                        k = varint(p + i, (size_t)len - i, &v);
                        if (k == 0)
                                return false;
                        i += k;
                        break;
                case 1:
                case 2:
                case 5:
                        if ((tag & 7) == 2) {
                                k = varint(p + i, (size_t)len - i, &v);
                                if (k == 0)
                                        return false;
                                i += k;
                        } else {
                                v = (tag & 7) == 1 ? 8 : 4;
                        }
                        if (v > len - i)
                                return false;
                        i += (size_t)v;
                        break;
                default:
                        return false;   /* groups, wire types 6 and 7 */
                }
        }
        return true;
}

tpa_format tpa_read_sniff(const void *data, size_t size)
{
        const uint8_t *p = data;
        size_t i = skip_space_bom(p, size);
        uint64_t len;
        size_t k;

        /* A protobuf whose first field is 91 or 123 bytes long opens with
         * "\n[" or "\n{": JSON unless the message holds up as protobuf. */
        if (i < size && (p[i] == '{' || p[i] == '[') &&
            !(i == 1 && p[0] == 0x0a && size > 2 && is_message(p + 2, size - 2, p[1])))
                return TPA_FORMAT_CHROME_JSON;
        if (is_tfrecord(p, size))
                return TPA_FORMAT_TFEVENTS;
        if (is_pbtxt(p + i, size - i))
                return TPA_FORMAT_STEPSTATS_TEXT;
        /* XSpace and RunMetadata both open with field 1, length-delimited.
         * Inside, an XPlane opens with id (varint, tag 0x08) or name (0x12);
         * a StepStats opens with dev_stats (0x0a). */
        if (size >= 2 && p[0] == 0x0a) {
                k = varint(p + 1, size - 1, &len);
                if (k > 0 && 1 + k < size) {
                        uint8_t inner = p[1 + k];
                        if (inner == 0x08 || inner == 0x12 || inner == 0x1a || inner == 0x22 ||
                            inner == 0x2a || inner == 0x32)
                                return TPA_FORMAT_XSPACE;
                        if (inner == 0x0a)
                                return TPA_FORMAT_STEPSTATS;
                }
        }
        return TPA_FORMAT_AUTO;
}

static int dispatch(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                    tpa_error *err)
{
        const uint8_t *head;
        size_t n;
        tpa_format f = opts->format;
        int r;

        r = tpa_source__peek(src, &head, &n, 4096, err);
        if (r < 0)
                return r;
        if (n == 0 && tpa_source__is_gzip(src) && tpa_source__truncated(src))
                return tpa_error_set(err, TPA_EFORMAT, 0,
                                     "the gzip stream is cut short: it ends after %llu bytes, "
                                     "before any data",
                                     (unsigned long long)tpa_source__bytes_in(src));
        if (n == 0)
                return tpa_error_set(err, TPA_EFORMAT, 0, "the input is empty");
        if (f == TPA_FORMAT_AUTO)
                f = tpa_read_sniff(head, n);
        switch (f) {
        case TPA_FORMAT_CHROME_JSON:
                return tpa_chrome__read(tr, src, opts, err);
        case TPA_FORMAT_XSPACE:
                return tpa_xspace__read(tr, src, opts, err);
        case TPA_FORMAT_STEPSTATS:
                return tpa_stepstats__read(tr, src, opts, err);
        case TPA_FORMAT_TFEVENTS:
                return tpa_tfevents__read(tr, src, opts, err);
        case TPA_FORMAT_STEPSTATS_TEXT:
                return tpa_stepstats_text__read(tr, src, opts, err);
        case TPA_FORMAT_AUTO:
        case TPA_FORMAT__COUNT:
                break;
        }
        return tpa_error_set(err, TPA_EFORMAT, 0,
                             "not a trace: neither Chrome trace JSON, RunMetadata, tfevents "
                             "nor XSpace");
}

/* A TF1 timeline: timeline.Timeline's Chrome trace of one Session.run. */
static bool is_tf1_timeline(const tpa_trace *tr)
{
        return tpa_trace_format(tr) == TPA_FORMAT_CHROME_JSON &&
               tpa_trace_dialect(tr) == TPA_DIALECT_TF1;
}

/* Several TF1 timelines read into one trace (ProfilerHook's timeline-N.json,
 * a Session.run each) are its steps, as RunMetadata files are: each input's
 * events get a step marker, the first's when the second comes. */
static int timeline_steps(tpa_trace *tr, size_t first, tpa_error *err)
{
        size_t last = tpa_trace_event_count(tr);
        int r = 0;

        if (tpa_trace__step_numbers(tr) == 0)
                r = tpa_stepstats__mark(tr, 0, first, err);
        return r < 0 ? r : tpa_stepstats__mark(tr, first, last, err);
}

static int read_source(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                       tpa_error *err)
{
        tpa_health *h = tpa_trace__health(tr);
        uint64_t before_in = h->bytes_in, before_out = h->bytes_read;
        uint64_t before_bad = h->invalid_utf8;
        size_t first = tpa_trace_event_count(tr);
        bool timeline = first > 0 && is_tf1_timeline(tr);
        int r;

        r = dispatch(tr, src, opts, err);
        if (r == 0 && timeline && is_tf1_timeline(tr))
                r = timeline_steps(tr, first, err);
        /* After the gzip data, bytes that are none (zeros a copy padded
         * it with, junk appended): gzip -d ignores them with a warning */
        if (r == 0 && tpa_source__garbage_at(src) > 0) {
                if (opts->strict)
                        /* the offset in the decompressed data, as every
                         * message about a gzip input (README, exit 3) */
                        r = tpa_error_set(err, TPA_EFORMAT, tpa_source__offset(src),
                                          "bytes after the gzip data, from compressed "
                                          "byte %llu on, are no gzip member (--strict)",
                                          (unsigned long long)tpa_source__garbage_at(src));
                else
                        tpa_trace__warn(tr, tpa_source__offset(src),
                                        "bytes after the gzip data, from compressed byte "
                                        "%llu on, are no gzip member: ignored",
                                        (unsigned long long)tpa_source__garbage_at(src));
        }
        h->bytes_in = before_in + tpa_source__bytes_in(src);
        h->bytes_read = before_out + tpa_source__offset(src);
        /* One warning for all of this input's strings that the readers
         * repaired (model/utf8.h), so that reports stay valid UTF-8. */
        if (r == 0)
                tpa_utf8__warn_repaired(tr, before_bad);
        return r;
}

/* A directory of RunMetadata (binary or text) and tfevents files: each is
 * read into `tr`, in name order, so each RunMetadata is one more step.
 * Other files are skipped. (A TensorBoard logdir is the caller's to
 * expand: tpa/logdir.h.) */
static int read_step_dir(tpa_trace *tr, const char *dir, const tpa_read_options *opts,
                         tpa_error *err)
{
        char **files = NULL;
        size_t n = 0, used = 0;
        int r;

        r = tpa_logdir__list_files(&files, &n, dir, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r == 0; i++) {
                const uint8_t *head;
                size_t len;
                tpa_source *src;
                tpa_format f;

                r = tpa_source__open(&src, files[i], opts, err);
                if (r < 0)
                        break;
                r = tpa_source__peek(src, &head, &len, 4096, err);
                f = r == 0 ? tpa_read_sniff(head, len) : TPA_FORMAT_AUTO;
                if (r == 0 && (f == TPA_FORMAT_STEPSTATS || f == TPA_FORMAT_STEPSTATS_TEXT ||
                               f == TPA_FORMAT_TFEVENTS)) {
                        r = read_source(tr, src, opts, err);
                        used++;
                        if (r < 0 && err != NULL) {     /* say which file */
                                char msg[sizeof(err->msg)];
                                const char *base = strrchr(files[i], '/');
                                memcpy(msg, err->msg, sizeof(msg));
                                snprintf(err->msg, sizeof(err->msg), "%.60s: %.130s",
                                         base != NULL ? base + 1 : files[i], msg);
                                tpa_utf8__one_line(err->msg);
                        }
                }
                tpa_source__free(src);
        }
        for (size_t i = 0; i < n; i++)
                free(files[i]);
        free(files);
        if (r == 0 && used == 0)
                r = tpa_error_setf(err, TPA_EFORMAT, "no profile runs (plugins/profile/<run>/, "
                                   "<run>/*.pt.trace.json) and no RunMetadata or tfevents "
                                   "files in this directory");
        return r;
}

int tpa_read_path(tpa_trace *tr, const char *path, const tpa_read_options *opts,
                  tpa_error *err)
{
        static const tpa_read_options defaults = TPA_READ_OPTIONS_INIT;
        tpa_source *src;
        struct stat st;
        int r;

        if (opts == NULL)
                opts = &defaults;
        if (opts->max_events != 0)
                tpa_trace__set_max_events(tr, opts->max_events);
        if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                return read_step_dir(tr, path, opts, err);
        r = tpa_source__open(&src, path, opts, err);
        if (r < 0)
                return r;
        r = read_source(tr, src, opts, err);
        tpa_source__free(src);
        return r;
}

int tpa_read_memory(tpa_trace *tr, const void *data, size_t size, const char *name,
                    const tpa_read_options *opts, tpa_error *err)
{
        static const tpa_read_options defaults = TPA_READ_OPTIONS_INIT;
        tpa_source *src;
        int r;

        (void)name;
        if (opts == NULL)
                opts = &defaults;
        if (opts->max_events != 0)
                tpa_trace__set_max_events(tr, opts->max_events);
        r = tpa_source__open_memory(&src, data, size, opts, err);
        if (r < 0)
                return r;
        r = read_source(tr, src, opts, err);
        tpa_source__free(src);
        return r;
}
