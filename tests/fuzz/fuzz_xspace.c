/* SPDX-License-Identifier: MIT */
/*
 * fuzz_xspace.c - libFuzzer target: XSpace protobuf (lib/parse/xspace.c),
 * reached through tpa_read_memory() with the format given, so gzip framing
 * is exercised too. See fuzz_check.h for the contracts checked.
 *
 * The reader walks the wire itself rather than through protobuf-c, and must
 * refuse exactly what protobuf-c refuses: on plain (not gzip) input, a read
 * fails if tpapb__xspace__unpack() fails, and never says the protobuf is
 * invalid when it succeeds. An input cut short is read up to the cut
 * (parse/pb_trim.h), so what protobuf-c gets then is its whole part.
 */
#include <stdlib.h>

#include "fuzz_check.h"
#include "model/trace_build.h"
#include "parse/pb_trim.h"
#include "xplane.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_against_protobuf_c(const uint8_t *data, size_t size)
{
        tpa_read_options ro = fuzz_read_options(TPA_FORMAT_XSPACE);
        tpa_error err = TPA_ERROR_INIT;
        Tpapb__XSpace *xs;
        tpa_trace *tr;
        int r;

        if (fuzz_is_gzip(data, size) || size > ro.max_message ||
            tpa_trace_new(&tr, &err) < 0)
                return;
        static const uint32_t fields[] = { 1, 3, 4 };
        const tpa_pb_path path = { fields, 3 };
        uint8_t *whole;
        bool cut;

        r = tpa_read_memory(tr, data, size, "fuzz", &ro, &err);
        cut = tpa_trace__health(tr)->truncated;
        tpa_trace_free(tr);
        if ((whole = malloc(size + 1)) == NULL)
                return;
        memcpy(whole, data, size);
        if (tpa_pb__trim(whole, &size, &path) == TPA_PB_CUT)
                FUZZ_ASSERT(r < 0 || cut);
        else
                FUZZ_ASSERT(!cut);
        xs = tpapb__xspace__unpack(NULL, size, whole);
        free(whole);
        if (xs == NULL)
                FUZZ_ASSERT(r < 0);
        else
                FUZZ_ASSERT(r == 0 || strstr(err.msg, "not a valid XSpace") == NULL);
        tpapb__xspace__free_unpacked(xs, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        fuzz_read(data, size, TPA_FORMAT_XSPACE);
        check_against_protobuf_c(data, size);
        return 0;
}
