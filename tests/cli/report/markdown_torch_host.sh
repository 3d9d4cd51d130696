tfprof-analyze --format markdown torch_host_bound.trace.json.gz
