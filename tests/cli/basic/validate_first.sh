# Options are checked before any work: a bad one is a usage error (exit 2)
# and writes no report, not a report and then exit 2.
tfprof-analyze --fail-on-severity fatal kineto_small.json
echo "--fail-on-severity fatal: $?"
tfprof-analyze --rules-replace kineto_small.json
echo "--rules-replace alone: $?"
tfprof-analyze --run 2024_01_01_10_00_00 kineto_small.json
echo "--run on a plain file: $?"
tfprof-analyze check --run 2024_01_01_10_00_00 kineto_small.json --fail-on input-bound
echo "check --run on a plain file: $?"
tfprof-analyze check --run 2024_01_01_10_00_00 logdir --fail-on input-bound
echo "check --run in a logdir: $?"
