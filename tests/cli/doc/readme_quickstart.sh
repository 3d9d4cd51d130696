# The command lines of README.md's "Quick start", taken from the README
# itself so the two cannot drift apart, run as root on a machine with no
# sudo (a fresh Debian) and as a user with sudo. On PATH are stand-ins and
# nothing else, each telling on stderr what it did: apt-get fails unless
# run as root, as the real one does; `sudo` runs its command as root; `id`
# tells the uid the case pretends; meson and ninja "build" by linking the
# binary under test; `sh` names the script it would run.
readme=$TPA_TESTDATA/../README.md
bin=$TPA_TMP/bin
tpa=$(command -v tfprof-analyze)
mkdir -p "$bin" "$TPA_TMP/src" || exit 99
ln -s "$TPA_TESTDATA" "$TPA_TMP/src/testdata"
ln -s "$TPA_TESTDATA/../tests" "$TPA_TMP/src/tests"

stub() {
        { echo '#!/bin/sh'; cat; } > "$bin/$1"
        /bin/chmod +x "$bin/$1"
}
stub apt-get <<'STUB'
if [ "$STUB_UID" != 0 ]; then
        echo "apt-get $1: E: Could not open lock file - open (13: Permission denied), are you root?" >&2
        exit 100
fi
echo "apt-get $1, as root: ok" >&2
STUB
stub id <<'STUB'
[ "$1" = -u ] && echo "$STUB_UID"
STUB
stub meson <<STUB
[ "\$1" = setup ] || exit 1
/bin/mkdir -p "\$2/cli" && /bin/ln -s "$tpa" "\$2/cli/tfprof-analyze"
echo "meson \$*" >&2
STUB
stub ninja <<'STUB'
echo "ninja $*" >&2
STUB
stub sh <<'STUB'
[ -f "$1" ] && echo "sh $1: would run all tests" >&2
STUB
user_bin=$TPA_TMP/user-bin
/bin/cp -R "$bin" "$user_bin"
stub sudo <<'STUB'
STUB_UID=0 exec "$@"
STUB
/bin/mv "$bin/sudo" "$user_bin/sudo"

# lines: the indented lines of the Quick start section, one command each.
lines() {
        awk '/^## / { on = ($0 ~ /^## Quick start/) } on && sub(/^    /, "")' "$readme"
}

run_as() {      # run_as UID BIN_DIR
        echo "== uid $1, sudo $([ -f "$2/sudo" ] && echo installed || echo "not installed")"
        lines | while IFS= read -r line; do
                (cd "$TPA_TMP/src" && STUB_UID=$1 PATH=$2 /bin/sh -c "$line" 2>&1 \
                        > "$TPA_TMP/out"; echo $? > "$TPA_TMP/rc")
                grep '^verdict' "$TPA_TMP/out"
                echo "exit $(cat "$TPA_TMP/rc")"
                rm -rf "$TPA_TMP/src/build"
        done
}
run_as 0 "$bin"
run_as 1000 "$user_bin"
