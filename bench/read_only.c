/* SPDX-License-Identifier: MIT */
/*
 * read_only.c - the event-building pipeline alone, and the phases timed
 * apart: tpa_read_path() (inflate + yajl + building events) and, when the
 * library has the analysis, tpa_analyze() (sort, sweep, metrics, rules), each
 * with clock_gettime. bench/run.sh compares the full CLI run with these.
 *
 * Usage: read_only [--single] [--analyze [--analysis-threads N] [--report N] [--cpu]] FILE
 *   --single   one thread: the file is loaded into memory first (not timed)
 *              and read with tpa_read_memory(), which never starts the
 *              inflating thread unless asked
 *   --analyze  also run tpa_analyze() (default rules) and time it
 *   --analysis-threads N   tpa_analysis_options.threads: 1 or 2 (default:
 *              0, two for a large trace on a machine with two CPUs)
 *   --report N also write the JSON report N times to /dev/null, and time
 *              the fastest (it formats the steps on two threads when the
 *              analysis ran on two)
 *   --cpu      also the CPU time of tpa_analyze(), all threads
 *              (CLOCK_PROCESS_CPUTIME_ID): on a busy machine its wall time
 *              includes waiting for a CPU
 * Prints: read_s analyze_s events bytes_json trace_mem_bytes [report_s] [analyze_cpu_s]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tpa/tpa.h>
#ifdef TPA_BENCH_ANALYSIS
#include <tpa/analysis.h>
#include <tpa/report.h>
#endif

static double clock_s(clockid_t id)
{
        struct timespec ts;

        clock_gettime(id, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
        return clock_s(CLOCK_MONOTONIC);
}

static void *load(const char *path, size_t *size)
{
        struct stat st;
        char *buf;
        size_t got = 0;
        int fd = open(path, O_RDONLY);

        if (fd < 0 || fstat(fd, &st) != 0) {
                perror(path);
                exit(1);
        }
        buf = malloc((size_t)st.st_size + 1);
        while (buf != NULL && got < (size_t)st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
                if (n <= 0) {
                        perror(path);
                        exit(1);
                }
                got += (size_t)n;
        }
        close(fd);
        *size = got;
        return buf;
}

int main(int argc, char **argv)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        bool single = false, analyze = false, cpu = false;
        int threads = 0, reports = 0;
        const char *path = NULL;
        double t0, t_read, t_analyze = 0, t_report = 0, cpu_analyze = 0;
        tpa_trace *tr;
        void *mem = NULL;
        size_t mem_size = 0;
        int r;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--single") == 0)
                        single = true;
                else if (strcmp(argv[i], "--analyze") == 0)
                        analyze = true;
                else if (strcmp(argv[i], "--analysis-threads") == 0 && i + 1 < argc)
                        threads = atoi(argv[++i]);
                else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc)
                        reports = atoi(argv[++i]);
                else if (strcmp(argv[i], "--cpu") == 0)
                        cpu = true;
                else
                        path = argv[i];
        }
        if (path == NULL) {
                fprintf(stderr, "usage: read_only [--single] [--analyze "
                        "[--analysis-threads N] [--report N] [--cpu]] FILE\n");
                return 2;
        }
        if (single)
                mem = load(path, &mem_size);
        if (tpa_trace_new(&tr, &err) < 0)
                return 5;
        t0 = now();
        if (single)
                r = tpa_read_memory(tr, mem, mem_size, path, &ro, &err);
        else
                r = tpa_read_path(tr, path, &ro, &err);
        t_read = now() - t0;
        free(mem);
        if (r < 0) {
                fprintf(stderr, "read_only: %s: %s\n", path, err.msg);
                return 3;
        }
        if (analyze) {
#ifdef TPA_BENCH_ANALYSIS
                tpa_analysis_options ao = TPA_ANALYSIS_OPTIONS_INIT;
                tpa_analysis *a = NULL;
                tpa_rules *rules = NULL;

                /* the CLI's rules (not timed: it loads them before it reads): the
                 * steps' classes and findings are part of the analysis */
                if (tpa_rules_new_default(&rules, &err) < 0) {
                        fprintf(stderr, "read_only: rules: %s\n", err.msg);
                        return 5;
                }
                ao.threads = threads;
                ao.rules = rules;
                cpu_analyze = clock_s(CLOCK_PROCESS_CPUTIME_ID);
                t0 = now();
                r = tpa_analyze(&a, tr, &ao, &err);
                t_analyze = now() - t0;
                cpu_analyze = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu_analyze;
                if (r < 0) {
                        fprintf(stderr, "read_only: analysis: %s\n", err.msg);
                        return 5;
                }
                /* the JSON report, N times to /dev/null: the fastest */
                for (int k = 0; k < reports; k++) {
                        FILE *fp = fopen("/dev/null", "w");
                        double t;

                        if (fp == NULL) {
                                perror("/dev/null");
                                return 5;
                        }
                        t0 = now();
                        r = tpa_report_json(fp, tr, a, path, &err);
                        fclose(fp);
                        t = now() - t0;
                        if (r < 0) {
                                fprintf(stderr, "read_only: report: %s\n", err.msg);
                                return 5;
                        }
                        if (k == 0 || t < t_report)
                                t_report = t;
                }
                tpa_analysis_free(a);
                tpa_rules_free(rules);
#else
                fprintf(stderr, "read_only: this build has no analysis\n");
                return 2;
#endif
        }
        printf("%.6f %.6f %zu %llu %zu", t_read, t_analyze, tpa_trace_event_count(tr),
               (unsigned long long)tpa_trace_health_c(tr)->bytes_read,
               tpa_trace_memory_bytes(tr));
        if (reports > 0)
                printf(" %.6f", t_report);
        if (cpu && analyze)
                printf(" %.6f", cpu_analyze);
        printf("\n");
        tpa_trace_free(tr);
        return 0;
}
