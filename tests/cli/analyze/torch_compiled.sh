tfprof-analyze torch_compiled.trace.json.gz
