#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# Outages longer than MinJobAge: slurmlinkd is away (kill -9) while its pods'
# jobs finish and slurmctld purges them. Started again, each pod ends with
# its job's real outcome: the shim's record in the pod folder, else
# accounting (--accounting), else Failed with reason JobPurged (the outcome
# is unknown); a graceful delete of such a pod completes.
source "$(dirname "$0")/lib.sh"
plan 22

pod() { # name shell-command
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  restartPolicy: Never\n  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", "%s"]\n    resources: {requests: {cpu: 100m, memory: 32Mi}}\n' "$1" "$2"
}
field() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
jobid() { field "$1" '{.metadata.annotations.slurmlink\.io/job-id}'; }
all_running() { for p in ok0 bad3 kept; do [ "$(field $p '{.status.phase}')" = Running ] || return 1; done; }
dead() { ! kill -0 "$1" 2>/dev/null; }
purged() { for j in "$@"; do scontrol show job "$j" 2>&1 | grep -q 'Invalid job id' || return 1; done; }
settled() { for p in ok0 bad3 kept; do case "$(field $p '{.status.phase}')" in Succeeded|Failed) ;; *) return 1 ;; esac; done; }
none_left() { [ "$(kc get pods -o name | wc -l)" = 0 ]; }

# scenario LABEL [up options]: up to the restart; the caller checks the outcome
scenario() {
  cluster_up --gpus 1 --cpus 4 "${@:2}" || { echo "not ok - cluster up"; exit 1; }
  "$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
  sed -i 's/^MinJobAge=.*/MinJobAge=2/' "$CL/etc/slurm.conf"
  ok scontrol reconfigure "$1: slurmctld keeps finished jobs 2 s only (MinJobAge=2)"
  { pod ok0 "sleep 5; exit 0"; pod bad3 "sleep 5; exit 3"; pod kept "sleep 5; exit 0"; } | kc apply -f - >/dev/null
  ok wait_for 60 all_running "$1: three pods run"
  JOBS="$(jobid ok0) $(jobid bad3) $(jobid kept)"
  local d
  d=$(cat "$CL/run/slurmlinkd.pid")
  kill -9 "$d"
  wait_for 30 dead "$d"
  # shellcheck disable=SC2086
  ok wait_for 120 purged $JOBS "$1: while slurmlinkd is away the jobs end and slurmctld forgets them ($JOBS)"
  # the shim's own record is lost for two of them: only Slurm can tell
  rm -f "$CL"/pods/default/ok0-*/events.jsonl "$CL"/pods/default/bad3-*/events.jsonl
  ok "$SLURMLINK" up --dir "$CL" "$1: slurmlinkd starts again"
  wait_for 60 settled || diag "pods still unsettled"
  grep -i 'purged' "$CL/log/slurmlinkd.log" | sed 's/^/# /'
}

the_end() { # LABEL
  is "$(field kept '{.status.phase}')" Succeeded "$1: the pod whose shim record is kept: Succeeded from it"
  ok kc delete pod ok0 bad3 kept --timeout=60s "$1: a graceful delete of each completes"
  ok wait_for 30 none_left "$1: and no pod is left"
}

# --- without accounting: the outcome is unknown ---------------------------------
scenario "no accounting"
is "$(field ok0 '{.status.phase}/{.status.reason}')" Failed/JobPurged "no accounting: exit 0 pod ends Failed, reason JobPurged"
like "$(field ok0 '{.status.message}')" "^Slurm no longer knows job [0-9]+ and there is no accounting to ask; its outcome is unknown$" "with a message that says the outcome is unknown"
is "$(field bad3 '{.status.phase}/{.status.reason}')" Failed/JobPurged "no accounting: exit 3 pod ends Failed, reason JobPurged"
is "$(field bad3 '{.status.containerStatuses[0].state.terminated.reason}')" ContainerStatusUnknown "its container is terminated with reason ContainerStatusUnknown"
the_end "no accounting"
"$SLURMLINK" down --dir "$CL" >/dev/null 2>&1

# --- with accounting: slurmdbd knows how each job ended ----------------------------
scenario "accounting" --accounting
is "$(field ok0 '{.status.phase}')" Succeeded "accounting: the exit 0 pod ends Succeeded"
is "$(field ok0 '{.status.containerStatuses[0].state.terminated.exitCode}')" 0 "with exit code 0"
is "$(field bad3 '{.status.phase}')" Failed "accounting: the exit 3 pod ends Failed"
is "$(field bad3 '{.status.containerStatuses[0].state.terminated.exitCode}')" 3 "with exit code 3"
the_end "accounting"
