#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - the packages, built and installed as a user would (issue 25):
#  1. the version agrees in meson.build, CHANGELOG.md, debian/changelog, the
#     man page and a v* tag on HEAD; a missing library stops meson setup naming its
#     Debian package;
#  2. the wheel: sdist, then a wheel from it (python -m build) in one fresh
#     venv, installed into a second; tfprof-analyze --version on its PATH,
#     the man page and completions in its share/, the Python API on a
#     fixture (the report equals the CLI's JSON), to_dataframe when pandas
#     installs;
#  3. the .deb: dpkg-buildpackage -us -uc -b, lintian without errors, then
#     apt-get install ./tfprof-analyze_*.deb (in CI, or with
#     TPA_PACKAGE_INSTALL=1; else it is unpacked into a temp dir), the man
#     page and the completions.
# The wheel needs PyPI and the .deb Debian's build tools: without them it
# says so and skips that part, except in CI (CI=true), where it fails.
# Called by .ci/run after tests/run-all.sh; about 2 minutes.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
py=${PYTHON:-python3}
ci=${CI:-false}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpa-package.XXXXXX")
installed_deb=
cleanup() {
        [ -z "$installed_deb" ] || apt-get remove -y -q tfprof-analyze >/dev/null 2>&1 || true
        rm -rf "$tmp"
}
trap cleanup EXIT
passed=0 failed=0 skipped=0
step() { printf '\n=== %s\n' "$*"; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok: $*"; failed=$((failed + 1)); }
skip() {        # skip WHAT WHY: fine on a developer's machine, a failure in CI
        if [ "$ci" = true ]; then
                not_ok "$1: $2 (CI must run it)"
        else
                echo "skip: $1: $2"; skipped=$((skipped + 1))
        fi
}
check() {       # check WHAT COMMAND...: one case, its output kept for a failure
        what=$1; shift
        if "$@" > "$tmp/out" 2>&1; then ok "$what"; else not_ok "$what"; sed 's/^/  | /' "$tmp/out"; fi
}

step "version: one number everywhere"
version=$(sed -n "s/^project('tfprof-analyze', .*[ ,]version : '\([^']*\)'.*/\1/p" meson.build)
[ -n "$version" ] && ok "meson.build says $version" || not_ok "no version in meson.build's project()"
check "CHANGELOG.md has an entry for $version" grep -q "^## $version " CHANGELOG.md
check "debian/changelog's latest entry is $version" \
        test "$(sed -n '1s/^tfprof-analyze (\([^)]*\)).*/\1/p' debian/changelog)" = "$version"
check "the man page's .TH says $version" grep -q "^\.TH .*\"tfprof-analyze $version\"" doc/tfprof-analyze.1
tag=$(git describe --exact-match --tags --match 'v*' HEAD 2>/dev/null || true)
if [ -n "$tag" ]; then
        check "tag $tag names $version" test "$tag" = "v$version"
fi
# The missing-library message, as pip and meson users see it.
if PKG_CONFIG_LIBDIR="$tmp/none" meson setup "$tmp/nodeps" > "$tmp/nodeps.log" 2>&1; then
        not_ok "meson setup without yajl's .pc file succeeded"
else
        check "a missing yajl names libyajl-dev" grep -q 'yajl is missing (Debian/Ubuntu package libyajl-dev)' "$tmp/nodeps.log"
fi

# The tree as committed plus new files, for the builds that write next to it.
mkdir "$tmp/src"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/src"

step "wheel: sdist and wheel in one venv, installed into another"
if ! "$py" -m venv "$tmp/venv-build" > "$tmp/venv.log" 2>&1; then
        skip "wheel" "'$py -m venv' failed (apt-get install python3-venv): $(tail -1 "$tmp/venv.log")"
elif ! "$tmp/venv-build/bin/pip" install -q --disable-pip-version-check build > "$tmp/pip.log" 2>&1; then
        skip "wheel" "pip cannot install 'build' (no network?): $(tail -1 "$tmp/pip.log")"
else
        # python -m build makes the sdist from git (meson dist), then the
        # wheel from that sdist: what PyPI would get.
        if "$tmp/venv-build/bin/python" -m build --outdir "$tmp/dist" . > "$tmp/build.log" 2>&1; then
                ok "python -m build: $(cd "$tmp/dist" && ls | tr '\n' ' ')"
        else
                not_ok "python -m build"; tail -30 "$tmp/build.log" | sed 's/^/  | /'
        fi
        rm -rf .mesonpy-*
        whl=$(ls "$tmp"/dist/*.whl 2>/dev/null || true)
        if [ -n "$whl" ]; then
                echo "wheel: $(basename "$whl"), $(wc -c < "$whl") bytes;" \
                     "sdist: $(cat "$tmp"/dist/*.tar.gz | wc -c) bytes"
                "$py" -m venv "$tmp/venv"
                check "pip install the wheel into a fresh venv" \
                        "$tmp/venv/bin/pip" install -q --disable-pip-version-check "$whl"
                # As a user has it: the venv activated, tfprof-analyze on PATH.
                check "tfprof-analyze --version on the venv's PATH" sh -c '
                        . "$1/bin/activate" && test "$(command -v tfprof-analyze)" = "$1/bin/tfprof-analyze" &&
                        test "$(tfprof-analyze --version)" = "tfprof-analyze $2"' sh "$tmp/venv" "$version"
                for f in man/man1/tfprof-analyze.1 bash-completion/completions/tfprof-analyze \
                         zsh/site-functions/_tfprof-analyze; do
                        check "the wheel installs share/$f" test -s "$tmp/venv/share/$f"
                done
                check "bash completion from the venv" bash -c \
                        '. "$1/share/bash-completion/completions/tfprof-analyze" && complete -p tfprof-analyze' \
                        sh "$tmp/venv"
                check "the Python API on testdata (no venv on PATH)" env PATH=/usr/bin:/bin \
                        "$tmp/venv/bin/python" tests/package/api.py testdata
                if "$tmp/venv/bin/pip" install -q --disable-pip-version-check pandas > "$tmp/pandas.log" 2>&1; then
                        check "to_dataframe with pandas" env PATH=/usr/bin:/bin \
                                "$tmp/venv/bin/python" tests/package/api.py testdata --pandas
                else
                        echo "pandas did not install, to_dataframe not tried: $(tail -1 "$tmp/pandas.log")"
                fi
        fi
fi

step "deb: dpkg-buildpackage, lintian, apt-get install"
missing=
for t in dpkg-buildpackage dh lintian; do
        command -v $t > /dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
        skip "deb" "missing$missing (apt-get install devscripts debhelper lintian dpkg-dev)"
else
        # The tests ran in tests/run-all.sh just before: nocheck skips them here.
        if (cd "$tmp/src" && DEB_BUILD_OPTIONS="nocheck parallel=${TPA_JOBS:-2}" \
                        dpkg-buildpackage -us -uc -b) > "$tmp/deb.log" 2>&1; then
                ok "dpkg-buildpackage -us -uc -b"
        else
                not_ok "dpkg-buildpackage -us -uc -b"; tail -30 "$tmp/deb.log" | sed 's/^/  | /'
        fi
        deb=$(ls "$tmp"/tfprof-analyze_*.deb 2>/dev/null || true)
        if [ -n "$deb" ]; then
                echo "deb: $(basename "$deb"), $(wc -c < "$deb") bytes"
                lintian --fail-on error "$tmp"/tfprof-analyze_*.changes > "$tmp/lintian.log" 2>&1 &&
                        r=0 || r=$?
                grep -v 'running with root privileges' "$tmp/lintian.log" | sed 's/^/  lintian: /' || true
                [ $r = 0 ] && ok "lintian: no errors" || not_ok "lintian: errors"
                dpkg-deb -c "$deb" > "$tmp/contents"
                for f in usr/bin/tfprof-analyze usr/share/man/man1/tfprof-analyze.1.gz \
                         usr/share/bash-completion/completions/tfprof-analyze \
                         usr/share/zsh/vendor-completions/_tfprof-analyze \
                         usr/share/doc/tfprof-analyze/README.md.gz usr/share/doc/tfprof-analyze/copyright; do
                        check "the .deb has /$f" grep -q " \./$f\$" "$tmp/contents"
                done
                if [ "$ci" = true ] || [ "${TPA_PACKAGE_INSTALL:-0}" = 1 ]; then
                        dpkg -s tfprof-analyze > /dev/null 2>&1 || installed_deb=yes
                        check "apt-get install ./$(basename "$deb")" \
                                apt-get install -y -q --no-install-recommends "$deb"
                        dest=
                else
                        echo "not installing system-wide (CI=true or TPA_PACKAGE_INSTALL=1 do): unpacked"
                        dpkg-deb -x "$deb" "$tmp/root"
                        dest=$tmp/root
                fi
                check "tfprof-analyze --version from the .deb" \
                        test "$("$dest/usr/bin/tfprof-analyze" --version)" = "tfprof-analyze $version"
                check "the .deb's tfprof-analyze reads a trace" \
                        "$dest/usr/bin/tfprof-analyze" testdata/tf2_input_bound.trace.json.gz
                if [ -z "$dest" ]; then
                        check "man tfprof-analyze" sh -c 'man tfprof-analyze | grep -q "what limits training"'
                else
                        check "man -l the .deb's man page" sh -c \
                                'man -l "$1" | grep -q "what limits training"' sh \
                                "$dest/usr/share/man/man1/tfprof-analyze.1.gz"
                fi
                check "bash: source the .deb's completion; complete -p tfprof-analyze" bash -c \
                        'source "$1/usr/share/bash-completion/completions/tfprof-analyze"; complete -p tfprof-analyze' \
                        sh "$dest"
                if command -v zsh > /dev/null 2>&1; then
                        check "zsh -n the .deb's completion" zsh -n "$dest/usr/share/zsh/vendor-completions/_tfprof-analyze"
                fi
        fi
fi

echo
echo "package: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
