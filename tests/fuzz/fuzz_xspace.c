/* SPDX-License-Identifier: MIT */
/*
 * fuzz_xspace.c - libFuzzer target: XSpace protobuf (lib/parse/xspace.c),
 * reached through tpa_read_memory() with the format given, so gzip framing
 * is exercised too. See fuzz_check.h for the contracts checked.
 */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        fuzz_read(data, size, TPA_FORMAT_XSPACE);
        return 0;
}
