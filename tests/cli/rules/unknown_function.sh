# an unknown function is named, with the ones that exist
cd "$TPA_TMP" || exit 99
printf '# mine\nclass slow when mean(input_frac) > 20%%\n' > bad.tpr
tfprof-analyze --rules bad.tpr never-read.json
