#!/bin/bash
# covers: src/api/ src/ctl/
# 68-quota-recount.t — the API janitor recounts a namespace's pods for its
# quotas' status.used only when that usage may have changed behind
# admission's back (admission raises status.used itself, in the create's
# transaction): after pods there were deleted or finished, or after a
# quota's spec was edited. A Job's pods are admitted like any other. Admitted creates and their pods' status changes (scheduled,
# running) cost no recount, however many pods the namespace holds; the
# counter slurmlink_quota_recounts_total says how many recounts ran. On
# the code before, the janitor recounted every namespace with quotas after
# any change to the store.
source "$(dirname "$0")/lib.sh"
plan 16

cluster_up --cpus 16 || bail "slurmlink up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
recounts() { kc get --raw /metrics | awk '$1 == "slurmlink_quota_recounts_total" {print $2}'; }
used() { kc get quota q -o jsonpath="{.status.used.$1}"; }
used_is() { [ "$(used "$1")" = "$2" ]; }
pod() { # name [command...]: a pod that asks for 10m of CPU
  local n=$1; shift
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: c\n    image: busybox\n    command: [%s]\n    resources: {requests: {cpu: 10m}, limits: {cpu: 10m}}\n' \
    "$n" "$(printf '"%s",' "$@" | sed 's/,$//')"
}

is "$(kc create quota q --hard=pods=100,requests.cpu=10 2>&1)" "resourcequota/q created" "a quota in default"
ok wait_for 30 used_is pods 0 "the janitor's first pass writes status.used (0 pods)"
ok after_janitor_passes 2 "the janitor's pass after the quota's own status write ends"
r0=$(recounts)
for i in $(seq 1 12); do pod "p$i" sleep 300; done | sed 's/^apiVersion/---\napiVersion/' | kc create -f - >/dev/null
is "$(used pods)|$(used requests\\.cpu)" "12|120m" "12 admitted creates: status.used says 12 pods, 120m"
all_run() { [ "$(kc get pods --field-selector=status.phase=Running -o name | wc -l)" = 12 ]; }
ok wait_for 120 all_run "their pods are scheduled and run"
ok after_janitor_passes 2 "the janitor's pass after their status changes ends"
is "$(recounts)" "$r0" "no recount for admitted creates and their pods' status changes ($r0 before and after)"

kc delete pod p1 p2 --wait=true >/dev/null 2>&1
ok wait_for 30 used_is pods 10 "two pods deleted: the recount lowers used to 10"
r1=$(recounts)
ok awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b + 0 > a + 0) }' "... a recount ran ($r0 → $r1)"

pod done true | kc create -f - >/dev/null
succeeded() { [ "$(kc get pod done -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 120 succeeded "a pod runs to its end (Succeeded)"
ok wait_for 30 used_is pods 10 "... and stops counting: 10"

# a Job's pods are admitted as a tenant's (src/api/admission.c): under
# requests.cpu each states it, and its pod is counted at its create
kc create job j --image=busybox --dry-run=client -o json -- sleep 300 |
  jq '.spec.template.spec.containers[0].resources = {requests: {cpu: "10m"}}' | kc create -f - >/dev/null
jobpod() { [ -n "$(kc get pods -l job-name=j -o name)" ]; }
wait_for 60 jobpod
ok wait_for 30 used_is pods 11 "a Job's pod, made by the Job controller through admission, is counted: 11"

kc patch quota q --type=merge -p '{"spec":{"hard":{"pods":"100","requests.cpu":"10","limits.cpu":"10"}}}' >/dev/null
ok wait_for 30 used_is 'limits\.cpu' 100m "a quota's spec edited (limits.cpu added): recounted, 100m (the Job's pod sets no limit)"
r2=$(recounts)
ok after_janitor_passes 3 "the janitor's next passes end"
is "$(recounts)" "$r2" "nothing changed since: no more recounts"
read=$(kc get --raw /metrics | awk '$1 == "slurmlink_quota_recount_pods_total" {print $2}')
ok awk -v n="${read:-0}" 'BEGIN { exit !(n + 0 >= 10) }' "the pods those recounts read are counted (${read:-none})"
