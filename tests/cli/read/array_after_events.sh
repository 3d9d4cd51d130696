# maps in an array that follows traceEvents at the same depth are not
# records (Kineto's deviceProperties may come after the events): 2 records
tfprof-analyze edge_array_after_events.json >"$TPA_TMP/out"; rc=$?
awk 'NF == 0 { exit } { print }' "$TPA_TMP/out"
exit $rc
