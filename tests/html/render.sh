#!/bin/sh
# render.sh - the HTML report renders: write it for a small TF2 trace,
# screenshot it in headless Chromium (Debian's chromium package), and check
# the PNG is not blank and shows the chart colours, and that the HTML has
# the expected elements. Exit 77 (skip) when chromium is absent.
#   TPA_BIN=... TPA_TESTDATA=... render.sh PNG_COLORS [OUT_DIR]
set -u
png_colors=$1
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
        echo "chromium not installed: skipping"
        exit 77
fi
if [ $# -ge 2 ]; then
        out=$2
else
        out=$(mktemp -d) || exit 99
        trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
html=$out/report.html
png=$out/report.png
"$TPA_BIN" --format html -o "$html" "$TPA_TESTDATA/synth_tf2.trace.json.gz" || exit 1
kept=$("$TPA_BIN" --format json "$TPA_TESTDATA/synth_tf2.trace.json.gz" |
       grep -m1 '"kept_steps"' | tr -dc 0-9)
rc=0
check() {       # check WHAT GOT WANT
        if [ "$2" = "$3" ]; then echo "ok: $1: $2"; else echo "FAIL: $1: $2, want $3"; rc=1; fi
}
check "svg elements" "$(grep -c '<svg ' "$html")" 2
check "bar rects (kept steps x 6 groups)" "$(grep -c 'class="bar g-' "$html")" $((kept * 6))
check "device lanes" "$(grep -c 'class="lane lane-device"' "$html")" 3
check "host lanes" "$(grep -c 'class="lane lane-host"' "$html")" 1
check "no scripts or links" "$(grep -Eci '<script|(src|href)=' "$html")" 0
HOME=$out timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
        --hide-scrollbars --screenshot="$png" --window-size=1200,900 "file://$html" \
        >"$out/chromium.log" 2>&1
if [ ! -s "$png" ]; then
        echo "FAIL: chromium wrote no screenshot"; sed 's/^/# /' "$out/chromium.log"; exit 1
fi
# The bars' compute green and input orange, the timeline's idle-gap tint.
"$png_colors" "$png" 4caf50 ff9800 || rc=1
exit $rc
