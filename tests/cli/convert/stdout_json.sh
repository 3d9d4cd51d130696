# convert with no -o writes the Chrome JSON to stdout
tfprof-analyze convert kineto_small.json
