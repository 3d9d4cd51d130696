# --set with a value that is not a number with a unit is a usage error
cd "$TPA_TMP" || exit 99
: nothing to write
tfprof-analyze --set gap.min=fast never-read.json
