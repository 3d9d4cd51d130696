# merge killed (kill -9) while reading its second input: -o is as it was
cd "$TPA_TMP" || exit
echo '{"precious":1}' >keep.json
mkfifo in.json || exit
tfprof-analyze merge "$TPA_TESTDATA/kineto_small.json" in.json -o keep.json &
pid=$!
exec 3>in.json          # returns once the merge opens in.json: the first input is written
printf '[{"ph":"X","name":"k","ts":1,"dur":2' >&3
kill -9 $pid
{ wait $pid; } 2>/dev/null
echo "exit $?"
exec 3>&-
cat keep.json
