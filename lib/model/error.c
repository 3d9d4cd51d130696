/* SPDX-License-Identifier: MIT */
/*
 * error.c - filling a tpa_error; naming statuses, kinds and formats.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tpa/trace.h"
#include "model/utf8.h"

TPA_PRINTF(3, 0)
static void fill(tpa_error *err, int code, const char *fmt, va_list ap)
{
        err->code = code;
        err->sys_errno = 0;
        err->line = 0;
        err->column = 0;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        tpa_utf8__one_line(err->msg);
}

int tpa_error_set(tpa_error *err, int code, uint64_t offset, const char *fmt, ...)
{
        va_list ap;

        if (err == NULL)
                return code;
        va_start(ap, fmt);
        fill(err, code, fmt, ap);
        va_end(ap);
        err->offset = offset;
        err->has_offset = true;
        return code;
}

int tpa_error_setf(tpa_error *err, int code, const char *fmt, ...)
{
        va_list ap;

        if (err == NULL)
                return code;
        va_start(ap, fmt);
        fill(err, code, fmt, ap);
        va_end(ap);
        err->has_offset = false;
        return code;
}

int tpa_error_set_sys(tpa_error *err, int errno_value, const char *fmt, ...)
{
        va_list ap;
        size_t len;

        if (err == NULL)
                return TPA_EIO;
        va_start(ap, fmt);
        fill(err, errno_value == ENOMEM ? TPA_ENOMEM : TPA_EIO, fmt, ap);
        va_end(ap);
        err->sys_errno = errno_value;
        err->has_offset = false;
        len = strlen(err->msg);
        if (errno_value != 0 && len + 3 < sizeof(err->msg))
                snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(errno_value));
        return err->code;
}

int tpa_error_oom(tpa_error *err)
{
        return tpa_error_setf(err, TPA_ENOMEM, "out of memory");
}

const char *tpa_status_name(int code)
{
        switch (code) {
        case TPA_OK:        return "ok";
        case TPA_EFORMAT:   return "bad input";
        case TPA_ELIMIT:    return "input exceeds a limit";
        case TPA_ERULE:     return "bad rules";
        case TPA_EIO:       return "i/o error";
        case TPA_ENOMEM:    return "out of memory";
        case TPA_EINVAL:    return "bad argument";
        case TPA_EINTERNAL: return "internal error";
        case TPA_ENOTTRACE: return "not a trace";
        }
        return "unknown error";
}

const char *tpa_version(void)
{
        return TPA_VERSION;
}

const char *tpa_kind_name(tpa_kind kind)
{
        static const char *const names[TPA_KIND__COUNT] = {
                [TPA_KIND_OTHER] = "other",         [TPA_KIND_KERNEL] = "kernel",
                [TPA_KIND_COPY_H2D] = "copy_h2d",   [TPA_KIND_COPY_D2H] = "copy_d2h",
                [TPA_KIND_COPY_D2D] = "copy_d2d",   [TPA_KIND_COPY_P2P] = "copy_p2p",
                [TPA_KIND_COLLECTIVE] = "collective", [TPA_KIND_MEMSET] = "memset",
                [TPA_KIND_HOST_OP] = "host_op",     [TPA_KIND_INPUT] = "input",
                [TPA_KIND_SYNC] = "sync",           [TPA_KIND_LAUNCH] = "launch",
                [TPA_KIND_SETUP] = "setup",
                [TPA_KIND_STEP] = "step",           [TPA_KIND_ANNOTATION] = "annotation",
        };
        return (unsigned)kind < TPA_KIND__COUNT ? names[kind] : "?";
}

const char *tpa_format_name(tpa_format f)
{
        static const char *const names[TPA_FORMAT__COUNT] = {
                [TPA_FORMAT_AUTO] = "auto",
                [TPA_FORMAT_CHROME_JSON] = "chrome-json",
                [TPA_FORMAT_STEPSTATS] = "run-metadata",
                [TPA_FORMAT_STEPSTATS_TEXT] = "run-metadata-text",
                [TPA_FORMAT_TFEVENTS] = "tfevents",
                [TPA_FORMAT_XSPACE] = "xspace",
        };
        return (unsigned)f < TPA_FORMAT__COUNT ? names[f] : "?";
}

const char *tpa_dialect_name(tpa_dialect d)
{
        static const char *const names[TPA_DIALECT__COUNT] = {
                [TPA_DIALECT_GENERIC] = "generic",
                [TPA_DIALECT_TF2] = "tf2",
                [TPA_DIALECT_TF1] = "tf1",
                [TPA_DIALECT_KINETO] = "kineto",
        };
        return (unsigned)d < TPA_DIALECT__COUNT ? names[d] : "?";
}

const char *tpa_runtime_name(tpa_runtime r)
{
        static const char *const names[TPA_RUNTIME__COUNT] = {
                [TPA_RUNTIME_UNKNOWN] = "unknown",
                [TPA_RUNTIME_CUDA] = "cuda",
                [TPA_RUNTIME_ROCM] = "rocm",
                [TPA_RUNTIME_MTIA] = "mtia",
        };
        return (unsigned)r < TPA_RUNTIME__COUNT ? names[r] : "?";
}
