#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/run.sh - the benchmark of issue 6, in one go, on the same generated
# trace for every tool: the full tfprof-analyze analysis, our event-building
# pipeline alone (threaded and on one thread), bare inflate (lib/input/inflate.c
# as source.c uses it, zlib, and gzip -dc), bare yajl with empty callbacks, gzip + yajl on one
# thread, a plain Python json script, and Holistic Trace Analysis when it
# can be installed from PyPI. Prints MB/s of JSON (uncompressed bytes / wall
# time), events/s (JSON records / wall time), peak RSS and the ratios to ours,
# then the issue's goals, met or not. See bench/README.md.
#
# Usage: bench/run.sh [--quick] [--repeat N] [--pairs N] [--no-peers] [--no-stress]
#                     [--setup-peers] [--xspace-steps N] [SIZE...]
#   SIZE     uncompressed JSON sizes to generate and measure (default 100M 1G)
#   --quick  20M only, stress modes at 20M: a smoke run of a few seconds
#   --repeat N  run each measurement N times, keep the fastest (default 1)
#   --pairs N   also run ours and the read-only pipeline back to back N times,
#              in turn first (and ours, the Python script and ours again, up
#              to 2 times), and judge
#              those two goals by the median ratio of the pairs, and
#              at the end runs the sizes in turn N times for the scaling:
#              on a VM whose speed drifts, the fastest of runs minutes
#              apart is not a fair ratio (default 0: off)
#   --no-peers  skip Python and HTA;  --no-stress  skip the stress modes
#   --setup-peers  first make a venv in bench/out/venv with HTA from PyPI
#              (HolisticTraceAnalysis 0.5 needs pandas < 3) and xprof
#   --xspace-steps N  steps of the real TF profile (XSpace) on which ours and
#              XProf's converters run (default 2000, about 29 MB; 0: skip);
#              recorded once by bench/make_xplane.py where TF is installed
# Env: TPA_BENCH_BUILD (build dir, default build-bench, set up as release),
#      TPA_BENCH_OUT (default bench/out), PYTHON (default python3),
#      TPA_BENCH_HTA_MAX (largest JSON size HTA is run on, bytes; default
#      300000000: HTA takes about 2 s per MB of JSON).
# The tools' stderr goes to bench/out/stderr.log.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

sizes=""
repeat=1
pairs=0
peers=1
stress=1
stress_size=100M
setup=0
xsteps=2000
while [ $# -gt 0 ]; do
        case $1 in
        --quick) sizes="20M"; stress_size=20M ;;
        --repeat) repeat=$2; shift ;;
        --pairs) pairs=$2; shift ;;
        --no-peers) peers=0 ;;
        --no-stress) stress=0 ;;
        --setup-peers) setup=1 ;;
        --xspace-steps) xsteps=$2; shift ;;
        -h|--help) sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) sizes="$sizes $1" ;;
        esac
        shift
done
[ -n "$sizes" ] || sizes="100M 1G"

build=${TPA_BENCH_BUILD:-build-bench}
out=${TPA_BENCH_OUT:-bench/out}
python=${PYTHON:-python3}
mkdir -p "$out"
if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" -Dbuildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null
B=$build/bench
cli=$build/cli/tfprof-analyze
results=$out/results.txt
: > "$results"
: > "$out/stderr.log"

say() { printf '%s\n' "$*" | tee -a "$results"; }

# measure NAME CMD...: run CMD `repeat` times under bench/measure (stdout to
# /dev/null unless captured by the caller through $capture); keeps the best
# wall time and the peak RSS, CPU time and host steal (%, -1: unknown) of
# that run in $best_wall $best_rss $best_cpu $best_steal.
capture=/dev/null
# median: numbers on stdin, one a line -> "median min max" (0 0 0 if none)
median() {
        sort -n | awk '{ v[NR] = $1 }
                END { if (NR) print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2, v[1], v[NR]
                      else print 0, 0, 0 }'
}

# Host steal (bench/measure): at or below $quiet_steal % the VM had its CPUs;
# above it a run measures the hypervisor's other guests as much as ours.
quiet_steal=5
# quiet_pairs KIND FIRST LAST: of $out/.pairs' KIND lines (ratio as the
# caller's awk computes it: read: $3/$2, py: 2*$3/($2+$4)), those whose runs
# (steal in fields FIRST..LAST) all had steal <= $quiet_steal: prints their
# count and median and the steal of all runs; sets $q_n and $q_median.
quiet_pairs() {
        kind=$1
        ratios=$(awk -v k="$1" -v a="$2" -v z="$3" -v q="$quiet_steal" '
                $1 == k { ok = 1
                          for (i = a; i <= z; i++) if ($i < 0 || $i > q) ok = 0
                          if (ok) print (k == "read" ? $3 / $2 : 2 * $3 / ($2 + $4)) }' \
                "$out/.pairs")
        q_n=$(printf '%s' "$ratios" | grep -c .) || true
        set -- $(printf '%s\n' "$ratios" | grep . | median) \
            $(awk -v k="$1" -v a="$2" -v z="$3" '$1 == k { for (i = a; i <= z; i++) print $i }' \
                "$out/.pairs" | median)
        q_median=$1
        say "$(printf '    host steal in those runs: median %.0f%% (max %.0f%%); %d %s ran with <= %d%% in each run%s' \
               "$4" "$6" "$q_n" "$([ "$kind" = py ] && echo rounds || echo pairs)" "$quiet_steal" \
               "$([ "$q_n" -gt 0 ] && printf ': median %.4f' "$1")")"
}

measure() {
        name=$1; shift
        tmp=$out/.measure.$$
        : > "$tmp"
        i=0
        while [ "$i" -lt "$repeat" ]; do
                if ! "$B/measure" "$tmp" "$@" > "$capture" 2>> "$out/stderr.log"; then
                        echo "run.sh: '$name' failed: $* (see $out/stderr.log)" >&2
                fi
                i=$((i + 1))
        done
        set -- $(sort -n "$tmp" | head -1) -1
        best_wall=$1 best_rss=$2 best_exit=$3 best_cpu=$4 best_steal=$5
        rm -f "$tmp"
}

# row NAME WALL RSS_KB BYTES EVENTS OURS_WALL (and $best_cpu $best_steal)
row() {
        awk -v n="$1" -v w="$2" -v r="$3" -v b="$4" -v e="$5" -v o="$6" -v c="$best_cpu" \
            -v st="$best_steal" 'BEGIN {
                ratio = o > 0 ? sprintf("%.2fx", w / o) : "-"
                printf "  %-44s %8.3f s %7.3f s %7.1f MB/s %6.2f Mev/s %7.1f MB  %-6s %s\n",
                        n, w, c, b / w / 1e6, e / w / 1e6, r / 1024, ratio,
                        st < 0 ? "-" : sprintf("%.0f%%", st)
        }' | tee -a "$results"
}

# Exit 2 is a usage error: this build has no --format json.
json_format=json
"$cli" --format json /dev/null >/dev/null 2>&1 || [ $? -ne 2 ] || json_format=text

if [ "$setup" = 1 ]; then
        [ -x "$out/venv/bin/python" ] || "$python" -m venv "$out/venv"
        "$out/venv/bin/pip" install -q HolisticTraceAnalysis 'pandas<3' xprof
fi
have_hta=0
if [ "$peers" = 1 ] && [ -x "$out/venv/bin/python" ] &&
   "$out/venv/bin/python" -c 'import hta' 2>/dev/null; then
        have_hta=1
fi

say "tfprof-analyze benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(uname -m)"
say "build: $build, report format: $json_format, repeat: $repeat (fastest kept)"

gen() {   # gen SIZE MODE -> $trace (gzip), $plain, $bytes, $events
        trace=$out/tf_$2_$1.json.gz
        plain=$out/tf_$2_$1.json
        if [ ! -s "$trace" ] || [ ! -s "$trace.meta" ]; then
                echo "generating $trace ..." >&2
                "$B/gen_trace" -s "$1" -m "$2" -o "$trace" 2> "$trace.meta"
        fi
        set -- $(cat "$trace.meta")
        bytes=$1 events=$2
}

for size in $sizes; do
        gen "$size" normal
        gzbytes=$(wc -c < "$trace")
        say ""
        say "== $trace: $bytes bytes of JSON ($gzbytes gzip), $events records"
        say "  tool                                            wall s     cpu s    JSON MB/s   events/s   peak RSS  theirs/ours (time), host steal"

        capture=/dev/null
        measure full "$cli" --format "$json_format" "$trace"
        ours=$best_wall
        ours_rss=$best_rss
        ours_steal=$best_steal
        row "tfprof-analyze --format $json_format (full)" "$best_wall" "$best_rss" "$bytes" "$events" ""

        capture=$out/.read2
        measure read2 "$B/read_only" "$trace"
        read2=$best_wall
        set -- $(cat "$capture") 0 0 0 0 0
        kept=$3 trace_mem=$5
        row "read only: gzip | records, threaded" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"

        capture=/dev/null
        measure read1 "$B/read_only" --single "$trace"
        row "read only: gzip + yajl + events, 1 thread" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"

        measure inflate "$B/bare_inflate" --ours "$trace"
        row "bare inflate (inflate.c, as source.c)" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"
        measure zinflate "$B/bare_inflate" "$trace"
        row "bare inflate (zlib, with its CRC)" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"
        measure gzip sh -c 'gzip -dc "$1" > /dev/null' sh "$trace"
        row "gzip -dc > /dev/null" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"

        if [ ! -s "$plain" ]; then
                gzip -dc "$trace" > "$plain"
        fi
        measure yajl "$B/bare_yajl" "$plain"
        row "bare yajl, empty callbacks (plain file)" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"
        measure gzyajl "$B/bare_yajl" "$trace"
        row "gzip + bare yajl, 1 thread" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"

        py_wall=0
        hta_wall=0
        if [ "$peers" = 1 ]; then
                measure python "$python" bench/baseline_python.py "$trace"
                py_wall=$best_wall
                row "Python json script (per-step times)" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"
                if [ "$have_hta" = 1 ] && [ "$bytes" -gt "${TPA_BENCH_HTA_MAX:-300000000}" ]; then
                        say "  HTA: skipped above ${TPA_BENCH_HTA_MAX:-300000000} bytes (TPA_BENCH_HTA_MAX)"
                elif [ "$have_hta" = 1 ]; then
                        kdir=$out/kineto_$size
                        if [ ! -s "$kdir/rank0.trace.json.gz" ]; then
                                mkdir -p "$kdir"
                                "$python" bench/to_kineto.py "$trace" "$kdir/rank0.trace.json.gz" 2>/dev/null
                        fi
                        capture=$out/.hta
                        measure hta "$out/venv/bin/python" bench/hta_run.py "$kdir"
                        capture=/dev/null
                        if [ "$best_exit" = 0 ]; then
                                hta_wall=$best_wall
                                row "HTA (Kineto-shaped copy; load + breakdowns)" "$best_wall" "$best_rss" "$bytes" "$events" "$ours"
                        else
                                say "  HTA failed (exit $best_exit); see $out/.hta"
                        fi
                else
                        say "  HTA: not installed in $out/venv (pip install HolisticTraceAnalysis)"
                fi
                say "  XProf: its converters read XSpace (*.xplane.pb), not Chrome JSON: see the XSpace section"
        fi

        capture=$out/.phases
        if measure phases "$B/read_only" --analyze "$trace" && [ "$best_exit" = 0 ]; then
                set -- $(cat "$capture") 0 0
                phase_read=$1 phase_analyze=$2
        else
                phase_read=0 phase_analyze=0
        fi
        capture=/dev/null

        # back to back, ours and the other, the median of their ratios; the
        # read-only pairs alternate which runs first (ours first in the
        # 1st, 3rd, ...), so that an effect of going second is not all one side's
        pair_read=0 pair_py=0 pair_read_q=0 pair_read_qn=0 pair_py_q=0 pair_py_qn=0
        if [ "$pairs" -gt 0 ]; then
                saved_repeat=$repeat
                repeat=1
                : > "$out/.pairs"
                pi=0
                while [ "$pi" -lt "$pairs" ]; do
                        if [ $((pi % 2)) = 0 ]; then
                                measure full "$cli" --format "$json_format" "$trace"
                                w1=$best_wall s1=$best_steal
                                measure read2 "$B/read_only" "$trace"
                                w2=$best_wall s2=$best_steal
                        else
                                measure read2 "$B/read_only" "$trace"
                                w2=$best_wall s2=$best_steal
                                measure full "$cli" --format "$json_format" "$trace"
                                w1=$best_wall s1=$best_steal
                        fi
                        echo "read $w1 $w2 $s1 $s2" >> "$out/.pairs"
                        if [ "$peers" = 1 ] && [ "$pi" -lt 2 ]; then
                                measure python "$python" bench/baseline_python.py "$trace"
                                p=$best_wall sp=$best_steal
                                measure full "$cli" --format "$json_format" "$trace"
                                echo "py $w1 $p $best_wall $s1 $sp $best_steal" >> "$out/.pairs"
                        fi
                        pi=$((pi + 1))
                done
                repeat=$saved_repeat
                set -- $(awk '$1 == "read" { print $3 / $2 }' "$out/.pairs" | median)
                pair_read=$1
                say "  paired, $pairs x (ours, read only) back to back: read-only/ours median $1 (range $2 - $3)"
                quiet_pairs read 4 5
                pair_read_q=$q_median pair_read_qn=$q_n
                if [ "$peers" = 1 ]; then
                        set -- $(awk '$1 == "py" { print 2 * $3 / ($2 + $4) }' "$out/.pairs" | median)
                        pair_py=$1
                        say "  paired, ours / Python / ours back to back: Python over the mean of ours: median $1 (range $2 - $3)"
                        quiet_pairs py 5 7
                        pair_py_q=$q_median pair_py_qn=$q_n
                fi
                rm -f "$out/.pairs"
        fi

        echo "$size $bytes $events $ours $trace" >> "$out/.scaling.$$"
        say ""
        say "  goals (issue 6) at $size:"
        awk -v b="$bytes" -v e="$events" -v kept="$kept" -v w="$ours" -v rss="$ours_rss" \
            -v r2="$read2" -v py="$py_wall" -v hta="$hta_wall" -v pr="$phase_read" \
            -v pa="$phase_analyze" -v mem="$trace_mem" -v prd="$pair_read" -v ppy="$pair_py" \
            -v st="$ours_steal" -v qs="$quiet_steal" -v prq="$pair_read_q" -v prn="$pair_read_qn" \
            -v ppq="$pair_py_q" -v ppn="$pair_py_qn" 'BEGIN {
                mbs = b / w / 1e6
                ok = "met"; no = "MISSED"
                # the wall-time goals need the CPUs: say when the host took them
                stolen = st > qs ? sprintf(" (host steal %.0f%% in that run: measures the host; rerun)", st) : ""
                printf "    full analysis %.0f MB/s (goal >= 300): %s%s\n", mbs, (mbs >= 300 ? ok : no), stolen
                # paired goals: on the pairs whose runs all had the CPUs when
                # there are 3 of them, else on all pairs
                if (prn >= 3) {
                        prd = prq
                        pn = sprintf(", the %d pairs with host steal <= %d%%", prn, qs)
                }
                if (ppn >= 2) {
                        ppy = ppq
                        py_n = sprintf(", the %d rounds with host steal <= %d%%", ppn, qs)
                }
                if (prd > 0)
                        printf "    full / read-only pipeline (threaded) = %.3f paired%s (fastest of each: %.3f) (goal >= 0.85): %s\n",
                                prd, pn, r2 / w, (prd >= 0.85 ? ok : no)
                else
                        printf "    full / read-only pipeline (threaded) = %.2f (goal >= 0.85): %s\n",
                                r2 / w, (r2 / w >= 0.85 ? ok : no)
                printf "    full / Perfetto 177 MB/s = %.2fx (goal >= 1.7x): %s%s\n",
                        mbs / 177, (mbs / 177 >= 1.7 ? ok : no), stolen
                if (ppy > 0)
                        printf "    full / Python json = %.1fx paired%s (fastest of each: %.1fx) (goal >= 10x): %s\n",
                                ppy, py_n, py / w, (ppy >= 10 ? ok : no)
                else if (py > 0)
                        printf "    full / Python json = %.1fx (goal >= 10x): %s\n",
                                py / w, (py / w >= 10 ? ok : no)
                if (hta > 0)
                        printf "    full / HTA = %.1fx\n", hta / w
                lim = 40 * kept + 64 * 1048576
                over = rss * 1024 - 64 * 1048576
                printf "    peak RSS %.1f MB = %.1f B/event over %d events (%s); limit 40 B/event + 64 MB = %.1f MB: %s\n",
                        rss / 1024, rss * 1024 / (kept > 0 ? kept : 1), kept,
                        (over > 0 ? sprintf("64 MB + %.1f B/event", over / (kept > 0 ? kept : 1)) : "under 64 MB"),
                        lim / 1048576, (rss * 1024 <= lim ? ok : no)
                printf "    trace model memory: %.1f B/event\n", mem / (kept > 0 ? kept : 1)
                if (pr > 0)
                        printf "    phases: read %.3f s, analyze %.3f s = %.1f%% of the total (goal < 15%%): %s\n",
                                pr, pa, 100 * pa / (pr + pa), (pa / (pr + pa) < 0.15 ? ok : no)
                else
                        printf "    phases: not measured (no analysis in this build)\n"
        }' | tee -a "$results"
done

if [ -f "$out/.scaling.$$" ]; then
        say ""
        say "== scaling (full analysis): seconds per 100 MB of JSON"
        awk 'NR == 1 { b0 = $2; w0 = $4 }
             { printf "  %-6s %8.3f s  %6.3f s/100MB  (x%.2f the time for x%.2f the bytes)\n",
                      $1, $4, $4 / $2 * 1e8, $4 / w0, $2 / b0 }' "$out/.scaling.$$" | tee -a "$results"
        # the sizes in turn, pairs times: each round's time per byte over
        # the first size's in the same round, the median of the rounds
        if [ "$pairs" -gt 0 ] && [ "$(wc -l < "$out/.scaling.$$")" -gt 1 ]; then
                saved_repeat=$repeat
                repeat=1
                : > "$out/.rounds"
                pi=0
                while [ "$pi" -lt "$pairs" ]; do
                        while read -r size bytes events w trace; do
                                measure full "$cli" --format "$json_format" "$trace" < /dev/null
                                echo "$pi $size $bytes $best_wall" >> "$out/.rounds"
                        done < "$out/.scaling.$$"
                        pi=$((pi + 1))
                done
                repeat=$saved_repeat
                while read -r size bytes events w trace; do
                        set -- $(awk -v s="$size" '
                                $2 == s { r[$1] = $4 / $3 }
                                !($1 in first) { first[$1] = $4 / $3 }
                                END { for (i in r) print r[i] / first[i] }' "$out/.rounds" | median)
                        printf "  %-6s time per byte over the first size's, %d rounds in turn: median %.2f (range %.2f - %.2f)\n" \
                               "$size" "$pairs" "$1" "$2" "$3" | tee -a "$results"
                done < "$out/.scaling.$$"
                rm -f "$out/.rounds"
        fi
        rm -f "$out/.scaling.$$"
fi

# XProf against ours on the format it reads: a real TF profile (XSpace).
xprof_py=""
for p in "$out/venv/bin/python" "$python"; do
        if [ -x "$(command -v "$p")" ] && "$p" -c 'import xprof' 2>/dev/null; then
                xprof_py=$p
                break
        fi
done
xspace=$out/tf_real_$xsteps.xplane.pb
if [ "$peers" = 1 ] && [ "$xsteps" -gt 0 ] && [ ! -s "$xspace" ] &&
   "$python" -c 'import tensorflow' 2>/dev/null; then
        echo "recording $xspace (TF, $xsteps steps) ..." >&2
        "$python" bench/make_xplane.py "$xsteps" "$xspace" 2>> "$out/stderr.log" || rm -f "$xspace"
fi
if [ "$peers" = 1 ] && [ "$xsteps" -gt 0 ] && [ -s "$xspace" ]; then
        xbytes=$(wc -c < "$xspace")
        say ""
        say "== $xspace: a real TF 2 CPU profile, $xsteps steps, $xbytes bytes of XSpace"
        say "  tool                                            wall s     cpu s   XSpace MB/s   events/s   peak RSS  theirs/ours (time), host steal"
        capture=/dev/null
        measure xs-full "$cli" --format "$json_format" "$xspace"
        ours=$best_wall
        row "tfprof-analyze --format $json_format (full)" "$best_wall" "$best_rss" "$xbytes" 0 ""
        if [ -n "$xprof_py" ]; then
                capture=$out/.xprof
                measure xprof "$xprof_py" bench/xprof_run.py "$xspace"
                capture=/dev/null
                if [ "$best_exit" = 0 ]; then
                        row "XProf overview_page + input_pipeline_analyzer" "$best_wall" "$best_rss" "$xbytes" 0 "$ours"
                        say "    XProf says: $(cut -c1-110 "$out/.xprof")"
                else
                        say "  XProf failed (exit $best_exit); see $out/stderr.log"
                fi
        else
                say "  XProf: not installed (pip install xprof, or --setup-peers)"
        fi
elif [ "$peers" = 1 ] && [ "$xsteps" -gt 0 ]; then
        say ""
        say "== XSpace: skipped (no $xspace and no tensorflow to record one)"
fi

if [ "$stress" = 1 ]; then
        say ""
        say "== stress modes at $stress_size (memory must stay bounded): full analysis"
        for mode in normal huge-args long-strings many-names; do
                gen "$stress_size" "$mode"
                capture=/dev/null
                measure "stress-$mode" "$cli" --format "$json_format" "$trace"
                full_rss=$best_rss full_exit=$best_exit
                capture=$out/.stress
                : > "$capture"
                measure "stress-read-$mode" "$B/read_only" "$trace"
                set -- $(cat "$capture") 0 0 0 0 0
                capture=/dev/null
                awk -v m="$mode" -v w="$best_wall" -v r="$best_rss" -v b="$bytes" -v e="$events" \
                    -v kept="$3" -v mem="$5" -v fr="$full_rss" -v fx="$full_exit" 'BEGIN {
                        printf "  %-13s read %6.1f MB/s, peak RSS read %6.1f MB, full %6.1f MB (exit %d); model %5.1f B/event, %d of %d records kept\n",
                                m, b / w / 1e6, r / 1024, fr / 1024, fx, mem / (kept > 0 ? kept : 1), kept, e
                }' | tee -a "$results"
        done
fi
say ""
say "results saved in $results"
