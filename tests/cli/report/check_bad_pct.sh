tfprof-analyze check torch_input_bound.trace.json.gz --baseline torch_input_bound.trace.json.gz --max-regression lots
