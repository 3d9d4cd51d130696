# stderr is not a terminal here: no progress unless --progress forces it,
# and --no-progress or -q wins.
tfprof-analyze kineto_small.json > /dev/null 2> "$TPA_TMP/none"
echo "plain: $(wc -c < "$TPA_TMP/none") bytes on stderr"
tfprof-analyze --progress kineto_small.json > /dev/null 2> "$TPA_TMP/forced"
grep -c 'tfprof-analyze: read ' "$TPA_TMP/forced" | sed 's/^/forced: progress lines: /'
tfprof-analyze --progress --no-progress kineto_small.json > /dev/null 2> "$TPA_TMP/off"
echo "--no-progress: $(wc -c < "$TPA_TMP/off") bytes on stderr"
tfprof-analyze --progress -q kineto_small.json > /dev/null 2> "$TPA_TMP/quiet"
echo "-q: $(wc -c < "$TPA_TMP/quiet") bytes on stderr"
