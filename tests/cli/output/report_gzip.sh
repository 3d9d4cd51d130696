# a report to a file named *.gz is gzipped, as convert's and merge's traces
# are (it was plain text under a .gz name, which zcat refused); read back
# by check, and over an older file as any report
echo old | gzip >"$TPA_TMP/r.json.gz"
tfprof-analyze --format json -o "$TPA_TMP/r.json.gz" kineto_small.json; echo "json: $?"
gzip -t "$TPA_TMP/r.json.gz" && echo "gzip -t: ok"
gzip -dc "$TPA_TMP/r.json.gz" | sed -n '2p'
tfprof-analyze -o "$TPA_TMP/t.txt.gz" kineto_small.json; echo "text: $?"
gzip -dc "$TPA_TMP/t.txt.gz" | sed -n '3p'
tfprof-analyze check kineto_small.json --baseline "$TPA_TMP/r.json.gz" >/dev/null
echo "check against it: $?"
ls "$TPA_TMP"
