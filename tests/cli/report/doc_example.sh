# The example in doc/report-json.md is what the tool writes today.
# TPA_UPDATE_GOLDEN=1 rewrites the example in the doc too.
doc=../doc/report-json.md
start='<!-- example: tfprof-analyze --format json kineto_small.json -->'
tfprof-analyze --format json kineto_small.json > "$TPA_TMP/tool.json" || exit
if [ "${TPA_UPDATE_GOLDEN:-}" = 1 ]; then
        { sed -n "1,/^$start\$/p" "$doc"; echo '```json'; cat "$TPA_TMP/tool.json"
          echo '```'; } > "$TPA_TMP/doc.md" && cp "$TPA_TMP/doc.md" "$doc"
fi
sed -n "/^$start\$/,/^\`\`\`\$/p" "$doc" | sed '1,2d;$d' > "$TPA_TMP/doc.json"
diff "$TPA_TMP/doc.json" "$TPA_TMP/tool.json" && echo "doc/report-json.md example is current"
