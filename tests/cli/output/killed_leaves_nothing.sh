# merge and analyze -o ended by SIGTERM or SIGHUP (a CI job's timeout, a
# closed terminal) while reading: -o is as it was and no staging file
# "OUT.XXXXXX" is left beside it
cd "$TPA_TMP" || exit
echo '{"precious":1}' >keep.json
mkfifo in.json || exit
for sig in TERM HUP; do
        tfprof-analyze merge "$TPA_TESTDATA/kineto_small.json" in.json -o keep.json &
        pid=$!
        exec 3>in.json  # returns once the merge opens in.json
        printf '[{"ph":"X","name":"k","ts":1,"dur":2' >&3
        kill -$sig $pid
        { wait $pid; } 2>/dev/null
        echo "merge, SIG$sig: exit $?"
        exec 3>&-
        ls
done
tfprof-analyze --format json -o keep.json in.json &
pid=$!
exec 3>in.json
kill -TERM $pid
{ wait $pid; } 2>/dev/null
echo "analyze, SIGTERM: exit $?"
exec 3>&-
ls
cat keep.json
