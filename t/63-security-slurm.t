#!/bin/bash
# covers: src/translate/ src/slurmif/ src/shim/
# 63-security-slurm.t — tenants on a real Slurm cluster with accounting
# (`slurmlink up --accounting`, HTTPS, the folder's PKI), as two real Unix
# users made here:
#   - alice (client certificate) and bob (token) run pods in their own
#     namespaces; each job runs under their own Unix user and their
#     namespace's account in squeue and sacct; the pod folder is theirs,
#     0700, secret files 0600; the shim and the container run as them;
#   - alice cannot see, read logs of or delete bob's pod (403);
#   - hostile strings in command, args, env and an allowed flags annotation
#     reach the container byte for byte and run nothing; refused flags are
#     refused at admission (422 naming the flag) and never reach Slurm;
#   - the shims report back over HTTPS trusting the folder's CA.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

sec_users || { echo "1..1"; echo "not ok 1 - Unix users for the test"; exit 1; }
# the policy is in place before slurmlinkd starts (it is read once)
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
like "$(sacctmgr -n -P show assoc user="$UA" format=user,account)" "^$UA\|acct-a$$" "accounts and associations made with sacctmgr"

ka create namespace team-a >/dev/null
ka create namespace team-b >/dev/null
like "$(head -c 30 "$CL/kubeconfig"; grep -c 'server: https://127.0.0.1' "$CL/kubeconfig")" "1$" "D/kubeconfig is the admin's HTTPS kubeconfig"

# --- the pods: alice's carries hostile strings ---------------------------------------------
PWNED=/tmp/sl-pwned.$$
on_exit "rm -f '$PWNED'"
kc alice create secret generic sa --from-literal=key=s3cret >/dev/null
# the container prints its uid, then each argument and $EVIL as hex, one per line
python3 - "$CL/pa.json" "$PWNED" "$UIDA" <<'PY'
import json, sys
out, pw, uid = sys.argv[1], sys.argv[2], int(sys.argv[3])
evil = "x'; touch %s; echo '$(touch %s)`touch %s`\";b" % (pw, pw, pw)
script = ("id -u; for a in \"$@\"; do printf '%s' \"$a\" | od -An -tx1 | tr -d ' \\n'; echo; done; "
          "printf '%s' \"$EVIL\" | od -An -tx1 | tr -d ' \\n'; echo; cat /home/key; echo; sleep 8\n"
          "# " + evil + "\n")
args = ["a'b", 'c"d', "$(touch %s)" % pw, "`touch %s`" % pw, "x;touch %s" % pw, "l1\nl2", evil, "tab\there"]
env_evil = "'; $(touch %s) `touch %s` \"\n|&<>*?" % (pw, pw)
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "pa", "annotations": {
           "slurmlink.io/user": "bob",
           "slurm-job.vk.io/flags": "--mail-user='a$(touch %s)`touch %s`;b\"c@x'" % (pw, pw)}},
       "spec": {"restartPolicy": "Never", "securityContext": {"runAsUser": uid},
                "volumes": [{"name": "sec", "secret": {"secretName": "sa"}}],
                "containers": [{"name": "main", "image": "busybox",
                                "command": ["sh", "-c", script, "sh"], "args": args,
                                "env": [{"name": "EVIL", "value": env_evil}],
                                "volumeMounts": [{"name": "sec", "mountPath": "/home"}],
                                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
json.dump(pod, open(out, "w"))
want = [str(uid)] + [a.encode().hex() for a in args] + [env_evil.encode().hex(), "s3cret"]
open(out + ".want", "w").write("\n".join(want) + "\n")
json.dump({"command": pod["spec"]["containers"][0]["command"] + args, "mail": "a$(touch %s)`touch %s`;b\"c@x" % (pw, pw)},
          open(out + ".argv", "w"))
PY
like "$(kc alice create -f "$CL/pa.json" 2>&1)" "pod/pa created" "alice creates a pod with hostile strings and an allowed flags annotation"
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pb"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c","id -u; echo bob-secret-output; sleep 20"],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}' \
  | kc bob create -f - >/dev/null 2>&1
is "$(kc bob get pods -o name 2>&1)" "pod/pb" "bob (token) creates a pod in team-b"
is "$(kc alice get pod pa -o jsonpath='{.metadata.annotations.slurmlink\.io/user}')" "alice" "the creator is alice, whatever the manifest said"

job_of() { kubectl --cache-dir "$CL/cache-admin" get pod "$1" -n "$2" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
has_jobs() { [ -n "$(job_of pa team-a)" ] && [ -n "$(job_of pb team-b)" ]; }
ok wait_for 30 has_jobs "both pods got Slurm jobs"
JA=$(job_of pa team-a) JB=$(job_of pb team-b)
running() { [ "$(ka get pod "$1" -n "$2" -o jsonpath='{.status.phase}')" = Running ]; }
ok wait_for 40 running pa team-a "alice's pod runs"
is "$(squeue -h -t all -j "$JA" -o '%u|%a')" "$UA|acct-a$$" "squeue: alice's job runs as $UA in account acct-a$$"
is "$(squeue -h -t all -j "$JB" -o '%u|%a')" "$UB|acct-b$$" "squeue: bob's job runs as $UB in account acct-b$$"

# --- what is on disk, and who runs -------------------------------------------------------
UA_POD=$(ka get pod pa -n team-a -o jsonpath='{.metadata.uid}')
PD=$CL/pods/team-a/pa-$UA_POD
is "$(grep '^#SBATCH --mail-user=' "$PD/job.sh")" "#SBATCH --mail-user='a\$(touch $PWNED)\`touch $PWNED\`;b\"c@x'" \
  "the allowed flag's hostile value is one single-quoted word in job.sh (and Slurm took the job)"
is "$(stat -c '%U %a' "$PD")" "$UA 700" "alice's pod folder: owned by $UA, mode 0700"
secf=$(find "$PD" -type f -name key | head -1)
is "$(stat -c '%U %a' "$secf" 2>&1)" "$UA 600" "the secret file: owned by $UA, mode 0600"
bad=$(find "$PD" ! -user "$UA" | head -3)
is "$bad" "" "every file in the pod folder belongs to $UA"
is "$(stat -c '%U %a' "$CL/pods/team-b/pb-$(ka get pod pb -n team-b -o jsonpath='{.metadata.uid}')")" "$UB 700" "bob's pod folder: owned by $UB, mode 0700"
shim_pid=$(pgrep -f "slurmlink-shim --pod-dir $PD" | head -1)
is "$([ -n "$shim_pid" ] && ps -o user= -p "$shim_pid" | tr -d ' ')" "$UA" "the shim runs as $UA"
rep=$(jq -c '.report | {url: (.url | sub(":[0-9]+/"; ":PORT/")), caFile}' "$PD/shim.json")
is "$rep" "{\"url\":\"https://127.0.0.1:PORT/internal/v1/shim/events\",\"caFile\":\"$CL/pki/ca.crt\"}" "shim.json: the report goes over HTTPS and trusts the folder's CA"

# --- alice against bob, on the real cluster -------------------------------------------
is "$(kc alice get pod pb -n team-b 2>&1)" \
  "Error from server (Forbidden): pods \"pb\" is forbidden: User \"alice\" cannot get resource \"pods\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot get bob's pod"
like "$(kc alice logs pb -n team-b 2>&1)" "Forbidden" "alice cannot read bob's logs"
unlike "$(kc alice logs pb -n team-b 2>&1)" "bob-secret-output" "... and sees nothing of them"
like "$(kc alice delete pod pb -n team-b 2>&1)" "Forbidden" "alice cannot delete bob's pod"
is "$(squeue -h -j "$JB" -o %T 2>/dev/null)" "RUNNING" "bob's job still runs"

# --- the bytes: what the container got ---------------------------------------------------
done_a() { [ "$(ka get pod pa -n team-a -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 60 done_a "alice's pod succeeds"
kc alice logs pa >"$CL/pa.log" 2>&1
is "$(cat "$CL/pa.log")" "$(cat "$CL/pa.json.want")" "uid, arguments, env and the secret reach the container byte for byte"
ok test ! -e "$PWNED" "nothing hostile was executed"
python3 - "$PD/shim.json" "$CL/pa.json.argv" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["containers"][0]
want = json.load(open(sys.argv[2]))["command"]
sys.exit(0 if c["argv"][-len(want):] == want else 1)
PY
is "$?" 0 "command and args reach shim.json byte for byte"
is "$(grep -c 'push to' "$PD/job.out" 2>/dev/null)" 0 "the shim's pushes over HTTPS all succeeded"
like "$(ka get events -n team-a --field-selector involvedObject.name=pa -o jsonpath='{.items[*].reason}')" "Started" "the pod's Started event arrived"
ok wait_for 60 bash -c "kubectl --cache-dir '$CL/cache-admin' get pod pb -n team-b -o jsonpath='{.status.phase}' | grep -qx Succeeded" "bob's pod succeeds"
is "$(kc bob logs pb | head -1)" "$UIDB" "bob's container ran as $UB"

# --- sacct ---------------------------------------------------------------------------------
acct_ok() {
  [ "$(sacct -n -X -P -j "$JA" -o User,Account,State)" = "$UA|acct-a$$|COMPLETED" ] &&
    [ "$(sacct -n -X -P -j "$JB" -o User,Account,State)" = "$UB|acct-b$$|COMPLETED" ]
}
ok wait_for 30 acct_ok "sacct: each job COMPLETED under its own Unix user and account"
acct_ok || diag "sacct: $(sacct -n -X -P -j "$JA,$JB" -o JobID,User,Account,State | tr '\n' ' ')"

# --- refused at admission, never at Slurm ----------------------------------------------------
out=$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad","annotations":{"slurm-job.vk.io/flags":"--uid=0 --account=acct-b%s"}},"spec":{"containers":[{"name":"main","image":"busybox"}]}}' "$$" | kc alice create -f - 2>&1)
is "$out" "The Pod \"bad\" is invalid: metadata.annotations[slurm-job.vk.io/flags]: Invalid value: \"--uid=0 --account=acct-b$$\": --uid is not allowed: the job runs as the pod's user" \
  "a refused flag: 422 naming it"
out=$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"root","annotations":{"slurmlink.io/runtime":"host"}},"spec":{"securityContext":{"runAsUser":0},"containers":[{"name":"main","image":"busybox"}]}}' | kc alice create -f - 2>&1)
like "$out" "spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA" "runAsUser 0 on the host runtime: 422"
is "$(squeue -h -t all -n team-a/bad,team-a/root -o %i | wc -l)" 0 "no job for refused pods"
done_testing 33
