# -o naming an input is refused (exit 2) and the input is left alone:
# by device and inode where it exists (a link, another spelling), else by name
cd "$TPA_TMP" || exit
cp "$TPA_TESTDATA/kineto_small.json" t.json
cp "$TPA_TESTDATA/tf1_step1.runmeta.pb" c.pb
ln -s t.json link.json
tfprof-analyze -o t.json t.json; echo "exit $?"
tfprof-analyze convert c.pb -o c.pb; echo "exit $?"
tfprof-analyze convert c.pb -o ./c.pb; echo "exit $?"
tfprof-analyze merge link.json c.pb -o t.json; echo "exit $?"
tfprof-analyze merge t.json c.pb -o m.json 2>/dev/null; echo "exit $?"
tfprof-analyze merge m.json c.pb -o m.json; echo "exit $?"
tfprof-analyze check t.json --baseline m.json -o m.json; echo "exit $?"
cmp -s t.json "$TPA_TESTDATA/kineto_small.json" && cmp -s c.pb "$TPA_TESTDATA/tf1_step1.runmeta.pb" &&
        echo "inputs unchanged"
