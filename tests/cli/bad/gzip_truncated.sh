# A gzip member cut in the middle of its data, which is itself cut in the
# middle of the third event: the two complete events are analysed, with a
# warning that says how much was read (exit 0). --strict makes it exit 3.
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" || exit 99
ev='{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2}'
json="[$ev,$ev,$ev]"
{ gz_stored_head ${#json}; printf "%s" "$json" | head -c 120; } > cut.json.gz
analyze cut.json.gz
echo "exit $?"
tfprof-analyze --strict cut.json.gz
