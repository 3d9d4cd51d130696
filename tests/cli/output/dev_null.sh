# a report for /dev/null, -o /dev/null, a link to it or stdout: the exit
# codes of any report (a gate's exit code is all that is wanted); nothing
# is left behind, and the link and the device stay
TMPDIR=$TPA_TMP tfprof-analyze kineto_small.json -o /dev/null
echo "exit $?"
TMPDIR=$TPA_TMP tfprof-analyze --format json kineto_small.json >/dev/null
echo "exit $?"
TMPDIR=$TPA_TMP tfprof-analyze bad_missing_comma.json >/dev/null 2>&1
echo "exit $?"
ln -s /dev/null "$TPA_TMP/null"
TMPDIR=$TPA_TMP tfprof-analyze kineto_small.json -o "$TPA_TMP/null"
echo "exit $?"
test -L "$TPA_TMP/null" && test -c /dev/null && echo "links and /dev/null kept"
(cd "$TPA_TMP" && ls -A)
