tfprof-analyze --strict edge_truncated_gzip.json.gz
