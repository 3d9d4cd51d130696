# A 10 MiB event name, past the string cap (1 MiB): exit 3 with the offset
# where the string starts. The input is made here, never committed.
cd "$TPA_TMP" || exit 99
{ printf '[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"'; head -c 10485760 /dev/zero | tr "\\000" x; printf '"}]'; } > long.json
tfprof-analyze long.json
