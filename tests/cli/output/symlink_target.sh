# -o through a symbolic link writes the file it names and keeps the link:
# a link to a file is followed (the file is replaced whole), one to no file
# yet or to a file descriptor (as /dev/stdout is) is written through
mkdir "$TPA_TMP/real"
ln -s real/r.txt "$TPA_TMP/link"
tfprof-analyze kineto_small.json -o "$TPA_TMP/link" && test -L "$TPA_TMP/link" &&
        grep -q dialect "$TPA_TMP/real/r.txt" && echo "link to no file yet: written through"
echo 'old report' >"$TPA_TMP/real/r.txt"
tfprof-analyze bad_missing_comma.json -o "$TPA_TMP/link" 2>/dev/null
echo "exit $?"
cat "$TPA_TMP/real/r.txt"
tfprof-analyze kineto_small.json -o "$TPA_TMP/link" && test -L "$TPA_TMP/link" &&
        grep -q dialect "$TPA_TMP/real/r.txt" && echo "link to a file: the file replaced"
ln -s /proc/self/fd/1 "$TPA_TMP/fd1"
tfprof-analyze kineto_small.json -o "$TPA_TMP/fd1" >"$TPA_TMP/file" && test -L "$TPA_TMP/fd1" &&
        grep -q dialect "$TPA_TMP/file" && echo "link to stdout, a file: written to it"
tfprof-analyze kineto_small.json -o "$TPA_TMP/fd1" | grep -c dialect
test -L "$TPA_TMP/fd1" && echo "link to stdout, a pipe: kept"
(cd "$TPA_TMP" && ls -A . real)
