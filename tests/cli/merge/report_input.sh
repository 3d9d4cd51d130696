# a saved report given to merge or convert (rank 0's report beside rank
# 1's trace) holds no events: refused (exit 3), not merged in as nothing
# with exit 0, and no output is written
tfprof-analyze --format json -o "$TPA_TMP/r0.json" dist_rank0.pt.trace.json.gz
tfprof-analyze merge "$TPA_TMP/r0.json" dist_rank1.pt.trace.json.gz -o "$TPA_TMP/m.json" \
        2>&1 | sed "s|$TPA_TMP/||g"
tfprof-analyze convert "$TPA_TMP/r0.json" -o "$TPA_TMP/c.json" 2>&1 | sed "s|$TPA_TMP/||g"
ls -A "$TPA_TMP"
