# RunMetadata text nested 70 deep, past the depth cap (64): exit 3 with the
# offset of the 65th '{' itself (not the byte after it).
cd "$TPA_TMP" || exit 99
open=; close=; i=0
while [ $i -lt 70 ]; do open="$open dev_stats {"; close="$close}"; i=$((i + 1)); done
printf 'step_stats {%s}%s\n' "$open" "$close" > deep.pbtxt
tfprof-analyze deep.pbtxt
