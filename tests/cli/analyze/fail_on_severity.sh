tfprof-analyze --fail-on-severity warning torch_input_bound.trace.json.gz > "$TPA_TMP/out"; echo "exit $?"
sed -n "/^verdict/p" "$TPA_TMP/out"
tfprof-analyze --fail-on-severity error torch_input_bound.trace.json.gz > /dev/null; echo "exit $?"
