/* SPDX-License-Identifier: MIT */
/*
 * crc32.h - gzip's CRC-32, as zlib's crc32() computes it, faster where the
 * CPU multiplies without carries (x86-64 with PCLMULQDQ).
 */
#ifndef TPA_INPUT_CRC32_H
#define TPA_INPUT_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of the bytes before and `buf[0..len)`, given `crc`, theirs:
 * crc32(crc, buf, len) of zlib exactly (0 to start). */
uint32_t tpa_crc32__update(uint32_t crc, const uint8_t *buf, size_t len);

#endif
