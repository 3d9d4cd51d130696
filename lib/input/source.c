/* SPDX-License-Identifier: MIT */
/*
 * source.c - bytes from a file, stdin or memory; gzip inflated as a stream.
 *
 * zlib's inflate() "will not automatically decode concatenated gzip streams"
 * (zlib.h), so on Z_STREAM_END with input left we inflateReset() and go on:
 * `cat a.gz b.gz` is valid gzip. A gzip stream cut short is not an error
 * here: the source ends, and tpa_source__truncated() says so.
 *
 * A member whose header is the common kind (deflate, no header CRC, all of
 * it in the buffer) goes to ISA-L when it is built in (TPA_HAVE_ISAL):
 * isal_inflate() reads the header, inflates and checks the trailer. It
 * decides nothing on bad or cut data (but one kind, below): when it fails,
 * or the input ends inside its member, the member is read again from its
 * first byte (the input is a regular file or memory; pipes never go to
 * ISA-L) by the exact path below, which drops the bytes ISA-L handed out
 * already and goes on from there, so every error and truncation is zlib's,
 * at zlib's offsets.
 * That path: the same kind of member read here and its deflate data
 * inflated by inflate.c, with zlib's bytes and errors (faster than zlib:
 * bench/bare_inflate --ours); its trailer is checked here too. Any other
 * member, and zlib-wrapped data, goes to zlib.
 *
 * The one kind: a dynamic block whose Huffman code does not fill its code
 * space (zlib: "invalid literal/lengths set" and the like, at the block's
 * header). ISA-L fails only when the data meets a code the block lacks,
 * so a member whose data never does is read whole, and its CRC-32 and
 * length vouch for the bytes. No writer we know of makes one; the fuzzer
 * made one (testdata/fuzz/gzip/crash-isal_incomplete_code).
 *
 * Threaded mode (doc/design.md section 10: inflate | parse): a second thread
 * inflates (or reads) into a ring of SLOTS chunk buffers and the caller's
 * thread takes them in order, so inflating and the transform overlap
 * parsing. It is used for gzip files of THREAD_MIN_GZIP bytes or more,
 * other files of THREAD_MIN bytes or more (the transform, when the reader
 * sets one, is work taken off the parsing thread either way), and pipes,
 * when the machine has more than one CPU;
 * and whenever opts->threaded is set (for gzip memory sources only then).
 * The thread starts at the first read (or transform, or idle work), not at
 * open: a peek before it is made on the caller's thread, and a sniff that
 * only peeks or a reader that maps the file starts none. The caller sees the
 * same bytes, offsets and errors as with one thread; only the inflating
 * thread touches the zlib state, the file and `raw` once it runs.
 *
 * A transform (tpa_source__set_transform) runs on the inflating thread on
 * each slot before it is handed over, under the rule that every byte is
 * transformed once and in stream order: the slots already filled when it is
 * set are transformed then, on the caller's thread, under the lock that the
 * inflating thread takes before it hands over a slot.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif
#include <unistd.h>
#include <zlib.h>
#ifdef TPA_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "input/crc32.h"
#include "input/inflate.h"
#include "input/source.h"

#define RAW_SIZE (256u * 1024u)
#define OUT_SIZE (1024u * 1024u)
/* Where bytes inflated again after a rewind go, to be dropped. */
#define DROP_SIZE (64u * 1024u)

/* Ring of inflated chunks: small enough that a chunk is still in the
 * shared cache when the parser reads it, enough of them that the inflater
 * rarely waits (the measurements are in the commit that set them). */
#define SLOT_SIZE (256u * 1024u)
#define SLOTS     8u
/* A slot's buffer has room past SLOT_SIZE, unused here: a caller that
 * keeps a chunk's buffer (tpa_source__adopt()) may append to it there. */
#define SLOT_CAP  (SLOT_SIZE + 64u * 1024u)
/* The inflating thread does the idle work (tpa_source__set_idle()) once
 * this many chunks wait for the reader, not only when all do: the reader
 * still has chunks to go on with, and the idle work's share is larger, so
 * both cores stay busy longer (bench/). */
#define IDLE_SLOTS (SLOTS / 2u)
/* Below these sizes a file is read on the caller's thread: starting a
 * thread costs more than it saves on small traces. Above them the Chrome
 * reader reads records on two threads with its scanner, which also takes
 * less CPU than yajl on one (bench/: even a trace of 81 KiB gzip'd). A gzip
 * file's size is of its compressed bytes, about a tenth of the JSON's. */
#define THREAD_MIN (256u * 1024u)
#define THREAD_MIN_GZIP (64u * 1024u)
/* The first read of a regular file of THREAD_MIN bytes or more: the sniff
 * needs two bytes and a peek a few KiB, and a reader that maps the file
 * (XSpace), or a sniff that only peeks (the CLI's look for a report), reads
 * no more; `raw`'s fresh pages and a copy of RAW_SIZE bytes went to waste
 * there (bench/). The reads after it take RAW_SIZE. */
#define FIRST_READ (16u * 1024u)

struct slot {
        uint8_t  *buf;          /* SLOT_CAP bytes or more */
        size_t    cap;
        size_t    len;
        bool      last;         /* the stream ends after this chunk */
        bool      truncated;    /* ... and it was cut short */
        uint64_t  garbage_at;   /* ... and this is s->garbage_at */
        int       rc;           /* < 0: inflating failed here; see err */
        uint64_t  bytes_in;     /* compressed bytes read when it was filled */
        tpa_error err;
        void     *note;         /* the transform's note on it */
};

struct ring {
        pthread_t       thread;
        pthread_mutex_t lock;
        pthread_cond_t  not_empty, not_full;
        struct slot     slots[SLOTS];
        unsigned        head, count;    /* head: the oldest filled slot */
        bool            stop;           /* the consumer is gone */
        bool            transforming;   /* the inflater is in the transform */
        bool            idling;         /* ... in the idle work */
        unsigned        prompts;        /* slots given back, idle work set: reasons to do it */
        uint64_t        w_offset;       /* inflater: bytes produced so far */
        /* consumer side */
        bool            have_cur;       /* slots[head] is being read */
        size_t          cur_pos;
        bool            handed_slot;    /* the last chunk handed out is in slots[head] */
        bool            done;           /* the last chunk was handed out */
        uint64_t        bytes_in;
        bool            truncated;
        uint64_t        garbage_at;
};

struct tpa_source {
        int            fd;              /* -1 for memory */
        bool           own_fd;
        const uint8_t *mem;             /* memory source */
        size_t         mem_size, mem_pos;

        uint8_t       *raw;             /* file bytes */
        size_t         raw_len, raw_pos;
        bool           raw_eof;
        uint64_t       bytes_in;

        bool           gzip;
        bool           z_ready;         /* inflateInit2 done */
        bool           z_member_done;   /* last inflate() hit Z_STREAM_END */
        z_stream       z;
        /* A member whose header has no CRC of its own gets its CRC-32
         * checked here, not by zlib (crc32.c takes a tenth of the time):
         * the CRC of its bytes inflated so far and the last 8 compressed
         * bytes consumed, its trailer once it ends. */
        bool           z_member_new;    /* no inflate() on this member yet */
        bool           z_own_check;
        uint32_t       z_crc;
        uint64_t       z_len;           /* bytes inflated in this member */
        uint8_t        z_trail[8];
        /* The member inflated by inflate.c instead (own_member): where its
         * deflate data starts in the file, and its trailer once reached. */
        tpa_inflate   *own;             /* made for the first such member */
        bool           own_member;
        bool           own_in_trailer;
        unsigned       own_trail_have;
        uint64_t       own_start;
        /* The member ISA-L inflates (isal_member), and how to read one again
         * from its first byte, member_in, when ISA-L cannot say what zlib
         * would: drop the next `drop` bytes inflated, handed out already. */
#ifdef TPA_HAVE_ISAL
        struct inflate_state *isal;     /* made for the first such member */
#endif
        bool           isal_member;
        bool           can_rewind;      /* memory, or a regular file */
        bool           rewound;         /* the next member_start() is a replay */
        off_t          fd_start;        /* file offset of the stream's first byte */
        uint64_t       member_in;
        uint64_t       drop;
        uint8_t       *drop_buf;

        uint8_t       *out;             /* inflated (or copied) bytes */
        size_t         out_pos, out_end;
        uint64_t       offset;          /* bytes handed out before out[out_pos] */
        bool           eof;
        bool           truncated;
        uint64_t       garbage_at;      /* tpa_source__garbage_at() */
        const tpa_read_options *opts;
        struct ring   *ring;            /* threaded mode; NULL: one thread */
        bool           ring_wanted;     /* ... once read: ring_begin() starts it */

        /* the transform; with a ring, fn is read and written under its lock */
        tpa_source_transform fn;
        void          *fn_state;
        /* work for the inflating thread while the ring is full; under its lock */
        tpa_source_idle idle_fn;
        void          *idle_state;
        size_t         note_size;
        void          *note;            /* for the chunks handed out of `out` */
        const void    *cur_note;        /* the last chunk's */

        /* tpa_source__read_whole()'s buffer: the file mapped (map_len > 0,
         * from map_base), else malloc'd */
        uint8_t       *whole;
        void          *map_base;
        size_t         map_len;
};

static int  ring_begin(tpa_source *s, tpa_error *err);
static void ring_stop(tpa_source *s);

static int fill_raw(tpa_source *s, tpa_error *err)
{
        ssize_t n;

        if (s->raw_pos < s->raw_len || s->raw_eof)
                return 0;
        if (s->fd < 0) {
                size_t left = s->mem_size - s->mem_pos;
                /* Memory sources hand out their bytes without a copy. */
                s->raw = (uint8_t *)(uintptr_t)(s->mem + s->mem_pos);
                s->raw_len = left;
                s->raw_pos = 0;
                s->mem_pos = s->mem_size;
                s->bytes_in += left;
                s->raw_eof = left == 0;
                return 0;
        }
        do
                n = read(s->fd, s->raw, RAW_SIZE);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return tpa_error_set_sys(err, errno, "cannot read");
        s->raw_len = (size_t)n;
        s->raw_pos = 0;
        s->raw_eof = n == 0;
        s->bytes_in += (uint64_t)n;
        return 0;
}

/* `first`: the bytes the first read may take, RAW_SIZE at most. */
static int sniff_gzip(tpa_source *s, size_t first, tpa_error *err)
{
        int r;

        /* Two bytes decide; a one-byte read at a time is fine for stdin. */
        while (s->raw_len - s->raw_pos < 2 && !s->raw_eof) {
                if (s->fd < 0) {
                        r = fill_raw(s, err);
                        if (r < 0)
                                return r;
                        break;
                }
                {
                        ssize_t n = read(s->fd, s->raw + s->raw_len, first - s->raw_len);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                return tpa_error_set_sys(err, errno, "cannot read");
                        s->raw_eof = n == 0;
                        s->raw_len += (size_t)n;
                        s->bytes_in += (uint64_t)n;
                }
        }
        s->gzip = s->raw_len - s->raw_pos >= 2 && s->raw[s->raw_pos] == 0x1f &&
                  s->raw[s->raw_pos + 1] == 0x8b;
        if (s->gzip) {
                memset(&s->z, 0, sizeof(s->z));
                if (inflateInit2(&s->z, 15 + 32) != Z_OK)
                        return tpa_error_oom(err);
                s->z_ready = true;
                s->z_member_new = true;
        }
        return 0;
}

static int init(tpa_source *s, const tpa_read_options *opts, size_t first, tpa_error *err)
{
        static const tpa_read_options defaults = TPA_READ_OPTIONS_INIT;

        s->opts = opts ? opts : &defaults;
        s->out = malloc(OUT_SIZE);
        if (s->fd >= 0)
                s->raw = malloc(RAW_SIZE);
        if (s->out == NULL || (s->fd >= 0 && s->raw == NULL))
                return tpa_error_oom(err);
        return sniff_gzip(s, first, err);
}

/* A regular file, whose bytes from *start (where the stream begins) can be
 * read again. */
static bool can_rewind(int fd, off_t *start)
{
        struct stat st;

        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
                return false;
        *start = lseek(fd, 0, SEEK_CUR);
        return *start >= 0;
}

/* The size of a regular file; -1 for anything else (a pipe has none). */
static off_t regular_size(int fd)
{
        struct stat st;

        return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
}

int tpa_source__open(tpa_source **out, const char *path, const tpa_read_options *opts,
                     tpa_error *err)
{
        tpa_source *s = calloc(1, sizeof(*s));
        off_t size;
        int r;

        if (s == NULL)
                return tpa_error_oom(err);
        if (strcmp(path, "-") == 0) {
                s->fd = STDIN_FILENO;
        } else {
                s->fd = open(path, O_RDONLY | O_CLOEXEC);
                if (s->fd < 0) {
                        r = tpa_error_set_sys(err, errno, "cannot open");
                        free(s);
                        return r;
                }
                s->own_fd = true;
        }
        s->can_rewind = can_rewind(s->fd, &s->fd_start);
        size = regular_size(s->fd);
        r = init(s, opts, size >= (off_t)THREAD_MIN ? FIRST_READ : RAW_SIZE, err);
        if (r == 0)
                s->ring_wanted = s->opts->threaded ||
                                 ((size < 0 || size >= (off_t)(s->gzip ? THREAD_MIN_GZIP
                                                                        : THREAD_MIN)) &&
                                  sysconf(_SC_NPROCESSORS_ONLN) > 1);
        if (r < 0) {
                tpa_source__free(s);
                return r;
        }
        *out = s;
        return 0;
}

int tpa_source__open_memory(tpa_source **out, const void *data, size_t size,
                            const tpa_read_options *opts, tpa_error *err)
{
        tpa_source *s = calloc(1, sizeof(*s));
        int r;

        if (s == NULL)
                return tpa_error_oom(err);
        s->fd = -1;
        s->mem = data;
        s->mem_size = size;
        s->can_rewind = true;
        r = fill_raw(s, err);
        if (r == 0)
                r = init(s, opts, RAW_SIZE, err);       /* (no read: fill_raw() took it all) */
        if (r == 0)
                s->ring_wanted = s->gzip && s->opts->threaded;
        if (r < 0) {
                tpa_source__free(s);
                return r;
        }
        *out = s;
        return 0;
}

void tpa_source__free(tpa_source *s)
{
        if (s == NULL)
                return;
        ring_stop(s);           /* first: the thread uses what follows */
        if (s->z_ready)
                inflateEnd(&s->z);
        tpa_inflate__free(s->own);
#ifdef TPA_HAVE_ISAL
        free(s->isal);
#endif
        free(s->drop_buf);
        if (s->map_len > 0)
                munmap(s->map_base, s->map_len);
        else
                free(s->whole);
        if (s->own_fd)
                close(s->fd);
        if (s->fd >= 0)
                free(s->raw);
        free(s->out);
        free(s->note);
        free(s);
}

/* The size of the gzip header h[0..n) (RFC 1952 2.3) when it is one
 * inflate.c takes: deflate, no FHCRC, no reserved flag (zlib's "unknown
 * header flags set"), and all of it at hand. Else 0: zlib reads it. */
static size_t own_header_size(const uint8_t *h, size_t n)
{
        size_t at = 10;
        const uint8_t *nul;

        if (n < at || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || (h[3] & 0xe2) != 0)
                return 0;
        if (h[3] & 0x04) {      /* FEXTRA: XLEN, then XLEN bytes */
                if (n - at < 2 || n - at - 2 < (size_t)(h[at] | h[at + 1] << 8))
                        return 0;
                at += 2 + (size_t)(h[at] | h[at + 1] << 8);
        }
        if (h[3] & 0x08) {      /* FNAME, zero-terminated */
                if ((nul = memchr(h + at, 0, n - at)) == NULL)
                        return 0;
                at = (size_t)(nul - h) + 1;
        }
        if (h[3] & 0x10) {      /* FCOMMENT, zero-terminated */
                if ((nul = memchr(h + at, 0, n - at)) == NULL)
                        return 0;
                at = (size_t)(nul - h) + 1;
        }
        return at;
}

/* Before a member's first byte: inflate.c's (its header read here), else
 * zlib's, with its check ours if the header's first 4 bytes say it has no
 * CRC of its own (else zlib checks it). */
static int member_start(tpa_source *s, tpa_error *err)
{
        const uint8_t *h = s->raw + s->raw_pos;
        size_t hsize = own_header_size(h, s->raw_len - s->raw_pos);
        bool replay = s->rewound;

        s->z_own_check = s->raw_len - s->raw_pos >= 4 && h[0] == 0x1f && h[1] == 0x8b &&
                         h[2] == 8 && !(h[3] & 0x02);  /* deflate, no FHCRC */
        s->z_crc = 0;
        s->z_len = 0;
        s->z_member_new = false;
        s->member_in = s->bytes_in - s->raw_len + s->raw_pos;
        s->rewound = false;
        s->isal_member = false;
#ifdef TPA_HAVE_ISAL
        if (hsize > 0 && s->can_rewind && !replay && !s->opts->builtin_inflate) {
                if (s->isal == NULL && (s->isal = malloc(sizeof(*s->isal))) == NULL)
                        return tpa_error_oom(err);
                isal_inflate_init(s->isal);
                s->isal->crc_flag = ISAL_GZIP;
                s->isal_member = true;
                s->own_member = false;
                return 0;
        }
#else
        (void)replay;
#endif
        s->own_member = hsize > 0;
        if (s->own_member) {
                if (s->own == NULL && (s->own = tpa_inflate__new()) == NULL)
                        return tpa_error_oom(err);
                tpa_inflate__reset(s->own);
                s->own_in_trailer = false;
                s->own_trail_have = 0;
                s->raw_pos += hsize;
                s->own_start = s->bytes_in - s->raw_len + s->raw_pos;
                return 0;
        }
        if (inflateValidate(&s->z, !s->z_own_check) != Z_OK)
                return tpa_error_setf(err, TPA_EINTERNAL, "inflateValidate failed");
        return 0;
}

/* `n` more compressed bytes consumed, ending at `end`. */
static void keep_trail(tpa_source *s, const uint8_t *end, size_t n)
{
        if (n >= sizeof(s->z_trail)) {
                memcpy(s->z_trail, end - sizeof(s->z_trail), sizeof(s->z_trail));
        } else if (n > 0) {
                memmove(s->z_trail, s->z_trail + n, sizeof(s->z_trail) - n);
                memcpy(s->z_trail + sizeof(s->z_trail) - n, end - n, n);
        }
}

static uint32_t le32(const uint8_t *b)
{
        return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
               (uint32_t)b[3] << 24;
}

/* The member ended: its trailer against what was inflated, with zlib's
 * words and at the places zlib names (after the CRC, after the length). */
static int member_check(tpa_source *s, uint64_t at, tpa_error *err)
{
        uint64_t consumed = s->bytes_in - s->raw_len + s->raw_pos;

        if (le32(s->z_trail) != s->z_crc)
                return tpa_error_set(err, TPA_EFORMAT, at,
                                     "gzip data is corrupt (%s, compressed byte %llu)",
                                     "incorrect data check",
                                     (unsigned long long)(consumed - 4));
        if (le32(s->z_trail + 4) != (uint32_t)s->z_len)
                return tpa_error_set(err, TPA_EFORMAT, at,
                                     "gzip data is corrupt (%s, compressed byte %llu)",
                                     "incorrect length check", (unsigned long long)consumed);
        return 0;
}

/* The member is inflate.c's: inflate from `raw` into out[*end..size), then
 * take its trailer, as much as `raw` holds; check it once all there. */
static int own_inflate(tpa_source *s, uint8_t *out, size_t *end, size_t size, uint64_t base,
                       tpa_error *err)
{
        size_t n;

        if (!s->own_in_trailer) {
                const uint8_t *in = s->raw + s->raw_pos;
                uint8_t *o = out + *end;
                int rc = tpa_inflate__run(s->own, &in, s->raw + s->raw_len, &o, out + size);

                n = (size_t)(o - (out + *end));
                s->z_crc = tpa_crc32__update(s->z_crc, out + *end, n);
                s->z_len += n;
                *end += n;
                s->raw_pos = (size_t)(in - s->raw);
                if (rc == TPA_INFLATE__BAD)
                        return tpa_error_set(err, TPA_EFORMAT, base + *end,
                                             "gzip data is corrupt (%s, compressed byte %llu)",
                                             tpa_inflate__msg(s->own),
                                             (unsigned long long)(s->own_start +
                                                                  tpa_inflate__error_at(s->own)));
                if (rc != TPA_INFLATE__END)
                        return 0;
                s->own_in_trailer = true;
        }
        n = sizeof(s->z_trail) - s->own_trail_have;
        if (n > s->raw_len - s->raw_pos)
                n = s->raw_len - s->raw_pos;
        memcpy(s->z_trail + s->own_trail_have, s->raw + s->raw_pos, n);
        s->raw_pos += n;
        s->own_trail_have += (unsigned)n;
        if (s->own_trail_have < sizeof(s->z_trail))
                return 0;
        s->z_member_done = true;
        return member_check(s, base + *end, err);
}

/* ISA-L could not finish the member: read it again from its first byte by
 * the exact path, dropping the `done` bytes ISA-L handed out. */
static int rewind_member(tpa_source *s, uint64_t done, tpa_error *err)
{
        if (s->drop_buf == NULL && (s->drop_buf = malloc(DROP_SIZE)) == NULL)
                return tpa_error_oom(err);
        if (s->fd < 0)
                s->mem_pos = (size_t)s->member_in;
        else if (lseek(s->fd, s->fd_start + (off_t)s->member_in, SEEK_SET) < 0)
                return tpa_error_set_sys(err, errno, "cannot seek");
        s->raw_len = s->raw_pos = 0;
        s->raw_eof = false;
        s->bytes_in = s->member_in;
        s->isal_member = false;
        s->rewound = true;
        s->z_member_new = true;
        s->drop = done;
        return 0;
}

#ifdef TPA_HAVE_ISAL
/* The member is ISA-L's: inflate from `raw` into out[*end..size). On bad
 * data (or none of it taken) the bytes of this call are dropped and the
 * member read again. */
static int isal_step(tpa_source *s, uint8_t *out, size_t *end, size_t size, tpa_error *err)
{
        struct inflate_state *st = s->isal;
        size_t n, left = s->raw_len - s->raw_pos;

        st->next_in = s->raw + s->raw_pos;
        st->avail_in = left < UINT32_MAX ? (uint32_t)left : UINT32_MAX;
        st->next_out = out + *end;
        st->avail_out = (uint32_t)(size - *end);
        if (isal_inflate(st) != ISAL_DECOMP_OK ||
            (st->next_in == s->raw + s->raw_pos && st->next_out == out + *end &&
             st->block_state != ISAL_BLOCK_FINISH))
                return rewind_member(s, s->z_len, err);
        n = (size_t)(st->next_out - (out + *end));
        *end += n;
        s->z_len += n;
        s->raw_pos = (size_t)(st->next_in - s->raw);
        if (st->block_state == ISAL_BLOCK_FINISH)
                s->z_member_done = true;
        return 0;
}
#else
static int isal_step(tpa_source *s, uint8_t *out, size_t *end, size_t size, tpa_error *err)
{
        (void)s, (void)out, (void)end, (void)size;
        assert(0);              /* no member is ISA-L's without it */
        return tpa_error_setf(err, TPA_EINTERNAL, "ISA-L is not built in");
}
#endif

/* The exact path: the member is inflate.c's or zlib's. */
static int exact_step(tpa_source *s, uint8_t *out, size_t *end, size_t size, uint64_t base,
                      tpa_error *err)
{
        size_t from, in_from;
        int r, zr;

        if (s->own_member)
                return own_inflate(s, out, end, size, base, err);
        from = *end;
        in_from = s->raw_pos;
        s->z.next_in = s->raw + s->raw_pos;
        s->z.avail_in = (uInt)(s->raw_len - s->raw_pos);
        s->z.next_out = out + *end;
        s->z.avail_out = (uInt)(size - *end);
        zr = inflate(&s->z, Z_NO_FLUSH);
        s->raw_pos = s->raw_len - s->z.avail_in;
        *end = size - s->z.avail_out;
        if (s->z_own_check) {
                s->z_crc = tpa_crc32__update(s->z_crc, out + from, *end - from);
                s->z_len += *end - from;
                keep_trail(s, s->raw + s->raw_pos, s->raw_pos - in_from);
        }
        if (zr == Z_STREAM_END) {
                s->z_member_done = true;
                if (s->z_own_check && (r = member_check(s, base + *end, err)) < 0)
                        return r;
        } else if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT) {
                return tpa_error_set(err, TPA_EFORMAT, base + *end,
                                     "gzip data is corrupt (%s, compressed byte %llu)",
                                     s->z.msg ? s->z.msg : "bad data",
                                     (unsigned long long)(s->bytes_in - s->raw_len +
                                                          s->raw_pos));
        } else if (zr == Z_MEM_ERROR) {
                return tpa_error_oom(err);
        } else if (zr == Z_BUF_ERROR && s->z.avail_out != 0 && s->z.avail_in != 0) {
                return tpa_error_set(err, TPA_EFORMAT, base + *end, "gzip data is corrupt");
        }
        return 0;
}

/* Inflate what `raw` holds of the member into out[*end..size), or into
 * the void while bytes handed out already come again after a rewind. */
static int member_step(tpa_source *s, uint8_t *out, size_t *end, size_t size, uint64_t base,
                       tpa_error *err)
{
        size_t n = 0;
        int r;

        if (s->isal_member)
                return isal_step(s, out, end, size, err);
        if (s->drop == 0)
                return exact_step(s, out, end, size, base, err);
        /* the bytes before base + *end */
        r = exact_step(s, s->drop_buf, &n, s->drop < DROP_SIZE ? s->drop : DROP_SIZE,
                       base + *end - s->drop, err);
        s->drop = s->z_member_done ? 0 : s->drop - n;
        return r;
}

/* Append inflated (or plain) bytes to out[*end..], up to `size`; `base` is
 * the stream offset of out[0], for messages. */
static int produce_into(tpa_source *s, uint8_t *out, size_t *end, size_t size, uint64_t base,
                        bool progress, tpa_error *err)
{
        int r;

        while (*end < size && !s->eof) {
                r = fill_raw(s, err);
                if (r < 0)
                        return r;
                if (!s->gzip) {
                        size_t n = s->raw_len - s->raw_pos;
                        if (n == 0) {
                                s->eof = true;
                                break;
                        }
                        if (n > size - *end)
                                n = size - *end;
                        memcpy(out + *end, s->raw + s->raw_pos, n);
                        s->raw_pos += n;
                        *end += n;
                        continue;
                }
                if (s->raw_pos == s->raw_len) {
                        size_t had = *end;
                        uint64_t drop = s->drop;
                        if (s->isal_member && !s->z_member_done) {
                                /* how far zlib gets is the exact path's to say */
                                if ((r = rewind_member(s, s->z_len, err)) < 0)
                                        return r;
                                continue;
                        }
                        if (!s->z_member_done && !s->z_member_new) {
                                /* the bits it holds may make bytes yet (it
                                 * stopped for want of room) */
                                if ((r = member_step(s, out, end, size, base, err)) < 0)
                                        return r;
                                if (*end > had || s->drop < drop || s->z_member_done)
                                        continue;
                        }
                        /* The file ended: fine between members, truncated inside one. */
                        s->eof = true;
                        s->truncated = !s->z_member_done;
                        break;
                }
                if (s->z_member_done &&
                    (s->raw[s->raw_pos] != 0x1f ||
                     (s->raw_len - s->raw_pos >= 2 && s->raw[s->raw_pos + 1] != 0x8b))) {
                        /* Bytes that begin no member (a copy padded with
                         * zeros, junk appended): the data ended, as gzip -d
                         * says ("trailing garbage ignored"); the reader
                         * warns. */
                        s->garbage_at = s->bytes_in - s->raw_len + s->raw_pos;
                        s->eof = true;
                        break;
                }
                if (s->z_member_done) {
                        /* Another member follows (cat a.gz b.gz). */
                        if (inflateReset(&s->z) != Z_OK)
                                return tpa_error_setf(err, TPA_EINTERNAL, "inflateReset failed");
                        s->z_member_done = false;
                        s->z_member_new = true;
                }
                if (s->z_member_new && (r = member_start(s, err)) < 0)
                        return r;
                if ((r = member_step(s, out, end, size, base, err)) < 0)
                        return r;
                if (progress && s->opts->progress != NULL)
                        s->opts->progress(s->opts->progress_ctx, s->bytes_in, base + *end);
        }
        return 0;
}

static int produce(tpa_source *s, tpa_error *err)
{
        return produce_into(s, s->out, &s->out_end, OUT_SIZE, s->offset, true, err);
}

/* ---- threaded mode: inflate | parse ------------------------------------ */

/* The idle work once, called and returning with the lock held: true if it
 * did something. */
static bool idle_once(tpa_source *s, struct ring *g)
{
        tpa_source_idle fn = s->idle_fn;
        void *state = s->idle_state;
        bool did;

        if (fn == NULL)
                return false;
        /* outside the lock, as the transform */
        g->idling = true;
        pthread_mutex_unlock(&g->lock);
        did = fn(state);
        pthread_mutex_lock(&g->lock);
        g->idling = false;
        pthread_cond_signal(&g->not_empty);
        return did;
}

/* After the last chunk the reader still has up to SLOTS of them to go, and
 * the idle work they bring (segments to parse, chrome_split.c): the thread
 * goes on with it until the reader stops the ring, so that the end of a
 * read is not one thread's alone. It calls it now, after each slot the
 * reader releases (the reader queues its work before it asks for the next
 * chunk) and when the work is set (a short stream may end before), again
 * while it does something; a wake-up without such a prompt calls nothing. */
static void idle_to_the_end(tpa_source *s, struct ring *g)
{
        pthread_mutex_lock(&g->lock);
        for (unsigned seen = g->prompts - 1u; !g->stop;) {
                if (g->prompts == seen) {
                        pthread_cond_wait(&g->not_full, &g->lock);
                        continue;
                }
                seen = g->prompts;
                while (idle_once(s, g) && !g->stop)
                        ;
        }
        pthread_mutex_unlock(&g->lock);
}

/* The inflating thread: fill free slots in order until the stream ends or
 * an error happens (recorded in the slot), then do the idle work to the
 * end; or until the consumer stops. The progress callback is not called
 * from here: it is the caller's, on its thread. */
static void *inflate_main(void *arg)
{
        tpa_source *s = arg;
        struct ring *g = s->ring;
        struct slot *sl;
        unsigned tail;

        for (;;) {
                pthread_mutex_lock(&g->lock);
                while (g->count >= IDLE_SLOTS && !g->stop) {
                        if (idle_once(s, g))
                                continue;       /* the ring may have emptied meanwhile */
                        if (g->count < SLOTS || g->stop)
                                break;                  /* no idle work: fill a slot */
                        pthread_cond_wait(&g->not_full, &g->lock);
                }
                if (g->stop) {
                        pthread_mutex_unlock(&g->lock);
                        return NULL;
                }
                tail = (g->head + g->count) % SLOTS;
                pthread_mutex_unlock(&g->lock);

                sl = &g->slots[tail];
                sl->len = 0;
                sl->rc = produce_into(s, sl->buf, &sl->len, SLOT_SIZE, g->w_offset, false,
                                      &sl->err);
                sl->last = sl->rc < 0 || s->eof;
                sl->truncated = s->truncated;
                sl->garbage_at = s->garbage_at;
                sl->bytes_in = s->bytes_in;
                g->w_offset += sl->len;

                pthread_mutex_lock(&g->lock);
                if (s->fn != NULL && sl->rc == 0 && sl->len > 0) {
                        /* outside the lock: the reader goes on taking slots */
                        tpa_source_transform fn = s->fn;
                        void *state = s->fn_state;
                        g->transforming = true;
                        pthread_mutex_unlock(&g->lock);
                        fn(state, sl->buf, sl->len, sl->note);
                        pthread_mutex_lock(&g->lock);
                        g->transforming = false;
                }
                g->count++;
                pthread_cond_signal(&g->not_empty);
                pthread_mutex_unlock(&g->lock);
                if (sl->last) {
                        idle_to_the_end(s, g);
                        return NULL;
                }
        }
}

static int ring_start(tpa_source *s, tpa_error *err)
{
        struct ring *g = calloc(1, sizeof(*g));
        unsigned i;

        if (g == NULL)
                return tpa_error_oom(err);
        for (i = 0; i < SLOTS; i++) {
                g->slots[i].buf = malloc(SLOT_CAP);
                g->slots[i].cap = SLOT_CAP;
                if (g->slots[i].buf == NULL)
                        goto nomem;
        }
        if (pthread_mutex_init(&g->lock, NULL) != 0)
                goto nomem;
        if (pthread_cond_init(&g->not_empty, NULL) != 0) {
                pthread_mutex_destroy(&g->lock);
                goto nomem;
        }
        if (pthread_cond_init(&g->not_full, NULL) != 0) {
                pthread_cond_destroy(&g->not_empty);
                pthread_mutex_destroy(&g->lock);
                goto nomem;
        }
        /* Bytes already inflated by the caller (peek before the start) stay
         * in `out` and are handed out first; the ring continues after them. */
        g->w_offset = s->offset + (s->out_end - s->out_pos);
        g->bytes_in = s->bytes_in;
        s->ring = g;
        if (pthread_create(&g->thread, NULL, inflate_main, s) != 0) {
                s->ring = NULL;
                pthread_cond_destroy(&g->not_full);
                pthread_cond_destroy(&g->not_empty);
                pthread_mutex_destroy(&g->lock);
                goto nomem;
        }
        return 0;
nomem:
        for (i = 0; i < SLOTS; i++)
                free(g->slots[i].buf);
        free(g);
        /* No thread: the caller's thread inflates, as for small inputs. */
        return 0;
}

static void ring_stop(tpa_source *s)
{
        struct ring *g = s->ring;

        if (g == NULL)
                return;
        pthread_mutex_lock(&g->lock);
        g->stop = true;
        pthread_cond_signal(&g->not_full);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->thread, NULL);
        pthread_cond_destroy(&g->not_full);
        pthread_cond_destroy(&g->not_empty);
        pthread_mutex_destroy(&g->lock);
        for (unsigned i = 0; i < SLOTS; i++) {
                free(g->slots[i].buf);
                free(g->slots[i].note);
        }
        free(g);
        s->ring = NULL;
}

/* The ring the source is to have, started now if not yet. */
static int ring_begin(tpa_source *s, tpa_error *err)
{
        if (!s->ring_wanted)
                return 0;
        s->ring_wanted = false;
        return ring_start(s, err);
}

/* Make slots[head] the current chunk, releasing the one read before.
 * Returns 1 with a chunk, 0 at the end, or an error from the inflater. */
static int ring_next(tpa_source *s, tpa_error *err)
{
        struct ring *g = s->ring;
        struct slot *sl;

        if (g->have_cur && g->slots[g->head].rc < 0) {
                sl = &g->slots[g->head];        /* failed: fail again, as zlib does */
                goto failed;
        }
        if (g->have_cur) {
                bool last = g->slots[g->head].last;
                pthread_mutex_lock(&g->lock);
                g->head = (g->head + 1) % SLOTS;
                g->count--;
                g->prompts++;
                pthread_cond_signal(&g->not_full);
                pthread_mutex_unlock(&g->lock);
                g->have_cur = false;
                if (last)
                        g->done = true;
        }
        if (g->done)
                return 0;
        pthread_mutex_lock(&g->lock);
        while (g->count == 0)
                pthread_cond_wait(&g->not_empty, &g->lock);
        pthread_mutex_unlock(&g->lock);
        sl = &g->slots[g->head];
        g->have_cur = true;
        g->cur_pos = 0;
        g->bytes_in = sl->bytes_in;
        if (sl->rc < 0)
                goto failed;
        if (sl->last) {
                g->truncated = sl->truncated;
                g->garbage_at = sl->garbage_at;
        }
        return 1;
failed:
        g->cur_pos = sl->len;           /* its bytes are never handed out */
        if (err != NULL) {
                const char *path = err->path;
                *err = sl->err;
                err->path = path;
        }
        return sl->rc;
}

static int ring_peek(tpa_source *s, const uint8_t **data, size_t *len, size_t want,
                     tpa_error *err)
{
        struct ring *g = s->ring;
        struct slot *sl;
        size_t n;
        int r;

        if (s->out_pos == s->out_end)
                s->out_pos = s->out_end = 0;
        sl = g->have_cur ? &g->slots[g->head] : NULL;
        if (s->out_pos == s->out_end && sl != NULL && sl->len - g->cur_pos >= want) {
                *data = sl->buf + g->cur_pos;
                *len = sl->len - g->cur_pos;
                return 0;
        }
        /* Gather `want` bytes in `out`: what it holds comes before the slots. */
        memmove(s->out, s->out + s->out_pos, s->out_end - s->out_pos);
        s->out_end -= s->out_pos;
        s->out_pos = 0;
        while (s->out_end < want) {
                sl = g->have_cur ? &g->slots[g->head] : NULL;
                if (sl == NULL || g->cur_pos == sl->len) {
                        r = ring_next(s, err);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                break;
                        continue;
                }
                n = sl->len - g->cur_pos;
                if (n > want - s->out_end)
                        n = want - s->out_end;
                memcpy(s->out + s->out_end, sl->buf + g->cur_pos, n);
                s->out_end += n;
                g->cur_pos += n;
        }
        *data = s->out;
        *len = s->out_end;
        return 0;
}

static int ring_read(tpa_source *s, const uint8_t **data, size_t *len, tpa_error *err)
{
        struct ring *g = s->ring;
        struct slot *sl;
        int r;

        g->handed_slot = false;
        if (s->out_pos < s->out_end) {          /* gathered by a peek */
                *data = s->out + s->out_pos;
                *len = s->out_end - s->out_pos;
                s->offset += *len;
                s->cur_note = s->note;  /* transformed when the transform was set */
                s->out_pos = s->out_end = 0;
                return 0;
        }
        for (;;) {
                sl = g->have_cur ? &g->slots[g->head] : NULL;
                if (sl != NULL && g->cur_pos < sl->len)
                        break;
                r = ring_next(s, err);
                if (r < 0)
                        return r;
                if (r == 0) {
                        *data = s->out;
                        *len = 0;
                        return 0;
                }
        }
        *data = sl->buf + g->cur_pos;
        *len = sl->len - g->cur_pos;
        s->offset += *len;
        g->cur_pos = sl->len;
        s->cur_note = sl->note;
        g->handed_slot = true;
        return 0;
}

uint8_t *tpa_source__adopt(tpa_source *s, uint8_t *spare, size_t spare_cap, size_t *cap)
{
        struct ring *g = s->ring;
        struct slot *sl;
        uint8_t *buf;

        if (g == NULL || !g->have_cur || !g->handed_slot) {
                free(spare);
                return NULL;
        }
        if (spare != NULL && spare_cap < SLOT_CAP) {
                free(spare);
                spare = NULL;
        }
        if (spare == NULL) {
                spare_cap = SLOT_CAP;
                if ((spare = malloc(spare_cap)) == NULL)
                        return NULL;
        }
        /* the inflater fills no slot the reader holds (it is released by
         * ring_next(), under the lock), so the swap needs none */
        sl = &g->slots[g->head];
        buf = sl->buf;
        *cap = sl->cap;
        sl->buf = spare;
        sl->cap = spare_cap;
        return buf;
}

int tpa_source__peek(tpa_source *s, const uint8_t **data, size_t *len, size_t want,
                     tpa_error *err)
{
        int r;

        if (want > OUT_SIZE)
                want = OUT_SIZE;
        if (s->fn != NULL)      /* its bytes would be seen before the transform */
                return tpa_error_setf(err, TPA_EINTERNAL, "peek after a transform is set");
        if (s->ring != NULL)
                return ring_peek(s, data, len, want, err);
        if (s->out_end - s->out_pos < want && !s->eof) {
                /* Slide the unread bytes to the front, then top up to
                 * `want` only: a ring goes on after them, and a peek that
                 * only sniffs (tpa_report_is_file() before every trace)
                 * would inflate a whole buffer for 512 bytes (speed). */
                memmove(s->out, s->out + s->out_pos, s->out_end - s->out_pos);
                s->out_end -= s->out_pos;
                s->out_pos = 0;
                r = produce_into(s, s->out, &s->out_end, want, s->offset, true, err);
                if (r < 0)
                        return r;
        }
        *data = s->out + s->out_pos;
        *len = s->out_end - s->out_pos;
        return 0;
}

int tpa_source__read(tpa_source *s, const uint8_t **data, size_t *len, tpa_error *err)
{
        int r;

        if (s->ring_wanted && (r = ring_begin(s, err)) < 0)
                return r;
        if (s->ring != NULL)
                return ring_read(s, data, len, err);
        if (s->out_pos == s->out_end) {
                s->out_pos = s->out_end = 0;
                r = produce(s, err);
                if (r < 0)
                        return r;
        }
        *data = s->out + s->out_pos;
        *len = s->out_end - s->out_pos;
        s->offset += *len;
        s->out_pos = s->out_end;
        if (s->fn != NULL && *len > 0) {
                s->fn(s->fn_state, s->out + (s->out_end - *len), *len, s->note);
                s->cur_note = s->note;
        }
        return 0;
}

/* The bytes inflated but not handed out when the transform is set: what a
 * peek gathered in `out`, the rest of the current slot, the slots filled. */
static void ring_transform_filled(tpa_source *s)
{
        struct ring *g = s->ring;
        unsigned k = 0;

        if (s->out_pos < s->out_end)
                s->fn(s->fn_state, s->out + s->out_pos, s->out_end - s->out_pos, s->note);
        if (g->have_cur) {
                struct slot *sl = &g->slots[g->head];
                if (sl->rc == 0 && g->cur_pos < sl->len)
                        s->fn(s->fn_state, sl->buf + g->cur_pos, sl->len - g->cur_pos,
                              sl->note);
                k = 1;
        }
        for (; k < g->count; k++) {
                struct slot *sl = &g->slots[(g->head + k) % SLOTS];
                if (sl->rc == 0 && sl->len > 0)
                        s->fn(s->fn_state, sl->buf, sl->len, sl->note);
        }
}

int tpa_source__set_transform(tpa_source *s, tpa_source_transform fn, void *state,
                              size_t note_size, tpa_error *err)
{
        struct ring *g;
        size_t size = note_size ? note_size : 1;
        int r;

        if (fn != NULL && s->ring_wanted && (r = ring_begin(s, err)) < 0)
                return r;
        g = s->ring;
        if (fn == NULL) {
                if (g != NULL) {
                        pthread_mutex_lock(&g->lock);
                        while (g->transforming)         /* it signals when done */
                                pthread_cond_wait(&g->not_empty, &g->lock);
                        s->fn = NULL;
                        pthread_mutex_unlock(&g->lock);
                } else {
                        s->fn = NULL;
                }
                s->cur_note = NULL;
                return 0;
        }
        if (s->fn != NULL)      /* only this thread writes it */
                return tpa_error_setf(err, TPA_EINTERNAL, "a transform is already set");
        if (s->note == NULL || s->note_size < note_size) {
                /* No transform is set, so the inflating thread leaves the
                 * slots' notes alone. */
                s->note_size = 0;
                free(s->note);
                if ((s->note = calloc(1, size)) == NULL)
                        return tpa_error_oom(err);
                for (unsigned i = 0; g != NULL && i < SLOTS; i++) {
                        free(g->slots[i].note);
                        if ((g->slots[i].note = calloc(1, size)) == NULL)
                                return tpa_error_oom(err);
                }
                s->note_size = note_size;
        }
        if (g == NULL) {
                s->fn = fn;
                s->fn_state = state;
                return 0;
        }
        pthread_mutex_lock(&g->lock);
        s->fn = fn;
        s->fn_state = state;
        ring_transform_filled(s);
        pthread_mutex_unlock(&g->lock);
        return 0;
}

const void *tpa_source__note(const tpa_source *s) { return s->cur_note; }

void tpa_source__set_idle(tpa_source *s, tpa_source_idle fn, void *state)
{
        struct ring *g;

        if (fn != NULL && s->ring_wanted)
                (void)ring_begin(s, NULL);      /* without it, no thread calls fn */
        g = s->ring;
        if (g == NULL)
                return;
        pthread_mutex_lock(&g->lock);
        while (fn == NULL && g->idling)         /* it signals when done */
                pthread_cond_wait(&g->not_empty, &g->lock);
        s->idle_fn = fn;
        s->idle_state = state;
        /* a thread already waiting for room (or, past the end, for a
         * prompt) would not see it until then */
        if (fn != NULL) {
                g->prompts++;
                pthread_cond_signal(&g->not_full);
        }
        pthread_mutex_unlock(&g->lock);
}

bool tpa_source__would_wait(tpa_source *s)
{
        struct ring *g = s->ring;
        const struct slot *sl;
        bool wait;

        if (g == NULL || s->out_pos < s->out_end || g->done)
                return false;
        sl = g->have_cur ? &g->slots[g->head] : NULL;
        if (sl != NULL && (g->cur_pos < sl->len || sl->rc < 0 || sl->last))
                return false;
        pthread_mutex_lock(&g->lock);
        wait = g->count <= (g->have_cur ? 1u : 0u);
        pthread_mutex_unlock(&g->lock);
        return wait;
}

int tpa_source__read_all(tpa_source *s, uint8_t **data, size_t *len, uint64_t max,
                         tpa_error *err)
{
        uint8_t *buf = NULL, *p;
        size_t used = 0, cap = 0;
        const uint8_t *chunk;
        size_t n;
        int r;

        for (;;) {
                r = tpa_source__read(s, &chunk, &n, err);
                if (r < 0)
                        goto fail;
                if (n == 0)
                        break;
                if (used + n > max) {
                        r = tpa_error_set(err, TPA_ELIMIT, s->offset,
                                          "input is larger than %llu bytes",
                                          (unsigned long long)max);
                        goto fail;
                }
                if (used + n > cap) {
                        cap = cap ? cap : 1u << 20;
                        while (cap < used + n)
                                cap *= 2;
                        p = realloc(buf, cap);
                        if (p == NULL) {
                                r = tpa_error_oom(err);
                                goto fail;
                        }
                        buf = p;
                }
                memcpy(buf + used, chunk, n);
                used += n;
        }
        if (buf == NULL && (buf = malloc(1)) == NULL)
                return tpa_error_oom(err);
        *data = buf;
        *len = used;
        return 0;
fail:
        free(buf);
        return r;
}

/* The file open as `fd` is on a local disk or in memory (Linux: the file
 * systems named here; elsewhere none is known to be). */
static bool local_fs(int fd)
{
#if defined(__linux__)
        static const unsigned long local[] = {
                0xEF53,         /* ext2, ext3, ext4 */
                0x58465342,     /* xfs */
                0x9123683E,     /* btrfs */
                0xF2F52010,     /* f2fs */
                0x2FC12FC1,     /* zfs */
                0x01021994,     /* tmpfs */
                0x794C7630,     /* overlayfs (containers) */
        };
        struct statfs sf;

        if (fstatfs(fd, &sf) != 0)
                return false;
        for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
                if ((unsigned long)sf.f_type == local[i])
                        return true;
        return false;
#else
        (void)fd;
        return false;
#endif
}

/* The rest of a regular file that is not gzip, mapped instead of read:
 * no copy, and no fresh pages to fault in and clear. False, with nothing
 * changed, when that does not apply or mmap() fails; read_all() then
 * reads it, and says what is wrong if anything is. With a progress
 * callback and no thread, reading calls it, so those are read too.
 * A file another process cuts short while it is mapped faults (SIGBUS) on
 * the pages past its new end, as git's and ripgrep's maps do; so does a
 * page that cannot be read, where read() would say EIO: so only files on
 * local disks and in memory are mapped (local_fs()), not those of network
 * and FUSE file systems (NFS, gcsfuse), where a failed read is no rarity. */
static bool map_rest(tpa_source *s, uint8_t **data, size_t *len, uint64_t max)
{
        struct stat st;
        off_t at, base;
        uint64_t left;
        long page = sysconf(_SC_PAGESIZE);
        void *map;

        if (s->fd < 0 || s->gzip || !s->can_rewind || s->fn != NULL || page <= 0 ||
            (s->ring == NULL && !s->ring_wanted && s->opts->progress != NULL))
                return false;
        if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < s->fd_start ||
            (uint64_t)(st.st_size - s->fd_start) <= s->offset || !local_fs(s->fd))
                return false;
        left = (uint64_t)(st.st_size - s->fd_start) - s->offset;
        if (left > max || left > SIZE_MAX - (size_t)page)
                return false;
        at = s->fd_start + (off_t)s->offset;
        base = at - at % page;
        /* private and writable: a reader may rewrite bytes in place
         * (tpa_pb__trim()), which then never reach the file */
        map = mmap(NULL, (size_t)left + (size_t)(at - base), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE, s->fd, base);
        if (map == MAP_FAILED)
                return false;
        ring_stop(s);           /* what it read ahead is in the map too */
        s->ring_wanted = false;
        s->map_base = map;
        s->map_len = (size_t)left + (size_t)(at - base);
        s->whole = (uint8_t *)map + (at - base);
        s->offset += left;
        s->bytes_in = (uint64_t)(st.st_size - s->fd_start);
        s->out_pos = s->out_end = 0;
        s->raw_pos = s->raw_len = 0;
        s->raw_eof = s->eof = true;
        *data = s->whole;
        *len = (size_t)left;
        return true;
}

int tpa_source__read_whole(tpa_source *s, uint8_t **data, size_t *len, uint64_t max,
                           tpa_error *err)
{
        int r;

        assert(s->whole == NULL);
        if (map_rest(s, data, len, max))
                return 0;
        r = tpa_source__read_all(s, &s->whole, len, max, err);
        if (r < 0)
                return r;
        *data = s->whole;
        return 0;
}

uint64_t tpa_source__offset(const tpa_source *s) { return s->offset; }
uint64_t tpa_source__bytes_in(const tpa_source *s)
{
        return s->ring != NULL ? s->ring->bytes_in : s->bytes_in;
}

bool tpa_source__is_gzip(const tpa_source *s) { return s->gzip; }
bool tpa_source__threaded(const tpa_source *s) { return s->ring != NULL || s->ring_wanted; }

bool tpa_source__truncated(const tpa_source *s)
{
        return s->ring != NULL ? s->ring->truncated : s->truncated;
}

uint64_t tpa_source__garbage_at(const tpa_source *s)
{
        return s->ring != NULL ? s->ring->garbage_at : s->garbage_at;
}
