# tpa_input records (the marks `merge` writes) that no merge wrote: an
# index far past the processes is ignored with a warning, not grown into
# (it would cost memory for every index below it); a process left with no
# input keeps the file whole (its events would be in no part); an index
# no process has leaves no empty part.
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" || exit 99
ev() { printf '{"ph":"X","pid":%d,"tid":1,"ts":%d,"dur":10,"name":"op%d"},\n' "$1" "$2" "$1"; }
{
        printf '{"traceEvents":[\n'
        printf '{"ph":"M","pid":1,"name":"tpa_input","args":{"name":"a.json","sort_index":0}},\n'
        printf '{"ph":"M","pid":2,"name":"tpa_input","args":{"name":"b.json","sort_index":5}},\n'
        printf '{"ph":"M","pid":3,"name":"tpa_input","args":{"name":"c.json","sort_index":16000000}},\n'
        ev 1 0; ev 2 5; ev 3 7
        printf '{"ph":"X","pid":1,"tid":1,"ts":20,"dur":1,"name":"end"}]}\n'
} >m.json
tfprof-analyze m.json >report.txt 2>err.txt
echo "exit $?"
cat err.txt
grep -E '^m\.json|records:' report.txt
# without the process that had no input: two parts, no empty third
sed '/"c.json"/d; /"pid":3,/d' m.json >two.json
tfprof-analyze two.json 2>/dev/null | grep -E '^two\.json|records:'
# one real input: read as one trace, whole
sed '/"b.json"/d' m.json >one.json
tfprof-analyze one.json 2>/dev/null | grep -E '^one\.json|records:'
