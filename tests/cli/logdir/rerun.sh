# a script run again into the same folder: tensorboard_trace_handler names
# its worker "<host>_<pid>", a new one each run, so the folder holds a file
# of each run; written minutes apart they are runs one after another (the
# newest checked), not the ranks of one job; ranks written at once still are
d="$TPA_TMP/logs"
mkdir -p "$d" || exit
cp torch_compute_bound.trace.json.gz "$d/vm_1201.1796519230327935792.pt.trace.json.gz"
cp torch_host_bound.trace.json.gz "$d/vm_1346.1796519322179307050.pt.trace.json.gz"
tfprof-analyze --list-runs "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e 'newest' -e '^verdict' -e '^job'
tfprof-analyze check "$d" --baseline torch_host_bound.trace.json.gz --max-regression 5% \
        >"$TPA_TMP/o" 2>&1
echo "check: $?"; sed "s|$TPA_TMP|TMP|g" "$TPA_TMP/o" | cut -c1-50 | sed "s/ *$//"
# a third run a minute later, with a repeating schedule: two cycles, two runs
cp torch_input_bound.trace.json.gz "$d/vm_1400.1796519382179307050.pt.trace.json.gz"
cp torch_compute_bound.trace.json.gz "$d/vm_1400.1796519382279307050.pt.trace.json.gz"
# and two ranks of a job that wrote theirs 28 ms apart, after it
cp dist_rank0.pt.trace.json.gz "$d/vm_1500.1796519481112298870.pt.trace.json.gz"
cp dist_rank1.pt.trace.json.gz "$d/vm_1501.1796519481140206706.pt.trace.json.gz"
tfprof-analyze --list-runs "$d" 2>&1 | sed "s|$TPA_TMP|TMP|g"
# a script run again 5 s later: named as closely as ranks, but its traces
# say when they ran (baseTimeNanoseconds), the second after the first
# ended: runs one after another, no straggler
d="$TPA_TMP/again"
mkdir -p "$d" || exit
cp torch_compute_bound.trace.json.gz "$d/vm_1201.1796519230327935792.pt.trace.json.gz"
cp torch_host_bound.trace.json.gz "$d/vm_1346.1796519235179307050.pt.trace.json.gz"
tfprof-analyze "$d" 2>&1 | grep -e '^job' -e '^straggler'
tfprof-analyze aggregate --format json "$d" | grep -e one_after_another -e '"top_straggler"'
# the same from their reports, which carry when each ran
tfprof-analyze --format json torch_compute_bound.trace.json.gz > "$TPA_TMP/a.json" &&
        tfprof-analyze --format json torch_host_bound.trace.json.gz > "$TPA_TMP/b.json" || exit
tfprof-analyze aggregate "$TPA_TMP/a.json" "$TPA_TMP/b.json" | grep '^straggler'
