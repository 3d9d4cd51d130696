# lib.sh - helpers for the bad-input cases, sourced by each case script
# (which run.sh starts from testdata/ with TPA_TMP set). Inputs are made
# here, in $TPA_TMP, byte by byte: nothing depends on the local gzip or
# python, and nothing big is committed.

# oct N: the byte N (0..255) as a printf octal escape.
oct() { printf '\\%03o' "$1"; }

# gz_stored_head LEN: a gzip member header followed by the header of one
# final stored (uncompressed) deflate block of LEN bytes (LEN < 65536). The
# caller appends the data. Stored blocks make truncation exact: inflate
# hands out precisely the data bytes that are present.
gz_stored_head() {
        n=$1
        nn=$((65535 - n))
        printf "\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003\\001"
        printf "$(oct $((n & 255)))$(oct $((n >> 8)))$(oct $((nn & 255)))$(oct $((nn >> 8)))"
}

# analyze ARGS...: run tfprof-analyze with the report kept aside. stdout
# gets the lines of the report's "what was read" part that this suite is
# about (records kept, time span, unmatched B/E, truncation), or "report
# written", or nothing when the report is empty; the exit status is
# tfprof-analyze's.
analyze() {
        tfprof-analyze "$@" >"$TPA_TMP/report"
        rc=$?
        if grep -E '^ *(records|time span|unmatched B/E|truncated):' "$TPA_TMP/report"; then
                :
        elif [ -s "$TPA_TMP/report" ]; then
                echo "report written"
        fi
        return $rc
}
