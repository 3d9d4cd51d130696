#!/bin/sh
# run.sh CASE.sh - run one golden CLI case: in a fresh temp dir, with
# LC_ALL=C TZ=UTC NO_COLOR=1, from testdata/ (so output has no absolute
# paths), and compare stdout, stderr and the exit status with
# CASE.sh.stdout, CASE.sh.stderr and CASE.sh.exit (a missing file means
# empty, or 0). TPA_UPDATE_GOLDEN=1 rewrites the golden files instead.
set -u
case_sh=$1
: "${TPA_BIN:?}" "${TPA_TESTDATA:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC NO_COLOR=1 TPA_TMP="$tmp"
here=$(cd "$(dirname "$0")" && pwd)
case_sh=$(cd "$(dirname "$case_sh")" && pwd)/$(basename "$case_sh")
export PATH="$here/bin:$PATH"
cd "$TPA_TESTDATA" || exit 99
sh "$case_sh" >"$tmp/stdout" 2>"$tmp/stderr"
echo $? >"$tmp/exit"
if [ "${TPA_UPDATE_GOLDEN:-}" = 1 ]; then
        for f in stdout stderr; do
                if [ -s "$tmp/$f" ]; then cp "$tmp/$f" "$case_sh.$f"; else rm -f "$case_sh.$f"; fi
        done
        if [ "$(cat "$tmp/exit")" = 0 ]; then rm -f "$case_sh.exit"; else cp "$tmp/exit" "$case_sh.exit"; fi
        exit 0
fi
rc=0
for f in stdout stderr; do
        if [ -f "$case_sh.$f" ]; then want="$case_sh.$f"; else want=/dev/null; fi
        if ! cmp -s "$want" "$tmp/$f"; then
                echo "# $f differs:"; diff -u "$want" "$tmp/$f" | head -60 | sed 's/^/# /'
                rc=1
        fi
done
want_exit=0
[ -f "$case_sh.exit" ] && want_exit=$(cat "$case_sh.exit")
if [ "$(cat "$tmp/exit")" != "$want_exit" ]; then
        echo "# exit status $(cat "$tmp/exit"), want $want_exit"
        rc=1
fi
exit $rc
