#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# The submission workers killed with many submissions in flight: the test
# build's fault point after-submit kills slurmlinkd (SIGKILL) at its 25th
# submission accepted by slurmctld, while 120 pods are being submitted by
# several workers at once (some accepted, their ids not yet stored; some
# being translated; some queued). So that they are all handed to the
# workers at once, slurmctld is stopped (SIGSTOP) while they are created. Started again, slurmlinkd adopts what
# slurmctld has and submits the rest: exactly one Slurm job per pod uid,
# and each pod records that job. The partition is down: the jobs queue,
# none runs (only submission matters here).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 10
N=120

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
alive() { [ "$(kc get --raw /healthz 2>/dev/null)" = ok ]; }
part=$(sinfo -h -o %R | head -1)
scontrol update PartitionName="$part" State=DOWN

ok restart_with_fault after-submit:25 \
  "slurmlinkd restarts with SLURMLINKD_FAULT=after-submit:25"
armed=$(daemon_pid)
wait_for 30 alive
ctld=$(cat "$CL/run/slurmctld.pid")
for i in $(seq 1 $N); do
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: p$i}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["true"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
done >"$CL/pods.yaml"
kill -STOP "$ctld"
on_exit "kill -CONT $ctld"
kc create -f "$CL/pods.yaml" >"$CL/create.out" 2>&1
is "$(grep -c ' created$' "$CL/create.out")" "$N" "the $N pods are stored while slurmctld is stopped"
kill -CONT "$ctld"
ok wait_for 120 dead "$armed" "slurmlinkd is killed at the fault point, submissions in flight"
like "$(cat "$CL/log/slurmlinkd.log")" "fault injection: after-submit #25" "its log names the fault point"
at_kill=$(squeue -h -t all -o %k | grep -c '^slurmlink:uid=')
diag "slurmctld has $at_kill jobs of pods at the kill"
ok test "$at_kill" -ge 25 -a "$at_kill" -lt "$N" "the kill came with pods submitted and pods left ($at_kill of $N)"

ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again (no fault)"
wait_for 30 alive
all_jobs() { [ "$(kc get pods -o jsonpath='{range .items[*]}{.metadata.annotations.slurmlink\.io/job-id}{"\n"}{end}' | grep -c .)" = "$N" ]; }
ok wait_for 180 all_jobs "every one of the $N pods records a Slurm job"
# uid → job recorded on the pod, and the jobs slurmctld has per uid
kc get pods -o jsonpath='{range .items[*]}{.metadata.uid} {.metadata.annotations.slurmlink\.io/job-id}{"\n"}{end}' |
  sort >"$CL/recorded"
squeue -h -t all -o '%k %i' | sed -n 's/^slurmlink:uid=//p' | sort >"$CL/slurm"
is "$(awk '{print $1}' "$CL/slurm" | uniq -d | wc -l)" 0 "no pod uid has two Slurm jobs"
is "$(wc -l <"$CL/slurm")" "$N" "slurmctld has exactly $N jobs of pods"
is "$(diff "$CL/recorded" "$CL/slurm" && echo same)" same "each pod records the one job that carries its uid"
scontrol update PartitionName="$part" State=UP
