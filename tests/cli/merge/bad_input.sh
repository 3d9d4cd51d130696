# a bad input stops the merge: exit 3, no output file left behind
tfprof-analyze merge kineto_small.json bad_missing_comma.json -o "$TPA_TMP/m.json"
echo "exit $?"
test ! -e "$TPA_TMP/m.json" && echo "no output file"
