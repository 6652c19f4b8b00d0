#!/bin/bash
# covers: src/daemon/main.c src/config/
# slurmlinkd checks slurm.conf with libslurm before it listens: a missing or
# broken file stops the start with one line naming the file and the reason,
# a non-zero exit, nothing created and no request ever answered; a valid one
# starts as before.
source "$(dirname "$0")/lib.sh"
plan 14

D=$(tmpdir)
on_exit "rm -rf '$D'"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start CONF STATE: runs slurmlinkd until it exits (at most 120 s, then it is
# killed), probing its port all along. Sets RC, OUT (its output), ANSWERED.
start() {
  local port pid end
  port=$(free_port)
  "$SLURMLINKD" --port "$port" --state-dir "$2" --slurm-conf "$1" >"$D/out" 2>&1 &
  pid=$!
  ANSWERED=0
  end=$((SECONDS + 120))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
    curl -s -m 1 -o /dev/null "http://127.0.0.1:$port/healthz" && ANSWERED=1
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
  wait "$pid"
  RC=$?
  OUT=$(cat "$D/out")
}

# --- no such file ----------------------------------------------------------------
start "$D/missing.conf" "$D/state1"
ok test "$RC" -ne 0 "a missing slurm.conf: slurmlinkd exits non-zero (got $RC)"
like "$OUT" "slurmlinkd: --slurm-conf: $D/missing.conf: cannot read: No such file or directory" "one line names the option, the file and the reason"
is "$(printf '%s\n' "$OUT" | wc -l)" 1 "and nothing else is printed (no libslurm retries, no fatal)"
is "$ANSWERED" 0 "its port never answered a request"
ok test ! -e "$D/state1" "no state was created"

# --- a syntax error ----------------------------------------------------------------
printf 'ClusterName=x\nSlurmctldHost=localhost\nthis is = = not slurm.conf\n' >"$D/bad.conf"
start "$D/bad.conf" "$D/state2"
ok test "$RC" -ne 0 "a broken slurm.conf: slurmlinkd exits non-zero (got $RC)"
like "$OUT" "slurm.conf $D/bad.conf: Parse error in file $D/bad.conf line 3" "one line names the file, the line and the reason"
is "$(printf '%s\n' "$OUT" | wc -l)" 1 "and nothing else is printed"
is "$ANSWERED" 0 "its port never answered a request"
ok test ! -e "$D/state2" "no state was created"

# --- a valid one (no slurmctld needed to start): the probe above does see a port ----
cat >"$D/good.conf" <<CONF
ClusterName=startup
SlurmctldHost=localhost
SlurmctldPort=1
NodeName=node1 CPUs=1 State=UNKNOWN
PartitionName=p Nodes=node1 Default=YES
CONF
port=$(free_port)
"$SLURMLINKD" --port "$port" --state-dir "$D/state3" --slurm-conf "$D/good.conf" >"$D/out3" 2>&1 &
pid=$!
ok wait_for 60 healthy "with a valid slurm.conf the API answers"
# libslurm read the file once: broken now, it is not read again; the
# controller's RPCs (slurmctld does not answer here) go on and the daemon lives
printf 'this is = = not slurm.conf\n' >"$D/good.conf"
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
  "http://127.0.0.1:$port/api/v1/namespaces/default/pods" \
  -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}'
waits() { curl -s -m 2 "http://127.0.0.1:$port/api/v1/namespaces/default/pods/p" | grep -q 'waiting for the Slurm controller'; }
ok wait_for 60 waits "slurm.conf broken while it runs: the controller goes on (a new pod waits for slurmctld)"
ok healthy "and the API still answers"
kill -TERM "$pid"
wait "$pid"
is "$?" 0 "and slurmlinkd stops cleanly on SIGTERM"
