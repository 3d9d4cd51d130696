# Consecutive RunMetadata files are steps of one run (doc/design.md 3).
tfprof-analyze tf1_step1.runmeta.pb tf1_step2.runmeta.pb > "$TPA_TMP/out"
rc=$?
sed -n '1p;/^steps:/,/^devices:/p' "$TPA_TMP/out"
exit $rc
