# A gzip header followed by garbage (a reserved deflate block type): exit 3
# with the offset of what was inflated.
cd "$TPA_TMP" && printf "\037\213\010\000\000\000\000\000\000\003\007garbage garbage" > g.json.gz
tfprof-analyze g.json.gz
