tfprof-analyze --format html torch_input_bound.trace.json.gz torch_host_bound.trace.json.gz
