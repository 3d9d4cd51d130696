# An E with no B (dropped), and a B never closed (closed at the trace
# end): counted in warnings, exit 0.
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"E","name":"x","pid":1,"tid":1,"ts":1},\n{"ph":"B","name":"open","pid":1,"tid":1,"ts":2},\n{"ph":"B","name":"y","pid":1,"tid":1,"ts":3},\n{"ph":"E","pid":1,"tid":1,"ts":5}]' > be.json
analyze be.json
