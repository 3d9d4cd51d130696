tfprof-analyze --run 2024_01_01_10_00_00 logdir | sed -n '1p'
