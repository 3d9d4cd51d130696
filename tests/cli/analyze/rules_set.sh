printf 'threshold bound.min = 95%%\n' > "$TPA_TMP/strict.tpr"
tfprof-analyze --rules "$TPA_TMP/strict.tpr" --set gap.min=1ms torch_input_bound.trace.json.gz | sed -n "/^verdict/,/^per step/p"
