tfprof-analyze check torch_input_bound.trace.json.gz --fail-if 'input_frac >'
