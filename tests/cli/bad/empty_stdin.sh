# Empty standard input: bad input (exit 3), named "-".
tfprof-analyze - </dev/null
