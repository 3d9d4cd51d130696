# Events out of time order, and an E before its B in the file: the order
# of the file does not matter for X; B/E pair per thread (exit 0).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"X","name":"late","pid":1,"tid":1,"ts":100,"dur":1},\n{"ph":"X","name":"early","pid":1,"tid":1,"ts":10,"dur":1},\n{"ph":"B","name":"b","pid":1,"tid":2,"ts":40},\n{"ph":"E","name":"b","pid":1,"tid":2,"ts":50}]' > o.json
analyze o.json
