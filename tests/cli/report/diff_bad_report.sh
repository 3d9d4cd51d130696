printf '{"schema": "tfprof-analyze/report/v3", "summary": [1,,2]}' > "$TPA_TMP/bad.json"
tfprof-analyze diff "$TPA_TMP/bad.json" torch_input_bound.trace.json.gz 2>&1 | sed "s|$TPA_TMP/||g"
# a report of an older schema: say what to do about it
printf '{"schema": "tfprof-analyze/report/v2", "summary": {}}' > "$TPA_TMP/v2.json"
tfprof-analyze diff "$TPA_TMP/v2.json" torch_input_bound.trace.json.gz 2>"$TPA_TMP/e"
echo "exit: $?"; sed "s|$TPA_TMP/||g" "$TPA_TMP/e"
