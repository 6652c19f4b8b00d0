#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-exec-limits.t — the exec session's limits (exec.idle_timeout,
# exec.max_duration, given to slurmlinkd on its command line through a
# wrapper named by `up --daemon`): a silent session ends when idle, a busy
# one at its total limit; kubectl says which, and the command is ended.
source "$(dirname "$0")/lib.sh"
plan 6

W=$(tmpdir)
on_exit "rm -rf '$W'"
cluster_up --gpus 0 --cpus 2 --daemon "$(daemon_with "$W" --exec-idle-timeout 3 --exec-max-duration 8)" || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: lim}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sleep, "600"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
running() { [ "$(kc get pod lim -o jsonpath='{.status.phase}')" = Running ]; }
ok wait_for 60 running "the pod runs"

kc exec lim -- sleep 301 >"$W/idle.out" 2>&1 &
p=$!
ok wait_for 60 proc_gone "$p" "a session without a byte either way ends (exec.idle_timeout 3 s)"
like "$(cat "$W/idle.out")" "exec session ended: idle for too long \(exec.idle_timeout\)" "kubectl says why"
ok wait_for 30 sh -c "! ps -eo args | grep -q '[s]leep 301'" "... and the command is ended"

kc exec lim -- sh -c 'while true; do echo tick; sleep 1; done' >"$W/max.out" 2>&1 &
p=$!
ok wait_for 60 proc_gone "$p" "a busy session ends at exec.max_duration (8 s)"
like "$(cat "$W/max.out")" "tick.*exec session ended: it reached its time limit \(exec.max_duration\)" "kubectl shows its output, then why it ended"
