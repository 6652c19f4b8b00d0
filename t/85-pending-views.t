#!/bin/bash
# covers: src/ctl/podstatus.c src/slurmif/ src/ctl/
# 85-pending-views.t — the job poll reads a pod from the store only when
# Slurm's view of its job changed, or the pod did, since the view was last
# applied. While any pod's job pends, slurmlinkd reads slurmctld's whole
# job list every 2 s (pending reasons change without moving the list's
# update time); with thousands of jobs queued, reading and comparing every
# pod each time is most of the controller's work. The counter
# slurmlink_job_views_total{result} says how many views were applied (the
# pod read) and how many were found unchanged. Then: a view that changes (a
# job held) and a pod that changes (its status written by someone else)
# are still applied at the next poll. On the code before, every poll
# applied every job's view. Last, the views that change in one poll are
# written in one store transaction (slurmlink_store_commits_total), not one
# each as on the code before. And the controller reads those writes of its
# own (each pod's job id and pending reason) back from the change log
# without parsing them (slurmlink_controller_changes_total{read="own"}); on
# the code before it parsed every change. The batch's views are drafted
# outside the store's writer lock (slurmlink_store_drafts_total).
source "$(dirname "$0")/lib.sh"
plan 13

N=20
cluster_up --cpus 16 || bail "slurmlink up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
views() { kc get --raw /metrics | awk -v r="$1" '$1 == "slurmlink_job_views_total{result=\"" r "\"}" {v = $2} END {print v + 0}'; }
node=$(sinfo -h -N -o %N | head -1)
scontrol update NodeName="$node" State=DRAIN Reason=hold
for i in $(seq 1 $N); do
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%s}\nspec:\n  restartPolicy: Never\n  containers:\n  - {name: c, image: busybox, command: [sleep, "300"]}\n' "$i"
done | kc create -f - >/dev/null
job() { kc get pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}'; }
msg() { kc get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
# every pod's message gives its job's pending reason, past the first (None)
settled() {
  local i j m
  for i in $(seq 1 $N); do
    j=$(job "p$i") m=$(msg "p$i")
    [ -n "$j" ] && [[ $m == "Slurm job $j is pending: "* ]] && [[ $m != *": None" ]] || return 1
  done
}
ok wait_for 60 settled "$N pods pend with the node drained, each saying its job's pending reason"
changes() { kc get --raw /metrics | awk -v r="$1" '$1 == "slurmlink_controller_changes_total{read=\"" r "\"}" {v = $2} END {print v + 0}'; }
# the reasons' writes seen back by the controller
own_seen() { [ "$(changes own)" -ge $((2 * N)) ] && [ "$(changes parsed)" -ge "$N" ]; }
ok wait_for 60 own_seen "the controller passed its own writes by unparsed, two a pod at least" ||
  diag "own: $(changes own), parsed: $(changes parsed)"
a0=$(views applied) u0=$(views unchanged)
# two full reads of the job list at least (one each 2 s while jobs pend)
compared() { [ "$(views unchanged)" -ge $((u0 + 2 * N)) ]; }
ok wait_for 60 compared "the polls compared the $N jobs' views again and again (unchanged from $u0)" ||
  diag "unchanged: $u0 → $(views unchanged)"
a1=$(views applied)
# a job's reason may still change in a scheduling pass: fewer than one poll's
# worth of reads (every poll read all $N pods on the code before)
ok test $((a1 - a0)) -lt $N "... and read (almost) no pod from the store (applied: $a0 → $a1)"

j1=$(job p1)
scontrol hold "$j1"
held() { [ "$(msg p1)" = "Slurm job $j1 is pending: JobHeldAdmin" ]; }
ok wait_for 15 held "a view that changes is applied: p1's job held, its message says JobHeldAdmin"
a2=$(views applied)
ok awk -v a="$a1" -v b="$a2" 'BEGIN { exit !(b > a) }' "... counted as applied ($a1 → $a2)"

# someone else writes p2's status; the next poll puts Slurm's view back
j2=$(job p2)
written=$(kc patch pod p2 --subresource=status --type=json -o jsonpath='{.status.conditions[0].message}' \
  -p '[{"op":"replace","path":"/status/conditions/0/message","value":"written by hand"}]')
is "$written" "written by hand" "p2's status written by someone else"
back() { [[ $(msg p2) == "Slurm job $j2 is pending: "* ]]; }
ok wait_for 15 back "a pod that changed is read again: the poll writes Slurm's view back"

a3=$(views applied) u3=$(views unchanged)
full_poll() { [ "$(views unchanged)" -ge $((u3 + N)) ]; }
wait_for 60 full_poll # a full read of the job list has compared them all again
a4=$(views applied)
ok test $((a4 - a3)) -lt $N "once written, nothing more is read (applied: $a3 → $a4)"

# the rest of the queue held at once: the next poll writes those pods' new
# reasons together (in groups of up to 64), one commit
commits() { kc get --raw /metrics | awk '$1 == "slurmlink_store_commits_total" {v = $2} END {print v + 0}'; }
rest=$(for i in $(seq 3 $N); do echo "$(job "p$i")"; done | paste -sd,)
drafts() { kc get --raw /metrics | awk '$1 ~ /^slurmlink_store_drafts_total\{/ {v += $2} END {print v + 0}'; }
c0=$(commits) d0=$(drafts)
scontrol hold "$rest"
all_held() {
  local i
  for i in $(seq 3 $N); do [[ $(msg "p$i") == *": JobHeldAdmin" ]] || return 1; done
}
ok wait_for 20 all_held "$((N - 2)) jobs held at once: each pod says JobHeldAdmin"
c1=$(commits)
ok test $((c1 - c0)) -ge 1 -a $((c1 - c0)) -lt $(((N - 2) / 2)) \
  "... their $((N - 2)) pods written in fewer commits than half of them ($c0 → $c1; one each before)"
# each view made on the pod as read, outside the store's writer lock, and
# written as a draft (the batch holds the writer for the rows and the
# commit); on the code before each was made under the lock: no draft
d1=$(drafts)
ok test $((d1 - d0)) -ge $((N - 2)) "... each of them written as a draft of its view ($d0 → $d1 drafts)"
scontrol release "$rest"
scontrol update NodeName="$node" State=RESUME
ok wait_for 60 kc wait --for=jsonpath='{.status.phase}'=Running pod/p3 --timeout=5s "the node back: the pods run"
