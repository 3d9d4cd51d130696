#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/job.sh - time `tfprof-analyze aggregate` on per-rank JSON reports of a
# made-up job (bench/gen_reports.c: each report of the size and layout of a
# real one of STEPS steps), for several rank counts: wall time, CPU time and
# peak RSS from bench/measure, and the time per rank, which must stay flat
# for the growth to be linear. The goal (issue 21): 10,000 ranks x 100 steps
# in under 5 s and 500 MB on a 2-core machine. See bench/README.md.
#
# Usage: bench/job.sh [--steps N] [RANKS...]     (default: 1024 4096 10000, 100 steps)
# Env: TPA_BENCH_BUILD (default build-bench, release), TPA_BENCH_OUT (default
#      bench/out). Reports are generated once per size under
#      $TPA_BENCH_OUT/job-RANKSxSTEPS/ and reused; delete them to remake.
set -eu
cd "$(dirname "$0")/.."
steps=100
if [ "${1:-}" = --steps ]; then steps=$2; shift 2; fi
[ $# -gt 0 ] || set -- 1024 4096 10000
build=${TPA_BENCH_BUILD:-build-bench}
out=${TPA_BENCH_OUT:-bench/out}
if [ ! -d "$build" ]; then
        meson setup "$build" -Dbuildtype=release >/dev/null
fi
ninja -C "$build" -j 2 cli/tfprof-analyze bench/gen_reports bench/measure >/dev/null
mkdir -p "$out"
bin=$build/cli/tfprof-analyze
printf '%8s %6s %9s %9s %9s %10s %11s\n' ranks steps "MB on disk" "wall s" "cpu s" "peak MB" "us/rank"
for n in "$@"; do
        dir=$out/job-${n}x$steps
        if [ ! -d "$dir" ]; then
                mkdir -p "$dir.tmp" && "$build/bench/gen_reports" "$dir.tmp" "$n" "$steps" &&
                        mv "$dir.tmp" "$dir"
        fi
        mb=$(du -sm "$dir" | cut -f1)
        # Warm the page cache (a re-run reads from memory, as a second
        # aggregate of the same reports would), then keep the best of 3.
        cat "$dir"/rank-*.json > /dev/null
        best=
        for i in 1 2 3; do
                rm -f "$out/job.res"
                "$build/bench/measure" "$out/job.res" "$bin" aggregate --format json \
                        -o "$out/job-$n.json" "$dir" >/dev/null
                line=$(cat "$out/job.res")
                wall=${line%% *}
                if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'
                then best=$line; fi
        done
        set -- $best
        awk -v n="$n" -v s="$steps" -v mb="$mb" -v w="$1" -v rss="$2" -v cpu="$4" 'BEGIN {
                printf "%8d %6d %9d %9.3f %9.3f %10.1f %11.1f\n", n, s, mb, w, cpu,
                       rss / 1024, w / n * 1e6 }'
        set -- 
done
