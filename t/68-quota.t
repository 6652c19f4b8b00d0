#!/bin/bash
# covers: src/api/ src/ctl/
# 68-quota.t — per-tenant limits through Kubernetes' own mechanism,
# ResourceQuota, on a real Slurm cluster with two real non-root tenants:
#   - alice (certificate) under pods=2 creates 3 pods: the third is refused
#     with kube-apiserver's exact 403 text, while bob's pods and a plain
#     sbatch job still go through; deleting one of hers frees the slot;
#   - requests.cpu and requests.nvidia.com/gpu quotas, "must specify";
#   - kubectl create/get/describe quota, status.used kept by the server;
#   - tenants read their quotas but cannot write them;
#   - the policy's defaultQuota becomes a "default" quota in bob's namespace;
#   - 10 concurrent creates against pods=3: exactly 3 succeed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

sec_users || { echo "1..1"; echo "not ok 1 - Unix users for the test"; exit 1; }
plan 30
sec_cluster --token --gpus 2 --cpus 4 <<EOF || bail "slurmlink up, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  default: {account: default}
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}, defaultQuota: {pods: "5", requests.nvidia.com/gpu: "2"}}
  team-c: {write: {users: [alice]}}
  team-g: {write: {users: [alice]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
for n in team-a team-b team-c team-g; do ka create namespace $n >/dev/null; done

# pod NAME [RESOURCES-JSON]: a manifest on stdout
DEFRES='{"requests":{"cpu":"100m","memory":"32Mi"}}'
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sleep","300"],"resources":%s}]}}' \
    "$1" "${2:-$DEFRES}"
}

# --- alice under pods=2 ----------------------------------------------------------------------
is "$(ka create quota q --hard=pods=2 -n team-a 2>&1)" "resourcequota/q created" \
  "kubectl create quota (the admin)"
is "$(printf '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"typo"},"spec":{"hardd":{"pods":"1"}}}' | ka create -n team-a -f - 2>&1)" \
  'Error from server (BadRequest): error when creating "STDIN": ResourceQuota in version "v1" cannot be handled as a ResourceQuota: strict decoding error: unknown field "spec.hardd"' \
  "strict decoding: an unknown field of a quota is refused"
is "$(printf '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"neg"},"spec":{"hard":{"pods":"-1","count/pods":"1500m"}}}' | ka create -n team-a -f - 2>&1)" \
  'The ResourceQuota "neg" is invalid: 
* spec.hard[count/pods]: Invalid value: "1500m": must be an integer
* spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0' \
  "a negative or fractional count: 422 naming the field"
# object counts other than pods are not counted by slurmlinkd: a quota
# naming them would be stored and never enforced, so it is refused
like "$(ka create quota objs --hard=count/configmaps=1,secrets=2 -n team-a 2>&1)" \
  'ResourceQuota "objs" is invalid: .*spec.hard\[count/configmaps\]: Forbidden: not supported: slurmlink enforces quotas on pods.*spec.hard\[secrets\]: Forbidden: not supported' \
  "a quota on ConfigMaps or Secrets is refused (422), not stored unenforced"
like "$(kc alice create quota mine --hard=pods=1000 -n team-a 2>&1)" \
  'resourcequotas is forbidden: User "alice" cannot create resource "resourcequotas" in API group "" in the namespace "team-a"' \
  "a tenant cannot create a quota"
like "$(kc alice delete quota q -n team-a 2>&1)" 'resourcequotas "q" is forbidden: User "alice" cannot delete' \
  "... nor delete one"
like "$(kc alice get quota -n team-a 2>&1)" '^NAME +AGE +REQUEST +LIMIT' "... but reads her namespace's (kubectl get quota)"
pod p1 | kc alice create -f - >/dev/null 2>&1
pod p2 | kc alice create -f - >/dev/null 2>&1
is "$(kc alice get pods -o name | sort | tr '\n' ' ')" "pod/p1 pod/p2 " "alice creates two pods"
is "$(pod p3 | kc alice create -f - 2>&1)" \
  'Error from server (Forbidden): error when creating "STDIN": pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2' \
  "the third is refused with kube-apiserver's exact text"
is "$(kc alice get pods -o name | wc -l)" 2 "... and nothing was stored"
pod pb1 | kc bob create -f - >/dev/null 2>&1
is "$(kc bob get pods -o name 2>&1)" "pod/pb1" "bob's pod still goes through"
like "$(sbatch -o /dev/null --wrap 'sleep 1' 2>&1)" '^Submitted batch job [0-9]+$' "a plain sbatch job still goes through"
used2() { ka get quota q -n team-a -o jsonpath='{.status.used.pods}/{.status.hard.pods}' | grep -qx 2/2; }
ok wait_for 20 used2 "status.used and status.hard are kept by the server (2/2)"
like "$(kc alice get quota q 2>&1 | tail -1)" '^q +[0-9a-z]+ +pods: 2/2 *$' "kubectl get quota: pods: 2/2"
like "$(ka describe quota q -n team-a 2>&1)" 'pods +2 +2' "kubectl describe quota: used 2, hard 2"
kc alice get quota --field-selector metadata.name=q -w -o jsonpath='{.status.used.pods}{"\n"}' >"$CL/watch.out" 2>&1 &
WATCH=$!
on_exit "kill $WATCH 2>/dev/null"
seen() { grep -qx 2 "$CL/watch.out"; }
wait_for 20 seen
kc alice delete pod p1 --timeout=60s >/dev/null 2>&1 # a pod being deleted counts until it is gone (or its grace has passed)
used1() { ka get quota q -n team-a -o jsonpath='{.status.used.pods}' | grep -qx 1; }
wait_for 20 used1 # (the watch below must see the 1 before p3 makes it 2 again)
is "$(pod p3 | kc alice create -f - 2>&1)" "pod/p3 created" "deleting a pod frees its slot"
used_back() { ka get quota q -n team-a -o jsonpath='{.status.used.pods}' | grep -qx 2; }
ok wait_for 20 used_back "status.used follows deletes and creates"
watched() { [ "$(tr '\n' ' ' <"$CL/watch.out")" = "2 1 2 " ]; }
ok wait_for 20 watched "kubectl get quota -w: alice watches used go 2, 1, 2" ||
  diag "watched: $(tr '\n' ' ' <"$CL/watch.out")"
kill $WATCH 2>/dev/null

# --- cpu and gpu ---------------------------------------------------------------------------
ka create quota g --hard=requests.cpu=1,requests.nvidia.com/gpu=1 -n team-g >/dev/null
is "$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"nocpu"},"spec":{"containers":[{"name":"main","image":"busybox","command":["sleep","300"]}]}}' | kc alice create -n team-g -f - 2>&1)" \
  'Error from server (Forbidden): error when creating "STDIN": pods "nocpu" is forbidden: failed quota: g: must specify requests.cpu for: main' \
  "a pod without a cpu request under a requests.cpu quota is refused"
is "$(pod c1 '{"requests":{"cpu":"600m"}}' | kc alice create -n team-g -f - 2>&1)" "pod/c1 created" "600m of 1 cpu"
is "$(pod c2 '{"requests":{"cpu":"600m"}}' | kc alice create -n team-g -f - 2>&1)" \
  'Error from server (Forbidden): error when creating "STDIN": pods "c2" is forbidden: exceeded quota: g, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1' \
  "another 600m exceeds requests.cpu=1"
is "$(pod g1 '{"requests":{"cpu":"200m"},"limits":{"nvidia.com/gpu":"1"}}' | kc alice create -n team-g -f - 2>&1)" "pod/g1 created" "one GPU of 1"
is "$(pod g2 '{"requests":{"cpu":"100m"},"limits":{"nvidia.com/gpu":"1"}}' | kc alice create -n team-g -f - 2>&1)" \
  'Error from server (Forbidden): error when creating "STDIN": pods "g2" is forbidden: exceeded quota: g, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1' \
  "a second GPU exceeds requests.nvidia.com/gpu=1"
gpu_used() { ka get quota g -n team-g -o jsonpath='{.status.used.requests\.cpu} {.status.used.requests\.nvidia\.com/gpu}' | grep -qx '800m 1'; }
ok wait_for 20 gpu_used "status.used: requests.cpu=800m, requests.nvidia.com/gpu=1"

# --- the policy's default quota --------------------------------------------------------------
is "$(kc bob get quota -o jsonpath='{.items[*].metadata.name} {.items[0].spec.hard}' 2>&1)" \
  'default {"pods":"5","requests.nvidia.com/gpu":"2"}' "the policy's defaultQuota is a quota named default in team-b"
used_b() { kc bob get quota default 2>/dev/null | tail -1 | grep -Eq '^default +[0-9a-z]+ +pods: 1/5, requests.nvidia.com/gpu: 0/2 *$'; }
ok wait_for 20 used_b "kubectl get quota: pods: 1/5, requests.nvidia.com/gpu: 0/2"
is "$(pod gb '{"requests":{"cpu":"100m"},"limits":{"nvidia.com/gpu":"3"}}' | kc bob create -f - 2>&1)" \
  'Error from server (Forbidden): error when creating "STDIN": pods "gb" is forbidden: exceeded quota: default, requested: requests.nvidia.com/gpu=3, used: requests.nvidia.com/gpu=0, limited: requests.nvidia.com/gpu=2' \
  "bob is held to the default quota"

# --- concurrent creates never overshoot ------------------------------------------------------
ka create quota c --hard=pods=3 -n team-c >/dev/null
for i in $(seq 1 10); do
  (pod "r$i" | kc alice create -n team-c -f - >"$CL/race.$i" 2>&1) &
done
wait
is "$(cat "$CL"/race.* | grep -c ' created$')" 3 "10 concurrent creates against pods=3: exactly 3 succeed"
is "$(cat "$CL"/race.* | grep -c 'exceeded quota: c, requested: pods=1, used: pods=3, limited: pods=3')" 7 \
  "... the 7 others are refused with used: pods=3"
is "$(kc alice get pods -n team-c -o name | wc -l)" 3 "... and 3 pods exist"
