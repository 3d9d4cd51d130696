# a rule file that does not exist is an input error (exit 3)
cd "$TPA_TMP" || exit 99
: nothing to write
tfprof-analyze --rules nope.tpr never-read.json
