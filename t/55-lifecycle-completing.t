#!/bin/bash
# covers: src/ctl/ src/shim/ src/api/ src/slurmif/
# A deleted pod's object goes when its job is over, not while Slurm still
# finishes it: a job in COMPLETING (its Epilog running, its processes being
# killed) keeps the pod, Terminating. Kubernetes removes a pod object once
# the kubelet says its containers are gone; for slurmlink that is when the
# job has left COMPLETING.
source "$(dirname "$0")/lib.sh"
plan 12

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
field() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
phase_is() { [ "$(field "$1" '{.status.phase}')" = "$2" ]; }
gone() { ! kc get pod "$1" >/dev/null 2>&1; }
jflags() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*'; }

# an Epilog that takes 6 s: the job stays COMPLETING that long after its end
cat >"$CL/epilog.sh" <<SH
#!/bin/sh
touch "$CL/epilog.\$SLURM_JOB_ID.started"
sleep 6
touch "$CL/epilog.\$SLURM_JOB_ID.done"
SH
chmod 755 "$CL/epilog.sh"
echo "Epilog=$CL/epilog.sh" >>"$CL/etc/slurm.conf"
ok scontrol reconfigure "slurm.conf gets an Epilog of 6 s"

pod() { # name command
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "$2"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
}

# --- graceful delete of a running pod ---------------------------------------------
pod slow "sleep 600"
ok wait_for 90 phase_is slow Running "the pod runs"
J=$(field slow '{.metadata.annotations.slurmlink\.io/job-id}')
ok kc delete pod slow --wait=false "a graceful delete"
ok wait_for 60 test -e "$CL/epilog.$J.started" "its job $J ends and its Epilog starts"
is "$(jflags "$J")/$(field slow '{.metadata.deletionTimestamp}' | grep -c .)" "JobState=COMPLETING/1" \
  "while Slurm finishes the job (COMPLETING), the pod is still there, Terminating"
ok wait_for 60 gone slow "the pod goes in the end"
ok test -e "$CL/epilog.$J.done" "... only after the Epilog finished (the job left COMPLETING)"

# --- a finished pod deleted while its job completes --------------------------------
# its containers are gone: it goes at once, as kube-apiserver deletes a pod
# in a terminal phase without a grace period; Slurm finishes the job alone
pod quick "exit 0"
ok wait_for 60 phase_is quick Succeeded "a short pod succeeds"
Q=$(field quick '{.metadata.annotations.slurmlink\.io/job-id}')
ok wait_for 60 test -e "$CL/epilog.$Q.started" "its job $Q ends and its Epilog starts"
ok kc delete pod quick --wait=false "the finished pod is deleted"
ok gone quick "... and is gone at once (its phase is terminal)"
ok wait_for 60 test -e "$CL/epilog.$Q.done" "Slurm finishes the job's Epilog all the same"
