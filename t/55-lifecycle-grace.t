#!/bin/bash
# covers: src/ctl/ctl.c src/podfs/podfs.c src/shim/pod.c
# 55-lifecycle-grace.t — kubectl delete --grace-period=N shorter than the
# pod's terminationGracePeriodSeconds: the container gets SIGTERM at once
# and SIGKILL at the delete's N seconds, not the pod's own 30 (as the
# kubelet does): slurmlinkd writes the delete's grace period into the pod
# folder and cancels the job; the shim, signalled by the cancel, takes the
# shorter grace period, kills the container at its end and exits. The pod
# is then gone and its Slurm job CANCELLED in accounting. A container that
# traps SIGTERM and keeps running shows it. Real Slurm cluster with
# accounting, unmodified kubectl. Times are printed (diag), not asserted:
# bench/delete-grace.sh measures them.
source "$(dirname "$0")/lib.sh"
plan 17

cluster_up --gpus 0 --cpus 2 --accounting || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
trapper() { cat <<YAML | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'trap "echo TERM-at \\\$(date +%s)" TERM; echo started; while :; do echo "tick \$(date +%s)"; sleep 0.2; done']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
trapper g1
trapper g2
running() { [ -n "$(kc get pod g1 -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" ]; }
ok wait_for 60 running "a pod trapping SIGTERM (its own grace period 30 s) runs"
js=$(kc get pod g1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
uid=$(kc get pod g1 -o jsonpath='{.metadata.uid}')
dir="$CL/pods/default/g1-$uid"
kc logs -f g1 >"$CL/g1.log" 2>&1 &
logs_pid=$!
on_exit "kill $logs_pid 2>/dev/null"
# the shim's own log (the job's output) outlives the pod folder in this copy
tail -n +1 -F "$dir/job.out" >"$CL/shim.log" 2>/dev/null &
tail_pid=$!
on_exit "kill $tail_pid 2>/dev/null"
wait_for 10 grep -q started "$CL/g1.log"
t0=$(now_ms)
ok timeout 120 kubectl --cache-dir "$CL/kcache" delete pod g1 --grace-period=2 "kubectl delete --grace-period=2 returns"
el=$(( $(now_ms) - t0 ))
nok kc get pod g1 "the pod is gone"
wait_for 30 bash -c "! kill -0 $logs_pid"
term_at=$(sed -n 's/^TERM-at //p' "$CL/g1.log" | head -1)
ok test -n "$term_at" "the container got SIGTERM first (its trap logged it)"
like "$(cat "$CL/shim.log")" 'stopping containers \(grace period 2 s\)' "the shim took the delete's grace period (2 s), not the pod's 30"
like "$(cat "$CL/shim.log")" 'container main: grace period over, SIGKILL' "... and the shim killed the container at its end"
unlike "$(cat "$CL/shim.log")" 'grace period 30 s' "the pod's own 30 s were never the shim's"
diag "kubectl delete took ${el} ms; the container's TERM at ${term_at:-?} s (its clock); the shim:"
diag "$(grep -E "grace period|SIGKILL|exit" "$CL/shim.log")"
ended() { [[ "$(sacct -n -X -P -j "$js" -o State 2>/dev/null)" =~ ^(COMPLETED|FAILED|CANCELLED) ]]; }
ok wait_for 60 ended "its Slurm job $js ends in accounting"
like "$(sacct -n -X -P -j "$js" -o State 2>/dev/null)" '^CANCELLED' "its Slurm job $js is CANCELLED in accounting (not FAILED by a signal)"

# --- a second delete shortens the first's grace period ------------------------------------
running2() { [ -n "$(kc get pod g2 -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" ]; }
ok wait_for 60 running2 "a second such pod, g2, runs"
js2=$(kc get pod g2 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
uid2=$(kc get pod g2 -o jsonpath='{.metadata.uid}')
tail -n +1 -F "$CL/pods/default/g2-$uid2/job.out" >"$CL/shim2.log" 2>/dev/null &
tail2=$!
on_exit "kill $tail2 2>/dev/null"
kc delete pod g2 --wait=false >/dev/null 2>&1
shim_waits() { grep -q 'stopping containers (grace period 30 s)' "$CL/shim2.log"; }
ok wait_for 30 shim_waits "kubectl delete g2 (its own 30 s): the shim stops its containers with 30 s"
kc delete pod g2 --grace-period=4 --wait=false >/dev/null 2>&1
# the shorter delete cancels the job: Slurm says CANCELLED at once, but the
# job's processes still run (it is completing); the pod stays Running with
# its container running until the shim says how the container ended, as
# the kubelet shows a pod in its grace period
sleep 1
is "$(kc get pod g2 -o jsonpath='{.status.phase}')" Running "a second delete, --grace-period=4: in that grace period the pod is still Running"
like "$(kc get pod g2 -o jsonpath='{.status.containerStatuses[0].state}')" '"running"' "... and its container still running (not terminated at the cancel)"
ok kc wait --for=delete pod/g2 --timeout=100s "... then the pod is gone"
like "$(cat "$CL/shim2.log")" 'grace period now 4 s' "the shim took the second delete's 4 s"
diag "$(grep -E "grace period|SIGKILL|exit" "$CL/shim2.log")"
ended2() { [[ "$(sacct -n -X -P -j "$js2" -o State 2>/dev/null)" =~ ^(COMPLETED|FAILED|CANCELLED) ]]; }
ok wait_for 60 ended2 "g2's Slurm job $js2 ends in accounting"
like "$(sacct -n -X -P -j "$js2" -o State 2>/dev/null)" '^CANCELLED' "g2's Slurm job is CANCELLED in accounting"
