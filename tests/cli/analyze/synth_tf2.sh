tfprof-analyze synth_tf2.trace.json.gz
