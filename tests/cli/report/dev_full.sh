# A write error is exit 5 with a message, whatever the format.
for f in text json markdown html; do
        tfprof-analyze --format $f torch_input_bound.trace.json.gz > /dev/full
        echo "$f: exit $?"
done
tfprof-analyze diff torch_input_bound.trace.json.gz torch_input_bound.trace.json.gz > /dev/full
echo "diff: exit $?"
tfprof-analyze check torch_input_bound.trace.json.gz --fail-on host-bound > /dev/full
echo "check: exit $?"
