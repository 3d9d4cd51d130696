tfprof-analyze bad_missing_comma.json
