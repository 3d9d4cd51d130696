tfprof-analyze torch_input_bound.trace.json.gz
