# a merge that fails leaves -o as it was, and no temporary file behind:
# the output is written beside it and renamed over it only on success
echo '{"precious":1}' >"$TPA_TMP/keep.json"
: >"$TPA_TMP/empty.json"
tfprof-analyze merge kineto_small.json "$TPA_TMP/empty.json" -o "$TPA_TMP/keep.json" 2>/dev/null
echo "exit $?"
cat "$TPA_TMP/keep.json"
ls -A "$TPA_TMP"
