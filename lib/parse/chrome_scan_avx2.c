/* SPDX-License-Identifier: MIT */
/*
 * chrome_scan_avx2.c - the segment scanner (chrome_scan.c) built for AVX2
 * (meson gives this file -mavx2): its strings' rest found and its keys
 * and records' heads compared 32 bytes a step, its times' digits valued
 * by multiply-adds. tpa_chrome__scan_segment() calls it on CPUs that have
 * AVX2.
 */
#define TPA_JSON_BUILD_AVX2 1
#include "parse/chrome_scan.c"
