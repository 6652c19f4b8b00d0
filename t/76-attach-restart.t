#!/bin/bash
# covers: src/shim/attach.c src/api/http/exec.c
# 76-attach-restart.t — kubectl attach ends when the container it is
# attached to exits, as kubelet's attach does, also when the pod restarts
# the container (restartPolicy Always / OnFailure): the session shows that
# run's output, not the next run's, and kubectl attach returns; a new
# attach follows the new run. Real Slurm cluster, unmodified kubectl.
source "$(dirname "$0")/lib.sh"
plan 10

cluster_up --gpus 0 --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
GO=/tmp/slx-attachr-$$
on_exit "rm -f $GO-*"
pod() { # name policy: each run prints its number, waits for $GO-name-<run>, then exits 1
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/tmp: node}} # the test touches its go-files in the node's /tmp
spec:
  restartPolicy: $2
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'echo x >>/runs/count; n=\$(wc -l </runs/count); echo "run \$n started"; while [ ! -e $GO-$1-\$n ]; do sleep 0.1; done; echo "run \$n ends"; exit 1']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
    volumeMounts: [{name: runs, mountPath: /runs}]
  volumes: [{name: runs, emptyDir: {}}]
YAML
}
running() { [ -n "$(kc get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" ]; }
restarts() { kc get pod "$1" -o jsonpath='{.status.containerStatuses[0].restartCount}'; }
restarted() { [ "$(restarts "$1")" -ge "$2" ] 2>/dev/null && running "$1"; }
attached() { ps -eo args | grep -q "[s]lurmlink-shim attach --pod-dir=.*/$1-"; }

for policy in Always OnFailure; do
  n=r-$(echo $policy | tr A-Z a-z)
  pod $n $policy | kc apply -f - >/dev/null
  ok wait_for 60 running $n "[$policy] the container runs" || diag "$(kc get pod $n -o yaml | tail -40)"
  kc attach $n >"$CL/$n.out" 2>/dev/null &
  p=$!
  wait_for 30 attached $n; sleep 0.5
  touch "$GO-$n-1"
  ok wait_for 60 proc_gone "$p" "[$policy] kubectl attach returns when the container exits"
  kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
  is "$(cat "$CL/$n.out")" "run 1 ends" "[$policy] ... having shown that run's output only"
  ok wait_for 90 restarted $n 1 "[$policy] the container is restarted (restartCount $(restarts $n))"
  out=$( (wait_for 30 attached $n; sleep 0.5; touch "$GO-$n-2") & timeout 90 kubectl --cache-dir "$CL/kcache" attach $n 2>/dev/null)
  is "$out" "run 2 ends" "[$policy] a new attach follows the new run, and ends with it"
done
done_testing
