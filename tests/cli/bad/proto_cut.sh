# Binary RunMetadata, XSpace and text RunMetadata cut short: the complete
# messages before the cut are analysed, with a warning giving the offset
# where the input ends (exit 0); --strict makes it an error (exit 3).
. "$(dirname "$0")/lib.sh"
for f in tf1_step1.runmeta.pb tf2_input_bound.xplane.pb; do
        for n in 100 5000 9981; do
                head -c $n "$f" >"$TPA_TMP/cut.pb"
                echo "== $f cut at $n"
                analyze -v "$TPA_TMP/cut.pb" 2>&1 | grep -E 'warning|records:|truncated:' |
                        sed "s|$TPA_TMP/||"
        done
        tfprof-analyze --strict "$TPA_TMP/cut.pb" >/dev/null 2>"$TPA_TMP/err"
        echo "exit $?"
        sed "s|$TPA_TMP/||" "$TPA_TMP/err"
done
cd "$TPA_TMP" || exit 99
printf 'step_stats {\n dev_stats {\n  device: "/job:localhost/replica:0/task:0/device:CPU:0"\n' >cut.pbtxt
printf '  node_stats { node_name: "a" all_start_micros: 10 all_end_rel_micros: 5 }\n' >>cut.pbtxt
printf '  node_stats { node_name: "b" all_start_micros: 2' >>cut.pbtxt
echo "== cut.pbtxt"
analyze -v cut.pbtxt 2>&1 | grep -E 'warning|records:|truncated:'
tfprof-analyze --strict cut.pbtxt >/dev/null 2>err
echo "exit $?"
cat err
