/* SPDX-License-Identifier: MIT */
/*
 * pb_arena.c - a bump allocator behind protobuf-c's allocator interface:
 * blocks of 1 MiB (bigger requests get a block of their own), free is a
 * no-op, everything goes at once. With -Darena_debug every allocation is
 * its own block, so ASan and valgrind see overruns.
 */
#include <stdlib.h>

#include "parse/pb_arena.h"

#define BLOCK (1024u * 1024u)
#define ALIGN 16u

struct block {
        struct block *next;
        size_t        pad;              /* keeps data 16-byte aligned */
        unsigned char data[];
};

static void *arena_alloc(void *ctx, size_t size)
{
        tpa_pb_arena *a = ctx;
        struct block *b;
        size_t need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);

        if (need == 0)
                need = ALIGN;
        if (a->limit != 0 && a->total + need > a->limit) {
                a->hit_limit = true;
                return NULL;
        }
#ifndef TPA_ARENA_DEBUG
        if (a->blocks != NULL && a->size - a->used >= need) {
                void *p = ((struct block *)a->blocks)->data + a->used;
                a->used += need;
                a->total += need;
                return p;
        }
        if (need > BLOCK / 4) {         /* a big one-off: behind the current block */
                b = malloc(sizeof(*b) + need);
                if (b == NULL)
                        return NULL;
                if (a->blocks != NULL) {
                        b->next = ((struct block *)a->blocks)->next;
                        ((struct block *)a->blocks)->next = b;
                } else {
                        b->next = NULL;
                        a->blocks = b;
                        a->used = a->size = need;
                }
                a->total += need;
                return b->data;
        }
        b = malloc(sizeof(*b) + BLOCK);
        if (b == NULL)
                return NULL;
        b->next = a->blocks;
        a->blocks = b;
        a->size = BLOCK;
        a->used = need;
#else
        b = malloc(sizeof(*b) + need);
        if (b == NULL)
                return NULL;
        b->next = a->blocks;
        a->blocks = b;
        a->size = a->used = need;
#endif
        a->total += need;
        return b->data;
}

static void arena_free(void *ctx, void *p)
{
        (void)ctx;
        (void)p;                        /* everything goes in tpa_pb__arena_free() */
}

void tpa_pb__arena_init(tpa_pb_arena *a, uint64_t limit)
{
        a->alloc.alloc = arena_alloc;
        a->alloc.free = arena_free;
        a->alloc.allocator_data = a;
        a->blocks = NULL;
        a->used = a->size = 0;
        a->total = 0;
        a->limit = limit;
        a->hit_limit = false;
}

void tpa_pb__arena_free(tpa_pb_arena *a)
{
        struct block *b = a->blocks, *next;

        for (; b != NULL; b = next) {
                next = b->next;
                free(b);
        }
        tpa_pb__arena_init(a, a->limit);
}
