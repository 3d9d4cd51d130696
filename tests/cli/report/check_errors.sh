# Usage errors exit 2, unreadable inputs 3, and nothing goes to stdout.
tfprof-analyze check torch_input_bound.trace.json.gz --max-regression 5%
echo "no baseline: $?"
tfprof-analyze check torch_input_bound.trace.json.gz --baseline no_such.json
echo "missing baseline: $?"
tfprof-analyze check no_such.json --fail-on input-bound
echo "missing input: $?"
tfprof-analyze check torch_input_bound.trace.json.gz --fail-on input-bound --format html
echo "html: $?"
tfprof-analyze diff --format html torch_input_bound.trace.json.gz torch_input_bound.trace.json.gz
echo "diff html: $?"
# a logdir's hosts written as one file: several reports, not one
tfprof-analyze --format json logdir -o "$TPA_TMP/hosts.json" 2>/dev/null
tfprof-analyze check kineto_small.json --baseline "$TPA_TMP/hosts.json" 2>&1 | sed "s|$TPA_TMP|TMP|g"
