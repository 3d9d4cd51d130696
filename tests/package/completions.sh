#!/bin/sh
# SPDX-License-Identifier: MIT
# completions.sh - the generated bash and zsh completions against the tool:
# every option that `tfprof-analyze [CMD] --help` prints is in both scripts,
# so is every metric of a JSON report and every class of the default rules;
# then each script is run as the shell would, on a few command lines.
# Usage: completions.sh EXE BASH_SCRIPT ZSH_SCRIPT TESTDATA RULES
set -eu
exe=$1 bash_script=$2 zsh_script=$3 testdata=$4 rules=$5
fail=0
bad() { echo "not ok: $*"; fail=1; }

has_word() {    # has_word WORD FILE: WORD is a whole word of FILE
        grep -q -e "[' ]$1[' ]" "$2"
}
for c in "" analyze diff check convert merge; do
        for o in $("$exe" $c --help | sed -n -E 's/^  (-([A-Za-z]), |    )(--[a-z0-9-]+).*/\2 \3/p'); do
                for f in "$bash_script" "$zsh_script"; do
                        case $o in --*) w=$o ;; *) w=-$o ;; esac
                        has_word "$w" "$f" || bad "$f lacks '$w' (from '$exe $c --help')"
                done
        done
done
for m in $(cd "$testdata" && "$exe" --format json torch_input_bound.trace.json.gz |
           sed -n '/^  "metrics": {/,/^  }/s/^    "\([a-z0-9_]*\)".*/\1/p'); do
        for f in "$bash_script" "$zsh_script"; do
                has_word "$m" "$f" || bad "$f lacks metric '$m'"
        done
done
for k in $(sed -n -E 's/^class[ \t]+([a-z0-9_-]+)[ \t].*/\1/p' "$rules"); do
        for f in "$bash_script" "$zsh_script"; do
                has_word "$k" "$f" || bad "$f lacks class '$k'"
        done
done

# expect SHELL 'WORDS...' WANT [NOT]: completing the last word offers WANT,
# and not NOT. The last word may be empty ('').
bash_complete() {
        bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                 _tfprof_analyze; printf "%s\n" "${COMPREPLY[@]}"' sh "$bash_script" "$@"
}
zsh_complete() {   # compadd and _files stand in for zsh's completion system
        zsh -fc 'compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
                 _files() { print FILES; }; _message() { :; }
                 words=("${@:2}"); CURRENT=$(($# - 1)); . "$1"' zsh "$zsh_script" "$@"
}
expect() {
        sh=$1 line=$2 want=$3 not=${4-}
        # shellcheck disable=SC2086
        got=$(eval "${sh}_complete $line")
        printf '%s\n' "$got" | grep -qx -e "$want" || bad "$sh: '$line' does not offer '$want'"
        [ -z "$not" ] || ! printf '%s\n' "$got" | grep -qx -e "$not" ||
                bad "$sh: '$line' offers '$not'"
}
bash -c ". '$bash_script' && complete -p tfprof-analyze" >/dev/null ||
        bad "bash: sourcing $bash_script defines no completion"
shells=bash
if command -v zsh >/dev/null 2>&1; then
        zsh -n "$zsh_script" || bad "zsh: $zsh_script has a syntax error"
        shells="bash zsh"
else
        echo "# zsh is not installed: the zsh script is checked for its words only"
fi
for sh in $shells; do
        expect $sh "tfprof-analyze ch" check
        expect $sh "tfprof-analyze --format ''" json
        expect $sh "tfprof-analyze analyze -f ''" markdown
        expect $sh "tfprof-analyze check --fail-on in" input-bound
        expect $sh "tfprof-analyze check --fail-if input_" input_frac
        expect $sh "tfprof-analyze --fail-on-severity ''" warning
        expect $sh "tfprof-analyze --color a" always
        expect $sh "tfprof-analyze diff --t" --top
        expect $sh "tfprof-analyze diff --" --format --baseline
        expect $sh "tfprof-analyze convert --" --output --format
done
[ $fail = 0 ] && echo "ok: completions" || exit 1
