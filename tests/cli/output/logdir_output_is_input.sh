# a trace found in a logdir is an input too: -o naming it is refused
cp -R logdir "$TPA_TMP/ld"
tfprof-analyze merge "$TPA_TMP/ld" \
        -o "$TPA_TMP/ld/train/plugins/profile/2024_01_02_10_00_00/hostb.trace.json.gz" 2>&1 |
        sed "s|$TPA_TMP|TMP|g"
