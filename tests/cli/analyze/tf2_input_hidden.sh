tfprof-analyze tf2_input_bound.xplane.pb
