#!/bin/sh
# render.sh - the HTML report renders: write it for small traces, screenshot
# it in headless Chromium (Debian's chromium package), and check the PNG is
# not blank and shows the chart colours, that the HTML has the expected
# elements, and that the timeline's colours tell the breakdown's story: the
# partition lane's width per group (read from each rect's data-group and
# width) is the breakdown within 5 points, and on an input-bound run the
# input colour covers the most of the timeline and of the screenshot.
# Exit 77 (skip) when chromium is absent.
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
rc=0
check() {       # check WHAT GOT WANT
        if [ "$2" = "$3" ]; then echo "ok: $1: $2"; else echo "FAIL: $1: $2, want $3"; rc=1; fi
}

# render NAME: $out/NAME.html and $out/NAME.png of testdata/NAME.trace.json.gz
render() {
        "$TPA_BIN" --format html -o "$out/$1.html" "$TPA_TESTDATA/$1.trace.json.gz" || exit 1
        HOME=$out timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
                --hide-scrollbars --screenshot="$out/$1.png" --window-size=1200,1600 \
                "file://$out/$1.html" >"$out/chromium.log" 2>&1
        if [ ! -s "$out/$1.png" ]; then
                echo "FAIL: chromium wrote no screenshot of $1"
                sed 's/^/# /' "$out/chromium.log"
                exit 1
        fi
}

# widths HTML CLASS: "group percent" lines, the share of the timeline's
# width that the rects of CLASS ("span": the partition lane, "ev": events)
# give each group.
widths() {
        grep -o "<rect class=\"$2 g-[a-z]*\" data-group=\"[a-z]*\" x=\"[0-9.]*\" y=\"[0-9.]*\" width=\"[0-9.]*\"" "$1" |
        sed 's/.*data-group="\([a-z]*\)".*width="\([0-9.]*\)"/\1 \2/' |
        awk '{ w[$1] += $2; t += $2 } END { for (g in w) printf "%s %.1f\n", g, 100 * w[g] / t }' |
        sort
}

# breakdown HTML: "group percent" lines of the breakdown table.
breakdown() {
        sed -n '/id="breakdown"/,/<\/table>/p' "$1" |
        sed -n 's/.*<\/span>\([a-z]*\)<\/td><td>\([0-9.]*\)%.*/\1 \2/p' | sort
}

# matches HTML: each group's share of the partition lane is its share of
# the breakdown within 5 points.
matches() {
        widths "$1" span > "$out/lane"
        breakdown "$1" | while read -r g want; do
                got=$(awk -v g="$g" '$1 == g { print $2 }' "$out/lane")
                awk -v got="${got:-0}" -v want="$want" \
                        'BEGIN { d = got - want; exit !(d <= 5 && d >= -5) }' ||
                        echo "$g: lane ${got:-0}%, breakdown $want%"
        done
}

render synth_tf2
html=$out/synth_tf2.html
kept=$("$TPA_BIN" --format json "$TPA_TESTDATA/synth_tf2.trace.json.gz" |
       grep -m1 '"kept_steps"' | tr -dc 0-9)
check "svg elements" "$(grep -c '<svg ' "$html")" 2
check "bar rects (kept steps x 6 groups)" "$(grep -c 'class="bar g-' "$html")" $((kept * 6))
check "partition lanes" "$(grep -c 'class="lane lane-buckets"' "$html")" 1
check "device lanes" "$(grep -c 'class="lane lane-device"' "$html")" 3
check "host lanes" "$(grep -c 'class="lane lane-host"' "$html")" 1
check "tables" "$(grep -o '<table id="[a-z-]*"' "$html" | sed 's/.*id=//' | tr '\n' ' ')" \
        '"breakdown" "per-step" "gaps" "copies" "device-ops" "host-ops" '
check "no scripts or links" "$(grep -Eci '<script|(src|href)=' "$html")" 0
check "partition lane against the breakdown" "$(matches "$html")" ""
# The bars' compute green and input orange.
"$png_colors" "$out/synth_tf2.png" 4caf50 ff9800 || rc=1

# An input-bound run (86% input by XProf): the input-pipeline thread has a
# lane, and orange (input) outweighs every other group's colour, in the
# timeline's lanes and in the screenshot.
render tf2_input_bound
html=$out/tf2_input_bound.html
check "partition lane against the breakdown" "$(matches "$html")" ""
check "input-pipeline lanes" "$(grep -c 'lane-host"><rect[^>]*/><text[^>]*>[^<]*tf_data' "$html")" 2
check "the timeline's widest group" \
        "$(sort -k2 -n -r "$out/lane" | sed -n '1s/ .*//p')" input
check "the event lanes' widest group" \
        "$(widths "$html" ev | sort -k2 -n -r | sed -n '1s/ .*//p')" input
"$png_colors" "$out/tf2_input_bound.png" ff9800 4caf50 f44336 | tee "$out/colours" ||
        rc=1
check "the screenshot's commonest group colour" \
        "$(sed -n 's/^colour \([0-9a-f]*\): .*, \([0-9]*\) pixels/\2 \1/p' "$out/colours" |
           sort -n -r | sed -n '1s/.* //p')" ff9800
exit $rc
