tfprof-analyze
