# The text report names every device, however many (a merged job's 64
# GPUs here, their names near 2,700 bytes together).
{
        printf '{"traceEvents":[\n'
        i=0
        while [ $i -lt 64 ]; do
                printf '{"ph":"M","name":"process_name","pid":%d,"tid":0,"args":{"name":"/job:worker/replica:0/task:%d/device:GPU:0"}},\n' $i $i
                printf '{"ph":"X","cat":"kernel","name":"k","pid":%d,"tid":7,"ts":%d,"dur":50,"args":{"device":%d,"stream":7}},\n' $i $((100 + i)) $i
                i=$((i + 1))
        done
        printf '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":400,"dur":50,"args":{"device":0,"stream":7}}\n]}\n'
} > "$TPA_TMP/gpus.json"
tfprof-analyze "$TPA_TMP/gpus.json" > "$TPA_TMP/out"
rc=$?
sed -n '/^devices:/,/^$/p' "$TPA_TMP/out" | sed '/figures are the mean/,$d'
exit $rc
