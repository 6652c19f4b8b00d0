#!/bin/bash
# covers: src/translate/ src/slurmif/ src/shim/
# 66-attack-slurm.t — a hostile tenant against Slurm's own rules, on a real
# cluster with accounting (`slurmlink up --accounting`), two real Unix users,
# the ASan daemon. slurmctld must see the job's own user as the submitter, so
# that what it refuses for that user's sbatch it refuses for that user's pod:
#   - operator-only options (--priority, a negative --nice): the pod fails
#     with Slurm's reason, a FailedCreate event, no job, never that priority;
#     the same user's sbatch with the same flags is refused the same way;
#   - partitions limited to root (RootOnly) or to other accounts
#     (AllowAccounts): Slurm's reason, as for sbatch;
#   - what submission would refuse is refused at admission (422 naming the
#     annotation): --nice=abc, --nice out of range, -ko/etc/x,
#     slurmlink.io/exclusive: topo;
#   - PrivateData: a tenant's squeue and sacct do not show another's jobs;
#   - securityContext.runAsGroup / fsGroup / supplementalGroups.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 46

sec_users || { echo "not ok 1 - Unix users for the test"; exit 1; }
sec_cluster --token --accounting --gpus 0 --cpus 4 <<EOF || bail "slurmlink up, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  default: {account: default}
  team-a: {account: acct-a$$, write: {users: [alice]}}
  team-b: {account: acct-b$$, write: {users: [bob]}}
users:
  admin: $SL_ACCT_JOB_USER
  alice: $UA
  bob: $UB
EOF
for t in a b; do
  sacctmgr -i add account "acct-$t$$" Cluster=slurmlink Description=test Organization=test >/dev/null
done
sacctmgr -i add user "$UA" Account="acct-a$$" DefaultAccount="acct-a$$" Cluster=slurmlink >/dev/null
sacctmgr -i add user "$UB" Account="acct-b$$" DefaultAccount="acct-b$$" Cluster=slurmlink >/dev/null
# two more partitions on the one node: root only, and account acct-b only
scontrol create PartitionName=ops Nodes=node1 RootOnly=YES State=UP
scontrol create PartitionName=bonly Nodes=node1 AllowAccounts="acct-b$$" State=UP
like "$(sinfo -h -o '%P' | sort | tr '\n' ' ')" "bonly gpu\\* ops" "partitions ops (RootOnly) and bonly (AllowAccounts=acct-b$$)"

ka create namespace team-a >/dev/null
ka create namespace team-b >/dev/null
# as_user U CMD...: run a Slurm client as Unix user U, from a folder U may use
as_user() { local u=$1; shift; (cd /tmp && runuser -u "$u" -- "$@"); }

# pod NAME [ANNOTATIONS-JSON [SPEC-SECURITYCONTEXT-JSON [SCRIPT]]] → JSON on stdout
pod() {
  jq -nc --arg n "$1" --argjson a "${2:-{\}}" --argjson sc "${3:-{\}}" --arg s "${4:-true}" \
    '{apiVersion:"v1",kind:"Pod",metadata:{name:$n,annotations:$a},
      spec:{restartPolicy:"Never",securityContext:$sc,
            containers:[{name:"main",image:"busybox",command:["sh","-c",$s],
                         resources:{requests:{cpu:"100m",memory:"64Mi"}}}]}}'
}
phase() { ka get pod "$1" -n "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
jobs_named() { squeue -h -t all -n "$1" -o '%i|%Q|%y' 2>/dev/null; }
msg_of() { ka get pod "$1" -n "$2" -o jsonpath='{.status.message}' 2>/dev/null; }
event_of() {
  ka get events -n "$2" --field-selector "involvedObject.name=$1,reason=FailedCreate" \
    -o jsonpath='{.items[*].message}' 2>/dev/null
}
# sbatch_err U FLAGS...: what sbatch as U says about these flags (its error, no "sbatch: error: ")
sbatch_err() {
  local u=$1; shift
  as_user "$u" sbatch -o /dev/null "$@" --wrap true 2>&1 | sed -n 's/^sbatch: error: Batch job submission failed: //p' | tail -1
}

# --- 1. operator-only options ---------------------------------------------------------------
FL='--priority=4294967000 --nice=-100000'
like "$(pod prio "{\"slurm-job.vk.io/flags\":\"$FL\"}" | kc alice create -f - 2>&1)" "pod/prio created" \
  "alice creates a pod asking for --priority=4294967000 --nice=-100000 (admitted: it is Slurm's call)"
ok wait_for 30 is_phase prio team-a Failed "the pod ends Failed"
j=$(jobs_named team-a/prio)
is "$j" "" "no Slurm job for it"
[ -n "$j" ] && diag "the job: id|priority|nice = $j"
unlike "$(squeue -h -t all -o '%Q' | sort -u | tr '\n' ' ')" "4294967000" "no job in the queue has priority 4294967000"
SB=$(sbatch_err "$UA" -A "acct-a$$" $FL)
diag "sbatch as $UA: $SB"
like "$SB" "." "alice's own sbatch with the same flags is refused"
M=$(msg_of prio team-a)
is "$M" "Slurm refused the job: $SB" "the pod's status says Slurm's reason, the same as sbatch's"
like "$(event_of prio team-a)" "Slurm refused the job: $SB" "a FailedCreate event with that reason"
# slurmctld ignores a user's --priority (sbatch's job gets the usual priority): so must the pod's
like "$(pod prio2 '{"slurm-job.vk.io/flags":"--priority=4294967000"}' '{}' 'sleep 3' | kc alice create -f - 2>&1)" \
  "pod/prio2 created" "--priority alone"
has_job() { [ -n "$(jobs_named "$1")" ]; }
ok wait_for 30 has_job team-a/prio2 "... gets a job"
# side by side: alice's own sbatch, kept pending (--begin) so that its priority shows
SBJ=$(as_user "$UA" sbatch --parsable -A "acct-a$$" -o /dev/null --priority=4294967000 --begin=now+3600 --wrap true 2>&1)
PS=$(squeue -h -j "$SBJ" -o %Q 2>&1)
scancel "$SBJ" 2>/dev/null
ok test "$PS" != 4294967000 -a "$PS" -gt 0 "alice's own sbatch --priority=4294967000 is accepted with the usual priority ($PS)"
PP=$(squeue -h -t all -n team-a/prio2 -o %Q)
ok test "$PP" != 4294967000 -a "$PP" -gt 0 "... and so is the pod's job ($PP), not 4294967000"
like "$(pod nice1 '{"slurm-job.vk.io/flags":"--nice=-5"}' | kc alice create -f - 2>&1)" \
  "pod/nice1 created" "a small negative --nice"
ok wait_for 30 is_phase nice1 team-a Failed "... ends Failed"
is "$(jobs_named team-a/nice1)" "" "... and no job"
# a positive nice is every user's right
like "$(pod nice2 '{"slurm-job.vk.io/flags":"--nice=50"}' '{}' 'sleep 3' | kc alice create -f - 2>&1)" \
  "pod/nice2 created" "a positive --nice"
ok wait_for 30 has_job team-a/nice2 "... gets a job"
is "$(squeue -h -t all -n team-a/nice2 -o '%y|%u|%a')" "50|$UA|acct-a$$" "... nice 50, user $UA, account acct-a$$"

# --- 2. partitions Slurm closes to this user ---------------------------------------------------
for part in ops bonly; do
  like "$(pod "p-$part" "{\"slurm-job.vk.io/flags\":\"--partition=$part\"}" | kc alice create -f - 2>&1)" \
    "pod/p-$part created" "a pod for partition $part"
  ok wait_for 30 is_phase "p-$part" team-a Failed "... ends Failed"
  SBP=$(sbatch_err "$UA" -A "acct-a$$" -p "$part")
  diag "sbatch as $UA -p $part: $SBP"
  is "$(msg_of "p-$part" team-a)" "Slurm refused the job: $SBP" "... with sbatch's reason"
  is "$(jobs_named "team-a/p-$part")" "" "... and no job"
done

# --- 3. admission refuses what submission would --------------------------------------------
inval() { # NAME ANNOTATIONS-JSON → the create's output
  pod "$1" "$2" | kc alice create -f - 2>&1
}
is "$(inval bad1 '{"slurm-job.vk.io/flags":"--nice=abc"}')" \
  'The Pod "bad1" is invalid: metadata.annotations[slurm-job.vk.io/flags]: Invalid value: "--nice=abc": --nice: invalid value "abc": must be an integer -2147483645..2147483645' \
  "--nice=abc: 422 naming the flag"
like "$(inval bad2 '{"slurm-job.vk.io/flags":"--nice=2147483647"}')" \
  'metadata.annotations\[slurm-job.vk.io/flags\]: Invalid value: "--nice=2147483647": --nice: invalid value' \
  "--nice out of range: 422"
like "$(inval bad3 '{"slurm-job.vk.io/flags":"-ko/etc/x"}')" \
  'metadata.annotations\[slurm-job.vk.io/flags\]: Invalid value: "-ko/etc/x": --no-kill: invalid value "o/etc/x"' \
  "-ko/etc/x (--no-kill=o/etc/x, as getopt reads it): 422"
like "$(inval bad4 '{"slurmlink.io/exclusive":"topo"}')" \
  'metadata.annotations\[slurmlink.io/exclusive\]: Unsupported value: "topo": supported values: "true", "false", "user", "mcs"' \
  "slurmlink.io/exclusive: topo (not in Slurm 22.05): 422"
like "$(inval bad5 '{"slurm-job.vk.io/flags":"--exclusive=topo"}')" \
  'Invalid value: "--exclusive=topo": --exclusive: invalid value "topo"' "--exclusive=topo in the flags: 422"
is "$(kc alice get pods -o name | grep -c 'pod/bad')" 0 "none of them is stored"

# --- 4. PrivateData ----------------------------------------------------------------------------
pod pb '{}' '{}' 'sleep 30' | kc bob create -f - >/dev/null 2>&1
ok wait_for 30 has_job team-b/pb "bob's pod has a job"
JB=$(squeue -h -t all -n team-b/pb -o %i)
JA=$(squeue -h -t all -n team-a/nice2 -o %i)
is "$(as_user "$UB" squeue -h -t all -j "$JB" -o '%i|%u' 2>&1)" "$JB|$UB" "bob's squeue shows his job"
is "$(as_user "$UA" squeue -h -t all -o '%i|%u|%j' 2>&1 | grep -c "$UB")" 0 "alice's squeue shows none of bob's jobs"
like "$(as_user "$UA" scontrol show job "$JB" 2>&1)" "Invalid job id specified" "alice's scontrol show job of bob's job: refused"
in_db() { sacct -n -X -P -j "$JB" -o User | grep -q "$UB"; }
ok wait_for 30 in_db "bob's job is in the accounting database (root's sacct)"
is "$(as_user "$UA" sacct -a -S 1970-01-01T00:00:01 -n -X -P -o User 2>&1 | grep -c "$UB")" 0 "alice's sacct -a shows none of bob's jobs"
is "$(as_user "$UA" sacct -n -X -P -j "$JA" -o User 2>&1 | head -1)" "$UA" "alice's sacct still shows her own"

# --- 5. runAsGroup, fsGroup, supplementalGroups ------------------------------------------------
GA=$(id -g "$UA")
like "$(pod g0 '{}' '{"runAsGroup":0}' | kc alice create -f - 2>&1)" \
  "spec.securityContext.runAsGroup: Invalid value: 0: must be $GA" "runAsGroup 0: 422 naming the field"
out=$(jq -nc --argjson g "$GA" '{apiVersion:"v1",kind:"Pod",metadata:{name:"g1"},spec:{restartPolicy:"Never",
  securityContext:{runAsGroup:$g},containers:[{name:"main",image:"busybox",command:["sh","-c","id -g"],
  securityContext:{runAsGroup:0}}]}}' | kc alice create -f - 2>&1)
like "$out" "spec.containers\[0\].securityContext.runAsGroup: Invalid value: 0" "a container's runAsGroup 0: 422"
out=$(pod g2 '{}' "{\"runAsGroup\":$GA,\"fsGroup\":0,\"supplementalGroups\":[0]}" 'id -g' | kc alice create -f - 2>&1)
like "$out" "pod/g2 created" "runAsGroup = alice's own group, with fsGroup and supplementalGroups: created"
like "$out" "Warning: spec.securityContext.fsGroup" "... with a Warning about fsGroup"
like "$out" "Warning: spec.securityContext.supplementalGroups" "... and one about supplementalGroups"
ok wait_for 60 is_phase g2 team-a Succeeded "the pod with runAsGroup $GA succeeds"
is "$(kc alice logs g2 2>&1)" "$GA" "... and its container runs with gid $GA"
