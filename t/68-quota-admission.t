#!/bin/bash
# covers: src/api/ src/ctl/
# 68-quota-admission.t — a pod's admission against a ResourceQuota does not
# count the namespace's pods: it reads the usage the quota's status records
# (which every admission raises in its transaction and the janitor's recount
# lowers), so a create costs the same with 10 or 10,000 pods in the
# namespace. It used to count every pod of the namespace, under the store's
# write lock, for every create there: 76 creates/s into an empty namespace,
# 7/s at 4,000 pods (docs/benchmarks.md). A count remains for a quota whose
# status does not record a resource of its spec.hard (new, or edited since),
# and for a create the recorded usage would refuse: the janitor lowers it
# only on its next pass, so pods that just ended or went would otherwise
# hold the quota a moment longer (a refusal is judged by a count).
# Deterministically, with two fault points of the test build:
#   quota-admission-counted kills slurmlinkd at the third admission count
#   of a quota that lacks a record (a refusal's count is not one of them);
#   quota-counted holds the janitor in its first recount (before it writes),
#   so until the release every status.used is written by admissions alone.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 21

TS=$(tmpdir)
on_exit "rm -rf '$TS'"
SLURMLINKD_FAULT="quota-admission-counted:3,quota-counted:1:hold=$TS/go" cluster_up --cpus 2 ||
  bail "slurmlink up"
on_exit "touch '$TS/go'"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
LOG=$CL/log/slurmlinkd.log
part=$(sinfo -h -o %R | head -1)
scontrol update PartitionName="$part" State=DOWN # the pods stay Pending and count
pods() { # FIRST LAST [CPU]: pods pFIRST..pLAST, one apply
  for i in $(seq "$1" "$2"); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec:\n  restartPolicy: Never\n  containers:\n  - {name: main, image: busybox, imagePullPolicy: Never, command: [sleep, "300"], resources: {requests: {cpu: %s, memory: 32Mi}}}\n' "$i" "${3:-100m}"
  done | kc apply -f - 2>&1
}
used() { kc get quota "$1" -o jsonpath="{.status.used.$2}"; }

is "$(kc create quota q --hard=pods=10 2>&1)" "resourcequota/q created" "a quota of 10 pods"
held() { grep -q "fault injection: quota-counted #1: held" "$LOG"; }
ok wait_for 60 held "the janitor is held in its first recount" || diag "$(tail -5 "$LOG")"
is "$(pods 1 8 | grep -c created)" 8 "8 pods created under it (the first counts the namespace's pods)"
is "$(used q pods)" 8 "status.used.pods is 8, written by the admissions"
like "$(pods 9 12)" 'pod/p10 created.*pods "p11" is forbidden: exceeded quota: q, requested: pods=1, used: pods=10, limited: pods=10' \
  "the 11th is refused with used: pods=10"
is "$(kc get pods -o name | wc -l)" 10 "10 pods stored"
# a pod gone while the janitor is held: the recorded usage is stale (10);
# a create it would refuse is judged by a count of the pods (9) instead
kc delete pod p10 --grace-period=0 --force >/dev/null 2>&1
is "$(used q pods)" 10 "p10 deleted: status.used.pods still records 10 (the janitor is held)"
is "$(pods 11 11)" "pod/p11 created" "p11 is admitted: the refusal the record implies is checked against a count (9 pods)"
is "$(used q pods)" 10 "... and the admission writes the count with p11 (10)"

# a resource added to hard: the quota's status does not record it yet
kc patch quota q --type merge -p '{"spec":{"hard":{"pods":"20","requests.cpu":"1200m"}}}' >/dev/null
is "$(used q 'requests\.cpu')" "" "after an edit adding requests.cpu, status.used lacks it"
is "$(pods 13 13 200m)" "pod/p13 created" "a pod of 200m fits (its admission counts: 10 pods of 100m)"
is "$(used q 'requests\.cpu')" 1200m "status.used.requests.cpu is 1200m"
like "$(pods 14 14 300m)" 'exceeded quota: q, requested: requests.cpu=300m, used: requests.cpu=1200m, limited: requests.cpu=1200m' \
  "one more of 300m is refused with the recorded usage"

touch "$TS/go"
ok after_janitor_passes 3 "the held recount (of no pods) and the janitor's next two passes end"
is "$(used q pods)" 11 "released, the janitor's older count does not replace the admissions' (11 pods)"
ok kc delete pod p1 p2 --wait=false "two pods deleted"
dropped() { [ "$(used q pods)" = 9 ]; }
ok wait_for 30 dropped "the janitor's recount lowers status.used.pods to 9" || diag "used: $(used q pods)"

kc create quota cpu --hard=requests.cpu=1100m >/dev/null
recorded() { [ -n "$(used cpu 'requests\.cpu')" ]; }
ok wait_for 30 recorded "a second quota: the janitor records its usage"
like "$(pods 15 15 150m)" 'exceeded quota: cpu, requested: requests.cpu=150m, used: requests.cpu=1, limited: requests.cpu=1100m' \
  "... which admission holds pods to (8 of 100m, one of 200m)"

ok kill -0 "$(cat "$CL/run/slurmlinkd.pid")" "slurmlinkd still runs" || diag "$(grep 'fault injection' "$LOG")"
is "$(grep -c 'fault injection: quota-admission-counted' "$LOG")" 0 \
  "admissions counted the namespace's pods twice, not once per pod"
