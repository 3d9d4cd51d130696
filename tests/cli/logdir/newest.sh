# a logdir: the newest run, one report per host, then the job view (the hosts are the ranks of one job)
tfprof-analyze logdir | grep -e '^[a-z].*: chrome-json' -e '^steps:' -e '^all ' -e '^job:' -e '^straggler:'
