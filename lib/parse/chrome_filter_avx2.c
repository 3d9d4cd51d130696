/* SPDX-License-Identifier: MIT */
/*
 * chrome_filter_avx2.c - the byte filter (chrome_filter.c) built for AVX2
 * (meson gives this file -mavx2 -mpclmul): its 64-byte blocks' masks from
 * two loads, their prefix XOR from one carry-less multiplication.
 * tpa_chrome__filter_chunk() calls it on CPUs that have both.
 */
#define TPA_JSON_BUILD_AVX2 1
#include "parse/chrome_filter.c"
