# four ranks of one gloo job (tools/make_fixtures_dist.py): rank 2 sleeps in
# every step; it is the straggler of every step, its excess over the median
# rank within 5% of the sleep the trace measured (expect_dist.txt), and the
# other ranks' collective wait is most of their step time
tfprof-analyze aggregate dist_rank0.pt.trace.json.gz dist_rank1.pt.trace.json.gz \
        dist_rank2.pt.trace.json.gz dist_rank3.pt.trace.json.gz
tfprof-analyze aggregate --format json dist_rank*.pt.trace.json.gz > "$TPA_TMP/job.json" || exit
# one line per step: number straggler-rank excess_ns
sed -n '/^    "steps": \[/,/^    \]/p' "$TPA_TMP/job.json" |
        grep -E '^        "number"|^          "rank"|^          "excess_ns"' | sed 's/.*: //; s/,$//' |
        paste -d' ' - - - > "$TPA_TMP/steps"
awk 'NR == FNR { if ($1 == "step") sleep[$2] = $6; next }
     { ok = $2 == 2 && $3 > 0.95 * sleep[$1] && $3 < 1.05 * sleep[$1]
       printf "step %s: straggler rank %s, excess %s sleep (within 5%%)\n", $1, $2,
              ok ? "matches its" : "DOES NOT match its" }' \
        ../tests/cli/job/expect_dist.txt "$TPA_TMP/steps"
# the others waited for it: their wait per step is its sleep, within 5%
sed -n '/^    "ranks": \[/,/^    \]/p' "$TPA_TMP/job.json" |
        grep -E '^        "(rank|steps|wait_ns)"' | sed 's/.*: //; s/,$//' | paste -d' ' - - - |
        awk -v f=../tests/cli/job/expect_dist.txt '
        BEGIN { while ((getline l < f) > 0) { split(l, w, " "); if (w[1] == "step") { s += w[6]; n++ } } }
        $1 != 2 { per = $3 / $2; ok = per > 0.95 * s / n && per < 1.05 * s / n
                  printf "rank %s waited for rank 2 %s\n", $1, ok ? "its sleep (within 5%)" : "NOT its sleep" }'
