# an output path that cannot be created is an output error (exit 5)
tfprof-analyze convert kineto_small.json -o "$TPA_TMP/no/such/dir/out.json" 2>"$TPA_TMP/err"
echo "exit $?"
sed "s|$TPA_TMP|TMP|" "$TPA_TMP/err"
