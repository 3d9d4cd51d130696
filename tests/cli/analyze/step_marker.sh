tfprof-analyze --step-marker '^aten::linear$' --warmup 0 --top 1 torch_compute_bound.trace.json.gz
