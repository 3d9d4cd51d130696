# a named pipe given as a path (mkfifo, or a shell's <(zcat ...)) is read
# once, from its start: analyze, diff and check, a trace or a saved report
cd "$TPA_TMP" || exit
mkfifo a b || exit
cat "$TPA_TESTDATA/torch_host_bound.trace.json.gz" >a &
timeout 20 tfprof-analyze a | grep '^verdict'
echo "analyze: exit $?"
tfprof-analyze --format json "$TPA_TESTDATA/torch_host_bound.trace.json.gz" >base.json
cat base.json >a &
cat "$TPA_TESTDATA/torch_host_bound.trace.json.gz" >b &
timeout 20 tfprof-analyze diff a b | grep -m1 'step time'
echo "diff: exit $?"
cat "$TPA_TESTDATA/torch_host_bound.trace.json.gz" >a &
timeout 20 tfprof-analyze check a --baseline base.json | cut -c1-40
echo "check: exit $?"
