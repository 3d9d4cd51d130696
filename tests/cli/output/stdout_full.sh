# every write error on stdout is exit 5 with a message
tfprof-analyze kineto_small.json >/dev/full
echo "exit $?"
tfprof-analyze merge kineto_small.json synth_tf1_timeline.json >/dev/full
echo "exit $?"
