/* SPDX-License-Identifier: MIT */
/*
 * test_source.c - the byte source: the threaded (inflate | parse) mode
 * hands out the same bytes, offsets, truncation and errors as one thread;
 * a transform sees every byte once, in order, wherever it runs; the
 * inflating thread's idle work, and the consumer's hint that a read would
 * wait; gzip's CRC-32 as zlib computes it, and a bad trailer named as zlib
 * names it. The cases on gzip run with each inflate built in: ISA-L (when
 * it is) and the built-in decoder with zlib. Reading a file whole maps a
 * regular one and reads anything else, with the same bytes either way.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "input/crc32.h"
#include "input/source.h"
#include "tap.h"

/* The backend of the sources opened: false for ISA-L when built in. */
static bool builtin;

/* Some megabytes of JSON-ish text that compresses like a trace. */
static char *make_text(size_t size)
{
        char *t = malloc(size);
        uint64_t x = 88172645463325252ull;
        size_t i = 0;

        while (i < size) {
                int n;
                char line[96];
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                n = snprintf(line, sizeof(line), "{\"ph\":\"X\",\"ts\":%llu.%03u,\"name\":\"k%u\"},\n",
                             (unsigned long long)(i / 7), (unsigned)(x % 1000),
                             (unsigned)(x >> 40) % 97);
                for (int k = 0; k < n && i < size; k++)
                        t[i++] = line[k];
        }
        return t;
}

/* `text` gzip'd; with a header CRC (FHCRC) when `hcrc`: zlib checks
 * such members itself. */
static uint8_t *gzip_with(const char *text, size_t n, size_t *out_len, bool hcrc)
{
        z_stream z;
        gz_header h;
        size_t cap = compressBound((uLong)n) + 64;
        uint8_t *out = malloc(cap);

        memset(&z, 0, sizeof(z));
        memset(&h, 0, sizeof(h));
        h.hcrc = hcrc;
        h.os = 3;
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        if (hcrc)
                deflateSetHeader(&z, &h);
        z.next_in = (Bytef *)(uintptr_t)text;
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        deflate(&z, Z_FINISH);
        *out_len = cap - z.avail_out;
        deflateEnd(&z);
        return out;
}

static uint8_t *gzip(const char *text, size_t n, size_t *out_len)
{
        return gzip_with(text, n, out_len, false);
}

struct result {
        int      rc;
        uint8_t *data;
        size_t   len;
        uint64_t offset, bytes_in, err_offset;
        bool     truncated;
        char     msg[200];
};

/* Read a source to the end (or an error), peeking `peek` bytes first. */
static struct result drain(tpa_source *src, size_t peek)
{
        struct result res = { 0 };
        tpa_error err = TPA_ERROR_INIT;
        const uint8_t *p;
        size_t n, cap = 1u << 20;

        res.data = malloc(cap);
        if (peek > 0) {
                res.rc = tpa_source__peek(src, &p, &n, peek, &err);
                if (res.rc < 0)
                        goto done;
        }
        for (;;) {
                res.rc = tpa_source__read(src, &p, &n, &err);
                if (res.rc < 0 || n == 0)
                        break;
                if (res.len + n > cap) {
                        while (res.len + n > cap)
                                cap *= 2;
                        res.data = realloc(res.data, cap);
                }
                memcpy(res.data + res.len, p, n);
                res.len += n;
        }
done:
        res.offset = tpa_source__offset(src);
        res.bytes_in = tpa_source__bytes_in(src);
        res.truncated = tpa_source__truncated(src);
        res.err_offset = err.offset;
        snprintf(res.msg, sizeof(res.msg), "%s", err.msg);
        return res;
}

static struct result read_memory(const void *data, size_t size, bool threaded, size_t peek)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        tpa_source *src;
        struct result res;

        opts.threaded = threaded;
        opts.builtin_inflate = builtin;
        if (tpa_source__open_memory(&src, data, size, &opts, NULL) < 0)
                return (struct result){ .rc = -100 };
        res = drain(src, peek);
        tpa_source__free(src);
        return res;
}

static void same(const struct result *a, const struct result *b, const char *what)
{
        tap_eq(b->rc, a->rc, "test_source__%s: same status", what);
        tap_eq((int64_t)b->len, (int64_t)a->len, "test_source__%s: same length", what);
        ok(a->len == b->len && memcmp(a->data, b->data, a->len) == 0,
           "test_source__%s: same bytes", what);
        tap_eq((int64_t)b->offset, (int64_t)a->offset, "test_source__%s: same offset", what);
        tap_eq((int64_t)b->bytes_in, (int64_t)a->bytes_in, "test_source__%s: same bytes_in",
               what);
        tap_eq(b->truncated, a->truncated, "test_source__%s: same truncation", what);
}

/* A transform: 'k' becomes 'K' in place; the note says where its chunk
 * starts in the stream and how long it is. */
struct xf_state {
        uint64_t off;
};

struct xf_note {
        uint64_t start;
        size_t   len;
};

static void xf(void *state, uint8_t *data, size_t len, void *note)
{
        struct xf_state *st = state;
        struct xf_note *n = note;

        n->start = st->off;
        n->len = len;
        st->off += len;
        for (size_t i = 0; i < len; i++)
                if (data[i] == 'k')
                        data[i] = 'K';
}

/* Read `src` to the end with the transform set after a peek of `peek`
 * bytes: every chunk is the transformed text at its offset, with its note. */
static void check_transform(tpa_source *src, size_t peek, const char *want, size_t want_len,
                            const char *what)
{
        struct xf_state st = { 0 };
        const struct xf_note *n;
        const uint8_t *p;
        size_t len, bad = 0;
        uint64_t at = 0;
        int r;

        if (peek > 0)
                tpa_source__peek(src, &p, &len, peek, NULL);
        r = tpa_source__set_transform(src, xf, &st, sizeof(struct xf_note), NULL);
        while (r == 0 && (r = tpa_source__read(src, &p, &len, NULL)) == 0 && len > 0) {
                n = tpa_source__note(src);
                if (n == NULL || n->start != at || n->len != len || at + len > want_len ||
                    memcmp(p, want + at, len) != 0)
                        bad++;
                at += len;
        }
        tpa_source__set_transform(src, NULL, NULL, 0, NULL);
        ok(r == 0 && at == want_len && st.off == want_len && bad == 0,
           "test_source__transform: %s: every byte once, in order, notes with their chunks "
           "(%zu bad chunks)", what, bad);
}

/* tpa_crc32__update() is zlib's crc32(): every length to 600, at every
 * alignment, whole and in two parts, and long runs. */
static void test_source__crc32(void)
{
        size_t n = (3u << 20) + 77;
        uint8_t *b = malloc(n);
        uint64_t x = 0x9e3779b97f4a7c15u;
        bool ok_all = true, ok_parts = true;

        for (size_t i = 0; i < n; i++) {
                x = x * 6364136223846793005u + 1442695040888963407u;
                b[i] = (uint8_t)(x >> 56);
        }
        for (size_t len = 0; len <= 600; len++)
                for (size_t at = 0; at < 16; at++)
                        ok_all &= tpa_crc32__update(0, b + at, len) ==
                                  (uint32_t)crc32(0, b + at, (uInt)len);
        ok(ok_all, "test_source__crc32: lengths 0..600 at 16 alignments as zlib's");
        for (size_t len = 64; len <= 600; len += 7) {
                uint32_t want = (uint32_t)crc32(0, b + 3, (uInt)len);
                for (size_t cut = 0; cut <= len; cut += 5)
                        ok_parts &= tpa_crc32__update(tpa_crc32__update(0, b + 3, cut),
                                                      b + 3 + cut, len - cut) == want;
        }
        ok(ok_parts, "test_source__crc32: in two parts as whole");
        tap_eq(tpa_crc32__update(0, b, n), (uint32_t)crc32(0, b, (uInt)n),
               "test_source__crc32: 3 MiB as zlib's");
        tap_eq(tpa_crc32__update(0x12345678u, b + 1, n - 1),
               (uint32_t)crc32(0x12345678u, b + 1, (uInt)(n - 1)),
               "test_source__crc32: 3 MiB from a CRC, unaligned, as zlib's");
        free(b);
}

/* A trailer changed at byte `at` of `gz` (after `prefix` good bytes of
 * another member): the error zlib gives, on one thread and on two. */
static void check_trailer(const uint8_t *gz, size_t gz_len, size_t prefix, size_t at,
                          const char *check, uint64_t want_offset, const char *what)
{
        uint8_t *bad = malloc(prefix + gz_len);
        struct result one, two;
        char want[200];

        memcpy(bad, gz, prefix);
        memcpy(bad + prefix, gz, gz_len);
        bad[prefix + at] ^= 0x10;
        snprintf(want, sizeof(want), "gzip data is corrupt (%s, compressed byte %llu)", check,
                 (unsigned long long)(prefix + (strcmp(check, "incorrect data check") == 0
                                                        ? gz_len - 4 : gz_len)));
        one = read_memory(bad, prefix + gz_len, false, 0);
        two = read_memory(bad, prefix + gz_len, true, 0);
        tap_eq(one.rc, TPA_EFORMAT, "test_source__trailer: %s: an error", what);
        tap_streq(one.msg, want, "test_source__trailer: %s: zlib's words, its byte", what);
        tap_eq((int64_t)one.err_offset, (int64_t)want_offset,
               "test_source__trailer: %s: at the member's end", what);
        /* what was handed out before the error differs: the ring reads ahead */
        tap_eq(two.rc, one.rc, "test_source__trailer: %s: threaded, an error", what);
        tap_streq(two.msg, one.msg, "test_source__trailer: %s: threaded, the same", what);
        tap_eq((int64_t)two.err_offset, (int64_t)one.err_offset,
               "test_source__trailer: %s: threaded, at the same place", what);
        free(one.data);
        free(two.data);
        free(bad);
}

static void test_source__trailer(void)
{
        size_t n = 1u << 20, gz_len, hc_len;
        char *text = make_text(n);
        uint8_t *gz = gzip(text, n, &gz_len), *hc = gzip_with(text, n, &hc_len, true);

        check_trailer(gz, gz_len, 0, gz_len - 8, "incorrect data check", n, "CRC");
        check_trailer(gz, gz_len, 0, gz_len - 1, "incorrect length check", n, "length");
        /* zlib checks this member itself: the words and places are its own */
        check_trailer(hc, hc_len, 0, hc_len - 6, "incorrect data check", n, "CRC, FHCRC");
        check_trailer(hc, hc_len, 0, hc_len - 3, "incorrect length check", n, "length, FHCRC");
        /* the second member of two */
        check_trailer(gz, gz_len, gz_len, gz_len - 7, "incorrect data check", 2 * n,
                      "CRC of a second member");
        check_trailer(hc, hc_len, hc_len, hc_len - 8, "incorrect data check", 2 * n,
                      "CRC of a second member, FHCRC");
        free(text);
        free(gz);
        free(hc);
}

/* The inflating thread's idle work (tpa_source__set_idle()). */
struct idle {
        atomic_int  calls;
        atomic_bool inside;
        atomic_bool release;
        int         busy;       /* calls that say they did something */
        bool        hold;       /* the first call lasts until `release` */
};

static bool idle_fn(void *state)
{
        struct idle *d = state;
        int n = atomic_fetch_add(&d->calls, 1);

        atomic_store(&d->inside, true);
        while (n == 0 && d->hold && !atomic_load(&d->release))
                usleep(1000);
        atomic_store(&d->inside, false);
        return n < d->busy;
}

/* Poll until *flag (or calls >= want), at most 20 s: timing-free tests. */
static bool until(atomic_bool *flag, atomic_int *calls, int want)
{
        for (int i = 0; i < 20000; i++) {
                if (flag != NULL ? atomic_load(flag) : atomic_load(calls) >= want)
                        return true;
                usleep(1000);
        }
        return false;
}

static void *release_later(void *arg)
{
        usleep(100 * 1000);
        atomic_store(&((struct idle *)arg)->release, true);
        return NULL;
}

/* A stream of three chunks never has half the ring waiting, yet once the
 * thread has filled its last chunk it calls the idle work, then waits; each
 * chunk the reader gives back wakes it for another call, until the source
 * is freed. A hang here fails by SIGALRM, on a budget of its own. */
static void test_source__idle_end(const char *text)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        size_t text_len = 600u << 10, gz_len, n, got = 0;
        uint8_t *gz = gzip(text, text_len, &gz_len);
        struct idle d = { .busy = 0 };
        tpa_source *src;
        const uint8_t *p;
        int calls;

        alarm(60);
        opts.threaded = true;
        if (tpa_source__open_memory(&src, gz, gz_len, &opts, NULL) < 0) {
                ok(false, "test_source__idle_end: opens");
                free(gz);
                return;
        }
        tpa_source__set_idle(src, idle_fn, &d);
        ok(tpa_source__read(src, &p, &n, NULL) == 0 && n > 0 && n < text_len,
           "test_source__idle_end: the first of several chunks");
        got += n;
        ok(until(NULL, &d.calls, 1), "test_source__idle_end: called after the last chunk");
        calls = atomic_load(&d.calls);
        usleep(50 * 1000);
        tap_eq(atomic_load(&d.calls), calls, "test_source__idle_end: then it waits");
        ok(tpa_source__read(src, &p, &n, NULL) == 0 && n > 0,
           "test_source__idle_end: the next chunk");
        got += n;
        ok(until(NULL, &d.calls, calls + 1),
           "test_source__idle_end: the chunk given back wakes it");
        while (tpa_source__read(src, &p, &n, NULL) == 0 && n > 0)
                got += n;
        tap_eq(got, text_len, "test_source__idle_end: every byte");
        tpa_source__free(src);
        free(gz);
}

/* While the inflating thread is held in an idle call, the consumer empties
 * every chunk filled and is told that its next read would wait; that read
 * then waits for the call to return, and the thread goes on inflating
 * though the ring emptied under it (it must not wait for room it has).
 * A hang here fails by SIGALRM. */
static void test_source__idle(const uint8_t *gz, size_t gz_len, const char *text,
                              size_t text_len)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        struct idle d = { .busy = 0, .hold = true };
        tpa_source *src;
        const uint8_t *p;
        size_t n, got = 0;
        bool told = false, same = true;
        pthread_t t;
        int calls;

        opts.threaded = true;
        alarm(60);
        if (tpa_source__open_memory(&src, gz, gz_len, &opts, NULL) < 0) {
                ok(false, "test_source__idle: opens");
                return;
        }
        tpa_source__set_idle(src, idle_fn, &d);
        ok(until(&d.inside, NULL, 0), "test_source__idle: called once the ring is full");
        for (;;) {
                if (!told && tpa_source__would_wait(src)) {
                        told = true;
                        atomic_store(&d.release, true);
                }
                if (tpa_source__read(src, &p, &n, NULL) < 0 || n == 0)
                        break;
                same = same && got + n <= text_len && memcmp(text + got, p, n) == 0;
                got += n;
        }
        ok(told, "test_source__idle: a read would wait once the ring is empty");
        ok(same && got == text_len, "test_source__idle: every byte, in order");
        tpa_source__free(src);

        /* called again while it did something, once more, then once before
         * each chunk it fills until every one is full (at most 8: the
         * ring's slots); then the thread waits, and calls no more */
        d = (struct idle){ .busy = 5 };
        tpa_source__open_memory(&src, gz, gz_len, &opts, NULL);
        tpa_source__set_idle(src, idle_fn, &d);
        until(NULL, &d.calls, d.busy + 1);
        usleep(50 * 1000);
        calls = atomic_load(&d.calls);
        ok(calls >= d.busy + 1 && calls <= d.busy + 1 + 8,
           "test_source__idle: called while it did something, and a few times more");
        usleep(50 * 1000);
        tap_eq(atomic_load(&d.calls), calls, "test_source__idle: then it waits");
        tpa_source__free(src);

        /* detaching waits for a call under way */
        d = (struct idle){ .busy = 0, .hold = true };
        tpa_source__open_memory(&src, gz, gz_len, &opts, NULL);
        tpa_source__set_idle(src, idle_fn, &d);
        ok(until(&d.inside, NULL, 0), "test_source__idle: a call under way");
        pthread_create(&t, NULL, release_later, &d);
        tpa_source__set_idle(src, NULL, NULL);
        ok(atomic_load(&d.release) && !atomic_load(&d.inside),
           "test_source__idle: detaching waited for it");
        pthread_join(t, NULL);
        tpa_source__free(src);
        test_source__idle_end(text);
        alarm(0);

        /* without a thread, nothing is called and nothing would wait */
        opts.threaded = false;
        d = (struct idle){ .busy = 0 };
        tpa_source__open_memory(&src, gz, gz_len, &opts, NULL);
        tpa_source__set_idle(src, idle_fn, &d);
        ok(!tpa_source__would_wait(src), "test_source__idle: one thread never waits");
        while (tpa_source__read(src, &p, &n, NULL) == 0 && n > 0)
                ;
        tap_eq(atomic_load(&d.calls), 0, "test_source__idle: one thread, never called");
        tpa_source__free(src);
}

/* Chunks kept by the caller (tpa_source__adopt()): every other one, its
 * buffer written past the chunk's end, and given back as the next spare;
 * the kept bytes stay as they were after later reads, the stream is whole,
 * and a peek's bytes or a source without a thread are never given. */
static void test_source__adopt(const uint8_t *gz, size_t gz_len, const char *text,
                               size_t text_len)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        uint8_t *kept = NULL, *spare = NULL, *buf;
        size_t kept_cap = 0, spare_cap = 0, kept_at = 0, kept_len = 0, kept_from = 0;
        size_t got, n, cap;
        unsigned adopted = 0, chunks = 0;
        bool same, room = true;
        const uint8_t *p;
        tpa_source *src;

        opts.threaded = true;
        if (tpa_source__open_memory(&src, gz, gz_len, &opts, NULL) < 0) {
                ok(false, "test_source__adopt: opens");
                return;
        }
        ok(tpa_source__peek(src, &p, &n, 100, NULL) == 0 &&
           tpa_source__read(src, &p, &n, NULL) == 0 && n > 0,
           "test_source__adopt: peek, then read");
        ok(tpa_source__adopt(src, NULL, 0, &cap) == NULL,
           "test_source__adopt: bytes a peek gathered are not given");
        same = n <= text_len && memcmp(text, p, n) == 0;
        got = n;
        for (;;) {
                if (tpa_source__read(src, &p, &n, NULL) < 0 || n == 0)
                        break;
                same = same && got + n <= text_len && memcmp(text + got, p, n) == 0;
                /* the chunk kept last: still its bytes, though the source read on */
                if (kept != NULL)
                        same = same && memcmp(kept + kept_at, text + kept_from, kept_len) == 0;
                if (chunks++ % 2 == 0) {
                        buf = tpa_source__adopt(src, spare, spare_cap, &cap);
                        spare = NULL;           /* the source's now */
                        if (buf != NULL) {
                                size_t at = (size_t)(p - buf);
                                adopted++;
                                room = room && at + n + 64 * 1024 <= cap;
                                memset(buf + at + n, 'x', cap - at - n);
                                spare = kept;
                                spare_cap = kept_cap;
                                kept = buf;
                                kept_cap = cap;
                                kept_at = at;
                                kept_len = n;
                                kept_from = got;
                        }
                }
                got += n;
        }
        ok(adopted > 2, "test_source__adopt: chunks kept (%u)", adopted);
        ok(room, "test_source__adopt: room past each chunk kept, written");
        ok(same && got == text_len, "test_source__adopt: every byte, in order; the kept ones "
           "unchanged by the reads after");
        free(kept);
        free(spare);
        tpa_source__free(src);

        opts.threaded = false;
        tpa_source__open_memory(&src, gz, gz_len, &opts, NULL);
        ok(tpa_source__read(src, &p, &n, NULL) == 0 && n > 0 &&
           tpa_source__adopt(src, NULL, 0, &cap) == NULL,
           "test_source__adopt: one thread, never given");
        tpa_source__free(src);
}

#ifdef TPA_HAVE_ISAL
/* Read `gz[0..len)` from memory on one thread or two, or from a file. */
static struct result read_how(const uint8_t *gz, size_t len, int how)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        char path[] = "/tmp/tpa_test_source_XXXXXX";
        tpa_error err = TPA_ERROR_INIT;
        struct result res = { .rc = -100 };
        tpa_source *src;
        int fd;

        if (how < 2)
                return read_memory(gz, len, how == 1, 0);
        fd = mkstemp(path);
        if (fd < 0 || write(fd, gz, len) != (ssize_t)len)
                abort();
        close(fd);
        opts.builtin_inflate = builtin;
        if (tpa_source__open(&src, path, &opts, &err) == 0) {
                res = drain(src, 0);
                tpa_source__free(src);
        }
        unlink(path);
        return res;
}

/* Bad and cut input through ISA-L, which hands the member over to the
 * built-in decoder and zlib when it fails or runs out: everything as they
 * alone give it, bytes, error, words and offsets. */
static void test_source__backends(const uint8_t *gz, size_t gz_len)
{
        static const char *const hows[] = { "memory", "threaded", "file" };
        uint8_t *bad = malloc(gz_len);
        uint64_t rng = 7;
        unsigned fails = 0, errors = 0, cuts = 0;

        for (int t = 0; t < 30; t++) {
                size_t at = 10 + tap_rand(&rng) % (gz_len - 10), len = gz_len;
                memcpy(bad, gz, gz_len);
                if (t % 3 == 0)
                        len = at;
                else if (t % 3 == 1)
                        bad[at] ^= (uint8_t)(1u << tap_rand(&rng) % 8);
                else
                        memset(bad + at, 0xff, at + 64 < gz_len ? 64 : gz_len - at);
                for (int how = 0; how < 3; how++) {
                        struct result a, b;
                        builtin = false;
                        a = read_how(bad, len, how);
                        builtin = true;
                        b = read_how(bad, len, how);
                        errors += a.rc < 0;
                        cuts += a.truncated;
                        if ((a.rc != b.rc || a.len != b.len || memcmp(a.data, b.data, a.len) ||
                             a.offset != b.offset || a.truncated != b.truncated ||
                             a.err_offset != b.err_offset || strcmp(a.msg, b.msg) != 0) &&
                            fails++ < 3)
                                ok(false, "test_source__backends: %s, case %d at %zu: "
                                   "'%s' at %llu (%zu bytes%s), want '%s' at %llu (%zu bytes%s)",
                                   hows[how], t, at, a.msg,
                                   (unsigned long long)a.err_offset, a.len, a.truncated ? ", cut" : "", b.msg,
                                   (unsigned long long)b.err_offset, b.len, b.truncated ? ", cut" : "");
                        free(a.data);
                        free(b.data);
                }
        }
        builtin = false;
        ok(fails == 0 && errors > 0 && cuts > 0,
           "test_source__backends: %u errors and %u cuts as the built-in decoder's", errors,
           cuts);
        free(bad);
}
#endif

/* The same bytes, offsets, truncation and errors on one thread and two,
 * from memory and from a file, with the backend `builtin` says. */
static void test_source__gzip(const uint8_t *gz, size_t gz_len, const char *text,
                              size_t text_len)
{
        struct result one, two;

        /* whole stream, with and without a peek first, small and large */
        one = read_memory(gz, gz_len, false, 0);
        ok(one.rc == 0 && one.len == text_len && memcmp(one.data, text, text_len) == 0,
           "test_source__single: inflates the stream");
        static const size_t peeks[] = { 0, 1, 4096, 300000, 2u << 20 };
        for (size_t i = 0; i < sizeof(peeks) / sizeof(peeks[0]); i++) {
                char what[64];
                snprintf(what, sizeof(what), "threaded_peek_%zu", peeks[i]);
                two = read_memory(gz, gz_len, true, peeks[i]);
                same(&one, &two, what);
                free(two.data);
        }

        /* a peek returns the start of the stream, at least `want` bytes */
        {
                tpa_read_options opts = TPA_READ_OPTIONS_INIT;
                tpa_source *src;
                const uint8_t *p;
                size_t n;

                opts.threaded = true;
                opts.builtin_inflate = builtin;
                tpa_source__open_memory(&src, gz, gz_len, &opts, NULL);
                tpa_source__peek(src, &p, &n, 700000, NULL);
                ok(n >= 700000 && memcmp(p, text, 700000) == 0,
                   "test_source__threaded_peek: the first bytes, across chunks");
                tpa_source__read(src, &p, &n, NULL);
                ok(n > 0 && memcmp(p, text, n) == 0,
                   "test_source__threaded_peek: read after peek starts at 0");
                /* freeing in the middle stops the inflating thread */
                tpa_source__free(src);
                ok(true, "test_source__threaded_free: freed mid-stream");
        }
        free(one.data);

        /* truncated: the same bytes, then the end, flagged */
        one = read_memory(gz, gz_len / 2, false, 0);
        two = read_memory(gz, gz_len / 2, true, 4096);
        ok(one.rc == 0 && one.truncated, "test_source__truncated: single thread flags it");
        same(&one, &two, "truncated");
        free(one.data);
        free(two.data);

        /* corrupt: the same error at the same offset */
        {
                uint8_t *bad = malloc(gz_len);
                memcpy(bad, gz, gz_len);
                memset(bad + gz_len / 2, 0xff, 64);
                one = read_memory(bad, gz_len, false, 0);
                two = read_memory(bad, gz_len, true, 0);
                tap_eq(one.rc, TPA_EFORMAT, "test_source__corrupt: single thread fails");
                tap_eq(two.rc, TPA_EFORMAT, "test_source__corrupt: threaded fails");
                tap_eq((int64_t)two.err_offset, (int64_t)one.err_offset,
                       "test_source__corrupt: same error offset");
                {
                        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
                        tpa_source *src;
                        const uint8_t *p;
                        size_t n;
                        int r;

                        opts.threaded = true;
                        opts.builtin_inflate = builtin;
                        tpa_source__open_memory(&src, bad, gz_len, &opts, NULL);
                        while ((r = tpa_source__read(src, &p, &n, NULL)) == 0 && n > 0)
                                ;
                        tap_eq(r, TPA_EFORMAT, "test_source__corrupt: threaded fails");
                        tap_eq(tpa_source__read(src, &p, &n, NULL), TPA_EFORMAT,
                               "test_source__corrupt: and fails again when read again");
                        tpa_source__free(src);
                }
                free(one.data);
                free(two.data);
                free(bad);
        }

        /* a gzip file above the threshold goes threaded by itself */
        {
                char path[] = "/tmp/tpa_test_source_XXXXXX";
                int fd = mkstemp(path);
                tpa_read_options opts = TPA_READ_OPTIONS_INIT;
                tpa_source *src;

                ok(fd >= 0 && write(fd, gz, gz_len) == (ssize_t)gz_len,
                   "test_source__file: temp file written");
                if (fd >= 0)
                        close(fd);
                opts.builtin_inflate = builtin;
                one = read_memory(gz, gz_len, false, 0);
                if (tpa_source__open(&src, path, &opts, NULL) == 0) {
                        two = drain(src, 4096);
                        tpa_source__free(src);
                        same(&one, &two, "file");
                        free(two.data);
                } else {
                        ok(false, "test_source__file: opens");
                }
                unlink(path);
                free(one.data);
        }
}

/* tpa_source__read_whole() on `path` (NULL: stdin), after a peek or a read
 * of the first chunk: the rest of `want`, at the offsets reading gives;
 * writable; the source ends after it. */
static void check_whole(const char *path, bool threaded, bool read_first, const void *want,
                        size_t want_len, uint64_t want_in, const char *what)
{
        tpa_read_options opts = TPA_READ_OPTIONS_INIT;
        tpa_source *src;
        const uint8_t *p;
        uint8_t *data = NULL;
        size_t n = 0, len = 0;
        int r;

        opts.threaded = threaded;
        opts.builtin_inflate = builtin;
        if (tpa_source__open(&src, path != NULL ? path : "-", &opts, NULL) < 0) {
                ok(false, "test_source__whole: %s: opens", what);
                return;
        }
        r = read_first ? tpa_source__read(src, &p, &n, NULL)
                       : tpa_source__peek(src, &p, &len, 4096, NULL);
        if (r == 0)
                r = tpa_source__read_whole(src, &data, &len, UINT64_MAX, NULL);
        ok(r == 0 && n + len == want_len && (len == 0 || memcmp(data, (const char *)want + n,
                                                               len) == 0),
           "test_source__whole: %s: the bytes after the first %zu", what, n);
        tap_eq((int64_t)tpa_source__offset(src), (int64_t)want_len,
               "test_source__whole: %s: offset at the end", what);
        tap_eq((int64_t)tpa_source__bytes_in(src), (int64_t)want_in,
               "test_source__whole: %s: bytes in", what);
        if (r == 0 && len > 0)
                data[len - 1] ^= 1;     /* writable */
        ok(tpa_source__read(src, &p, &n, NULL) == 0 && n == 0,
           "test_source__whole: %s: nothing after it", what);
        tpa_source__free(src);
}

struct pipe_writer {
        const char *path, *text;
        size_t      len;
};

static void *write_fifo(void *arg)
{
        struct pipe_writer *w = arg;
        int fd = open(w->path, O_WRONLY);

        if (fd >= 0) {
                for (size_t at = 0, k; at < w->len; at += k)
                        if ((k = (size_t)write(fd, w->text + at, w->len - at)) == (size_t)-1)
                                break;
                close(fd);
        }
        return NULL;
}

static void test_source__whole(const char *text, size_t text_len, const uint8_t *gz,
                               size_t gz_len)
{
        char path[] = "/tmp/tpa_test_source_XXXXXX";
        char small[] = "/tmp/tpa_test_source_XXXXXX";
        char empty[] = "/tmp/tpa_test_source_XXXXXX";
        char gzpath[] = "/tmp/tpa_test_source_XXXXXX";
        int fd = mkstemp(path), fs = mkstemp(small), fe = mkstemp(empty), fg = mkstemp(gzpath);
        size_t small_len = 100000;

        ok(fd >= 0 && write(fd, text, text_len) == (ssize_t)text_len && fs >= 0 &&
           write(fs, text, small_len) == (ssize_t)small_len && fe >= 0 && fg >= 0 &&
           write(fg, gz, gz_len) == (ssize_t)gz_len, "test_source__whole: temp files written");
        for (int threaded = 0; threaded < 2; threaded++)
                for (int first = 0; first < 2; first++) {
                        char what[64];
                        snprintf(what, sizeof(what), "file%s%s", threaded ? ", threaded" : "",
                                 first ? ", a chunk read" : "");
                        check_whole(path, threaded, first, text, text_len, text_len, what);
                        snprintf(what, sizeof(what), "small file%s%s",
                                 threaded ? ", threaded" : "", first ? ", a chunk read" : "");
                        check_whole(small, threaded, first, text, small_len, small_len, what);
                }
        check_whole(empty, false, false, "", 0, 0, "empty file");
        check_whole(gzpath, false, false, text, text_len, gz_len, "gzip file");
        {
                uint8_t *back = malloc(text_len);
                ok(back != NULL && pread(fd, back, text_len, 0) == (ssize_t)text_len &&
                   memcmp(back, text, text_len) == 0,
                   "test_source__whole: a write to the bytes leaves the file as it was");
                free(back);
        }
        /* stdin, a file from an offset that is no page's first byte */
        {
                int saved = dup(STDIN_FILENO);
                if (saved >= 0 && lseek(fd, 5000, SEEK_SET) == 5000 &&
                    dup2(fd, STDIN_FILENO) == STDIN_FILENO) {
                        check_whole(NULL, false, false, text + 5000, text_len - 5000,
                                    text_len - 5000, "stdin from byte 5000");
                        dup2(saved, STDIN_FILENO);
                } else {
                        ok(false, "test_source__whole: stdin from a file");
                }
                if (saved >= 0)
                        close(saved);
        }
        /* over the limit: the error reading gives */
        {
                tpa_source *a, *b;
                tpa_error ea = TPA_ERROR_INIT, eb = TPA_ERROR_INIT;
                uint8_t *da = NULL, *db = NULL;
                size_t la, lb;
                int ra = -100, rb = -100;

                if (tpa_source__open(&a, path, NULL, NULL) == 0) {
                        ra = tpa_source__read_all(a, &da, &la, text_len - 1, &ea);
                        tpa_source__free(a);
                }
                if (tpa_source__open(&b, path, NULL, NULL) == 0) {
                        rb = tpa_source__read_whole(b, &db, &lb, text_len - 1, &eb);
                        tpa_source__free(b);
                }
                tap_eq(rb, TPA_ELIMIT, "test_source__whole: over the limit fails");
                tap_eq(rb, ra, "test_source__whole: as reading all fails");
                tap_streq(eb.msg, ea.msg, "test_source__whole: with the same message");
                free(da);
        }
        /* a pipe is read */
        {
                char fifo[] = "/tmp/tpa_test_source_XXXXXX";
                int ft = mkstemp(fifo);
                struct pipe_writer w = { fifo, text, text_len };
                pthread_t t;

                if (ft >= 0)
                        close(ft);
                unlink(fifo);
                if (mkfifo(fifo, 0600) == 0 && pthread_create(&t, NULL, write_fifo, &w) == 0) {
                        check_whole(fifo, false, false, text, text_len, text_len, "pipe");
                        pthread_join(t, NULL);
                } else {
                        ok(false, "test_source__whole: a pipe");
                }
                unlink(fifo);
        }
        for (int *f = (int[]){ fd, fs, fe, fg, -1 }; *f != -1; f++)
                close(*f);
        unlink(path);
        unlink(small);
        unlink(empty);
        unlink(gzpath);
}

/* Which files are read on a second thread, on a machine of two CPUs or
 * more: a gzip file of 64 KiB or more (compressed), another file of 256 KiB
 * or more; a smaller one on the caller's thread. Either way, the bytes. */
static void test_source__thread_sizes(const char *text)
{
        static const struct {
                size_t len;     /* of the text, then gzip'd or not */
                bool   gz, threaded;
        } cases[] = {
                { 200000, false, false }, { 300000, false, true },
                { 200000, true, false }, { 1000000, true, true },
        };
        bool cpus = sysconf(_SC_NPROCESSORS_ONLN) > 1;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char path[] = "/tmp/tpa_test_source_XXXXXX";
                int fd = mkstemp(path);
                size_t len = cases[i].len, file_len = len;
                uint8_t *gz = cases[i].gz ? gzip(text, len, &file_len) : NULL;
                const void *bytes = gz != NULL ? (const void *)gz : text;
                bool big = file_len >= (cases[i].gz ? 64u : 256u) * 1024u;
                tpa_source *src = NULL;
                uint8_t *data = NULL;
                size_t got = 0;

                ok(fd >= 0 && write(fd, bytes, file_len) == (ssize_t)file_len &&
                   big == cases[i].threaded,
                   "test_source__thread_sizes: %s file of %zu bytes written",
                   cases[i].gz ? "a gzip" : "a plain", file_len);
                if (fd >= 0 && tpa_source__open(&src, path, NULL, NULL) == 0) {
                        tap_eq(tpa_source__threaded(src), cases[i].threaded && cpus,
                               "test_source__thread_sizes: %zu bytes%s: %s", file_len,
                               cases[i].gz ? " gzip'd" : "",
                               cases[i].threaded && cpus ? "two threads" : "one thread");
                        ok(tpa_source__read_all(src, &data, &got, UINT64_MAX, NULL) == 0 &&
                           got == len && memcmp(data, text, len) == 0,
                           "test_source__thread_sizes: %zu bytes%s: the bytes", file_len,
                           cases[i].gz ? " gzip'd" : "");
                } else {
                        ok(false, "test_source__thread_sizes: opens the file");
                }
                tpa_source__free(src);
                free(data);
                free(gz);
                if (fd >= 0)
                        close(fd);
                unlink(path);
        }
}

int main(void)
{
        size_t text_len = 6u << 20, gz_len;
        char *text = make_text(text_len);
        uint8_t *gz = gzip(text, text_len, &gz_len);

        test_source__crc32();
        test_source__idle(gz, gz_len, text, text_len);
        test_source__adopt(gz, gz_len, text, text_len);
        test_source__whole(text, text_len, gz, gz_len);
        test_source__thread_sizes(text);
#ifdef TPA_HAVE_ISAL
        printf("# with ISA-L\n");
        test_source__backends(gz, gz_len);
        test_source__trailer();
        test_source__gzip(gz, gz_len, text, text_len);
        builtin = true;
#endif
        printf("# with the built-in decoder and zlib\n");
        test_source__trailer();
        test_source__gzip(gz, gz_len, text, text_len);

        /* a transform, on the caller's thread or the inflating one, set
         * after a peek of any size */
        {
                char *want = malloc(text_len);
                static const size_t xpeeks[] = { 0, 1, 4096, 300000, 2u << 20 };
                char path[] = "/tmp/tpa_test_source_XXXXXX";
                int fd;
                tpa_source *src;

                for (size_t i = 0; i < text_len; i++)
                        want[i] = text[i] == 'k' ? 'K' : text[i];
                for (size_t i = 0; i < sizeof(xpeeks) / sizeof(xpeeks[0]); i++) {
                        for (int threaded = 0; threaded < 2; threaded++) {
                                tpa_read_options opts = TPA_READ_OPTIONS_INIT;
                                char what[64];
                                opts.threaded = threaded;
                                snprintf(what, sizeof(what), "gzip, %s, peek %zu",
                                         threaded ? "threaded" : "one thread", xpeeks[i]);
                                tpa_source__open_memory(&src, gz, gz_len, &opts, NULL);
                                check_transform(src, xpeeks[i], want, text_len, what);
                                tpa_source__free(src);
                        }
                }
                tpa_source__open_memory(&src, text, text_len, NULL, NULL);
                check_transform(src, 4096, want, text_len, "plain memory");
                tpa_source__free(src);
                /* a plain file above the threshold: read on a second thread */
                fd = mkstemp(path);
                ok(fd >= 0 && write(fd, text, text_len) == (ssize_t)text_len,
                   "test_source__transform: temp file written");
                if (fd >= 0)
                        close(fd);
                if (tpa_source__open(&src, path, NULL, NULL) == 0) {
                        check_transform(src, 4096, want, text_len, "plain file");
                        tpa_source__free(src);
                } else {
                        ok(false, "test_source__transform: opens the plain file");
                }
                unlink(path);
                free(want);
        }

        free(gz);
        free(text);
        return tap_done();
}
