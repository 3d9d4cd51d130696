/* SPDX-License-Identifier: MIT */
/*
 * trace.c - the event model: the string table (interning), processes and
 * threads found by id, the event array, sparse extras and parse health.
 *
 * Events live in one array grown by doubling; glibc serves large blocks with
 * mmap and grows them with mremap, so growth neither copies nor doubles the
 * resident size. Strings live in fixed-size blocks that never move, so a
 * `const char *` from tpa_trace_str() stays valid while the trace lives.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/trace_build.h"
#include "model/utf8.h"

#define STR_BLOCK (256u * 1024u)
/* Events per block of the extras' index (aux_first, aux_keys): a look-up
 * that enters a block walks from its first entry, past the extras of the
 * block's events before its own (speed, bench/: blocks of 256 events made
 * the walks of every reader of extras longer than the index is worth). */
#define AUX_BLOCK 64u
/* Room reserved for at least PREFAULT_MIN bytes of events has its pages
 * faulted in on a thread of its own (tpa_trace__reserve_events()), up to
 * PREFAULT_MAX: a reader's count may include events it then skips, and a
 * hostile one may be anything. */
#define PREFAULT_MIN (1u << 20)
#define PREFAULT_MAX (64u << 20)

struct str_block {
        struct str_block *next;
        size_t            used;
        size_t            size;
        char              data[];
};

/* 16 bytes: the event index and the key in one word, which also makes
 * (event, key) order one integer compare (bench/: 24 bytes before, ~10 MB
 * per million extras). */
struct aux_entry {
        uint64_t ek;            /* event << 8 | key */
        int64_t  value;
};
#define AUX_EK(event, key) ((uint64_t)(event) << 8 | (uint64_t)(key))
#define AUX_EVENT(e) ((e)->ek >> 8)
#define AUX_KEY(e) ((unsigned)((e)->ek & 0xff))

struct tpa_trace {
        /* strings */
        struct str_block *blocks;
        const char      **str_ptr;      /* by id */
        uint32_t         *str_len;
        size_t            str_count, str_cap;
        uint32_t         *hash;         /* open addressing: id + 1, 0 empty */
        size_t            hash_cap;     /* power of two */
        size_t            str_bytes;

        /* processes and threads, each with a hash from id to index: a
         * hostile trace can name a new process in every event */
        tpa_process      *procs;
        size_t            proc_count, proc_cap;
        uint32_t         *proc_hash;    /* index + 1 */
        size_t            proc_hash_cap;
        tpa_thread       *threads;
        size_t            thread_count, thread_cap;
        uint32_t         *thread_hash;  /* index + 1 */
        size_t            thread_hash_cap;

        tpa_event        *events;
        size_t            event_count, event_cap;
        uint64_t          max_events;
        /* the thread faulting in reserved room: pf_len bytes from pf_at */
        pthread_t         pf_thread;
        bool              pf_running;
        void             *pf_at;
        size_t            pf_len;

        struct aux_entry *aux;
        size_t            aux_count, aux_cap;     /* sorted by (event, key) */
        /* Extras set out of event order (a reader's second pass, e.g. step
         * numbers of a Steps line) wait in a small sorted side array, merged
         * into `aux` when it grows past 1/8 of it: inserting them in the
         * middle of `aux` cost a memmove of its tail each, quadratic on big
         * traces (bench/). Keys are in one array or the other, never both. */
        struct aux_entry *aux2;
        size_t            aux2_count, aux2_cap;
        /* aux_first[b]: the first entry of `aux` for events >= b * AUX_BLOCK,
         * so a lookup searches a few entries, not all; aux_keys[b]: which
         * keys occur in the block (bit 1 << key), so a lookup for a key the
         * block lacks (most flag lookups) searches none. aux2_keys: the same
         * for aux2. */
        uint32_t         *aux_first;
        uint8_t          *aux_keys;
        size_t            aux_blocks, aux_first_cap, aux_keys_cap;
        unsigned          aux2_keys;

        tpa_format        format;
        tpa_dialect       dialect;
        tpa_runtime       runtime;
        unsigned          facts;        /* tpa_trace_fact bits */
        tpa_dist_info     dist;
        tpa_input_info   *inputs;       /* a merged file's inputs, by index */
        size_t            input_count, input_cap;
        tpa_health        health;
        tpa_warning      *warnings;
        size_t            warning_count, warning_cap;
        /* the step numbers tpa_trace__step_number() gave, sorted */
        int64_t          *step_nums;
        size_t            step_num_count, step_num_cap;
};

static int grow(void **ptr, size_t *cap, size_t need, size_t elem, tpa_error *err)
{
        size_t n = *cap ? *cap : 16;
        void *p;

        if (need <= *cap)
                return 0;
        while (n < need)
                n *= 2;
        p = realloc(*ptr, n * elem);
        if (p == NULL)
                return tpa_error_oom(err);
        *ptr = p;
        *cap = n;
        return 0;
}

/* The reserved room's pages, faulted in (each first write to a fresh
 * page is a trap into the kernel, which clears it) while the reader fills
 * the pages before them. */
static void *prefault_main(void *arg)
{
        tpa_trace *tr = arg;

#ifdef MADV_POPULATE_WRITE
        (void)madvise(tr->pf_at, tr->pf_len, MADV_POPULATE_WRITE);
#else
        (void)tr;
#endif
        return NULL;
}

/* Before the events move or go: the prefaulting thread is done. */
static void prefault_join(tpa_trace *tr)
{
        if (tr->pf_running)
                pthread_join(tr->pf_thread, NULL);
        tr->pf_running = false;
}

/* Eight bytes at a time: every kernel event interns its name, and TF/CUDA
 * kernel names run to hundreds of bytes (Eigen templates), where FNV-1a's one
 * multiply per byte made tpa_trace__intern a noticeable part of reading. */
static uint64_t hash_bytes(const char *s, size_t len)
{
        const uint64_t k = 0x9e3779b97f4a7c15ull;
        uint64_t h = len * 0xff51afd7ed558ccdull, w;

        for (; len >= 8; s += 8, len -= 8) {
                memcpy(&w, s, 8);
                h = (h ^ w) * k;
                h ^= h >> 32;
        }
        w = 0;
        memcpy(&w, s, len);
        h = (h ^ w) * k;
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        return h ^ (h >> 32);
}

int tpa_trace_new(tpa_trace **out, tpa_error *err)
{
        tpa_trace *tr = calloc(1, sizeof(*tr));
        tpa_str empty;

        if (tr == NULL)
                return tpa_error_oom(err);
        tr->dist = (tpa_dist_info)TPA_DIST_INFO_INIT;
        if (tpa_trace__intern(tr, &empty, "", 0, err) < 0) {
                tpa_trace_free(tr);
                return TPA_ENOMEM;
        }
        *out = tr;
        return 0;
}

void tpa_trace_free(tpa_trace *tr)
{
        struct str_block *b, *next;

        if (tr == NULL)
                return;
        for (b = tr->blocks; b != NULL; b = next) {
                next = b->next;
                free(b);
        }
        free(tr->str_ptr);
        free(tr->str_len);
        free(tr->hash);
        free(tr->procs);
        free(tr->proc_hash);
        free(tr->threads);
        free(tr->thread_hash);
        prefault_join(tr);
        free(tr->events);
        free(tr->aux);
        free(tr->aux2);
        free(tr->aux_first);
        free(tr->aux_keys);
        free(tr->warnings);
        free(tr->inputs);
        free(tr->step_nums);
        free(tr);
}

/* ---- strings ---------------------------------------------------------- */

static char *str_alloc(tpa_trace *tr, size_t len, tpa_error *err)
{
        struct str_block *b = tr->blocks;
        char *p;

#ifndef TPA_ARENA_DEBUG
        if (b == NULL || b->size - b->used < len + 1) {
                size_t size = len + 1 > STR_BLOCK / 4 ? len + 1 : STR_BLOCK;
#else
        {
                size_t size = len + 1;
#endif
                b = malloc(sizeof(*b) + size);
                if (b == NULL) {
                        tpa_error_oom(err);
                        return NULL;
                }
                b->used = 0;
                b->size = size;
                /* A big one-off string goes behind the current block, so the
                 * current block keeps filling. */
                if (tr->blocks != NULL && size != STR_BLOCK) {
                        b->next = tr->blocks->next;
                        tr->blocks->next = b;
                } else {
                        b->next = tr->blocks;
                        tr->blocks = b;
                }
                tr->str_bytes += sizeof(*b) + size;
        }
        p = b->data + b->used;
        b->used += len + 1;
        return p;
}

static int rehash(tpa_trace *tr, tpa_error *err)
{
        size_t cap = tr->hash_cap ? tr->hash_cap * 2 : 1024;
        uint32_t *h = calloc(cap, sizeof(*h));

        if (h == NULL)
                return tpa_error_oom(err);
        for (size_t id = 0; id < tr->str_count; id++) {
                size_t i = hash_bytes(tr->str_ptr[id], tr->str_len[id]) & (cap - 1);
                while (h[i] != 0)
                        i = (i + 1) & (cap - 1);
                h[i] = (uint32_t)id + 1;
        }
        free(tr->hash);
        tr->hash = h;
        tr->hash_cap = cap;
        return 0;
}

static size_t find_slot(const tpa_trace *tr, const char *s, size_t len, uint64_t h)
{
        size_t i = h & (tr->hash_cap - 1);

        while (tr->hash[i] != 0) {
                uint32_t id = tr->hash[i] - 1;
                if (tr->str_len[id] == len && memcmp(tr->str_ptr[id], s, len) == 0)
                        return i;
                i = (i + 1) & (tr->hash_cap - 1);
        }
        return i;
}

bool tpa_trace_find_str(const tpa_trace *tr, tpa_str *out, const char *s, size_t len)
{
        size_t i;

        if (tr->hash_cap == 0)
                return false;
        i = find_slot(tr, s, len, hash_bytes(s, len));
        if (tr->hash[i] == 0)
                return false;
        *out = tr->hash[i] - 1;
        return true;
}

int tpa_trace__intern(tpa_trace *tr, tpa_str *out, const char *s, size_t len, tpa_error *err)
{
        uint64_t h = hash_bytes(s, len);
        size_t i;
        char *p;

        if (len > UINT32_MAX)
                return tpa_error_setf(err, TPA_ELIMIT, "string of %zu bytes is too long", len);
        if (tr->hash_cap != 0) {
                i = find_slot(tr, s, len, h);
                if (tr->hash[i] != 0) {
                        *out = tr->hash[i] - 1;
                        return 0;
                }
        }
        if (tr->str_count >= UINT32_MAX - 1)
                return tpa_error_setf(err, TPA_ELIMIT, "more than 2^32 distinct strings");
        if ((tr->str_count + 1) * 2 > tr->hash_cap && rehash(tr, err) < 0)
                return TPA_ENOMEM;
        if (tr->str_count == tr->str_cap) {
                /* str_len follows str_ptr's capacity, grown with it only:
                 * a realloc() per string copies it each time under ASan
                 * and valgrind (200,000 names: 66 s) */
                size_t cap = tr->str_cap;
                void *q;
                if (grow((void **)&tr->str_ptr, &cap, tr->str_count + 1, sizeof(char *), err) < 0)
                        return TPA_ENOMEM;
                q = realloc(tr->str_len, cap * sizeof(uint32_t));
                if (q == NULL)
                        return tpa_error_oom(err);
                tr->str_len = q;
                tr->str_cap = cap;
        }
        p = str_alloc(tr, len, err);
        if (p == NULL)
                return TPA_ENOMEM;
        if (len > 0)
                memcpy(p, s, len);
        p[len] = '\0';
        tr->str_ptr[tr->str_count] = p;
        tr->str_len[tr->str_count] = (uint32_t)len;
        i = find_slot(tr, s, len, h);
        tr->hash[i] = (uint32_t)tr->str_count + 1;
        *out = (tpa_str)tr->str_count++;
        return 0;
}

const char *tpa_trace_str(const tpa_trace *tr, tpa_str id)
{
        return id < tr->str_count ? tr->str_ptr[id] : "";
}

size_t tpa_trace_str_len(const tpa_trace *tr, tpa_str id)
{
        return id < tr->str_count ? tr->str_len[id] : 0;
}

size_t tpa_trace_str_count(const tpa_trace *tr)
{
        return tr->str_count;
}

/* ---- processes and threads --------------------------------------------- */

static bool id_eq(tpa_id a, tpa_id b)
{
        return a.str == b.str && (a.str != 0 || a.num == b.num);
}

static uint64_t thread_key(uint32_t process, tpa_id tid)
{
        uint64_t h = (uint64_t)tid.num * 0x9e3779b97f4a7c15ull;

        h ^= ((uint64_t)tid.str << 32 | process) * 0xc2b2ae3d27d4eb4full;
        return h ^ (h >> 31);
}

/* A process' key: no process has index UINT32_MAX (TPA_TRACK_MAX). */
static uint64_t proc_key(tpa_id pid)
{
        return thread_key(UINT32_MAX, pid);
}

static int proc_rehash(tpa_trace *tr, tpa_error *err)
{
        size_t cap = tr->proc_hash_cap ? tr->proc_hash_cap * 2 : 64;
        uint32_t *h = calloc(cap, sizeof(*h));

        if (h == NULL)
                return tpa_error_oom(err);
        for (size_t p = 0; p < tr->proc_count; p++) {
                size_t i = proc_key(tr->procs[p].pid) & (cap - 1);
                while (h[i] != 0)
                        i = (i + 1) & (cap - 1);
                h[i] = (uint32_t)p + 1;
        }
        free(tr->proc_hash);
        tr->proc_hash = h;
        tr->proc_hash_cap = cap;
        return 0;
}

int tpa_trace__get_process(tpa_trace *tr, uint32_t *out, tpa_id pid, tpa_error *err)
{
        tpa_process *p;
        size_t i;

        if (tr->proc_hash_cap != 0) {
                i = proc_key(pid) & (tr->proc_hash_cap - 1);
                while (tr->proc_hash[i] != 0) {
                        if (id_eq(tr->procs[tr->proc_hash[i] - 1].pid, pid)) {
                                *out = tr->proc_hash[i] - 1;
                                return 0;
                        }
                        i = (i + 1) & (tr->proc_hash_cap - 1);
                }
        }
        if (tr->proc_count >= TPA_TRACK_MAX)
                return tpa_error_setf(err, TPA_ELIMIT, "too many processes");
        if ((tr->proc_count + 1) * 2 > tr->proc_hash_cap && proc_rehash(tr, err) < 0)
                return TPA_ENOMEM;
        if (grow((void **)&tr->procs, &tr->proc_cap, tr->proc_count + 1, sizeof(*p), err) < 0)
                return TPA_ENOMEM;
        p = &tr->procs[tr->proc_count];
        memset(p, 0, sizeof(*p));
        p->pid = pid;
        p->device = -1;
        i = proc_key(pid) & (tr->proc_hash_cap - 1);
        while (tr->proc_hash[i] != 0)
                i = (i + 1) & (tr->proc_hash_cap - 1);
        tr->proc_hash[i] = (uint32_t)tr->proc_count + 1;
        *out = (uint32_t)tr->proc_count++;
        return 0;
}

static int thread_rehash(tpa_trace *tr, tpa_error *err)
{
        size_t cap = tr->thread_hash_cap ? tr->thread_hash_cap * 2 : 64;
        uint32_t *h = calloc(cap, sizeof(*h));

        if (h == NULL)
                return tpa_error_oom(err);
        for (size_t t = 0; t < tr->thread_count; t++) {
                size_t i = thread_key(tr->threads[t].process, tr->threads[t].tid) & (cap - 1);
                while (h[i] != 0)
                        i = (i + 1) & (cap - 1);
                h[i] = (uint32_t)t + 1;
        }
        free(tr->thread_hash);
        tr->thread_hash = h;
        tr->thread_hash_cap = cap;
        return 0;
}

int tpa_trace__get_thread(tpa_trace *tr, uint32_t *out, uint32_t process, tpa_id tid,
                          tpa_error *err)
{
        tpa_thread *t;
        size_t i;

        if (tr->thread_hash_cap != 0) {
                i = thread_key(process, tid) & (tr->thread_hash_cap - 1);
                while (tr->thread_hash[i] != 0) {
                        t = &tr->threads[tr->thread_hash[i] - 1];
                        if (t->process == process && id_eq(t->tid, tid)) {
                                *out = tr->thread_hash[i] - 1;
                                return 0;
                        }
                        i = (i + 1) & (tr->thread_hash_cap - 1);
                }
        }
        if (tr->thread_count >= TPA_TRACK_MAX)
                return tpa_error_setf(err, TPA_ELIMIT, "more than %u threads", TPA_TRACK_MAX);
        if ((tr->thread_count + 1) * 2 > tr->thread_hash_cap && thread_rehash(tr, err) < 0)
                return TPA_ENOMEM;
        if (grow((void **)&tr->threads, &tr->thread_cap, tr->thread_count + 1, sizeof(*t),
                 err) < 0)
                return TPA_ENOMEM;
        t = &tr->threads[tr->thread_count];
        memset(t, 0, sizeof(*t));
        t->process = process;
        t->tid = tid;
        i = thread_key(process, tid) & (tr->thread_hash_cap - 1);
        while (tr->thread_hash[i] != 0)
                i = (i + 1) & (tr->thread_hash_cap - 1);
        tr->thread_hash[i] = (uint32_t)tr->thread_count + 1;
        *out = (uint32_t)tr->thread_count++;
        return 0;
}

size_t tpa_trace_process_count(const tpa_trace *tr) { return tr->proc_count; }
size_t tpa_trace_thread_count(const tpa_trace *tr) { return tr->thread_count; }
tpa_process *tpa_trace__process(tpa_trace *tr, uint32_t i) { return &tr->procs[i]; }
tpa_thread *tpa_trace__thread(tpa_trace *tr, uint32_t i) { return &tr->threads[i]; }
const tpa_process *tpa_trace_process_c(const tpa_trace *tr, uint32_t i) { return &tr->procs[i]; }
const tpa_thread *tpa_trace_thread_c(const tpa_trace *tr, uint32_t i) { return &tr->threads[i]; }

/* ---- events ------------------------------------------------------------ */

int tpa_trace__add_event(tpa_trace *tr, const tpa_event *ev, size_t *out_index, tpa_error *err)
{
        if (tr->max_events != 0 && tr->event_count >= tr->max_events)
                return tpa_error_setf(err, TPA_ELIMIT, "more than %llu events",
                                      (unsigned long long)tr->max_events);
        if (tr->event_count == tr->event_cap)
                prefault_join(tr);
        if (tr->event_count == tr->event_cap &&
            grow((void **)&tr->events, &tr->event_cap, tr->event_count + 1, sizeof(*ev), err) < 0)
                return TPA_ENOMEM;
        tr->events[tr->event_count] = *ev;
        if (out_index != NULL)
                *out_index = tr->event_count;
        tr->event_count++;
        tr->health.events_kept++;
        return 0;
}

void tpa_trace__reserve_events(tpa_trace *tr, size_t n)
{
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a, e;
        size_t need;

        if (tr->max_events != 0 && n > tr->max_events - tr->event_count)
                n = tr->max_events > tr->event_count
                    ? (size_t)(tr->max_events - tr->event_count) : 0;
        if (n > SIZE_MAX / 2 / sizeof(tpa_event) - tr->event_count)
                return;         /* (grow() doubles up to twice `need`) */
        need = tr->event_count + n;
        prefault_join(tr);
        if (grow((void **)&tr->events, &tr->event_cap, need, sizeof(tpa_event), NULL) < 0)
                return;         /* adding them says so, if it comes to that */
        if (n > PREFAULT_MAX / sizeof(tpa_event))
                need = tr->event_count + PREFAULT_MAX / sizeof(tpa_event);
        if ((need - tr->event_count) * sizeof(tpa_event) < PREFAULT_MIN || page == 0 ||
            page > PREFAULT_MIN || sysconf(_SC_NPROCESSORS_ONLN) < 2)
                return;         /* one CPU: the thread would only take turns */
        /* the whole pages of the room, the first one only if its start is */
        a = ((uintptr_t)(tr->events + tr->event_count) + page - 1) / page * page;
        e = (uintptr_t)(tr->events + need) / page * page;
        tr->pf_at = (void *)a;
        tr->pf_len = e - a;
        tr->pf_running = pthread_create(&tr->pf_thread, NULL, prefault_main, tr) == 0;
}

tpa_event *tpa_trace__event_room(tpa_trace *tr, size_t *n)
{
        uint64_t left = tr->max_events == 0 ? UINT64_MAX
                        : tr->max_events > tr->event_count ? tr->max_events - tr->event_count
                        : 0;

        *n = tr->event_cap - tr->event_count;
        if (*n > left)
                *n = (size_t)left;
        return *n > 0 ? tr->events + tr->event_count : NULL;
}

void tpa_trace__commit_events(tpa_trace *tr, size_t k)
{
        assert(k <= tr->event_cap - tr->event_count);
        tr->event_count += k;
        tr->health.events_kept += k;
}

size_t tpa_trace_event_count(const tpa_trace *tr) { return tr->event_count; }
const tpa_event *tpa_trace_events(const tpa_trace *tr) { return tr->events; }
tpa_event *tpa_trace__events_mut(tpa_trace *tr) { return tr->events; }
void tpa_trace__set_max_events(tpa_trace *tr, uint64_t max) { tr->max_events = max; }

bool tpa_trace_span(const tpa_trace *tr, tpa_ns *start, tpa_ns *end)
{
        tpa_ns lo = INT64_MAX, hi = INT64_MIN;

        for (size_t i = 0; i < tr->event_count; i++) {
                const tpa_event *e = &tr->events[i];
                if (e->ts < lo)
                        lo = e->ts;
                if (e->ts + e->dur > hi)
                        hi = e->ts + e->dur;
        }
        if (tr->event_count == 0)
                return false;
        *start = lo;
        *end = hi;
        return true;
}

/* ---- extras ------------------------------------------------------------ */

static int aux_cmp(const void *a, const void *b)
{
        const struct aux_entry *x = a, *y = b;

        return (x->ek > y->ek) - (x->ek < y->ek);
}

/* A key's bit in aux_keys; keys from 7 up share bit 7. */
static uint8_t key_bit(unsigned key)
{
        return (uint8_t)(key < 7 ? 1u << key : 0x80u);
}

/* The first entry of a[lo..hi) not below k. */
static size_t aux_search(const struct aux_entry *a, size_t lo, size_t hi,
                         const struct aux_entry *k)
{
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (aux_cmp(&a[mid], k) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* The entry for (event, key) in either array, or NULL. */
static struct aux_entry *aux_find(const tpa_trace *tr, size_t event, tpa_aux_key key)
{
        struct aux_entry k = { .ek = AUX_EK(event, key) };
        size_t b = event / AUX_BLOCK, lo = 0, hi = tr->aux_count, i;

        if ((uint64_t)event >= (uint64_t)1 << 56 || (unsigned)key > 0xff)
                return NULL;            /* never stored */

        if (b >= tr->aux_blocks || !(tr->aux_keys[b] & key_bit(key))) {
                lo = hi;        /* no entry of `aux` can match */
        } else {
                lo = tr->aux_first[b];
                if (b + 1 < tr->aux_blocks)
                        hi = tr->aux_first[b + 1];
        }
        i = aux_search(tr->aux, lo, hi, &k);
        if (i < tr->aux_count && aux_cmp(&tr->aux[i], &k) == 0)
                return &tr->aux[i];
        if (!(tr->aux2_keys & key_bit(key)))
                return NULL;
        i = aux_search(tr->aux2, 0, tr->aux2_count, &k);
        if (i < tr->aux2_count && aux_cmp(&tr->aux2[i], &k) == 0)
                return &tr->aux2[i];
        return NULL;
}

/* Point the blocks from aux_blocks up to `event`'s at entry `first`. */
static int aux_index(tpa_trace *tr, size_t event, size_t first, tpa_error *err)
{
        size_t b = event / AUX_BLOCK;

        if (b < tr->aux_blocks)
                return 0;
        if (grow((void **)&tr->aux_first, &tr->aux_first_cap, b + 1, sizeof(*tr->aux_first),
                 err) < 0 ||
            grow((void **)&tr->aux_keys, &tr->aux_keys_cap, b + 1, sizeof(*tr->aux_keys),
                 err) < 0)
                return TPA_ENOMEM;
        for (; tr->aux_blocks <= b; tr->aux_blocks++) {
                tr->aux_first[tr->aux_blocks] = (uint32_t)first;
                tr->aux_keys[tr->aux_blocks] = 0;
        }
        return 0;
}

/* Merge aux2 into aux (from the back, in place) and index it again. */
static int aux_merge(tpa_trace *tr, tpa_error *err)
{
        size_t i = tr->aux_count, j = tr->aux2_count, w = i + j;

        if (grow((void **)&tr->aux, &tr->aux_cap, w, sizeof(*tr->aux), err) < 0)
                return TPA_ENOMEM;
        while (j > 0) {
                if (i > 0 && aux_cmp(&tr->aux[i - 1], &tr->aux2[j - 1]) > 0)
                        tr->aux[--w] = tr->aux[--i];
                else
                        tr->aux[--w] = tr->aux2[--j];
        }
        tr->aux_count += tr->aux2_count;
        tr->aux2_count = 0;
        tr->aux2_keys = 0;
        tr->aux_blocks = 0;
        for (size_t n = 0; n < tr->aux_count; n++) {
                if (aux_index(tr, AUX_EVENT(&tr->aux[n]), n, err) < 0)
                        return TPA_ENOMEM;
                tr->aux_keys[AUX_EVENT(&tr->aux[n]) / AUX_BLOCK] |= key_bit(AUX_KEY(&tr->aux[n]));
        }
        return 0;
}

/* Entry k, for an event before the last of `aux`, into `aux2`, in order
 * (mostly at its end: out-of-order extras come in event order too). */
static int aux2_insert(tpa_trace *tr, const struct aux_entry *k, tpa_error *err)
{
        size_t i;

        if (grow((void **)&tr->aux2, &tr->aux2_cap, tr->aux2_count + 1, sizeof(*tr->aux2),
                 err) < 0)
                return TPA_ENOMEM;
        i = tr->aux2_count == 0 || aux_cmp(&tr->aux2[tr->aux2_count - 1], k) < 0
            ? tr->aux2_count : aux_search(tr->aux2, 0, tr->aux2_count, k);
        memmove(&tr->aux2[i + 1], &tr->aux2[i], (tr->aux2_count - i) * sizeof(*tr->aux2));
        tr->aux2[i] = *k;
        tr->aux2_count++;
        tr->aux2_keys |= key_bit(AUX_KEY(k));
        return 0;
}

int tpa_trace__set_aux(tpa_trace *tr, size_t event, tpa_aux_key key, int64_t value,
                       tpa_error *err)
{
        struct aux_entry k = { .ek = AUX_EK(event, key), .value = value }, *e;
        bool past;

        if ((uint64_t)event >= (uint64_t)1 << 56 || (unsigned)key > 0xff)
                return tpa_error_setf(err, TPA_EINVAL, "event extra out of range");

        /* Speed (bench/): past the last entry, with none of this key out of
         * order, it cannot be there yet: no search. */
        past = tr->aux_count == 0 || tr->aux[tr->aux_count - 1].ek < k.ek;
        e = past && !(tr->aux2_keys & key_bit(key)) ? NULL : aux_find(tr, event, key);
        if (e != NULL) {
                e->value = value;
                return 0;
        }
        if (tr->aux_count >= UINT32_MAX - tr->aux2_count - 1)
                return tpa_error_setf(err, TPA_ELIMIT, "more than 2^32 event extras");
        if (past) {
                /* In event order, as readers add them: append. */
                if (grow((void **)&tr->aux, &tr->aux_cap, tr->aux_count + 1, sizeof(*tr->aux),
                         err) < 0 ||
                    aux_index(tr, event, tr->aux_count, err) < 0)
                        return TPA_ENOMEM;
                tr->aux_keys[event / AUX_BLOCK] |= key_bit(key);
                tr->aux[tr->aux_count++] = k;
                return 0;
        }
        if (aux2_insert(tr, &k, err) < 0)
                return TPA_ENOMEM;
        if (tr->aux2_count > 4096 && tr->aux2_count > tr->aux_count / 8)
                return aux_merge(tr, err);
        return 0;
}

int tpa_trace__set_new_aux(tpa_trace *tr, tpa_aux_key key, const tpa_aux_set *v, size_t n,
                           tpa_error *err)
{
        if ((unsigned)key > 0xff)
                return tpa_error_setf(err, TPA_EINVAL, "event extra out of range");
        for (size_t j = 0; j < n; j++) {
                struct aux_entry k = { .ek = AUX_EK(v[j].event, key), .value = v[j].value };

                assert(aux_find(tr, v[j].event, key) == NULL);
                assert(j == 0 || v[j].event > v[j - 1].event);
                if ((uint64_t)v[j].event >= (uint64_t)1 << 56)
                        return tpa_error_setf(err, TPA_EINVAL, "event extra out of range");
                if (tr->aux_count >= UINT32_MAX - tr->aux2_count - 1)
                        return tpa_error_setf(err, TPA_ELIMIT, "more than 2^32 event extras");
                if (tr->aux_count == 0 || aux_cmp(&tr->aux[tr->aux_count - 1], &k) < 0) {
                        /* past the last entry: the rest are set_aux's appends */
                        for (; j < n; j++)
                                if (tpa_trace__set_aux(tr, v[j].event, key, v[j].value, err) < 0)
                                        return err != NULL ? err->code : TPA_ENOMEM;
                        break;
                }
                if (aux2_insert(tr, &k, err) < 0)
                        return TPA_ENOMEM;
        }
        if (tr->aux2_count > 4096 && tr->aux2_count > tr->aux_count / 8)
                return aux_merge(tr, err);
        return 0;
}

bool tpa_trace_get_aux(const tpa_trace *tr, size_t event, tpa_aux_key key, int64_t *out)
{
        const struct aux_entry *e = aux_find(tr, event, key);

        if (e == NULL)
                return false;
        *out = e->value;
        return true;
}

bool tpa_trace_get_aux_seq(const tpa_trace *tr, size_t event, tpa_aux_key key, size_t *cursor,
                           int64_t *out)
{
        uint64_t ek = AUX_EK(event, key);
        size_t b = event / AUX_BLOCK, i = *cursor;

        if ((uint64_t)event >= (uint64_t)1 << 56 || (unsigned)key > 0xff)
                return false;           /* never stored */
        if (tr->aux2_keys & key_bit(key))
                return tpa_trace_get_aux(tr, event, key, out);  /* rare: set out of order */
        if (b >= tr->aux_blocks || !(tr->aux_keys[b] & key_bit(key)))
                return false;
        /* from the block's first entry when the cursor is behind the block
         * or past the entry (a look-up out of order) */
        if (i < tr->aux_first[b] || i > tr->aux_count || (i > 0 && tr->aux[i - 1].ek >= ek))
                i = tr->aux_first[b];
        while (i < tr->aux_count && tr->aux[i].ek < ek)
                i++;
        *cursor = i;
        if (i < tr->aux_count && tr->aux[i].ek == ek) {
                *out = tr->aux[i].value;
                return true;
        }
        return false;
}

void tpa_trace_get_aux_run(const tpa_trace *tr, const uint32_t *events, size_t n,
                           tpa_aux_key key, size_t *cursor, int64_t none, int64_t *out)
{
        /* tpa_trace_get_aux_seq()'s walk, what it reads of tr in locals:
         * out[] may alias none of it (uint32_t events are below 2^56) */
        const struct aux_entry *aux = tr->aux;
        const uint32_t *first = tr->aux_first;
        const uint8_t *keys = tr->aux_keys;
        size_t count = tr->aux_count, blocks = tr->aux_blocks, i = *cursor;
        uint8_t bit = key_bit(key);

        if ((unsigned)key > 0xff || (tr->aux2_keys & bit)) {
                /* never stored; or rare: set out of order */
                for (size_t k = 0; k < n; k++)
                        if ((unsigned)key > 0xff || !tpa_trace_get_aux(tr, events[k], key, &out[k]))
                                out[k] = none;
                return;
        }
        /* in the block of the event before, and after it, the cursor is
         * where that look-up left it: before the entry, past the one
         * before it, as an event of a new block finds it (mostly, a run
         * of a lane's events is in event order) */
        size_t pb = SIZE_MAX;
        uint32_t prev = 0;
        bool has = false;

        for (size_t k = 0; k < n; k++) {
                uint64_t ek = AUX_EK(events[k], key);
                size_t b = events[k] / AUX_BLOCK;
                out[k] = none;
                if (b != pb || events[k] <= prev) {
                        pb = b;
                        has = b < blocks && (keys[b] & bit);
                        if (has && (i > count || (i > 0 && aux[i - 1].ek >= ek) || i < first[b]))
                                i = first[b];
                }
                prev = events[k];
                if (!has)
                        continue;
                while (i < count && aux[i].ek < ek)
                        i++;
                if (i < count && aux[i].ek == ek)
                        out[k] = aux[i].value;
        }
        *cursor = i;
}

bool tpa_trace_next_aux(const tpa_trace *tr, tpa_aux_key key, size_t *event, int64_t *out)
{
        struct aux_entry k = { .ek = AUX_EK(*event, 0) };
        const struct aux_entry *best = NULL;
        size_t i, hi;

        if ((uint64_t)*event >= (uint64_t)1 << 56 || (unsigned)key > 0xff)
                return false;
        /* in `aux`: the first block from the event's on that holds the key,
         * from the event's entries in its own block, from the first entry
         * in the blocks after it (no search: all of theirs come after) */
        for (size_t b = *event / AUX_BLOCK; b < tr->aux_blocks && best == NULL; b++) {
                if (!(tr->aux_keys[b] & key_bit(key)))
                        continue;
                hi = b + 1 < tr->aux_blocks ? tr->aux_first[b + 1] : tr->aux_count;
                i = b == *event / AUX_BLOCK ? aux_search(tr->aux, tr->aux_first[b], hi, &k)
                                           : tr->aux_first[b];
                for (; i < hi; i++)
                        if (AUX_KEY(&tr->aux[i]) == (unsigned)key) {
                                best = &tr->aux[i];
                                break;
                        }
        }
        /* in `aux2`, when it holds the key: the earlier of the two */
        if (tr->aux2_keys & key_bit(key)) {
                for (i = aux_search(tr->aux2, 0, tr->aux2_count, &k); i < tr->aux2_count; i++)
                        if (AUX_KEY(&tr->aux2[i]) == (unsigned)key) {
                                if (best == NULL || tr->aux2[i].ek < best->ek)
                                        best = &tr->aux2[i];
                                break;
                        }
        }
        if (best == NULL)
                return false;
        *event = (size_t)AUX_EVENT(best);
        *out = best->value;
        return true;
}

int tpa_trace__add_flags(tpa_trace *tr, size_t event, unsigned flags, tpa_error *err)
{
        int64_t v = 0;

        tpa_trace_get_aux(tr, event, TPA_AUX_FLAGS, &v);
        return tpa_trace__set_aux(tr, event, TPA_AUX_FLAGS, v | (int64_t)flags, err);
}

/* ---- format, health, warnings ------------------------------------------- */

tpa_format tpa_trace_format(const tpa_trace *tr) { return tr->format; }
tpa_dialect tpa_trace_dialect(const tpa_trace *tr) { return tr->dialect; }
tpa_runtime tpa_trace_runtime(const tpa_trace *tr) { return tr->runtime; }

void tpa_trace__set_runtime(tpa_trace *tr, tpa_runtime r)
{
        if (tr->runtime == TPA_RUNTIME_UNKNOWN)
                tr->runtime = r;
}

void tpa_trace__add_facts(tpa_trace *tr, unsigned facts) { tr->facts |= facts; }
unsigned tpa_trace_facts(const tpa_trace *tr) { return tr->facts; }

const tpa_dist_info *tpa_trace_dist(const tpa_trace *tr) { return &tr->dist; }
tpa_dist_info *tpa_trace__dist_mut(tpa_trace *tr) { return &tr->dist; }

void tpa_trace__set_format(tpa_trace *tr, tpa_format f, tpa_dialect d)
{
        tr->format = f;
        tr->dialect = d;
}

/* ---- merged inputs ------------------------------------------------------ */

int tpa_trace__set_input(tpa_trace *tr, uint32_t process, uint32_t index,
                         const tpa_input_info *in, tpa_error *err)
{
        /* every input has a process of its own: an index far past the
         * processes seen is no merge's, and would cost memory for nothing */
        if (index >= TPA_TRACK_MAX || index > 2 * tr->proc_count + 16)
                return tpa_error_setf(err, TPA_ELIMIT, "merged input %u out of range", index);
        if (index >= tr->input_count) {
                if (grow((void **)&tr->inputs, &tr->input_cap, (size_t)index + 1,
                         sizeof(*tr->inputs), err) < 0)
                        return TPA_ENOMEM;
                for (size_t i = tr->input_count; i <= index; i++)
                        tr->inputs[i] = (tpa_input_info){ .name = TPA_STR_EMPTY,
                                                          .dist = TPA_DIST_INFO_INIT };
                tr->input_count = (size_t)index + 1;
        }
        if (tr->inputs[index].name == TPA_STR_EMPTY)
                tr->inputs[index] = *in;
        tr->procs[process].input = index + 1;
        return 0;
}

size_t tpa_trace_input_count(const tpa_trace *tr) { return tr->input_count; }

const tpa_input_info *tpa_trace_input(const tpa_trace *tr, size_t index)
{
        return index < tr->input_count ? &tr->inputs[index] : NULL;
}

/* Strings of `from` interned into `to` as they are met; map[id] is the id
 * in `to` + 1, 0 until then. */
static int copy_str(tpa_trace *to, const tpa_trace *from, uint32_t *map, tpa_str id,
                    tpa_str *out, tpa_error *err)
{
        if (map[id] == 0) {
                if (tpa_trace__intern(to, out, from->str_ptr[id], from->str_len[id], err) < 0)
                        return TPA_ENOMEM;
                map[id] = *out + 1;
        }
        *out = map[id] - 1;
        return 0;
}

static int copy_id(tpa_trace *to, const tpa_trace *from, uint32_t *map, tpa_id id,
                   tpa_id *out, tpa_error *err)
{
        *out = id;
        return id.str == TPA_STR_EMPTY ? 0 : copy_str(to, from, map, id.str, &out->str, err);
}

/* The extras of old event `i`, now event `at` of `to`: the entries of `aux`
 * and `aux2` are in (event, key) order, so each cursor walks its array once
 * over the whole split. */
static int copy_aux(tpa_trace *to, const tpa_trace *from, uint32_t *map, size_t i, size_t at,
                    size_t cur[2], tpa_error *err)
{
        const struct aux_entry *arr[2] = { from->aux, from->aux2 };
        size_t count[2] = { from->aux_count, from->aux2_count };

        for (int k = 0; k < 2; k++) {
                for (; cur[k] < count[k] && AUX_EVENT(&arr[k][cur[k]]) <= i; cur[k]++) {
                        const struct aux_entry *e = &arr[k][cur[k]];
                        int64_t v = e->value;
                        tpa_str s;

                        if (AUX_EVENT(e) < i)
                                continue;       /* an event of another input */
                        if ((AUX_KEY(e) == TPA_AUX_OP || AUX_KEY(e) == TPA_AUX_CAT) &&
                            v > 0 && (size_t)v < from->str_count) {
                                if (copy_str(to, from, map, (tpa_str)v, &s, err) < 0)
                                        return TPA_ENOMEM;
                                v = s;
                        }
                        if (tpa_trace__set_aux(to, at, AUX_KEY(e), v, err) < 0)
                                return TPA_ENOMEM;
                }
        }
        return 0;
}

static int split_into(tpa_trace *to, const tpa_trace *from, size_t index, uint32_t *str_map,
                      uint32_t *proc_map, uint32_t *thread_map, tpa_error *err)
{
        size_t cur[2] = { 0, 0 };

        to->format = from->format;
        to->dialect = from->dialect;
        to->runtime = from->runtime;
        to->facts = from->facts;
        to->dist = from->inputs[index].dist;
        for (size_t i = 0; i < from->proc_count; i++) {
                const tpa_process *p = &from->procs[i];
                tpa_process *q;
                tpa_id pid;
                uint32_t n;

                if (p->input != index + 1)
                        continue;
                if (copy_id(to, from, str_map, p->pid, &pid, err) < 0 ||
                    tpa_trace__get_process(to, &n, pid, err) < 0)
                        return err->code;
                q = &to->procs[n];
                if (copy_str(to, from, str_map, p->name, &q->name, err) < 0 ||
                    copy_str(to, from, str_map, p->label, &q->label, err) < 0)
                        return TPA_ENOMEM;
                q->sort_index = p->sort_index;
                q->device = p->device;
                q->role = p->role;
                proc_map[i] = n + 1;
        }
        for (size_t i = 0; i < from->thread_count; i++) {
                const tpa_thread *t = &from->threads[i];
                tpa_thread *u;
                tpa_id tid;
                uint32_t n;

                if (proc_map[t->process] == 0)
                        continue;
                if (copy_id(to, from, str_map, t->tid, &tid, err) < 0 ||
                    tpa_trace__get_thread(to, &n, proc_map[t->process] - 1, tid, err) < 0)
                        return err->code;
                u = &to->threads[n];
                if (copy_str(to, from, str_map, t->name, &u->name, err) < 0)
                        return TPA_ENOMEM;
                u->sort_index = t->sort_index;
                u->role = t->role;
                thread_map[i] = n + 1;
        }
        for (size_t i = 0; i < from->event_count; i++) {
                tpa_event ev = from->events[i];
                size_t at;

                if (thread_map[ev.track] == 0)
                        continue;
                ev.track = thread_map[ev.track] - 1;
                if (copy_str(to, from, str_map, ev.name, &ev.name, err) < 0 ||
                    tpa_trace__add_event(to, &ev, &at, err) < 0 ||
                    copy_aux(to, from, str_map, i, at, cur, err) < 0)
                        return err->code;
        }
        to->health = from->health;
        to->health.events_kept = to->event_count;
        for (size_t i = 0; i < from->warning_count; i++) {
                if (grow((void **)&to->warnings, &to->warning_cap, i + 1,
                         sizeof(*to->warnings), err) < 0)
                        return TPA_ENOMEM;
                to->warnings[i] = from->warnings[i];
                if (copy_str(to, from, str_map, from->warnings[i].file,
                             &to->warnings[i].file, err) < 0)
                        return TPA_ENOMEM;
                to->warning_count = i + 1;
        }
        return 0;
}

int tpa_trace_split_input(const tpa_trace *tr, size_t index, tpa_trace **out,
                          tpa_error *err)
{
        uint32_t *str_map = calloc(tr->str_count, sizeof(*str_map));
        uint32_t *proc_map = calloc(tr->proc_count + 1, sizeof(*proc_map));
        uint32_t *thread_map = calloc(tr->thread_count + 1, sizeof(*thread_map));
        tpa_trace *part = NULL;
        int rc;

        if (index >= tr->input_count)
                rc = tpa_error_setf(err, TPA_EINVAL, "no merged input %zu", index);
        else if (str_map == NULL || proc_map == NULL || thread_map == NULL)
                rc = tpa_error_oom(err);
        else if ((rc = tpa_trace_new(&part, err)) == 0)
                rc = split_into(part, tr, index, str_map, proc_map, thread_map, err);
        free(str_map);
        free(proc_map);
        free(thread_map);
        if (rc < 0) {
                tpa_trace_free(part);
                return rc;
        }
        *out = part;
        return 0;
}

/* The place of num in the sorted step numbers: the first not below it. */
static size_t step_num_at(const tpa_trace *tr, int64_t num)
{
        size_t lo = 0, hi = tr->step_num_count;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (tr->step_nums[mid] < num)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

int tpa_trace__step_number(tpa_trace *tr, int64_t num, int64_t *out, tpa_error *err)
{
        size_t n = tr->step_num_count, at;
        int rc;

        if (num < 0)
                num = (int64_t)n;
        at = step_num_at(tr, num);
        if (at < n && tr->step_nums[at] == num) {
                num = tr->step_nums[n - 1] + 1 > (int64_t)n ? tr->step_nums[n - 1] + 1
                                                           : (int64_t)n;
                at = step_num_at(tr, num);
        }
        if ((rc = grow((void **)&tr->step_nums, &tr->step_num_cap, n + 1,
                       sizeof(*tr->step_nums), err)) < 0)
                return rc;
        /* mostly the last: numbers come in order */
        memmove(tr->step_nums + at + 1, tr->step_nums + at, (n - at) * sizeof(*tr->step_nums));
        tr->step_nums[at] = num;
        tr->step_num_count = n + 1;
        *out = num;
        return 0;
}

size_t tpa_trace__step_numbers(const tpa_trace *tr) { return tr->step_num_count; }

tpa_health *tpa_trace__health(tpa_trace *tr) { return &tr->health; }
const tpa_health *tpa_trace_health_c(const tpa_trace *tr) { return &tr->health; }

int tpa_trace__warn(tpa_trace *tr, uint64_t offset, const char *fmt, ...)
{
        char msg[sizeof(((tpa_warning *)0)->msg)];
        tpa_warning *w;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        tpa_utf8__one_line(msg);               /* as tpa_error's */
        for (size_t i = 0; i < tr->warning_count; i++) {
                if (strcmp(tr->warnings[i].msg, msg) == 0) {
                        tr->warnings[i].count++;
                        return 0;
                }
        }
        /* Past 64 distinct messages, fold the rest into one. */
        if (tr->warning_count >= 64) {
                w = &tr->warnings[63];
                snprintf(w->msg, sizeof(w->msg), "other problems");
                w->count++;
                return 0;
        }
        if (grow((void **)&tr->warnings, &tr->warning_cap, tr->warning_count + 1, sizeof(*w),
                 NULL) < 0)
                return TPA_ENOMEM;
        w = &tr->warnings[tr->warning_count++];
        memset(w, 0, sizeof(*w));
        memcpy(w->msg, msg, sizeof(msg));
        w->count = 1;
        w->first_offset = offset;
        return 0;
}

size_t tpa_trace_warning_count(const tpa_trace *tr) { return tr->warning_count; }
const tpa_warning *tpa_trace_warning(const tpa_trace *tr, size_t i) { return &tr->warnings[i]; }

size_t tpa_trace_memory_bytes(const tpa_trace *tr)
{
        return tr->str_bytes + tr->str_cap * (sizeof(char *) + sizeof(uint32_t)) +
               tr->hash_cap * sizeof(uint32_t) + tr->proc_cap * sizeof(tpa_process) +
               tr->thread_cap * sizeof(tpa_thread) + tr->thread_hash_cap * sizeof(uint32_t) +
               tr->event_cap * sizeof(tpa_event) +
               (tr->aux_cap + tr->aux2_cap) * sizeof(struct aux_entry) +
               tr->aux_first_cap * sizeof(uint32_t) + tr->aux_keys_cap;
}
