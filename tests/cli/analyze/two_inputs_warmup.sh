tfprof-analyze --warmup 1 --top 2 torch_compute_bound.trace.json.gz torch_host_bound.trace.json.gz
