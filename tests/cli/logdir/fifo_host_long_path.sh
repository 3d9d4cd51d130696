# The warning for a fifo named like a host's trace keeps its reason
# however long the path (here over 600 bytes).
c=$(printf 'x%.0s' $(seq 200))
mkdir -p "$TPA_TMP/$c/$c/$c"
cp -R logdir "$TPA_TMP/$c/$c/$c/ld"
run=$TPA_TMP/$c/$c/$c/ld/train/plugins/profile/2024_01_02_10_00_00
mkfifo "$run/hostc.trace.json.gz" || exit
tfprof-analyze --list-runs "$run" 2>&1 >/dev/null | sed "s|$TPA_TMP/$c/$c/$c|TMP/X/X/X|g"
