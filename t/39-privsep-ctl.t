#!/bin/bash
# covers: src/ctl/ src/slurmif/ src/api/quota.c
# 39-privsep-ctl.t — the controllers' pods go through the same admission
# as a tenant's own, and a controller takes only Slurm jobs slurmlinkd
# submitted for it, on a real cluster with two real tenants:
#   - bob's Job of completions 20 / parallelism 20 under a ResourceQuota
#     pods=2: never more than 2 unfinished pods nor 2 running Slurm tasks
#     of its array, FailedCreate events "exceeded quota", and it completes;
#   - alice's PyTorchJob asking a GPU under a GPU quota of 0: no pod, no
#     Slurm job, a FailedCreate event naming the quota;
#   - alice's held sbatch array carrying bob's Job's comment is not
#     adopted by bob's Job: bob's Job runs its own array and completes;
#   - alice's held sbatch job carrying the uid of bob's pod (waiting for
#     its image) is not taken as that pod's job;
#   - a tenant cannot list the Jobs' task index under the pods root (the
#     Jobs' uids), nor the pods root (namespaces).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

sec_users || { echo "1..1"; echo "not ok 1 - Unix users for the test"; exit 1; }
plan 15
sec_cluster --token --gpus 1 --cpus 4 <<EOF || bail "slurmlink up, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
ka create namespace team-a >/dev/null
ka create namespace team-b >/dev/null
as_user() { local u=$1; shift; (cd /tmp && runuser -u "$u" -- "$@"); }
PODS=$CL/pods

# job NAME COMPLETIONS PARALLELISM [suspend]: a Job manifest
job() {
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  completions: $2
  parallelism: $3
  suspend: ${4:-false}
  template:
    metadata: {annotations: {slurmlink.io/runtime: host}}
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: [sh, -c, 'sleep 1']}
YAML
}

# --- a Job under pods=2 ------------------------------------------------------------------------
is "$(ka create quota q --hard=pods=2 -n team-b 2>&1)" "resourcequota/q created" "quota pods=2 in bob's namespace"
job many 20 20 | kc bob apply -n team-b -f - >/dev/null
# unfinished pods of the Job, and its running array tasks, sampled until it ends
maxp=0 maxr=0
sample() {
  local p r
  p=$(kc bob get pods -n team-b -l job-name=many -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' 2>/dev/null | grep -cv '^Succeeded$\|^Failed$\|^$')
  r=$(squeue -h -t R,CG,CF -n team-b/many -r -o %i 2>/dev/null | wc -l)
  [ "$p" -gt "$maxp" ] && maxp=$p
  [ "$r" -gt "$maxr" ] && maxr=$r
  [ "$(kc bob get job many -n team-b -o jsonpath='{.status.succeeded}' 2>/dev/null)" = 20 ]
}
end=$((SECONDS + 400))
until sample || [ $SECONDS -ge $end ]; do sleep 0.3; done
diag "at most $maxp unfinished pods, $maxr running tasks at once"
ok test "$maxp" -le 2 "never more than 2 unfinished pods of the Job under pods=2 (at most $maxp)"
ok test "$maxr" -le 2 "never more than 2 running Slurm tasks of its array (at most $maxr)"
is "$(kc bob get job many -n team-b -o jsonpath='{.status.succeeded}' 2>&1)" 20 "... and the Job still completes its 20"
fc=$(ka get events -n team-b --field-selector reason=FailedCreate -o jsonpath='{range .items[*]}{.involvedObject.kind}/{.involvedObject.name}: {.message}{"\n"}{end}' 2>&1)
diag "$(printf '%s\n' "$fc" | head -2)"
like "$fc" 'Job/many: Error creating: pods "many-[a-z0-9]*" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2' \
  "a refused creation is a FailedCreate event on the Job, with the quota's text"

# --- a PyTorchJob asking a GPU under a GPU quota of 0 ------------------------------------------
ka create quota g --hard=requests.nvidia.com/gpu=0 -n team-a >/dev/null
kc alice apply -n team-a -f - >/dev/null <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: gpu}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
          - name: pytorch
            image: busybox
            command: [sh, -c, 'echo ran']
            resources: {limits: {nvidia.com/gpu: "1"}}
YAML
ptj_event() { ka get events -n team-a --field-selector reason=FailedCreate,involvedObject.name=gpu -o jsonpath='{.items[*].message}' 2>/dev/null | grep -q .; }
wait_for 60 ptj_event
like "$(ka get events -n team-a --field-selector involvedObject.name=gpu -o jsonpath='{.items[*].message}' 2>&1)" \
  'exceeded quota: g, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=0, limited: requests.nvidia.com/gpu=0' \
  "the PyTorchJob's pods are refused by the GPU quota (a FailedCreate event says why)"
is "$(squeue -h -t all -n team-a/gpu -o %i | wc -l) $(kc alice get pods -n team-a -o name | wc -l)" "0 0" \
  "... and it has no Slurm job and no pod"

# --- alice's forged array is not adopted by bob's Job ------------------------------------------
job mine 2 2 true | kc bob apply -n team-b -f - >/dev/null
juid=$(ka get job mine -n team-b -o jsonpath='{.metadata.uid}')
forged=$(as_user "$UA" sbatch --parsable --hold --array=0-1 -o /dev/null -J team-b/mine \
  --comment="slurmlink:uid=$juid slurmlink:submission=1.0" --wrap 'sleep 300')
ok test -n "$forged" "alice submits a held array carrying bob's Job's comment ($forged)"
kc bob patch job mine -n team-b --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
ok kc bob wait --for=condition=complete job/mine -n team-b --timeout=120s "bob's Job runs its own array and completes"
is "$(ka get job mine -n team-b -o jsonpath='{.metadata.annotations.slurmlink\.io/slurm-arrays}' | tr ',' '\n' | grep -cx "$forged")" 0 \
  "alice's array is not among bob's Job's arrays"
is "$(squeue -h -j "$forged" -r -o %T 2>/dev/null | sort -u | tr '\n' ' ')" "PENDING " "alice's array was left alone (still held)"
scancel "$forged" 2>/dev/null

# --- alice's job is not taken as bob's pod's ------------------------------------------------------
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: waits}\nspec:\n  restartPolicy: Never\n  containers:\n  - {name: c, image: "127.0.0.1:1/none:1", command: ["true"]}\n' |
  kc bob create -n team-b -f - >"$CL/waits.out" 2>&1
puid=$(ka get pod waits -n team-b -o jsonpath='{.metadata.uid}')
[ -n "$puid" ] || diag "create: $(cat "$CL/waits.out"); quota: $(ka get quota q -n team-b -o jsonpath='{.status.used}' 2>&1)" \
  "$(ka get pods -n team-b -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} del={.metadata.deletionTimestamp} {.metadata.ownerReferences[0].name}{"\n"}{end}' 2>&1)"
pforged=$(as_user "$UA" sbatch --parsable --hold -o /dev/null --comment="slurmlink:uid=$puid" --wrap 'sleep 300')
left_alone() { grep -q "Slurm job $pforged carries its uid but runs as uid $UIDA, not its user's: left alone" "$CL/log/slurmlinkd.log"; }
ok wait_for 30 left_alone "alice's held job carrying the uid of bob's pod (waiting for its image) is left alone"
is "$(kc bob get pod waits -n team-b -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>&1)" "" \
  "... and not recorded as the pod's job"
scancel "$pforged" 2>/dev/null

# --- the pods root's indexes --------------------------------------------------------------------
job listed 1 1 | kc bob apply -n team-b -f - >/dev/null
kc bob wait --for=condition=complete job/listed -n team-b --timeout=120s >/dev/null 2>&1
ok test -d "$PODS/.job-tasks" "the Jobs' task index exists under the pods root"
is "$(as_user "$UA" ls "$PODS/.job-tasks" 2>&1 | sed 's/.*: //'; as_user "$UA" ls "$PODS" 2>&1 | sed 's/.*: //')" \
  $'Permission denied\nPermission denied' "a tenant can list neither the Jobs' task index nor the pods root"
