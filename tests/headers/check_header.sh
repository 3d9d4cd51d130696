#!/bin/sh
# check_header.sh CC INCDIR HEADER... - each public header must compile
# alone, strictly (libgit2's headertest): C11, -pedantic-errors -Werror.
set -u
cc=$1 inc=$2
shift 2
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
rc=0 n=0
for h in "$@"; do
        n=$((n + 1))
        name=$(basename "$h")
        printf '#include <tpa/%s>\n#include <tpa/%s>\nint tpa_header_check_%d;\n' \
                "$name" "$name" "$n" > "$tmp/t.c"
        if "$cc" -std=c11 -pedantic-errors -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.c" \
                -o "$tmp/t.o" 2>"$tmp/err"; then
                echo "ok $n - $name compiles alone"
        else
                echo "not ok $n - $name compiles alone"
                sed 's/^/# /' "$tmp/err"
                rc=1
        fi
done
echo "1..$n"
exit $rc
