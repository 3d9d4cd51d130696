# a folder of 4 ranks' traces and one trace that says no rank: no job
# view, and a note says why; with --ranks, a job whose ranks keep the
# numbers their traces say (the stray one after them)
d="$TPA_TMP/job"
mkdir -p "$d" || exit
for r in 0 1 2 3; do cp dist_rank$r.pt.trace.json.gz "$d/rank$r.json.gz"; done
cp torch_host_bound.trace.json.gz "$d/other.json.gz"
tfprof-analyze "$d" 2>&1 >/dev/null | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$d" 2>/dev/null | grep -c '^job'
tfprof-analyze --ranks "$d" 2>/dev/null | grep -e '^job' -e '^straggler' | cut -c1-60
