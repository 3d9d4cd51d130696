/* SPDX-License-Identifier: MIT */
/*
 * tape.c - a ring of byte blocks between two threads (tape.h). Blocks go
 * round in order, so three counters say everything: `put` blocks were
 * filled, `taken` handed to the consumer, `done` given back. The producer
 * may fill block put % n when put - done < n.
 */
#include <pthread.h>
#include <stdlib.h>

#include "parse/tape.h"

struct tpa_tape {
        pthread_mutex_t lock;
        pthread_cond_t  changed;
        unsigned        n;
        uint64_t        put, taken, done;
        bool            stopped;
        tpa_tape_block *blocks;
};

tpa_tape *tpa_tape_new(unsigned blocks, size_t size)
{
        tpa_tape *t = calloc(1, sizeof(*t));

        if (t == NULL)
                return NULL;
        t->n = blocks;
        t->blocks = calloc(blocks, sizeof(*t->blocks));
        if (t->blocks == NULL)
                goto fail;
        for (unsigned i = 0; i < blocks; i++) {
                t->blocks[i].data = malloc(size);
                if (t->blocks[i].data == NULL)
                        goto fail;
                t->blocks[i].cap = size;
        }
        if (pthread_mutex_init(&t->lock, NULL) != 0)
                goto fail;
        if (pthread_cond_init(&t->changed, NULL) != 0) {
                pthread_mutex_destroy(&t->lock);
                goto fail;
        }
        return t;
fail:
        if (t->blocks != NULL) {
                for (unsigned i = 0; i < blocks; i++)
                        free(t->blocks[i].data);
        }
        free(t->blocks);
        free(t);
        return NULL;
}

void tpa_tape_free(tpa_tape *t)
{
        if (t == NULL)
                return;
        pthread_cond_destroy(&t->changed);
        pthread_mutex_destroy(&t->lock);
        for (unsigned i = 0; i < t->n; i++)
                free(t->blocks[i].data);
        free(t->blocks);
        free(t);
}

tpa_tape_block *tpa_tape_get(tpa_tape *t)
{
        tpa_tape_block *b = NULL;

        pthread_mutex_lock(&t->lock);
        while (!t->stopped && t->put - t->done == t->n)
                pthread_cond_wait(&t->changed, &t->lock);
        if (!t->stopped) {
                b = &t->blocks[t->put % t->n];
                b->len = 0;
        }
        pthread_mutex_unlock(&t->lock);
        return b;
}

void tpa_tape_put(tpa_tape *t, tpa_tape_block *b)
{
        (void)b;        /* always block put % n: the one tpa_tape_get() gave */
        pthread_mutex_lock(&t->lock);
        t->put++;
        pthread_cond_broadcast(&t->changed);
        pthread_mutex_unlock(&t->lock);
}

bool tpa_tape_reserve(tpa_tape_block *b, size_t need)
{
        size_t cap = b->cap;
        uint8_t *q;

        if (b->cap - b->len >= need)
                return true;
        if (need > SIZE_MAX / 2 - b->len)
                return false;
        while (cap - b->len < need)
                cap *= 2;
        q = realloc(b->data, cap);
        if (q == NULL)
                return false;
        b->data = q;
        b->cap = cap;
        return true;
}

tpa_tape_block *tpa_tape_take(tpa_tape *t)
{
        tpa_tape_block *b = NULL;

        pthread_mutex_lock(&t->lock);
        while (!t->stopped && t->taken == t->put)
                pthread_cond_wait(&t->changed, &t->lock);
        if (t->taken < t->put)
                b = &t->blocks[t->taken++ % t->n];
        pthread_mutex_unlock(&t->lock);
        return b;
}

void tpa_tape_give_back(tpa_tape *t)
{
        pthread_mutex_lock(&t->lock);
        t->done++;
        pthread_cond_broadcast(&t->changed);
        pthread_mutex_unlock(&t->lock);
}

void tpa_tape_stop(tpa_tape *t)
{
        pthread_mutex_lock(&t->lock);
        t->stopped = true;
        pthread_cond_broadcast(&t->changed);
        pthread_mutex_unlock(&t->lock);
}
