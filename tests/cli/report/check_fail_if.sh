tfprof-analyze check torch_input_bound.trace.json.gz --fail-if 'input_frac > 50%'
echo "exit $?"
tfprof-analyze check torch_input_bound.trace.json.gz --fail-if 'input_frac > 95% or step_time_ns > 1s'
echo "exit $?"
