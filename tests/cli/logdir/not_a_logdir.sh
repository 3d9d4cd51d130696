# a directory with no plugins/profile/<run>/ is bad input
mkdir -p "$TPA_TMP/empty"
tfprof-analyze "$TPA_TMP/empty" 2>&1 | sed "s|$TPA_TMP|TMP|"
