printf '{"schema": "tfprof-analyze/report/v3", "summary": [1,,2]}' > "$TPA_TMP/bad.json"
tfprof-analyze diff "$TPA_TMP/bad.json" torch_input_bound.trace.json.gz 2>&1 | sed "s|$TPA_TMP/||g"
