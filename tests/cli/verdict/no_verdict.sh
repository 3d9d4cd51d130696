# No training steps, no verdict: a browser-like trace (no framework, no
# device, no step marker) gets "none" with the reason in every format, and
# check on it, or on an empty trace, is an error (exit 3), never "ok".
cd "$TPA_TMP" || exit 99
printf '{"traceEvents":[{"ph":"X","name":"RunTask","cat":"toplevel","pid":1,"tid":2,"ts":1,"dur":50},{"ph":"X","name":"Paint","cat":"cc","pid":1,"tid":2,"ts":60,"dur":20}]}' > browser.json
printf '{"traceEvents":[]}' > empty.json
tfprof-analyze browser.json | grep -E '^verdict'
tfprof-analyze --format markdown browser.json | head -1
tfprof-analyze --format json browser.json | sed -n '/^  "summary"/,/^  }/p' | grep -E '"(verdict|no_verdict_reason|class)"'
tfprof-analyze check browser.json --fail-if 'input_frac > 20%'; echo "exit $?"
tfprof-analyze check empty.json --fail-if 'input_frac > 20%'; echo "exit $?"
