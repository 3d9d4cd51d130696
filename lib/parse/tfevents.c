/* SPDX-License-Identifier: MIT */
/*
 * tfevents.c - the tfevents reader (FileWriter.add_run_metadata): TFRecord
 * frames, read as a stream, each
 *
 *   u64 length (little-endian), u32 masked crc32c of the length,
 *   length bytes of data, u32 masked crc32c of the data
 *
 * with both checksums checked; the data is an Event proto. Events whose
 * tagged_run_metadata (field 8) is set become one step each, named by the
 * tag and numbered by Event.step; every other record (summaries, graphs,
 * the file_version record) is counted and skipped. A frame that fails its
 * checksum is an error at the frame's offset; a file that ends inside a
 * frame is a truncated input (a warning, or an error with --strict).
 */
#include <stdlib.h>
#include <string.h>

#include "event.pb-c.h"
#include "input/readers.h"
#include "model/trace_build.h"
#include "parse/pb_arena.h"
#include "parse/pb_trim.h"
#include "parse/stepstats.h"

static uint32_t crc_table[256];

static void crc_init(void)
{
        for (uint32_t i = 0; i < 256; i++) {
                uint32_t c = i;
                for (int k = 0; k < 8; k++)
                        c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
                crc_table[i] = c;
        }
}

/* CRC-32C (Castagnoli), as TFRecord uses it. */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
        uint32_t c = 0xffffffffu;

        if (crc_table[1] == 0)
                crc_init();
        for (size_t i = 0; i < n; i++)
                c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
        return ~c;
}

static uint32_t masked_crc(const uint8_t *p, size_t n)
{
        uint32_t c = crc32c(p, n);
        return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static uint64_t le64(const uint8_t *p)
{
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--)
                v = v << 8 | p[i];
        return v;
}

static uint32_t le32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
}

/* Bytes gathered across the source's chunks. */
struct gather {
        tpa_source    *src;
        const uint8_t *chunk;
        size_t         chunk_len, chunk_pos;
        uint8_t       *buf;
        size_t         cap;
};

/* Fill g->buf with exactly `n` bytes. *got < n when the stream ended. */
static int gather(struct gather *g, size_t n, size_t *got, tpa_error *err)
{
        size_t have = 0;
        int rc;

        if (n > g->cap) {
                uint8_t *b = realloc(g->buf, n);
                if (b == NULL)
                        return tpa_error_oom(err);
                g->buf = b;
                g->cap = n;
        }
        while (have < n) {
                size_t take;
                if (g->chunk_pos == g->chunk_len) {
                        rc = tpa_source__read(g->src, &g->chunk, &g->chunk_len, err);
                        if (rc < 0)
                                return rc;
                        g->chunk_pos = 0;
                        if (g->chunk_len == 0)
                                break;
                }
                take = g->chunk_len - g->chunk_pos;
                if (take > n - have)
                        take = n - have;
                memcpy(g->buf + have, g->chunk + g->chunk_pos, take);
                g->chunk_pos += take;
                have += take;
        }
        *got = have;
        return 0;
}

static int truncated(tpa_trace *tr, const tpa_read_options *opts, uint64_t at, tpa_error *err)
{
        tpa_health *h = tpa_trace__health(tr);

        if (opts->strict)
                return tpa_error_set(err, TPA_EFORMAT, at, "the file ends inside a record");
        h->truncated = true;
        h->truncated_at = at;
        tpa_trace__warn(tr, at, "the file ends inside a record; read the records before it");
        return 0;
}

static int read_records(tpa_trace *tr, struct gather *g, const tpa_read_options *opts,
                        tpa_error *err)
{
        uint64_t max = tpa_pb__max_message(opts);
        uint64_t at = 0;
        bool any_step = false;
        size_t got;
        int rc;

        for (;;) {
                uint64_t len;
                tpa_pb_arena arena;
                Tpapb__Event *ev;

                if ((rc = gather(g, 12, &got, err)) < 0)
                        return rc;
                if (got == 0)
                        break;
                if (got < 12)
                        return truncated(tr, opts, at, err);
                len = le64(g->buf);
                if (masked_crc(g->buf, 8) != le32(g->buf + 8))
                        return tpa_error_set(err, TPA_EFORMAT, at,
                                             "record length fails its checksum: not a "
                                             "tfevents file, or a corrupt one");
                if (len > max || len > SIZE_MAX - 4)
                        return tpa_error_set(err, TPA_ELIMIT, at,
                                             "a record of %llu bytes is larger than the "
                                             "limit of %llu bytes",
                                             (unsigned long long)len, (unsigned long long)max);
                if ((rc = gather(g, (size_t)len + 4, &got, err)) < 0)
                        return rc;
                if (got < len + 4)
                        return truncated(tr, opts, at, err);
                if (masked_crc(g->buf, (size_t)len) != le32(g->buf + len))
                        return tpa_error_set(err, TPA_EFORMAT, at + 12,
                                             "record data fails its checksum");
                tpa_trace__health(tr)->records_read++;
                tpa_pb__arena_init(&arena, max * 8 + (64u << 20));
                ev = tpapb__event__unpack(&arena.alloc, (size_t)len, g->buf);
                if (ev == NULL) {
                        tpa_pb__arena_free(&arena);
                        return tpa_error_set(err, TPA_EFORMAT, at + 12,
                                             "record is not a valid Event protobuf");
                }
                if (ev->what_case == TPAPB__EVENT__WHAT_TAGGED_RUN_METADATA &&
                    ev->tagged_run_metadata != NULL) {
                        const Tpapb__TaggedRunMetadata *t = ev->tagged_run_metadata;
                        rc = tpa_stepstats__add_bytes(tr, t->run_metadata.data,
                                                      t->run_metadata.len,
                                                      max * 8 + (64u << 20),
                                                      t->tag[0] != '\0' ? t->tag : NULL,
                                                      ev->step, TPA_FORMAT_TFEVENTS, at + 12,
                                                      err);
                        any_step = true;
                }
                tpa_pb__arena_free(&arena);
                if (rc < 0)
                        return rc;
                at += 12 + len + 4;
        }
        if (!any_step)
                tpa_trace__warn(tr, 0, "no tagged_run_metadata records: nothing to analyze");
        if (tpa_trace_event_count(tr) == 0 || tpa_trace_format(tr) == TPA_FORMAT_AUTO)
                tpa_trace__set_format(tr, TPA_FORMAT_TFEVENTS, TPA_DIALECT_TF1);
        return 0;
}

int tpa_tfevents__read(tpa_trace *tr, tpa_source *src, const tpa_read_options *opts,
                       tpa_error *err)
{
        struct gather g = { .src = src };
        int rc;

        rc = read_records(tr, &g, opts, err);
        free(g.buf);
        return rc;
}
