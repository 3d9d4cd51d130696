# a command after an option is no input to analyze: said so (it was
# "diff: cannot open"); a file of that name is still analyzed
tfprof-analyze -q diff a.json b.json; echo "exit: $?"
cp kineto_small.json "$TPA_TMP/check" || exit
(cd "$TPA_TMP" && tfprof-analyze -q check | sed -n '3p'); echo "a file: $?"
