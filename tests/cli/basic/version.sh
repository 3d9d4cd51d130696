tfprof-analyze --version
