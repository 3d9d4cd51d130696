# a full disk is an output error (exit 5) with a message
tfprof-analyze convert kineto_small.json -o /dev/full
