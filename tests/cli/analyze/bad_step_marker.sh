tfprof-analyze --step-marker '([' kineto_small.json
