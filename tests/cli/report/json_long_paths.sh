# check and diff --format json give the runs' paths whole, however long
# (here 300 bytes and more, UTF-8 past the 255th byte), invalid UTF-8
# repaired as U+FFFD.
cp torch_input_bound.trace.json.gz "$TPA_TMP/a.gz"
cp torch_compute_bound.trace.json.gz "$TPA_TMP/b.gz"
cd "$TPA_TMP" || exit 99
e=$(printf '\303\251%.0s' $(seq 60))   # 60 x U+00E9, 120 bytes
dir=runs/$e/$e/resnet50_num_workers_4_prefetch_autotune
bad=$(printf 'bad\377name')
mkdir -p "$dir/$bad"
cp a.gz "$dir/base.trace.json.gz"
cp b.gz "$dir/$bad/new.trace.json.gz"
tfprof-analyze diff --format json "$dir/base.trace.json.gz" "$dir/$bad/new.trace.json.gz" \
        > diff.json
echo "diff: $?"
grep -E '^  "(base|new)"' diff.json
tfprof-analyze check --format json "$dir/$bad/new.trace.json.gz" \
        --baseline "$dir/base.trace.json.gz" > check.json
echo "check: $?"
grep -E '"(new|baseline)"' check.json
