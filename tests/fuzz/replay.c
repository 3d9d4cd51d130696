/* SPDX-License-Identifier: MIT */
/*
 * replay.c - a main() for a fuzz target when there is no libFuzzer: run
 * every file under each directory (or each file) named on the command line
 * through LLVMFuzzerTestOneInput() once, in name order, and print TAP. A
 * crash or a broken contract aborts, which fails the test (zstd's
 * regression_driver.c, libvips' StandaloneFuzzTargetMain.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int tests;

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
        FILE *fp = fopen(path, "rb");
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;

        if (fp == NULL) {
                printf("not ok %d - %s: %s\n", ++tests, path, strerror(errno));
                return 1;
        }
        for (;;) {
                size_t n;
                if (cap - len < 65536) {
                        uint8_t *nb = realloc(buf, cap * 2 + 65536);
                        if (nb == NULL) {
                                fclose(fp);
                                free(buf);
                                printf("not ok %d - %s: out of memory\n", ++tests, path);
                                return 1;
                        }
                        buf = nb;
                        cap = cap * 2 + 65536;
                }
                n = fread(buf + len, 1, cap - len, fp);
                len += n;
                if (n == 0)
                        break;
        }
        if (ferror(fp)) {
                fclose(fp);
                free(buf);
                printf("not ok %d - %s: read error\n", ++tests, path);
                return 1;
        }
        fclose(fp);
        /* Announce first: if the target aborts, the log names the input. */
        fprintf(stderr, "# replaying %s (%zu bytes)\n", path, len);
        fflush(stderr);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        printf("ok %d - %s\n", ++tests, path);
        fflush(stdout);
        return 0;
}

static int run_path(const char *path)
{
        struct stat st;
        DIR *d;
        struct dirent *de;
        char **names = NULL;
        size_t count = 0, cap = 0;
        int bad = 0;

        if (stat(path, &st) != 0) {
                printf("not ok %d - %s: %s\n", ++tests, path, strerror(errno));
                return 1;
        }
        if (!S_ISDIR(st.st_mode))
                return run_file(path);
        d = opendir(path);
        if (d == NULL) {
                printf("not ok %d - %s: %s\n", ++tests, path, strerror(errno));
                return 1;
        }
        while ((de = readdir(d)) != NULL) {
                char *full;
                if (de->d_name[0] == '.')       /* ., .., and hidden files */
                        continue;
                if (count == cap) {
                        char **nn = realloc(names, (cap * 2 + 16) * sizeof(*names));
                        if (nn == NULL)
                                abort();
                        names = nn;
                        cap = cap * 2 + 16;
                }
                size_t size = strlen(path) + strlen(de->d_name) + 2;
                full = malloc(size);
                if (full == NULL)
                        abort();
                snprintf(full, size, "%s/%s", path, de->d_name);
                names[count++] = full;
        }
        closedir(d);
        qsort(names, count, sizeof(*names), cmp_names);
        for (size_t i = 0; i < count; i++) {
                bad |= run_path(names[i]);
                free(names[i]);
        }
        free(names);
        return bad;
}

int main(int argc, char **argv)
{
        int bad = 0;

        if (argc < 2) {
                fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
                return 2;
        }
        for (int i = 1; i < argc; i++)
                bad |= run_path(argv[i]);
        if (tests == 0)
                printf("ok %d # SKIP no inputs\n", ++tests);
        printf("1..%d\n", tests);
        return bad;
}
