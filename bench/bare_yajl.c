/* SPDX-License-Identifier: MIT */
/*
 * bare_yajl.c - parse a JSON file with yajl and callbacks that do nothing
 * (one counts objects), configured as lib/parse/chrome_json.c configures it:
 * the ceiling for any yajl-based reader. A gzip file is inflated on the same
 * thread first in each chunk, as a one-thread gzip + yajl pipeline.
 *
 * Usage: bare_yajl FILE    prints "bytes objects seconds" (uncompressed)
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#define RAW_SIZE (256u * 1024u)
#define OUT_SIZE (1024u * 1024u)

static uint64_t maps;

static int on_null(void *c) { (void)c; return 1; }
static int on_bool(void *c, int b) { (void)c; (void)b; return 1; }
static int on_number(void *c, const char *s, size_t n) { (void)c; (void)s; (void)n; return 1; }
static int on_string(void *c, const unsigned char *s, size_t n)
{
        (void)c; (void)s; (void)n;
        return 1;
}
static int on_start_map(void *c) { (void)c; maps++; return 1; }
static int on_end(void *c) { (void)c; return 1; }

static const yajl_callbacks callbacks = {
        on_null, on_bool, NULL, NULL, on_number, on_string,
        on_start_map, on_string, on_end, on_end, on_end,
};

static double now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void feed(yajl_handle h, const uint8_t *p, size_t n)
{
        if (yajl_parse(h, p, n) != yajl_status_ok) {
                unsigned char *e = yajl_get_error(h, 0, p, n);
                fprintf(stderr, "bare_yajl: %s\n", (const char *)e);
                exit(1);
        }
}

int main(int argc, char **argv)
{
        static uint8_t raw[RAW_SIZE], out[OUT_SIZE];
        uint64_t total = 0;
        yajl_handle h;
        z_stream z;
        ssize_t n;
        bool gzip = false, first = true, member_done = false;
        double t0;
        int fd, zr;

        if (argc != 2) {
                fprintf(stderr, "usage: bare_yajl FILE\n");
                return 2;
        }
        fd = open(argv[1], O_RDONLY);
        if (fd < 0) {
                perror(argv[1]);
                return 1;
        }
        t0 = now();
        h = yajl_alloc(&callbacks, NULL, NULL);
        yajl_config(h, yajl_allow_partial_values, 1);
        yajl_config(h, yajl_dont_validate_strings, 1);
        memset(&z, 0, sizeof(z));
        while ((n = read(fd, raw, RAW_SIZE)) > 0) {
                if (first) {
                        gzip = n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b;
                        if (gzip && inflateInit2(&z, 15 + 32) != Z_OK)
                                return 1;
                        first = false;
                }
                if (!gzip) {
                        feed(h, raw, (size_t)n);
                        total += (uint64_t)n;
                        continue;
                }
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
                        feed(h, out, OUT_SIZE - z.avail_out);
                        total += OUT_SIZE - z.avail_out;
                        if (zr == Z_STREAM_END)
                                member_done = true;
                        else if (zr != Z_OK && zr != Z_BUF_ERROR)
                                return 1;
                } while (z.avail_in > 0 || z.avail_out == 0);
        }
        if (yajl_complete_parse(h) != yajl_status_ok)
                fprintf(stderr, "bare_yajl: the JSON ends early\n");
        yajl_free(h);
        if (gzip)
                inflateEnd(&z);
        close(fd);
        printf("%llu %llu %.6f\n", (unsigned long long)total, (unsigned long long)maps,
               now() - t0);
        return 0;
}
