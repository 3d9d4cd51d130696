# Every long option in --help is documented in doc/tfprof-analyze.1 (an
# item of its OPTIONS section), and every item there is in --help.
man=../doc/tfprof-analyze.1
tfprof-analyze --help | sed -n '/^Options:/,/^$/p' | grep -o -- '--[a-z][a-z-]*' |
        sort -u > "$TPA_TMP/help"
awk '/^\.SH /{ on = ($2 == "OPTIONS") } on && prev == ".TP" { print } { prev = $0 }' "$man" |
        sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z-]*' | sort -u > "$TPA_TMP/man"
echo "options in --help: $(wc -l < "$TPA_TMP/help")"
echo "options in the man page: $(wc -l < "$TPA_TMP/man")"
diff "$TPA_TMP/help" "$TPA_TMP/man" && echo "same options"
