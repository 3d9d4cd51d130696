/* SPDX-License-Identifier: MIT */
/*
 * bare_inflate.c - inflate a gzip file to nowhere, with zlib used exactly as
 * lib/input/source.c used it before lib/input/inflate.c (256 KiB reads,
 * 1 MiB output, inflateInit2 with 15 + 32, inflateReset between members):
 * the ceiling for inflating. With --ours, lib/input/inflate.c on the same
 * buffers, the gzip header and trailer skipped, no CRC; --zlib-nocheck is
 * zlib without its CRC (inflateValidate(0), as source.c ran it) to compare
 * with that.
 *
 * Usage: bare_inflate [--ours|--zlib-nocheck] FILE.gz
 * prints "bytes seconds" (uncompressed)
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "input/inflate.h"

#define RAW_SIZE (256u * 1024u)
#define OUT_SIZE (1024u * 1024u)

static double now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The gzip header's size when all of it is in b[0..n), else 0. */
static size_t header_size(const uint8_t *b, size_t n)
{
        size_t at = 10;

        if (n < at || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || (b[3] & 0xe2) != 0)
                return 0;
        if (b[3] & 0x04) {
                if (n - at < 2)
                        return 0;
                at += 2 + (size_t)(b[at] | b[at + 1] << 8);
        }
        for (unsigned flag = 0x08; flag <= 0x10; flag <<= 1)
                if (b[3] & flag) {
                        while (at < n && b[at] != 0)
                                at++;
                        at++;
                }
        return at <= n ? at : 0;
}

/* lib/input/inflate.c: members whose header is in one read (a bench). */
static int run_ours(int fd, uint64_t *total)
{
        static uint8_t raw[RAW_SIZE], out[OUT_SIZE];
        tpa_inflate *d = tpa_inflate__new();
        size_t len = 0, pos = 0, skip = 0;
        bool in_member = false;
        ssize_t n;

        if (d == NULL)
                return 1;
        while ((n = read(fd, raw, RAW_SIZE)) > 0) {
                len = (size_t)n;
                pos = 0;
                while (pos < len) {
                        const uint8_t *in;
                        uint8_t *o;
                        int rc;

                        if (skip > 0) {         /* the rest of a trailer */
                                size_t k = skip < len - pos ? skip : len - pos;
                                pos += k;
                                skip -= k;
                                continue;
                        }
                        if (!in_member) {
                                size_t h = header_size(raw + pos, len - pos);
                                if (h == 0) {
                                        fprintf(stderr, "bare_inflate: header not in one read\n");
                                        return 1;
                                }
                                pos += h;
                                tpa_inflate__reset(d);
                                in_member = true;
                        }
                        in = raw + pos;
                        o = out;
                        rc = tpa_inflate__run(d, &in, raw + len, &o, out + OUT_SIZE);
                        pos = (size_t)(in - raw);
                        *total += (uint64_t)(o - out);
                        if (rc == TPA_INFLATE__BAD) {
                                fprintf(stderr, "bare_inflate: %s\n", tpa_inflate__msg(d));
                                return 1;
                        }
                        if (rc == TPA_INFLATE__END) {
                                in_member = false;
                                skip = 8;
                        }
                }
        }
        tpa_inflate__free(d);
        return 0;
}

int main(int argc, char **argv)
{
        static uint8_t raw[RAW_SIZE], out[OUT_SIZE];
        uint64_t total = 0;
        z_stream z;
        ssize_t n;
        bool member_done = false, ours = argc == 3 && strcmp(argv[1], "--ours") == 0;
        bool nocheck = argc == 3 && strcmp(argv[1], "--zlib-nocheck") == 0;
        double t0;
        int fd, zr;

        if (argc != 2 && !ours && !nocheck) {
                fprintf(stderr, "usage: bare_inflate [--ours|--zlib-nocheck] FILE.gz\n");
                return 2;
        }
        fd = open(argv[argc - 1], O_RDONLY);
        if (fd < 0) {
                perror(argv[argc - 1]);
                return 1;
        }
        t0 = now();
        if (ours) {
                if (run_ours(fd, &total) != 0)
                        return 1;
                close(fd);
                printf("%llu %.6f\n", (unsigned long long)total, now() - t0);
                return 0;
        }
        memset(&z, 0, sizeof(z));
        if (inflateInit2(&z, 15 + 32) != Z_OK)
                return 1;
        if (nocheck)    /* kept across inflateReset() */
                inflateValidate(&z, 0);
        while ((n = read(fd, raw, RAW_SIZE)) > 0) {
                z.next_in = raw;
                z.avail_in = (uInt)n;
                do {    /* until the input is used and the output is not full */
                        if (member_done) {
                                inflateReset(&z);
                                member_done = false;
                        }
                        z.next_out = out;
                        z.avail_out = OUT_SIZE;
                        zr = inflate(&z, Z_NO_FLUSH);
                        total += OUT_SIZE - z.avail_out;
                        if (zr == Z_STREAM_END)
                                member_done = true;
                        else if (zr != Z_OK && zr != Z_BUF_ERROR) {
                                fprintf(stderr, "bare_inflate: corrupt data\n");
                                return 1;
                        }
                } while (z.avail_in > 0 || z.avail_out == 0);
        }
        inflateEnd(&z);
        close(fd);
        printf("%llu %.6f\n", (unsigned long long)total, now() - t0);
        return 0;
}
