# The GitHub Actions workflow of doc/ci.md, run step by step as the runner
# runs it (each `run:` with sh -e, its `env:` set, the job stopping at the
# first step that fails) on testdata/ profiles: a run like the baseline
# passes, an input-bound one fails, and a job with no profile fails without
# posting. The baseline comes from the doc's baseline recipe.
. "$(dirname "$0")/lib.sh"
stand_ins
make_baseline "$fixtures/tf2_compute_bound.xplane.pb"

# steps: one file per step of the workflow, in order.
ci_block github | awk -v dir="$TPA_TMP" '
        /^ +steps:$/ { in_steps = 1; next }
        !in_steps { next }
        {
                line = $0
                if (match(line, /^ *- /)) {     # a new step; its keys line up
                        file = dir "/step" ++n ".sh"
                        line = sprintf("%*s", RLENGTH, "") substr(line, RLENGTH + 1)
                        in_run = in_env = 0
                        printf "" > file
                }
                match(line, /^ */)
                ind = RLENGTH
                if (in_run && (line == "" || ind >= run_ind)) {
                        print substr(line, run_ind + 1) > file
                        next
                }
                in_run = 0
                if (in_env && ind > env_ind) {  # KEY: ${{ expression }}
                        key = val = line
                        sub(/^ */, "", key)
                        sub(/:.*/, "", key)
                        sub(/^[^:]*: */, "", val)
                        gsub(/\$\{\{ *github\.token *\}\}/, "gh-token", val)
                        gsub(/\$\{\{ *github\.event\.pull_request\.number *\}\}/, "7", val)
                        print "export " key "=\047" val "\047" > file
                        next
                }
                in_env = 0
                if (line ~ /^ *env:$/) { in_env = 1; env_ind = ind }
                else if (line ~ /^ *run: \|$/) { in_run = 1; run_ind = ind + 2 }
                else if (line ~ /^ *run: /) { sub(/^ *run: /, "", line); print line > file }
        }'
if grep -n '\${{' "$TPA_TMP"/step*.sh; then echo "an expression the test does not know"; fi

job() {
        checkout
        i=1 rc=0
        while [ $rc -eq 0 ] && [ -f "$TPA_TMP/step$i.sh" ]; do
                CI_FIXTURE=$1 sh -e "$TPA_TMP/step$i.sh" || { rc=$?; echo "step $i: exit $rc"; }
                i=$((i + 1))
        done
        echo "job: exit $rc"
        show_posted
        cd "$TPA_TESTDATA" || exit 99
}

echo "== a run like the baseline"
job "$fixtures/tf2_compute_bound.xplane.pb"
echo "== an input-bound run"
job "$fixtures/tf2_input_bound.xplane.pb"
echo "== no profile written"
job ""
