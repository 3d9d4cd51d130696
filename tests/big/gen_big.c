/* SPDX-License-Identifier: MIT */
/*
 * gen_big.c - stream a Chrome trace of a given size to stdout, for the
 * > 4 GiB test (big4g.sh): one process_name record, then 'X' events of a
 * fixed shape, each padded with an args string so that gigabytes take
 * few events (bounded memory in the reader). It says on stderr exactly
 * what it wrote, so the test can compare the reader's figures with it:
 *
 *   records=R events=N bytes=B [error_at=K | cut_at=K]
 *
 * Usage: gen_big BYTES [PAD] [ok|bad|cut]
 *   ok   a complete trace of at least BYTES bytes (default)
 *   bad  the same, but the last event is followed by a syntax error ("@")
 *        at byte K >= BYTES
 *   cut  the stream stops in the middle of an event after BYTES bytes
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t written;

static void out(const char *s, size_t n)
{
        if (fwrite(s, 1, n, stdout) != n) {
                perror("gen_big: write");
                exit(1);
        }
        written += n;
}

int main(int argc, char **argv)
{
        static const char head[] = "{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":1,"
                                   "\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}}";
        uint64_t target, events = 0;
        size_t pad_len = 4000;
        const char *mode = "ok";
        char *pad, ev[256];

        if (argc < 2 || argc > 4) {
                fprintf(stderr, "usage: gen_big BYTES [PAD] [ok|bad|cut]\n");
                return 2;
        }
        target = strtoull(argv[1], NULL, 10);
        if (argc > 2)
                pad_len = strtoul(argv[2], NULL, 10);
        if (argc > 3)
                mode = argv[3];
        pad = malloc(pad_len + 1);
        if (pad == NULL)
                return 1;
        memset(pad, 'x', pad_len);
        pad[pad_len] = '\0';
        out(head, sizeof(head) - 1);
        while (written < target) {
                /* ts in µs, one a microsecond apart; 8 threads, 16 names. */
                int n = snprintf(ev, sizeof(ev),
                                 ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%" PRIu64 ",\"ts\":%" PRIu64
                                 ".5,\"dur\":0.25,\"name\":\"op_%" PRIu64 "\",\"args\":{\"pad\":\"",
                                 events % 8 + 1, events, events % 16);
                if (strcmp(mode, "cut") == 0 && written + (uint64_t)n + pad_len >= target) {
                        /* Stop inside this event's pad string. */
                        out(ev, (size_t)n);
                        out(pad, (size_t)(target - written < pad_len ? target - written
                                                                     : pad_len / 2));
                        fflush(stdout);
                        fprintf(stderr, "records=%" PRIu64 " events=%" PRIu64
                                " bytes=%" PRIu64 " cut_at=%" PRIu64 "\n",
                                events + 1, events, written, written);
                        return 0;
                }
                out(ev, (size_t)n);
                out(pad, pad_len);
                out("\"}}", 3);
                events++;
        }
        if (strcmp(mode, "bad") == 0) {
                uint64_t at = written + 2;      /* after ",\n" */
                out(",\n@", 3);
                fflush(stdout);
                fprintf(stderr, "records=%" PRIu64 " events=%" PRIu64 " bytes=%" PRIu64
                        " error_at=%" PRIu64 "\n", events + 1, events, written, at);
                return 0;
        }
        out("\n]}\n", 4);
        if (fflush(stdout) != 0) {
                perror("gen_big: write");
                return 1;
        }
        fprintf(stderr, "records=%" PRIu64 " events=%" PRIu64 " bytes=%" PRIu64 "\n",
                events + 1, events, written);
        free(pad);
        return 0;
}
