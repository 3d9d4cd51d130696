# a folder of traces that also holds JSON that is no trace (PyTorch's
# execution trace, a memory timeline, an object of no events) reads the
# traces and passes over the rest, each named; a folder of no trace at
# all, or such a file given by name, is refused (exit 3)
d=$TPA_TMP/ranks e=$TPA_TMP/none
mkdir "$d" "$e" || exit
for r in 0 1; do cp dist_rank$r.pt.trace.json.gz "$d/rank-$r.json.gz"; done
printf '{"schema": "1.1.1-chakra.0.0.4", "pid": 1, "nodes": []}' > "$d/rank0_et.json"
printf '[[0, 1024], [10, 2048]]' > "$d/mem.json"
printf '{"lr": 0.1}' > "$e/config.json"
tfprof-analyze "$d" 2>&1 >/dev/null | sed "s|$TPA_TMP/||g"
tfprof-analyze "$d" 2>/dev/null | grep -E '^(job|straggler):'
tfprof-analyze aggregate "$d" 2>/dev/null | grep -E '^(job|straggler):'
tfprof-analyze "$e" 2>"$TPA_TMP/err"
echo "exit $?"
tfprof-analyze "$d/mem.json" 2>>"$TPA_TMP/err"
echo "exit $?"
sed "s|$TPA_TMP/||g" "$TPA_TMP/err"
