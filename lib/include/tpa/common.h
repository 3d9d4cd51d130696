/* SPDX-License-Identifier: MIT */
/*
 * tpa/common.h - the base types every tpa header shares: time, string ids,
 * status codes and the error record that fallible calls fill in.
 */
#ifndef TPA_COMMON_H
#define TPA_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __GNUC__
#define TPA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TPA_PRINTF(fmt, args)
#endif

/* All times are nanoseconds, signed 64-bit, everywhere. */
typedef int64_t tpa_ns;

/* An interned string: an index into a trace's string table. 0 is "". */
typedef uint32_t tpa_str;
#define TPA_STR_EMPTY 0u

typedef enum tpa_status {
        TPA_OK        = 0,
        TPA_EFORMAT   = -1,     /* the input is not what it claims to be */
        TPA_ELIMIT    = -2,     /* the input exceeds a cap (depth, size, count) */
        TPA_ERULE     = -3,     /* a rule file or expression is invalid */
        TPA_EIO       = -4,     /* the environment failed: see sys_errno */
        TPA_ENOMEM    = -5,     /* out of memory */
        TPA_EINVAL    = -6,     /* a bad argument from the caller (usage) */
        TPA_EINTERNAL = -7,     /* a bug */
        TPA_ENOTTRACE = -8,     /* well-formed input that is no trace (a saved report,
                                   an execution trace, a JSON object of no events) */
} tpa_status;

typedef struct tpa_error {
        int         code;       /* a tpa_status; TPA_OK when clear */
        int         sys_errno;  /* errno for TPA_EIO, else 0 */
        const char *path;       /* borrowed from the caller; may be NULL */
        uint64_t    offset;     /* byte offset into the decompressed stream */
        uint64_t    event;      /* 1-based event index; 0 if unknown */
        uint32_t    line;       /* 1-based line for rule files; 0 if none */
        uint32_t    column;     /* 1-based column for rule files; 0 if none */
        bool        has_offset; /* offset is meaningful */
        char        msg[200];   /* one line, lower case, no final period */
} tpa_error;
#define TPA_ERROR_INIT { .code = TPA_OK }

/* Fill `err` (which may be NULL) and return `code`, so that setting and
 * returning fit on one line. The offset is recorded as meaningful. */
int tpa_error_set(tpa_error *err, int code, uint64_t offset, const char *fmt, ...)
        TPA_PRINTF(4, 5);
/* As tpa_error_set(), for errors with no byte offset. */
int tpa_error_setf(tpa_error *err, int code, const char *fmt, ...) TPA_PRINTF(3, 4);
/* As tpa_error_setf() with code TPA_EIO and sys_errno = errno_value. */
int tpa_error_set_sys(tpa_error *err, int errno_value, const char *fmt, ...)
        TPA_PRINTF(3, 4);
/* As tpa_error_setf(err, TPA_ENOMEM, "out of memory"): returns TPA_ENOMEM. */
int tpa_error_oom(tpa_error *err);
/* A short lower-case name for a status, e.g. "bad input". */
const char *tpa_status_name(int code);

/* The version string, e.g. "0.1.0". */
const char *tpa_version(void);

#endif
