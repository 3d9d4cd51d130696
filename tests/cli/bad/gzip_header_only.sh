# Only the first bytes of a gzip header: nothing can be read (exit 3).
cd "$TPA_TMP" && printf "\037\213\010" > head.json.gz
tfprof-analyze head.json.gz
