tfprof-analyze check torch_input_bound.trace.json.gz --fail-if 'no_such_metric > 1'
