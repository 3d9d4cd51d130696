# CUPTI's range profiler writes one span per profiled range on the GPU
# (cat cuda_profiler_range), each exactly one range long: annotations, not
# kernels. A trace with such spans and no kernel computes nothing.
cd "$TPA_TMP" || exit 99
K='"pid":10,"tid":10'
G='"pid":0,"tid":7'
cat > t.json <<JSON
{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1",$K,"ts":0,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm",$K,"ts":10,"dur":900},
{"ph":"X","cat":"cuda_profiler_range","name":"range_0",$G,"ts":0,"dur":1000},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2",$K,"ts":1000,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm",$K,"ts":1010,"dur":900},
{"ph":"X","cat":"cuda_profiler_range","name":"range_1",$G,"ts":1000,"dur":1000}
]}
JSON
tfprof-analyze --warmup 0 t.json | sed -n '/^verdict/,/^  device busy/p'
tfprof-analyze --warmup 0 t.json | grep -E '^    (annotation|kernel) '
