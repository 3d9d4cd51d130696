# Faster is never a regression.
tfprof-analyze check torch_host_bound.trace.json.gz --baseline torch_compute_bound.trace.json.gz --max-regression 5%
