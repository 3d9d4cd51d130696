# the text report keeps to 100 columns: a long reason for no verdict (a
# JAX loop whose ops run after its step markers) wraps, as notes do
tfprof-analyze jax_async.xplane.pb 2>/dev/null >"$TPA_TMP/o"
echo "exit: $?"; sed -n '3,4p' "$TPA_TMP/o"
awk 'length($0) > 100 { n++ } END { print "lines over 100 columns: " n + 0 }' "$TPA_TMP/o"
