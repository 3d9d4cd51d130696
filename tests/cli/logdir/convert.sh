# convert and merge take a logdir too: merge puts each host side by side
tfprof-analyze merge logdir -o "$TPA_TMP/m.json" || exit
grep -c '"ph":"X"' "$TPA_TMP/m.json"
grep -o '"labels":"host[ab][^"]*"' "$TPA_TMP/m.json"
# and reads back as the hosts were: each reported apart, with its GPU
tfprof-analyze "$TPA_TMP/m.json" | grep '^devices:'
