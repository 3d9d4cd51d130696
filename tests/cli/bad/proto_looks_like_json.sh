# Binary protobuf whose first field is 91 or 123 bytes long opens with
# "\n[" or "\n{": it is read as the protobuf it is, not refused as JSON.
# A RunMetadata (StepStats of 91 bytes: one node, MatMul) and an XSpace
# (first plane of 123 bytes: one event, op), made here byte by byte.
. "$(dirname "$0")/lib.sh"
cd "$TPA_TMP" || exit 99
printf '\012[\012Y\012,/job:localhost/replica:0/task:0/device:CPU:0\022)\012\011MatMulxxx\020\350\007 \005(\005B\025MatMul = MatMul(a, b)' >rm91.pb
printf '\012{\010\001\022\011/host:CPU\032`\010\001\022Nthread' >xs123.pb
printf 'tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt' >>xs123.pb
printf '\030\350\007"\011\010\001\020\000\030\300\226\261\002"\012\010\001\022\006\010\001\022\002op' >>xs123.pb
# and JSON that opens the same way stays JSON
printf '\n[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]' >a.json
for f in rm91.pb xs123.pb a.json; do
        tfprof-analyze --format json "$f" >report.json
        echo "$f: exit $?, $(grep -E '^    "(format|events)"' report.json | tr -d ' \n')"
done
