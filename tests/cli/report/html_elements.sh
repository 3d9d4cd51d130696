# The HTML report: one file, no network, the step bars (one rect per kept
# step per group), the timeline lanes (the partition, device streams, host
# threads) and the idle gaps of the median step, the text report's tables,
# axis ticks at round times with their unit.
tfprof-analyze --format html -o "$TPA_TMP/r.html" synth_tf2.trace.json.gz || exit
h="$TPA_TMP/r.html"
echo "svg: $(grep -c '<svg ' "$h")"
kept=$(tfprof-analyze --format json synth_tf2.trace.json.gz | grep -m1 '"kept_steps"' | tr -dc 0-9)
echo "bar rects: $(grep -c 'class="bar g-' "$h") (kept steps x 6 groups = $((kept * 6)))"
echo "excluded bars: $(grep -c 'class="bar-excluded"' "$h")"
echo "partition lanes: $(grep -c 'class="lane lane-buckets"' "$h")"
echo "device lanes: $(grep -c 'class="lane lane-device"' "$h")"
echo "host lanes: $(grep -c 'class="lane lane-host"' "$h")"
echo "idle gaps: $(grep -c 'class="gap"' "$h")"
echo "tables: $(grep -o '<table id="[a-z-]*"' "$h" | sed 's/.*id=//' | tr '\n' ' ')"
echo "ticks: $(grep -o 'class="tick"[^>]*>[^<]*' "$h" | sed 's/.*>//' | tr '\n' ',')"
echo "network references: $(grep -Eci '(src|href)=|https?://[^w]|@import|<script' "$h")"
tfprof-analyze --format html torch_input_bound.trace.json.gz | head -1
