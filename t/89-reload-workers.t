#!/bin/bash
# covers: src/daemon/main.c src/config/
# slurm.submit_workers: the submission pool's size read from the
# configuration file at start and applied at SIGHUP (docs/configuration.md):
# the pool's threads (named sl-submit) counted in /proc, grown and shrunk
# while pods are submitted; every pod submitted once; a value out of range
# keeps the pool as it is. state.group_commit, also reloaded, logged; pods
# created after it are stored and run.
source "$(dirname "$0")/lib.sh"
plan 15

TS=$(tmpdir)
on_exit "rm -rf '$TS'"
cluster_up --no-slurmlinkd --cpus 4 || bail "up --no-slurmlinkd"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
cp "$CL/etc/slurmlinkd.conf" "$TS/base.conf"
conf() { sed "s/^slurm:\$/slurm:\n  submit_workers: $1/" "$TS/base.conf" >"$CL/etc/slurmlinkd.conf"; }
confg() { sed "s/^slurm:\$/slurm:\n  submit_workers: 1/; s/^state:\$/state:\n  group_commit: $1/" "$TS/base.conf" >"$CL/etc/slurmlinkd.conf"; }
conf 2
LOG=$TS/daemon.log
SLURMLINK_DIR=$CL "$SLURMLINKD" --config "$CL/etc/slurmlinkd.conf" >"$LOG" 2>&1 &
pid=$!
on_exit "kill $pid 2>/dev/null"
workers() { grep -lx sl-submit /proc/$pid/task/*/comm 2>/dev/null | wc -l; }
pods() { # prefix count: pods that sleep a moment and succeed
  for i in $(seq 1 "$2"); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s%d}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 0\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, "sleep 1"], resources: {requests: {cpu: 100m, memory: 32Mi}}}\n' "$1" "$i"
  done | kc apply -f - >/dev/null
}
succeeded() { # count
  [ "$(kc get pods -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c '^Succeeded$')" = "$1" ]
}

ok wait_for 120 kc get --raw /healthz "slurmlinkd answers" || diag "$(tail -5 "$LOG")"
ok grep -q '2 submission workers' "$LOG" "the log names 2 submission workers (slurm.submit_workers: 2)"
is "$(workers)" 2 "two sl-submit threads"
pods a 4
ok wait_for 240 succeeded 4 "four pods submitted by them ran and succeeded" || diag "$(kc get pods --no-headers)"

conf 5
kill -HUP $pid
ok wait_for 60 grep -q 'submission workers: 2 -> 5' "$LOG" "SIGHUP with 5: the pool grows" ||
  diag "$(grep SIGHUP "$LOG")"
ok grep -q 'SIGHUP: slurm.submit_workers: 2 -> 5' "$LOG" "the change is logged as a reloaded key"
is "$(workers)" 5 "five sl-submit threads"

pods b 8
conf 1
kill -HUP $pid
ok wait_for 60 grep -q 'submission workers: 5 -> 1' "$LOG" \
  "SIGHUP with 1 while 8 pods are submitted: the pool shrinks" || diag "$(grep SIGHUP "$LOG")"
is "$(workers)" 1 "one sl-submit thread once the reload is done"
ok wait_for 240 succeeded 12 "all 12 pods ran and succeeded" || diag "$(kc get pods --no-headers)"
ids=$(kc get pods -o jsonpath='{range .items[*]}{.metadata.annotations.slurmlink\.io/job-id}{"\n"}{end}' | sort -u | grep -c .)
is "$ids" 12 "each pod has its own Slurm job (none submitted twice)"

conf 0
kill -HUP $pid
wait_for 60 grep -q 'submit_workers: must be 1..64, not 0: keeping the configuration in use' "$LOG"
is "$(workers)|$(grep -c 'submission workers: .* -> ' "$LOG")" "1|2" \
  "slurm.submit_workers: 0 is refused at SIGHUP and the pool stays as it is" ||
  diag "$(grep SIGHUP "$LOG")"

confg 1
kill -HUP $pid
ok wait_for 60 grep -q 'SIGHUP: state.group_commit: 64 -> 1' "$LOG" "state.group_commit: 64 -> 1 at SIGHUP, logged" ||
  diag "$(grep SIGHUP "$LOG")"
confg 0
kill -HUP $pid
ok wait_for 60 grep -q 'group_commit: must be 1..1024, not 0: keeping the configuration in use' "$LOG" \
  "state.group_commit: 0 is refused at SIGHUP" || diag "$(grep SIGHUP "$LOG")"
pods c 3
ok wait_for 240 succeeded 15 "three pods created after it ran and succeeded" || diag "$(kc get pods --no-headers)"
