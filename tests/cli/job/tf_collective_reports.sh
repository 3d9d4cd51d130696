# the workers of tf_collective.sh analysed apart, each to its JSON report
# (doc/fanout.md), then aggregated: a TF profile never says its rank, and
# its report must carry its collective time all the same, or the job view
# of the reports sees no wait and no straggler (the same view as --ranks)
. "$(dirname "$0")/tf_workers.sh"
cd "$TPA_TMP" || exit
tfprof-analyze --format json -o w0.json w0.trace.json || exit
tfprof-analyze --format json -o w1.json w1.trace.json || exit
tfprof-analyze aggregate w0.json w1.json | grep -E '^(job|straggler)'
tfprof-analyze --ranks w0.trace.json w1.trace.json | sed -n '/^job/,/^ranks:/p' > ranks.txt
tfprof-analyze aggregate w0.json w1.json | sed -n '/^job/,/^ranks:/p' | cmp -s - ranks.txt &&
        echo "aggregate of the reports = --ranks of the traces"
