# two ranks busy alike in every step (one trace given twice) have no
# straggler: the job says so, not "rank 0 ... 0 ns over the median rank";
# nor has a job of one rank
cp tf2_compute_bound.trace.json.gz "$TPA_TMP/a.json.gz" &&
        cp tf2_compute_bound.trace.json.gz "$TPA_TMP/b.json.gz" || exit
tfprof-analyze aggregate --ranks "$TPA_TMP/a.json.gz" "$TPA_TMP/b.json.gz" |
        sed -n '/^straggler:/p; /^      step/,/^$/p'
tfprof-analyze aggregate --format json --ranks "$TPA_TMP/a.json.gz" "$TPA_TMP/b.json.gz" |
        grep -E '"(top_straggler|top_straggler_steps|straggler|straggler_steps)"' | sort | uniq -c
tfprof-analyze aggregate --ranks "$TPA_TMP/a.json.gz" | grep '^straggler:'
