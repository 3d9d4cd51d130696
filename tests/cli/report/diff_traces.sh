tfprof-analyze diff torch_input_bound.trace.json.gz torch_compute_bound.trace.json.gz
