#!/bin/bash
# covers: src/kinds/lws/ src/ctl/gang.c
# 89-lws-update.t — a LeaderWorkerSet's groups (each ONE gang Slurm job)
# through a rolling update and slurmlinkd's crashes, on a real two-node
# cluster with the real kubectl (host runtime):
#   - a template change: every group recreated from the new template, one
#     at a time (maxUnavailable 1), each a new Slurm job; updatedReplicas,
#     UpdateInProgress then Available;
#   - rollingUpdateConfiguration.partition: groups below it keep theirs;
#   - kill -9 of slurmlinkd while the groups run: after the restart the
#     same pods and the same Slurm jobs, none submitted again;
#   - kill -9 right after a group's submission (fault point
#     after-gang-submit, the ASan build): the job it left is adopted, ONE
#     Slurm job for the group.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 15

cluster_up --nodes 2 --cpus 4 || bail "cluster up --nodes 2"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
lws() { # name replicas version [partition]
  cat <<YAML
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: $1}
spec:
  replicas: $2${4:+
  rolloutStrategy: {rollingUpdateConfiguration: {partition: $4\}\}}
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata: {annotations: {slurmlink.io/runtime: host}}
      spec:
        containers:
        - name: srv
          image: busybox
          command: [sh, -c, 'echo "v=\$VERSION w=\$LWS_WORKER_INDEX"; exec sleep 600']
          env: [{name: VERSION, value: "$3"}]
YAML
}
jobs_of() { squeue -h -o '%i %j' | awk -v n="default/$1" '$2 == n {print $1}' | sort -n | tr '\n' ' '; }
uids_of() { kc get pods -l "leaderworkerset.sigs.k8s.io/name=$1" -o jsonpath='{range .items[*]}{.metadata.uid} {end}' 2>&1; }

# --- rolling update ---------------------------------------------------------------------------------
lws roll 2 1 | kc apply -f - >/dev/null
ok kc wait --for=condition=Available lws/roll --timeout=90s "2 groups x size 2: Available"
old=$(jobs_of roll)
lws roll 2 2 | kc apply -f - >/dev/null
updated() { [ "$(jp lws/roll '{.status.updatedReplicas} {.status.readyReplicas} {.status.conditions[?(@.type=="Available")].status}')" = "2 2 True" ]; }
ok wait_for 120 updated "the template changed: both groups updated and ready again" ||
  diag "$(kc get pods 2>&1; jp lws/roll '{.status}')"
logs=$(for p in roll-0 roll-0-1 roll-1 roll-1-1; do kc logs "$p" 2>&1; done | tr '\n' ' ')
is "$logs" "v=2 w=0 v=2 w=1 v=2 w=0 v=2 w=1 " "every pod runs the new template"
new=$(jobs_of roll)
is "$(wc -w <<<"$new")|$(comm -12 <(tr ' ' '\n' <<<"$old" | grep . | sort) <(tr ' ' '\n' <<<"$new" | grep . | sort) | wc -l)" "2|0" \
  "two Slurm jobs, both new ($old -> $new)"
is "$(jp lws/roll '{.status.conditions[?(@.type=="UpdateInProgress")].status}')" "False" "UpdateInProgress was True, False once done"
msgs=$(kc get events --field-selector involvedObject.name=roll -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1)
is "$(grep -c '^GroupsUpdating: Group [01] is recreated from the new template$' <<<"$msgs")|$(grep -c '^GroupsUpdating: Rolling Upgrade is in progress, with [0-9] groups ready of total 2 groups$' <<<"$msgs" | sed 's/^[1-9][0-9]*$/some/')" "2|some" \
  "events: each group recreated once, the update in progress" || diag "$msgs"

# --- a partition: the groups below it keep their template -------------------------------------------
lws roll 2 3 1 | kc apply -f - >/dev/null
parted() { [ "$(kc logs roll-1-1 2>&1)" = "v=3 w=1" ] &&
  [ "$(jp lws/roll '{.status.updatedReplicas} {.status.readyReplicas} {.status.conditions[?(@.type=="Available")].status}')" = "1 2 True" ]; }
ok wait_for 90 parted "partition 1: group 1 updated, Available with updatedReplicas 1" || diag "$(jp lws/roll '{.status}')"
is "$(kc logs roll-0 2>&1)" "v=2 w=0" "... group 0 keeps the template it had"

# --- kill -9 while the groups run --------------------------------------------------------------------
before="$(jobs_of roll)|$(uids_of roll)"
victim=$(daemon_pid); kill -9 "$victim"; wait_for 30 dead "$victim"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again after kill -9"
wait_for 30 kc get lws roll
ok kc wait --for=condition=Available lws/roll --timeout=60s "... the LWS is Available"
is "$(jobs_of roll)|$(uids_of roll)" "$before" "the same Slurm jobs and pods: nothing submitted again"

# --- kill -9 right after a submission ------------------------------------------------------------------
ok restart_with_fault after-gang-submit:1 "slurmlinkd restarts with SLURMLINKD_FAULT=after-gang-submit:1"
armed=$(daemon_pid)
lws crash 1 1 | kc apply -f - >/dev/null
ok wait_for 60 dead "$armed" "slurmlinkd is killed at the fault point"
first=$(jobs_of crash)
"$SLURMLINK" up --dir "$CL" >/dev/null 2>&1
ok kc wait --for=condition=Available lws/crash --timeout=60s "... and the group runs (Available)" ||
  diag "$(kc get pods -o wide 2>&1; jp lws/crash '{.status}'; squeue 2>&1; grep -i 'crash' "$CL/log/slurmlinkd.log" | tail -30; kc describe pod crash-0-1 | tail -15; for f in $(find "$CL" -path "*crash-0*" \( -name job.out -o -name "*.log" \) 2>/dev/null); do echo "== $f"; tail -5 "$f"; done)"
is "$(jobs_of crash)|$(grep -c "adopted Slurm job ${first% }" "$CL/log/slurmlinkd.log")" "$first|1" \
  "ONE Slurm job for the group, the one submitted before the kill, adopted ($first)"
