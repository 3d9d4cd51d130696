# tensorboard_trace_handler writes <worker>.<time>.pt.trace.json[.gz], a
# file per profiling cycle: a worker's cycles are profile runs one after
# another (the newest analyzed), not ranks of a job; workers that wrote at
# once are the ranks of one, span by span
d="$TPA_TMP/log"
mkdir -p "$d" "$TPA_TMP/ddp" || exit
cp torch_compute_bound.trace.json.gz "$d/w0.1796490633244271329.pt.trace.json.gz"
cp torch_host_bound.trace.json.gz "$d/w0.1796490633298498911.pt.trace.json.gz"
gzip -dc torch_input_bound.trace.json.gz >"$d/w0.1796490633512345678.pt.trace.json"
echo "{}" >"$d/notes.json"
tfprof-analyze --list-runs "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^verdict' -e '^job'
tfprof-analyze --run log:span1 "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e '^verdict' -e '^job'
for r in 0 1; do
        cp dist_rank$r.pt.trace.json.gz "$TPA_TMP/ddp/host_$r.179649063324427132$r.pt.trace.json.gz"
        cp dist_rank$r.pt.trace.json.gz "$TPA_TMP/ddp/host_$r.179649063329849891$r.pt.trace.json.gz"
done
tfprof-analyze --list-runs "$TPA_TMP/ddp" 2>&1 | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$TPA_TMP/ddp" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^job'
# TensorBoard's PyTorch plugin reads <logdir>/<run>/: each folder of such
# files is a run, the newest by its files' time, not by its name
mkdir -p "$TPA_TMP/tb/b_run" "$TPA_TMP/tb/a_run/deeper" || exit
cp torch_compute_bound.trace.json.gz "$TPA_TMP/tb/b_run/w0.1796490633244271329.pt.trace.json.gz"
cp torch_host_bound.trace.json.gz "$TPA_TMP/tb/a_run/w0.1796490799944271329.pt.trace.json.gz"
tfprof-analyze --list-runs "$TPA_TMP/tb" 2>&1 | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$TPA_TMP/tb" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^verdict'
# the last cycle of a repeating schedule, when the loop ends as the
# profiler begins it, holds one empty ProfilerStep: no verdict, so the
# newest run with a step is taken, with a note; --run still takes it
cat >"$d/w0.1796490633612345678.pt.trace.json" <<'JSON'
{"schemaVersion": 1, "traceEvents": [
{"ph": "M", "name": "process_name", "pid": 4802, "tid": 0, "args": {"name": "python"}},
{"ph": "M", "name": "thread_name", "pid": 4802, "tid": 4802, "args": {"name": "thread 4802 (python)"}},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#12", "pid": 4802, "tid": 4802,
 "ts": 5635457862089.767, "dur": 18.807, "args": {"External id": 1025}},
{"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 5635457862232.613}
]}
JSON
tfprof-analyze "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^verdict'
tfprof-analyze --run log:span4 "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^verdict'
cp torch_host_bound.trace.json.gz "$TPA_TMP/base.json.gz"
tfprof-analyze check "$TPA_TMP/base.json.gz" --baseline "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g" |
        grep -e 'newest' -e '^ok' -e '^fail'
# every run empty: the newest, as it is
mkdir -p "$TPA_TMP/empty" || exit
cp "$d/w0.1796490633612345678.pt.trace.json" "$TPA_TMP/empty/"
cp "$d/w0.1796490633612345678.pt.trace.json" "$TPA_TMP/empty/w0.1796490633712345678.pt.trace.json"
tfprof-analyze "$TPA_TMP/empty" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^verdict'
