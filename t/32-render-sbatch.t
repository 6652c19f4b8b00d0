#!/bin/bash
# covers: src/cmd/render.c src/translate/ src/shim/
# Rendered batch scripts run by plain sbatch on the real local cluster:
# charliecloud and host runtimes, GPUs through GRES, logs, exit codes,
# restarts, an init container failing, SIGTERM with the grace period.
source "$(dirname "$0")/lib.sh"
plan 20

cluster_up --gpus 2 --cpus 4 || bail "cluster up"
STORE=$CL/images
"$SLURMLINK" image import busybox --busybox --store "$STORE" >/dev/null
SHIM=$(dirname "$SLURMLINKD")/slurmlink-shim
render_submit() { # name yaml → prints the job id; pod folder in $CL/pods/default/<name>-<uid>
  printf '%s\n' "$2" > "$CL/$1.yaml"
  "$SLURMLINK" render --write --shim "$SHIM" --pods-root "$CL/pods" --image-store "$STORE" \
    --uid "00000000-0000-0000-0000-0000000000$3" "$CL/$1.yaml" >/dev/null || return 1
  sbatch --parsable "$CL/pods/default/$1-00000000-0000-0000-0000-0000000000$3/job.sh"
}
podir() { echo "$CL/pods/default/$1-00000000-0000-0000-0000-0000000000$2"; }
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_exit() { scontrol show job "$1" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p'; }
finished() { case "$(job_state "$1")" in COMPLETED|FAILED|CANCELLED|TIMEOUT) return 0;; esac; return 1; }
log() { sed 's/^[^ ]* \(stdout\|stderr\) [FP] //' "$1/logs/$2/${3:-0}.log" 2>/dev/null; }

# GPU pod with charliecloud: its own GPU through GRES
j1=$(render_submit gpu "apiVersion: v1
kind: Pod
metadata: {name: gpu, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'echo gpu=\$CUDA_VISIBLE_DEVICES; echo to-stderr >&2']
    resources: {limits: {nvidia.com/gpu: 1}}" 01)
ok test -n "$j1" "sbatch accepts the rendered script of a GPU pod"
like "$(scontrol show job "$j1" | tr ' ' '\n' | grep -E '^(JobName|TresPerNode|Comment)=' | sort | tr '\n' ' ')" "Comment=slurmlink:uid=00000000-0000-0000-0000-000000000001 JobName=default/gpu TresPerNode=gres[:/]gpu:1" "the #SBATCH lines give name, uid comment and gres:gpu:1"
ok wait_for 60 finished "$j1" "the GPU job finishes"
is "$(job_state "$j1") $(job_exit "$j1")" "COMPLETED 0:0" "it completes with exit 0"
like "$(log "$(podir gpu 01)" main)" "^gpu=[01]" "the container saw its own CUDA_VISIBLE_DEVICES"
like "$(grep -c ' stderr F to-stderr$' "$(podir gpu 01)/logs/main/0.log")" "^1$" "stderr is a separate CRI stream"

# host runtime, exit code 3
j2=$(render_submit host "apiVersion: v1
kind: Pod
metadata: {name: host, namespace: default, annotations: {slurmlink.io/runtime: host}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    command: [sh, -c, 'echo on the host; exit 3']" 02)
ok wait_for 60 finished "$j2" "the host-runtime job finishes"
is "$(job_exit "$j2")" "3:0" "the job's exit code is the container's (3)"
is "$(log "$(podir host 02)" main)" "on the host" "its log"
like "$(cat "$(podir host 02)/status.json")" '"exitCode": *3' "status.json records exit code 3"

# OnFailure restarts, then success
j3=$(SLURMLINK_SHIM_BACKOFF_MS=100 render_submit retry "apiVersion: v1
kind: Pod
metadata: {name: retry, namespace: default, annotations: {slurmlink.io/runtime: host}}
spec:
  restartPolicy: OnFailure
  containers:
  - name: main
    command: [sh, -c, 'n=\$(cat count 2>/dev/null || echo 0); echo \$((n+1)) > count; echo run \$n; [ \$n -ge 1 ]']" 03)
ok wait_for 90 finished "$j3" "the OnFailure job finishes"
is "$(job_exit "$j3")" "0:0" "after one restart it succeeds"
is "$(log "$(podir retry 03)" main 1)" "run 1" "the second run has its own log file (restart 1)"
like "$(cat "$(podir retry 03)/status.json")" '"restartCount": *1' "restartCount 1 in status.json"

# an init container fails: the app container never starts
j4=$(render_submit initfail "apiVersion: v1
kind: Pod
metadata: {name: initfail, namespace: default}
spec:
  restartPolicy: Never
  initContainers:
  - {name: prep, image: busybox, command: [sh, -c, 'echo prep failing; exit 7']}
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'echo must not run']}" 04)
ok wait_for 60 finished "$j4" "the init-failure job finishes"
is "$(job_exit "$j4")" "7:0" "exit code 7 from the init container"
ok test ! -e "$(podir initfail 04)/logs/main/0.log" "the app container never started"

# scancel: SIGTERM forwarded, the container's handler runs within the grace period
j5=$(render_submit term "apiVersion: v1
kind: Pod
metadata: {name: term, namespace: default}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 20
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'trap \"echo got TERM; exit 0\" TERM; echo up; while :; do sleep 0.2; done']" 05)
running() { [ "$(job_state "$j5")" = RUNNING ] && grep -q up "$(podir term 05)/logs/main/0.log" 2>/dev/null; }
ok wait_for 60 running "a long job runs"
scancel --signal=TERM --batch "$j5"
ok wait_for 30 finished "$j5" "SIGTERM to the batch step ends it"
like "$(log "$(podir term 05)" main)" "got TERM" "the container handled the forwarded SIGTERM"
done_testing
