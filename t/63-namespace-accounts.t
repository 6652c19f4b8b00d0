#!/bin/bash
# covers: src/ctl/account.c src/ctl/submit.c src/slurmif/sacctmgr.c src/api/kinds.c src/config/config.c
# 63-namespace-accounts.t — a namespace whose Slurm account does not exist,
# on a cluster with accounting (`slurmlink up --accounting`) and two real
# tenants (t/61-security-lib.sh):
#   - without slurm.create_accounts alice's pod waits: its STATUS column,
#     its PodScheduled condition and a Warning Event SlurmAccountMissing
#     name the account, the user and the sacctmgr commands; the Namespace
#     gets the condition SlurmAccountMissing=True;
#   - an administrator's sacctmgr lets the pod go on (retried with
#     back-off), and the Namespace's condition turns False;
#   - with slurm.create_accounts (a SIGHUP) team-b, which the admin created
#     before, gets its account and the admin's Unix user's association at
#     once, not bob's; bob's pod there runs: slurmlinkd made his
#     association at his first pod (an Event
#     SlurmAccountCreated), sacct shows the job under that account; a
#     second pod needs nothing more; a namespace named root is a 422 naming
#     metadata.name;
#   - with slurm.create_accounts, `kubectl create namespace` (by bob, who may
#     write cluster-scoped objects) makes the account and bob's association
#     before any pod exists: sacctmgr lists them, the Namespace's condition
#     is False AccountCreated with an Event, its slurmlink.io/user is bob
#     whatever the client wrote; deleting the namespace keeps the account;
#   - with slurmdbd down, a new namespace's condition is True
#     AccountCreateFailed with a Warning Event; once slurmdbd is back the
#     retry makes the account and association.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 26

sec_users || bail "Unix users for the test"
sec_cluster --token --accounting --gpus 0 --cpus 4 <<EOF || bail "slurmlink up --accounting, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
  write: {users: [bob]}
namespaces:
  default: {account: default}
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
users:
  admin: $SL_ACCT_JOB_USER
  alice: $UA
  bob: $UB
EOF
ka create namespace team-a >/dev/null && ka create namespace team-b >/dev/null || bail "namespaces"
pod() { # USER NAME
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c","id -u"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$2" |
    kc "$1" create -f - >/dev/null
}
status_col() { kc "$1" get pod "$2" --no-headers 2>/dev/null | awk '{print $3}'; }
phase() { kc "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
ns_cond() { ka get namespace "$1" -o jsonpath='{.status.conditions[?(@.type=="SlurmAccountMissing")].status}' 2>/dev/null; }
shows() { [ "$(status_col "$1" "$2")" = "$3" ]; }
succeeded() { [ "$(phase "$1" "$2")" = Succeeded ]; }
cond_is() { [ "$(ns_cond "$1")" = "$2" ]; }

# --- without slurm.create_accounts --------------------------------------------------------------
pod alice a1
ok wait_for 60 shows alice a1 SlurmAccountMissing "a pod whose namespace has no Slurm account: STATUS SlurmAccountMissing"
msg=$(kc alice get pod a1 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' 2>&1)
like "$msg" "Slurm account team-a does not exist or user $UA has no association with it; an administrator can run: sacctmgr add account team-a; sacctmgr add user $UA Account=team-a" \
  "its PodScheduled condition names the account, the user and the fix"
like "$(kc alice get events --field-selector involvedObject.name=a1 -o jsonpath='{range .items[*]}{.type} {.reason}: {.message}{"\n"}{end}' 2>&1)" \
  "Warning SlurmAccountMissing: Slurm refused the job \(Invalid account" "a Warning Event SlurmAccountMissing with Slurm's words"
ok wait_for 30 cond_is team-a True "the Namespace's condition SlurmAccountMissing is True"
sacctmgr -i add account team-a Cluster=slurmlink Description=test Organization=test >/dev/null
sacctmgr -i add user "$UA" Account=team-a Cluster=slurmlink >/dev/null
ok wait_for 90 succeeded alice a1 "after the administrator's sacctmgr the pod runs (retried with back-off)"
ok wait_for 30 cond_is team-a False "... and the Namespace's condition turns False"

# --- with slurm.create_accounts -----------------------------------------------------------------
sed -i 's/^slurm:$/slurm:\n  create_accounts: true/' "$CL/etc/slurmlinkd.conf"
kill -HUP "$(cat "$CL/run/slurmlinkd.pid")"
logged() { grep -q 'SIGHUP: slurm.create_accounts: 0 -> 1' "$CL/log/slurmlinkd.log" 2>/dev/null; }
wait_for 30 logged || diag "no reload line in $CL/log/slurmlinkd.log"
has_account() { sacctmgr -n -P show account "$1" format=account 2>/dev/null | grep -qx "$1"; }
assoc_has() { sacctmgr -n -P show assoc account="$1" format=account,user 2>/dev/null | grep -qx "$1|$2"; }
ok wait_for 30 assoc_has team-b "$SL_ACCT_JOB_USER" \
  "turned on, the option makes team-b's account (the admin created it before) and the admin's user's association"
nok assoc_has team-b "$UB" "... not bob's: his is made at his first pod"
pod bob b1
ok wait_for 90 succeeded bob b1 "with slurm.create_accounts, bob's pod in team-b runs"
like "$(kc bob get events --field-selector involvedObject.name=b1 -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1)" \
  "SlurmAccountCreated: Slurm account team-b and user $UB's association with it made" "an Event says slurmlinkd made the account and association"
like "$(sacctmgr -n -P show assoc account=team-b user="$UB" format=account,user 2>&1)" "^team-b\|$UB$" "sacctmgr shows the account and bob's association"
jid=$(kc bob get pod b1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
acct_of() { [ -n "$(sacct -n -X -P -j "$jid" -o account 2>/dev/null)" ]; }
wait_for 30 acct_of
is "$(sacct -n -X -P -j "$jid" -o account,user 2>&1)" "team-b|$UB" "sacct shows bob's job under the account team-b"
pod bob b2
ok wait_for 90 succeeded bob b2 "a second pod of the namespace runs too"
BODY=$(ka create namespace root 2>&1)
like "$BODY" 'The Namespace "root" is invalid: metadata.name: Invalid value: "root": is Slurm.s root account' \
  "a namespace named root is a 422 naming metadata.name"

# --- with slurm.create_accounts, at the namespace's creation ------------------------------------
ns_reason() { ka get namespace "$1" -o jsonpath='{.status.conditions[?(@.type=="SlurmAccountMissing")].status} {.status.conditions[?(@.type=="SlurmAccountMissing")].reason}' 2>/dev/null; }
reason_is() { [ "$(ns_reason "$1")" = "$2" ]; }
ns_events() { ka get events -n default --field-selector involvedObject.kind=Namespace,involvedObject.name="$1" -o jsonpath='{range .items[*]}{.type} {.reason}: {.message}{"\n"}{end}' 2>&1; }
nok has_account team-c "team-c has no Slurm account before its namespace"
printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-c","annotations":{"slurmlink.io/user":"alice"}}}' |
  kc bob create -f - >/dev/null
ok wait_for 30 assoc_has team-c "$UB" "kubectl create namespace team-c by bob: sacctmgr lists the account and bob's association, no pod made"
nok assoc_has team-c "$UA" "... not alice's, whom the client's annotation named"
is "$(ka get namespace team-c -o jsonpath='{.metadata.annotations.slurmlink\.io/user}' 2>&1)" bob \
  "the Namespace's slurmlink.io/user is its creator, the server's"
ka annotate namespace team-c slurmlink.io/user=alice --overwrite >/dev/null 2>&1
is "$(ka get namespace team-c -o jsonpath='{.metadata.annotations.slurmlink\.io/user}' 2>&1)" bob \
  "... and an update (kubectl annotate) keeps it"
ok wait_for 30 reason_is team-c "False AccountCreated" "the Namespace's condition SlurmAccountMissing is False, reason AccountCreated"
like "$(ns_events team-c)" "Normal SlurmAccountCreated: Slurm account team-c and user $UB's association with it made" \
  "a Normal Event SlurmAccountCreated on the Namespace"
ka delete namespace team-c --wait=true --timeout=60s >/dev/null 2>&1
ok has_account team-c "deleting the namespace keeps its Slurm account (accounting history)"

# --- slurmdbd down at the creation: the condition, an Event, the retry --------------------------
dbd=$(cat "$CL/run/slurmdbd.pid")
kill "$dbd" && wait_for 30 proc_gone "$dbd"
kc bob create namespace team-d >/dev/null
ok wait_for 60 reason_is team-d "True AccountCreateFailed" "slurmdbd down: the Namespace's condition is True, reason AccountCreateFailed"
like "$(ns_events team-d)" "Warning SlurmAccountCreateFailed: slurm.create_accounts: sacctmgr add account team-d" \
  "a Warning Event names the sacctmgr command that failed"
# SLURMLINK_DIR marks it as the folder's, as `slurmlink up` starts it: `down` stops it
(cd "$CL" && SLURMLINK_DIR=$CL exec setsid slurmdbd -D >>"$CL/log/slurmdbd.restart.log" 2>&1) &
echo $! >"$CL/run/slurmdbd.pid"
ok wait_for 90 assoc_has team-d "$UB" "slurmdbd back: the retry made the account and bob's association"
ok wait_for 30 reason_is team-d "False AccountCreated" "... and the condition turned False"
