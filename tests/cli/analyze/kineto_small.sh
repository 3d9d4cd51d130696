tfprof-analyze kineto_small.json
