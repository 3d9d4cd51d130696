# check gates a job of several ranks on the job metrics
tfprof-analyze check --fail-if 'straggler_excess > 10%' --fail-if 'spread > 50' \
        dist_rank*.pt.trace.json.gz; echo "exit $?"
tfprof-analyze check --format json --fail-if 'collective_wait_frac > 99%' \
        dist_rank*.pt.trace.json.gz | grep -E '"(tripped|collective_wait_frac)"'; echo "exit $?"
tfprof-analyze check --fail-on host-bound dist_rank0.pt.trace.json.gz \
        dist_rank1.pt.trace.json.gz; echo "exit $?"
