# Every --fail-on, --fail-if and --baseline is a condition of its own: each
# is checked and reported on its own line, and any one tripping fails,
# whatever the order they are given in.
tfprof-analyze check torch_input_bound.trace.json.gz --fail-on input-bound --fail-on host-bound
echo "exit $?"
tfprof-analyze check torch_input_bound.trace.json.gz --fail-on host-bound --fail-on input-bound
echo "exit $?"
tfprof-analyze check torch_input_bound.trace.json.gz --fail-if 'input_frac > 50%' --fail-if 'steps > 100'
echo "exit $?"
tfprof-analyze check torch_compute_bound.trace.json.gz --baseline torch_host_bound.trace.json.gz \
        --baseline torch_compute_bound.trace.json.gz > "$TPA_TMP/out"
echo "exit $?"
grep -v '^  ' "$TPA_TMP/out"
