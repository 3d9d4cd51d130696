# A Kineto step whose host waits 150 us in cudaMemcpyAsync for a copy to
# pageable memory (an .item()): the call is a wait (sync), not a launch,
# and no launch advice (CUDA graphs) is given. Also: cudaMalloc and
# cudaStreamCreateWithFlags are setup, never counted as launches.
cd "$TPA_TMP" || exit 99
K='"pid":10,"tid":10'
G='"pid":0,"tid":7'
cat > t.json <<JSON
{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1",$K,"ts":0,"dur":1000},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamCreateWithFlags",$K,"ts":2,"dur":6},
{"ph":"X","cat":"cuda_runtime","name":"cudaMalloc",$K,"ts":9,"dur":40},
{"ph":"X","cat":"cpu_op","name":"aten::mm",$K,"ts":50,"dur":20},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",$K,"ts":55,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm",$G,"ts":62,"dur":60,"args":{"correlation":1}},
{"ph":"X","cat":"cpu_op","name":"aten::item",$K,"ts":125,"dur":160},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync",$K,"ts":130,"dur":150,"args":{"correlation":2}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)",$G,"ts":270,"dur":8,"args":{"correlation":2,"bytes":4}},
{"ph":"X","cat":"cpu_op","name":"aten::mm",$K,"ts":290,"dur":20},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",$K,"ts":295,"dur":5,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"gemm",$G,"ts":302,"dur":690,"args":{"correlation":3}}
]}
JSON
tfprof-analyze t.json | sed -n '/^  events by kind/,/^  parse health/p;/^verdict/,/^per step/p'
tfprof-analyze --format json t.json | grep -E '"(launch_count|host_setup_frac|sync_host_wait_frac|host_launch_frac)"'
