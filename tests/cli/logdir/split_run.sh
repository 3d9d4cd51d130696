# each worker of a job that profiles itself writes its host's file into a
# folder named by the second it stopped: folders a few seconds apart whose
# hosts differ are one run (a job of two ranks); an earlier session and a
# folder of the same host stay runs of their own
d="$TPA_TMP/ld/plugins/profile"
mkdir -p "$d/2024_01_01_00_00_04" "$d/2024_01_01_00_00_05" "$d/2024_01_01_00_00_07" \
        "$d/2023_12_31_23_50_00" || exit
cp tf2_input_bound.trace.json.gz "$d/2023_12_31_23_50_00/worker-0.trace.json.gz"
cp tf2_input_bound.trace.json.gz "$d/2024_01_01_00_00_04/worker-1.trace.json.gz"
cp tf2_compute_bound.trace.json.gz "$d/2024_01_01_00_00_05/worker-0.trace.json.gz"
tfprof-analyze --list-runs "$TPA_TMP/ld" | sed "s|$TPA_TMP|TMP|g"
tfprof-analyze "$TPA_TMP/ld" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep -e newest -e '^job'
# a later folder of a host already there: another session
cp tf2_compute_bound.trace.json.gz "$d/2024_01_01_00_00_07/worker-0.trace.json.gz"
tfprof-analyze --list-runs "$TPA_TMP/ld" | sed "s|$TPA_TMP|TMP|g"
# --run names the joined run by either folder
tfprof-analyze --run 2024_01_01_00_00_04 "$TPA_TMP/ld" 2>&1 | sed "s|$TPA_TMP|TMP|g" | grep '^job'
