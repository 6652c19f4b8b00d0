#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-behind.t — the pod controller and the change log under a burst
# of writes while it is busy (a burst of creations and a namespace's
# deletion wrote more changes than the default 10,000 the log keeps).
#   0. the log keeps what the controller has not read yet, up to 4 times
#      its bound (watch.log): more changes than the bound while it is held
#      do not send it back to a full re-read;
# past that it falls behind, reads every stored pod again, and what was
# deleted in the gap still goes:
#   1. a pod force-deleted meanwhile (its DELETED change trimmed before the
#      controller read it): its running job is killed and its folder
#      removed, as when the change is read;
#   2. a pod the controller itself removed from the store once its job was
#      over (a graceful deletion), the DELETED change of that removal
#      trimmed before it read it: its folder is removed all the same.
# On the code before, 0 fell behind, and in 1 and 2 both folders stayed for
# good and 1's job ran on.
# Deterministically: a change log of 50 changes (--watch-log 50), the test
# build's fault points hold the controller (submission-handed: it has
# handed a third and a fourth pod to a worker; pod-deleted: it has removed
# a deleted pod from the store), and ConfigMaps written meanwhile: 120 (over
# the bound, under 4 times it) or 300 (past it).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 17

W=$(tmpdir)
on_exit "rm -rf '$W'"
on_exit "touch '$W/go0' '$W/go1' '$W/go2'"
SLURMLINKD_FAULT="submission-handed:3:hold=$W/go0,submission-handed:4:hold=$W/go1,pod-deleted:1:hold=$W/go2" \
  cluster_up --cpus 4 --daemon "$(daemon_with "$W" --watch-log 50)" || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }
pod() { # name: sleeps 300 s, a grace period of 1 s
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: [sleep, "300"]
    resources: {requests: {cpu: 1, memory: 32Mi}}
YAML
}
running() { [ "$(jp "pod/$1" '{.status.phase}')" = Running ]; }
job_of() { jp "pod/$1" '{.metadata.annotations.slurmlink\.io/job-id}'; }
jstate() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_active() { jstate "$1" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING'; }
behind() { [ "$(log | grep -c 'the pod controller fell behind the change log')" -ge "$1" ]; }

pod a
pod b
ok wait_for 90 running a "pod a runs" || diag "$(kc get pods -o wide 2>&1)"
ok wait_for 90 running b "pod b runs" || diag "$(kc get pods -o wide 2>&1)"
ja=$(job_of a) jb=$(job_of b)
da=$CL/pods/default/a-$(jp pod/a '{.metadata.uid}')
db=$CL/pods/default/b-$(jp pod/b '{.metadata.uid}')
ok test -d "$da" -a -d "$db" "their folders are there"

# 0. held after handing pod c to a worker; 120 changes meanwhile
pod c
held0() { log | grep -q "fault injection: submission-handed #3: held"; }
ok wait_for 60 held0 "the controller is held after handing pod c to a worker"
configmaps zero 120
touch "$W/go0"
ok wait_for 90 running c "released: pod c runs" || diag "$(kc get pods -o wide 2>&1)"
is "$(log | grep -c 'the pod controller fell behind the change log')" 0 \
  "120 changes while held, over the bound of 50: the controller did not fall behind"

# 1. held after handing pod d to a worker; pod a force-deleted meanwhile
pod d
held1() { log | grep -q "fault injection: submission-handed #4: held"; }
ok wait_for 60 held1 "the controller is held after handing pod d to a worker"
kc delete pod a --force --grace-period=0 >/dev/null 2>&1
nok kc get pod a "pod a force-deleted meanwhile: the API has removed it"
configmaps one 300
touch "$W/go1"
ok wait_for 60 behind 1 "released: the controller fell behind the change log and says so" ||
  diag "$(log | tail -5)"
killed_a() { ! job_active "$ja"; }
ok wait_for 60 killed_a "pod a's job $ja is killed" || diag "$(squeue -h -o '%i %T %k')"
ok wait_for 30 test ! -e "$da" "pod a's folder is removed"
ok wait_for 90 running d "pod d, handed before, runs" || diag "$(kc get pods -o wide 2>&1)"

# 2. pod b deleted gracefully: the controller removes it once its job is
# over, and is held right after; its DELETED change is pushed out meanwhile
kc delete pod b --wait=false >/dev/null 2>&1
held2() { log | grep -q "fault injection: pod-deleted #1: held"; }
ok wait_for 60 held2 "pod b's job over: the controller removed pod b and is held" ||
  diag "$(squeue -h -o '%i %T %k'; log | tail -5)"
nok kc get pod b "pod b is gone from the API"
configmaps two 300
touch "$W/go2"
ok wait_for 60 behind 2 "released: it fell behind the change log again" || diag "$(log | tail -5)"
ok wait_for 30 test ! -e "$db" "pod b's folder is removed" || diag "$(ls -la "$CL/pods/default")"
nok job_active "$jb" "pod b's job $jb is over"
kc delete pod c d --force --grace-period=0 >/dev/null 2>&1
