# Chrome JSON cut between the keys of an object: the complete events are
# analysed with a warning (exit 0); with --strict it is an error (exit 3).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},\n{"ph":"X",' > cut.json
analyze cut.json
echo "exit $?"
tfprof-analyze --strict cut.json
