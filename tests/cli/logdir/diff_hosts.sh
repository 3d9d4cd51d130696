# diff of two logdirs whose runs hold two hosts each: four inputs, and the
# error says why
for l in a b; do
        d="$TPA_TMP/$l/plugins/profile/2024_01_01_00_00_00"
        mkdir -p "$d" || exit
        cp tf2_input_bound.trace.json.gz "$d/h1.trace.json.gz"
        cp tf2_input_bound.trace.json.gz "$d/h2.trace.json.gz"
done
tfprof-analyze diff "$TPA_TMP/a" "$TPA_TMP/b"
