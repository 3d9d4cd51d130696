# A saved JSON report given to analyze is shown again from its figures,
# not read as a trace with no events: text, markdown, an HTML page, and
# json as it is. Its findings count for --fail-on-severity.
tfprof-analyze --format json torch_input_bound.trace.json.gz > "$TPA_TMP/saved.json" || exit
cd "$TPA_TMP" || exit 99
tfprof-analyze saved.json
echo "exit $?"
tfprof-analyze --format markdown saved.json
tfprof-analyze --format html saved.json | grep -c '<tr>'
tfprof-analyze --format json saved.json | cmp - saved.json && echo "json: the report as it is"
tfprof-analyze --fail-on-severity warning saved.json > /dev/null
echo "--fail-on-severity warning: exit $?"
