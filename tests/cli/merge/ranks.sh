# two ranks of one job (tools/make_fixtures_dist.py): one process group per
# input, each rank's ProfilerStep#N markers in its own group, and the merged
# report's steps (--format json) against each rank's own: step N of the job
# spans rank 0's and rank 1's step N (from the earlier start, or where step
# N-1 ends, to the later end)
r0=dist_rank0.pt.trace.json.gz r1=dist_rank1.pt.trace.json.gz
tfprof-analyze merge $r0 $r1 -o "$TPA_TMP/m.json" || exit
grep -o '"pid":[0-9]*,"name":"process_labels","args":{"labels":"[^"]*"' "$TPA_TMP/m.json"
grep -o '"pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*,"name":"ProfilerStep#[0-9]*"' \
        "$TPA_TMP/m.json" | sed 's/"ts".*"name"://'
# one line per step: number start_ns end_ns step_time_ns
steps() {
        tfprof-analyze --format json "$1" | sed -n '/^  "steps": \[/,/^  \]/p' |
                grep -E '^      "(number|start_ns|end_ns|step_time_ns)": ' | sed 's/.*: //; s/,$//' |
                paste -d' ' - - - -
}
steps $r0 >"$TPA_TMP/r0" && steps $r1 >"$TPA_TMP/r1" && steps "$TPA_TMP/m.json" >"$TPA_TMP/m" || exit
for f in r0 r1 m; do echo "$f:"; cat "$TPA_TMP/$f"; done
paste -d' ' "$TPA_TMP/r0" "$TPA_TMP/r1" "$TPA_TMP/m" | awk '
        { lo = $2 < $6 ? $2 : $6; hi = $3 > $7 ? $3 : $7; s = lo > prev ? lo : prev
          ok = $1 == $5 && $1 == $9 && $10 == s && $11 == hi && $12 == hi - s
          print "step " $9 ": the ranks\047 step " $1 " windows " (ok ? "" : "NOT ") "joined"
          prev = $11 }'
