# the newest run folder cannot be listed (the profiler ran as another
# user with umask 077): a warning says so, not an older run in silence;
# as root, the tool runs as nobody
d="$TPA_TMP/ld/plugins/profile"
mkdir -p "$d/2024_01_01_00_00_00" "$d/2024_02_01_00_00_00" || exit
cp tf2_input_bound.xplane.pb "$d/2024_01_01_00_00_00/host.xplane.pb"
cp tf2_compute_bound.xplane.pb "$d/2024_02_01_00_00_00/host.xplane.pb"
chmod 000 "$d/2024_02_01_00_00_00"
cp "$TPA_BIN" "$TPA_TMP/tpa" && chmod 755 "$TPA_TMP" "$TPA_TMP/tpa" || exit
run=
[ "$(id -u)" = 0 ] && run="setpriv --reuid=nobody --regid=nogroup --clear-groups"
$run "$TPA_TMP/tpa" --list-runs "$TPA_TMP/ld" 2>&1 | sed "s|$TPA_TMP|TMP|g"
$run "$TPA_TMP/tpa" "$TPA_TMP/ld" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e '^tfprof-analyze' -e '^verdict'
chmod 755 "$d/2024_02_01_00_00_00"
