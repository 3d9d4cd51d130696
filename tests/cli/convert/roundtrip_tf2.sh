# convert a TF2 trace to Chrome JSON (gzip) and read it back: the report
# is the same but for what was read (format, bytes, records)
tfprof-analyze convert synth_tf2.trace.json.gz -o "$TPA_TMP/out.json.gz" || exit
strip() { sed -e '/^[^ ].*: [a-z-]*, dialect [a-z0-9]*$/d' -e '/^  bytes: /d' -e '/^  records: /d' -e '/^    empty records: /d'; }
tfprof-analyze synth_tf2.trace.json.gz | strip >"$TPA_TMP/a"
tfprof-analyze "$TPA_TMP/out.json.gz" | strip >"$TPA_TMP/b"
diff "$TPA_TMP/a" "$TPA_TMP/b" && echo "same report after convert"
