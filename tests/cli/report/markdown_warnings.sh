tfprof-analyze --format markdown edge_unmatched_be.json
