/* SPDX-License-Identifier: MIT */
/*
 * measure.c - run a command and report its wall time and peak RSS, as
 * bench/run.sh needs them for every tool it compares (ours, gzip, Python,
 * HTA) in one way: wait4()'s ru_maxrss and a monotonic clock.
 *
 * Usage: measure RESULT_FILE CMD [ARGS...]
 * Appends "wall_s maxrss_kb exit_status cpu_s" to RESULT_FILE (cpu_s: user +
 * system time of the command, all threads); the command's own output passes
 * through. Exits with the command's status.
 */
#include <errno.h>
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

int main(int argc, char **argv)
{
        struct rusage ru;
        double t0, t1;
        FILE *f;
        pid_t pid;
        int status = 0, code;

        if (argc < 3) {
                fprintf(stderr, "usage: measure RESULT_FILE CMD [ARGS...]\n");
                return 2;
        }
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
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        f = fopen(argv[1], "a");
        if (f == NULL) {
                perror(argv[1]);
                return 127;
        }
        fprintf(f, "%.6f %ld %d %.6f\n", t1 - t0, ru.ru_maxrss, code,
                (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6);
        fclose(f);
        return code;
}
