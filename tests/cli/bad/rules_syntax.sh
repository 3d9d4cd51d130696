# Rule files with errors, given with --rules: exit 4 with file:line:column
# and nothing on stdout. A syntax error on line 3, a string left open, and
# a metric that does not exist (found when the rules are first evaluated).
cd "$TPA_TMP" || exit 99
printf '[{"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":2}]' > ok.json
printf '# my rules\nthreshold bound.min = 30%%\nclass slow when step_time_ns > * 5ms\nclass fast when 1\n' > syntax.tpr
printf 'threshold x = 1\nfinding f warning when input_frac > 1 : "unterminated\n' > string.tpr
printf 'class x when nosuch_metric > 1\n' > metric.tpr
tfprof-analyze --rules syntax.tpr ok.json; echo "exit $?"
tfprof-analyze --rules string.tpr ok.json; echo "exit $?"
tfprof-analyze --rules metric.tpr ok.json
