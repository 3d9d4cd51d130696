# tf_workers.sh: sourced by the tf_collective cases, no case itself.
# Two workers of a TF MultiWorkerMirroredStrategy job on CPU, as the TF2
# profiler's trace of each shows them (the shape of real ones: the step's
# tf.function called from Python, the all-reduce on a collective_ops thread,
# RingReducer's "Loop" inside it): $TPA_TMP/w0.trace.json waits 30 ms a
# step in CollectiveReduceV2 for w1.trace.json, which sleeps 30 ms in Python
# before each step.
gen() {         # gen WAIT_US SLEEP_US
        awk -v wait="$1" -v sleep="$2" 'BEGIN {
        printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
        printf "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},\n"
        printf "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"python\"}},\n"
        printf "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"tf_Compute/1\"}},\n"
        printf "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":{\"name\":\"collective_ops/1\"}}"
        t = 1000; step = 4000 + wait
        for (i = 0; i < 6; i++) {
                printf ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d,\"name\":\"EagerLocalExecute: __inference_step_1\"}", t, step
                printf ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":2000,\"name\":\"_MklMatMul\"}", t + 100
                printf ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":%d,\"dur\":%d,\"name\":\"CollectiveReduceV2\"}", t + 2200, wait + 1500
                printf ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":%d,\"dur\":%d,\"name\":\"Loop\"}", t + 2210, wait + 1480
                t += step + 100 + sleep
        }
        printf "\n]}\n" }'
}
gen 30000 0 > "$TPA_TMP/w0.trace.json"
gen 0 30000 > "$TPA_TMP/w1.trace.json"
