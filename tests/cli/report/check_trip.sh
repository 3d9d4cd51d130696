# 1.8 ms -> 43.8 ms: a significant regression above 5% trips.
tfprof-analyze check torch_compute_bound.trace.json.gz --baseline torch_host_bound.trace.json.gz --max-regression 5%
