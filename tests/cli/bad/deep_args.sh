# args nested 100 deep, past the depth cap (64): exit 3 with the offset
# of the first level past the cap.
cd "$TPA_TMP" || exit 99
open=; close=; i=0
while [ $i -lt 100 ]; do open="$open{\"a\":"; close="$close}"; i=$((i + 1)); done
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2,"args":%s1%s}]' "$open" "$close" > deep.json
tfprof-analyze deep.json
