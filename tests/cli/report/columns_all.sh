# no line of the text report is wider than 100 columns (code points) on
# any input in testdata: a step's exclusion reason was printed whole, 107
# columns on tf2_custom_loop. The binary itself, not through bin/ (under
# valgrind in CI): this is about layout, the other cases check memory.
n=0
for f in *; do
        case $f in fuzz|*.md) continue ;; esac
        "$TPA_BIN" "$f" 2>/dev/null | LC_ALL=C sed 's/[\x80-\xBF]//g' |
                awk -v f="$f" 'length($0) > 100 { print f ": " $0; bad = 1 } END { exit bad }' ||
                n=$((n + 1))
done
echo "inputs with a line over 100 columns: $n"
