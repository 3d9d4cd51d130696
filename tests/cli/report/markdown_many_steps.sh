# 120 steps: the per-step table stops at 100 rows and says how many more.
awk 'BEGIN {
        printf "{\"traceEvents\":[";
        for (i = 0; i < 120; i++) {
                printf "%s{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":900}\n",
                        i ? "," : "", i, i * 1000;
                printf ",{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n",
                        i * 1000 + 10, 800 + i % 7;
        }
        print "]}" }' > "$TPA_TMP/many.json"
tfprof-analyze --format markdown "$TPA_TMP/many.json" > "$TPA_TMP/out.md" || exit
echo "table rows: $(grep -c '^| [0-9]' "$TPA_TMP/out.md")"
tail -4 "$TPA_TMP/out.md"
