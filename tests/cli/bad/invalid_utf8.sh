# A name that is not UTF-8 (0xff, a lone continuation byte, a cut sequence).
# The Chrome reader keeps such bytes as they are (exit 0, no warning); the
# JSON report will have to escape or replace them to stay valid UTF-8.
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":2},\n{"ph":"X","name":"\377\200\303","pid":1,"tid":1,"ts":3,"dur":2}]' > u.json
analyze u.json
