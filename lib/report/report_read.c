/* SPDX-License-Identifier: MIT */
/*
 * report_read.c - the "what was read" section of the text report.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tpa/report.h"

void tpa_report_read_summary(FILE *fp, const tpa_trace *tr, const char *path)
{
        const tpa_health *h = tpa_trace_health_c(tr);
        const tpa_event *ev = tpa_trace_events(tr);
        size_t n = tpa_trace_event_count(tr);
        uint64_t by_kind[TPA_KIND__COUNT] = { 0 };

        for (size_t i = 0; i < n; i++)
                by_kind[ev[i].kind]++;
        fprintf(fp, "%s: %s (%s)\n", path, tpa_format_name(tpa_trace_format(tr)),
                tpa_dialect_name(tpa_trace_dialect(tr)));
        fprintf(fp, "  events: %zu kept of %" PRIu64 " records\n", n, h->records_read);
        for (int k = 0; k < TPA_KIND__COUNT; k++)
                if (by_kind[k] != 0)
                        fprintf(fp, "    %-12s %" PRIu64 "\n", tpa_kind_name((tpa_kind)k),
                                by_kind[k]);
}
