#!/bin/sh
# links.sh SRCDIR - every reference a Markdown file of the repository makes
# to another file resolves inside the repository: each relative link
# [text](path) from the file's own folder, and each path in backquotes that
# starts at a top folder of the repository (`lib/model/trace.c`, `doc/`)
# from the root. Links to the web and to anchors are not checked; a path
# with a placeholder (<run>, *, $VAR) is a pattern, not a file, and is
# skipped; `bench/measure` may name the program built from bench/measure.c.
# Prints TAP: one line per Markdown file.
set -u
src=${1:?usage: links.sh SRCDIR}
cd "$src" || exit 99
tops='lib|cli|tests|doc|bench|tools|rules|testdata|completions|debian|python'
n=0 rc=0
files=$(git ls-files --cached --others --exclude-standard '*.md' 2>/dev/null) ||
        files=$(find . -name '*.md' ! -path './build*' | sed 's|^\./||')
for md in $files; do
        n=$((n + 1))
        dir=$(dirname "$md")
        bad=
        # [text](target): relative to the file's folder
        for t in $(grep -o '\](\([^)# ]*\)' "$md" | sed 's/^](//'); do
                case $t in
                http:*|https:*|mailto:*|'') continue ;;
                esac
                [ -e "$dir/$t" ] || bad="$bad $t"
        done
        # `top/...`: from the root
        for t in $(grep -o '`[^` ]*`' "$md" | tr -d '`' | grep -E "^($tops)/[A-Za-z0-9_./-]*$"); do
                case $t in
                *'<'*|*'*'*|*'$'*|bench/out*) continue ;;
                esac
                [ -e "$t" ] || [ -e "$t.c" ] || bad="$bad $t"
        done
        if [ -z "$bad" ]; then
                echo "ok $n - $md"
        else
                echo "not ok $n - $md: no such file:$bad"
                rc=1
        fi
done
echo "1..$n"
exit $rc
