# an unknown format in a message placeholder
cd "$TPA_TMP" || exit 99
printf 'finding f info when 1 : "gap {gap_max_ns:hours}"\n' > bad.tpr
tfprof-analyze --rules bad.tpr never-read.json
