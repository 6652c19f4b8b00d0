#!/bin/bash
# covers: src/api/ src/ctl/nodes.c src/slurmif/jobs.c src/slurmif/info.c
# 77-kubectl-nodes.t — kubectl cordon, uncordon and drain against slurmlinkd
# on a real Slurm cluster with two real tenants. For admins: cordon is a
# Slurm drain with a reason naming the user, uncordon a resume, drain a
# cordon and the eviction (a graceful delete) of the node's pods, while an
# HPC job started with sbatch runs on. A drained node shows
# Ready,SchedulingDisabled, spec.unschedulable and the taint
# node.kubernetes.io/unschedulable:NoSchedule. Tenants get kube's 403 and
# Slurm is left alone. Cordon and uncordon run with kubectl 1.32 (the
# dispatcher's default), 1.30 and 1.33.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 58
sec_two_tenants --token || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
SDK=/usr/lib/google-cloud-sdk/bin

ka_v() { local v=$1 bin=kubectl; shift; [ "$v" = default ] || bin=$SDK/kubectl.$v; "$bin" --cache-dir "$CL/cache-admin-$v" "$@"; }
slurm_state() { scontrol show node "$1" 2>/dev/null | grep -o 'State=[^ ]*' | cut -d= -f2; }
slurm_reason() { scontrol show node "$1" 2>/dev/null | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p'; }
drained() { [[ "$(slurm_state "$1")" == *DRAIN* ]]; }
not_drained() { [[ "$(slurm_state "$1")" != *DRAIN* ]]; }
node_status() { ka get node "$1" --no-headers 2>/dev/null | awk '{print $2}'; }
is_status() { [ "$(node_status "$1")" = "$2" ]; }

N=$(ka get nodes -o jsonpath='{.items[0].metadata.name}')
ok test -n "$N" "the cluster has a node ($N)"
ok wait_for 30 is_status "$N" Ready "it is Ready"

for v in default 1.30 1.33; do
  out=$(ka_v $v cordon "$N" 2>&1); rc=$?
  is "$rc: $out" "0: node/$N cordoned" "[$v] admin: kubectl cordon"
  ok drained "$N" "[$v] Slurm drains the node (State=$(slurm_state "$N"))"
  is "$(slurm_reason "$N")" "cordoned by admin via kubectl" "[$v] Slurm's reason names the user and kubectl"
  ok wait_for 30 is_status "$N" Ready,SchedulingDisabled "[$v] get nodes: Ready,SchedulingDisabled"
  out=$(ka_v $v uncordon "$N" 2>&1); rc=$?
  is "$rc: $out" "0: node/$N uncordoned" "[$v] admin: kubectl uncordon"
  ok not_drained "$N" "[$v] Slurm resumes the node (State=$(slurm_state "$N"))"
done
ok wait_for 30 is_status "$N" Ready "uncordoned: Ready again"

# --- what a cordon shows ---------------------------------------------------------------
ka cordon "$N" >/dev/null 2>&1
ok wait_for 30 is_status "$N" Ready,SchedulingDisabled "cordoned again"
is "$(ka get node "$N" -o jsonpath='{.spec.unschedulable} {.spec.taints[*].key}:{.spec.taints[*].effect}')" \
  "true node.kubernetes.io/unschedulable:NoSchedule" "spec.unschedulable and the unschedulable taint"
is "$(ka cordon "$N" 2>&1)" "node/$N already cordoned" "cordon twice: already cordoned"

# --- tenants: 403, Slurm untouched -------------------------------------------------------
out=$(kc alice uncordon "$N" 2>&1); rc=$?
like "$out" "unable to uncordon node \"$N\": nodes \"$N\" is forbidden: User \"alice\" cannot patch resource \"nodes\" in API group \"\" at the cluster scope" \
  "alice: kubectl uncordon is forbidden"
ok drained "$N" "... and the Slurm node stays drained"
ka uncordon "$N" >/dev/null 2>&1
ok wait_for 30 is_status "$N" Ready "admin uncordons"
out=$(kc bob cordon "$N" 2>&1); rc=$?
like "$out" "unable to cordon node \"$N\": nodes \"$N\" is forbidden: User \"bob\" cannot patch resource \"nodes\"" "bob (token): kubectl cordon is forbidden"
ok not_drained "$N" "... and the Slurm node is not drained"
out=$(kc bob drain "$N" --force 2>&1); rc=$?
like "$out" "forbidden: User \"bob\"" "bob: kubectl drain is forbidden"
ok not_drained "$N" "... and the Slurm node is not drained"
is "$(kc alice auth can-i patch nodes 2>/dev/null)" "no" "can-i agrees: alice may not patch nodes"
like "$(ka label node "$N" team=x 2>&1)" "only spec.unschedulable of a node may change" \
  "a node's other fields are Slurm's: a label is refused (422)"

# --- drain: the pods are evicted, an HPC job runs on -------------------------------------
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":5,"containers":[{"name":"main","image":"busybox","command":["sleep","600"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$1"
}
phase() { kc "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
gone() { ! kc "$1" get pod "$2" >/dev/null 2>&1; }
pod pa | kc alice create -f - >/dev/null 2>&1
pod pb | kc bob create -f - >/dev/null 2>&1
ok wait_for 60 is_phase alice pa Running "alice's pod runs on $N"
ok wait_for 60 is_phase bob pb Running "bob's pod runs on $N"
JH=$(cd /tmp && runuser -u "$UB" -- sbatch --parsable -J hpc -o /dev/null --chdir=/tmp --wrap 'sleep 600' 2>&1)
jstate() { squeue -h -j "$1" -o %T 2>/dev/null; }
hpc_runs() { [ "$(jstate "$JH")" = RUNNING ]; }
ok wait_for 30 hpc_runs "an HPC job of $UB made with sbatch runs (job $JH)"
printf '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"pb","namespace":"team-b"}}' >"$CL/ev.json"
like "$(kc alice create --raw /api/v1/namespaces/team-b/pods/pb/eviction -f "$CL/ev.json" 2>&1)" \
  'pods "pb" is forbidden: User "alice" cannot create resource "pods/eviction" in API group "" in the namespace "team-b"' \
  "alice may not evict bob's pod"

out=$(ka drain "$N" --force --timeout=120s 2>&1); rc=$?
like "$rc: $out" "^0: node/$N cordoned" "admin: kubectl drain cordons ..."
like "$out" "evicting pod team-a/pa" "... evicts alice's pod (policy/v1 Eviction)"
like "$out" "node/$N drained" "... and reports the node drained"
ok gone alice pa "alice's pod is gone"
ok gone bob pb "bob's pod is gone"
is "$(jstate "$JH")" RUNNING "the HPC job runs on: Slurm's drain lets it finish"
like "$(slurm_state "$N")" "DRAIN" "Slurm: the node is draining ($(slurm_state "$N"))"
scancel "$JH" 2>/dev/null
unc=$(ka uncordon "$N" 2>&1)

# --- drain --disable-eviction: DELETE with a protobuf DeleteOptions body ------------------
ok wait_for 30 is_status "$N" Ready "uncordoned after the drain"
pod pa2 | kc alice create -f - >/dev/null 2>&1
ok wait_for 60 is_phase alice pa2 Running "alice's second pod runs" ||
  diag "$(kc alice get pod pa2 -o jsonpath='{.status.phase} {.status.conditions}' 2>&1; squeue -o '%i %T %r %N %k' 2>&1; sinfo -N -o '%N %T %E' 2>&1
    echo "uncordon said: $unc"; ka get node "$N" -o jsonpath='unschedulable={.spec.unschedulable}' 2>&1; echo
    grep -E 'node |cordon|Slurm is' "$CL/log/slurmlinkd.log" 2>&1 | tail -20)"
out=$(ka drain "$N" --force --disable-eviction --timeout=120s 2>&1)
like "$out" "node/$N drained" "drain --disable-eviction (client-go's protobuf DeleteOptions) drains the node"
ok gone alice pa2 "... and the pod is gone"
ka uncordon "$N" >/dev/null 2>&1

# --- a cordon or uncordon between the node poll's read of Slurm and its write ----------------
# The controller polls Slurm's nodes and writes them to the store. A snapshot
# read before a cordon must not be written over the cordon's own write: kubectl
# would show the node schedulable and an uncordon would find nothing to do,
# leaving Slurm drained. Three node polls are held after their read (the test
# build's fault point nodes-loaded), each released after a cordon or uncordon.
ok wait_for 30 not_drained "$N" "the node is resumed before the held polls"
restart_with_fault "nodes-loaded:1:hold=$CL/nl1,nodes-loaded:2:hold=$CL/nl2,nodes-loaded:3:hold=$CL/nl3" >/dev/null 2>&1
held() { grep -q "fault injection: nodes-loaded #$1: held" "$CL/log/slurmlinkd.log"; }
unsched() { local v; v=$(ka get node "$N" -o jsonpath='{.spec.unschedulable}' 2>/dev/null); echo "${v:-false}"; }
ok wait_for 60 held 1 "a node poll read Slurm's nodes and is held before it writes them"
is "$(ka cordon "$N" 2>&1)" "node/$N cordoned" "cordon while that poll is held"
touch "$CL/nl1"
ok wait_for 30 held 2 "the held poll wrote its nodes; the next has read Slurm's and is held"
is "$(unsched)" "true" "the node stays cordoned: the poll's read from before the cordon did not undo it"
is "$(ka uncordon "$N" 2>&1)" "node/$N uncordoned" "uncordon: kubectl finds the node cordoned and patches it"
ok not_drained "$N" "... and Slurm resumes it (State=$(slurm_state "$N"))"
touch "$CL/nl2"
ok wait_for 30 held 3 "the second held poll wrote its nodes (read while drained, before the uncordon)"
is "$(unsched)" "false" "the node stays uncordoned: that read did not cordon it again"
touch "$CL/nl3"
ok wait_for 30 is_status "$N" Ready "the polls go on: Ready"
