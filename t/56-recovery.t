#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# slow
# serial: 200 pods, daemons killed and restarted, a 30 s slurmctld outage: not beside another heavy file
# Nothing lost: slurmlinkd killed while 200 pods are created, run and finish;
# slurmctld away for 30 s; a node dying under running pods.
source "$(dirname "$0")/lib.sh"
plan 21

cluster_up --gpus 1 --cpus 8 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
pod() { # name restartPolicy shell-command
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  restartPolicy: %s\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", "%s"]\n    resources: {requests: {cpu: 100m, memory: 32Mi}}\n' "$1" "$2" "$3"
}
count_phase() { kc get pods -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c "^$1$"; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
restart_daemon() { "$SLURMLINK" up --dir "$CL" >/dev/null 2>&1; }

# --- kill -9 slurmlinkd while 200 pods are created, running and finishing --------
N=200
for i in $(seq 1 $N); do pod "p$i" Never "sleep 1"; done > "$CL/many.yaml"
kc apply -f "$CL/many.yaml" >/dev/null 2>&1 &
applier=$!
some() { [ "$(kc get pods -o name 2>/dev/null | wc -l)" -ge 30 ]; }
wait_for 60 some
created_before=$(kc get pods -o name 2>/dev/null | wc -l)
kill -9 "$(daemon_pid)"
wait $applier
ok restart_daemon "slurmlinkd restarts after kill -9 (during creation)"
kc apply -f "$CL/many.yaml" >/dev/null 2>&1
is "$(kc get pods -o name | grep -c '^pod/p')" "$N" "all $N pods exist after re-applying"
half() { [ "$(count_phase Succeeded)" -ge $((N / 3)) ]; }
ok wait_for 180 half "a third of them finished"
old=$(daemon_pid)
kill -9 "$old"
dead() { ! kill -0 "$1" 2>/dev/null; }
wait_for 30 dead "$old"
ok restart_daemon "slurmlinkd restarts after kill -9 (while pods run and finish)"
all_done() { [ "$(count_phase Succeeded)" = "$N" ]; }
ok wait_for 300 all_done "every pod converges to Succeeded"
is "$(count_phase Failed)" 0 "none failed"
uids=$(kc get pods -o jsonpath='{range .items[*]}{.metadata.uid}{"\n"}{end}' | sort)
comments=$(squeue -h -t all -o '%k' | sed -n 's/^slurmlink:uid=//p' | sort)
is "$(printf '%s\n' "$comments" | uniq -d | wc -l)" 0 "no pod was submitted twice (one Slurm job per pod uid)"
is "$(comm -23 <(printf '%s\n' "$uids") <(printf '%s\n' "$comments") | wc -l)" 0 "every pod has its Slurm job"
diag "pods created before the first kill: $created_before"
kc delete pods --all --grace-period=0 --force >/dev/null 2>&1
gone() { [ "$(kc get pods -o name | wc -l)" = 0 ]; }
ok wait_for 60 gone "force-deleting every pod empties the namespace"

# --- slurmctld away for 30 s -------------------------------------------------------
ctld=$(cat "$CL/run/slurmctld.pid")
kill "$ctld"
wait_for 30 dead "$ctld"
t0=$SECONDS
for i in 1 2 3; do pod "w$i" Never "echo ran"; done | kc apply -f - >/dev/null
waits() { kc get pod w3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' | grep -q 'Slurm controller'; }
ok wait_for 20 waits "pods created while slurmctld is down say they wait for the Slurm controller"
is "$(kc get pod w1 -o jsonpath='{.status.phase}')" "Pending" "and are Pending"
sleep $((30 - (SECONDS - t0)))
ok "$SLURMLINK" up --dir "$CL" "slurmctld is started again after 30 s"
ran() { for w in w1 w2 w3; do [ "$(kc get pod $w -o jsonpath='{.status.phase}')" = Succeeded ] || return 1; done; }
t1=$SECONDS
ok wait_for 150 ran "the waiting pods run and succeed once slurmctld is back" || {
  kc get pods -o custom-columns='N:.metadata.name,P:.status.phase,R:.status.reason,M:.status.conditions[?(@.type=="PodScheduled")].message' | sed 's/^/# /'
  squeue -h -t all -o '%i %j %T %r' | grep default/w | sed 's/^/# /'
  tail -n 15 "$CL/log/slurmlinkd.log" | sed 's/^/# /'
}
diag "the waiting pods succeeded $((SECONDS - t1)) s after slurmctld was started again"
is "$(squeue -h -t all -o '%j' | grep -c '^default/w')" 3 "exactly one job each"
kc delete pods --all --grace-period=0 --force >/dev/null 2>&1
wait_for 60 gone

# --- a node dies under running pods ------------------------------------------------
# the OnFailure pod runs long the first time, briefly once Slurm requeued it
{ pod dead1 Never "sleep 300"; pod dead2 Never "sleep 300"; pod again OnFailure 'test ${SLURM_RESTART_COUNT:-0} -gt 0 && exit 0; sleep 300'; } | kc apply -f - >/dev/null
running() { [ "$(count_phase Running)" = 3 ]; }
ok wait_for 60 running "three pods run"
kill -9 "$(cat "$CL/run/slurmd.pid")"
lost() { [ "$(kc get pod dead1 -o jsonpath='{.status.phase}/{.status.reason}')" = "Failed/NodeLost" ] && [ "$(kc get pod dead2 -o jsonpath='{.status.phase}/{.status.reason}')" = "Failed/NodeLost" ]; }
ok wait_for 90 lost "restartPolicy Never pods end Failed with reason NodeLost"
like "$(kc get events --field-selector involvedObject.name=dead1 -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}')" "Failed: Node node1 which was running pod dead1 is unresponsive" "with an event naming the node"
requeued() { kc get pod again -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' | grep -q 'requeued'; }
ok wait_for 30 requeued "the OnFailure pod's job is requeued by Slurm (the pod says so)"
ok "$SLURMLINK" up --dir "$CL" "slurmd is started again"
ok test "$(kc get pod dead1 -o jsonpath='{.status.phase}/{.status.reason}')" = "Failed/NodeLost" "the lost pods stay Failed after the node returns"
back() { [ "$(kc get pod again -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 150 back "the requeued pod runs again and succeeds (Slurm holds a requeued job for cred_expire, 30 s here)"
done_testing
