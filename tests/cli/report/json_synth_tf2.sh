tfprof-analyze --format json synth_tf2.trace.json.gz
