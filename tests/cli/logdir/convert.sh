# convert and merge take a logdir too: merge puts each host side by side
tfprof-analyze merge logdir -o "$TPA_TMP/m.json" || exit
grep -c '"ph":"X"' "$TPA_TMP/m.json"
grep -o '"labels":"host[ab][^"]*"' "$TPA_TMP/m.json"
# and reads back with each host's GPU apart
tfprof-analyze "$TPA_TMP/m.json" | grep '^devices:'
