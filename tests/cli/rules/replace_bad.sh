# --rules-replace reports errors the same way
cd "$TPA_TMP" || exit 99
printf 'class a when 1 < 2 < 3\n' > bad.tpr
tfprof-analyze --rules bad.tpr --rules-replace never-read.json
