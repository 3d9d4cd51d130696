/* SPDX-License-Identifier: MIT */
/*
 * bare_inflate.c - inflate a gzip file to nowhere, with zlib used exactly as
 * lib/input/source.c uses it (256 KiB reads, 1 MiB output, inflateInit2
 * with 15 + 32, inflateReset between members): the ceiling for inflating.
 *
 * Usage: bare_inflate FILE.gz    prints "bytes seconds" (uncompressed)
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

#define RAW_SIZE (256u * 1024u)
#define OUT_SIZE (1024u * 1024u)

static double now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
        static uint8_t raw[RAW_SIZE], out[OUT_SIZE];
        uint64_t total = 0;
        z_stream z;
        ssize_t n;
        bool member_done = false;
        double t0;
        int fd, zr;

        if (argc != 2) {
                fprintf(stderr, "usage: bare_inflate FILE.gz\n");
                return 2;
        }
        fd = open(argv[1], O_RDONLY);
        if (fd < 0) {
                perror(argv[1]);
                return 1;
        }
        t0 = now();
        memset(&z, 0, sizeof(z));
        if (inflateInit2(&z, 15 + 32) != Z_OK)
                return 1;
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
