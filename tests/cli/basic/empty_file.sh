cd "$TPA_TMP" && : > empty.json
tfprof-analyze empty.json
