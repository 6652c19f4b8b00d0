#!/bin/bash
# 69-attack-repeat.t — the attack list repeated by a second, fresh tenant,
# with the variations the other t/6x files do not cover. On a real Slurm
# cluster with two real non-root tenants:
#   - the shim's push is the tenant's own (its token is in her pod folder):
#     a "pod-finished" she pushes for a pod whose Slurm job is still pending
#     is refused, so her quota still counts it; one pushed while the job
#     runs ends the job, so a pod shown finished holds no Slurm job;
#   - her pushes cannot store what the pod's readers cannot decode (a
#     startedAt that is no time broke the admin's Python client for all
#     namespaces), nor a negative restartCount;
#   - a pod deleted with a long grace period still counts in the quota
#     while its job runs (bob, pods=1);
#   - the cluster folder's logs (slurmlinkd's: every tenant's namespaces,
#     pods and refusals; slurmctld's: every job) are not readable by tenants.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 20
sec_two_tenants --token --default || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"

# pod NAME [ANNOTATIONS-JSON]: a manifest on stdout
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":%s},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sleep","300"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$1" "${2:-{\}}"
}
phase() { kc alice get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
job_of() { kc alice get pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_gone() { [ -z "$(job_state "$1")" ]; }
# push NAME EVENT-JSON-TAIL: alice sends her pod's shim an event, as the shim
# would, with the token from her own pod folder; prints the HTTP code
push() {
  local uid
  uid=$(kc alice get pod "$1" -o jsonpath='{.metadata.uid}') || return 1
  su -s /bin/sh "$UA" -c '
    d=$1; tok=$(jq -r .report.token "$d/shim.json"); url=$(jq -r .report.url "$d/shim.json")
    curl -s -o /dev/null -w "%{http_code}" --cacert "$2" -H "Authorization: Bearer $tok" \
      -d "{\"pod_uid\":\"$3\",$4}" "$url"' \
    sh "$CL/pods/team-a/$1-$uid" "$CL/pki/ca.crt" "$uid" "$2"
}

# --- the shim's "pod-finished", pushed by the tenant herself -------------------------------
ka create quota q --hard=pods=1 -n team-a >/dev/null
pod f1 | kc alice create -f - >/dev/null
wait_for 60 test "$(phase f1)" = Running
J1=$(job_of f1)
like "$J1" '^[0-9]+$' "alice's pod f1 runs as Slurm job $J1"
is "$(push f1 '"event":"pod-finished","exitCode":0')" 204 "her push of pod-finished for a running pod is taken"
wait_for 30 test "$(phase f1)" = Succeeded
ok wait_for 60 job_gone "$J1" "the Slurm job of the pod shown finished is ended (squeue: [$(job_state "$J1")])"

# a pending job (it may begin in an hour): its pod cannot have finished, so
# the push is refused and the quota still counts the pod
pod f2 '{"slurm-job.vk.io/flags":"--begin=now+3600"}' | kc alice create -f - >/dev/null
wait_for 30 test -n "$(job_of f2)"
J2=$(job_of f2)
is "$(job_state "$J2")" PENDING "f2's job $J2 is pending (--begin=now+3600)"
is "$(push f2 '"event":"pod-finished","exitCode":0')" 400 "her pod-finished for a pod whose job is pending is refused (400)"
is "$(phase f2)" Pending "f2 stays Pending"
like "$(pod f3 | kc alice create -f - 2>&1)" 'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1' \
  "the quota still counts f2: f3 is refused"
is "$(squeue -h -u "$UA" | wc -l)" 1 "alice holds one Slurm job under pods=1"
scontrol update JobId="$J2" StartTime=now >/dev/null 2>&1
wait_for 60 test "$(phase f2)" = Running
is "$(push f2 '"event":"started","container":"main","restartCount":0')" 204 \
  "her other pushes for a running pod are still taken"

# --- what her pushes put into the status ------------------------------------------------
is "$(push f2 '"event":"started","container":"main","restartCount":-5')" 400 "a negative restartCount is refused (400)"
is "$(kc alice get pod f2 -o jsonpath='{.status.containerStatuses[0].restartCount}')" 0 "f2's restartCount stays 0"
is "$(push f2 '"event":"exited","container":"main","exitCode":1,"reason":""')" 400 "an empty reason is refused (400)"
is "$(push f2 '"event":"started","container":"main","restartCount":0,"time":"not-a-time"')" 400 \
  "a push whose time is not RFC 3339 is refused (400)"
like "$(kc alice get pod f2 -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" \
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "f2's startedAt stays an RFC 3339 time"
like "$(/usr/bin/python3 -c '
import sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
print("listed", len(client.CoreV1Api().list_pod_for_all_namespaces().items))' "$KUBECONFIG" 2>&1 | tail -n 1)" \
  '^listed [0-9]+$' "the admin's Python client lists the pods of all namespaces"

# --- a long grace period on delete --------------------------------------------------------
ka create quota q --hard=pods=1 -n team-b >/dev/null
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g1"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c","trap \\"\\" TERM; while :; do sleep 1; done"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' |
  kc bob create -f - >/dev/null
bphase() { kc bob get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
wait_for 60 test "$(bphase g1)" = Running
kc bob delete pod g1 --grace-period=3600 --wait=false >/dev/null 2>&1
like "$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g2"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sleep","300"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' | kc bob create -f - 2>&1)" \
  'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1' \
  "bob's pod deleted with --grace-period=3600 still counts: g2 is refused"
is "$(squeue -h -u "$UB" | wc -l)" 1 "bob holds one Slurm job under pods=1"

# --- the cluster folder's logs ------------------------------------------------------------
readable() { su -s /bin/sh "$UB" -c 'cat "$1" >/dev/null 2>&1 && echo readable || echo refused' sh "$1"; }
is "$(readable "$CL/log/slurmlinkd.log")" refused "bob cannot read slurmlinkd's log (every tenant's pods and refusals)"
is "$(readable "$CL/log/slurmctld.log")" refused "bob cannot read slurmctld's log (every job, despite PrivateData=jobs)"
is "$(stat -c %a "$CL/log")" 700 "D/log is 0700"
