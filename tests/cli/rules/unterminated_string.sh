# a message without its closing quote
cd "$TPA_TMP" || exit 99
printf 'finding f info when 1\n  : "input is {input_frac:%%}\n' > bad.tpr
tfprof-analyze --rules bad.tpr never-read.json
