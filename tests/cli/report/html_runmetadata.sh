# Two RunMetadata files are one run (two steps): one HTML page, not a usage error.
tfprof-analyze --format html tf1_step1.runmeta.pb tf1_step2.runmeta.pb > "$TPA_TMP/r.html"
echo "exit $?"
echo "pages: $(grep -c '<!DOCTYPE html>' "$TPA_TMP/r.html")"
echo "step bars: $(grep -c 'class="bar' "$TPA_TMP/r.html")"
