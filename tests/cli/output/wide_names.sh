# names in wide characters (CJK, emoji) line up in the text tables by the
# columns a terminal gives them, not by their bytes: the host threads of
# what was read, and the inputs of several traces
t="$TPA_TMP/前向传播_训练.json"
{
        printf '{"traceEvents":[\n'
        printf '{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}},\n'
        printf '{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"数据加载线程"}},\n'
        printf '{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"🔥 worker"}},\n'
        for i in 1 2 3; do
                printf '{"ph":"X","pid":1,"tid":1,"name":"step","ts":%d,"dur":900},\n' $((i * 1000))
                printf '{"ph":"X","pid":1,"tid":2,"name":"load","ts":%d,"dur":90},\n' $((i * 1000))
        done
        printf '{"ph":"X","pid":1,"tid":3,"name":"w","ts":10,"dur":5}]}\n'
} > "$t"
tfprof-analyze "$t" | sed -n '/host threads:/,/^  [a-z]/p' | grep '^      thread'
cd "$TPA_TMP" || exit
cp 前向传播_训练.json 很长的名字很长的名字很长的名字很长的名字很长的名字.json
tfprof-analyze 前向传播_训练.json 很长的名字很长的名字很长的名字很长的名字很长的名字.json |
        sed -n '/^all 2 inputs:/,$p'
