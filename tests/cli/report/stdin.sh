# '-' is stdin for diff and check, a saved report or a trace (plain or gzip).
tfprof-analyze --format json kineto_small.json | tfprof-analyze diff - kineto_small.json | head -4
tfprof-analyze check - --fail-on input-bound < kineto_small.json
echo "exit $?"
gzip -c kineto_small.json | tfprof-analyze check - --fail-if 'steps != 3'
echo "exit $?"
