# Only the first bytes of a gzip header: nothing can be read (exit 3), and
# the message says the gzip stream is cut short, after how many bytes.
cd "$TPA_TMP" && printf "\037\213\010" > head.json.gz
tfprof-analyze head.json.gz
