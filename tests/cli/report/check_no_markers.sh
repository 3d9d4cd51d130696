# one step for a whole trace (no marker or iteration found) against a run
# of iterations compares a profile's length with a step's: an error, from
# a trace or a saved report, either side; two such traces compare
tfprof-analyze check kineto_small.json --baseline edge_string_ids.json --max-regression 5%
echo "baseline unmarked: $?"
tfprof-analyze check edge_string_ids.json --baseline kineto_small.json --max-regression 5%
echo "new unmarked: $?"
tfprof-analyze --format json edge_string_ids.json -o "$TPA_TMP/u.json"
{ tfprof-analyze check kineto_small.json --baseline "$TPA_TMP/u.json" --max-regression 5% 2>&1
  echo "report unmarked: $?"; } | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze check edge_string_ids.json --baseline edge_string_ids.json --max-regression 5% >/dev/null
echo "both unmarked: $?"
