# a gzip trace followed by bytes that begin no member (a copy padded with
# zeros, junk appended): the data is analyzed and the rest ignored with a
# warning, as gzip -d does; --strict makes it an error; and the same
# through a pipe (read on a thread of its own, as a large file is)
cd "$TPA_TMP" || exit
{ cat "$TPA_TESTDATA/torch_host_bound.trace.json.gz"; head -c 1000 /dev/zero; } >pad.json.gz
{ cat "$TPA_TESTDATA/torch_host_bound.trace.json.gz"; echo junk; } >junk.json.gz
for f in pad junk; do
        tfprof-analyze $f.json.gz 2>&1 | grep -e '^tfprof-analyze' -e '^verdict'
done
tfprof-analyze --strict pad.json.gz
echo "strict: exit $?"
tfprof-analyze --format json pad.json.gz 2>/dev/null | grep -c '"bytes after the gzip data'
cat pad.json.gz | tfprof-analyze - 2>&1 | grep -e '^tfprof-analyze' -e '^verdict'
