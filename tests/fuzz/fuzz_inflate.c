/* SPDX-License-Identifier: MIT */
/*
 * fuzz_inflate.c - libFuzzer target: lib/input/inflate.c against zlib's
 * inflate() (inflate_compare.h). The first byte picks the sizes of the
 * input pieces and output room; the rest is decoded as raw DEFLATE by both,
 * which must agree on the end, message, error position and every byte
 * output; then it is deflated by zlib (level and strategy from the first
 * byte) and must come back whole from ours. Seeds: testdata/fuzz/inflate/
 * (raw DEFLATE streams written by Python's zlib, and bad ones).
 */
#include "inflate_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond, what)                                                       \
        do {                                                                          \
                if (!(cond)) {                                                        \
                        fprintf(stderr, "%s:%d: broken contract: %s: %s\n", __FILE__, \
                                __LINE__, #cond, (what));                             \
                        abort();                                                      \
                }                                                                     \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const int strategies[] = { Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE,
                                          Z_FIXED };
        struct ic_result o;
        const char *why;
        uint8_t *c;
        size_t max_in, max_out, clen;
        unsigned b0;
        z_stream z;

        if (size == 0)
                return 0;
        b0 = data[0];
        max_in = b0 & 0x80 ? 1 + (b0 & 7) : 4096;
        max_out = b0 & 0x40 ? 1 + ((b0 >> 3) & 7) * 37 : 65536;
        why = ic_check(data + 1, size - 1, b0, max_in, max_out);
        FUZZ_ASSERT(why == NULL, why);

        memset(&z, 0, sizeof(z));
        if (deflateInit2(&z, (int)(b0 % 10), Z_DEFLATED, -15, 8, strategies[(b0 >> 4) % 5]) != Z_OK)
                abort();
        clen = deflateBound(&z, (uLong)size);
        c = malloc(clen);
        if (c == NULL)
                abort();
        z.next_in = (Bytef *)(uintptr_t)(data + 1);
        z.avail_in = (uInt)(size - 1);
        z.next_out = c;
        z.avail_out = (uInt)clen;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
                abort();
        clen = z.total_out;
        deflateEnd(&z);
        why = ic_ours(c, clen, b0 + 1, max_in, max_out, &o);
        FUZZ_ASSERT(why == NULL, why);
        FUZZ_ASSERT(o.status == IC_END && o.in_used == clen, "deflated input not decoded whole");
        FUZZ_ASSERT(o.out_len == size - 1 && memcmp(o.out, data + 1, size - 1) == 0,
                    "deflated input decoded to other bytes");
        ic_free(&o);
        free(c);
        return 0;
}
