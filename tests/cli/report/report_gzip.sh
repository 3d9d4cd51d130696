# a saved report kept gzip-compressed (r.json.gz, as CI keeps artifacts)
# is read as the report it is by diff, check, analyze and aggregate; read
# as a trace it was one of no events ("nothing to compare", a rank dropped)
tfprof-analyze --format json -o "$TPA_TMP/r.json" torch_input_bound.trace.json.gz
gzip -c "$TPA_TMP/r.json" > "$TPA_TMP/r.json.gz"
tfprof-analyze check torch_input_bound.trace.json.gz --baseline "$TPA_TMP/r.json.gz" |
        sed "s|$TPA_TMP/||g"
tfprof-analyze diff "$TPA_TMP/r.json.gz" torch_input_bound.trace.json.gz | grep '^class'
tfprof-analyze "$TPA_TMP/r.json.gz" | head -n 1 | sed "s|$TPA_TMP/||g"
tfprof-analyze --format json dist_rank0.pt.trace.json.gz | gzip -c > "$TPA_TMP/r0.json.gz"
tfprof-analyze --format json -o "$TPA_TMP/r1.json" dist_rank1.pt.trace.json.gz
tfprof-analyze aggregate "$TPA_TMP/r0.json.gz" "$TPA_TMP/r1.json" | head -n 1
