# Chrome JSON cut inside a number: the complete events are analysed, with
# a warning saying how much was read (exit 0).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},\n{"ph":"X","name":"b","pid":1,"tid":1,"ts":12.5' > cut.json
analyze cut.json
