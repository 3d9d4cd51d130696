tfprof-analyze --format markdown synth_tf2.trace.json.gz
