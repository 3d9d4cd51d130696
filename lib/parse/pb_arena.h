/* SPDX-License-Identifier: MIT */
/*
 * pb_arena.h - (library-internal) an arena for protobuf-c: a
 * ProtobufCAllocator whose free does nothing, with a cap on the bytes it
 * hands out, so an unpacked message goes away in one tpa_pb__arena_free().
 * protobuf-c unpacks whole messages; the cap bounds what a hostile length
 * field can make it allocate.
 */
#ifndef TPA_PARSE_PB_ARENA_H
#define TPA_PARSE_PB_ARENA_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tpa_pb_arena {
        ProtobufCAllocator alloc;       /* pass &arena->alloc to *_unpack() */
        void    *blocks;                /* singly linked, newest first */
        size_t   used, size;            /* in the newest block */
        uint64_t total;                 /* bytes handed out */
        uint64_t limit;                 /* 0: none */
        bool     hit_limit;             /* an allocation failed on the cap */
} tpa_pb_arena;

void tpa_pb__arena_init(tpa_pb_arena *a, uint64_t limit);
void tpa_pb__arena_free(tpa_pb_arena *a);        /* frees every block; may re-init */

#endif
