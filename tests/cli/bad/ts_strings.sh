# ts and dur written as strings of numbers (doc/design.md 3: "numbers as
# strings") are read like numbers (exit 0).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"X","name":"a","pid":"1","tid":"7","ts":"100.5","dur":"2"},\n{"ph":"X","name":"b","pid":1,"tid":7,"ts":103,"dur":1}]' > s.json
analyze s.json
