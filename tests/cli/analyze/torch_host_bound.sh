tfprof-analyze torch_host_bound.trace.json.gz
