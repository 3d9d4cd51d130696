# One run class: the class of the most kept-step time, and where the rules
# applied to the run's breakdown say another, the run is mixed and the
# report names both. Step 1 (210 us) is input-bound; steps 2 and 3 (100 us
# each) host-bound: input holds more step time (210 us against 200), but
# the time-weighted breakdown is mostly host (Python between ops).
cd "$TPA_TMP" || exit 99
K='"pid":10,"tid":10'
G='"pid":0,"tid":7'
cat > t.json <<JSON
{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1",$K,"ts":0,"dur":210},
{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",$K,"ts":0,"dur":63},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",$K,"ts":60,"dur":3,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm",$G,"ts":63,"dur":147,"args":{"correlation":1}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2",$K,"ts":210,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",$K,"ts":297,"dur":3,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm",$G,"ts":300,"dur":10,"args":{"correlation":2}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3",$K,"ts":310,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",$K,"ts":397,"dur":3,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"gemm",$G,"ts":400,"dur":10,"args":{"correlation":3}}
]}
JSON
tfprof-analyze --warmup 0 t.json | sed -n '/^verdict/,/^  step time/p;/^per step/,/^$/p'
tfprof-analyze --warmup 0 --format json t.json | sed -n '/^  "summary"/,/^  }/p' | grep -E '"(verdict|class|breakdown_class|mixed|time_ns)"' | head -6
