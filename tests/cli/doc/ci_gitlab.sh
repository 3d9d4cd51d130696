# The GitLab CI job of doc/ci.md, its script run as the runner runs it (the
# lines in one shell, stopping at the first that fails; a line continued in
# the YAML is one line) on testdata/ profiles: a run like the baseline
# passes, an input-bound one fails, and a job with no profile fails without
# posting. The baseline comes from the doc's baseline recipe.
. "$(dirname "$0")/lib.sh"
stand_ins
make_baseline "$fixtures/tf2_compute_bound.xplane.pb"

# script: the items of `script:`, a continued item joined with spaces.
ci_block gitlab | awk '
        /^ +script:$/ { match($0, /^ */); key_ind = RLENGTH; on = 1; next }
        !on { next }
        { match($0, /^ */) }
        RLENGTH <= key_ind { exit }
        /^ *- / { if (item != "") print item; item = $0; sub(/^ *- /, "", item); next }
        { line = $0; sub(/^ */, "", line); item = item " " line }
        END { if (item != "") print item }' > "$TPA_TMP/script.sh"

export CI_API_V4_URL=https://gitlab.example.com/api/v4 CI_PROJECT_ID=42
export CI_MERGE_REQUEST_IID=7 GITLAB_TOKEN=glpat-test
job() {
        checkout
        CI_FIXTURE=$1 sh -e "$TPA_TMP/script.sh"
        echo "job: exit $?"
        show_posted
        cd "$TPA_TESTDATA" || exit 99
}

echo "== a run like the baseline"
job "$fixtures/tf2_compute_bound.xplane.pb"
echo "== an input-bound run"
job "$fixtures/tf2_input_bound.xplane.pb"
echo "== no profile written"
job ""
