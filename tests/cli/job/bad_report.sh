# a report from before schema v3, or not a report, is refused with the reason
printf '{"schema": "tfprof-analyze/report/v2", "tool": {}}' > "$TPA_TMP/old.json"
{ tfprof-analyze aggregate "$TPA_TMP/old.json"; echo "exit $?"; } 2>&1 | sed "s|$TPA_TMP/||g"
printf '{"schema": "tfprof-analyze/report/v3", "tool": {}, "input": {}}' > "$TPA_TMP/none.json"
{ tfprof-analyze aggregate "$TPA_TMP/none.json"; echo "exit $?"; } 2>&1 | sed "s|$TPA_TMP/||g"
tfprof-analyze aggregate
