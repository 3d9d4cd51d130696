# a folder of traces of any name (rank-*.json.gz) is the ranks of one job,
# recognised by their distributedInfo; --ranks takes files of any name
d=$TPA_TMP/ranks o=$TPA_TMP/other
mkdir "$d" "$o" || exit
for r in 0 1 2 3; do cp dist_rank$r.pt.trace.json.gz "$d/rank-$r.json.gz"; done
tfprof-analyze "$d" | grep -E '^(job|straggler):'
tfprof-analyze aggregate --format json "$d" | grep -E '"(rank_count|world_size|top_straggler)"'
cp dist_rank0.pt.trace.json.gz "$o/a.trace" && cp dist_rank1.pt.trace.json.gz "$o/b.trace"
tfprof-analyze aggregate --ranks "$o" | grep -E '^(job|straggler):'
