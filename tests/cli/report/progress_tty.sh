# On a terminal (script(1) gives one), progress shows for a large input
# only; --no-progress turns it off (-q: progress.sh).
awk 'BEGIN {
        printf "{\"traceEvents\":[";
        for (i = 0; i < 50000; i++)
                printf "%s{\"ph\":\"X\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"args\":{\"pad\":\"%s\"}}\n",
                        i ? "," : "", i % 10, i * 2, sprintf("%0400d", 0);
        print "]}" }' > "$TPA_TMP/big.json"
shown() {
        if script -qec "$1" /dev/null | grep -q 'tfprof-analyze: read '; then echo yes; else echo no; fi
}
echo "big input ($(($(wc -c < "$TPA_TMP/big.json") / 1048576)) MiB) on a tty: $(shown "tfprof-analyze '$TPA_TMP/big.json' > /dev/null")"
echo "small input on a tty: $(shown "tfprof-analyze kineto_small.json > /dev/null")"
echo "big, --no-progress: $(shown "tfprof-analyze --no-progress '$TPA_TMP/big.json' > /dev/null")"
