tfprof-analyze --run 1999_01_01_00_00_00 logdir
