# convert on a full disk (here: a file size limit) fails with exit 5 and
# leaves the old file whole
echo '{"precious":1}' >"$TPA_TMP/keep.json"
(
        trap '' XFSZ
        ulimit -f 8
        tfprof-analyze convert tf2_input_bound.xplane.pb -o "$TPA_TMP/keep.json" 2>"$TPA_TMP/err"
        echo "exit $?"
)
sed "s|$TPA_TMP|TMP|" "$TPA_TMP/err"
cat "$TPA_TMP/keep.json"
ls -A "$TPA_TMP"
