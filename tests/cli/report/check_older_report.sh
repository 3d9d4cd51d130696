# a report of an earlier version lacks this one's newer metrics: a
# --fail-if on one is refused as the report's lack (exit 3), not as an
# unknown metric, and diff says the report is older
tfprof-analyze --format json -o "$TPA_TMP/new.json" torch_input_bound.trace.json.gz
grep -v '"host_checkpoint_\|"host_gap_max_' "$TPA_TMP/new.json" > "$TPA_TMP/old.json"
tfprof-analyze check "$TPA_TMP/old.json" --fail-if 'host_checkpoint_frac > 0.1' \
        2>"$TPA_TMP/err"
echo "exit $?"
tfprof-analyze check "$TPA_TMP/old.json" --fail-if 'no_such_metric > 1' 2>>"$TPA_TMP/err"
echo "exit $?"
# the name the evaluation failed on is the one said, not a lacked one
# that the expression names after it
tfprof-analyze check "$TPA_TMP/old.json" \
        --fail-if 'no_such_metric > 1 or host_checkpoint_frac > 0.1' \
        2>>"$TPA_TMP/err"
echo "exit $?"
tfprof-analyze diff "$TPA_TMP/old.json" torch_input_bound.trace.json.gz >/dev/null \
        2>>"$TPA_TMP/err"
echo "exit $?"
tfprof-analyze check torch_input_bound.trace.json.gz --baseline "$TPA_TMP/new.json" \
        2>>"$TPA_TMP/err" | sed "s|$TPA_TMP/||g"
sed "s|$TPA_TMP/||g" "$TPA_TMP/err"
# analyze shows it again, its findings the earlier build's: said too
tfprof-analyze "$TPA_TMP/old.json" --fail-on-severity error 2>&1 >/dev/null |
        sed "s|$TPA_TMP/||g"
