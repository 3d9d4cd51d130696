# convert a PyTorch/Kineto trace (string pids "Spans", kinds by 'cat') and
# read it back: the report is the same but for what was read
tfprof-analyze convert torch_input_bound.trace.json.gz -o "$TPA_TMP/out.json" || exit
strip() { sed -e '/^[^ ].*: [a-z-]*, dialect [a-z0-9]*$/d' -e '/^  bytes: /d' -e '/^  records: /d' -e '/^    empty records: /d' \
        -e '/^    ignored by phase: /d'; }
tfprof-analyze torch_input_bound.trace.json.gz | strip >"$TPA_TMP/a"
tfprof-analyze "$TPA_TMP/out.json" | strip >"$TPA_TMP/b"
diff "$TPA_TMP/a" "$TPA_TMP/b" && echo "same report after convert"
