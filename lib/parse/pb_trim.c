/* SPDX-License-Identifier: MIT */
/*
 * pb_trim.c - the protobuf readers' input read whole, and cut binary
 * protobuf made whole (pb_trim.h). The fields of a message are stepped
 * over by their lengths; only a field the input's end falls in is looked
 * into, and only when it is on the path.
 */
#include <stdbool.h>

#include "model/trace_build.h"
#include "parse/pb_trim.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

/* A varint at p[0..n): its length in bytes, 0 when the input ends inside
 * it, -1 when it runs past 10 bytes. */
static int varint(const uint8_t *p, size_t n, uint64_t *v)
{
        *v = 0;
        for (size_t i = 0; i < 10; i++) {
                if (i == n)
                        return 0;
                *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                if (!(p[i] & 0x80))
                        return (int)i + 1;
        }
        return -1;
}

/* Write `v` in exactly `width` bytes (width >= its minimal length): a
 * varint padded with continuation bytes, which every reader takes. */
static void put_varint(uint8_t *p, int width, uint64_t v)
{
        for (int i = 0; i < width; i++, v >>= 7)
                p[i] = (uint8_t)((v & 0x7f) | (i + 1 < width ? 0x80 : 0));
}

/* The message in d[0..n), at depth `depth` of `path`: *end is where its
 * whole part ends. */
static tpa_pb_trim_status trim(uint8_t *d, size_t n, const tpa_pb_path *path, size_t depth,
                               size_t *end)
{
        size_t pos = 0;

        while (pos < n) {
                uint64_t tag, v;
                size_t start = pos, sub_end;
                int k = varint(d + pos, n - pos, &tag);
                tpa_pb_trim_status st;

                if (k < 0 || (k > 0 && tag >> 3 == 0))
                        return TPA_PB_BAD;
                if (k == 0)
                        goto cut;
                pos += (size_t)k;
                switch (tag & 7) {
                case WIRE_VARINT:
                        k = varint(d + pos, n - pos, &v);
                        if (k < 0)
                                return TPA_PB_BAD;
                        if (k == 0)
                                goto cut;
                        pos += (size_t)k;
                        break;
                case WIRE_I64:
                case WIRE_I32:
                        v = (tag & 7) == WIRE_I64 ? 8 : 4;
                        if (n - pos < v)
                                goto cut;
                        pos += v;
                        break;
                case WIRE_LEN:
                        k = varint(d + pos, n - pos, &v);
                        if (k < 0)
                                return TPA_PB_BAD;
                        if (k == 0)
                                goto cut;
                        pos += (size_t)k;
                        if (v <= n - pos) {
                                pos += v;
                                break;
                        }
                        /* The end falls in here: on the path, keep the
                         * whole part of the message; else drop it. */
                        if (depth >= path->depth || tag >> 3 != path->fields[depth])
                                goto cut;
                        st = trim(d + pos, n - pos, path, depth + 1, &sub_end);
                        if (st == TPA_PB_BAD)
                                return st;
                        put_varint(d + pos - k, k, sub_end);
                        *end = pos + sub_end;
                        return TPA_PB_CUT;
                default:
                        return TPA_PB_BAD;      /* groups, and wire types 6 and 7 */
                }
                continue;
cut:
                *end = start;
                return TPA_PB_CUT;
        }
        *end = n;
        return TPA_PB_WHOLE;
}

tpa_pb_trim_status tpa_pb__trim(uint8_t *data, size_t *len, const tpa_pb_path *path)
{
        size_t end;
        tpa_pb_trim_status st = trim(data, *len, path, 0, &end);

        if (st == TPA_PB_CUT)
                *len = end;
        return st;
}

int tpa_pb__cut(tpa_trace *tr, uint64_t len, bool strict, tpa_error *err)
{
        tpa_health *h = tpa_trace__health(tr);

        if (strict)
                return tpa_error_set(err, TPA_EFORMAT, len, "the input ends inside a message");
        tpa_trace__warn(tr, len, "the input ends inside a message; read the complete "
                        "messages before it");
        h->truncated = true;
        h->truncated_at = len;
        return 0;
}

uint64_t tpa_pb__max_message(const tpa_read_options *opts)
{
        return opts->max_message != 0 ? opts->max_message : 1024ull * 1024 * 1024;
}

int tpa_pb__read_all(tpa_source *src, const tpa_read_options *opts, uint8_t **data,
                     size_t *len, tpa_error *err)
{
        return tpa_source__read_whole(src, data, len, tpa_pb__max_message(opts), err);
}
