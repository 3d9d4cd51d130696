tfprof-analyze --list-runs logdir
tfprof-analyze --list-runs logdir/train/plugins/profile
