/* SPDX-License-Identifier: MIT */
/*
 * gen_reports.c - per-rank JSON reports of a made-up job, for timing
 * `tfprof-analyze aggregate` (bench/job.sh, bench/README.md). Each report
 * has the layout and size of a real one of that many steps: schema, tool,
 * the `distributed` object (what aggregate reads), then the rest a real
 * report holds (input, summary, a full entry per step with its buckets),
 * which aggregate must not pay for.
 *
 * Usage: gen_reports DIR RANKS STEPS
 * Writes DIR/rank-NNNNN.json. Deterministic: step s of rank r takes
 * 100 ms plus noise; in step s rank (s * 7919) % RANKS is the straggler,
 * 8 ms slower, and the others wait for it in the all-reduce; every 997th
 * rank lacks the last step.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t mix(uint64_t x)
{
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        return x ^ (x >> 33);
}

/* Noise in [0, range) ns for rank r, step s. */
static int64_t noise(int r, int s, int64_t range)
{
        return (int64_t)(mix((uint64_t)r * 1000003u + (uint64_t)s) % (uint64_t)range);
}

static const char *const buckets[] = {
        "compute", "transfer_h2d", "transfer_d2h", "transfer_d2d", "transfer_p2p",
        "sync_host_wait", "sync_collective", "input", "host_launch", "host_setup",
        "host_python", "host_compute", "idle",
};
static const char *const groups[] = { "compute", "transfer", "sync", "input", "host", "idle" };

static void write_rest(FILE *fp, int r, int steps, const int64_t *t)
{
        fprintf(fp, "  \"input\": {\n    \"path\": \"rank-%05d.pt.trace.json.gz\",\n"
                "    \"format\": \"chrome-json\",\n    \"dialect\": \"kineto\",\n"
                "    \"processes\": 3,\n    \"threads\": 9,\n    \"events\": %d\n  },\n",
                r, steps * 900);
        fprintf(fp, "  \"devices\": [\n    \"GPU:0\"\n  ],\n  \"cpu_only\": false,\n");
        fprintf(fp, "  \"steps\": [\n");
        for (int s = 0; s < steps; s++) {
                fprintf(fp, "    {\n      \"number\": %d,\n      \"start_ns\": %" PRId64 ",\n"
                        "      \"end_ns\": %" PRId64 ",\n      \"step_time_ns\": %" PRId64 ",\n"
                        "      \"excluded\": false,\n      \"excluded_reason\": null,\n"
                        "      \"class\": \"compute-bound\",\n      \"group_frac\": {\n",
                        s, (int64_t)s * 110000000, (int64_t)s * 110000000 + t[s], t[s]);
                for (int g = 0; g < 6; g++)
                        fprintf(fp, "        \"%s\": 0.%06d%s\n", groups[g],
                                (int)noise(r, s + g, 999999), g < 5 ? "," : "");
                fprintf(fp, "      },\n      \"bucket_ns\": {\n");
                for (int b = 0; b < 13; b++)
                        fprintf(fp, "        \"%s\": %" PRId64 "%s\n", buckets[b],
                                noise(r, s + b, t[s] / 13), b < 12 ? "," : "");
                fprintf(fp, "      },\n      \"bucket_frac\": {\n");
                for (int b = 0; b < 13; b++)
                        fprintf(fp, "        \"%s\": 0.%06d%s\n", buckets[b],
                                (int)noise(r, s + b + 7, 999999), b < 12 ? "," : "");
                fprintf(fp, "      },\n      \"findings\": []\n    }%s\n",
                        s + 1 < steps ? "," : "");
        }
        fprintf(fp, "  ],\n  \"metrics\": {\n    \"steps\": %d\n  }\n", steps);
}

int main(int argc, char **argv)
{
        int ranks, steps;

        if (argc != 4 || (ranks = atoi(argv[2])) <= 0 || (steps = atoi(argv[3])) <= 0) {
                fprintf(stderr, "usage: gen_reports DIR RANKS STEPS\n");
                return 2;
        }
        int64_t *t = malloc((size_t)steps * sizeof(*t));
        int64_t *c = malloc((size_t)steps * sizeof(*c));
        if (t == NULL || c == NULL)
                return 1;
        for (int r = 0; r < ranks; r++) {
                char path[4096];
                int n = r % 997 == 0 && steps > 1 ? steps - 1 : steps;
                FILE *fp;

                snprintf(path, sizeof(path), "%s/rank-%05d.json", argv[1], r);
                if ((fp = fopen(path, "w")) == NULL) {
                        perror(path);
                        return 1;
                }
                for (int s = 0; s < steps; s++) {
                        /* busy: 80 ms + noise (+8 ms on the straggler);
                         * everyone's step ends when the straggler's
                         * all-reduce does: 20 ms of all-reduce + its lead */
                        int64_t busy = 80000000 + noise(r, s, 2000000);
                        bool slow = (int)(((int64_t)s * 7919) % ranks) == r;
                        if (slow)
                                busy += 8000000;
                        c[s] = 20000000 + (slow ? 0 : 88000000 + noise(r, s + 1, 500000) - busy);
                        if (c[s] < 20000000)
                                c[s] = 20000000;
                        t[s] = busy + c[s];
                }
                fprintf(fp, "{\n  \"schema\": \"tfprof-analyze/report/v3\",\n  \"tool\": {\n"
                        "    \"name\": \"tfprof-analyze\",\n    \"version\": \"0.1.0\"\n  },\n"
                        "  \"distributed\": {\n    \"rank\": %d,\n    \"world_size\": %d,\n"
                        "    \"backend\": \"nccl\",\n    \"path\": \"rank-%05d.pt.trace.json.gz\",\n"
                        "    \"comm_ns\": %" PRId64 ",\n    \"overlap_ns\": %" PRId64 ",\n"
                        "    \"launch\": {\n      \"count\": %d,\n"
                        "      \"delay_median_ns\": %" PRId64 ",\n"
                        "      \"delay_p90_ns\": %" PRId64 ",\n      \"delay_max_ns\": %" PRId64
                        "\n    },\n    \"streams\": [\n      {\n"
                        "        \"name\": \"GPU:0 stream 7\",\n        \"queue_mean\": 4.5%02d,\n"
                        "        \"queue_max\": 12\n      }\n    ],\n    \"steps\": [\n",
                        r, ranks, r, (int64_t)steps * 30000000, (int64_t)steps * 9000000,
                        steps * 400, 5000 + noise(r, 0, 1000), 9000 + noise(r, 1, 2000),
                        40000 + noise(r, 2, 9000), (int)noise(r, 3, 99));
                for (int s = 0; s < n; s++)
                        fprintf(fp, "      {\n        \"number\": %d,\n"
                                "        \"step_time_ns\": %" PRId64 ",\n"
                                "        \"collective_ns\": %" PRId64 ",\n"
                                "        \"excluded\": false,\n"
                                "        \"class\": \"compute-bound\"\n      }%s\n",
                                s, t[s], c[s], s + 1 < n ? "," : "");
                fprintf(fp, "    ]\n  },\n");
                write_rest(fp, r, n, t);
                fprintf(fp, "}\n");
                if (fclose(fp) != 0) {
                        perror(path);
                        return 1;
                }
        }
        free(t);
        free(c);
        return 0;
}
