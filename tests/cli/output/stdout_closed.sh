# a closed stdout is an error writing to stdout (exit 5), never a report
# written into whatever file took its descriptor
tfprof-analyze kineto_small.json >&-
echo "exit $?"
tfprof-analyze --format json kineto_small.json >&-
echo "exit $?"
tfprof-analyze convert tf1_step1.runmeta.pb >&-
echo "exit $?"
tfprof-analyze --version >&-
echo "exit $?"
ls -A "$TPA_TMP"
