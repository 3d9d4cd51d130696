tfprof-analyze --strict edge_bare_array_no_close.json
