# RunMetadata whose IteratorGetNext (waiting on a slow input) and an
# input-independent MatMul chain ran at once on two inter-op threads, both
# filed under thread_id 0: the MatMuls are compute, not input nested in
# IteratorGetNext, as in timeline.py's JSON of the same step (its lanes)
for f in tf1_overlap.runmeta.pb tf1_overlap_timeline.json; do
        tfprof-analyze --warmup 0 "$f" | grep -m2 -E '^    (compute|input) '
done
