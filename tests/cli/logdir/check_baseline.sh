# a logdir is a --baseline as it is NEW: the host trace of its newest run
tfprof-analyze check tf2_logdir --baseline tf2_logdir --max-regression 5% 2>/dev/null; echo "same: $?"
tfprof-analyze check tf2_compute_bound.xplane.pb --fail-on input-bound --baseline tf2_logdir 2>/dev/null | cut -c1-60; echo "other: $?"
# a run of several hosts is no single baseline
tfprof-analyze check tf2_compute_bound.xplane.pb --baseline logdir; echo "hosts: $?"
