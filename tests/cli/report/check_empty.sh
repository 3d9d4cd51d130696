# A run with no steps has nothing to gate on: an error (exit 3) that says
# why, never "ok" (doc/design.md 5.5), as NEW or as the baseline.
cd "$TPA_TMP" || exit 99
printf '{"traceEvents":[]}' > empty.json
tfprof-analyze check empty.json --fail-if 'input_frac > 20%'
echo "fail-if: $?"
tfprof-analyze check empty.json --fail-on input-bound
echo "fail-on: $?"
tfprof-analyze check "$TPA_TESTDATA/kineto_small.json" --baseline empty.json
echo "baseline: $?"
# events but no training steps: no verdict, as NEW or as the baseline
printf '{"traceEvents":[{"name":"x","ph":"X","ts":1,"dur":5,"pid":1,"tid":1}]}' > nov.json
tfprof-analyze check nov.json --fail-if 'input_frac > 20%'
echo "no verdict: $?"
tfprof-analyze check "$TPA_TESTDATA/kineto_small.json" --baseline nov.json
echo "no verdict baseline: $?"
tfprof-analyze --format json nov.json -o nov.report.json
tfprof-analyze check "$TPA_TESTDATA/kineto_small.json" --baseline nov.report.json
echo "no verdict report: $?"
