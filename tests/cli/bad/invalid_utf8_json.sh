# Invalid UTF-8 in a name, a category, a string pid, an op and a thread
# name (overlong, surrogate, bad lead and cut sequences next to valid
# ones): one warning with the count and the first record's offset, and
# the JSON report is valid UTF-8 (iconv checks) holding U+FFFD where the
# bad bytes were. (python3 -m json.tool accepts it too; not used here.)
cd "$TPA_TMP" || exit 99
printf '[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":2},\n' > u.json
printf '{"ph":"X","name":"caf\303\251 \355\240\200 \360\237\230\200","cat":"\300\257","pid":"p\376","tid":1,"ts":5,"dur":2,"args":{"tf_op":"a\377:b"}},\n' >> u.json
printf '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t\351"}}]\n' >> u.json
tfprof-analyze --format json u.json > report.json
rc=$?
iconv -f UTF-8 -t UTF-8 report.json > /dev/null && echo "the JSON report is valid UTF-8"
grep -E '"(pid|thread)": "' report.json | sed 's/^ *//'
exit $rc
