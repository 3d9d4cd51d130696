# two workers of a TF MultiWorkerMirroredStrategy job on CPU (tf_workers.sh):
# worker 1 sleeps 30 ms in Python before each step, and worker 0 waits
# those 30 ms in CollectiveReduceV2. Worker 0 is sync-bound (collective),
# worker 1 the straggler by 30 ms.
. "$(dirname "$0")/tf_workers.sh"
cd "$TPA_TMP" || exit
tfprof-analyze --ranks w0.trace.json w1.trace.json | grep -E '^(verdict|    sync|job|straggler)'
