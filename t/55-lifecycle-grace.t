#!/bin/bash
# covers: src/ctl/ctl.c src/ctl/owner.c src/slurmif/slurm.c src/shim/pod.c
# 55-lifecycle-grace.t — kubectl delete --grace-period=N shorter than the
# pod's terminationGracePeriodSeconds: the container gets SIGTERM, and is
# killed once the delete's N seconds are over, not the pod's own 30 (as the
# kubelet does with a delete's grace period); the pod is then gone and its
# Slurm job CANCELLED. A container that ignores SIGTERM shows it. Real
# Slurm cluster, unmodified kubectl.
source "$(dirname "$0")/lib.sh"
plan 7

cluster_up --gpus 0 --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
cat <<'YAML' | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: g1}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'trap "echo TERM-at \$(date +%s)" TERM; echo started; while :; do echo "tick $(date +%s)"; sleep 0.2; done']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
running() { [ -n "$(kc get pod g1 -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" ]; }
ok wait_for 60 running "a pod ignoring SIGTERM (its own grace period 30 s) runs"
js=$(kc get pod g1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
kc logs -f g1 >"$CL/g1.log" 2>&1 &
logs_pid=$!
wait_for 10 grep -q started "$CL/g1.log"
(for i in $(seq 1 40); do echo "$(now_ms) $(squeue -h -t all -j $js -o '%T %r' 2>&1) $(kc get pod g1 --no-headers 2>&1 | head -1)"; sleep 0.5; done > "$CL/states.log") &
states=$!
on_exit "kill $states 2>/dev/null"
t0=$(now_ms)
ok timeout 120 kubectl --cache-dir "$CL/kcache" delete pod g1 --grace-period=2 "kubectl delete --grace-period=2 returns"
el=$(( $(now_ms) - t0 ))
nok kc get pod g1 "the pod is gone"
wait_for 30 bash -c "! kill -0 $logs_pid"
term_at=$(sed -n 's/^TERM-at //p' "$CL/g1.log" | head -1)
last_tick=$(sed -n 's/^tick //p' "$CL/g1.log" | tail -1)
ok test -n "$term_at" "the container got SIGTERM first (its trap logged it)"
# the delete's 2 s, not the pod's 30: the container's last tick is within a
# few seconds of its SIGTERM (a lower bound on the pod's own grace, not a speed)
ok test "$(( ${last_tick:-0} - ${term_at:-0} ))" -le 3 "it was killed after the delete's grace period, not its own 30 s (TERM at ${term_at:-?}, last tick ${last_tick:-?}, delete took ${el} ms)"
ok test "$el" -lt 10000 "kubectl delete returned without waiting out Slurm's KillWait (10 s) after the kill (${el} ms)"
job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
ended() { [[ "$(job_state "$js")" =~ ^(COMPLETED|FAILED|CANCELLED)$ ]]; }
wait_for 30 ended
is "$(job_state "$js")" CANCELLED "its Slurm job $js is CANCELLED"
diag "t0=$t0 $(cat "$CL/states.log")"
done_testing
