# The example in doc/report-json.md is what the tool writes today.
sed -n '/^<!-- example: tfprof-analyze --format json kineto_small.json -->$/,/^```$/p' \
        ../doc/report-json.md | sed '1,2d;$d' > "$TPA_TMP/doc.json"
tfprof-analyze --format json kineto_small.json > "$TPA_TMP/tool.json"
diff "$TPA_TMP/doc.json" "$TPA_TMP/tool.json" && echo "doc/report-json.md example is current"
