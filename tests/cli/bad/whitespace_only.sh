# Only white space: not a trace (exit 3).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf " \n\t\n" > blank.json
tfprof-analyze blank.json
