# A negative duration: exit 3, "'dur' is negative" with the offset.
cd "$TPA_TMP" && printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":2},\n{"ph":"X","name":"b","pid":1,"tid":1,"ts":10,"dur":-5}]' > neg.json
tfprof-analyze neg.json
