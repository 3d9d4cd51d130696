# lib.sh - run the CI recipes of doc/ci.md as a runner would, sourced by
# ci_github.sh and ci_gitlab.sh (which run.sh starts from testdata/ with
# TPA_TMP set). The commands are taken out of the doc itself, so the doc and
# the test cannot drift apart. Stand-ins on PATH: `python` writes a logdir
# whose profile run is $CI_FIXTURE (none: no profile), `gh` and `curl` keep
# the comment they would post in $TPA_TMP/posted, `git` does nothing.

doc=$TPA_TESTDATA/../doc/ci.md
fixtures=$TPA_TESTDATA

# ci_block TAG: the fenced block after the line <!-- ci-test: TAG -->.
ci_block() {
        awk -v tag="<!-- ci-test: $1 -->" '
                $0 == tag { on = 1; next }
                on == 1 && /^```/ { on = 2; next }
                on == 2 && /^```$/ { exit }
                on == 2 { print }' "$doc"
}

# stand_ins: the programs a runner has that the test must not run.
stand_ins() {
        mkdir -p "$TPA_TMP/bin"
        cat > "$TPA_TMP/bin/python" <<'STUB'
#!/bin/sh
# python train.py --profile DIR: a profile run with one host, $CI_FIXTURE
while [ $# -gt 0 ]; do [ "$1" = --profile ] && dir=$2; shift; done
[ -n "${CI_FIXTURE:-}" ] || exit 0
mkdir -p "$dir/plugins/profile/2026_01_01_00_00_00"
cp "$CI_FIXTURE" "$dir/plugins/profile/2026_01_01_00_00_00/vm.xplane.pb"
STUB
        cat > "$TPA_TMP/bin/gh" <<'STUB'
#!/bin/sh
# gh pr comment PR --body-file FILE
[ "$1 $2" = "pr comment" ] || { echo "gh: unexpected: $*" >&2; exit 1; }
pr=$3; shift 3
[ "$1" = --body-file ] || { echo "gh: no --body-file" >&2; exit 1; }
{ echo "comment on pull request $pr:"; cat "$2"; } > "$TPA_TMP/posted"
STUB
        cat > "$TPA_TMP/bin/curl" <<'STUB'
#!/bin/sh
# curl ... --header H --data-urlencode body@FILE URL: a merge request note
for a; do
        case $a in
        PRIVATE-TOKEN:*) token=${a#PRIVATE-TOKEN:} ;;
        body@*) body=${a#body@} ;;
        http*) url=$a ;;
        esac
done
{ echo "note to $url (token ${token:-none}):"; cat "$body"; } > "$TPA_TMP/posted"
STUB
        printf '#!/bin/sh\nexit 0\n' > "$TPA_TMP/bin/git"
        chmod +x "$TPA_TMP/bin/python" "$TPA_TMP/bin/gh" "$TPA_TMP/bin/curl" \
                "$TPA_TMP/bin/git"
        PATH=$TPA_TMP/bin:$PATH
}

# checkout: a fresh working copy, as a job starts with, holding the
# baseline the baseline recipe wrote (if any).
checkout() {
        rm -rf "$TPA_TMP/work" "$TPA_TMP/posted"
        mkdir -p "$TPA_TMP/work/perf"
        [ -f "$TPA_TMP/baseline.json" ] && cp "$TPA_TMP/baseline.json" "$TPA_TMP/work/perf/"
        cd "$TPA_TMP/work" || exit 99
}

# make_baseline FIXTURE: run the baseline recipe of the doc on FIXTURE.
make_baseline() {
        checkout
        ci_block baseline > "$TPA_TMP/baseline.sh"
        CI_FIXTURE=$1 sh -e "$TPA_TMP/baseline.sh" || echo "baseline recipe: exit $?"
        cp perf/baseline.json "$TPA_TMP/baseline.json"
        cd "$TPA_TESTDATA" || exit 99
}

# show_posted: what the job posted, if anything.
show_posted() {
        if [ -f "$TPA_TMP/posted" ]; then cat "$TPA_TMP/posted"; else echo "nothing posted"; fi
}
