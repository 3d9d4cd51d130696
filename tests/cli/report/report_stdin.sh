# a saved report on standard input, plain or gzip-compressed: diff and
# check take it whole and read it as the report; analyze and convert
# stream standard input to the trace reader, which refuses it by name
# (exit 3, nothing written), never a trace of no events
tfprof-analyze --format json -o "$TPA_TMP/r.json" torch_input_bound.trace.json.gz
gzip -c "$TPA_TMP/r.json" > "$TPA_TMP/r.json.gz"
tfprof-analyze - < "$TPA_TMP/r.json"
echo "exit $?"
tfprof-analyze - < "$TPA_TMP/r.json.gz"
echo "exit $?"
tfprof-analyze convert - -o "$TPA_TMP/c.json" < "$TPA_TMP/r.json.gz"
echo "exit $?"
test -e "$TPA_TMP/c.json" && echo "c.json written" || echo "nothing written"
tfprof-analyze diff - "$TPA_TMP/r.json" < "$TPA_TMP/r.json.gz" > "$TPA_TMP/diff"
echo "exit $?"
sed "s|$TPA_TMP/||g" "$TPA_TMP/diff" | head -3
tfprof-analyze check - --baseline "$TPA_TMP/r.json" < "$TPA_TMP/r.json.gz" |
        sed "s|$TPA_TMP/||g"
