# two ranks of one job (tools/make_fixtures_dist.py) merged into one file:
# one process group per input, each marked with the input it came from
# (tpa_input: name, index, rank). Analysed, the merged file is reported as
# its inputs were: each part alone, then the job view; each rank's steps
# in the merged report (--format json, one document per part) equal that
# rank's own, to the nanosecond, and so do its breakdown and class.
r0=dist_rank0.pt.trace.json.gz r1=dist_rank1.pt.trace.json.gz
tfprof-analyze merge $r0 $r1 -o "$TPA_TMP/m.json" || exit
grep -o '"pid":[0-9]*,"name":"tpa_input","args":{[^}]*}' "$TPA_TMP/m.json"
grep -c '"pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*,"name":"ProfilerStep#[0-9]*"' \
        "$TPA_TMP/m.json"
# per document: number start_ns end_ns step_time_ns class of every step,
# then the run's breakdown
steps() {
        tfprof-analyze --format json "$@" |
                sed -n '/^  "steps": \[/,/^  \]/p; /^  "summary": {/,/^  }/p' |
                grep -E '^      "(number|start_ns|end_ns|step_time_ns|class)": |^    "(class|[a-z_]*_frac)": ' |
                sed 's/,$//'
}
steps $r0 >"$TPA_TMP/r0" && steps $r1 >"$TPA_TMP/r1" && steps "$TPA_TMP/m.json" >"$TPA_TMP/m" ||
        exit
cat "$TPA_TMP/r0" "$TPA_TMP/r1" | cmp - "$TPA_TMP/m" && echo "each rank's steps and breakdown: as alone"
grep -c '"number"' "$TPA_TMP/m"
tfprof-analyze "$TPA_TMP/m.json" | sed -n '/^job:/,$p' | sed "s|$TPA_TMP/||"
# and its job view is the ranks' own (the collectives' dispatcher ops,
# c10d::allreduce_, read back as collectives)
tfprof-analyze $r0 $r1 | sed -n '/^job:/,/^ranks:/p' >"$TPA_TMP/j" &&
        tfprof-analyze "$TPA_TMP/m.json" | sed -n '/^job:/,/^ranks:/p' | cmp - "$TPA_TMP/j" &&
        echo "the job view: as of the ranks alone"
# a merged file merged again, or converted, keeps its inputs apart
tfprof-analyze merge "$TPA_TMP/m.json" dist_rank2.pt.trace.json.gz -o "$TPA_TMP/m3.json" &&
        tfprof-analyze convert "$TPA_TMP/m3.json" -o "$TPA_TMP/m3c.json" || exit
grep -o '"name":"tpa_input","args":{"name":"[^"]*","sort_index":[0-9]*,"rank":[0-9]*' \
        "$TPA_TMP/m3c.json" | sort | uniq -c
tfprof-analyze "$TPA_TMP/m3c.json" | grep '^job:'
