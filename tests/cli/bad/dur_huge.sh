# Times out of range: dur 1e300 us does not fit in int64 ns; a ts or a dur
# past 2^61 ns (73 years) is refused, so that no sum or difference of two
# times can overflow (ts + dur past 2^63 ns once gave a wrapped time span,
# and stopped UBSan). Exit 3 each, never a wrapped or saturated figure.
cd "$TPA_TMP" || exit 99
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1e300}]' > big.json
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1700000000000000,"dur":9223372036854775}]' > end.json
printf '[{"ph":"B","name":"a","pid":1,"tid":1,"ts":-9223372036854775},\n{"ph":"E","pid":1,"tid":1,"ts":9223372036854775}]' > far.json
tfprof-analyze big.json; echo "exit $?"
tfprof-analyze end.json; echo "exit $?"
tfprof-analyze far.json
