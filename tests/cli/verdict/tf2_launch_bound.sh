# A TF2 GPU step (trace viewer JSON) whose device computes 10% of the time
# while TF's executor (ExecutorState::Process) runs the step's ops: that is
# launching, XProf's "Kernel Launch", so the step is host-bound, mostly
# launch, with TF's advice; never compute-bound, never "place the ops on
# the device".
cd "$TPA_TMP" || exit 99
H='"pid":501,"tid":11'
P='"pid":501,"tid":10'
G='"pid":1,"tid":1'
cat > t.json <<JSON
{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"Stream #14(Compute)"}},
{"ph":"M","pid":1,"tid":3735928559,"name":"thread_name","args":{"name":"Steps"}},
{"ph":"M","pid":501,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"M","pid":501,"tid":10,"name":"thread_name","args":{"name":"python3"}},
{"ph":"M","pid":501,"tid":11,"name":"thread_name","args":{"name":"tf_Compute/12345"}},
{"ph":"X","name":"1","pid":1,"tid":3735928559,"ts":0,"dur":1000,"args":{"group_id":"1"}},
{"ph":"X","name":"train_function",$P,"ts":0,"dur":1000},
{"ph":"X","name":"ExecutorState::Process",$H,"ts":10,"dur":970,"args":{"group_id":"1"}},
{"ph":"X","name":"MatMul",$H,"ts":100,"dur":30,"args":{"group_id":"1"}},
{"ph":"X","name":"volta_sgemm",$H,"ts":105,"dur":8,"args":{"group_id":"1","correlation_id":"7"}},
{"ph":"X","name":"volta_sgemm",$G,"ts":120,"dur":100,"args":{"group_id":"1","correlation_id":"7"}},
{}]}
JSON
tfprof-analyze t.json | sed -n '/^verdict/,/^per step/p'
