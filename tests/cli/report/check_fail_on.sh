tfprof-analyze check torch_input_bound.trace.json.gz --fail-on input-bound
echo "exit $?"
tfprof-analyze check torch_input_bound.trace.json.gz --fail-on host-bound
echo "exit $?"
