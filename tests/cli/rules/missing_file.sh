# a rule file that does not exist is a rules problem (exit 4, doc/design.md 8)
cd "$TPA_TMP" || exit 99
: nothing to write
tfprof-analyze --rules nope.tpr never-read.json
