#!/bin/bash
# covers: src/common/memtrim.c src/daemon/ src/api/ src/store/
# The pod controller reads the stored pods one at a time when it starts (and
# when it has fallen behind the change log: the same code), not as one
# parsed list of them all: slurmlinkd restarted on a store of 5,000 pods
# with its controllers (a slurm.conf whose slurmctld is not running: the
# controller starts, reads every pod, and waits for Slurm) peaks under
# 16 MiB above its start on an empty store (10 MiB here: its table of
# the pods and the heap around it). Parsing all 5,000 at once: 37 MiB.
# The plain build: ASan's quarantine keeps freed memory resident by design.
source "$(dirname "$0")/lib.sh"
plan 5

PLAIN=$ROOT/build/slurmlinkd
[ -x "$PLAIN" ] || bail "no plain build at $PLAIN (make all)"
D=$(tmpdir)
on_exit "rm -rf '$D'"
# a cluster that is down: libslurm reads it, nothing answers on its port
port=$(free_ports 2)
cat >"$D/slurm.conf" <<EOF
ClusterName=startup
SlurmctldHost=localhost
SlurmctldPort=$((port + 1))
NodeName=n1 CPUs=1 State=UNKNOWN
PartitionName=p Nodes=n1 Default=YES
EOF
start() { # log, state folder, then flags: the daemon's pid in $pid once it answers
  local log=$1 state=$2
  shift 2
  "$PLAIN" --port "$port" --state-dir "$D/$state" "$@" >"$D/$log" 2>&1 &
  pid=$!
  on_exit "kill $pid 2>/dev/null"
  wait_for 60 healthy
}
stop() { kill "$pid" && wait "$pid" 2>/dev/null; }
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$pid/status"; }

ok start fill.log state --no-controllers --max-per-ip 1000 "slurmlinkd without controllers answers"
/usr/bin/python3 - "$port" >"$D/fill.out" 2>&1 <<'PY'
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for i in range(5000):
    c.request("POST", "/api/v1/namespaces/default/pods", json.dumps({"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": f"p{i:05d}", "labels": {"app": "startup"}},
              "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"]}]}}),
              {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    assert r.status == 201, r.status
print("filled")
PY
is "$(cat "$D/fill.out")" filled "5,000 pods stored"
stop

# with its controllers: on an empty store (what libslurm, the threads and
# the controller cost in any case), then on the 5,000 pods; each settled
read_all() { grep -q "Slurm is unreachable: load jobs" "$D/$1"; }
start empty.log empty --slurm-conf "$D/slurm.conf"
wait_for 60 read_all empty.log
sleep 2
empty=$(hwm)
stop
ok start ctl.log state --slurm-conf "$D/slurm.conf" "restarted with its controllers on the 5,000 pods, it answers"
ok wait_for 60 read_all ctl.log "the controller has read the pods and asks Slurm (unreachable here)"
sleep 2
with=$(hwm)
stop
rise=$(((with - empty) / 1024))
ok test "$rise" -lt 16 "its start on 5,000 pods peaks ${rise} MiB above its start on none (under 16)" ||
  diag "VmHWM on an empty store ${empty} kB, on 5,000 pods ${with} kB"
