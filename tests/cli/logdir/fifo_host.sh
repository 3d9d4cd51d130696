# a fifo named like a host's trace is skipped with a warning: reading it
# would block forever
cp -R logdir "$TPA_TMP/ld"
mkfifo "$TPA_TMP/ld/train/plugins/profile/2024_01_02_10_00_00/hostc.trace.json.gz" || exit
tfprof-analyze merge "$TPA_TMP/ld" -o "$TPA_TMP/m.json" 2>&1 | sed "s|$TPA_TMP|TMP|g"
echo "exit $?"
tfprof-analyze --list-runs "$TPA_TMP/ld/train/plugins/profile/2024_01_02_10_00_00" 2>&1 |
        sed "s|$TPA_TMP|TMP|g"
