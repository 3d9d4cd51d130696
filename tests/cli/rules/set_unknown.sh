# --set of a threshold the rules do not have is a usage error
cd "$TPA_TMP" || exit 99
: nothing to write
tfprof-analyze --set gap.minimum=20us never-read.json
