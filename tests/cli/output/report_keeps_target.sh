# a report that cannot be made leaves -o as it was
echo 'old report' >"$TPA_TMP/r.txt"
tfprof-analyze bad_missing_comma.json -o "$TPA_TMP/r.txt" 2>/dev/null
echo "exit $?"
cat "$TPA_TMP/r.txt"
tfprof-analyze kineto_small.json -o "$TPA_TMP/r.txt" && test -s "$TPA_TMP/r.txt" && echo "report written"
ls -A "$TPA_TMP"
