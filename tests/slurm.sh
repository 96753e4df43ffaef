#!/bin/sh
# slurm.sh - the doctor across nodes the way HPC sites run it: a real
# single-node Slurm (Debian's munge, slurmctld, slurmd) started by this test
# as root with private state (a munge key, socket, pid and log files, a
# slurm.conf, spool and state directories, free ports, all under one
# temporary directory), the doctor run through `srun` writing one report per
# node named by $SLURMD_NODENAME (the README's recipe), `fleet` over the
# directory, then every daemon stopped by its pid (trap). SKIPs with the
# reason when it is not root or a daemon is missing or cannot start.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
NAME=slurm
. tests/lib.sh
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/slurm"
rm -rf "$D" && mkdir -p "$D"
RVD_ABS=$(cd "$(dirname "$RVD")" && pwd)/$(basename "$RVD")

skip() {
    echo "SKIP slurm: $*"
    echo "$pass passed, $fail failed"
    exit 0
}

[ "$(id -u)" = 0 ] || skip "not root (slurmd and a private munged need root)"
for b in munged slurmctld slurmd srun sinfo; do
    command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
    command -v "$b" >/dev/null 2>&1 ||
        skip "$b not found (Debian packages munge, slurmctld, slurmd, slurm-client)"
done

# a private directory: munged insists that its key, socket and log
# directories are not writable by others
T=$(mktemp -d /tmp/rvd-slurm.XXXXXX) || skip "mktemp failed"
chmod 711 "$T" # the socket needs execute permission for all on its path
pids=""
cleanup() {
    for p in $pids; do
        kill "$p" 2>/dev/null
    done
    for p in $pids; do
        # bounded: a daemon that ignores SIGTERM gets SIGKILL after 5 s
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -9 "$p" 2>/dev/null
    done
    pids=""
    rm -rf "$T"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

# ---- munge -------------------------------------------------------------------
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/reports"
chmod 711 "$T/munge"
head -c 1024 /dev/urandom >"$T/munge/munge.key"
chmod 400 "$T/munge/munge.key"
SOCK="$T/munge/munge.socket"
munged -F --socket="$SOCK" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" >"$D/munged.out" 2>&1 &
pids="$pids $!"
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
if [ ! -S "$SOCK" ]; then
    cat "$D/munged.out" "$T/munge/munged.log" 2>/dev/null | tail -5 | sed 's/^/    /'
    skip "munged did not start (its log above)"
fi

# ---- slurm.conf for this one node --------------------------------------------
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
HOST=$(hostname -s)
CONF="$T/slurm.conf"
cat >"$CONF" <<EOF
ClusterName=rvdtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/linear
SchedulerType=sched/builtin
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=rvd Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
SLURM_CONF=$CONF
export SLURM_CONF
slurmctld -D -f "$CONF" >"$D/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$CONF" >"$D/slurmd.out" 2>&1 &
pids="$pids $!"

# the node idle, bounded (30 s)
state=""
i=0
while [ $i -lt 300 ]; do
    state=$(sinfo -h -n "$HOST" -o '%t' 2>/dev/null | head -1)
    [ "$state" = "idle" ] && break
    sleep 0.1
    i=$((i + 1))
done
if [ "$state" != "idle" ]; then
    for l in "$D/slurmctld.out" "$T/log/slurmctld.log" "$D/slurmd.out" "$T/log/slurmd.log"; do
        [ -s "$l" ] && tail -3 "$l" | sed "s|^|    $(basename "$l"): |"
    done
    skip "the Slurm node did not become idle in 30 s (state '${state:-none}'; logs above)"
fi
ok

# ---- the README's recipe: one report per node, then fleet ------------------------
# (srun expands %N only in its own --output/--error names, so the report's
# name comes from $SLURMD_NODENAME in the task's environment)
timeout 120 srun -N1 --ntasks-per-node=1 -t 2 sh -c \
    "'$RVD_ABS' --json '$T/reports/'\"\$SLURMD_NODENAME\".json >/dev/null; [ \$? -le 1 ]" \
    >"$D/srun.out" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok; else
    bad "srun: exit $rc"
    sed 's/^/    /' "$D/srun.out" | tail -5
fi
if [ -s "$T/reports/$HOST.json" ]; then ok; else bad "no report $HOST.json written through srun"; fi
# the task ran under slurmd: its report says so in the environment it saw
expect "report host" "$T/reports/$HOST.json" "f['host.hostname'] == '$(hostname)'"
"$RVD" fleet --no-color "$T/reports" --json "$D/fleet.json" >"$D/fleet.out" 2>"$D/fleet.err"
rc=$?
want=$(python3 -c "import json; print(json.load(open('$T/reports/$HOST.json'))['summary']['exit_code'])")
if [ "$rc" = "$want" ]; then ok; else bad "fleet over the srun reports: exit $rc, want $want"; fi
if grep -Eq "^$(hostname) +(ok|FAIL [0-9]+) " "$D/fleet.out"; then ok; else
    bad "fleet has no row for $(hostname)"
    sed 's/^/    /' "$D/fleet.out" | head -5
fi
python3 - "$D/fleet.json" "$(hostname)" <<'PY' && ok || bad "fleet JSON: not one node named $(hostname)"
import json, sys
d = json.load(open(sys.argv[1]))
assert [n["name"] for n in d["nodes"]] == [sys.argv[2]]
PY

cleanup
trap - EXIT INT TERM HUP
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
