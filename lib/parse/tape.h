/* SPDX-License-Identifier: MIT */
/*
 * tape.h - (library-internal) blocks of bytes handed from one thread to
 * another, in order, through a ring of a few reusable buffers: the producer
 * fills a block and puts it, the consumer takes blocks in the order put and
 * gives each back when done with it. A block grows when one write needs more
 * than it holds, so the memory is bounded by the ring's size and the
 * largest single write. Either side may stop the tape; the other then sees
 * it stopped (NULL) instead of waiting forever.
 */
#ifndef TPA_PARSE_TAPE_H
#define TPA_PARSE_TAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tpa_tape tpa_tape;

typedef struct tpa_tape_block {
        uint8_t *data;
        size_t   len, cap;
} tpa_tape_block;

/* `blocks` buffers of `size` bytes each; NULL when out of memory. */
tpa_tape *tpa_tape_new(unsigned blocks, size_t size);
void      tpa_tape_free(tpa_tape *t);          /* NULL is a no-op */

/* Producer: an empty block to fill (waits for one); NULL once stopped. */
tpa_tape_block *tpa_tape_get(tpa_tape *t);
/* Producer: the block from tpa_tape_get(), filled, for the consumer. */
void            tpa_tape_put(tpa_tape *t, tpa_tape_block *b);
/* Make `b` (from tpa_tape_get()) hold `need` more bytes; false: no memory. */
bool            tpa_tape_reserve(tpa_tape_block *b, size_t need);

/* Consumer: the next block put (waits for it); NULL once stopped with no
 * block left. */
tpa_tape_block *tpa_tape_take(tpa_tape *t);
/* Consumer: done with the block tpa_tape_take() returned last. */
void            tpa_tape_give_back(tpa_tape *t);

/* Either side: no more blocks. The producer's tpa_tape_get() returns NULL
 * from now on; the consumer still takes the blocks already put. */
void            tpa_tape_stop(tpa_tape *t);

#endif
