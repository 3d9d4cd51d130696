# Keys given twice in one event: the last one counts, as in most JSON
# readers (exit 0; the event is "b", ts 2, dur 3).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"X","name":"a","name":"b","pid":1,"tid":1,"ts":1,"ts":2,"dur":9,"dur":3}]' > dup.json
analyze dup.json
