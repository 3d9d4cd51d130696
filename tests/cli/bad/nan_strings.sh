# "NaN" and "Infinity" as ts/dur strings are not numbers of microseconds:
# exit 3 naming the key and offset. Bare NaN is not JSON at all: exit 3.
cd "$TPA_TMP" || exit 99
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":"NaN","dur":1}]' > nan.json
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":"Infinity"}]' > inf.json
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":NaN,"dur":1}]' > bare.json
tfprof-analyze nan.json; echo "exit $?"
tfprof-analyze inf.json; echo "exit $?"
tfprof-analyze bare.json
