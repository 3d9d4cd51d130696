# A rule file that opens but cannot be read (a directory) is a rules
# problem too (exit 4), named with the system's reason; the trace is not
# read.
cd "$TPA_TMP" && mkdir rules.tpr
tfprof-analyze --rules rules.tpr never-read.json
