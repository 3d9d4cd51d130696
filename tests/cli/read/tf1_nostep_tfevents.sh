# FileWriter.add_run_metadata(md, tag) without global_step (TF's ProfilerHook,
# the TF1 tutorials): every record has Event.step 0, yet each is a step of
# its own, as the same RunMetadata given as files
tfprof-analyze tf1_nostep.tfevents | grep -A3 -e '^steps:' -e '^per step'
tfprof-analyze tf1_step1.runmeta.pb tf1_step2.runmeta.pb | grep -A3 '^per step'
