# The label of consecutive RunMetadata files read as one run keeps their
# path whole, however long (here over 1,200 bytes).
c=$(printf 'x%.0s' $(seq 200))
dir=$TPA_TMP/$c/$c/$c/$c/$c/$c
mkdir -p "$dir"
cp tf1_step1.runmeta.pb tf1_step2.runmeta.pb "$dir/"
cd "$TPA_TMP" || exit 99
rel=$c/$c/$c/$c/$c/$c
tfprof-analyze --format json "$rel/tf1_step1.runmeta.pb" "$rel/tf1_step2.runmeta.pb" > out.json
rc=$?
grep -c "\"path\": \"$rel/tf1_step1.runmeta.pb (+1 more RunMetadata files)\"" out.json
exit $rc
