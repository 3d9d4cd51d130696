# A real TF 2.21 CPU-only profile (tools/make_fixtures_tf.py tf2 input): the step
# waits ~45 ms in IteratorGetNext for a py_function map. XProf: HIGHLY input-bound, 86.1%.
tfprof-analyze tf2_input_bound.trace.json.gz
