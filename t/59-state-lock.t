#!/bin/bash
# covers: src/store/ src/daemon/main.c
# 59-state-lock.t — one slurmlinkd per state folder. A second slurmlinkd
# started on a state folder in use (the same configuration file, another
# port: a second unit, a hand-started copy) refuses to start and names the
# folder and the daemon that holds it, rather than running a second set of
# controllers on the same store, which submitted every new pod twice and
# wrote its pod folder from two processes at once. The lock goes with its
# process: after a kill -9 the next daemon starts.
source "$(dirname "$0")/lib.sh"
plan 7

TS=$(tmpdir)
on_exit "rm -rf '$TS'"
cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
first=$(cat "$CL/run/slurmlinkd.pid")

SLURMLINK_DIR=$CL "$SLURMLINKD" --config "$CL/etc/slurmlinkd.conf" --port 0 >"$TS/second.log" 2>&1 &
second=$!
on_exit "kill $second 2>/dev/null"
ended() { ! kill -0 "$second" 2>/dev/null; }
ok wait_for 30 ended "a second slurmlinkd on the same state folder exits" ||
  diag "$(tail -3 "$TS/second.log")"
rc=running
if ended; then
  wait "$second"
  rc=$?
fi
ok test "$rc" != running -a "$rc" != 0 "with a failure status (rc $rc)"
msg=$(grep -m1 "in use" "$TS/second.log")
like "$msg" "state folder $CL/slurmlinkd is in use by another slurmlinkd \\(pid $first\\)" \
  "its log names the state folder and the daemon that holds it" || diag "$(tail -3 "$TS/second.log")"

kc run once --image busybox --image-pull-policy Never --restart Never -- sleep 1 >/dev/null
done_() { [ "$(kc get pod once -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 120 done_ "a pod created meanwhile runs and succeeds" || diag "$(kc get pod once -o wide)"
after_job_polls 2 # the controller's next passes: a second submission would come in one
n=$(squeue -h -t all -o %j | grep -cx "default/once")
is "$n" 1 "it was submitted once (Slurm jobs named default/once: $n)" ||
  diag "$(squeue -h -t all -o '%i %j %T')"

kill -9 "$first"
wait_for 30 _t_unsignalable "$first"
SLURMLINK_DIR=$CL "$SLURMLINKD" --config "$CL/etc/slurmlinkd.conf" >"$TS/third.log" 2>&1 &
third=$!
on_exit "kill $third 2>/dev/null"
ok wait_for 60 kc get --raw /healthz "after a kill -9 of the first, the next one starts and answers" ||
  diag "$(tail -3 "$TS/third.log")"
ok kill -0 "$third" "and keeps running"
