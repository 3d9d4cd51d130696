tfprof-analyze diff torch_input_bound.trace.json.gz
