printf 'class input-bound when input_frac >= \n' > "$TPA_TMP/bad.tpr"
cd "$TPA_TMP" && tfprof-analyze --rules bad.tpr "$TPA_TESTDATA/kineto_small.json"
