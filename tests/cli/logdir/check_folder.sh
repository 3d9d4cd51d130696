# a folder of traces that is no logdir is one run for check, as analyze
# reads it: a --baseline folder of one trace is that trace, and a
# ProfilerHook folder (TF1 timelines, a step each) is one run as NEW and
# as the baseline, not the ranks of a job
mkdir -p "$TPA_TMP/one" "$TPA_TMP/hook" && cp kineto_small.json "$TPA_TMP/one/k.json" &&
        cp tf1_timeline.json "$TPA_TMP/hook/timeline-1.json" &&
        cp tf1_timeline2.json "$TPA_TMP/hook/timeline-2.json" || exit
tfprof-analyze check "$TPA_TMP/one" --baseline "$TPA_TMP/one" --max-regression 5% >"$TPA_TMP/o"
echo "one: $?"; cut -c1-30 "$TPA_TMP/o" | sed "s/ *$//"
tfprof-analyze check "$TPA_TMP/hook" --baseline "$TPA_TMP/hook" --max-regression 5% >"$TPA_TMP/o"
echo "hook: $?"; cut -c1-30 "$TPA_TMP/o" | sed "s/ *$//"
tfprof-analyze check "$TPA_TMP/hook" --fail-on host-bound >"$TPA_TMP/o"
echo "hook class: $?"; cut -c1-30 "$TPA_TMP/o" | sed "s/ *$//"
# several traces of other kinds are no one run
cp kineto_small.json "$TPA_TMP/one/k2.json"
tfprof-analyze check kineto_small.json --baseline "$TPA_TMP/one" 2>"$TPA_TMP/e"
echo "two: $?"; sed "s|$TPA_TMP|TMP|g" "$TPA_TMP/e"
