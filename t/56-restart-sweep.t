#!/bin/bash
# covers: src/ctl/sweep.c src/ctl/
# 56-restart-sweep.t — what a crash between a pod's removal from the store
# and the controller's follow-up leaves, put right when slurmlinkd starts:
#   1. killed right after the controller removed a deleted pod whose job was
#      over (the fault point pod-deleted): its folder was never removed (the
#      remover's queue is in memory);
#   2. a pod force-deleted (the API removes it at once) while the controller
#      was held, then kill -9 before it read the deletion: its job ran on
#      and its folder stayed;
#   3. the same for a Job's pod: its array task ran on, the Job made no
#      other pod, and it never completed.
# At start the controller compares the pod folders with the stored pods: a
# folder whose pod is no longer stored has the job that carries its uid
# cancelled (a Job's pod: its array task, found through the task's link in
# PODS/.job-tasks) and is removed. On the code before, the three folders
# stayed for good and the jobs of 2 and 3 ran on. A stored pod's folder
# stays, and so does the folder of a stored namespace; an empty one of a
# namespace no longer stored goes.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 23

W=$(tmpdir)
on_exit "rm -rf '$W'"
on_exit "touch '$W/go'"
SLURMLINKD_FAULT="pod-deleted:1" cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
pod() { # name command...: a grace period of 1 s
  local n=$1
  shift
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $n}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: [$(printf '"%s",' "$@" | sed 's/,$//')]
    resources: {requests: {cpu: 1, memory: 32Mi}}
YAML
}
running() { [ "$(jp "pod/$1" '{.status.phase}')" = Running ]; }
uid_of() { jp "pod/$1" '{.metadata.uid}'; }
job_of() { jp "pod/$1" '{.metadata.annotations.slurmlink\.io/job-id}'; }
folder() { echo "$CL/pods/default/$1-$2"; }
job_active() { squeue -h -j "$1" -o %T 2>/dev/null | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING'; }
job_ended() { ! job_active "$1"; }
no_folder() { [ ! -e "$1" ]; }

# --- 1. killed after removing a deleted pod from the store --------------------------------
pod a sleep 300
pod keep sh -c 'echo kept; sleep 300'
sleep_job j 20 >/dev/null # (lib.sh)
jpod() { kc get pods -l job-name=j -o jsonpath='{.items[*].metadata.name}' 2>/dev/null; }
jrunning() { local p; p=$(jpod); [ -n "$p" ] && running "$p"; }
ok wait_for 90 running a "pod a runs" || diag "$(kc get pods -o wide 2>&1)"
ok wait_for 90 running keep "pod keep runs" || diag "$(kc get pods -o wide 2>&1)"
ok wait_for 90 jrunning "Job j's pod runs" || diag "$(kc get pods -o wide 2>&1)"
ua=$(uid_of a) ukeep=$(uid_of keep) jp1=$(jpod)
uj1=$(uid_of "$jp1") uj=$(jp job/j '{.metadata.uid}')
armed=$(daemon_pid)
kc delete pod a --wait=false >/dev/null 2>&1
ok wait_for 60 dead "$armed" "slurmlinkd is killed once it removed pod a from the store" ||
  diag "$(tail -5 "$CL/log/slurmlinkd.log")"
gone_a() { ! kc get pod a >/dev/null 2>&1; }
ok test -d "$(folder a "$ua")" "pod a's folder is still there"

# --- 2. force-deleted while the controller was held, then kill -9 -------------------------
# the restart's first poll finds keep's job running and reads its folder's
# files: the controller is held there, the API answers
restart_with_fault "job-started:1:hold=$W/go" >/dev/null
held() { grep -q "fault injection: job-started #1: held" "$CL/log/slurmlinkd.log"; }
ok wait_for 60 held "the restarted controller is held at its first poll"
pod b sleep 300 # stored; its job is not submitted while the controller is held
ub=$(uid_of b)
kc delete pod keep "$jp1" --grace-period=0 --force >/dev/null 2>&1
nok kc get pod keep "the force delete removed pods keep and $jp1 at once"
jkeep=$(squeue -h -o '%i %k' | awk -v u="slurmlink:uid=$ukeep" 'index($0, u) {print $1}')
[ -n "$jkeep" ] || jkeep=none
jtask=$(squeue -h -o '%i %k' | awk -v u="slurmlink:uid=$uj" 'index($0, u) {print $1}')
[ -n "$jtask" ] || jtask=none
restart_with_fault "" >/dev/null
ok gone_a "(after the restarts) pod a is gone from the store"

ok wait_for 60 job_ended "$jkeep" "pod keep's job $jkeep, which ran on, is cancelled after the restart" ||
  diag "$(squeue -o '%i %T %k' 2>&1; grep -iE 'folder|keep' "$CL/log/slurmlinkd.log" | tail -5)"
ok wait_for 60 no_folder "$(folder keep "$ukeep")" "and its folder removed" ||
  diag "$(ls -la "$(folder keep "$ukeep")" 2>&1 | head -8; grep -iE "keep|no longer stored|remov" "$CL/log/slurmlinkd.log" | tail -8)"
ok wait_for 60 no_folder "$(folder a "$ua")" "pod a's folder is removed" ||
  diag "$(grep -iE 'folder' "$CL/log/slurmlinkd.log" | tail -5)"
ok wait_for 60 job_ended "$jtask" "the Job's pod's array task $jtask is cancelled" ||
  diag "$(squeue -o '%i %T %k' 2>&1)"
ok wait_for 60 no_folder "$(folder "$jp1" "$uj1")" "and that pod's folder removed"
ok kc wait --for=condition=complete job/j --timeout=120s "Job j completes, with another pod" ||
  diag "$(kc get pods -o wide 2>&1; grep -E ' j|job' "$CL/log/slurmlinkd.log" | tail -8)"
like "$(cat "$CL/log/slurmlinkd.log")" "3 pod folders whose pods are no longer stored" \
  "the log counts the folders of pods no longer stored"

# the stored pod created while the controller was held: submitted, running, its folder kept
ok wait_for 90 running b "pod b (stored before the kill) runs after the restart" ||
  diag "$(kc get pods -o wide 2>&1)"
ok test -d "$(folder b "$ub")" "its folder is there"

# --- 4. the empty folder of a namespace no longer stored --------------------------------
kc create namespace gone >/dev/null
kc -n gone run p --image=busybox --restart=Never -- true >/dev/null
done_p() { [ "$(kc -n gone get pod p -o jsonpath='{.status.phase}' 2>&1)" = Succeeded ]; }
ok wait_for 60 done_p "a pod in namespace gone succeeds"
kc delete namespace gone --timeout=60s >/dev/null 2>&1
is "$(ls -A "$CL/pods/gone" 2>&1)" "" "namespace gone deleted: its pods' folder is empty, and stays"
restart_with_fault "" >/dev/null
restarted() { grep -q "empty folder of namespaces no longer stored" "$CL/log/slurmlinkd.log"; }
ok wait_for 30 restarted "slurmlinkd restarted once more logs an emptied namespace folder"
nok test -e "$CL/pods/gone" "namespace gone's folder is removed"
ok test -d "$CL/pods/default" "default's (a stored namespace) stays"
nok kc -n gone run q --image=busybox --restart=Never -- true "no pod can be made in namespace gone"
