#!/bin/bash
# covers: src/podfs/ src/common/safefs.c src/shim/
# 64-attack-fs.t — a hostile tenant against the root daemon's file handling
# (docs/security.md, "The pod folder"): two real Unix users, alice ($UA) and
# bob ($UB), on a real cluster; alice attacks from her own Unix account
# (runuser) and from inside her jobs:
#   1. a ConfigMap whose items collide (a, a/x) made the folder write fail and
#      retry while alice swapped volumes/v for a symlink to the cluster's
#      etc/: root wrote etc/tokens.csv owned by her. Now refused at admission
#      (colliding paths, "..", a folder name too long), and the folder is
#      written fresh, beneath dir fds, never through a link;
#   2. `kubectl logs` with logs/main/9.log a symlink to a root-only file, or
#      logs/main a symlink to bob's logs; an over-long line is emitted in
#      bounded pieces; a huge sparse log without a newline is not buffered;
#   3. events.jsonl a FIFO she holds open does not stop the controller;
#   4. a memory emptyDir folder pre-created by bob is refused, not used;
#   5. secret files, /dev/shm scratch and (on delete) the pod folder go away.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 27
sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
as_a() { runuser -u "$UA" -- "$@"; }
as_b() { runuser -u "$UB" -- "$@"; }
uid_of() { ka get pod "$1" -n "${2:-team-a}" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
phase() { ka get pod "$1" -n "${2:-team-a}" -o jsonpath='{.status.phase}' 2>/dev/null; }
job_of() { ka get pod "$1" -n "${2:-team-a}" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
has_job() { [ -n "$(job_of "$@")" ]; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
# pod NAME SCRIPT [spec fields json] [annotations json] [cc] [volumeMounts json]
# (the host runtime, unless "cc": charliecloud with the stored busybox image)
hostpod() {
  local x=${3:-} a=${4:-} m=${6:-}
  jq -n --arg n "$1" --arg s "$2" --argjson x "${x:-null}" --argjson a "${a:-null}" --arg cc "${5:-}" \
    --argjson m "${m:-null}" '{apiVersion: "v1", kind: "Pod",
      metadata: {name: $n, annotations: (($a // {}) + (if $cc == "" then {"slurmlink.io/runtime": "host"} else {} end))},
      spec: ({restartPolicy: "Never", containers: [{name: "main", image: "busybox", command: ["sh", "-c", $s],
        resources: {requests: {cpu: "100m", memory: "64Mi"}}} + (if $m then {volumeMounts: $m} else {} end)]}
        + ($x // {}))}'
}
SECRET=/root/sl-secret.$$
on_exit "rm -f '$SECRET'"
printf 'root only file ROOT-ONLY-%s\n' $$ >"$SECRET"
chmod 600 "$SECRET"
TOK_BEFORE=$(stat -c '%U %a %s' "$CL/etc/tokens.csv")

# --- 1. the folder write: collisions, "..", long names; never through a link ------------
ka create configmap cm -n team-a --from-literal=k1=evil,admin-token,admin,admin --from-literal=k2=x >/dev/null
out=$(hostpod p1 'sleep 1' '{"volumes":[{"name":"v","configMap":{"name":"cm","items":[{"key":"k1","path":"tokens.csv"},{"key":"k2","path":"tokens.csv/x"}]}}]}' \
  | kc alice create -f - 2>&1)
# on the unfixed daemon the pod is taken and retried: swap the folder meanwhile
swapped() {
  local u; u=$(uid_of p1)
  [ -n "$u" ] && [ -d "$CL/pods/team-a/p1-$u/volumes/v" ] || return 1
  as_a sh -c "rm -rf '$CL/pods/team-a/p1-$u/volumes/v' && ln -s '$CL/etc' '$CL/pods/team-a/p1-$u/volumes/v'"
}
attack_over() { [ "$(stat -c %U "$CL/etc/tokens.csv")" = "$UA" ] || [ -z "$(uid_of p1)" ]; }
[ -n "$(uid_of p1)" ] && wait_for 20 swapped && wait_for 30 attack_over
is "$out" 'The Pod "p1" is invalid: spec.volumes[0].configMap.items[1].path: Invalid value: "tokens.csv/x": must not be inside the file of items[0].path "tokens.csv"' \
  "colliding configMap item paths: 422 naming the item"
is "$(stat -c '%U %a %s' "$CL/etc/tokens.csv")" "$TOK_BEFORE" "the cluster's tokens.csv is untouched (still root's, same mode and size)"
out=$(hostpod p2 'sleep 1' '{"volumes":[{"name":"t","projected":{"sources":[{"serviceAccountToken":{"path":"../../etc/x"}}]}}]}' \
  | kc alice create -f - 2>&1)
like "$out" 'spec.volumes\[0\].projected.sources\[0\].serviceAccountToken.path: Invalid value: "../../etc/x": must not contain' \
  "a serviceAccountToken path with '..': 422 naming the field"
long=$(printf 'n%.0s' $(seq 253))
out=$(hostpod "$long" 'sleep 1' | kc alice create -f - 2>&1)
like "$out" "metadata.name: Invalid value: \"$long\": must be no more than 218 characters: the pod folder <name>-<uid> must fit in a file name" "a 253-character pod name (folder name too long): 422 at admission"
is "$(ka get pods -n team-a -o name 2>&1)" "" "none of them became a pod"

# --- 2. kubectl logs ---------------------------------------------------------------------
hostpod bl 'echo bob-private-output; sleep 2' | kc bob create -f - >/dev/null
hostpod la 'echo alice-line; sleep 600' | kc alice create -f - >/dev/null
ok wait_for 60 is_phase bl team-b Succeeded "bob's pod succeeds"
ok wait_for 60 is_phase la team-a Running "alice's pod runs"
PA=$CL/pods/team-a/la-$(uid_of la)
PB=$CL/pods/team-b/bl-$(uid_of bl team-b)
alice_logged() { kc alice logs la 2>/dev/null | grep -q alice-line; }
ok wait_for 20 alice_logged "alice's log reads back"
as_a ln -s "$SECRET" "$PA/logs/main/9.log"
out=$(kc alice logs la 2>&1)
unlike "$out" "ROOT-ONLY" "logs/main/9.log -> a root-only file: not read"
like "$out" "alice-line" "... the real log is read instead"
as_a rm -f "$PA/logs/main/9.log"
as_a mv "$PA/logs/main" "$PA/logs/main.real"
as_a ln -s "$PB/logs/main" "$PA/logs/main"
out=$(kc alice logs la 2>&1)
unlike "$out" "bob-private-output" "logs/main -> bob's log folder: bob's output is not read"
as_a rm -f "$PA/logs/main"
as_a mv "$PA/logs/main.real" "$PA/logs/main"
# an over-long line without its newline: bounded pieces, as CRI partial lines
as_a sh -c "printf '2026-01-01T00:00:00.000000000Z stdout F ' >'$PA/logs/main/7.log'; head -c 3000000 /dev/zero | tr '\\0' a >>'$PA/logs/main/7.log'"
is "$(kc alice logs la --limit-bytes=100 2>&1)" "$(printf 'a%.0s' $(seq 100))" "a 3 MB line without a newline: the first bytes come in a bounded piece"
# a sparse 768 MB log without a newline is not buffered whole
D=$(procs_of "$CL" | while read -r p; do [ "$(cat /proc/$p/comm 2>/dev/null)" = slurmlinkd ] && echo "$p"; done | head -1)
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$D/status"; }
h0=$(hwm)
as_a sh -c "truncate -s 768M '$PA/logs/main/8.log'"
kc alice logs la --request-timeout=60s >/dev/null 2>&1
h1=$(hwm)
ok test "$((h1 - h0))" -lt 102400 "a 768 MB log without a newline: slurmlinkd's peak memory grew $(( (h1 - h0) / 1024 )) MB (< 100 MB)"
as_a rm -f "$PA/logs/main/7.log" "$PA/logs/main/8.log"

# --- 3. events.jsonl as a FIFO alice holds open -------------------------------------------
hostpod lf 'sleep 5' '' '{"slurm-job.vk.io/flags":"--begin=now+600"}' | kc alice create -f - >/dev/null
ok wait_for 30 has_job lf team-a "alice's held-back pod has a (pending) job"
PF=$CL/pods/team-a/lf-$(uid_of lf)
FIFO=$(as_a mktemp -u /tmp/sl-fifo.XXXXXX)
as_a mkfifo "$FIFO"
on_exit "rm -f '$FIFO'"
as_a sh -c "rm -f '$PF/events.jsonl'; ln -s '$FIFO' '$PF/events.jsonl'"
runuser -u "$UA" -- sh -c "exec 3<>'$FIFO'; exec sleep 120" >/dev/null 2>&1 &
HOLDER=$!
on_exit "kill $HOLDER"
as_a scontrol update JobId="$(job_of lf)" StartTime=now >/dev/null 2>&1
ok wait_for 30 is_phase lf team-a Succeeded "the pod with events.jsonl -> FIFO still runs to its end"
hostpod bf 'true' | kc bob create -f - >/dev/null
ok wait_for 30 has_job bf team-b "... and the controller still submits bob's next pod"
kill "$HOLDER" 2>/dev/null

# --- 4. a memory emptyDir folder pre-created by another tenant ------------------------------
hostpod lm 'echo victim-data >/var/tmp/f; sleep 3' '{"volumes":[{"name":"m","emptyDir":{"medium":"Memory"}}]}' \
  '{"slurm-job.vk.io/flags":"--begin=now+600"}' cc '[{"name":"m","mountPath":"/var/tmp"}]' | kc alice create -f - >/dev/null
ok wait_for 30 has_job lm team-a "alice's memory-emptyDir pod has a (pending) job"
SHM=/dev/shm/slurmlink-$(uid_of lm)
as_b mkdir -m 0777 "$SHM"
as_b mkdir -m 0777 "$SHM/m"
on_exit "rm -rf '$SHM'"
# bob copies whatever appears in his folder
CAP=$(as_b mktemp /tmp/sl-cap.XXXXXX)
on_exit "rm -f '$CAP'"
runuser -u "$UB" -- sh -c "while :; do cat '$SHM/m/f' >'$CAP' 2>/dev/null && [ -s '$CAP' ] && exit; sleep 0.05; done" >/dev/null 2>&1 &
SPY=$!
on_exit "kill $SPY"
as_a scontrol update JobId="$(job_of lm)" StartTime=now >/dev/null 2>&1
lm_over() { p=$(phase lm); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
ok wait_for 60 lm_over "the pod runs to an end"
kill "$SPY" 2>/dev/null
is "$(cat "$CAP")$(ls -A "$SHM/m" 2>&1)" "" "bob's pre-created folder received nothing of alice's"
like "$(cat "$CL/pods/team-a/lm-$(uid_of lm)/job.out" 2>&1)" "cannot create $SHM for the pod's memory emptyDirs \\(it must not exist already\\)" \
  "... the job refused it, saying why"

# --- 5. nothing outlives the pod ------------------------------------------------------------
ka create secret generic s -n team-a --from-literal=key=s3cret >/dev/null
hostpod ls 'cat /home/key; echo x >/var/tmp/f' '{"volumes":[{"name":"sec","secret":{"secretName":"s"}},{"name":"m","emptyDir":{"medium":"Memory"}}]}' \
  '' cc '[{"name":"sec","mountPath":"/home"},{"name":"m","mountPath":"/var/tmp"}]' | kc alice create -f - >/dev/null
ok wait_for 60 is_phase ls team-a Succeeded "a pod with a secret and a memory emptyDir succeeds"
PS=$CL/pods/team-a/ls-$(uid_of ls)
is "$(kc alice logs ls 2>&1)" "s3cret" "... its container read the secret"
no_secret() { [ -d "$PS/volumes" ] && [ -z "$(find "$PS/volumes" -type f 2>/dev/null)" ]; }
ok wait_for 30 no_secret "the secret's files are removed when the pod's job ends"
no_shm() { ! ls -d "/dev/shm/slurmlink-$(uid_of ls)"* >/dev/null 2>&1; }
ok wait_for 30 no_shm "the /dev/shm scratch is removed when the pod's job ends"
ok test -s "$PS/logs/main/0.log" "the logs stay while the pod object exists"
ka delete pod ls -n team-a --wait=true >/dev/null 2>&1
gone() { [ ! -e "$PS" ]; }
ok wait_for 30 gone "the pod folder is removed when the pod object is deleted"
ka delete pod --all -n team-a --wait=true >/dev/null 2>&1
ka delete pod --all -n team-b --wait=true >/dev/null 2>&1
empty() { [ -z "$(ls -A "$CL/pods/team-a" "$CL/pods/team-b" 2>/dev/null | grep -v ':$' | grep .)" ]; }
ok wait_for 60 empty "no pod folder is left once every pod is deleted"
