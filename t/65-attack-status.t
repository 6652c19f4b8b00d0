#!/bin/bash
# covers: src/ctl/ src/shimlib/report.c src/api/
# 65-attack-status.t — server-owned fields and pod status, attacked by a
# tenant on a real Slurm cluster (two real Unix users, the ASan daemon):
#   - slurmlink.io/job-id is server-owned on every write path: a client's
#     value is dropped at create, and annotate, PUT, merge, JSON and
#     strategic patches and (server-side) apply that set it are 422; deleting
#     the pod never cancels the job it named (bob's pod's job, an HPC
#     user's plain sbatch job);
#   - pods/status is written by the admin (and the daemon) only: 403 for a
#     tenant, with kube-apiserver's text; a client's status on create/PUT
#     is ignored;
#   - an admin's status write is validated (422 naming the field) and never
#     takes the daemon down;
#   - the controller reconciles status with Slurm: a phase set before
#     submission does not stop the pod being submitted, a terminal phase
#     while its job runs is put back to Running;
#   - a job id in the store that is not the pod's job (written into the
#     database while slurmlinkd was down, as data from before the fix would
#     be): deleting the pod does not cancel that job, and the log says why.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 36
sec_two_tenants --token --default || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"

job_of() { ka get pod "$1" -n "$2" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
phase() { ka get pod "$1" -n "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
jstate() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
gone() { ! ka get pod "$1" -n "$2" >/dev/null 2>&1; }
alive() { [ "$(ka get --raw /healthz 2>/dev/null)" = ok ]; }
# pod NAME CMD [annotations JSON] [envFrom configmap]: a busybox pod's JSON
pod() {
  local ef=""
  [ -n "${4:-}" ] && ef=",\"envFrom\":[{\"configMapRef\":{\"name\":\"$4\"}}]"
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":%s},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c","%s"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}%s}]}}' \
    "$1" "${3:-{\}}" "$2" "$ef"
}

# --- the victims: bob's pod's job and an HPC user's plain sbatch job ----------------------
pod pb "sleep 600" | kc bob create -f - >/dev/null 2>&1
ok wait_for 40 is_phase pb team-b Running "bob's pod runs"
JB=$(job_of pb team-b)
hpc() { (cd /tmp && runuser -u "$UB" -- sbatch --parsable -J hpc -o /dev/null --chdir=/tmp --wrap 'sleep 600' 2>&1); }
JH=$(hpc) JH2=$(hpc)
hpc_runs() { [ "$(jstate "$JH")" = RUNNING ] && [ "$(jstate "$JH2")" = RUNNING ]; }
ok wait_for 30 hpc_runs "two HPC jobs of $UB, made with sbatch, run (jobs $JH, $JH2)"

# --- job-id on create: dropped; deleting the pod leaves the job alone ----------------------
# the pods wait for config map "later": they are not submitted meanwhile
pod pa1 "sleep 30" "{\"slurmlink.io/job-id\":\"$JH\"}" later | kc alice create -f - >/dev/null 2>&1
is "$(job_of pa1 team-a)" "" "create: a client's slurmlink.io/job-id is dropped"
kc alice delete pod pa1 --wait=false >/dev/null 2>&1
ok wait_for 30 gone pa1 team-a "alice's pod is deleted"
is "$(jstate "$JH")" RUNNING "deleting it did not cancel the HPC job it named"

# --- job-id on every update path: 422 naming the field -----------------------------------
pod pa2 "sleep 30" "{}" later | kc alice create -f - >/dev/null 2>&1
W422="The Pod \"pa2\" is invalid: metadata.annotations[slurmlink.io/job-id]: Invalid value: \"$JB\": field is immutable: the server sets it to the pod's own Slurm job"
is "$(kc alice annotate pod pa2 "slurmlink.io/job-id=$JB" 2>&1)" "$W422" "annotate: 422"
ANN="{\"metadata\":{\"annotations\":{\"slurmlink.io/job-id\":\"$JB\"}}}"
is "$(kc alice patch pod pa2 --type merge -p "$ANN" 2>&1)" "$W422" "merge patch: 422"
is "$(kc alice patch pod pa2 --type strategic -p "$ANN" 2>&1)" "$W422" "strategic merge patch: 422"
is "$(kc alice patch pod pa2 --type json -p "[{\"op\":\"add\",\"path\":\"/metadata/annotations/slurmlink.io~1job-id\",\"value\":\"$JB\"}]" 2>&1)" \
  "$W422" "JSON patch: 422"
is "$(kc alice get pod pa2 -o json | jq ".metadata.annotations[\"slurmlink.io/job-id\"]=\"$JB\"" | kc alice replace -f - 2>&1)" \
  "$W422" "PUT (replace): 422"
pod pa2 "sleep 30" "{\"slurmlink.io/job-id\":\"$JB\"}" later >"$CL/pa2.json"
like "$(kc alice apply --server-side --force-conflicts -f "$CL/pa2.json" 2>&1)" \
  'metadata.annotations\[slurmlink.io/job-id\]: Invalid value: "'"$JB"'": field is immutable' "server-side apply: 422"
like "$(kc alice apply -f "$CL/pa2.json" 2>&1)" \
  'metadata.annotations\[slurmlink.io/job-id\]: Invalid value: "'"$JB"'": field is immutable' "client-side apply: 422"
is "$(job_of pa2 team-a)" "" "after all of them the pod names no job"

# --- pods/status: the admin's only -----------------------------------------------------------
is "$(kc alice patch pod pa2 --subresource=status --type merge -p '{"status":{"phase":"Succeeded"}}' 2>&1)" \
  "Error from server (Forbidden): pods \"pa2\" is forbidden: User \"alice\" cannot patch resource \"pods/status\" in API group \"\" in the namespace \"team-a\"" \
  "alice cannot patch pods/status (403)"
is "$(kc alice get pod pa2 -o json | jq '.status.phase="Succeeded"' | kc alice replace --subresource=status -f - 2>&1)" \
  "Error from server (Forbidden): error when replacing \"STDIN\": pods \"pa2\" is forbidden: User \"alice\" cannot update resource \"pods/status\" in API group \"\" in the namespace \"team-a\"" \
  "alice cannot update pods/status (403)"
kc alice get pod pa2 -o json | jq '.status.phase="Succeeded" | .status.podIP="10.6.6.6"' | kc alice replace -f - >/dev/null 2>&1
is "$(ka get pod pa2 -n team-a -o jsonpath='{.status.phase}/{.status.podIP}')" "Pending/" "a status in a PUT of the pod is ignored"
kc alice delete pod pa2 --wait=false >/dev/null 2>&1
ok wait_for 30 gone pa2 team-a "alice's second pod is deleted"
is "$(jstate "$JB")" RUNNING "no write path let her cancel bob's job"

# --- the admin's status writes are validated; the daemon stays up ---------------------------
pod pc "sleep 20" | kc alice create -f - >/dev/null 2>&1
ok wait_for 40 is_phase pc team-a Running "alice's short pod runs"
# (without the "spec.nodeName is ignored" warning every write of a scheduled pod gets)
sp() { ka patch pod pc -n team-a --subresource=status --type merge -p "$1" 2>&1 | grep -v "^Warning: "; }
is "$(sp '{"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}}')" \
  "The Pod \"pc\" is invalid: status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"" \
  "a condition status not True/False/Unknown: 422"
is "$(sp '{"status":{"phase":"Exploded"}}')" \
  "The Pod \"pc\" is invalid: status.phase: Unsupported value: \"Exploded\": supported values: \"Pending\", \"Running\", \"Succeeded\", \"Failed\", \"Unknown\"" \
  "an unknown phase: 422"
is "$(sp '{"status":{"podIP":"10.0.0.300","containerStatuses":[{"name":"main","restartCount":-1}]}}')" \
  "$(printf '%s\n' "The Pod \"pc\" is invalid: " \
     "* status.podIP: Invalid value: \"10.0.0.300\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)" \
     "* status.containerStatuses[0].restartCount: Invalid value: -1: must be greater than or equal to 0")" \
  "a bad podIP and restartCount: 422 naming both"
is "$(sp '{"status":{"conditions":[{"type":"PodScheduled"}]}}')" \
  "The Pod \"pc\" is invalid: status.conditions[0].status: Required value" "a condition without status: 422 (the controller would read it when the container exits)"
ok wait_for 60 is_phase pc team-a Succeeded "the pod then completes"
ok alive "slurmlinkd is still up"
alive || diag "slurmlinkd's log: $(grep -m3 -E 'runtime error|ERROR: AddressSanitizer|SEGV' "$CL/log/slurmlinkd.log")"

# --- reconciled with Slurm ---------------------------------------------------------------------
pod pa3 "sleep 40" "{}" later | kc alice create -f - >/dev/null 2>&1
like "$(ka patch pod pa3 -n team-a --subresource=status --type merge -p '{"status":{"phase":"Succeeded"}}' 2>&1)" \
  "pod/pa3 patched" "the admin sets Succeeded on a pod not yet submitted"
kc alice create configmap later --from-literal=K=v >/dev/null 2>&1
ok wait_for 60 is_phase pa3 team-a Running "the pod is still submitted and runs"
like "$(ka patch pod pa3 -n team-a --subresource=status --type merge -p '{"status":{"phase":"Succeeded"}}' 2>&1)" \
  "pod/pa3 patched" "the admin sets Succeeded while the pod's job runs"
ok wait_for 30 is_phase pa3 team-a Running "a Succeeded set while its job runs is put back to Running"

# --- a job id stored before it was server-owned: the controller checks the job itself ------
pod pa4 "sleep 30" "{}" never | kc alice create -f - >/dev/null 2>&1
DB=$(find "$CL" -name objects.db | head -1)
DPID=$(cat "$CL/run/slurmlinkd.pid")
kill -9 "$DPID"
dead() { ! kill -0 "$DPID" 2>/dev/null; }
wait_for 20 dead
sqlite3 "$DB" "UPDATE objects SET data = json_set(data, '\$.metadata.annotations.\"slurmlink.io/job-id\"', '$JH2') WHERE resource = 'pods' AND ns = 'team-a' AND name = 'pa4'"
up_out=$("$SLURMLINK" up --dir "$CL" 2>&1)
is "$?" 0 "slurmlinkd restarts with the second HPC job's id stored on alice's pod"
[ -n "$up_out" ] && diag "slurmlink up: $up_out"
is "$(job_of pa4 team-a)" "$JH2" "the store holds the forged id"
kc alice delete pod pa4 --wait=false >/dev/null 2>&1
ok wait_for 30 gone pa4 team-a "alice's pod is deleted"
is "$(jstate "$JH2")" RUNNING "the controller left the job alone: its comment is not the pod's uid"
like "$(grep "Slurm job $JH2 " "$CL/log/slurmlinkd.log")" "Slurm job $JH2 is not this pod's" "... and said so in its log"
is "$(jstate "$JB") $(jstate "$JH") $(jstate "$JH2")" "RUNNING RUNNING RUNNING" "bob's job and the HPC jobs still run"
ok alive "slurmlinkd is up at the end"
