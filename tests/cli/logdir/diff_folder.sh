# diff's BASE and NEW are a run each: a ProfilerHook folder (TF1
# timelines, a step each) is one run, as analyze reads it, with a note on
# the RunMetadata beside them; a folder of several other traces is no run
mkdir -p "$TPA_TMP/a" "$TPA_TMP/b" "$TPA_TMP/ranks" &&
        cp tf1_timeline.json "$TPA_TMP/a/timeline-1.json" &&
        cp tf1_timeline2.json "$TPA_TMP/a/timeline-2.json" &&
        cp tf1_step1.runmeta.pb "$TPA_TMP/a/run_meta" &&
        cp tf1_step2.runmeta.pb "$TPA_TMP/a/step2.pb" &&
        cp tf1_timeline.json "$TPA_TMP/b/timeline-1.json" &&
        cp tf1_timeline2.json "$TPA_TMP/b/timeline-2.json" &&
        cp kineto_small.json "$TPA_TMP/ranks/k1.json" &&
        cp kineto_small.json "$TPA_TMP/ranks/k2.json" || exit
tfprof-analyze diff "$TPA_TMP/a" "$TPA_TMP/b" >"$TPA_TMP/o" 2>"$TPA_TMP/e"
echo "hook: $?"; sed -n '3,4p' "$TPA_TMP/o"; sed "s|$TPA_TMP|TMP|g" "$TPA_TMP/e"
tfprof-analyze diff "$TPA_TMP/a" "$TPA_TMP/ranks" 2>"$TPA_TMP/e"
echo "ranks: $?"; sed "s|$TPA_TMP|TMP|g" "$TPA_TMP/e"
