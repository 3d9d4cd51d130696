# comm/comp overlap, launch delay and queue depth against HTA's on the
# GPU-shaped synthetic ranks (tools/make_fixtures_gpu_ranks.py; HTA's
# figures by tools/hta_job.py in expect_hta.txt): within 1 point, 1%
tfprof-analyze aggregate --format json synth_gpu_rank*.pt.trace.json.gz > "$TPA_TMP/job.json" || exit
sed -n '/^    "ranks": \[/,/^    \]/p' "$TPA_TMP/job.json" | awk '
        function v(l) { sub(/.*: /, "", l); sub(/,$/, "", l); gsub(/"/, "", l); return l }
        /^        "rank": /              { r = v($0) }
        /"comm_overlap_frac": /         { print "rank", r, "overlap_pct", v($0) * 100 }
        /^          "count": /           { print "rank", r, "launch_count", v($0) }
        /^          "median_ns": /       { print "rank", r, "launch_median_ns", v($0) }
        /^          "p90_ns": /          { print "rank", r, "launch_p90_ns", v($0) }
        /^          "max_ns": /          { print "rank", r, "launch_max_ns", v($0) }
        /"stream": /                     { s = v($0); sub(/.* /, "", s) }
        /^            "mean": /          { print "queue", r, s, "mean", v($0) }
        /^            "max": /           { print "queue", r, s, "max", v($0) }' > "$TPA_TMP/ours"
awk 'NR == FNR { k = $1 " " $2 " " $3; if (NF == 5) k = k " " $4; ours[k] = $NF; next }
     function cmp(k, want, tol_abs, tol_rel,   got, ok) {
             got = ours[k]; ok = got != "" && (got - want <= tol_abs + tol_rel * want) &&
                                 (want - got <= tol_abs + tol_rel * want)
             printf "%-32s HTA %-10s ours %-10s %s\n", k, want, got, ok ? "agree" : "DIFFER" }
     $1 == "rank" { for (i = 3; i < NF; i += 2)
                            cmp("rank " $2 " " $i, $(i + 1), $i == "overlap_pct" ? 1 : 0,
                                $i == "overlap_pct" ? 0 : 0.01) }
     $1 == "queue" { cmp("queue " $3 " " $5 " mean", $7, 0, 0.01); cmp("queue " $3 " " $5 " max", $9, 0, 0) }' \
        "$TPA_TMP/ours" ../tests/cli/job/expect_hta.txt
