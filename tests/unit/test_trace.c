/* SPDX-License-Identifier: MIT */
/* test_trace.c - the event model: interning, ids, events, extras, warnings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "model/trace_build.h"
#include "tap.h"

static void test_trace__intern(void)
{
        tpa_trace *tr;
        tpa_str a, b, c, found;
        char big[5000];

        tpa_trace_new(&tr, NULL);
        ok(tpa_trace__intern(tr, &a, "kernel", 6, NULL) == 0, "test_trace__intern: add");
        ok(tpa_trace__intern(tr, &b, "kernelX", 6, NULL) == 0 && a == b,
           "test_trace__intern: same bytes, same id");
        ok(tpa_trace__intern(tr, &c, "memcpy", 6, NULL) == 0 && c != a,
           "test_trace__intern: other bytes, other id");
        tap_streq(tpa_trace_str(tr, a), "kernel", "test_trace__intern: NUL-terminated copy");
        tap_streq(tpa_trace_str(tr, TPA_STR_EMPTY), "", "test_trace__intern: 0 is empty");
        ok(tpa_trace_find_str(tr, &found, "memcpy", 6) && found == c,
           "test_trace__intern: find");
        ok(!tpa_trace_find_str(tr, &found, "nope", 4), "test_trace__intern: find absent");
        for (int i = 0; i < 20000; i++) {
                char s[32];
                int n = snprintf(s, sizeof(s), "name-%d", i);
                tpa_trace__intern(tr, &a, s, (size_t)n, NULL);
        }
        ok(tpa_trace_find_str(tr, &found, "name-12345", 10) &&
           strcmp(tpa_trace_str(tr, found), "name-12345") == 0,
           "test_trace__intern: survives rehash");
        tap_streq(tpa_trace_str(tr, c), "memcpy", "test_trace__intern: pointers stay valid");
        memset(big, 'x', sizeof(big));
        ok(tpa_trace__intern(tr, &a, big, sizeof(big), NULL) == 0 &&
           tpa_trace_str_len(tr, a) == sizeof(big), "test_trace__intern: big string");
        tpa_trace_free(tr);
}

static void test_trace__threads(void)
{
        tpa_trace *tr;
        uint32_t p1, p2, t1, t2, t3;
        tpa_str s;

        tpa_trace_new(&tr, NULL);
        tpa_trace__intern(tr, &s, "Traces", 6, NULL);
        tpa_trace__get_process(tr, &p1, (tpa_id){ .num = 1 }, NULL);
        tpa_trace__get_process(tr, &p2, (tpa_id){ .str = s }, NULL);
        ok(p1 != p2, "test_trace__threads: numeric and string pids differ");
        tpa_trace__get_process(tr, &t1, (tpa_id){ .num = 1 }, NULL);
        ok(t1 == p1, "test_trace__threads: same pid, same process");
        tpa_trace__get_thread(tr, &t1, p1, (tpa_id){ .num = 7 }, NULL);
        tpa_trace__get_thread(tr, &t2, p2, (tpa_id){ .num = 7 }, NULL);
        ok(t1 != t2, "test_trace__threads: same tid in two processes differs");
        for (int i = 0; i < 1000; i++)
                tpa_trace__get_thread(tr, &t3, p1, (tpa_id){ .num = 100 + i }, NULL);
        tpa_trace__get_thread(tr, &t3, p1, (tpa_id){ .num = 7 }, NULL);
        ok(t3 == t1, "test_trace__threads: found again after growth");
        tap_eq((int64_t)tpa_trace_thread_count(tr), 1002, "test_trace__threads: count");
        tpa_trace_free(tr);
}

/* A process per event, as a hostile trace may have: 2^19 of them, each
 * found again. A scan per lookup was 2^37 comparisons (minutes); by
 * hash it is a few per lookup. */
static void test_trace__many_processes(void)
{
        enum { N = 1 << 19 };
        tpa_trace *tr;
        size_t wrong = 0;
        uint32_t p, q;
        tpa_str s;

        tpa_trace_new(&tr, NULL);
        tpa_trace__intern(tr, &s, "Traces", 6, NULL);
        for (int64_t i = 0; i < N; i++)
                if (tpa_trace__get_process(tr, &p, (tpa_id){ .num = i }, NULL) < 0 || p != i)
                        wrong++;
        tpa_trace__get_process(tr, &q, (tpa_id){ .str = s, .num = 3 }, NULL);
        for (int64_t i = N; i-- > 0;)
                if (tpa_trace__get_process(tr, &p, (tpa_id){ .num = i }, NULL) < 0 || p != i)
                        wrong++;
        tap_eq((int64_t)wrong, 0, "test_trace__many_processes: each pid its own, found again");
        tap_eq((int64_t)q, N, "test_trace__many_processes: a string pid is another process");
        tap_eq((int64_t)tpa_trace_process_count(tr), N + 1, "test_trace__many_processes: count");
        tpa_trace_free(tr);
}

static void test_trace__events_aux(void)
{
        tpa_trace *tr;
        tpa_event ev = { .ts = 1000, .dur = 50, .kind = TPA_KIND_KERNEL };
        size_t idx;
        int64_t v = 0;

        tpa_trace_new(&tr, NULL);
        ok(sizeof(tpa_event) == 32, "test_trace__events_aux: an event is 32 bytes");
        for (int i = 0; i < 100; i++) {
                ev.ts = 1000 + i * 100;
                tpa_trace__add_event(tr, &ev, &idx, NULL);
                if (i % 3 == 0)
                        tpa_trace__set_aux(tr, idx, TPA_AUX_BYTES, i * 10, NULL);
        }
        /* Out of order: patch an early event. */
        tpa_trace__set_aux(tr, 4, TPA_AUX_FLAGS, TPA_FLAG_UNCLOSED, NULL);
        tpa_trace__add_flags(tr, 4, TPA_FLAG_COMPILE, NULL);
        ok(tpa_trace_get_aux(tr, 4, TPA_AUX_FLAGS, &v) &&
           v == (TPA_FLAG_UNCLOSED | TPA_FLAG_COMPILE), "test_trace__events_aux: flags OR");
        ok(tpa_trace_get_aux(tr, 33, TPA_AUX_BYTES, &v) && v == 330,
           "test_trace__events_aux: bytes");
        ok(!tpa_trace_get_aux(tr, 34, TPA_AUX_BYTES, &v), "test_trace__events_aux: absent");
        tpa_trace__set_aux(tr, 33, TPA_AUX_BYTES, 7, NULL);
        ok(tpa_trace_get_aux(tr, 33, TPA_AUX_BYTES, &v) && v == 7,
           "test_trace__events_aux: set twice keeps last");
        {
                tpa_ns a, b;
                ok(tpa_trace_span(tr, &a, &b) && a == 1000 && b == 1000 + 99 * 100 + 50,
                   "test_trace__events_aux: span");
        }
        tpa_trace__set_max_events(tr, 100);
        ok(tpa_trace__add_event(tr, &ev, NULL, NULL) == TPA_ELIMIT,
           "test_trace__events_aux: max_events");
        tpa_trace_free(tr);
}

/* tpa_trace__reserve_events(): the room is made at once (adding into it
 * moves no event), faulted in on a thread that is done before the events
 * move or go; max_events and sizes beyond memory leave it a no-op. */
static void test_trace__reserve_events(void)
{
        tpa_trace *tr;
        tpa_event ev = { .dur = 5, .kind = TPA_KIND_KERNEL };
        const tpa_event *first;
        size_t n = 100000, moved = 0, wrong = 0;

        tpa_trace_new(&tr, NULL);
        tpa_trace__add_event(tr, &ev, NULL, NULL);
        tpa_trace__reserve_events(tr, n);       /* 3.2 MB: prefaulted */
        first = tpa_trace_events(tr);
        for (size_t i = 0; i < n; i++) {
                ev.ts = (tpa_ns)i;
                tpa_trace__add_event(tr, &ev, NULL, NULL);
                moved += tpa_trace_events(tr) != first;
        }
        tap_eq((int64_t)moved, 0, "test_trace__reserve_events: adding into the room moves none");
        for (size_t i = 0; i < 3 * n; i++)      /* past it: grows, as before */
                tpa_trace__add_event(tr, &ev, NULL, NULL);
        for (size_t i = 0; i < n; i++)
                wrong += tpa_trace_events(tr)[1 + i].ts != (tpa_ns)i;
        tap_eq((int64_t)wrong, 0, "test_trace__reserve_events: events kept across growth");
        tap_eq((int64_t)tpa_trace_event_count(tr), (int64_t)(4 * n + 1),
               "test_trace__reserve_events: count");
        tpa_trace__reserve_events(tr, SIZE_MAX);        /* beyond memory: nothing */
        tpa_trace__reserve_events(tr, SIZE_MAX / 64);
        tap_eq((int64_t)tpa_trace_event_count(tr), (int64_t)(4 * n + 1),
               "test_trace__reserve_events: a reserve beyond memory changes nothing");
        tpa_trace__reserve_events(tr, 2 * n);
        tpa_trace_free(tr);                     /* with the thread perhaps running */

        tpa_trace_new(&tr, NULL);
        tpa_trace__set_max_events(tr, 10);
        tpa_trace__reserve_events(tr, 1000000);
        for (int i = 0; i < 10; i++)
                tpa_trace__add_event(tr, &ev, NULL, NULL);
        tap_eq(tpa_trace__add_event(tr, &ev, NULL, NULL), TPA_ELIMIT,
               "test_trace__reserve_events: max_events still holds");
        tpa_trace_free(tr);
}

/* tpa_trace__event_room(): as much room as the array holds past its
 * count, none past max_events; the events committed are added, counted
 * as kept, and the next room starts after them. */
static void test_trace__event_room(void)
{
        tpa_trace *tr;
        tpa_event ev = { .dur = 5, .kind = TPA_KIND_KERNEL }, *room;
        size_t n, wrong = 0;

        tpa_trace_new(&tr, NULL);
        room = tpa_trace__event_room(tr, &n);
        ok(room == NULL && n == 0, "test_trace__event_room: none in an empty array");
        tpa_trace__add_event(tr, &ev, NULL, NULL);
        tpa_trace__reserve_events(tr, 1000);
        room = tpa_trace__event_room(tr, &n);
        ok(room == tpa_trace_events(tr) + 1 && n >= 1000,
           "test_trace__event_room: the reserved room, after the last event");
        for (size_t i = 0; i < 10; i++)
                room[i] = (tpa_event){ .ts = (tpa_ns)i, .dur = 1 };
        tpa_trace__commit_events(tr, 10);
        tap_eq((int64_t)tpa_trace_event_count(tr), 11, "test_trace__event_room: count");
        tap_eq((int64_t)tpa_trace_health_c(tr)->events_kept, 11,
               "test_trace__event_room: kept");
        for (size_t i = 0; i < 10; i++)
                wrong += tpa_trace_events(tr)[1 + i].ts != (tpa_ns)i;
        tap_eq((int64_t)wrong, 0, "test_trace__event_room: the events written");
        ok(tpa_trace__event_room(tr, &n) == tpa_trace_events(tr) + 11,
           "test_trace__event_room: the next room after them");
        tpa_trace__set_max_events(tr, 15);
        tpa_trace__event_room(tr, &n);
        tap_eq((int64_t)n, 4, "test_trace__event_room: within max_events");
        tpa_trace__set_max_events(tr, 11);
        ok(tpa_trace__event_room(tr, &n) == NULL && n == 0,
           "test_trace__event_room: none at max_events");
        tpa_trace_free(tr);
}

/* tpa_trace_get_aux_seq(), tpa_trace_get_aux_run() and tpa_trace_next_aux()
 * against tpa_trace_get_aux(): extras of every key set in event order, then
 * of two keys out of order and over again; looked up in order, out of order,
 * with strides, in runs. */
static void test_trace__aux_walks(void)
{
        enum { N = 20000 };
        tpa_trace *tr;
        tpa_event ev = { .ts = 1, .dur = 1, .kind = TPA_KIND_KERNEL };
        uint64_t x = 0x9e3779b97f4a7c15u;
        bool seq_ok = true, any_ok = true, stride_ok = true, next_ok = true, run_ok = true;
        uint32_t run[64];
        int64_t got[64];

        tpa_trace_new(&tr, NULL);
        for (size_t i = 0; i < N; i++) {
                tpa_trace__add_event(tr, &ev, NULL, NULL);
                x = x * 6364136223846793005u + 1442695040888963407u;
                if ((x >> 33) % 7 == 0)
                        tpa_trace__set_aux(tr, i, (tpa_aux_key)(1 + (x >> 40) % 5),
                                           (int64_t)(x >> 20), NULL);
        }
        for (int k = 0; k < 3000; k++) {
                x = x * 6364136223846793005u + 1442695040888963407u;
                /* keys 4 and 5 only: 1 to 3 stay set in order (their own path) */
                tpa_trace__set_aux(tr, (size_t)(x >> 33) % N, (tpa_aux_key)(4 + (x >> 20) % 2),
                                   (int64_t)(x >> 8), NULL);
        }
        for (int key = 1; key <= 5; key++) {
                size_t cur = 0, cur_any = 0, cur_stride = 0, at = 0, last = 0;
                int64_t a, b;

                for (size_t i = 0; i < N; i++) {
                        bool h = tpa_trace_get_aux(tr, i, (tpa_aux_key)key, &a);
                        b = INT64_MIN;
                        seq_ok &= tpa_trace_get_aux_seq(tr, i, (tpa_aux_key)key, &cur, &b) == h &&
                                  (!h || a == b);
                }
                for (size_t i = 0; i < N; i += 1 + i % 13) {
                        bool h = tpa_trace_get_aux(tr, i, (tpa_aux_key)key, &a);
                        stride_ok &= tpa_trace_get_aux_seq(tr, i, (tpa_aux_key)key, &cur_stride,
                                                           &b) == h && (!h || a == b);
                }
                for (int k = 0; k < 2000; k++) {
                        size_t i;
                        bool h;
                        x = x * 6364136223846793005u + 1442695040888963407u;
                        i = (size_t)(x >> 33) % N;
                        h = tpa_trace_get_aux(tr, i, (tpa_aux_key)key, &a);
                        any_ok &= tpa_trace_get_aux_seq(tr, i, (tpa_aux_key)key, &cur_any, &b) ==
                                  h && (!h || a == b);
                }
                /* runs of strides, each from a random event on, one cursor;
                 * a third with pairs swapped */
                for (int k = 0; k < 400; k++) {
                        size_t n = 0, cur_run = k % 2 ? cur : 0;
                        x = x * 6364136223846793005u + 1442695040888963407u;
                        for (size_t i = (size_t)(x >> 33) % N; i < N && n < 64; i += 1 + i % 5)
                                run[n++] = (uint32_t)i;
                        for (size_t j = 0; k % 3 == 2 && j + 1 < n; j += 2) {
                                uint32_t y = run[j]; /* some out of order */
                                run[j] = run[j + 1];
                                run[j + 1] = y;
                        }
                        tpa_trace_get_aux_run(tr, run, n, (tpa_aux_key)key, &cur_run, -7, got);
                        for (size_t j = 0; j < n; j++)
                                run_ok &= tpa_trace_get_aux(tr, run[j], (tpa_aux_key)key, &a)
                                          ? got[j] == a : got[j] == -7;
                }
                while (tpa_trace_next_aux(tr, (tpa_aux_key)key, &at, &b)) {
                        for (; last < at; last++)
                                next_ok &= !tpa_trace_get_aux(tr, last, (tpa_aux_key)key, &a);
                        next_ok &= tpa_trace_get_aux(tr, at, (tpa_aux_key)key, &a) && a == b;
                        last = ++at;
                }
                for (; last < N; last++)
                        next_ok &= !tpa_trace_get_aux(tr, last, (tpa_aux_key)key, &a);
        }
        ok(seq_ok, "test_trace__aux_walks: get_aux_seq in event order as get_aux");
        ok(stride_ok, "test_trace__aux_walks: ... with strides");
        ok(any_ok, "test_trace__aux_walks: ... in any order");
        ok(next_ok, "test_trace__aux_walks: next_aux gives each event with the key, in turn");
        ok(run_ok, "test_trace__aux_walks: get_aux_run as get_aux, `none` for none");
        tpa_trace_free(tr);
}

/* tpa_trace__set_new_aux() gives the extras tpa_trace__set_aux() one at a
 * time gives: new values among extras of other keys set in order and out
 * of order, some past the last extra, few and many (past the point where
 * the out-of-order ones join the rest), looked up every way. */
static void test_trace__set_new_aux(void)
{
        enum { N = 30000 };
        bool same = true, seq_ok = true;

        for (int round = 0; round < 3; round++) {
                tpa_trace *tr[2];
                tpa_event ev = { .ts = 1, .dur = 1, .kind = TPA_KIND_KERNEL };
                tpa_aux_set *v = malloc(N * sizeof(*v));
                uint64_t x = 0x2545f4914f6cdd1du + (uint64_t)round;
                size_t n = 0, every = round == 0 ? 97 : round == 1 ? 5 : 2;

                for (int t = 0; t < 2; t++) {
                        tpa_trace_new(&tr[t], NULL);
                        for (size_t i = 0; i < N; i++) {
                                tpa_trace__add_event(tr[t], &ev, NULL, NULL);
                                /* other keys in order, up to three quarters in */
                                if (i % 3 == 0 && i < N / 4 * 3)
                                        tpa_trace__set_aux(tr[t], i, TPA_AUX_BYTES, (int64_t)i, NULL);
                        }
                        tpa_trace__set_aux(tr[t], 17, TPA_AUX_OP, 5, NULL);   /* out of order */
                }
                for (size_t i = 1; v != NULL && i < N; i += 1 + (size_t)(x >> 60) % every) {
                        x = x * 6364136223846793005u + 1442695040888963407u;
                        v[n++] = (tpa_aux_set){ i, (int64_t)(x >> 16) };
                }
                for (size_t j = 0; j < n; j++)
                        tpa_trace__set_aux(tr[0], v[j].event, TPA_AUX_STEP_NUM, v[j].value, NULL);
                same &= v != NULL &&
                        tpa_trace__set_new_aux(tr[1], TPA_AUX_STEP_NUM, v, n, NULL) == 0;
                for (int key = 1; same && key <= 5; key++) {
                        size_t cur = 0;
                        for (size_t i = 0; i < N; i++) {
                                int64_t a = 0, b = 0, c = 0;
                                bool h = tpa_trace_get_aux(tr[0], i, (tpa_aux_key)key, &a);
                                same &= tpa_trace_get_aux(tr[1], i, (tpa_aux_key)key, &b) == h &&
                                        a == b;
                                seq_ok &= tpa_trace_get_aux_seq(tr[1], i, (tpa_aux_key)key, &cur,
                                                                &c) == h && (!h || c == b);
                        }
                }
                if (!same)
                        printf("# round %d: %zu values\n", round, n);
                for (int t = 0; t < 2; t++)
                        tpa_trace_free(tr[t]);
                free(v);
        }
        ok(same, "test_trace__set_new_aux: the extras set_aux gives, one at a time");
        ok(seq_ok, "test_trace__set_new_aux: ... in event order too");
}

static void test_trace__warnings(void)
{
        tpa_trace *tr;

        tpa_trace_new(&tr, NULL);
        tpa_trace__warn(tr, 10, "unknown phase '%c', ignoring", 'R');
        tpa_trace__warn(tr, 20, "unknown phase '%c', ignoring", 'R');
        tpa_trace__warn(tr, 30, "unknown phase '%c', ignoring", 'Z');
        tap_eq((int64_t)tpa_trace_warning_count(tr), 2, "test_trace__warnings: aggregated");
        ok(tpa_trace_warning(tr, 0)->count == 2 && tpa_trace_warning(tr, 0)->first_offset == 10,
           "test_trace__warnings: count and first offset");
        tpa_trace_free(tr);
}

/* A merged trace of two inputs, interleaved event by event, taken apart:
 * each part holds its input's processes, threads, events in read order,
 * extras (string-valued ones re-interned) and dist info, and nothing of
 * the other's. */
static void test_trace__split_input(void)
{
        tpa_trace *tr, *part[2] = { NULL, NULL };
        uint32_t proc[2], thread[2];
        tpa_str in_name[2], op[2], ev_name;
        int bad = 0;

        tpa_trace_new(&tr, NULL);
        tpa_trace__set_format(tr, TPA_FORMAT_CHROME_JSON, TPA_DIALECT_KINETO);
        tpa_trace__intern(tr, &ev_name, "shared", 6, NULL);
        for (int k = 0; k < 2; k++) {
                char s[16];
                tpa_input_info in = { .dist = TPA_DIST_INFO_INIT };
                int n = snprintf(s, sizeof(s), "rank%d.json", k);

                tpa_trace__intern(tr, &in_name[k], s, (size_t)n, NULL);
                n = snprintf(s, sizeof(s), "op-of-%d", k);
                tpa_trace__intern(tr, &op[k], s, (size_t)n, NULL);
                in.name = in_name[k];
                in.dist.rank = k;
                in.dist.world_size = 2;
                tpa_trace__get_process(tr, &proc[k], (tpa_id){ .num = 10 + k }, NULL);
                tpa_trace__get_thread(tr, &thread[k], proc[k], (tpa_id){ .num = 7 }, NULL);
                tpa_trace__process(tr, proc[k])->device = k;
                ok(tpa_trace__set_input(tr, proc[k], (uint32_t)k, &in, NULL) == 0,
                   "test_trace__split_input: mark input %d", k);
        }
        for (int i = 0; i < 1000; i++) {
                tpa_event ev = { .ts = i, .dur = 1, .name = ev_name, .track = thread[i % 2],
                                 .kind = TPA_KIND_KERNEL, .corr = (uint32_t)i };
                size_t at;

                tpa_trace__add_event(tr, &ev, &at, NULL);
                if (i % 3 == 0)
                        tpa_trace__set_aux(tr, at, TPA_AUX_BYTES, i, NULL);
                if (i % 5 == 0)
                        tpa_trace__set_aux(tr, at, TPA_AUX_OP, op[i % 2], NULL);
        }
        tpa_trace__set_aux(tr, 4, TPA_AUX_STEP_NUM, 44, NULL);  /* out of order */
        tap_eq((int64_t)tpa_trace_input_count(tr), 2, "test_trace__split_input: inputs");
        for (int k = 0; k < 2; k++) {
                const tpa_event *ev;
                int64_t v;

                ok(tpa_trace_split_input(tr, (size_t)k, &part[k], NULL) == 0,
                   "test_trace__split_input: split %d", k);
                tap_eq((int64_t)tpa_trace_event_count(part[k]), 500,
                       "test_trace__split_input: part %d's events", k);
                tap_eq((int64_t)tpa_trace_process_count(part[k]), 1,
                       "test_trace__split_input: part %d's process", k);
                tap_eq(tpa_trace_dist(part[k])->rank, k, "test_trace__split_input: rank %d", k);
                tap_eq(tpa_trace_process_c(part[k], 0)->device, k,
                       "test_trace__split_input: device kept");
                ok(tpa_trace_input_count(part[k]) == 0 &&
                   tpa_trace_process_c(part[k], 0)->input == 0,
                   "test_trace__split_input: a part is no merge");
                ok(tpa_trace_dialect(part[k]) == TPA_DIALECT_KINETO,
                   "test_trace__split_input: dialect kept");
                ev = tpa_trace_events(part[k]);
                for (int j = 0; j < 500; j++) {
                        int i = 2 * j + k;
                        bad += ev[j].ts != i || ev[j].corr != (uint32_t)i ||
                               strcmp(tpa_trace_str(part[k], ev[j].name), "shared") != 0;
                        bad += tpa_trace_get_aux(part[k], (size_t)j, TPA_AUX_BYTES, &v) !=
                               (i % 3 == 0) || (i % 3 == 0 && v != i);
                        if (tpa_trace_get_aux(part[k], (size_t)j, TPA_AUX_OP, &v) !=
                            (i % 5 == 0))
                                bad++;
                        else if (i % 5 == 0)
                                bad += strcmp(tpa_trace_str(part[k], (tpa_str)v),
                                              tpa_trace_str(tr, op[k])) != 0;
                }
        }
        tap_eq(bad, 0, "test_trace__split_input: events and extras as they were");
        ok(tpa_trace_get_aux(part[0], 2, TPA_AUX_STEP_NUM, &(int64_t){ 0 }),
           "test_trace__split_input: an extra set out of order follows its event");
        tpa_trace_free(part[0]);
        part[0] = NULL;
        ok(tpa_trace_split_input(tr, 2, &part[0], NULL) < 0 && part[0] == NULL,
           "test_trace__split_input: no such input, *out untouched");
        tpa_trace_free(part[1]);
        tpa_trace_free(tr);
}

int main(void)
{
        test_trace__intern();
        test_trace__threads();
        test_trace__many_processes();
        test_trace__events_aux();
        test_trace__reserve_events();
        test_trace__event_room();
        test_trace__aux_walks();
        test_trace__set_new_aux();
        test_trace__warnings();
        test_trace__split_input();
        return tap_done();
}
