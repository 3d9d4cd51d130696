# One step a side (a Keras profile_batch=N capture, a RunMetadata): no noise
# estimate, said in one line, and the limit alone decides.
tfprof-analyze check tf1_step1.runmeta.pb --baseline tf1_step2.runmeta.pb --max-regression 50%
echo "exit $?"
tfprof-analyze check tf1_step1.runmeta.pb --baseline tf1_step2.runmeta.pb --max-regression 10%
echo "exit $?"
