#!/bin/bash
# covers: src/ctl/killer.c src/ctl/owner.c src/ctl/submit.c src/ctl/ctl.c
# A pod removed from the store has its Slurm job cancelled even when
# slurmctld does not answer at the moment the controller acts on it: the
# cancellation is tried again until slurmctld answers, and only then is the
# pod's folder removed. slurmctld is stopped (SIGSTOP) across the deletion,
# so the ownership check times out; continued, it answers the next try.
# Three ways a pod leaves: a force-deletion of a running pod (read from the
# change log); a force-deletion while its job was being submitted (the
# test build's fault point after-submit holds the submission); and one the
# controller never read before a crash, found by the start-up sweep of the
# pod folders (the fault point sweep-listing holds the sweep while
# slurmctld is stopped). On the code
# before, each cancellation was tried once: both jobs ran on (sleep 600),
# and the first pod's folder went before its job was cancelled. The second
# pod's folder went at its deletion, while its job, submitted meanwhile,
# could still start: that job failed to launch (no stdout file) instead of
# being cancelled. The sweep removed the third pod's folder although it
# could not list the jobs, and its job ran on.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 18

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
field() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
jstate() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
is_state() { [ "$(jstate "$1")" = "$2" ]; }
jobs_of() { squeue -h -t all -o '%i %k' | awk -v c="slurmlink:uid=$1" '$2 == c {print $1}'; }
has_job() { [ -n "$(jobs_of "$1")" ]; }
folder() { echo "$CL/pods/default/$1-$2"; }
no_folder() { [ ! -e "$1" ]; }
alive() { [ "$(kc get --raw /healthz 2>/dev/null)" = ok ]; }
logged() { grep -q -e "$1" "$CL/log/slurmlinkd.log"; }
pod() { # name: its uid
  kc create -o jsonpath='{.metadata.uid}' -f - <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "sleep 600"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
}
ctld=$(cat "$CL/run/slurmctld.pid")
stopped=""
ctld_stop() { kill -STOP "$ctld" && stopped=1; }
ctld_cont() { kill -CONT "$ctld"; stopped=""; }
on_exit '[ -z "$stopped" ] || kill -CONT '"$ctld"
runs() { [ "$(field "$1" '{.status.phase}')" = Running ]; }
# slurmctld continued: job $1 is cancelled ($3 says by what), then the
# pod's folder $2 is removed
cancelled_then_removed() {
  ctld_cont
  ok wait_for 90 is_state "$1" CANCELLED "slurmctld continued: $3 job $1" ||
    diag "$(jstate "$1"; grep -e sweep -e "$1" "$CL/log/slurmlinkd.log" | tail -5)"
  ok wait_for 60 no_folder "$2" "then the pod's folder is removed"
}

# --- a running pod force-deleted while slurmctld does not answer -------------
U1=$(pod run)
ok wait_for 90 runs run "pod 'run' (uid $U1) runs"
J1=$(jobs_of "$U1")
F1=$(folder run "$U1")
ctld_stop
kc delete pod run --grace-period=0 --force >/dev/null 2>&1
ok wait_for 90 logged "cannot check Slurm job $J1" \
  "slurmctld stopped: the controller could not check job $J1 of the deleted pod"
ok test -d "$F1" "the pod's folder stays while its job is not cancelled"
cancelled_then_removed "$J1" "$F1" "the killer cancels"

# --- a pod force-deleted while its job is submitted ----------------------------
ok restart_with_fault "after-submit:1:hold=$CL/go" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=after-submit:1:hold"
wait_for 30 alive
U2=$(pod held)
wait_for 60 has_job "$U2"
J2=$(jobs_of "$U2")
ok wait_for 30 logged "fault injection: after-submit #1: held" \
  "the controller is held after job $J2 of pod 'held' was submitted"
kc delete pod held --grace-period=0 --force >/dev/null 2>&1
wait_for 30 eval '! kc get pod held >/dev/null 2>&1'
sleep 3 # the controller reads the deletion (on the code before, its folder went then)
ok test -d "$(folder held "$U2")" \
  "deleted while its submission is held: its folder stays (the job may start: it needs it)"
ctld_stop
touch "$CL/go"
ok wait_for 90 logged "cannot check Slurm job $J2" \
  "slurmctld stopped: the controller could not check job $J2 of the pod deleted meanwhile"
cancelled_then_removed "$J2" "$(folder held "$U2")" "the worker's result cancels"

# --- a pod deleted unread before a crash: the start-up sweep ---------------------
pod crash >/dev/null
ok wait_for 90 runs crash "pod 'crash' runs"
U3=$(field crash '{.metadata.uid}')
J3=$(jobs_of "$U3")
F3=$(folder crash "$U3")
# the restarted controller is held at its first poll (crash's job found
# running), so it never reads crash's deletion; killed, and restarted again
restart_with_fault "job-started:1:hold=$CL/h3" >/dev/null
wait_for 60 logged "fault injection: job-started #1: held"
kc delete pod crash --grace-period=0 --force >/dev/null 2>&1
ok restart_with_fault "sweep-listing:1:hold=$CL/go3" \
  "pod 'crash' force-deleted unread; slurmlinkd killed and restarted, its sweep held"
ok wait_for 60 logged "fault injection: sweep-listing #1: held" "the start-up sweep is held"
ctld_stop
touch "$CL/go3"
ok wait_for 90 logged "slurmctld did not answer for the rest" \
  "slurmctld stopped: the sweep could not list the jobs of the folders left"
ok test -d "$F3" "crash's folder stays (its job $J3 may still run)"
cancelled_then_removed "$J3" "$F3" "the sweep, again, cancels"
