tfprof-analyze merge kineto_small.json kineto_small.json -o "$TPA_TMP/m.json.gz" || exit
od -An -tx1 -N2 "$TPA_TMP/m.json.gz"
tfprof-analyze "$TPA_TMP/m.json.gz" | sed -n '3p'
