# TF1 timelines of consecutive Session.runs (ProfilerHook's timeline-N.json)
# are the steps of one run, as their RunMetadata files are: one report;
# one timeline alone is one Session.run; a folder of them likewise
tfprof-analyze tf1_timeline.json tf1_timeline2.json | grep -e '^tf1' -e '^steps:' -A4 -e '^per step'
tfprof-analyze tf1_timeline.json | grep '^steps:'
mkdir -p "$TPA_TMP/hook" && cp tf1_timeline.json "$TPA_TMP/hook/timeline-1.json" &&
        cp tf1_timeline2.json "$TPA_TMP/hook/timeline-2.json" || exit
tfprof-analyze "$TPA_TMP/hook" | sed "s|$TPA_TMP|TMP|g" | grep -e '^TMP' -e '^steps:'
# ProfilerHook's folder holds the tfevents of the same runs: not read, said
cp tf1_steps.tfevents "$TPA_TMP/hook/events.out.tfevents.1.host"
tfprof-analyze "$TPA_TMP/hook" 2>&1 >/dev/null | sed "s|$TPA_TMP|TMP|g"
