# A name that is not UTF-8 (0xff, a lone continuation byte, a cut sequence).
# The Chrome reader replaces each bad sequence by U+FFFD where it interns
# the string, and says once how many strings it repaired (exit 0).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" && printf '[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":2},\n{"ph":"X","name":"\377\200\303","pid":1,"tid":1,"ts":3,"dur":2}]' > u.json
analyze u.json
