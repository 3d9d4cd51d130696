# pid "" and tid "" (Kineto's "Record Window End") are ids of their own, not
# pid 0 / tid 0: the marker must not make GPU 0 (pid 0) a device; convert
# writes them back as "".
cd "$TPA_TMP" || exit 99
cat > k.json <<'JSON'
{"schemaVersion":1,"traceEvents":[
{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"python3.8"}},
{"name":"process_labels","ph":"M","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"python3.8"}},
{"name":"process_labels","ph":"M","pid":1,"tid":0,"args":{"labels":"GPU 1"}},
{"ph":"X","cat":"cpu_op","name":"ProfilerStep#1","pid":9,"tid":9,"ts":0,"dur":100},
{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":10,"dur":80},
{"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":100}
]}
JSON
tfprof-analyze k.json | sed -n '/^  devices:/,/^  events by kind/p;/^devices:/p'
tfprof-analyze convert k.json -o c.json && grep -o '"pid":"","tid":""' c.json
