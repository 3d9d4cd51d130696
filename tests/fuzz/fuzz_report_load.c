/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report_load.c - libFuzzer target: the saved JSON report loader
 * (lib/report/report_load.c), of plain or gzip-compressed text. Any bytes
 * either load or fail with TPA_EFORMAT (TPA_ELIMIT: inflated past the
 * cap) and a message (one line of UTF-8; an offset into the input, or into
 * the inflated text of a gzip one), leaving *out untouched; a run that loaded
 * compares with itself (no significant change, no class change, no op
 * change) and answers metric lookups. Seeds: testdata/fuzz/report_load/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "model/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                             \
        do {                                                                          \
                if (!(cond)) {                                                        \
                        fprintf(stderr, "%s:%d: broken contract: %s\n", __FILE__,     \
                                __LINE__, #cond);                                     \
                        abort();                                                      \
                }                                                                     \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_run *r = NULL;
        tpa_comparison *c = NULL;
        double v;
        int rc;

        rc = tpa_report_load_memory(&r, data, size, &err);
        if (rc < 0) {
                FUZZ_ASSERT(r == NULL);
                FUZZ_ASSERT(rc == TPA_EFORMAT || rc == TPA_ELIMIT || rc == TPA_ENOMEM);
                FUZZ_ASSERT(err.code == rc && err.msg[0] != '\0');
                /* one line of UTF-8, whatever the input quoted in it */
                FUZZ_ASSERT(strchr(err.msg, '\n') == NULL);
                FUZZ_ASSERT(tpa_utf8__valid_prefix(err.msg, strlen(err.msg)) ==
                            strlen(err.msg));
                FUZZ_ASSERT(!err.has_offset || err.offset <= size ||
                            (size >= 2 && data[0] == 0x1f && data[1] == 0x8b));
                return 0;
        }
        FUZZ_ASSERT(r != NULL);
        for (size_t i = 0; i < r->metric_count; i++)
                FUZZ_ASSERT(tpa_run_metric_fn(r, r->metrics[i].name,
                                              strlen(r->metrics[i].name), &v));
        if (r->step_count > 0) {
                rc = tpa_compare(&c, r, r, NULL, &err);
                FUZZ_ASSERT(rc == 0);
                FUZZ_ASSERT(c->median.rel == 0 && !c->class_changed && c->op_count == 0);
                FUZZ_ASSERT(c->median.too_few || !c->median.significant);
                tpa_comparison_free(c);
        }
        tpa_run_free(r);
        return 0;
}
