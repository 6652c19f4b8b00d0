#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/ctl/pull.c src/image/
# 86-jobs-pull.t — a Job's pods whose image is in a registry go through the
# image pull worker, as a single pod does (src/ctl/pull.c), before the
# array is submitted: a real docker-registry on loopback, an image built
# with umoci from busybox-static and pushed with skopeo.
#   - an Indexed Job 2/2 of the registry image: each pod Pulling / Pulled,
#     its imageID, then ONE array, the Job completes;
#   - a Job of a missing tag: its pod waits ErrImagePull / ImagePullBackOff
#     (Failed and BackOff events), Pending, no Slurm job, the Job not failed.
source "$(dirname "$0")/lib.sh"
plan 10

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"
push_busybox "$T" team/app:v1

cluster_up --cpus 4 || bail "cluster up"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
job() { # name image completions
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  completions: $3
  parallelism: $3
  completionMode: Indexed
  template:
    metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: $2
        command: [sh, -c, 'echo "pulled index=\$JOB_COMPLETION_INDEX"']
YAML
}
reasons() { kc get events --field-selector "involvedObject.name=$1" --sort-by=.metadata.creationTimestamp -o jsonpath='{range .items[*]}{.reason} {end}' 2>&1; }

job reg "$REG/team/app:v1" 2 | kc apply -f - >/dev/null
ruid=$(jp job/reg '{.metadata.uid}')
ok kc wait --for=condition=complete job/reg --timeout=180s "a Job of a registry image completes"
if ! kc get job reg -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}' | grep -q True; then
  diag "$(kc get pods -l job-name=reg -o jsonpath='{range .items[*]}{.metadata.name} {.status}{"\n"}{end}' 2>&1)"
fi
logs=$(for p in $(kc get pods -l job-name=reg -o name); do kc logs "$p"; done | sort | tr '\n' ' ')
is "$logs" "pulled index=0 pulled index=1 " "both pods ran the image, each once (no job of its own beside the array)"
if [ "$logs" != "pulled index=0 pulled index=1 " ]; then
  diag "$(kc get pods -l job-name=reg -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.status.reason} {.metadata.annotations}{"\n"}{end}' 2>&1)"
  diag "$(grep -E 'job default/reg|pod default/reg' "$CL/log/slurmlinkd.log" | tail -20)"
fi
pods=$(kc get pods -l job-name=reg -o jsonpath='{.items[*].metadata.name}')
n=0; for p in $pods; do [[ "$(reasons "$p")" =~ Pulling\ .*Pulled\ .*Started ]] && n=$((n + 1)); done
is "$n" 2 "each pod: events Pulling, Pulled, then Started" ||
  diag "$(for p in $pods; do echo "$p: $(reasons "$p")"; done)"
is "$(kc get pods -l job-name=reg -o jsonpath='{range .items[*]}{.status.containerStatuses[0].imageID}{"\n"}{end}' | sort -u | sed "s/@sha256:[0-9a-f]*$/@D/")" \
  "$REG/team/app@D" "containerStatuses[0].imageID of the pulled image"
is "$(jp job/reg '{.metadata.annotations.slurmlink\.io/slurm-arrays}' | tr ',' '\n' | grep -c '^[0-9][0-9]*$')" 1 "one array for the Job"

job miss "$REG/team/app:nope" 1 | kc apply -f - >/dev/null
muid=$(jp job/miss '{.metadata.uid}')
mpod() { kc get pods -l job-name=miss -o name 2>/dev/null | head -1; }
wr() { p=$(mpod); [ -n "$p" ] && kc get "$p" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
is_backoff() { [ "$(wr)" = ImagePullBackOff ]; }
ok wait_for 60 is_backoff "a missing tag: the Job's pod waits ImagePullBackOff"
like "$(reasons "$(mpod | sed 's|^pod/||')")" 'Pulling .*Failed .*BackOff' "events Pulling, Failed, BackOff"
is "$(jp "$(mpod)" '{.status.phase}')" Pending "the pod stays Pending"
is "$(squeue -h -t all -o '%k' | grep -c "slurmlink:uid=$muid")" 0 "no Slurm job for it"
unlike "$(jp job/miss '{.status.conditions[*].type}')" 'Failed' "the Job has not failed"
