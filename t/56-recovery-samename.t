#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# A pod deleted and created again under the same name is another pod: every
# write of the controller carries the uid of the pod it is for (as kube's
# preconditions.uid), so the new pod never shows the old pod's job id, phase
# or exit code. Deterministically: the test build's fault point after-submit
# holds the controller between the old pod's submission and the write of its
# job id, while the pod is force-deleted and created again.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 16

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
field() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
jstate() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
jcomment() { scontrol show job "$1" 2>/dev/null | grep -o 'Comment=[^ ]*' | cut -d= -f2-; }
is_state() { [ "$(jstate "$1")" = "$2" ]; }
jobs_of() { squeue -h -t all -o '%i %k' | awk -v c="slurmlink:uid=$1" '$2 == c {print $1}'; }
has_job() { [ -n "$(jobs_of "$1")" ]; }
dead() { ! kill -0 "$1" 2>/dev/null; }
alive() { [ "$(kc get --raw /healthz 2>/dev/null)" = ok ]; }
new_pod_done() { [ "$(field "$1" '{.metadata.uid}/{.status.phase}')" = "$2/Succeeded" ]; }
pod() { # name command: its uid
  kc create -o jsonpath='{.metadata.uid}' -f - <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "$2"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
}
watch() { # pod: uid, job id, phase and exit code of each stored change, one a line
  kc get pods --field-selector "metadata.name=$1" -w -o jsonpath='{.metadata.uid} job={.metadata.annotations.slurmlink\.io/job-id} {.status.phase} exit={.status.containerStatuses[0].state.terminated.exitCode}{"\n"}' \
    >"$CL/watch.$1" 2>/dev/null &
  WATCHES="$WATCHES $!"
  on_exit "kill $!"
  wait_for 20 test -s "$CL/watch.$1"
}
WATCHES=""

# --- the controller held between the old pod's submission and its write -------
d=$(cat "$CL/run/slurmlinkd.pid")
kill -9 "$d"
wait_for 30 dead "$d"
ok env SLURMLINKD_FAULT="after-submit:1:hold=$CL/go" "$SLURMLINK" up --dir "$CL" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=after-submit:1:hold"
wait_for 30 alive
U1=$(pod same "echo old; sleep 600; exit 7")
ok wait_for 60 has_job "$U1" "the first pod 'same' (uid $U1) has its Slurm job"
J1=$(jobs_of "$U1")
ok wait_for 30 grep -q "fault injection: after-submit #1: held" "$CL/log/slurmlinkd.log" \
  "the controller is held before it writes job $J1 onto the pod"
ok kc delete pod same --grace-period=0 --force "the pod is force-deleted"
U2=$(pod same "echo new; exit 0")
like "$U2" "^[0-9a-f-]{36}$" "and created again at once (uid $U2)"
watch same
touch "$CL/go"
ok wait_for 90 new_pod_done same "$U2" "the new pod runs and succeeds"
J2=$(field same '{.metadata.annotations.slurmlink\.io/job-id}')
isnt() { [ "$1" != "$2" ]; }
ok isnt "$J2" "$J1" "the new pod's job ($J2) is not the old pod's ($J1)"
is "$(jcomment "$J2")" "slurmlink:uid=$U2" "its job's comment carries the new pod's uid"
ok wait_for 60 is_state "$J1" CANCELLED "the old pod's job is cancelled (its pod is gone)"
like "$(grep "job $J1 submitted" "$CL/log/slurmlinkd.log")" "not recorded.*the pod's deletion cancels it" \
  "the controller did not write it onto the new pod, and said why"
is "$(kc logs same 2>/dev/null)" "new" "the new pod's log is its own"

# --- the old job's end arrives while the new pod runs ------------------------------
R1=$(pod race "echo old; exit 7")
ok wait_for 60 has_job "$R1" "a pod 'race' has its job"
RJ1=$(jobs_of "$R1")
wait_for 60 eval '[ -n "$(field race '\''{.status.containerStatuses[0].state.terminated.exitCode}'\'')" ]'
kc delete pod race --grace-period=0 --force >/dev/null 2>&1
R2=$(pod race "sleep 1; echo new; exit 0")
watch race
ok wait_for 90 new_pod_done race "$R2" "'race' force-deleted and created again: the new pod succeeds"
kill $WATCHES 2>/dev/null
is "$(awk -v u="$U2" '$1 == u' "$CL/watch.same" | grep -c -e "job=$J1 " -e "exit=7")" 0 \
  "'same': the new pod never showed the old job's id or exit code"
is "$(awk -v u="$R2" '$1 == u' "$CL/watch.race" | grep -c -e "job=$RJ1 " -e "exit=7")" 0 \
  "'race': the new pod never showed the old job's id or exit code"
is "$(grep -c -v -e "^$U2 " "$CL/watch.same")/$(grep -c -v -e "^$R2 " "$CL/watch.race")" "0/0" \
  "the watches saw the new pods only"
