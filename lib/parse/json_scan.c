/* SPDX-License-Identifier: MIT */
/*
 * json_scan.c - which of the JSON byte scanners (json_scan.h) the readers
 * run: the segment scanner and the byte filter are built twice on x86-64,
 * for SSE2 (every x86-64) and for AVX2 (with PCLMULQDQ), and the AVX2
 * build runs on CPUs that have both.
 */
#include <pthread.h>

#include "parse/json_scan.h"

static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static enum tpa_json_isa isa_cpu;
static enum tpa_json_isa isa_limit = TPA_JSON_ISA_AVX2;

static void isa_probe(void)
{
#if defined(TPA_HAVE_AVX2_BUILD) && defined(TPA_JSON_HAVE_AVX2)
        __builtin_cpu_init();
        /* the AVX2 builds also use PCLMULQDQ (lib/meson.build) */
        isa_cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul")
                          ? TPA_JSON_ISA_AVX2
                          : TPA_JSON_ISA_SSE2;
#elif defined(TPA_JSON_HAVE_SSE2)
        isa_cpu = TPA_JSON_ISA_SSE2;
#else
        isa_cpu = TPA_JSON_ISA_SCALAR;
#endif
}

enum tpa_json_isa tpa_json__isa(void)
{
        pthread_once(&isa_once, isa_probe);
        return isa_cpu < isa_limit ? isa_cpu : isa_limit;
}

void tpa_json__limit_isa(enum tpa_json_isa widest)
{
        isa_limit = widest;
}
