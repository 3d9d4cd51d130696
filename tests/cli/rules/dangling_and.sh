# a condition ends in 'and': exit 4 with file:line:column; rules load before traces
cd "$TPA_TMP" || exit 99
printf 'threshold x = 1\nclass a when input_frac > x and\n' > bad.tpr
tfprof-analyze --rules bad.tpr never-read.json
