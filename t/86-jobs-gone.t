#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/
# 86-jobs-gone.t — a Job deleted (background, kubectl's default) whose
# DELETED change the Job controller never reads still has its pods deleted
# and their tasks ended, as kube's garbage collector deletes the dependents
# of an owner that is gone:
#   1. the controller behind the change log: held (the test build's fault
#      point submission-handed, a plain pod handed to a worker) while the
#      Job is deleted and 300 ConfigMaps are written, more than the log
#      keeps for it (--watch-log 50, 4 times that for the controllers);
#   2. slurmlinkd down: held the same way while the Job is deleted, then
#      killed (kill -9) and started again;
#   3. a PyTorchJob deleted while the controller is behind, as in 1: its
#      Master's pod is deleted and its gang job ends;
#   4. a CronJob deleted while the controller is behind, as in 1: its Job
#      (made by `kubectl create job --from=cronjob/...`, owned by it) is
#      deleted, its pod with it.
# On the code before, the first Job's pod and task ran on, the second's
# task was cancelled while its pod stayed, Failed, for good, and the
# PyTorchJob's pod and job and the CronJob's Job ran on.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 21

W=$(tmpdir)
on_exit "rm -rf '$W'"
on_exit "touch '$W/go1' '$W/go2' '$W/go3' '$W/go4'"
SLURMLINKD_FAULT="submission-handed:1:hold=$W/go1,submission-handed:2:hold=$W/go2" \
  cluster_up --cpus 4 --daemon "$(daemon_with "$W" --watch-log 50)" || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }
job() { sleep_job "$1" 300; } # name: one pod of 1 CPU, sleep 300 (lib.sh)
pod() { # name: a plain pod
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 100m}}}
YAML
}
pod_of() { kc get pods -l job-name="$1" -o name 2>/dev/null | head -1; }
runs() { local p; p=$(pod_of "$1"); [ -n "$p" ] && [ "$(jp "$p" '{.status.phase}')" = Running ]; }
active() { slurm_of "$1" | grep -qE 'PENDING|RUNNING|CONFIGURING'; }

# 1. behind the change log
u1=$(job one)
ok wait_for 90 runs one "Job one's pod runs" || diag "$(kc get pods -o wide 2>&1)"
p1=$(pod_of one)
pod a
held1() { log | grep -q "fault injection: submission-handed #1: held"; }
ok wait_for 60 held1 "the controller is held after handing pod a to a worker"
kc delete job one --wait=false >/dev/null 2>&1
nok kc get job one "Job one deleted meanwhile (background): the API has removed it"
configmaps cm 300
touch "$W/go1"
gone1() { ! kc get "$p1" >/dev/null 2>&1; }
ok wait_for 60 gone1 "released: its pod $p1 is deleted" || diag "$(kc get pods -o wide 2>&1; log | tail -5)"
ended1() { ! active "$u1"; }
ok wait_for 60 ended1 "and its task ended" || diag "$(slurm_of "$u1")"
ok test ! -e "$CL/pods/.job-tasks/$u1" "its task scripts are removed"

# 2. slurmlinkd down
u2=$(job two)
ok wait_for 90 runs two "Job two's pod runs" || diag "$(kc get pods -o wide 2>&1)"
p2=$(pod_of two)
pod b
held2() { log | grep -q "fault injection: submission-handed #2: held"; }
ok wait_for 60 held2 "the controller is held after handing pod b to a worker"
kc delete job two --wait=false >/dev/null 2>&1
old=$(cat "$CL/run/slurmlinkd.pid")
kill -9 "$old"
wait_for 30 _t_unsignalable "$old"
# started again, held for cases 3 and 4 at the first and second pods it
# hands to a worker (pod b's job was submitted meanwhile: adopted, not handed)
ok env SLURMLINKD_FAULT="submission-handed:1:hold=$W/go3,submission-handed:2:hold=$W/go4" \
  "$SLURMLINK" up --dir "$CL" --daemon "$W/slurmlinkd" \
  "Job two deleted, slurmlinkd killed (kill -9) and started again"
gone2() { ! kc get "$p2" >/dev/null 2>&1; }
ok wait_for 60 gone2 "its pod $p2 is deleted" || diag "$(kc get pods -o wide 2>&1; log | tail -5)"
ended2() { ! active "$u2"; }
ok wait_for 60 ended2 "and its task ended" || diag "$(slurm_of "$u2")"

# 3. a PyTorchJob, behind the change log
kc apply -f - >/dev/null <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ptj}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - {name: pytorch, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 1}}}
YAML
u3=$(jp pytorchjob/ptj '{.metadata.uid}')
master_runs() { [ "$(jp pod/ptj-master-0 '{.status.phase}')" = Running ]; }
ok wait_for 90 master_runs "PyTorchJob ptj's Master runs" || diag "$(kc get pods -o wide 2>&1)"
pod c
held3() { [ "$(log | grep -c "fault injection: submission-handed #1: held")" = 2 ]; } # case 1's, then this
ok wait_for 60 held3 "the controller is held after handing pod c to a worker"
kc delete pytorchjob ptj --wait=false >/dev/null 2>&1
nok kc get pytorchjob ptj "PyTorchJob ptj deleted meanwhile: the API has removed it"
configmaps cm3 300
touch "$W/go3"
gone3() { ! kc get pod ptj-master-0 >/dev/null 2>&1; }
ok wait_for 60 gone3 "released: its Master's pod is deleted" || diag "$(kc get pods -o wide 2>&1; log | tail -5)"
ended3() { ! active "$u3"; }
ok wait_for 60 ended3 "and its gang job ended" || diag "$(slurm_of "$u3")"

# 4. a CronJob, behind the change log
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "0 0 1 1 *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 1}}}
YAML
kc create job cjrun --from=cronjob/cj >/dev/null 2>&1
is "$(jp job/cjrun '{.metadata.ownerReferences[0].kind}')" CronJob "Job cjrun, made from CronJob cj, is owned by it"
ok wait_for 90 runs cjrun "Job cjrun's pod runs" || diag "$(kc get pods -o wide 2>&1)"
p4=$(pod_of cjrun)
pod d
held4() { [ "$(log | grep -c "fault injection: submission-handed #2: held")" = 2 ]; } # case 2's, then this
ok wait_for 60 held4 "the controller is held after handing pod d to a worker"
kc delete cronjob cj --wait=false >/dev/null 2>&1
nok kc get cronjob cj "CronJob cj deleted meanwhile: the API has removed it"
configmaps cm4 300
touch "$W/go4"
gone4() { ! kc get job cjrun >/dev/null 2>&1 && ! kc get "$p4" >/dev/null 2>&1; }
ok wait_for 60 gone4 "released: Job cjrun is deleted, its pod $p4 too" || diag "$(kc get jobs,pods 2>&1; log | tail -5)"
kc delete pod a b c d --force --grace-period=0 >/dev/null 2>&1
