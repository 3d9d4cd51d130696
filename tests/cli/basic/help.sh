tfprof-analyze --help
