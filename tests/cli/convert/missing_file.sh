tfprof-analyze convert does-not-exist.pb -o "$TPA_TMP/out.json"
test ! -e "$TPA_TMP/out.json" && echo "no output file"
