/* SPDX-License-Identifier: MIT */
/*
 * png_colors.c - what a screenshot shows, without Python: decode an 8-bit
 * RGB or RGBA non-interlaced PNG (what Chromium writes) with zlib, then
 * print its size, the number of distinct colours and the fraction of
 * non-white pixels, and the pixels of each colour given as RRGGBB; exit 1
 * unless each of those covers at least 50 pixels.
 *
 *   png_colors FILE.png [RRGGBB...]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
        int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static int cmp_u32(const void *x, const void *y)
{
        uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
        return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
        FILE *fp;
        unsigned char *file, *idat = NULL, *raw;
        long size;
        size_t nidat = 0, rawlen, bpp, stride, distinct = 0, nonwhite = 0;
        uint32_t w = 0, h = 0, *px;
        int bad = 0;

        if (argc < 2 || (fp = fopen(argv[1], "rb")) == NULL) {
                fprintf(stderr, "usage: png_colors FILE.png [RRGGBB...]\n");
                return 2;
        }
        fseek(fp, 0, SEEK_END);
        size = ftell(fp);
        rewind(fp);
        file = malloc((size_t)size);
        if (file == NULL || fread(file, 1, (size_t)size, fp) != (size_t)size ||
            size < 33 || memcmp(file, "\x89PNG\r\n\x1a\n", 8) != 0) {
                fprintf(stderr, "png_colors: %s: not a PNG\n", argv[1]);
                return 2;
        }
        fclose(fp);
        w = be32(file + 16);
        h = be32(file + 20);
        if (file[24] != 8 || (file[25] != 2 && file[25] != 6) || file[28] != 0) {
                fprintf(stderr, "png_colors: only 8-bit RGB/RGBA, not interlaced\n");
                return 2;
        }
        bpp = file[25] == 6 ? 4 : 3;
        for (long off = 8; off + 12 <= size;) {
                uint32_t len = be32(file + off);
                if (memcmp(file + off + 4, "IDAT", 4) == 0) {
                        idat = realloc(idat, nidat + len);
                        memcpy(idat + nidat, file + off + 8, len);
                        nidat += len;
                }
                off += 12 + (long)len;
        }
        stride = (size_t)w * bpp;
        rawlen = (stride + 1) * h;
        raw = malloc(rawlen);
        uLongf got = (uLongf)rawlen;
        if (idat == NULL || raw == NULL || uncompress(raw, &got, idat, (uLong)nidat) != Z_OK ||
            got != rawlen) {
                fprintf(stderr, "png_colors: bad image data\n");
                return 2;
        }
        px = malloc((size_t)w * h * sizeof(*px));
        for (uint32_t y = 0; y < h; y++) {
                unsigned char *row = raw + y * (stride + 1) + 1, *up = y ? row - stride - 1 : NULL;
                int f = row[-1];
                for (size_t x = 0; x < stride; x++) {
                        int a = x >= bpp ? row[x - bpp] : 0, b = up ? up[x] : 0;
                        int c = up && x >= bpp ? up[x - bpp] : 0;
                        switch (f) {
                        case 1: row[x] = (unsigned char)(row[x] + a); break;
                        case 2: row[x] = (unsigned char)(row[x] + b); break;
                        case 3: row[x] = (unsigned char)(row[x] + (a + b) / 2); break;
                        case 4: row[x] = (unsigned char)(row[x] + paeth(a, b, c)); break;
                        }
                }
                for (uint32_t x = 0; x < w; x++) {
                        unsigned char *p = row + x * bpp;
                        px[(size_t)y * w + x] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
                }
        }
        for (size_t i = 0; i < (size_t)w * h; i++)
                nonwhite += px[i] != 0xffffff;
        for (int k = 2; k < argc; k++) {
                uint32_t want = (uint32_t)strtoul(argv[k], NULL, 16);
                size_t n = 0;
                for (size_t i = 0; i < (size_t)w * h; i++)
                        n += px[i] == want;
                printf("colour %s: %s, %zu pixels\n", argv[k], n >= 50 ? "present" : "MISSING",
                       n);
                bad |= n < 50;
        }
        qsort(px, (size_t)w * h, sizeof(*px), cmp_u32);
        for (size_t i = 0; i < (size_t)w * h; i++)
                distinct += i == 0 || px[i] != px[i - 1];
        printf("size %ux%u, %zu colours, %.1f%% not white\n", w, h, distinct,
               100.0 * (double)nonwhite / ((double)w * h));
        if (distinct < 8 || nonwhite * 50 < (size_t)w * h) {
                printf("blank or nearly blank\n");
                bad = 1;
        }
        free(px);
        free(raw);
        free(idat);
        free(file);
        return bad;
}
