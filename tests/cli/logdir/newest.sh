# a logdir: the newest run, one report per host, then the aggregate
tfprof-analyze logdir | grep -e '^[a-z].*: chrome-json' -e '^steps:' -e '^all '
