# the workers of tf_collective.sh analysed apart, each to its JSON report
# (doc/fanout.md), then aggregated: a TF profile never says its rank, and
# its report must carry its collective time all the same, or the job view
# of the reports sees no wait and no straggler (the same view as --ranks)
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
cd "$TPA_TMP" || exit
tfprof-analyze --format json -o w0.json w0.trace.json || exit
tfprof-analyze --format json -o w1.json w1.trace.json || exit
tfprof-analyze aggregate w0.json w1.json | grep -E '^(job|straggler)'
tfprof-analyze --ranks w0.trace.json w1.trace.json | sed -n '/^job/,/^ranks:/p' > ranks.txt
tfprof-analyze aggregate w0.json w1.json | sed -n '/^job/,/^ranks:/p' | cmp -s - ranks.txt &&
        echo "aggregate of the reports = --ranks of the traces"
