# the "what was read" section only (the report that follows has its own cases)
tfprof-analyze synth_tf2.trace.json.gz >"$TPA_TMP/out"; rc=$?
awk 'NF == 0 { exit } { print }' "$TPA_TMP/out"
exit $rc
