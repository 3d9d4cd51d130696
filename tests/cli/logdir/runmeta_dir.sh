# a folder of RunMetadata files (not a logdir) is one trace, a step per file
mkdir "$TPA_TMP/rm" && cp tf1_step1.runmeta.pb tf1_step2.runmeta.pb "$TPA_TMP/rm" &&
        echo "not a trace" >"$TPA_TMP/rm/README" || exit
cd "$TPA_TMP" && tfprof-analyze rm | grep -e '^rm:' -e '^steps:'
tfprof-analyze convert rm -o rm.json && tfprof-analyze rm.json | grep '^steps:'
