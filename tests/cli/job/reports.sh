# the job view from the ranks' JSON reports alone is the view from their
# traces: each rank's report carries its `distributed` object
for r in 0 1 2 3; do
        tfprof-analyze --format json -o "$TPA_TMP/rank-$r.json" dist_rank$r.pt.trace.json.gz || exit
done
for f in text json markdown html; do
        tfprof-analyze aggregate --format $f dist_rank*.pt.trace.json.gz > "$TPA_TMP/traces.$f" &&
        tfprof-analyze aggregate --format $f "$TPA_TMP"/rank-*.json > "$TPA_TMP/reports.$f" || exit
        cmp -s "$TPA_TMP/traces.$f" "$TPA_TMP/reports.$f" && echo "$f: the same job view" ||
                diff "$TPA_TMP/traces.$f" "$TPA_TMP/reports.$f"
done
# analyze given the traces ends with the same view, and so does a folder
tfprof-analyze dist_rank*.pt.trace.json.gz | sed -n '/^job:/,$p' > "$TPA_TMP/analyze.text"
cmp -s "$TPA_TMP/traces.text" "$TPA_TMP/analyze.text" && echo "analyze: the same job view"
mkdir "$TPA_TMP/reports" && mv "$TPA_TMP"/rank-*.json "$TPA_TMP/reports/" || exit
tfprof-analyze aggregate "$TPA_TMP/reports" | cmp -s - "$TPA_TMP/traces.text" &&
        echo "a folder of reports: the same job view"
tfprof-analyze "$TPA_TMP"/reports/rank-*.json | sed -n '/^job:/,$p' | cmp -s - "$TPA_TMP/traces.text" &&
        echo "analyze given the reports: the same job view"
# the heat map marks one straggler per step
grep -c '(straggler)</title>' "$TPA_TMP/reports.html"
