# A trace with no timed events (metadata only): no steps, no verdict, no
# findings, exit 0; the JSON report's class is null.
cd "$TPA_TMP" || exit 99
printf '{"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"p"}}]}' > e.json
tfprof-analyze e.json | sed -n '/^steps/,$p'
tfprof-analyze --format json e.json | grep -E '"(class|kept_steps)"' | head -2
tfprof-analyze --format markdown e.json | head -1
