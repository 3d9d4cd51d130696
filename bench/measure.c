/* SPDX-License-Identifier: MIT */
/*
 * measure.c - run a command and report its wall time and peak RSS, as
 * bench/run.sh needs them for every tool it compares (ours, gzip, Python,
 * HTA) in one way: wait4()'s ru_maxrss and a monotonic clock.
 *
 * Usage: measure RESULT_FILE CMD [ARGS...]
 * Appends "wall_s maxrss_kb exit_status cpu_s steal_pct" to RESULT_FILE
 * (cpu_s: user + system time of the command, all threads; steal_pct: the
 * share of the machine's CPU time, all CPUs, that the hypervisor took
 * while the command ran, from /proc/stat, or -1 where that cannot be
 * read); the command's own output passes through. Exits with the command's
 * status.
 *
 * Steal matters because the goals are wall times on two threads: on this
 * kind of VM a neighbour can take half of the CPU time for minutes, and a
 * run then measures one CPU, not the code (bench/README.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The machine's CPU time so far in clock ticks, all CPUs, and the part of
 * it stolen (proc(5): the first line of /proc/stat, "cpu user nice system
 * idle iowait irq softirq steal ..."; guest time is counted in user). False
 * when it cannot be read. */
static bool cpu_ticks(unsigned long long *total, unsigned long long *steal)
{
        unsigned long long v[8] = { 0 };
        FILE *f = fopen("/proc/stat", "r");
        int n;

        if (f == NULL)
                return false;
        n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]);
        fclose(f);
        if (n < 8)
                return false;
        *total = 0;
        for (int i = 0; i < 8; i++)
                *total += v[i];
        *steal = v[7];
        return true;
}

int main(int argc, char **argv)
{
        struct rusage ru;
        unsigned long long tot0 = 0, st0 = 0, tot1 = 0, st1 = 0;
        bool ticks;
        double t0, t1, steal = -1;
        FILE *f;
        pid_t pid;
        int status = 0, code;

        if (argc < 3) {
                fprintf(stderr, "usage: measure RESULT_FILE CMD [ARGS...]\n");
                return 2;
        }
        ticks = cpu_ticks(&tot0, &st0);
        t0 = now();
        pid = fork();
        if (pid < 0) {
                perror("measure: fork");
                return 127;
        }
        if (pid == 0) {
                execvp(argv[2], argv + 2);
                fprintf(stderr, "measure: %s: %s\n", argv[2], strerror(errno));
                _exit(127);
        }
        while (wait4(pid, &status, 0, &ru) < 0) {
                if (errno != EINTR) {
                        perror("measure: wait4");
                        return 127;
                }
        }
        t1 = now();
        if (ticks && cpu_ticks(&tot1, &st1) && tot1 > tot0)
                steal = 100.0 * (double)(st1 - st0) / (double)(tot1 - tot0);
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        f = fopen(argv[1], "a");
        if (f == NULL) {
                perror(argv[1]);
                return 127;
        }
        fprintf(f, "%.6f %ld %d %.6f %.1f\n", t1 - t0, ru.ru_maxrss, code,
                (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6, steal);
        fclose(f);
        return code;
}
