# convert a TF2 XSpace (a Keras fit: Python's tf.function calls carry
# 'tf_function_call') to Chrome JSON and read it back: the same report
# but for what was read
tfprof-analyze convert tf2_keras_fit.xplane.pb -o "$TPA_TMP/out.json" || exit
strip() { sed -e '/^[^ ].*: [a-z-]*, dialect [a-z0-9]*$/d' -e '/^  bytes: /d' -e '/^  records: /d' -e '/^    empty records: /d' -e '/^  format: /d'; }
tfprof-analyze tf2_keras_fit.xplane.pb | strip >"$TPA_TMP/a"
tfprof-analyze "$TPA_TMP/out.json" | strip >"$TPA_TMP/b"
diff "$TPA_TMP/a" "$TPA_TMP/b" && echo "same report after convert"
