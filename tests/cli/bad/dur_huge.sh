# Times that do not fit in int64 nanoseconds (dur 1e300 us; ts + dur past
# 2^63 ns): exit 3, never a wrapped or saturated figure.
# NOT REGISTERED: the Chrome reader accepts end.json (ts + dur overflows
# int64, so the span is wrong and UBSan stops). The goldens say what is
# expected; the exact wording of the second message is up to the reader.
cd "$TPA_TMP" || exit 99
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1e300}]' > big.json
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":9223372036854775,"dur":9223372036854775}]' > end.json
tfprof-analyze big.json; echo "exit $?"
tfprof-analyze end.json
