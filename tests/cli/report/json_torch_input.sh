tfprof-analyze --format json torch_input_bound.trace.json.gz
