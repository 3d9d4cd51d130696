/* SPDX-License-Identifier: MIT */
/*
 * chrome_record.c - what the Chrome JSON reader makes of the values yajl
 * (or the segment scanner) reports: the keys it acts on, each record
 * collected into one fixed struct and turned into a tpa_event when its '}'
 * arrives (doc/design.md section 3), B/E pairs matched, process and thread
 * names taken from M records. A collecting parser (chrome_split.c) writes
 * its records to a list instead, which tpa_chrome__add_collected() adds.
 *
 * Strings longer than max_string are an error (TPA_ELIMIT at the string),
 * not truncated: a 1 MiB name is a broken or hostile trace.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace_build.h"
#include "model/utf8.h"
#include "parse/chrome_parser.h"
#include "parse/classify.h"
#include "parse/json_scan.h"

/* |ts| and dur beyond 2^61 ns (73 years) are garbage; below it, every sum
 * and difference of two times fits in int64 (as in xspace.c). */
#define TIME_MAX (INT64_C(1) << 61)

/* ---- helpers ------------------------------------------------------------ */

#ifdef __GNUC__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

int tpa_chrome__fail(tpa_chrome_parser *p, int code, uint64_t offset, const char *fmt, ...)
{
        char msg[sizeof(p->err.msg)];
        va_list ap;

        if (p->err.code == TPA_OK) {
                va_start(ap, fmt);
                vsnprintf(msg, sizeof(msg), fmt, ap);
                va_end(ap);
                tpa_error_set(&p->err, code, offset, "%s", msg);
                if (p->in_event && p->coll == NULL)
                        p->err.event = tpa_trace_health_c(p->tr)->records_read + 1;
        }
        return 0;
}

/* The value of len <= 19 digits; false when a byte is no digit. Speed
 * (bench/): ids have 1 to 19 digits on every record; below 10^19 nothing
 * overflows, one test for all digits. */
static inline bool few_digits(const char *s, size_t len, uint64_t *out)
{
        unsigned bad = 0;
        uint64_t v = 0;

        for (size_t i = 0; i < len; i++) {
                unsigned d = (unsigned)(unsigned char)s[i] - '0';
                bad |= d > 9;
                v = v * 10 + d;
        }
        if (bad)
                return false;
        *out = v;
        return true;
}

/* A JSON integer's text to int64; false when it is not an integer or too big. */
static inline bool parse_i64(const char *s, size_t len, int64_t *out)
{
        bool neg = false;
        uint64_t v = 0;
        size_t i = 0;

        if (len > 0 && s[0] == '-') {
                neg = true;
                i = 1;
        }
        if (i == len)
                return false;
        if (len - i <= 18) {
                if (!few_digits(s + i, len - i, &v))
                        return false;
        } else {
                for (; i < len; i++) {
                        if (!tpa_chrome__is_digit(s[i]) || v > (UINT64_MAX - 9) / 10)
                                return false;
                        v = v * 10 + (uint64_t)(s[i] - '0');
                }
                if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
                        return false;
        }
        *out = neg ? (int64_t)(0 - v) : (int64_t)v;
        return true;
}

static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
        uint64_t v = 0;

        if (len == 0)
                return false;
        if (len <= 19)         /* group and correlation ids, on most records */
                return few_digits(s, len, out);
        for (size_t i = 0; i < len; i++) {
                if (!tpa_chrome__is_digit(s[i]) || v > (UINT64_MAX - 9) / 10)
                        return false;
                v = v * 10 + (uint64_t)(s[i] - '0');
        }
        *out = v;
        return true;
}

bool tpa_chrome__us_to_ns(const char *s, size_t len, tpa_ns *out)
{
        char digits[40];
        size_t nd = 0, i = 0;
        int64_t exp10 = 3;              /* microseconds to nanoseconds */
        bool neg = false, any = false;
        uint64_t v = 0;

        /* Speed (bench/): "[-]D.DDD", exactly three decimals, the form the
         * profilers write, each digit checked once. Up to 16 digits before
         * the point (microseconds since 1970 have 16), so 19 in all: no
         * uint64_t overflow; past INT64_MAX, the general path says no. */
        if (len >= 5 && s[len - 4] == '.') {
                size_t k = s[0] == '-' ? 1 : 0, end = len - 4;
                uint64_t w = 0;
                unsigned d;

                if (k < end && end - k <= 16) {
                        if (end - k >= 8 && tpa_json__digits8((const unsigned char *)s + k) == 8) {
                                w = tpa_json__value8((const unsigned char *)s + k);
                                k += 8;
                        }
                        for (; k < end && (d = (unsigned)(unsigned char)s[k] - '0') <= 9; k++)
                                w = w * 10 + d;
                        if (k == end) {
                                for (k++; k < len && (d = (unsigned)(unsigned char)s[k] - '0') <= 9;
                                     k++)
                                        w = w * 10 + d;
                                if (k == len && w <= (uint64_t)INT64_MAX) {
                                        *out = s[0] == '-' ? -(int64_t)w : (int64_t)w;
                                        return true;
                                }
                        }
                }
        }
        /* Speed (bench/): "[-]D.FFF", the usual form (1 to 16 digits before
         * the point, at most 3 after it: Kineto's integer microseconds
         * since 1970 have 16), exactly, without the general path below: no
         * digit is dropped, so nothing rounds. */
        {
                size_t k = len > 0 && s[0] == '-' ? 1 : 0, d0 = k, nf = 0;
                uint64_t w = 0;

                /* 8 digits at a time while 8 are there */
                while (len - k >= 8 && k - d0 <= 8 &&
                       tpa_json__digits8((const unsigned char *)s + k) == 8) {
                        w = w * 100000000u + tpa_json__value8((const unsigned char *)s + k);
                        k += 8;
                }
                while (k < len && k - d0 < 16 && tpa_chrome__is_digit(s[k]))
                        w = w * 10 + (uint64_t)(s[k++] - '0');
                if (k > d0 && (k == len || (s[k] == '.' && len - k <= 4))) {
                        if (k < len)
                                for (k++; k < len && tpa_chrome__is_digit(s[k]); k++, nf++)
                                        w = w * 10 + (uint64_t)(s[k] - '0');
                        if (k == len) {
                                for (; nf < 3; nf++)
                                        w *= 10;
                                if (w <= (uint64_t)INT64_MAX) {
                                        *out = d0 ? -(int64_t)w : (int64_t)w;
                                        return true;
                                }
                        }
                }
        }

        if (i < len && (s[i] == '-' || s[i] == '+'))
                neg = s[i++] == '-';
        for (; i < len && tpa_chrome__is_digit(s[i]); i++) {
                any = true;
                if (nd == 0 && s[i] == '0')
                        continue;       /* leading zeros */
                if (nd >= sizeof(digits))
                        return false;
                digits[nd++] = s[i];
        }
        if (i < len && s[i] == '.') {
                for (i++; i < len && tpa_chrome__is_digit(s[i]); i++) {
                        any = true;
                        if (nd == 0 && s[i] == '0') {
                                exp10--;
                                continue;
                        }
                        if (nd < sizeof(digits)) {
                                digits[nd++] = s[i];
                                exp10--;
                        } else if (nd == sizeof(digits)) {
                                /* far below a nanosecond: only rounding can see it */
                                continue;
                        }
                }
        }
        if (!any)
                return false;
        if (i < len && (s[i] == 'e' || s[i] == 'E')) {
                bool eneg = false;
                int64_t e = 0;
                i++;
                if (i < len && (s[i] == '-' || s[i] == '+'))
                        eneg = s[i++] == '-';
                if (i == len)
                        return false;
                for (; i < len && tpa_chrome__is_digit(s[i]); i++)
                        if (e < 100000)
                                e = e * 10 + (s[i] - '0');
                exp10 += eneg ? -e : e;
        }
        if (i != len)
                return false;
        /* value = digits * 10^exp10 nanoseconds */
        if (exp10 >= 0) {
                for (size_t k = 0; k < nd; k++) {
                        if (v > (UINT64_MAX - 9) / 10)
                                return false;
                        v = v * 10 + (uint64_t)(digits[k] - '0');
                }
                for (int64_t k = 0; k < exp10 && v != 0; k++) {
                        if (v > UINT64_MAX / 10)
                                return false;
                        v *= 10;
                }
        } else {
                int64_t keep = (int64_t)nd + exp10;     /* digits left of the point */
                for (int64_t k = 0; k < keep; k++) {
                        if (v > (UINT64_MAX - 9) / 10)
                                return false;
                        v = v * 10 + (uint64_t)(digits[k] - '0');
                }
                /* round half away from zero on the first dropped digit */
                if (keep >= 0 && (size_t)keep < nd && digits[keep] >= '5')
                        v++;
        }
        if (v > (uint64_t)INT64_MAX)
                return false;
        *out = neg ? -(int64_t)v : (int64_t)v;
        return true;
}

static int sbuf_set(tpa_chrome_parser *p, struct sbuf *b, const char *s, size_t len)
{
        tpa_error *e = &p->scratch;

        if (tpa_chrome__grow((void **)&b->data, &b->cap, len + 1, 1, e) < 0)
                return tpa_chrome__fail_code(p, e);
        memcpy(b->data, s, len);
        b->len = len;
        b->set = true;
        return 1;
}

/* a[0..len) and b[0..len) are the same bytes: inline, a word at a time
 * for the first and last 8 (speed, bench/: a call of memcmp() was most of
 * a hit's cost on short names). */
static inline bool same_bytes(const char *a, const char *b, size_t len)
{
        uint64_t x, y, u, v;

        if (len < 8) {
                for (size_t i = 0; i < len; i++)
                        if (a[i] != b[i])
                                return false;
                return true;
        }
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&u, a + len - 8, 8);
        memcpy(&v, b + len - 8, 8);
        return x == y && u == v && (len <= 16 || memcmp(a + 8, b + 8, len - 16) == 0);
}

/* intern_hashed() for a string not in its set of the cache: interned,
 * and kept there as the newer. Out of line, so that a hit pays for none of
 * its registers (speed, bench/). */
static NOINLINE int intern_miss(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len,
                                struct name_memo *set)
{
        tpa_error *e = &p->scratch;

        if (tpa_utf8__intern(p->tr, out, s, len, p->rec->offset, e) < 0)
                return tpa_chrome__fail_code(p, e);
        len = tpa_trace_str_len(p->tr, *out);
        if (len > UINT32_MAX)
                return 1;               /* not kept: its length would not fit */
        set[1] = set[0];
        set[0].s = tpa_trace_str(p->tr, *out);
        set[0].len = (uint32_t)len;
        set[0].id = *out;
        return 1;
}

/* intern() once the string's hash x is known. */
static inline int intern_hashed(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len,
                                uint64_t x)
{
        struct name_memo *set;

        x ^= x >> 29;
        set = &p->names[(size_t)(x * UINT64_C(0xff51afd7ed558ccd) >> 40) &
                        (TPA_CHROME_NAME_CACHE - 2)];
        /* Two ways: the names that still share both ends come in pairs
         * ("winogradForwardOutput4x4"/"...Filter4x4", "_4:_Recv"/"_5:_Recv");
         * the newer goes first. A string stored repaired (invalid UTF-8)
         * never equals its input, so it goes the long way each time and is
         * counted each time. */
        for (int w = 0; w < 2; w++) {
                if (set[w].len == len && same_bytes(set[w].s, s, len)) {
                        *out = set[w].id;
                        return 1;
                }
        }
        return intern_miss(p, out, s, len, set);
}

static int intern(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len)
{
        uint64_t head = 0, tail = 0;

        if (p->coll != NULL)
                return tpa_chrome__collect_str(p, out, s, len);
        /* Kernel names share long prefixes (Eigen templates): both ends,
         * mixed so that every bit of them moves the set. */
        if (len >= 8) {
                memcpy(&head, s, 8);
                memcpy(&tail, s + len - 8, 8);
        } else if (len > 0) {
                memcpy(&head, s, len);
        }
        return intern_hashed(p, out, s, len,
                             (head ^ len) * UINT64_C(0x9e3779b97f4a7c15) ^
                                     tail * UINT64_C(0xc2b2ae3d27d4eb4f));
}

/* intern() for an op's name, an annotation's prefix: ops of one model
 * share both ends and the length ("model_1/dense_15/BiasAdd",
 * "model_1/dense_16/BiasAdd"), so every 8 bytes of the first 64 are
 * hashed (speed, bench/: with both ends alone, such names took turns in
 * one set of the cache, a miss each time). */
static int intern_op(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len)
{
        uint64_t x = len * UINT64_C(0x9e3779b97f4a7c15), w = 0;
        size_t k;

        assert(p->coll == NULL);
        for (k = 0; k + 8 <= len && k < 64; k += 8) {
                memcpy(&w, s + k, 8);
                x = (x ^ w) * UINT64_C(0xc2b2ae3d27d4eb4f);
        }
        if (k < len) {
                w = 0;
                if (len >= 8)
                        memcpy(&w, s + len - 8, 8);
                else
                        memcpy(&w, s, len);
                x ^= w * UINT64_C(0x165667b19e3779f9);
        }
        return intern_hashed(p, out, s, len, x);
}

/* A pid or tid given as a number's text or a string: digits are a number,
 * anything else ("stream 7", "Traces") an interned string. */
static int set_id(tpa_chrome_parser *p, tpa_id *id, const char *s, size_t len)
{
        id->num = 0;
        id->str = TPA_STR_EMPTY;
        if (parse_i64(s, len, &id->num))
                return 1;
        if (len == 0) {
                id->num = TPA_ID_EMPTY_STRING;
                return 1;
        }
        return intern(p, &id->str, s, len);
}

enum key tpa_chrome__event_key(const char *k, size_t len)
{
        switch (len) {
        case 2:
                if (memcmp(k, "ph", 2) == 0) return K_PH;
                if (memcmp(k, "ts", 2) == 0) return K_TS;
                break;
        case 3:
                if (memcmp(k, "pid", 3) == 0) return K_PID;
                if (memcmp(k, "tid", 3) == 0) return K_TID;
                if (memcmp(k, "cat", 3) == 0) return K_CAT;
                if (memcmp(k, "dur", 3) == 0) return K_DUR;
                break;
        case 4:
                if (memcmp(k, "name", 4) == 0) return K_NAME;
                if (memcmp(k, "args", 4) == 0) return K_ARGS;
                break;
        }
        return K_NONE;
}

enum key tpa_chrome__args_key(const char *k, size_t len)
{
        switch (len) {
        case 4:
                if (memcmp(k, "name", 4) == 0) return A_NAME;
                if (memcmp(k, "rank", 4) == 0) return A_RANK;
                break;
        case 5:
                if (memcmp(k, "bytes", 5) == 0) return A_BYTES;
                if (memcmp(k, "tf_op", 5) == 0) return A_ANNOTATION;
                break;
        case 6:
                if (memcmp(k, "labels", 6) == 0) return A_LABELS;
                break;
        case 7:
                if (memcmp(k, "backend", 7) == 0) return A_BACKEND;
                break;
        case 8:
                if (memcmp(k, "group_id", 8) == 0) return A_GROUP_ID;
                if (memcmp(k, "step_num", 8) == 0) return A_STEP_NUM;
                if (memcmp(k, "iter_num", 8) == 0) return A_STEP_NUM;
                break;
        case 9:
                if (memcmp(k, "num_bytes", 9) == 0) return A_BYTES;
                break;
        case 10:
                if (memcmp(k, "sort_index", 10) == 0) return A_SORT_INDEX;
                if (memcmp(k, "annotation", 10) == 0) return A_ANNOTATION;
                if (memcmp(k, "world_size", 10) == 0) return A_WORLD_SIZE;
                break;
        case 11:
                if (memcmp(k, "correlation", 11) == 0) return A_CORR;
                break;
        case 14:
                if (memcmp(k, "correlation_id", 14) == 0) return A_CORR;
                if (memcmp(k, "memcpy_details", 14) == 0) return A_MEMCPY_DETAILS;
                break;
        case 16:
                if (memcmp(k, "tf_function_call", 16) == 0) return A_TF_FUNCTION_CALL;
                break;
        }
        return K_NONE;
}

static enum key top_key(const char *k, size_t len)
{
        static const char *const kineto[] = {
                "schemaVersion", "deviceProperties", "distributedInfo", "traceName",
                "cupti_version", "cuda_runtime_version",
        };

        if (len == 11 && memcmp(k, "traceEvents", 11) == 0)
                return K_TRACE_EVENTS;
        if (len == 8 && memcmp(k, "metadata", 8) == 0)
                return K_METADATA;
        if (len == 15 && memcmp(k, "distributedInfo", 15) == 0)
                return K_DIST;
        if (len == 6 && memcmp(k, "schema", 6) == 0)
                return K_SCHEMA;
        if (len == 19 && memcmp(k, "baseTimeNanoseconds", 19) == 0)
                return K_BASE_TIME;
        for (size_t i = 0; i < sizeof(kineto) / sizeof(kineto[0]); i++)
                if (strlen(kineto[i]) == len && memcmp(k, kineto[i], len) == 0)
                        return K_KINETO;
        return K_NONE;
}

static bool at_event_level(const tpa_chrome_parser *p)
{
        return p->in_event && p->depth == p->ev_depth;
}

/* Directly inside Kineto's top-level "distributedInfo" object. */
static bool in_dist_info(const tpa_chrome_parser *p)
{
        return !p->in_event && p->top == '{' && p->depth == 2 && p->top_key == K_DIST;
}

/* Kineto's "distributedInfo": {"backend": "gloo", "rank": 0,
 * "world_size": 2, ...}; the first value read wins. */
static void set_dist(tpa_chrome_parser *p, const char *s, size_t len, bool quoted)
{
        tpa_dist_info *d = tpa_trace__dist_mut(p->tr);
        int64_t v = 0;
        size_t i;

        if (p->key == D_BACKEND && quoted && d->backend[0] == '\0') {
                len = len < sizeof(d->backend) - 1 ? len : sizeof(d->backend) - 1;
                memcpy(d->backend, s, len);
                d->backend[len] = '\0';
                return;
        }
        if (p->key != D_RANK && p->key != D_WORLD_SIZE)
                return;
        for (i = 0; i < len && i < 12 && s[i] >= '0' && s[i] <= '9'; i++)
                v = v * 10 + (s[i] - '0');
        if (i == 0 || i != len)
                return;                 /* not a small non-negative integer */
        if (p->key == D_RANK && d->rank < 0)
                d->rank = v;
        else if (p->key == D_WORLD_SIZE && d->world_size < 0)
                d->world_size = v;
}

static bool at_args_level(const tpa_chrome_parser *p)
{
        return p->in_event && p->in_args && p->depth == p->ev_depth + 1;
}

/* ---- values ------------------------------------------------------------- */

/* 'ts' or 'dur' (p->key) of `ns` nanoseconds, its text at stream offset
 * `at`: false (an error) when it is out of range. */
int tpa_chrome__event_time(tpa_chrome_parser *p, tpa_ns ns, uint64_t at)
{
        struct record *r = p->rec;

        if (p->key == K_TS) {
                if (ns < -TIME_MAX || ns > TIME_MAX)
                        return tpa_chrome__fail(p, TPA_EFORMAT, at, "'%s' is out of range",
                                                "ts");
                r->ts = ns;
                r->has_ts = true;
        } else {
                if (ns > TIME_MAX)
                        return tpa_chrome__fail(p, TPA_EFORMAT, at, "'%s' is out of range",
                                                "dur");
                r->dur = ns;
                r->has_dur = true;
                r->dur_offset = at;
        }
        return 1;
}

/* 'pid' or 'tid' (p->key) given as the integer v. */
void tpa_chrome__event_id(tpa_chrome_parser *p, int64_t v)
{
        struct record *r = p->rec;
        tpa_id *id = p->key == K_PID ? &r->pid : &r->tid;

        id->num = v;
        id->str = TPA_STR_EMPTY;
}

/* A number or a number-like string for event key p->key, its text at
 * stream offset `at`. */
int tpa_chrome__event_scalar(tpa_chrome_parser *p, const char *s, size_t len, uint64_t at)
{
        struct record *r = p->rec;
        tpa_ns ns;

        switch (p->key) {
        case K_TS:
        case K_DUR:
                if (!tpa_chrome__us_to_ns(s, len, &ns))
                        return tpa_chrome__fail(p, TPA_EFORMAT, at,
                                                "'%s' is not a number of microseconds",
                                                p->key == K_TS ? "ts" : "dur");
                return tpa_chrome__event_time(p, ns, at);
        case K_PID:
                return set_id(p, &r->pid, s, len);
        case K_TID:
                return set_id(p, &r->tid, s, len);
        default:
                break;
        }
        return 1;
}

/* A number or a number-like string for args key p->key. */
void tpa_chrome__args_scalar(tpa_chrome_parser *p, const char *s, size_t len)
{
        struct record *r = p->rec;

        switch (p->key) {
        case A_SORT_INDEX:
                r->has_sort_index = parse_i64(s, len, &r->sort_index);
                break;
        case A_RANK:
                r->has_rank = parse_i64(s, len, &r->rank);
                break;
        case A_WORLD_SIZE:
                r->has_world_size = parse_i64(s, len, &r->world_size);
                break;
        case A_GROUP_ID:
                r->has_group = parse_u64(s, len, &r->group);
                break;
        case A_STEP_NUM:
                r->has_step = parse_i64(s, len, &r->step);
                break;
        case A_CORR:
                r->has_corr = parse_u64(s, len, &r->corr);
                break;
        case A_BYTES:
                r->has_bytes = parse_u64(s, len, &r->bytes);
                break;
        default:
                break;
        }
}

void tpa_chrome__args_u64(tpa_chrome_parser *p, uint64_t v)
{
        struct record *r = p->rec;

        assert(TPA_CHROME_ARGS_U64(p->key));
        if (p->key == A_GROUP_ID) {
                r->has_group = true;
                r->group = v;
        } else if (p->key == A_CORR) {
                r->has_corr = true;
                r->corr = v;
        } else {
                r->has_bytes = true;
                r->bytes = v;
        }
}

/* A value starting at `at` of kind `what`: when it is an element of the
 * events array (not a record's), count it. A collecting parser fails its
 * segment instead, which this thread's own parser reads again and counts
 * (chrome_split.c): the count and the first offset are the ones one thread
 * gives. */
static int stray(tpa_chrome_parser *p, const char *what, uint64_t at)
{
        if (!p->events_open || p->depth != p->events_depth || p->in_event)
                return 1;
        if (p->coll != NULL)
                return tpa_chrome__fail(p, TPA_EFORMAT, at, "%s in the events array", what);
        if (p->strays++ == 0) {
                p->first_stray = at;
                p->stray_kind = what;
        }
        return 1;
}

/* A number or a number-like string for the current key. `quoted`: it came
 * as a string, so its text starts one byte after the token start. */
static int on_scalar(tpa_chrome_parser *p, const char *s, size_t len, bool quoted)
{
        uint64_t end = tpa_chrome__offset_now(p), at = end - len - (quoted ? 2 : 0);

        if (!quoted)
                p->value_end = end;             /* for moved_back_start() */
        if (!quoted && !stray(p, "a number", at))
                return 0;
        if (in_dist_info(p)) {
                set_dist(p, s, len, quoted);
                return 1;
        }
        if (p->top == '{' && p->depth == 1 && p->top_key == K_BASE_TIME) {
                tpa_dist_info *d = tpa_trace__dist_mut(p->tr);
                int64_t v;
                if (d->wall_base_ns < 0 && parse_i64(s, len, &v) && v >= 0)
                        d->wall_base_ns = v;
                return 1;
        }
        if (at_event_level(p))
                return tpa_chrome__event_scalar(p, s, len, at);
        if (at_args_level(p))
                tpa_chrome__args_scalar(p, s, len);
        return 1;
}

int tpa_chrome__on_number(void *ctx, const char *s, size_t len)
{
        return on_scalar(ctx, s, len, false);
}

static int check_string(tpa_chrome_parser *p, size_t len)
{
        if (len > p->max_string) {
                return tpa_chrome__fail(
                        p, TPA_ELIMIT, tpa_chrome__offset_now(p) - len - 2,
                        "a string of %zu bytes is longer than the limit of %llu bytes", len,
                        (unsigned long long)p->max_string);
        }
        return 1;
}

/* A string for event key p->key, no longer than max_string. */
int tpa_chrome__event_string(tpa_chrome_parser *p, const char *s, size_t len)
{
        struct record *r = p->rec;

        switch (p->key) {
        case K_PH:
                r->ph = len == 1 ? s[0] : '?';
                return 1;
        case K_NAME:
                return intern(p, &r->name, s, len);
        case K_CAT:
                return intern(p, &r->cat, s, len);
        case K_PID:
        case K_TID:
        case K_TS:
        case K_DUR:
                return tpa_chrome__event_scalar(p, s, len,
                                                tpa_chrome__offset_now(p) - len - 2);
        default:
                return 1;
        }
}

/* What a collecting parser does with a record's op: keeps it as one of
 * the record's strings, never copied when it is in the segment (speed,
 * bench/: it was copied to arg_op, from there to the list, and from the
 * list to arg_op again). A second op fails the segment, which is then
 * read alone, where the last one counts. */
static int collect_op(tpa_chrome_parser *p, const char *s, size_t len)
{
        tpa_str n;

        if (p->rec->op != 0)
                return tpa_chrome__fail(p, TPA_ELIMIT, p->rec->offset, "%s",
                                        "two ops in a record to collect; read it alone");
        if (!tpa_chrome__collect_str(p, &n, s, len))
                return 0;
        p->rec->op = (uint8_t)n;
        return 1;
}

/* A string for args key p->key, no longer than max_string. */
int tpa_chrome__args_string(tpa_chrome_parser *p, const char *s, size_t len)
{
        struct record *r = p->rec;

        switch (p->key) {
        case A_NAME:
                return sbuf_set(p, &p->arg_name, s, len);
        case A_LABELS:
                return sbuf_set(p, &p->arg_labels, s, len);
        case A_BACKEND:
                return sbuf_set(p, &p->arg_backend, s, len);
        case A_ANNOTATION:
                if (p->coll != NULL)
                        return collect_op(p, s, tpa_classify__op_prefix(s, len));
                return sbuf_set(p, &p->arg_op, s, tpa_classify__op_prefix(s, len));
        case A_TF_FUNCTION_CALL:
                r->flags |= TPA_FLAG_TF_CALL;
                if (tpa_classify__is_traced_call(s, len))
                        r->flags |= TPA_FLAG_COMPILE;
                return 1;
        case A_MEMCPY_DETAILS:
                /* "size:100663296 dest:0 async:1" */
                for (size_t i = 0; i + 5 <= len; i++) {
                        if (memcmp(s + i, "size:", 5) == 0) {
                                size_t j = i + 5, k = j;
                                while (k < len && tpa_chrome__is_digit(s[k]))
                                        k++;
                                r->has_bytes = parse_u64(s + j, k - j, &r->bytes);
                                break;
                        }
                }
                return 1;
        default:
                tpa_chrome__args_scalar(p, s, len);
                return 1;
        }
}

int tpa_chrome__on_string(void *ctx, const unsigned char *us, size_t len)
{
        tpa_chrome_parser *p = ctx;
        const char *s = (const char *)us;

        if (len == 0 || p->depth == 0)
                /* for moved_back_start(), garbage_start() */
                p->value_end = tpa_chrome__offset_now(p);
        if (!check_string(p, len))
                return 0;
        if (!stray(p, "a string", tpa_chrome__offset_now(p) - len - 2))
                return 0;
        if (at_event_level(p))
                return tpa_chrome__event_string(p, s, len);
        if (in_dist_info(p)) {
                set_dist(p, s, len, true);
                return 1;
        }
        if (at_args_level(p))
                return tpa_chrome__args_string(p, s, len);
        /* a saved report (a path is read as one before the trace reader;
         * standard input, a pipe, comes here): refused, never an empty
         * trace */
        if (p->top == '{' && p->depth == 1 && p->top_key == K_SCHEMA && len >= 22 &&
            memcmp(s, "tfprof-analyze/report/", 22) == 0)
                return tpa_chrome__fail(p, TPA_ENOTTRACE, tpa_chrome__offset_now(p),
                                        "a saved tfprof-analyze report, not a trace "
                                        "(analyze shows one given by its path)");
        return 1;
}

int tpa_chrome__on_null(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        p->value_end = tpa_chrome__offset_now(p);
        return stray(p, "null", p->value_end - 4);
}

int tpa_chrome__on_boolean(void *ctx, int v)
{
        tpa_chrome_parser *p = ctx;

        p->value_end = tpa_chrome__offset_now(p);
        return stray(p, v ? "true" : "false", p->value_end - (v ? 4 : 5));
}

int tpa_chrome__on_map_key(void *ctx, const unsigned char *us, size_t len)
{
        tpa_chrome_parser *p = ctx;
        const char *k = (const char *)us;

        if (!check_string(p, len))
                return 0;
        if (at_event_level(p)) {
                p->rec->has_keys = true;
                p->key = tpa_chrome__event_key(k, len);
        } else if (at_args_level(p)) {
                p->key = tpa_chrome__args_key(k, len);
        } else if (p->top == '{' && p->depth == 1) {
                p->top_key = top_key(k, len);
                if (p->top_key == K_KINETO || p->top_key == K_DIST ||
                    p->top_key == K_BASE_TIME)
                        p->hints.kineto_keys = true;
                if (len == 5 && memcmp(k, "nodes", 5) == 0)
                        p->et_keys = true;
        } else if (in_dist_info(p)) {
                p->key = len == 4 && memcmp(k, "rank", 4) == 0 ? D_RANK
                       : len == 10 && memcmp(k, "world_size", 10) == 0 ? D_WORLD_SIZE
                       : len == 7 && memcmp(k, "backend", 7) == 0 ? D_BACKEND : K_NONE;
        } else if (p->in_meta && p->depth == 2) {
                if (len == 13 && memcmp(k, "highres-ticks", 13) == 0)
                        p->hints.tf2_keys = true;
        }
        return 1;
}

/* ---- structure ---------------------------------------------------------- */

static int enter(tpa_chrome_parser *p)
{
        if (p->depth >= p->max_depth) {
                return tpa_chrome__fail(p, TPA_ELIMIT, tpa_chrome__offset_now(p) - 1,
                                        "nesting deeper than %u levels", p->max_depth);
        }
        p->depth++;
        return 1;
}

int tpa_chrome__on_start_map(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        if (p->depth == 0 && p->top == 0)
                p->top = '{';
        if (p->events_open && p->depth == p->events_depth && !p->in_event) {
                if (!enter(p))
                        return 0;
                return tpa_chrome__new_record(p);
        }
        if (at_event_level(p) && p->key == K_ARGS)
                p->in_args = true;
        if (p->top == '{' && p->depth == 1 && p->top_key == K_METADATA)
                p->in_meta = true;
        return enter(p);
}

int tpa_chrome__on_start_array(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        if (!stray(p, "an array", tpa_chrome__offset_now(p) - 1))
                return 0;
        if (p->depth == 0 && p->top == 0) {
                p->top = '[';
                p->events_depth = 1;
                p->events_open = true;
        } else if (p->top == '{' && p->depth == 1 && p->top_key == K_TRACE_EVENTS &&
                   p->events_depth == 0) {
                p->events_depth = 2;
                p->events_open = true;
        }
        return enter(p);
}

int tpa_chrome__on_end_array(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        /* maps in a later array at the same depth are no records */
        if (p->depth == p->events_depth)
                p->events_open = false;
        if (--p->depth == 0)
                p->value_end = tpa_chrome__offset_now(p);   /* for garbage_start() */
        return 1;
}

static int finish_event(tpa_chrome_parser *p);

int tpa_chrome__on_end_map(void *ctx)
{
        tpa_chrome_parser *p = ctx;

        if (p->in_event && p->depth == p->ev_depth) {
                p->depth--;
                p->in_event = false;
                return finish_event(p);
        }
        if (p->in_args && p->depth == p->ev_depth + 1)
                p->in_args = false;
        if (p->in_meta && p->depth == 2)
                p->in_meta = false;
        if (--p->depth == 0)
                p->value_end = tpa_chrome__offset_now(p);   /* for garbage_start() */
        return 1;
}

/* ---- records ------------------------------------------------------------ */

/* lookup_track() when the pair is not in its slot m of the cache. */
static int lookup_track_slow(tpa_chrome_parser *p, struct track_memo *m, uint32_t *proc,
                             uint32_t *track)
{
        struct record *r = p->rec;
        tpa_error *e = &p->scratch;

        if (tpa_trace__get_process(p->tr, proc, r->pid, e) < 0 ||
            tpa_trace__get_thread(p->tr, track, *proc, r->tid, e) < 0)
                return tpa_chrome__fail_code(p, e);
        m->valid = true;
        m->pid = r->pid;
        m->tid = r->tid;
        m->proc = *proc;
        m->track = *track;
        return 1;
}

/* The process and thread of the record's pid and tid, made when new. A hit
 * in the cache is inline (speed, bench/: a call per record). */
static inline int lookup_track(tpa_chrome_parser *p, uint32_t *proc, uint32_t *track)
{
        const struct record *r = p->rec;
        struct track_memo *m = &p->tracks[((uint64_t)r->pid.num * 31 + (uint64_t)r->tid.num +
                                           r->pid.str * 7u + r->tid.str * 13u) &
                                          (TPA_CHROME_TRACK_CACHE - 1)];

        if (m->valid && m->pid.num == r->pid.num && m->pid.str == r->pid.str &&
            m->tid.num == r->tid.num && m->tid.str == r->tid.str) {
                *proc = m->proc;
                *track = m->track;
                return 1;
        }
        return lookup_track_slow(p, m, proc, track);
}

static bool is_dup_process(const tpa_chrome_parser *p, uint32_t proc)
{
        return proc < p->dup_cap && p->dup[proc];
}

/* A file `merge` wrote marks each process with the input it came from:
 * {"ph":"M","pid":P,"name":"tpa_input","args":{"name":INPUT,"sort_index":
 * INDEX,"rank":R,"world_size":W,"backend":B}}, the last three when the
 * input said them (chrome_writer.c). */
static int merged_input(tpa_chrome_parser *p, uint32_t proc)
{
        struct record *r = p->rec;
        tpa_input_info in = { .dist = TPA_DIST_INFO_INIT };
        size_t len = p->arg_backend.len;
        tpa_error e = TPA_ERROR_INIT;

        if (!intern(p, &in.name, p->arg_name.data, p->arg_name.len))
                return 0;
        if (r->has_rank && r->rank >= 0)
                in.dist.rank = r->rank;
        if (r->has_world_size && r->world_size >= 0)
                in.dist.world_size = r->world_size;
        if (p->arg_backend.set) {
                len = len < sizeof(in.dist.backend) - 1 ? len : sizeof(in.dist.backend) - 1;
                memcpy(in.dist.backend, p->arg_backend.data, len);
                in.dist.backend[len] = '\0';
        }
        if (tpa_trace__set_input(p->tr, proc, (uint32_t)r->sort_index, &in, &e) < 0) {
                if (e.code != TPA_ELIMIT)
                        return tpa_chrome__fail_code(p, &e);
                tpa_trace__warn(p->tr, r->offset, "'tpa_input' index out of range, ignoring");
        }
        return 1;
}

static int metadata(tpa_chrome_parser *p)
{
        struct record *r = p->rec;
        const char *what = tpa_trace_str(p->tr, r->name);
        size_t wlen = tpa_trace_str_len(p->tr, r->name);
        tpa_error e = TPA_ERROR_INIT;
        uint32_t proc, track;
        tpa_str s;

        tpa_trace__health(p->tr)->metadata++;
        if (tpa_trace__get_process(p->tr, &proc, r->pid, &e) < 0)
                return tpa_chrome__fail_code(p, &e);
        if (wlen == 12 && memcmp(what, "process_name", 12) == 0 && p->arg_name.set) {
                if (!intern(p, &s, p->arg_name.data, p->arg_name.len))
                        return 0;
                tpa_trace__process(p->tr, proc)->name = s;
                if (tpa_classify__is_tf1_duplicate(p->arg_name.data, p->arg_name.len)) {
                        if (tpa_chrome__grow_zero((void **)&p->dup, &p->dup_cap, proc + 1, 1,
                                                  &e) < 0)
                                return tpa_chrome__fail_code(p, &e);
                        p->dup[proc] = 1;
                }
        } else if (wlen == 14 && memcmp(what, "process_labels", 14) == 0 &&
                   p->arg_labels.set) {
                if (!intern(p, &s, p->arg_labels.data, p->arg_labels.len))
                        return 0;
                tpa_trace__process(p->tr, proc)->label = s;
        } else if (wlen == 9 && memcmp(what, "tpa_input", 9) == 0 && p->arg_name.set &&
                   r->has_sort_index && r->sort_index >= 0 && r->sort_index < TPA_TRACK_MAX) {
                if (!merged_input(p, proc))
                        return 0;
        } else if (wlen == 18 && memcmp(what, "process_sort_index", 18) == 0 &&
                   r->has_sort_index) {
                tpa_trace__process(p->tr, proc)->sort_index = r->sort_index;
        } else if (wlen == 11 && memcmp(what, "thread_name", 11) == 0 && p->arg_name.set) {
                if (!intern(p, &s, p->arg_name.data, p->arg_name.len) ||
                    !lookup_track(p, &proc, &track))
                        return 0;
                tpa_trace__thread(p->tr, track)->name = s;
        } else if (wlen == 17 && memcmp(what, "thread_sort_index", 17) == 0 &&
                   r->has_sort_index) {
                if (!lookup_track(p, &proc, &track))
                        return 0;
                tpa_trace__thread(p->tr, track)->sort_index = r->sort_index;
        }
        return 1;
}

/* What the name `name` (not empty) is, as name_memo keeps it. */
static uint8_t name_kind(const tpa_chrome_parser *p, tpa_str name)
{
        const char *n = tpa_trace_str(p->tr, name);
        size_t nl = tpa_trace_str_len(p->tr, name);
        uint8_t kind = TPA_CHROME_NAME_SEEN;

        /* only the markers: ProfilerStep#N, "train 12", Keras' JAX
         * "Profiled batch 3" */
        if ((nl > 13 && memcmp(n, "ProfilerStep#", 13) == 0) ||
            (nl > 15 && memcmp(n, "Profiled batch ", 15) == 0) ||
            (nl > 6 && (memcmp(n, "train ", 6) == 0 || memcmp(n, "test ", 5) == 0)))
                kind |= TPA_CHROME_NAME_STEP;
        if (tpa_classify__is_compile_name(n, nl))
                kind |= TPA_CHROME_NAME_COMPILE;
        return kind;
}

static int add_event(tpa_chrome_parser *p, uint32_t track, size_t *index)
{
        struct record *r = p->rec;
        tpa_error *e = &p->scratch;
        tpa_event *ev, one;
        uint8_t kind = 0;

        /* written in place, every field (with no room left: max_events, or
         * the events are to grow, added as usual, which fails or grows) */
        if (p->room_n == 0) {
                p->room = tpa_trace__event_room(p->tr, &p->room_n);
                p->room_at = tpa_trace_event_count(p->tr);
        }
        ev = p->room_n > 0 ? p->room : &one;
        ev->ts = r->ts;
        ev->dur = r->dur;
        ev->name = r->name;
        ev->track = track;
        ev->kind = TPA_KIND_OTHER;
        ev->corr = r->has_corr && r->corr <= UINT32_MAX ? (uint32_t)r->corr : 0;
        ev->group = r->has_group && r->group < UINT32_MAX ? (uint32_t)r->group + 1 : 0;
        if (ev == &one) {
                if (tpa_trace__add_event(p->tr, ev, index, e) < 0)
                        return tpa_chrome__fail_code(p, e);
        } else {
                tpa_trace__commit_events(p->tr, 1);
                *index = p->room_at++;
                p->room++;
                p->room_n--;
        }
        if (r->cat != TPA_STR_EMPTY) {
                if (tpa_chrome__grow((void **)&p->cats, &p->cat_cap, p->cat_count + 1,
                                     sizeof(*p->cats), e) < 0)
                        return tpa_chrome__fail_code(p, e);
                memset(p->cats + p->cat_set, 0, (p->cat_count - p->cat_set) * sizeof(*p->cats));
                p->cats[p->cat_count] = r->cat;
                p->cat_set = p->cat_count + 1;
        }
        if (r->ts + r->dur > p->max_end || p->cat_count == 0)
                p->max_end = r->ts + r->dur;
        p->cat_count++;
        p->any_event = true;

        if (r->has_bytes &&
            tpa_trace__set_aux(p->tr, *index, TPA_AUX_BYTES, (int64_t)(r->bytes & INT64_MAX),
                               e) < 0)
                return tpa_chrome__fail_code(p, e);
        /* what the name is, looked at once (speed, bench/: every event
         * comes here, few names are markers) */
        if (r->name != TPA_STR_EMPTY) {
                if (tpa_chrome__grow_zero((void **)&p->name_memo, &p->name_cap,
                                          (size_t)r->name + 1, 1, e) < 0)
                        return tpa_chrome__fail_code(p, e);
                kind = p->name_memo[r->name];
                if (kind == 0)
                        kind = p->name_memo[r->name] = name_kind(p, r->name);
        }
        if (!r->has_step && (kind & TPA_CHROME_NAME_STEP))
                r->has_step = tpa_classify__step_from_name(tpa_trace_str(p->tr, r->name),
                                                           tpa_trace_str_len(p->tr, r->name),
                                                           &r->step);
        if (r->has_step &&
            tpa_trace__set_aux(p->tr, *index, TPA_AUX_STEP_NUM, r->step, e) < 0)
                return tpa_chrome__fail_code(p, e);
        if (p->coll_op != NULL ? p->coll_op_len > 0 : p->arg_op.set && p->arg_op.len > 0) {
                tpa_str op;
                if (!(p->coll_op != NULL ? intern_op(p, &op, p->coll_op, p->coll_op_len)
                                         : intern_op(p, &op, p->arg_op.data, p->arg_op.len)))
                        return 0;
                if (tpa_trace__set_aux(p->tr, *index, TPA_AUX_OP, op, e) < 0)
                        return tpa_chrome__fail_code(p, e);
        }
        if (kind & TPA_CHROME_NAME_COMPILE)
                r->flags |= TPA_FLAG_COMPILE;
        if (r->flags != 0 && tpa_trace__add_flags(p->tr, *index, r->flags, e) < 0)
                return tpa_chrome__fail_code(p, e);
        return 1;
}

static int push_open(tpa_chrome_parser *p, uint32_t track, size_t event)
{
        tpa_error *e = &p->scratch;
        uint32_t slot;

        if (tpa_chrome__grow_zero((void **)&p->open_top, &p->open_top_cap, (size_t)track + 1,
                 sizeof(*p->open_top), e) < 0)
                return tpa_chrome__fail_code(p, e);
        if (p->open_free != 0) {
                slot = p->open_free - 1;
                p->open_free = p->open[slot].below;
        } else {
                if (tpa_chrome__grow((void **)&p->open, &p->open_cap, p->open_count + 1,
                                     sizeof(*p->open), e) < 0)
                        return tpa_chrome__fail_code(p, e);
                slot = (uint32_t)p->open_count++;
        }
        p->open[slot].event = event;
        p->open[slot].track = track;
        p->open[slot].below = p->open_top[track];
        p->open_top[track] = slot + 1;
        return 1;
}

/* Pop the top open B of `track`; false when there is none. */
static bool pop_open(tpa_chrome_parser *p, uint32_t track, size_t *event)
{
        uint32_t slot;

        if (track >= p->open_top_cap || p->open_top[track] == 0)
                return false;
        slot = p->open_top[track] - 1;
        *event = p->open[slot].event;
        p->open_top[track] = p->open[slot].below;
        p->open[slot].below = p->open_free;
        p->open_free = slot + 1;
        return true;
}

static bool known_phase(char ph)
{
        return ph != 0 && strchr("CsftbenNODSTFpPRcav", ph) != NULL;
}

static int finish_event(tpa_chrome_parser *p)
{
        struct record *r = p->rec;
        tpa_health *h;
        uint32_t proc, track;
        size_t index;

        if (p->coll != NULL)
                return tpa_chrome__collect_record(p);
        h = p->health;
        h->records_read++;
        if (r->ph == 0) {
                if (r->has_keys)
                        tpa_trace__warn(p->tr, r->offset, "records have no 'ph', ignoring");
                h->empty_records++;
                return 1;
        }
        switch (r->ph) {
        case 'M':
                return metadata(p);
        case 'X':
        case 'B':
        case 'E':
        case 'i':
        case 'I':
                break;
        default:
                if ((unsigned char)r->ph < 128)
                        h->by_phase[(unsigned char)r->ph]++;
                if (!known_phase(r->ph)) {
                        h->unknown_phase++;
                        if (r->ph == '?' || (unsigned char)r->ph < 32 ||
                            (unsigned char)r->ph >= 127)
                                tpa_trace__warn(p->tr, r->offset,
                                                "events have an unknown phase, ignoring");
                        else
                                tpa_trace__warn(p->tr, r->offset,
                                                "events have unknown phase '%c', ignoring",
                                                r->ph);
                }
                return 1;
        }
        if (!r->has_ts) {
                h->by_phase[(unsigned char)r->ph]++;
                tpa_trace__warn(p->tr, r->offset, "events have no 'ts', ignoring");
                return 1;
        }
        if (r->ph != 'X' || !r->has_dur)
                r->dur = 0;
        if (r->dur < 0)
                return tpa_chrome__fail(p, TPA_EFORMAT, r->dur_offset, "'%s' is negative", "dur");
        if (!lookup_track(p, &proc, &track))
                return 0;
        if (is_dup_process(p, proc)) {
                h->duplicates_dropped++;
                return 1;
        }
        if (r->ph == 'E') {
                tpa_event *ev;
                if (!pop_open(p, track, &index)) {
                        h->unmatched_end++;
                        if (p->lone_ends++ == 0)
                                p->first_lone_end = r->offset;
                        return 1;
                }
                ev = &tpa_trace__events_mut(p->tr)[index];
                ev->dur = r->ts >= ev->ts ? r->ts - ev->ts : 0;
                if (ev->ts + ev->dur > p->max_end)
                        p->max_end = ev->ts + ev->dur;
                return 1;
        }
        if (!add_event(p, track, &index))
                return 0;
        if (r->ph == 'B')
                return push_open(p, track, index);
        return 1;
}

/* ---- yajl --------------------------------------------------------------- */

const yajl_callbacks tpa_chrome__callbacks = {
        .yajl_null = tpa_chrome__on_null,
        .yajl_boolean = tpa_chrome__on_boolean,
        .yajl_number = tpa_chrome__on_number,
        .yajl_string = tpa_chrome__on_string,
        .yajl_start_map = tpa_chrome__on_start_map,
        .yajl_map_key = tpa_chrome__on_map_key,
        .yajl_end_map = tpa_chrome__on_end_map,
        .yajl_start_array = tpa_chrome__on_start_array,
        .yajl_end_array = tpa_chrome__on_end_array,
};

/* ---- the collecting side (see "two threads" in chrome_split.c) ---------- */

int tpa_chrome__collect_copy(tpa_chrome_parser *p, tpa_str *out, const char *s, size_t len)
{
        struct sbuf *b = &p->coll_strs;
        struct coll_ref *f;

        if (p->coll_n == TPA_CHROME_RECORD_STRS)
                return tpa_chrome__fail(p, TPA_ELIMIT, p->rec->offset, "%s",
                                        "too many names in a record to collect; read it alone");
        if (tpa_chrome__grow((void **)&b->data, &b->cap, b->len + len, 1, &p->scratch) < 0)
                return tpa_chrome__fail_code(p, &p->scratch);
        if (len > 0)
                memcpy(b->data + b->len, s, len);
        b->len += len;
        f = &p->coll_refs[p->coll_n];
        f->s = NULL;
        f->len = len;
        *out = ++p->coll_n;
        return 1;
}

/* The args buffer k (0 to TPA_CHROME_ARG_BUFS - 1) of p: by a table of
 * where each is, not an array of their addresses made on each call (speed,
 * bench/: collected records' args loops make many calls). */
static struct sbuf *arg_buf(tpa_chrome_parser *p, unsigned k)
{
        static const size_t at[TPA_CHROME_ARG_BUFS] = {
                offsetof(tpa_chrome_parser, arg_name), offsetof(tpa_chrome_parser, arg_labels),
                offsetof(tpa_chrome_parser, arg_op), offsetof(tpa_chrome_parser, arg_backend),
        };

        return (struct sbuf *)(void *)((char *)p + at[k]);
}

/* The bytes the args buffers in `flags` (bit k: arg_buf(p, k)) take in a
 * collected record's entry, and their copy there from q on. */
static size_t args_size(tpa_chrome_parser *p, unsigned flags)
{
        size_t size = 0;

        for (unsigned k = 0; flags >> k != 0; k++)
                if (flags >> k & 1)
                        size += sizeof(size_t) + arg_buf(p, k)->len;
        return size;
}

static unsigned char *args_copy(tpa_chrome_parser *p, unsigned flags, unsigned char *q)
{
        for (unsigned k = 0; flags >> k != 0; k++) {
                const struct sbuf *a = arg_buf(p, k);
                if (!(flags >> k & 1))
                        continue;
                memcpy(q, &a->len, sizeof(size_t));
                q += sizeof(size_t);
                if (a->len > 0)
                        memcpy(q, a->data, a->len);
                q += a->len;
        }
        return q;
}

/* The entry of p's record, `size` bytes at the list's end, there is room
 * for: the record, its refs; the bytes kept are the caller's to copy, at
 * the address returned. */
static inline unsigned char *collect_entry(tpa_chrome_parser *p, size_t size, unsigned flags)
{
        struct sbuf *o = p->coll;
        struct coll_entry *e = (struct coll_entry *)(void *)(o->data + o->len);
        struct coll_ref *f = (struct coll_ref *)(void *)(e + 1);
        uint32_t n = p->coll_n;

        assert(p->rec == &e->rec);      /* the record is there already */
        o->len += size;
        e->size = (uint32_t)size;
        e->strs = (uint8_t)n;
        e->args = (uint8_t)flags;
        /* a record has a string or two: no call of memcpy() */
        for (uint32_t k = 0; k < n; k++)
                f[k] = p->coll_refs[k];
        return (unsigned char *)(f + n);
}

/* tpa_chrome__collect_record() for a record that keeps bytes (args, a
 * string copied) or needs the list to grow; out of line, so that the
 * usual record pays for none of its registers. */
static NOINLINE int collect_record_slow(tpa_chrome_parser *p, unsigned flags)
{
        struct sbuf *o = p->coll;
        size_t need = sizeof(struct coll_entry) + p->coll_n * sizeof(struct coll_ref) +
                      p->coll_strs.len;
        unsigned char *q;

        if (flags != 0)
                need += args_size(p, flags);
        need = (need + 7) & ~(size_t)7;
        if (o->len + need > TPA_CHROME_SEG_MAX)
                return tpa_chrome__fail(p, TPA_ELIMIT, p->rec->offset, "%s",
                                        "too many records in a segment to collect; read it alone");
        if (tpa_chrome__grow((void **)&o->data, &o->cap, o->len + need, 1, &p->scratch) < 0)
                return tpa_chrome__fail_code(p, &p->scratch);
        /* the record moved with the list */
        p->rec = &((struct coll_entry *)(void *)(o->data + o->len))->rec;
        q = collect_entry(p, need, flags);
        if (flags != 0)
                q = args_copy(p, flags, q);
        if (p->coll_strs.len > 0)
                memcpy(q, p->coll_strs.data, p->coll_strs.len);
        return 1;
}

int tpa_chrome__collect_record(tpa_chrome_parser *p)
{
        const struct sbuf *o = p->coll;
        /* a multiple of 8, as every entry's size */
        size_t need = sizeof(struct coll_entry) + p->coll_n * sizeof(struct coll_ref);
        unsigned flags = (unsigned)p->arg_name.set | (unsigned)p->arg_labels.set << 1 |
                         (unsigned)p->arg_op.set << 2 | (unsigned)p->arg_backend.set << 3;

        /* most records keep no bytes, and there is room: written by a
         * leaf, with no call (speed, bench/) */
        if (flags != 0 || p->coll_strs.len != 0 || need > o->cap - o->len ||
            o->len + need > TPA_CHROME_SEG_MAX)
                return collect_record_slow(p, flags);
        collect_entry(p, need, flags);
        return 1;
}

int tpa_chrome__collect_room(tpa_chrome_parser *p)
{
        struct sbuf *o = p->coll;

        if (tpa_chrome__grow((void **)&o->data, &o->cap, o->len + sizeof(struct coll_entry), 1,
                             &p->scratch) < 0)
                return tpa_chrome__fail_code(p, &p->scratch);
        return 1;
}

/* The records of `o` added in place: p's record is each in turn. */
static int add_entries(tpa_chrome_parser *p, const struct sbuf *o)
{
        char *q = o->data, *end = q + o->len;
        tpa_str ids[TPA_CHROME_RECORD_STRS + 1];

        ids[0] = TPA_STR_EMPTY;
        while (q < end) {
                struct coll_entry *e = (struct coll_entry *)(void *)q;
                const struct coll_ref *f = (const struct coll_ref *)(const void *)(e + 1);
                const char *x = (const char *)(f + e->strs);    /* the bytes kept */
                struct record *r = &e->rec;
                unsigned flags = e->args;

                p->rec = r;             /* its offset, for intern() */
                p->arg_name.set = p->arg_labels.set = p->arg_op.set = false;
                p->arg_backend.set = false;
                p->coll_op = NULL;
                for (unsigned k = 0; flags >> k != 0; k++) {
                        size_t len;
                        if (!(flags >> k & 1))
                                continue;
                        memcpy(&len, x, sizeof(len));
                        x += sizeof(len);
                        if (!sbuf_set(p, arg_buf(p, k), x, len))
                                return p->err.code;
                        x += len;
                }
                for (uint32_t i = 0; i < e->strs; i++) {
                        const char *s = f[i].s;
                        if (s == NULL) {
                                s = x;
                                x += f[i].len;
                        }
                        if (i + 1 == r->op) {   /* interned as an op, by add_event() */
                                p->coll_op = s;
                                p->coll_op_len = f[i].len;
                                ids[i + 1] = TPA_STR_EMPTY;
                        } else if (!intern(p, &ids[i + 1], s, f[i].len)) {
                                return p->err.code;
                        }
                }
                q += e->size;
                /* the record holds the numbers of its strings in the list */
                r->name = ids[r->name];
                r->cat = ids[r->cat];
                r->pid.str = ids[r->pid.str];
                r->tid.str = ids[r->tid.str];
                p->in_event = false;
                if (!finish_event(p))
                        return p->err.code;
        }
        return 0;
}

int tpa_chrome__add_collected(tpa_chrome_parser *p, const struct sbuf *o)
{
        int r = add_entries(p, o);

        p->rec = &p->own_rec;
        p->coll_op = NULL;
        return r;
}
