/* SPDX-License-Identifier: MIT */
/*
 * source.c - bytes from a file, stdin or memory; gzip inflated as a stream.
 *
 * zlib's inflate() "will not automatically decode concatenated gzip streams"
 * (zlib.h), so on Z_STREAM_END with input left we inflateReset() and go on:
 * `cat a.gz b.gz` is valid gzip. A gzip stream cut short is not an error
 * here: the source ends, and tpa_source_truncated() says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input/source.h"

#define RAW_SIZE (256u * 1024u)
#define OUT_SIZE (1024u * 1024u)

struct tpa_source {
        int            fd;              /* -1 for memory */
        bool           own_fd;
        const uint8_t *mem;             /* memory source */
        size_t         mem_size, mem_pos;

        uint8_t       *raw;             /* file bytes */
        size_t         raw_len, raw_pos;
        bool           raw_eof;
        uint64_t       bytes_in;

        bool           gzip;
        bool           z_ready;         /* inflateInit2 done */
        bool           z_member_done;   /* last inflate() hit Z_STREAM_END */
        z_stream       z;

        uint8_t       *out;             /* inflated (or copied) bytes */
        size_t         out_pos, out_end;
        uint64_t       offset;          /* bytes handed out before out[out_pos] */
        bool           eof;
        bool           truncated;
        const tpa_read_options *opts;
};

static int fill_raw(tpa_source *s, tpa_error *err)
{
        ssize_t n;

        if (s->raw_pos < s->raw_len || s->raw_eof)
                return 0;
        if (s->fd < 0) {
                size_t left = s->mem_size - s->mem_pos;
                /* Memory sources hand out their bytes without a copy. */
                s->raw = (uint8_t *)(uintptr_t)(s->mem + s->mem_pos);
                s->raw_len = left;
                s->raw_pos = 0;
                s->mem_pos = s->mem_size;
                s->bytes_in += left;
                s->raw_eof = left == 0;
                return 0;
        }
        do
                n = read(s->fd, s->raw, RAW_SIZE);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return tpa_error_set_sys(err, errno, "cannot read");
        s->raw_len = (size_t)n;
        s->raw_pos = 0;
        s->raw_eof = n == 0;
        s->bytes_in += (uint64_t)n;
        return 0;
}

static int sniff_gzip(tpa_source *s, tpa_error *err)
{
        int r;

        /* Two bytes decide; a one-byte read at a time is fine for stdin. */
        while (s->raw_len - s->raw_pos < 2 && !s->raw_eof) {
                if (s->fd < 0) {
                        r = fill_raw(s, err);
                        if (r < 0)
                                return r;
                        break;
                }
                {
                        ssize_t n = read(s->fd, s->raw + s->raw_len, RAW_SIZE - s->raw_len);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                return tpa_error_set_sys(err, errno, "cannot read");
                        s->raw_eof = n == 0;
                        s->raw_len += (size_t)n;
                        s->bytes_in += (uint64_t)n;
                }
        }
        s->gzip = s->raw_len - s->raw_pos >= 2 && s->raw[s->raw_pos] == 0x1f &&
                  s->raw[s->raw_pos + 1] == 0x8b;
        if (s->gzip) {
                memset(&s->z, 0, sizeof(s->z));
                if (inflateInit2(&s->z, 15 + 32) != Z_OK)
                        return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
                s->z_ready = true;
        }
        return 0;
}

static int init(tpa_source *s, const tpa_read_options *opts, tpa_error *err)
{
        static const tpa_read_options defaults = TPA_READ_OPTIONS_INIT;

        s->opts = opts ? opts : &defaults;
        s->out = malloc(OUT_SIZE);
        if (s->fd >= 0)
                s->raw = malloc(RAW_SIZE);
        if (s->out == NULL || (s->fd >= 0 && s->raw == NULL))
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        return sniff_gzip(s, err);
}

int tpa_source_open(tpa_source **out, const char *path, const tpa_read_options *opts,
                    tpa_error *err)
{
        tpa_source *s = calloc(1, sizeof(*s));
        int r;

        if (s == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        if (strcmp(path, "-") == 0) {
                s->fd = STDIN_FILENO;
        } else {
                s->fd = open(path, O_RDONLY | O_CLOEXEC);
                if (s->fd < 0) {
                        r = tpa_error_set_sys(err, errno, "cannot open");
                        free(s);
                        return r;
                }
                s->own_fd = true;
        }
        r = init(s, opts, err);
        if (r < 0) {
                tpa_source_free(s);
                return r;
        }
        *out = s;
        return 0;
}

int tpa_source_open_memory(tpa_source **out, const void *data, size_t size,
                           const tpa_read_options *opts, tpa_error *err)
{
        tpa_source *s = calloc(1, sizeof(*s));
        int r;

        if (s == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        s->fd = -1;
        s->mem = data;
        s->mem_size = size;
        r = fill_raw(s, err);
        if (r == 0)
                r = init(s, opts, err);
        if (r < 0) {
                tpa_source_free(s);
                return r;
        }
        *out = s;
        return 0;
}

void tpa_source_free(tpa_source *s)
{
        if (s == NULL)
                return;
        if (s->z_ready)
                inflateEnd(&s->z);
        if (s->own_fd)
                close(s->fd);
        if (s->fd >= 0)
                free(s->raw);
        free(s->out);
        free(s);
}

/* Append inflated (or plain) bytes to out[out_end..], up to OUT_SIZE. */
static int produce(tpa_source *s, tpa_error *err)
{
        int r, zr;

        while (s->out_end < OUT_SIZE && !s->eof) {
                r = fill_raw(s, err);
                if (r < 0)
                        return r;
                if (!s->gzip) {
                        size_t n = s->raw_len - s->raw_pos;
                        if (n == 0) {
                                s->eof = true;
                                break;
                        }
                        if (n > OUT_SIZE - s->out_end)
                                n = OUT_SIZE - s->out_end;
                        memcpy(s->out + s->out_end, s->raw + s->raw_pos, n);
                        s->raw_pos += n;
                        s->out_end += n;
                        continue;
                }
                if (s->raw_pos == s->raw_len) {
                        /* The file ended: fine between members, truncated inside one. */
                        s->eof = true;
                        s->truncated = !s->z_member_done;
                        break;
                }
                if (s->z_member_done) {
                        /* Another member follows (cat a.gz b.gz). */
                        if (inflateReset(&s->z) != Z_OK)
                                return tpa_error_setf(err, TPA_EINTERNAL, "inflateReset failed");
                        s->z_member_done = false;
                }
                s->z.next_in = s->raw + s->raw_pos;
                s->z.avail_in = (uInt)(s->raw_len - s->raw_pos);
                s->z.next_out = s->out + s->out_end;
                s->z.avail_out = (uInt)(OUT_SIZE - s->out_end);
                zr = inflate(&s->z, Z_NO_FLUSH);
                s->raw_pos = s->raw_len - s->z.avail_in;
                s->out_end = OUT_SIZE - s->z.avail_out;
                if (zr == Z_STREAM_END) {
                        s->z_member_done = true;
                } else if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT) {
                        return tpa_error_set(err, TPA_EFORMAT, s->offset + s->out_end,
                                             "gzip data is corrupt (%s, compressed byte %llu)",
                                             s->z.msg ? s->z.msg : "bad data",
                                             (unsigned long long)(s->bytes_in - s->raw_len +
                                                                  s->raw_pos));
                } else if (zr == Z_MEM_ERROR) {
                        return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
                } else if (zr == Z_BUF_ERROR && s->z.avail_out != 0 && s->z.avail_in != 0) {
                        return tpa_error_set(err, TPA_EFORMAT, s->offset + s->out_end,
                                             "gzip data is corrupt");
                }
                if (s->opts->progress != NULL)
                        s->opts->progress(s->opts->progress_ctx, s->bytes_in,
                                          s->offset + s->out_end);
        }
        return 0;
}

int tpa_source_peek(tpa_source *s, const uint8_t **data, size_t *len, size_t want,
                    tpa_error *err)
{
        int r;

        if (want > OUT_SIZE)
                want = OUT_SIZE;
        if (s->out_end - s->out_pos < want && !s->eof) {
                /* Slide the unread bytes to the front, then top up. */
                memmove(s->out, s->out + s->out_pos, s->out_end - s->out_pos);
                s->out_end -= s->out_pos;
                s->out_pos = 0;
                r = produce(s, err);
                if (r < 0)
                        return r;
        }
        *data = s->out + s->out_pos;
        *len = s->out_end - s->out_pos;
        return 0;
}

int tpa_source_read(tpa_source *s, const uint8_t **data, size_t *len, tpa_error *err)
{
        int r;

        if (s->out_pos == s->out_end) {
                s->out_pos = s->out_end = 0;
                r = produce(s, err);
                if (r < 0)
                        return r;
        }
        *data = s->out + s->out_pos;
        *len = s->out_end - s->out_pos;
        s->offset += *len;
        s->out_pos = s->out_end;
        return 0;
}

int tpa_source_read_all(tpa_source *s, uint8_t **data, size_t *len, uint64_t max,
                        tpa_error *err)
{
        uint8_t *buf = NULL, *p;
        size_t used = 0, cap = 0;
        const uint8_t *chunk;
        size_t n;
        int r;

        for (;;) {
                r = tpa_source_read(s, &chunk, &n, err);
                if (r < 0)
                        goto fail;
                if (n == 0)
                        break;
                if (used + n > max) {
                        r = tpa_error_set(err, TPA_ELIMIT, s->offset,
                                          "input is larger than %llu bytes",
                                          (unsigned long long)max);
                        goto fail;
                }
                if (used + n > cap) {
                        cap = cap ? cap : 1u << 20;
                        while (cap < used + n)
                                cap *= 2;
                        p = realloc(buf, cap);
                        if (p == NULL) {
                                r = tpa_error_setf(err, TPA_ENOMEM, "out of memory");
                                goto fail;
                        }
                        buf = p;
                }
                memcpy(buf + used, chunk, n);
                used += n;
        }
        if (buf == NULL && (buf = malloc(1)) == NULL)
                return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
        *data = buf;
        *len = used;
        return 0;
fail:
        free(buf);
        return r;
}

uint64_t tpa_source_offset(const tpa_source *s) { return s->offset; }
uint64_t tpa_source_bytes_in(const tpa_source *s) { return s->bytes_in; }
bool tpa_source_is_gzip(const tpa_source *s) { return s->gzip; }
bool tpa_source_truncated(const tpa_source *s) { return s->truncated; }
