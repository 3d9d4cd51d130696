# A saved JSON report reads back: against itself no change, and the trace
# it came from passes a check against it.
tfprof-analyze --format json torch_input_bound.trace.json.gz > "$TPA_TMP/r.json" || exit
tfprof-analyze diff "$TPA_TMP/r.json" "$TPA_TMP/r.json" | sed "s|$TPA_TMP/||g"
tfprof-analyze check torch_input_bound.trace.json.gz --baseline "$TPA_TMP/r.json" > "$TPA_TMP/check"
echo "check exit $?"
sed "s|$TPA_TMP/||g" "$TPA_TMP/check"
tfprof-analyze diff --format json "$TPA_TMP/r.json" torch_input_bound.trace.json.gz |
        sed "s|$TPA_TMP/||g"
