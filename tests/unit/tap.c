/* SPDX-License-Identifier: MIT */
/* tap.c - see tap.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"

static int count, failed;

TAP_PRINTF(2, 0)
static void line(bool cond, const char *fmt, va_list ap)
{
        printf("%s %d - ", cond ? "ok" : "not ok", ++count);
        vprintf(fmt, ap);
        putchar('\n');
        if (!cond)
                failed++;
}

bool tap_ok(bool cond, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        line(cond, fmt, ap);
        va_end(ap);
        return cond;
}

bool tap_eq(int64_t got, int64_t want, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        line(got == want, fmt, ap);
        va_end(ap);
        if (got != want)
                printf("#   got %" PRId64 ", want %" PRId64 "\n", got, want);
        return got == want;
}

bool tap_streq(const char *got, const char *want, const char *fmt, ...)
{
        bool same = got != NULL && want != NULL ? strcmp(got, want) == 0 : got == want;
        va_list ap;

        va_start(ap, fmt);
        line(same, fmt, ap);
        va_end(ap);
        if (!same)
                printf("#   got '%s', want '%s'\n", got ? got : "(null)", want ? want : "(null)");
        return same;
}

void tap_skip(const char *why)
{
        printf("ok %d # SKIP %s\n", ++count, why);
}

int tap_done(void)
{
        printf("1..%d\n", count);
        fflush(stdout);
        return failed ? 1 : 0;
}

const char *tap_testdata(const char *name)
{
        static char buf[4096];
        const char *dir = getenv("TPA_TESTDATA");

        snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "testdata", name);
        return buf;
}

const char *tap_corpus(void)
{
        const char *dir = getenv("TPA_CORPUS");
        struct stat st;

        if (dir == NULL || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
                return NULL;
        return dir;
}

uint64_t tap_rand(uint64_t *state)
{
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        return *state;
}
