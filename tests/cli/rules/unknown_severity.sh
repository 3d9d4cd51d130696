# a severity outside info, warning, error
cd "$TPA_TMP" || exit 99
printf 'finding f fatal when 1 : "x"\n' > bad.tpr
tfprof-analyze --rules bad.tpr never-read.json
