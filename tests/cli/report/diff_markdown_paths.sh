# The Markdown diff's heading names the two runs by where their paths
# differ: long paths keep the differing components (or, inside a long
# component, the differing characters) with a little context, and cut
# between UTF-8 characters. Paths of at most 80 characters stay whole.
cp torch_input_bound.trace.json.gz "$TPA_TMP/a.gz"
cp torch_compute_bound.trace.json.gz "$TPA_TMP/b.gz"
cd "$TPA_TMP" || exit 99
heading() {
        mkdir -p "$(dirname "$1")" "$(dirname "$2")"
        cp a.gz "$1"
        cp b.gz "$2"
        tfprof-analyze diff --format markdown "$1" "$2" > out.md
        echo "exit $?: $(sed -n 3p out.md)"
}
e70=$(printf '\303\251%.0s' $(seq 70))  # 70 x U+00E9, 140 bytes
e90=$e70$(printf '\303\251%.0s' $(seq 20))
run=logs/2026-12-04/resnet50_num_workers_4_prefetch_autotune/plugins/profile
heading "$run/2026_12_04_13_02_11/host.trace.json.gz" \
        "${run%%_4_*}_8_prefetch_autotune/plugins/profile/2026_12_04_13_40_57/host.trace.json.gz"
heading "$run/2026_12_04_13_02_11/host.trace.json.gz" "$run/2026_12_04_13_02_12/host.trace.json.gz"
heading "$e70-1.json.gz" "$e70-2.json.gz"
heading "$e90-1.json.gz" "$e90-22.json.gz"
heading "runs/$e90/a/$e70/host.json.gz" "runs/$e90/b/$e70/host.json.gz"
heading "x/${e70}1/$e70/y/host.json.gz" "x/${e70}2/$e70/z/host.json.gz"
