# a link that climbs out of the logdir is not followed: a sibling logdir's
# runs are not this one's
mkdir -p "$TPA_TMP/a/train" && cp -R logdir "$TPA_TMP/b"
ln -s ../.. "$TPA_TMP/a/train/up"
tfprof-analyze --list-runs "$TPA_TMP/a" 2>&1 | sed "s|$TPA_TMP|TMP|g"
mkdir -p "$TPA_TMP/a/train/plugins/profile"
ln -s ../../../../b/train/plugins/profile/2024_01_02_10_00_00 "$TPA_TMP/a/train/plugins/profile/r"
tfprof-analyze --list-runs "$TPA_TMP/a" 2>&1 | sed "s|$TPA_TMP|TMP|g"
