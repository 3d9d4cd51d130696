#!/bin/sh
# The fan-out on GNU parallel (doc/fanout.md): one tfprof-analyze per rank,
# each writing its JSON report beside its trace, then `aggregate` of the
# reports; the job view must be the one `aggregate` gives the traces.
# Run by meson (suite fanout) with TPA_BIN and TPA_TESTDATA. Exit 77 (skip)
# when GNU parallel is missing, except under CI=true, where .ci/run
# installs it: there the test always runs.
set -u
: "${TPA_BIN:?}" "${TPA_TESTDATA:?}"
if ! command -v parallel >/dev/null 2>&1; then
        echo "GNU parallel is not installed (Debian: apt-get install parallel)"
        [ "${CI:-}" = true ] && exit 1
        exit 77
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/traces" "$tmp/reports"
for r in 0 1 2 3; do
        cp "$TPA_TESTDATA/dist_rank$r.pt.trace.json.gz" "$tmp/traces/rank-$r.json.gz" || exit 99
done
cd "$tmp/traces" || exit 99
# -j 2: the ranks are analysed two at a time, each where its trace is
parallel --will-cite -j 2 --halt now,fail=1 \
        "$TPA_BIN" --format json -o "$tmp/reports/{= s:\.json\.gz$:: =}.json" {} ::: rank-*.json.gz || {
        echo "parallel: a rank failed"; exit 1; }
ls "$tmp/reports"
"$TPA_BIN" aggregate "$tmp"/reports/rank-*.json > "$tmp/from_reports.txt" || exit 1
"$TPA_BIN" aggregate rank-*.json.gz > "$tmp/from_traces.txt" || exit 1
if cmp -s "$tmp/from_reports.txt" "$tmp/from_traces.txt"; then
        echo "parallel: the job view from the reports is the view from the traces"
else
        diff "$tmp/from_traces.txt" "$tmp/from_reports.txt"
        exit 1
fi
grep -E '^(job|straggler):' "$tmp/from_reports.txt"
