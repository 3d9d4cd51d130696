tfprof-analyze does-not-exist.json
