tfprof-analyze --set gap.min=fast kineto_small.json
