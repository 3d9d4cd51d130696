# Cheap hostile inputs cost work in proportion to their size. Each is big
# enough that a cost quadratic in it would be obvious (minutes, past the
# test's timeout), and the figures say each part was read once:
#   a million empty events; one event with 200,000 copies of a key;
#   100,000 levels of nesting (refused at the 65th, outside the events and
#   inside them); 200,000 XSpace planes all named /device:GPU:0 (each looked
#   for a free pid among all processes: 13 s at 100,000).
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" || exit 99
awk 'BEGIN { printf "["; for (i = 0; i < 1000000; i++) printf "{},"; printf "{}]" }' >tiny.json
analyze -q -v tiny.json | grep records:
awk 'BEGIN { printf "[{\"ph\":\"X\",\"ts\":1,\"dur\":2"
             for (i = 0; i < 200000; i++) printf ",\"name\":\"n%d\"", i; printf "}]" }' >keys.json
tfprof-analyze -q --format json keys.json | grep -E '^    "events"'
awk 'BEGIN { printf "{\"x\":"; for (i = 0; i < 100000; i++) printf "["
             for (i = 0; i < 100000; i++) printf "]"; printf ",\"traceEvents\":[]}" }' >deep1.json
tfprof-analyze deep1.json
awk 'BEGIN { printf "{\"traceEvents\":["; for (i = 0; i < 100000; i++) printf "{\"a\":"
             printf "1"; for (i = 0; i < 100000; i++) printf "}"; printf "]}" }' >deep2.json
tfprof-analyze deep2.json
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "\n\017\022\r/device:GPU:0" }' >planes.xplane.pb
tfprof-analyze -q --format json planes.xplane.pb | grep -E '^    "(format|processes)"'
