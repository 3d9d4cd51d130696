#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/run.sh - the benchmark of issues 6 and 23, in one go, on the same
# generated trace for every tool: the full tfprof-analyze analysis, our
# event-building pipeline alone (threaded and on one thread), bare inflate
# (lib/input/inflate.c as source.c uses it, zlib, gzip -dc), bare yajl with
# empty callbacks, gzip + yajl on one thread, a plain Python json script,
# and Holistic Trace Analysis when it can be installed from PyPI. Every
# time is a ratio to `igzip -dc FILE > /dev/null` (ISA-L; Debian package
# isal) on the same file in the same run: each run of a tool is one of a
# pair with a run of igzip, and a row gives the median of its pairs' ratios
# (this VM's speed drifts by up to 2x within the hour; a pair's ratio does
# not). Prints one table, then the issues' goals, met or not. See
# bench/README.md.
#
# Usage: bench/run.sh [--quick] [--pairs N] [--no-peers] [--no-stress]
#                     [--setup-peers] [--xspace-steps N] [SIZE...]
#   SIZE     uncompressed JSON sizes to generate and measure (default 100M 1G)
#   --quick  20M only, stress modes at 20M: a smoke run of a few seconds
#   --pairs N   runs of each tool, each paired with a run of igzip, igzip
#              first in the 1st, 3rd, ... pair (default 5; 2 at most for
#              Python and HTA, which take minutes); also the pairs of ours
#              and the read-only pipeline, of ours, Python and ours, and the
#              rounds of every size in turn for the scaling
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
# Without igzip the table says so and gives seconds, without ratios.
# The tools' stderr goes to bench/out/stderr.log.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

command="bench/run.sh$(printf ' %s' "$@")"
sizes=""
pairs=5
peers=1
stress=1
stress_size=100M
setup=0
xsteps=2000
while [ $# -gt 0 ]; do
        case $1 in
        --quick) sizes="20M"; stress_size=20M ;;
        --pairs) pairs=$2; shift ;;
        --no-peers) peers=0 ;;
        --no-stress) stress=0 ;;
        --setup-peers) setup=1 ;;
        --xspace-steps) xsteps=$2; shift ;;
        -h|--help) sed -n '3,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) sizes="$sizes $1" ;;
        esac
        shift
done
[ -n "$sizes" ] || sizes="100M 1G"
[ "$pairs" -ge 1 ] || pairs=1

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
table=$out/.table.$$
goals=$out/.goals.$$
traces=$out/.traces.$$
: > "$results"
: > "$out/stderr.log"
: > "$table"
: > "$goals"
: > "$traces"
igzip=$(command -v igzip || true)

# say: a line of the goals, printed after the table; note: progress, now
say() { printf '%s\n' "$*" >> "$goals"; }
note() { printf '%s\n' "$*" >&2; }

# The goals' verdicts, for awk: "met", or "MISSED by" how far the figure is
# from the goal, as a share of the goal.
verdict_awk='
function missed(v, g) { return sprintf("MISSED by %.1f%%", 100 * (v > g ? v - g : g - v) / g) }
function at_least(v, g) { return v >= g ? "met" : missed(v, g) }
function at_most(v, g) { return v <= g ? "met" : missed(v, g) }
function below(v, g) { return v < g ? "met" : missed(v, g) }
function within(v, lo, hi) { return v < lo ? missed(v, lo) : v > hi ? missed(v, hi) : "met" }
'
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

# measure NAME CMD...: run CMD $runs times under bench/measure (stdout to
# /dev/null unless captured by the caller through $capture), each run one of
# a pair with `igzip -dc $trace` (igzip first in the 1st, 3rd, ... pair)
# unless $paired is 0 or there is no igzip. Sets $best_wall and $best_cpu
# (the medians of the runs), $best_rss and $best_steal (the largest; steal
# -1: unknown), $best_exit (the last nonzero exit, else 0), $best_x (the
# median of the pairs' ratios, CMD's wall over igzip's; 0: none) and
# $x_range ("min - max").
runs=$pairs
paired=1
measure() {
        name=$1; shift
        tmp=$out/.measure.$$
        : > "$tmp"
        : > "$tmp.x"
        i=0
        while [ "$i" -lt "$runs" ]; do
                pair=0
                [ "$paired" = 1 ] && [ -n "$igzip" ] && pair=1
                [ "$pair" = 1 ] && [ $((i % 2)) = 0 ] && run_igzip
                if ! "$B/measure" "$tmp" "$@" > "$capture" 2>> "$out/stderr.log"; then
                        echo "run.sh: '$name' failed: $* (see $out/stderr.log)" >&2
                fi
                [ "$pair" = 1 ] && [ $((i % 2)) = 1 ] && run_igzip
                [ "$pair" = 1 ] && echo "$(tail -1 "$tmp" | cut -d' ' -f1) $ig_wall" |
                        awk '{ print $1 / $2 }' >> "$tmp.x"
                i=$((i + 1))
        done
        best_wall=$(cut -d' ' -f1 "$tmp" | median | cut -d' ' -f1)
        best_cpu=$(cut -d' ' -f4 "$tmp" | median | cut -d' ' -f1)
        best_rss=$(cut -d' ' -f2 "$tmp" | sort -n | tail -1)
        best_steal=$(cut -d' ' -f5 "$tmp" | sort -n | tail -1)
        best_exit=$(awk '$3 != 0 { e = $3 } END { print e + 0 }' "$tmp")
        set -- $(median < "$tmp.x")
        best_x=$1 x_range="$2 - $3"
        rm -f "$tmp" "$tmp.x"
}
# run_igzip: igzip -dc $trace > /dev/null once; its wall time in $ig_wall
run_igzip() {
        "$B/measure" "$tmp.ig" sh -c 'exec "$1" -dc "$2" > /dev/null' sh "$igzip" "$trace" \
                2>> "$out/stderr.log" || true
        ig_wall=$(tail -1 "$tmp.ig" | cut -d' ' -f1)
        rm -f "$tmp.ig"
}

# row TRACE TOOL: a line of the table, from what measure set
row() {
        awk -v t="$1" -v n="$2" -v w="$best_wall" -v c="$best_cpu" -v r="$best_rss" \
            -v x="$best_x" -v xr="$x_range" -v st="$best_steal" 'BEGIN {
                split(xr, a, " - ")
                ratio = x > 0 ? sprintf("%6.2f (%.2f - %.2f)", x, a[1], a[2]) : "     -"
                printf "| %s | %s | %s | %.3f | %.3f | %.1f | %s |\n", t, n, ratio, w, c,
                        r / 1024, st < 0 ? "-" : sprintf("%.0f%%", st)
        }' >> "$table"
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

# The machine and the code, for the table's heading.
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem_gb=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit + changes"

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

[ -n "$igzip" ] ||
        say "igzip is not installed (apt-get install isal): no baseline row and no ratios"
[ "$peers" = 0 ] || [ "$have_hta" = 1 ] ||
        say "HTA: not installed in $out/venv (pip install HolisticTraceAnalysis, or --setup-peers)"

for size in $sizes; do
        gen "$size" normal
        gzbytes=$(wc -c < "$trace")
        label=$size
        awk -v s="$size" -v b="$bytes" -v g="$gzbytes" -v e="$events" -v t="$trace" \
                'BEGIN { printf "%s: %s, %.0f MB of JSON, %.1f MB gzip, %.2f M records\n",
                         s, t, b / 1e6, g / 1e6, e / 1e6 }' >> "$traces"
        note "== $(tail -1 "$traces")"

        capture=/dev/null
        if [ -n "$igzip" ]; then
                paired=0
                measure igzip sh -c 'exec "$1" -dc "$2" > /dev/null' sh "$igzip" "$trace"
                paired=1
                best_x=1 x_range="1 - 1"
                row "$label" "igzip -dc > /dev/null (the baseline)"
        fi

        measure full "$cli" --format "$json_format" "$trace"
        ours=$best_wall ours_rss=$best_rss ours_x=$best_x ours_xr=$x_range
        row "$label" "tfprof-analyze --format $json_format (full)"

        capture=$out/.read2
        measure read2 "$B/read_only" "$trace"
        set -- $(cat "$capture") 0 0 0 0 0
        kept=$3 trace_mem=$5
        row "$label" "read only, threaded (read_only)"

        capture=/dev/null
        measure read1 "$B/read_only" --single "$trace"
        row "$label" "read only, 1 thread (read_only --single)"

        measure inflate "$B/bare_inflate" --ours "$trace"
        row "$label" "bare inflate (inflate.c, as source.c)"
        measure zinflate "$B/bare_inflate" "$trace"
        row "$label" "bare inflate (zlib, with its CRC)"
        measure gzip sh -c 'gzip -dc "$1" > /dev/null' sh "$trace"
        row "$label" "gzip -dc > /dev/null"

        if [ ! -s "$plain" ]; then
                gzip -dc "$trace" > "$plain"
        fi
        measure yajl "$B/bare_yajl" "$plain"
        row "$label" "bare yajl, empty callbacks (plain file)"
        measure gzyajl "$B/bare_yajl" "$trace"
        row "$label" "gzip + bare yajl, 1 thread"

        hta_x=0
        if [ "$peers" = 1 ]; then
                runs=$((pairs < 2 ? pairs : 2))
                measure python "$python" bench/baseline_python.py "$trace"
                row "$label" "Python json script (per-step times)"
                if [ "$have_hta" = 1 ] && [ "$bytes" -gt "${TPA_BENCH_HTA_MAX:-300000000}" ]; then
                        say "  $size: HTA skipped above ${TPA_BENCH_HTA_MAX:-300000000} bytes (TPA_BENCH_HTA_MAX)"
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
                                hta_x=$best_x
                                row "$label" "HTA (Kineto-shaped copy; load + breakdowns)"
                        else
                                say "  $size: HTA failed (exit $best_exit); see $out/.hta"
                        fi
                fi
                runs=$pairs
        fi

        capture=$out/.phases
        runs=1 paired=0
        if measure phases "$B/read_only" --analyze "$trace" && [ "$best_exit" = 0 ]; then
                set -- $(cat "$capture") 0 0
                phase_read=$1 phase_analyze=$2
        else
                phase_read=0 phase_analyze=0
        fi
        runs=$pairs paired=1
        capture=/dev/null

        # back to back, ours and the other, the median of their ratios; the
        # read-only pairs alternate which runs first (ours first in the
        # 1st, 3rd, ...), so that an effect of going second is not all one side's
        pair_read=0 pair_py=0 pair_read_q=0 pair_read_qn=0 pair_py_q=0 pair_py_qn=0
        runs=1 paired=0
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
        runs=$pairs paired=1
        say ""
        say "goals (issue 23) at $size:"
        set -- $(awk '$1 == "read" { print $3 / $2 }' "$out/.pairs" | median)
        pair_read=$1
        say "$(printf '  paired, %d x (ours, read only) back to back: read-only/ours median %.3f (range %.3f - %.3f)' "$pairs" "$1" "$2" "$3")"
        quiet_pairs read 4 5
        pair_read_q=$q_median pair_read_qn=$q_n
        if [ "$peers" = 1 ]; then
                set -- $(awk '$1 == "py" { print 2 * $3 / ($2 + $4) }' "$out/.pairs" | median)
                pair_py=$1
                say "$(printf '  paired, ours / Python / ours back to back: Python over the mean of ours: median %.1f (range %.1f - %.1f)' "$1" "$2" "$3")"
                quiet_pairs py 5 7
                pair_py_q=$q_median pair_py_qn=$q_n
        fi
        rm -f "$out/.pairs"

        echo "$size $bytes $events $ours $trace" >> "$out/.scaling.$$"
        awk -v kept="$kept" -v rss="$ours_rss" -v ox="$ours_x" -v oxr="$ours_xr" \
            -v hx="$hta_x" -v pr="$phase_read" -v pa="$phase_analyze" -v mem="$trace_mem" \
            -v prd="$pair_read" -v ppy="$pair_py" -v qs="$quiet_steal" -v prq="$pair_read_q" \
            -v prn="$pair_read_qn" -v ppq="$pair_py_q" -v ppn="$pair_py_qn" -v np="$pairs" '
        '"$verdict_awk"'
        BEGIN {
                if (ox > 0)
                        printf "  full analysis = %.2fx igzip -dc, median of %d pairs (goal <= 2.5x): %s\n",
                                ox, np, at_most(ox, 2.5)
                else
                        printf "  full analysis / igzip -dc: not measured (no igzip)\n"
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
                printf "  full / read-only pipeline (threaded) = %.3f paired%s (goal >= 0.9): %s\n",
                        prd, pn, at_least(prd, 0.9)
                if (ppy > 0)
                        printf "  full / Python json = %.1fx paired%s (goal >= 30x): %s\n",
                                ppy, py_n, at_least(ppy, 30)
                if (hx > 0 && ox > 0)
                        printf "  full / HTA = %.1fx\n", hx / ox
                lim = 40 * kept + 64 * 1048576
                over = rss * 1024 - 64 * 1048576
                printf "  peak RSS %.1f MB = %.1f B/event over %d events (%s); limit 40 B/event + 64 MB = %.1f MB: %s\n",
                        rss / 1024, rss * 1024 / (kept > 0 ? kept : 1), kept,
                        (over > 0 ? sprintf("64 MB + %.1f B/event", over / (kept > 0 ? kept : 1)) : "under 64 MB"),
                        lim / 1048576, at_most(rss * 1024, lim)
                printf "  trace model memory: %.1f B/event\n", mem / (kept > 0 ? kept : 1)
                if (pr > 0)
                        printf "  phases: read %.3f s, analyze %.3f s = %.1f%% of the total (goal < 15%%): %s\n",
                                pr, pa, 100 * pa / (pr + pa), below(pa / (pr + pa), 0.15)
                else
                        printf "  phases: not measured (no analysis in this build)\n"
        }' >> "$goals"
done

# How the time scales: the sizes in turn, $pairs rounds. In a round each
# size runs until it has read about as many bytes as the largest (ten
# runs of 100M to one of 1G, at most 50), so that every size's time is
# taken over as long a stretch of this VM's drifting speed; a round's
# time per byte over the first size's in the same round, the median of
# the rounds.
if [ "$(wc -l < "$out/.scaling.$$")" -gt 1 ]; then
        runs=1 paired=0
        : > "$out/.rounds"
        most=$(awk '$2 > m { m = $2 } END { print m }' "$out/.scaling.$$")
        pi=0
        while [ "$pi" -lt "$pairs" ]; do
                while read -r size bytes events w trace; do
                        reps=$(awk -v m="$most" -v b="$bytes" 'BEGIN {
                                r = int(m / b + 0.5); print (r < 1 ? 1 : (r > 50 ? 50 : r)) }')
                        ri=0 sum=0
                        while [ "$ri" -lt "$reps" ]; do
                                measure full "$cli" --format "$json_format" "$trace" < /dev/null
                                sum=$(awk -v s="$sum" -v w="$best_wall" 'BEGIN { print s + w }')
                                ri=$((ri + 1))
                        done
                        echo "$pi $size $((bytes * reps)) $sum" >> "$out/.rounds"
                done < "$out/.scaling.$$"
                pi=$((pi + 1))
        done
        runs=$pairs paired=1
        say ""
        say "scaling (full analysis), time per byte over the first size's, $pairs rounds in turn,"
        say "each size run until it read about as many bytes as the largest:"
        while read -r size bytes events w trace; do
                set -- $(awk -v s="$size" '
                        $2 == s { r[$1] = $4 / $3 }
                        !($1 in first) { first[$1] = $4 / $3 }
                        END { for (i in r) print r[i] / first[i] }' "$out/.rounds" | median)
                say "$(printf '  %-6s median %.2f (range %.2f - %.2f) (goal: within 10%%): %s' \
                       "$size" "$1" "$2" "$3" \
                       "$(awk -v m="$1" "$verdict_awk"' BEGIN { print within(m, 0.9, 1.1) }')")"
        done < "$out/.scaling.$$"
        rm -f "$out/.rounds"
fi
rm -f "$out/.scaling.$$"

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
        label=XSpace
        awk -v b="$xbytes" -v n="$xsteps" -v t="$xspace" \
                'BEGIN { printf "XSpace: %s, a real TF 2 CPU profile, %d steps, %.1f MB\n",
                         t, n, b / 1e6 }' >> "$traces"
        note "== $(tail -1 "$traces")"
        capture=/dev/null
        paired=0
        measure xs-full "$cli" --format "$json_format" "$xspace"
        ours=$best_wall
        best_x=0
        row "$label" "tfprof-analyze --format $json_format (full)"
        if [ -n "$xprof_py" ]; then
                capture=$out/.xprof
                runs=$((pairs < 2 ? pairs : 2))
                measure xprof "$xprof_py" bench/xprof_run.py "$xspace"
                runs=$pairs
                capture=/dev/null
                if [ "$best_exit" = 0 ]; then
                        best_x=0
                        row "$label" "XProf overview_page + input_pipeline_analyzer"
                        say ""
                        say "$(awk -v t="$best_wall" -v o="$ours" "$verdict_awk"' BEGIN {
                                printf "XSpace: XProf / ours = %.1fx, medians (goal >= 50x): %s",
                                        t / o, at_least(t / o, 50) }')"
                        say "  XProf says: $(cut -c1-110 "$out/.xprof")"
                else
                        say "XProf failed (exit $best_exit); see $out/stderr.log"
                fi
        else
                say "XProf: not installed (pip install xprof, or --setup-peers)"
        fi
        paired=1
elif [ "$peers" = 1 ] && [ "$xsteps" -gt 0 ]; then
        say "XSpace: skipped (no $xspace and no tensorflow to record one)"
fi

if [ "$stress" = 1 ]; then
        say ""
        say "stress modes at $stress_size (memory must stay bounded): full analysis"
        runs=1 paired=0
        for mode in normal huge-args long-strings many-names; do
                gen "$stress_size" "$mode"
                note "== stress: $mode"
                capture=/dev/null
                measure "stress-$mode" "$cli" --format "$json_format" "$trace"
                full_rss=$best_rss full_exit=$best_exit
                capture=$out/.stress
                : > "$capture"
                measure "stress-read-$mode" "$B/read_only" "$trace"
                set -- $(cat "$capture") 0 0 0 0 0
                capture=/dev/null
                awk -v m="$mode" -v r="$best_rss" -v e="$events" -v kept="$3" -v mem="$5" \
                    -v fr="$full_rss" -v fx="$full_exit" 'BEGIN {
                        printf "  %-13s peak RSS read %6.1f MB, full %6.1f MB (exit %d); model %5.1f B/event, %d of %d records kept\n",
                                m, r / 1024, fr / 1024, fx, mem / (kept > 0 ? kept : 1), kept, e
                }' >> "$goals"
        done
fi

# The one table, then the goals.
{
        echo "tfprof-analyze benchmark: $(nproc) CPUs ($cpu_model), $mem_gb GB; commit $commit;"
        echo "\`$command\`, $build (release), report format $json_format."
        echo "x igzip: the tool's wall time over that of \`igzip -dc FILE > /dev/null\` run next to"
        echo "it, the median of $pairs pairs (range); wall and CPU: medians of the runs; CPU is"
        echo "user + system, all threads; steal: the largest host steal of the runs."
        sed 's/^/  /' "$traces"
        echo ""
        echo "| trace | tool | x igzip (range) | wall s | CPU s | peak RSS MB | steal |"
        echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
        cat "$table"
        cat "$goals"
        echo ""
        echo "results saved in $results"
} | tee "$results"
rm -f "$table" "$goals" "$traces"
