# Chrome JSON cut inside a number or a literal ("ts":12. 1e+ - tru nul) is
# cut like anywhere else: the complete events are analysed with a warning
# (exit 0), and --strict makes it an error (exit 3). Plain and gzip.
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" || exit 99
head='{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},
{"ph":"X","name":"b","pid":1,"tid":1,'
for tail in '"ts":12.' '"ts":1e+' '"ts":-' '"args":{"x":tru' '"args":{"x":nul' \
            '"args":{"x":[1,2.5e'; do
        printf '%s%s' "$head" "$tail" >cut.json
        n=$(wc -c <cut.json)
        { gz_stored_head "$n"; cat cut.json; } >cut.json.gz
        echo "== $tail"
        analyze -q cut.json; echo "exit $?"
        analyze cut.json.gz 2>&1 | grep -c 'warning: the trace ends inside a record'
        tfprof-analyze --strict cut.json.gz >/dev/null; echo "exit $?"
done
