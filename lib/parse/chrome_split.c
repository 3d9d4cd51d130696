/* SPDX-License-Identifier: MIT */
/*
 * chrome_split.c - the Chrome JSON reader's records read on two threads
 * ("two threads" below): segments, who collects them, and how their
 * records are added in stream order.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parse/chrome_scan.h"
#include "parse/chrome_split.h"

/*
 * yajl is three quarters of the reading thread's instructions, and one yajl
 * reads one byte after the other. So on a source with an inflating thread
 * of its own, the records of the events array are cut into segments that
 * two parsers read side by side, each with its own yajl: this thread's and
 * the inflating thread's. The filter marks in each chunk the first '{'
 * that opens a map where the events array's records are (n->cut); a
 * segment runs from one cut to the next, copied with its held commas
 * decided, so it is the bytes this thread's yajl would see. A collecting
 * parser reads it (from just after a '[' of its own) into a list of
 * records and the strings each would intern, never touching the trace;
 * this thread then adds the records in stream order
 * (tpa_chrome__add_collected()), interning as it goes, as if its own
 * parser had read them.
 *
 * On a source with no inflating thread (a small file on a machine of two
 * CPUs, any file on one), a trace of more than a MiB is cut into segments
 * too, and this thread alone collects each as it is closed: the scanner
 * reads them, which takes less than yajl (bench/: half the time).
 *
 * Who collects: every segment is queued. This thread takes one whenever
 * it would otherwise wait, for the next chunk (tpa_source__would_wait()) or
 * for a free slot, the head first, else the newest; the inflating thread
 * takes the oldest while it is far enough ahead, and after the stream's
 * last chunk, so the end of a read is on both threads too
 * (tpa_source__set_idle()).
 * Each has its own collecting parser. So the work goes to whichever of
 * the two is ahead, and each core has one thread busy. Speed, bench/: a worker thread of its own, which took the oldest
 * queued segment, made three threads for two cores; it was often waiting
 * for a segment to be queued, or was itself waited for while ready to run
 * but without a core, and both cores were busy a smaller part of the read.
 *
 * A segment whose parse fails for whatever reason (a syntax error, a bad
 * value, the events array ending in it, a cut that starts no record) is
 * read again, in its turn, by this thread's own parser from the same
 * bytes. That parser stands just after the ',' (or the '[') before the
 * segment, as it would have, so the events, warnings and errors, with
 * their offsets, are the ones one thread gives (the reader's result does
 * not depend on how the bytes are cut into chunks: test_chrome_json). It
 * goes on alone until it stands at such a place again.
 *
 * The bytes of a segment and its records are in memory until it is added:
 * at most SEGS segments are in flight; one that grows past TPA_CHROME_SEG_MAX bytes
 * (huge records) ends the splitting until the next cut, and one whose list
 * of records passes TPA_CHROME_SEG_MAX (many tiny records: "{}," is 3 bytes, its
 * entry 150) is read alone. So splitting adds at most 2 * SEGS * TPA_CHROME_SEG_MAX
 * (24 MiB) to what reading alone takes, whatever the input.
 */

#define SEGS          6

enum seg_state { SEG_OPEN, SEG_QUEUED, SEG_RUNNING, SEG_OK, SEG_FAILED, SEG_ALONE };

struct segment {
        /* its bytes, as yajl would see them: bytes.data is block + skip;
         * block is malloc'd, or a chunk's buffer the source let it keep */
        struct sbuf      bytes;
        char            *block;
        size_t           block_cap, skip;
        uint64_t         off;           /* stream offset of bytes.data[0] */
        struct tok_state snap, end;     /* token states before and after the bytes */
        struct sbuf      out;           /* the records collected */
        int              state;         /* enum seg_state; under the lock */
};

struct tpa_chrome_split {
        tpa_chrome_parser *p;           /* this thread's parser */
        tpa_source        *src;
        /* collecting: this thread's, the inflating thread's */
        tpa_chrome_parser *mine, *inflating;
        int                top;         /* p's, when the splitting started */
        uint32_t           events_depth;
        struct segment     seg[SEGS];
        uint64_t           head, tail;  /* the next to add; the open one */
        bool               splitting;
        bool               alone;       /* no inflating thread collects */
        bool               ready;       /* p stands where segment `head` starts */
        /* a ',' held at the end of the open segment's bytes */
        bool               comma;
        size_t             comma_idx;
        uint64_t           comma_at;
        struct tok_state   comma_tok;

        pthread_mutex_t    lock;
        pthread_cond_t     changed;
};

/* c where a segment starts, about to take a '[' of its own at the byte
 * before it, which enters the events array. */
static void collect_start(tpa_chrome_parser *c, const tpa_chrome_split *sp, struct segment *sg)
{
        c->err.code = TPA_OK;
        c->top = sp->top;
        c->events_depth = sp->events_depth;
        c->events_open = true;
        c->depth = sp->events_depth - 1;
        c->top_key = K_TRACE_EVENTS;
        c->key = K_NONE;
        c->in_event = c->in_args = c->in_meta = false;
        c->coll = &sg->out;
        c->rec = &c->own_rec;
        c->coll_lo = sg->bytes.data;
        c->coll_hi = sg->bytes.data + sg->bytes.len;
        sg->out.len = 0;
        c->fed = sg->off - 1;
}

/* Collect the records of `sg` with `c`: true when all of it parsed as
 * records (or other values) of the events array, up to a final ','. The
 * scanner reads it, or yajl where the scanner gives up. */
static bool collect_segment(tpa_chrome_parser *c, const tpa_chrome_split *sp, struct segment *sg)
{
        static const unsigned char open[1] = { '[' };
        const unsigned char *b = (const unsigned char *)sg->bytes.data;
        size_t n = sg->bytes.len;
        enum tpa_chrome_scan_result r;
        yajl_status st;
        bool ok;

        while (n > 0 && tpa_chrome__is_ws(b[n - 1]))
                n--;
        if (n == 0 || b[n - 1] != ',')
                return false;
        collect_start(c, sp, sg);
        c->scan_at = 1;
        if (!tpa_chrome__on_start_array(c))
                return false;
        c->fed = sg->off;
        r = tpa_chrome__scan_segment(c, b, sg->bytes.len);
        if (r != TPA_CHROME_SCAN_GIVE_UP)
                return r == TPA_CHROME_SCAN_OK && c->err.code == TPA_OK &&
                       c->depth == sp->events_depth && !c->in_event;

        c->yh = yajl_alloc(&tpa_chrome__callbacks, NULL, c);
        if (c->yh == NULL)
                return false;
        yajl_config(c->yh, yajl_allow_partial_values, 1);
        yajl_config(c->yh, yajl_dont_validate_strings, 1);
        collect_start(c, sp, sg);
        st = yajl_parse(c->yh, open, 1);
        c->fed = sg->off;
        if (st == yajl_status_ok)
                st = yajl_parse(c->yh, b, sg->bytes.len);
        ok = st == yajl_status_ok && c->err.code == TPA_OK && c->depth == sp->events_depth &&
             !c->in_event;
        yajl_free(c->yh);
        c->yh = NULL;
        return ok;
}

/* The oldest queued segment, under the lock, or NULL. */
static struct segment *seg_oldest(tpa_chrome_split *sp)
{
        for (uint64_t i = sp->head; i < sp->tail; i++)
                if (sp->seg[i % SEGS].state == SEG_QUEUED)
                        return &sp->seg[i % SEGS];
        return NULL;
}

/* The segment this thread should collect now, under the lock: segment
 * `head` when it is queued (it is added next), else the newest queued (the
 * inflating thread takes the oldest); NULL when none is queued. */
static struct segment *seg_to_help(tpa_chrome_split *sp)
{
        if (sp->head < sp->tail && sp->seg[sp->head % SEGS].state == SEG_QUEUED)
                return &sp->seg[sp->head % SEGS];
        for (uint64_t i = sp->tail; i > sp->head; i--)
                if (sp->seg[(i - 1) % SEGS].state == SEG_QUEUED)
                        return &sp->seg[(i - 1) % SEGS];
        return NULL;
}

/* Collect the segment `pick` chooses under the lock, with `c`, the calling
 * thread's own collecting parser: true if there was one. */
static bool seg_collect(tpa_chrome_split *sp, tpa_chrome_parser *c,
                        struct segment *(*pick)(tpa_chrome_split *))
{
        struct segment *sg;
        bool ok;

        pthread_mutex_lock(&sp->lock);
        if ((sg = pick(sp)) != NULL)
                sg->state = SEG_RUNNING;
        pthread_mutex_unlock(&sp->lock);
        if (sg == NULL)
                return false;
        ok = collect_segment(c, sp, sg);
        pthread_mutex_lock(&sp->lock);
        sg->state = ok ? SEG_OK : SEG_FAILED;
        pthread_cond_broadcast(&sp->changed);
        pthread_mutex_unlock(&sp->lock);
        return true;
}

/* p stands where a segment may start: in the events array, between
 * records, after `last` (the last byte that is not a space), a ',' or the
 * array's '['. */
static bool stands_ready(const tpa_chrome_parser *p, unsigned char last)
{
        return p->err.code == TPA_OK && !p->comma && !p->str_skip && p->events_open &&
               p->depth == p->events_depth && !p->in_event && (last == ',' || last == '[');
}

static unsigned char last_byte(const unsigned char *d, size_t from, size_t to)
{
        while (to > from && tpa_chrome__is_ws(d[to - 1]))
                to--;
        return to > from ? d[to - 1] : 0;
}

/* The token state before d[n->cut], from the note's before d[n->lead]. */
static struct tok_state cut_state(const unsigned char *d, const struct chunk_note *n,
                                  uint64_t base)
{
        struct tok_state t = n->tok;

        for (size_t q = n->lead; q < n->cut; q++)
                tpa_chrome__tok_step(&t, d[q], base + q);
        return t;
}

/* tpa_chrome__feed_filtered() on the part of a chunk with a cut before or from it
 * (such a chunk has no string skipped). */
static int feed_part(tpa_chrome_parser *p, const unsigned char *d, size_t len,
                     const struct chunk_note *n, uint64_t base, bool before, struct tok_state at)
{
        if (before) {
                if (p->comma) {
                        p->comma_ws += n->lead;
                        if (tpa_chrome__release_comma(p, n->resolve) < 0)
                                return p->err.code;
                }
                return tpa_chrome__parse_bytes(p, d + n->lead, n->cut - n->lead, n->tok, at);
        }
        if (tpa_chrome__parse_bytes(p, d + n->cut, n->tail - n->cut, at,
                                    n->tail < len ? n->tail_tok : n->end_tok) < 0)
                return p->err.code;
        tpa_chrome__hold_tail(p, n, base, len);
        return 0;
}

/* Room in sg's block for `more` bytes after its bytes. */
static int seg_room(tpa_chrome_split *sp, struct segment *sg, size_t more)
{
        if (tpa_chrome__grow((void **)&sg->block, &sg->block_cap,
                             sg->skip + sg->bytes.len + more, 1, &sp->p->scratch) < 0) {
                tpa_chrome__fail_code(sp->p, &sp->p->scratch);
                return sp->p->err.code;
        }
        sg->bytes.data = sg->block + sg->skip;
        return 0;
}

/* The empty open segment takes d[from..len) where it is, in the chunk's
 * buffer, which the source lets it keep: its old block goes to the source
 * in its place. Speed (bench/): a copy of every byte of the events array,
 * on the reading thread. False when the source cannot: copy then. */
static bool seg_adopt(tpa_chrome_split *sp, struct segment *sg, const unsigned char *d,
                      size_t from, size_t len)
{
        size_t cap = 0;
        uint8_t *buf = tpa_source__adopt(sp->src, (uint8_t *)sg->block, sg->block_cap, &cap);

        sg->block = (char *)buf;
        sg->block_cap = cap;
        if (buf == NULL)
                return false;
        sg->skip = (size_t)(d - buf) + from;
        sg->bytes.data = sg->block + sg->skip;
        sg->bytes.len = len - from;
        return true;
}

/* Chunk bytes d[from..to) onto the open segment: from 0 (a ',' held at the
 * open segment's end is decided) or the cut, to the cut or len. */
static int seg_append(tpa_chrome_split *sp, const unsigned char *d, size_t len,
                      const struct chunk_note *n, uint64_t base, size_t from, size_t to,
                      struct tok_state at)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];
        size_t was = sg->bytes.len;
        bool held_on = from == 0 && sp->comma && n->resolve == 0;

        /* alone, no ring's chunk buffer to keep: the block stays */
        if (!(was == 0 && to == len && from < len && !sp->alone &&
              seg_adopt(sp, sg, d, from, len))) {
                if (seg_room(sp, sg, to - from) < 0)
                        return sp->p->err.code;
                if (from == 0 && sp->comma && n->resolve != 0) {
                        sg->bytes.data[sp->comma_idx] = (char)n->resolve;
                        sp->comma = false;
                }
                memcpy(sg->bytes.data + was, d + from, to - from);
                sg->bytes.len = was + (to - from);
        }
        if (held_on)
                return 0;               /* spaces after the ',' still held */
        if (to < len) {
                sg->end = at;
        } else if (n->tail < len) {
                sp->comma = true;
                sp->comma_idx = was + (n->tail - from);
                sp->comma_at = base + n->tail;
                sp->comma_tok = n->tail_tok;
        } else {
                sg->end = n->end_tok;
        }
        return 0;
}

static void seg_open(tpa_chrome_split *sp, uint64_t off, struct tok_state snap)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];

        if (sp->alone && sp->tail > 0) {
                /* the segment before is added (seg_close() drains all):
                 * its memory serves again, one segment's, not SEGS' */
                struct segment *was = &sp->seg[(sp->tail - 1) % SEGS], t = *sg;
                sg->block = was->block;
                sg->block_cap = was->block_cap;
                sg->out = was->out;
                was->block = t.block;
                was->block_cap = t.block_cap;
                was->out = t.out;
        }
        sg->skip = 0;
        sg->bytes.data = sg->block;
        sg->bytes.len = 0;
        sg->off = off;
        sg->snap = snap;
        sg->state = SEG_OPEN;
}

/* Add segment `sg` (done) to the trace: its records when it was collected
 * and p stands ready, else p reads it. */
static int seg_add(tpa_chrome_split *sp, struct segment *sg)
{
        tpa_chrome_parser *p = sp->p;
        const unsigned char *b = (const unsigned char *)sg->bytes.data;
        size_t n = sg->bytes.len;

        if (sg->state == SEG_OK && sp->ready) {
                if (tpa_chrome__add_collected(p, &sg->out) < 0)
                        return p->err.code;
                p->fed = sg->off + n;
                p->tok_snap = sg->end;
                return 0;
        }
        if (sg->state == SEG_ALONE && sp->comma)
                n = sp->comma_idx;
        if (tpa_chrome__parse_bytes(p, b, n, sg->snap,
                                    sg->state == SEG_ALONE && sp->comma ? sp->comma_tok
                                                                        : sg->end) < 0)
                return p->err.code;
        if (sg->state == SEG_ALONE && sp->comma) {
                p->comma = true;
                p->comma_at = sp->comma_at;
                p->comma_ws = sg->bytes.len - n - 1;
                p->comma_tok = sp->comma_tok;
                sp->comma = false;
        }
        /* the next one's records are added only where p stands ready */
        sp->ready = stands_ready(p, last_byte(b, 0, n));
        return 0;
}

static bool seg_help(tpa_chrome_split *sp)
{
        return seg_collect(sp, sp->mine, seg_to_help);
}

/* The inflating thread's work while it is ahead (tpa_source__set_idle()). */
bool tpa_chrome__split_help_inflating(void *state)
{
        tpa_chrome_split *sp = state;

        return seg_collect(sp, sp->inflating, seg_oldest);
}

/* Wait until segment `head` is no longer the inflating thread's, or a
 * segment is queued for this thread to help with. */
static void seg_wait(tpa_chrome_split *sp)
{
        struct segment *h = &sp->seg[sp->head % SEGS];

        pthread_mutex_lock(&sp->lock);
        while (h->state == SEG_RUNNING && seg_to_help(sp) == NULL)
                pthread_cond_wait(&sp->changed, &sp->lock);
        pthread_mutex_unlock(&sp->lock);
}

/* Add the segments done, in order; with `all`, every one up to the open
 * one, helping with the queued ones and waiting for the inflating thread's. */
static int seg_drain(tpa_chrome_split *sp, bool all)
{
        while (sp->head < sp->tail) {
                struct segment *sg = &sp->seg[sp->head % SEGS];
                int r, st;

                pthread_mutex_lock(&sp->lock);
                st = sg->state;
                pthread_mutex_unlock(&sp->lock);
                if (st == SEG_QUEUED || st == SEG_RUNNING) {
                        if (!all)
                                return 0;
                        if (!seg_help(sp))
                                seg_wait(sp);
                        continue;
                }
                r = seg_add(sp, sg);
                pthread_mutex_lock(&sp->lock);
                sp->head++;
                pthread_mutex_unlock(&sp->lock);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The open segment is complete (it ends at a cut): queued (see "Who
 * collects" above); then the next one opens at the cut, in a free slot. */
static int seg_close(tpa_chrome_split *sp, uint64_t off, struct tok_state snap)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];

        pthread_mutex_lock(&sp->lock);
        sg->state = SEG_QUEUED;
        sp->tail++;
        pthread_cond_broadcast(&sp->changed);
        pthread_mutex_unlock(&sp->lock);
        /* what is done goes in now; the next one needs a free slot. Alone,
         * this thread reads it now, while its bytes are in the cache. */
        if (seg_drain(sp, sp->alone) < 0)
                return sp->p->err.code;
        while (sp->tail - sp->head == SEGS) {
                if (!seg_help(sp))
                        seg_wait(sp);
                if (seg_drain(sp, false) < 0)
                        return sp->p->err.code;
        }
        seg_open(sp, off, snap);
        return 0;
}

int tpa_chrome__split_meanwhile(tpa_chrome_split *sp, tpa_source *src)
{
        while (sp->splitting && tpa_source__would_wait(src) && seg_help(sp))
                if (seg_drain(sp, false) < 0)
                        return sp->p->err.code;
        return 0;
}

/* Stop splitting: the open segment is p's to read, after every other. */
static int seg_stop(tpa_chrome_split *sp)
{
        struct segment *sg = &sp->seg[sp->tail % SEGS];
        int r;

        sp->splitting = false;
        pthread_mutex_lock(&sp->lock);
        sg->state = SEG_ALONE;
        sp->tail++;
        pthread_mutex_unlock(&sp->lock);
        r = seg_drain(sp, true);
        sp->comma = false;
        return r;
}

/* Start splitting at the cut of this chunk: p has read up to it. */
static void seg_start(tpa_chrome_split *sp, uint64_t off, struct tok_state snap)
{
        sp->splitting = true;
        sp->ready = true;
        sp->top = sp->p->top;
        sp->events_depth = sp->p->events_depth;
        sp->comma = false;
        seg_open(sp, off, snap);
}

int tpa_chrome__split_chunk(tpa_chrome_split *sp, const unsigned char *d, size_t len,
                       const struct chunk_note *n)
{
        tpa_chrome_parser *p = sp->p;
        uint64_t base = p->in_off;
        struct tok_state at;
        int r;

        if (!sp->splitting) {
                if (n->cut == len || n->skip < len || p->str_skip)
                        return tpa_chrome__feed_filtered(p, d, len, n);
                at = cut_state(d, n, base);
                p->in_off = base + len;
                if (feed_part(p, d, len, n, base, true, at) < 0)
                        return p->err.code;
                if (stands_ready(p, last_byte(d, n->lead, n->cut))) {
                        seg_start(sp, base + n->cut, at);
                        return seg_append(sp, d, len, n, base, n->cut, len, at);
                }
                return feed_part(p, d, len, n, base, false, at);
        }
        if (n->skip < len || sp->seg[sp->tail % SEGS].bytes.len > TPA_CHROME_SEG_MAX) {
                r = seg_stop(sp);
                return r < 0 ? r : tpa_chrome__feed_filtered(p, d, len, n);
        }
        p->in_off = base + len;
        if (n->cut == len)
                return seg_append(sp, d, len, n, base, 0, len, n->end_tok);
        at = cut_state(d, n, base);
        if (seg_append(sp, d, len, n, base, 0, n->cut, at) < 0 ||
            seg_close(sp, base + n->cut, at) < 0 ||
            seg_append(sp, d, len, n, base, n->cut, len, at) < 0)
                return p->err.code;
        return 0;
}

void tpa_chrome__split_free(tpa_chrome_split *sp)
{
        if (sp == NULL)
                return;
        pthread_cond_destroy(&sp->changed);
        pthread_mutex_destroy(&sp->lock);
        for (unsigned i = 0; i < SEGS; i++) {
                free(sp->seg[i].block);
                free(sp->seg[i].out.data);
        }
        tpa_chrome__parser_free(sp->mine);
        tpa_chrome__parser_free(sp->inflating);
        free(sp);
}

tpa_chrome_split *tpa_chrome__split_new(tpa_chrome_parser *p, tpa_source *src,
                                        const tpa_read_options *opts)
{
        tpa_chrome_split *sp = calloc(1, sizeof(*sp));
        tpa_error e = TPA_ERROR_INIT;

        if (sp == NULL)
                return NULL;
        sp->p = p;
        sp->src = src;
        sp->alone = !tpa_source__threaded(src);
        if (pthread_mutex_init(&sp->lock, NULL) != 0) {
                free(sp);
                return NULL;
        }
        if (pthread_cond_init(&sp->changed, NULL) != 0) {
                pthread_mutex_destroy(&sp->lock);
                free(sp);
                return NULL;
        }
        if (tpa_chrome__parser_new(&sp->mine, p->tr, opts, &e) < 0 ||
            (!sp->alone && tpa_chrome__parser_new(&sp->inflating, p->tr, opts, &e) < 0)) {
                tpa_chrome__split_free(sp);
                return NULL;
        }
        /* collecting parsers make a yajl handle per segment */
        yajl_free(sp->mine->yh);
        sp->mine->yh = NULL;
        if (sp->inflating != NULL) {
                yajl_free(sp->inflating->yh);
                sp->inflating->yh = NULL;
        }
        return sp;
}

int tpa_chrome__split_end(tpa_chrome_split *sp)
{
        return sp->splitting && sp->p->err.code == TPA_OK ? seg_stop(sp) : 0;
}
