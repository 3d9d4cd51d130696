#!/bin/sh
# The fan-out on Slurm (doc/fanout.md): a one-node Slurm started here from
# Debian's packages (munge + slurmctld + slurmd on localhost, in
# a scratch-folder setup), then `srun -n 4`, one task
# per rank, each analysing its rank's trace into a JSON report, then
# `aggregate`: the job view must be the one from the traces.
# Exit 77 (skip) with the reason only where the machine cannot start it:
# no slurm-wlm or munge installed, not root, or the daemons do not come
# up. Everything is private to this run: its own munge socket, ports, state
# folder; the daemons are stopped by their pids at the end.
set -u
: "${TPA_BIN:?}" "${TPA_TESTDATA:?}"
skip() { echo "skipped: $*"; exit 77; }
for c in munged slurmctld slurmd srun sinfo; do
        command -v $c >/dev/null 2>&1 ||
                skip "'$c' is not installed (Debian: apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "starting munged, slurmctld and slurmd needs root"
[ -r /etc/munge/munge.key ] || skip "/etc/munge/munge.key is missing (the munge package makes it)"
tmp=$(mktemp -d /tmp/tpa-slurm.XXXXXX) || exit 99
chmod 755 "$tmp"
stop() {
        pids=
        for p in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
                [ -s "$p" ] && pids="$pids $(cat "$p")"
        done
        [ -n "$pids" ] && kill $pids 2>/dev/null
        for p in $pids; do      # wait for them to go (slurmctld saves its state first)
                i=0
                while [ $i -lt 20 ] && kill -0 "$p" 2>/dev/null; do sleep 0.5; i=$((i + 1)); done
        done
        rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP
host=$(hostname -s)
port=$((20000 + ($$ % 5000) * 2))
munged --force --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
        --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" ||
        skip "munged did not start: $(tail -1 "$tmp/munged.log" 2>/dev/null)"
mkdir "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=tpa
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=tpa Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -1 "$tmp/slurmctld.log")"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start: $(tail -1 "$tmp/slurmd.log")"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
        i=$((i + 1))
        [ $i -gt 30 ] && skip "the node did not come up in 30 s: $(tail -2 "$tmp/slurmctld.log")"
        sleep 1
done
mkdir "$tmp/reports"
# One task per rank; each finds its trace by its rank, SLURM_PROCID.
# --overcommit: four tasks on a node of fewer CPUs.
timeout 120 srun -n 4 --overcommit sh -c '"$0" --format json -o "$1/rank-$SLURM_PROCID.json" \
        "$2/dist_rank$SLURM_PROCID.pt.trace.json.gz"' "$TPA_BIN" "$tmp/reports" "$TPA_TESTDATA" || {
        echo "srun: a rank failed"; tail -5 "$tmp/slurmd.log"; exit 1; }
ls "$tmp/reports"
"$TPA_BIN" aggregate "$tmp"/reports/rank-*.json > "$tmp/from_reports.txt" || exit 1
(cd "$TPA_TESTDATA" && "$TPA_BIN" aggregate dist_rank*.pt.trace.json.gz) \
        > "$tmp/from_traces.txt" || exit 1
# the reports name their traces by the path the task was given
sed "s|$TPA_TESTDATA/||" "$tmp/from_reports.txt" > "$tmp/from_reports_rel.txt"
if cmp -s "$tmp/from_reports_rel.txt" "$tmp/from_traces.txt"; then
        echo "srun: the job view from the reports is the view from the traces"
else
        diff "$tmp/from_traces.txt" "$tmp/from_reports_rel.txt"
        exit 1
fi
grep -E '^(job|straggler):' "$tmp/from_reports.txt"
