tfprof-analyze --frobnicate trace.json
