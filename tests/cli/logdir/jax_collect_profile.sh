# python -m jax.collect_profile writes the XSpace it captured and xprof's
# conversion of it beside it as remote.trace.json.gz: one host, not two
# ranks of a job; a host of that name with its own XSpace stays a host
d="$TPA_TMP/ld/plugins/profile/2026_12_05_22_14_47"
mkdir -p "$d" || exit
cp jax_batch.xplane.pb "$d/127.0.0.1_9517.xplane.pb"
cp jax_batch.trace.json.gz "$d/remote.trace.json.gz"
tfprof-analyze --list-runs "$TPA_TMP/ld" | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$TPA_TMP/ld" | grep -c -e '^verdict' -e '^job'
cp jax_batch.xplane.pb "$d/remote.xplane.pb"
tfprof-analyze --list-runs "$TPA_TMP/ld" | sed "s|$TPA_TMP|TMP|g"
