#!/bin/sh
# edits.sh TFPROF - issue 27's fixtures made from real traces by documented
# edits, checked against the trace unedited (TAP; skips without the
# corpus). Each edit adds what newer Kineto traces carry and must change no
# bucket:
#   1. a Python thread under GPU 0's pid (pid 0, "thread 0 (python3)"),
#      python_function spans over the whole profile, as PyTorch writes with
#      with_stack=True: it is a host thread, not a device stream, so
#      compute stays what it was;
#   2. user_annotation spans ("## forward ##") over every step of a
#      CPU-only trace: they wrap ops, they are no work of their own (and
#      never compute), so no bucket moves.
# The trace: kineto-pytorch/tb_plugin/samples/resnet50_num_workers_4 (V100,
# ProfilerStep#5..10). The figures compared are the JSON report's run
# bucket_frac and the step times.
set -u
bin=$1
corpus=${TPA_CORPUS:-}
src=$corpus/kineto-pytorch/tb_plugin/samples/resnet50_num_workers_4/worker0.pt.trace.json.gz
if [ -z "$corpus" ] || [ ! -f "$src" ]; then
        echo "1..0 # SKIP corpus absent"
        exit 0
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
figures() {     # the run's buckets and every step's time, one per line
        "$bin" --format json "$1" | sed -n '/"summary"/,/"what_if"/p' |
                sed -n '/"bucket_frac"/,/}/p'
        "$bin" --format json "$1" | grep '"step_time_ns"'
}
zcat "$src" > "$tmp/orig.json"
# 1: after the opening of traceEvents, a thread name and a span on pid 0
sed '0,/"traceEvents": \[/s//"traceEvents": [\
{"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "thread 0 (python3)"}},\
{"ph": "X", "cat": "python_function", "name": "train.py(42): <module>", "pid": 0, "tid": 0, "ts": 1610366728298000, "dur": 2000000},/' \
        "$tmp/orig.json" > "$tmp/python.json"
# 2: a "## forward ##" span over each ProfilerStep, on its thread, put
# first in traceEvents (event order does not matter). On a CPU-only trace
# (framework ops are the compute there) of our own: testdata's
# torch_host_bound, a real torch 2.13 profile (tools/make_fixtures_torch.py).
zcat "$TPA_TESTDATA/torch_host_bound.trace.json.gz" > "$tmp/cpu.json"
awk '/"name": "ProfilerStep#/ { step = 1; ts = ""; next }
     step && /"(pid|tid|ts|dur)": / { v = $0; sub(/^[^:]*: */, "", v); sub(/,.*$/, "", v);
        k = $0; sub(/^[^"]*"/, "", k); sub(/".*$/, "", k); f[k] = v }
     step && f["dur"] != "" { step = 0;
        printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"## forward ##\", \"pid\": %s, \"tid\": %s, \"ts\": %s, \"dur\": %s},\n", f["pid"], f["tid"], f["ts"], f["dur"];
        delete f }' "$tmp/cpu.json" > "$tmp/spans"
awk -v spans="$tmp/spans" '{ print }
     !done && /"traceEvents": *\[/ { while ((getline l < spans) > 0) print l; done = 1 }' \
        "$tmp/cpu.json" > "$tmp/annot.json"
echo "1..4"
n=0
for edit in python annot; do
        base=orig
        [ $edit = annot ] && base=cpu
        n=$((n + 1))
        if grep -q 'python_function\|## forward ##' "$tmp/$edit.json"; then
                echo "ok $n - $edit: the edit is in the trace"
        else
                echo "not ok $n - $edit: the edit is in the trace"
        fi
        n=$((n + 1))
        figures "$tmp/$base.json" > "$tmp/want"
        figures "$tmp/$edit.json" > "$tmp/got"
        if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"; then
                echo "ok $n - $edit: buckets and step times unchanged"
        else
                echo "not ok $n - $edit: buckets and step times unchanged"
                diff "$tmp/want" "$tmp/got" | head -20 | sed 's/^/# /'
        fi
done
