# two hosts side by side: one process group per input, labelled by file,
# pids that never collide; analysed, the file is reported as its inputs were
tfprof-analyze merge logdir/train/plugins/profile/2024_01_01_10_00_00/hosta.trace.json.gz \
        synth_tf1_timeline.json -o "$TPA_TMP/m.json" || exit
grep -o '"pid":[0-9]*,"name":"process_name","args":{"name":"[^"]*"' "$TPA_TMP/m.json"
cd "$TPA_TMP" && tfprof-analyze m.json | sed -n '1,3p'
