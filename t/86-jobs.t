#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/ src/slurmif/acct.c
# slow
# 86-jobs.t — batch/v1 Job as one Slurm job array, on the real local
# cluster (slurmctld, slurmd, slurmdbd) with the real kubectl and the
# Python client (BatchV1Api):
#   - served: api-resources, explain, kubectl create job, get/describe,
#     the jobs/status subresource, kube-apiserver's defaults and selector;
#   - kubectl wait --for=condition=complete, kubectl logs job/NAME; the
#     pod's owner reference, labels and generated name;
#   - an Indexed Job 6/2: distinct indexes (JOB_COMPLETION_INDEX), the
#     index label/annotation and hostname, completedIndexes, ONE array in
#     sacct, never more than 2 tasks at once (from sacct's times);
#   - a failing Job: one retry (backoffLimit 1), then Failed with
#     BackoffLimitExceeded, FailureTarget first; activeDeadlineSeconds:
#     Failed with DeadlineExceeded, its tasks cancelled;
#   - podFailurePolicy FailJob on an exit code; ttlSecondsAfterFinished;
#     backoffLimitPerIndex (failedIndexes);
#     suspend at creation and while running, resume;
#   - parallelism patched: the array's ArrayTaskThrottle follows;
#   - deletion: background (kubectl's default), foreground, orphan;
#   - bad input: 422 naming the field, kube's texts;
#   - BatchV1Api: create, read_namespaced_job_status, list, delete with
#     propagation Foreground.
source "$(dirname "$0")/lib.sh"
plan 67

cluster_up --cpus 4 --accounting || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
cond_types() { jp "job/$1" '{range .status.conditions[*]}{.type}={.reason} {end}'; }
active_of() { slurm_of "$1" | awk '$2 ~ /PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED/' | wc -l; }
no_active() { [ "$(active_of "$1")" = 0 ]; }
gone_pods() { [ -z "$(kc get pods -l job-name="$1" -o name 2>/dev/null)" ]; }

# --- served as kube-apiserver serves it -------------------------------------------------------
like "$(kc api-resources --api-group=batch)" $'jobs +batch/v1 +true +Job' "api-resources: jobs in batch/v1, no short name"
like "$(kc explain job.spec.completionMode 2>&1)" $'ENUM:\n +Indexed\n +NonIndexed' "kubectl explain job.spec (OpenAPI v3 of batch/v1)"
is "$(kc create job hello --image=busybox -- sh -c 'echo hello from a job' 2>&1)" "job.batch/hello created" \
  "kubectl create job (a protobuf body)"
huid=$(jp job/hello '{.metadata.uid}')
is "$(jp job/hello '{.spec.parallelism} {.spec.completions} {.spec.backoffLimit} {.spec.completionMode} {.spec.manualSelector} {.spec.suspend} {.spec.template.spec.restartPolicy}')" \
  "1 1 6 NonIndexed false false Never" "defaults: parallelism, completions, backoffLimit, completionMode, manualSelector, suspend"
is "$(jp job/hello '{.spec.selector.matchLabels.batch\.kubernetes\.io/controller-uid} {.spec.template.metadata.labels.job-name} {.spec.template.metadata.labels.controller-uid}')" \
  "$huid hello $huid" "the generated selector and template labels name the Job's uid"
ok kc wait --for=condition=complete job/hello --timeout=120s "kubectl wait --for=condition=complete"
like "$(kc get jobs hello 2>&1)" $'^NAME +STATUS +COMPLETIONS +DURATION +AGE\nhello +Complete +1/1 +[0-9]+s +[0-9]+s' "kubectl get jobs: STATUS Complete, COMPLETIONS 1/1"
like "$(kc get job hello -o wide 2>&1)" "CONTAINERS +IMAGES +SELECTOR.*hello +busybox +batch.kubernetes.io/controller-uid=$huid" "-o wide: CONTAINERS IMAGES SELECTOR"
is "$(cond_types hello)" "SuccessCriteriaMet=CompletionsReached Complete=CompletionsReached " "conditions SuccessCriteriaMet, then Complete"
is "$(jp job/hello '{.status.succeeded} {.status.active}|{.status.ready} {.status.terminating}')" "1 |0 0" "status counts"
ok test -n "$(jp job/hello '{.status.startTime}')" -a -n "$(jp job/hello '{.status.completionTime}')" "startTime and completionTime"
is "$(kc logs job/hello 2>&1)" "hello from a job" "kubectl logs job/hello"
pod=$(kc get pods -l job-name=hello -o name)
like "$pod" '^pod/hello-[a-z0-9]{5}$' "one pod, named from generateName hello-"
is "$(jp "$pod" '{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].uid} {.metadata.ownerReferences[0].controller} {.metadata.ownerReferences[0].blockOwnerDeletion}')" \
  "Job hello $huid true true" "the pod's ownerReference: controller, blockOwnerDeletion"
is "$(jp "$pod" '{.metadata.labels.job-name} {.metadata.labels.batch\.kubernetes\.io/job-name} {.metadata.labels.controller-uid} {.metadata.labels.batch\.kubernetes\.io/controller-uid}')" \
  "hello hello $huid $huid" "the pod's labels job-name, controller-uid (legacy and batch.kubernetes.io/)"
like "$(kc describe job hello 2>&1)" "Pods Statuses: +0 Active .* 1 Succeeded / 0 Failed" "kubectl describe job"
is "$(kc get --raw "/apis/batch/v1/namespaces/default/jobs/hello/status" | jq -r '.kind + " " + (.status.succeeded|tostring)')" "Job 1" "the jobs/status subresource"
hello_acct() { sacct -n -X -P --name=default/hello --format=JobName,State,Comment | sort -u; }
hello_done() { hello_acct | grep -q COMPLETED; }
wait_for 30 hello_done # slurmctld hands the job's end to slurmdbd a moment after the Job completes
is "$(hello_acct)" "default/hello|COMPLETED|slurmlink:uid=$huid slurmlink:submission=1.0" \
  "sacct: one job named default/hello carrying the Job's uid"

# --- Indexed 6/2: one array, distinct indexes, at most 2 at once --------------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: idx}
spec:
  completions: 6
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
        command: [sh, -c, 'echo "index=$JOB_COMPLETION_INDEX"; sleep 2']
YAML
iuid=$(jp job/idx '{.metadata.uid}')
ok kc wait --for=condition=complete job/idx --timeout=180s "the Indexed Job completes"
is "$(jp job/idx '{.status.succeeded} {.status.completedIndexes}')" "6 0-5" "succeeded 6, completedIndexes 0-5"
is "$(for p in $(kc get pods -l job-name=idx -o name); do kc logs "$p"; done | sort | tr '\n' ' ')" \
  "index=0 index=1 index=2 index=3 index=4 index=5 " "six pods, six distinct JOB_COMPLETION_INDEX values"
is "$(kc get pods -l job-name=idx -o jsonpath='{range .items[*]}{.metadata.labels.batch\.kubernetes\.io/job-completion-index}={.metadata.annotations.batch\.kubernetes\.io/job-completion-index}={.spec.hostname} {end}' | tr ' ' '\n' | sort | tr '\n' ' ')" \
  "0=0=idx-0 1=1=idx-1 2=2=idx-2 3=3=idx-3 4=4=idx-4 5=5=idx-5 " "index label, annotation and hostname <job>-<index> per pod"
like "$(kc get pods -l job-name=idx -o name | sort | tr '\n' ' ')" '^pod/idx-0-[a-z0-9]{5} pod/idx-1-[a-z0-9]{5} ' "pod names from generateName <job>-<index>-"
# slurmdbd gets the tasks' records from slurmctld asynchronously (the array's
# own record becomes the last task started): wait until all six have ended
idx_acct() { sacct -n -X -P --name=default/idx --format=JobID,Start,End,State; }
idx_acct_done() { [ "$(idx_acct | grep -c '^[0-9]*_[0-9]*|.*|COMPLETED$')" -eq 6 ]; }
wait_for 60 idx_acct_done || diag "sacct does not show six completed tasks after 60 s"
acct=$(idx_acct)
diag "$acct"
is "$(printf '%s\n' "$acct" | cut -d'|' -f1 | sed 's/_.*//' | sort -u | wc -l)" 1 "sacct: ONE array job for the Indexed Job"
is "$(printf '%s\n' "$acct" | cut -d'|' -f1 | sed 's/^[0-9]*_//' | sort -n | tr '\n' ' ')" "0 1 2 3 4 5 " "its tasks are the indexes 0-5, each once"
maxrun=$(printf '%s\n' "$acct" | /usr/bin/python3 -c '
import sys, datetime
iv = []
for l in sys.stdin:
    f = l.strip().split("|")
    if len(f) >= 3 and "T" in f[1] and "T" in f[2]:
        iv.append((datetime.datetime.fromisoformat(f[1]), datetime.datetime.fromisoformat(f[2])))
print(max(sum(1 for s2, e2 in iv if s2 <= s < e2) for s, e in iv) if iv else -1)')
ok test "$maxrun" -ge 1 -a "$maxrun" -le 2 "never more than 2 tasks at once (sacct: at most $maxrun)"
like "$(sacct -n -X -P -j "$(printf '%s\n' "$acct" | head -1 | cut -d'|' -f1 | sed 's/_.*//')" --format=Comment | sort -u)" "slurmlink:uid=$iuid" "every task carries the Job's uid"

# --- a failing Job: retried once, then Failed --------------------------------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: boom}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'echo failing; exit 3']}
YAML
ok kc wait --for=condition=failed job/boom --timeout=120s "kubectl wait --for=condition=failed"
is "$(cond_types boom)" "FailureTarget=BackoffLimitExceeded Failed=BackoffLimitExceeded " "FailureTarget, then Failed, reason BackoffLimitExceeded"
is "$(jp job/boom '{.status.failed}')|$(kc get pods -l job-name=boom -o name | wc -l)" "2|2" "backoffLimit 1: the first try and one retry, each a pod, counted"
like "$(kc get jobs boom 2>&1)" $'\nboom +Failed +0/1' "kubectl get jobs: STATUS Failed"
buid=$(jp job/boom '{.metadata.uid}')
two_in_acct() { [ "$(sacct -n -X -P --name=default/boom --format=Comment | wc -l)" -ge 2 ]; }
wait_for 30 two_in_acct # slurmctld hands records to slurmdbd a moment later
is "$(sacct -n -X -P --name=default/boom --format=Comment | sort | tr '\n' ' ')" \
  "slurmlink:uid=$buid slurmlink:submission=1.0 slurmlink:uid=$buid slurmlink:submission=2.0 " "sacct: the retry is a new submission for the index"

# --- activeDeadlineSeconds: the rest cancelled, Failed DeadlineExceeded --------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: late}
spec:
  completions: 3
  activeDeadlineSeconds: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "300"]}
YAML
luid=$(jp job/late '{.metadata.uid}')
ok kc wait --for=condition=failed job/late --timeout=120s "activeDeadlineSeconds 4: the Job fails"
is "$(cond_types late)" "FailureTarget=DeadlineExceeded Failed=DeadlineExceeded " "FailureTarget, then Failed, reason DeadlineExceeded"
ok wait_for 60 no_active "$luid" "no task of the Job runs or waits any more"

# --- podFailurePolicy FailJob on an exit code; ttlSecondsAfterFinished -----------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: pfp}
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {operator: In, values: [42]}
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'exit 42']}
YAML
ok kc wait --for=condition=failed job/pfp --timeout=120s "podFailurePolicy FailJob on exit code 42: the Job fails"
like "$(cond_types pfp)|$(jp job/pfp '{.status.conditions[0].message} {.status.failed}')" \
  '^FailureTarget=PodFailurePolicy Failed=PodFailurePolicy \|Container c for pod default/pfp-[a-z0-9]{5} failed with exit code 42 matching FailJob rule at index 0 1$' \
  "reason PodFailurePolicy with kube's message, no retry despite backoffLimit 6"
kc create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: brief}
spec:
  ttlSecondsAfterFinished: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'echo short-lived']}
YAML
job_gone() { ! kc get job brief >/dev/null 2>&1; }
ok eval 'wait_for 120 job_gone && wait_for 60 gone_pods brief' "ttlSecondsAfterFinished 2: the finished Job and its pod are deleted"

# --- backoffLimitPerIndex: index 1 fails twice and is lost, the others complete ------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: perix}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, '[ "$JOB_COMPLETION_INDEX" != 1 ]']}
YAML
ok kc wait --for=condition=failed job/perix --timeout=120s "backoffLimitPerIndex 1: the Job fails once index 1 is lost"
is "$(jp job/perix '{.status.completedIndexes} {.status.failedIndexes} {.status.succeeded} {.status.failed}')" "0,2 1 2 2" \
  "completedIndexes 0,2, failedIndexes 1; index 1 tried twice"
is "$(cond_types perix)" "FailureTarget=FailedIndexes Failed=FailedIndexes " "reason FailedIndexes"

# --- suspend: nothing runs; a running Job stops; resumed, it completes ------------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: held}
spec:
  suspend: true
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'sleep 3']}
YAML
huid2=$(jp job/held '{.metadata.uid}')
susp() { [ "$(jp job/held '{.status.conditions[?(@.type=="Suspended")].status}')" = "$1" ]; }
ok wait_for 30 susp True "suspend: true at creation: condition Suspended"
like "$(kc get job held 2>&1)" $'
held +Suspended +0/2' "kubectl get jobs: STATUS Suspended"
is "$(slurm_of "$huid2" | wc -l)|$(kc get pods -l job-name=held -o name | wc -l)|$(jp job/held '{.status.startTime}')" "0|0|" "nothing submitted, no pod, no startTime"
kc patch job held -p '{"spec":{"suspend":false}}' >/dev/null
run_held() { slurm_of "$huid2" | grep -q RUNNING; }
ok wait_for 60 run_held "resumed: its tasks run"
kc patch job held -p '{"spec":{"suspend":true}}' >/dev/null
ok wait_for 60 eval 'susp True && no_active "$huid2" && gone_pods held' "suspended while running: tasks cancelled, pods deleted"
kc patch job held -p '{"spec":{"suspend":false}}' >/dev/null
ok kc wait --for=condition=complete job/held --timeout=120s "resumed again: it completes"
is "$(jp job/held '{.status.conditions[?(@.type=="Suspended")].reason} {.status.succeeded}')" "JobResumed 2" "condition Suspended False, reason JobResumed; 2 succeeded"

# --- parallelism patched: the throttle follows --------------------------------------------------
kc create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: thr}
spec:
  completions: 6
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "300"]}
YAML
tuid=$(jp job/thr '{.metadata.uid}')
arr_of() { jp "job/$1" '{.metadata.annotations.slurmlink\.io/slurm-arrays}'; }
throttle() { scontrol show job "$(arr_of thr)" 2>/dev/null | grep -o 'ArrayTaskThrottle=[0-9]*' | head -1; }
has_arr() { [ -n "$(arr_of thr)" ]; }
wait_for 60 has_arr
ok wait_for 60 eval '[ "$(throttle)" = ArrayTaskThrottle=1 ]' "the array's throttle is parallelism 1"
kc patch job thr -p '{"spec":{"parallelism":3}}' >/dev/null
ok wait_for 60 eval '[ "$(throttle)" = ArrayTaskThrottle=3 ]' "parallelism 3 patched: ArrayTaskThrottle=3"
running() { [ "$(slurm_of "$tuid" | awk '$2 == "RUNNING"' | wc -l)" = 3 ]; }
ok wait_for 60 running "three tasks run"
pending_of() { slurm_of "$1" | awk '$2 == "PENDING"' | wc -l; }
three_pods() { [ "$(kc get pods -l job-name=thr -o name | wc -l)" -ge 3 ]; }
wait_for 60 three_pods
is "$(kc get pods -l job-name=thr -o name | wc -l) $(pending_of "$tuid")" "3 3" \
  "pods made lazily: three, for the three running tasks; the three pending tasks have none yet" ||
  diag "$(kc get pods -l job-name=thr -o wide 2>&1; slurm_of "$tuid")"
# two tasks that wait for CPUs (the three sleeps hold 3 of 4): both pods are
# made before the array, so a pending task has a pod; deleting it cancels
# that task, which never runs
kc create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: hog}
spec:
  completions: 2
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 2}}}
YAML
huid=$(jp job/hog '{.metadata.uid}')
two_waiting() { [ "$(kc get pods -l job-name=hog -o name | wc -l) $(pending_of "$huid")" = "2 2" ]; }
wait_for 60 two_waiting || diag "hog: $(kc get pods -l job-name=hog -o name 2>&1 | tr '\n' ' ') $(slurm_of "$huid")"
harr=$(arr_of hog)
kc delete pod "$(kc get pods -l job-name=hog -o jsonpath='{range .items[?(@.metadata.annotations.slurmlink\.io/job-index=="1")]}{.metadata.name}{end}')" >/dev/null 2>&1
task1_gone() { ! squeue -h -r -o '%i' | grep -qx "${harr}_1"; }
ok wait_for 60 task1_gone "a pending task's pod deleted: that task is cancelled, it never runs"
kc delete job hog >/dev/null 2>&1

# --- deletion: background (kubectl's default), foreground, orphan --------------------------------
is "$(kc delete job thr 2>&1)" 'job.batch "thr" deleted' "kubectl delete job (propagationPolicy=Background)"
ok wait_for 60 gone_pods thr "background: its pods are deleted"
ok wait_for 60 no_active "$tuid" "background: no Slurm task of the Job remains"
for n in fg orph; do kc create job $n --image=busybox -- sleep 300 >/dev/null; done
fuid=$(jp job/fg '{.metadata.uid}') ouid=$(jp job/orph '{.metadata.uid}')
run1() { slurm_of "$1" | grep -q RUNNING; }
wait_for 60 run1 "$fuid"; wait_for 60 run1 "$ouid"
ok kc delete job fg --cascade=foreground --timeout=60s "foreground: kubectl delete --cascade=foreground returns once the Job is gone"
ok eval 'gone_pods fg && no_active "$fuid"' "foreground: its pods and tasks went first"
kc delete job orph --cascade=orphan >/dev/null 2>&1
opod=$(kc get pods -l job-name=orph -o name)
is "$(jp "$opod" '{.metadata.ownerReferences}|{.status.phase}')|$(active_of "$ouid")" "|Running|1" "orphan: the pod runs on, without ownerReference, its task too"
kc delete "$opod" --grace-period=1 >/dev/null 2>&1
ok wait_for 60 no_active "$ouid" "the orphaned pod deleted: its task ends"

# --- bad input: 422 naming the field ---------------------------------------------------------------
job() { # name, spec lines, pod spec lines
  printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s}\nspec:\n%s\n  template:\n    spec:\n%s\n      containers: [{name: c, image: busybox}]\n' "$1" "$2" "$3"
}
is "$(job rp '  completions: 1' '      restartPolicy: Always' | kc create -f - 2>&1)" \
  'The Job "rp" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"' "restartPolicy Always: kube's 422"
is "$(job neg '  parallelism: -1' '      restartPolicy: Never' | kc create -f - 2>&1)" \
  'The Job "neg" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0' "a negative parallelism: 422"
like "$(job mode '  completionMode: Sometimes' '      restartPolicy: Never' | kc create -f - 2>&1)" \
  'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"' "an unknown completionMode: 422"
is "$(job typo '  completionz: 2' '      restartPolicy: Never' | kc create -f - 2>&1)" \
  'Error from server (BadRequest): error when creating "STDIN": Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.completionz"' "strict decoding: an unknown field is 400"
is "$(kc patch job hello -p '{"spec":{"completions":3}}' 2>&1)" \
  'The Job "hello" is invalid: spec.completions: Invalid value: 3: field is immutable' "completions cannot change"
is "$(squeue -h -t all -o '%j' | grep -c -E 'default/(rp|neg|mode|typo)$')" 0 "nothing of the refused Jobs reached Slurm"

# --- the Python client ----------------------------------------------------------------------------------
/usr/bin/python3 - <<'PY' >"$CL/py.out" 2>&1
import os, time
from kubernetes import client, config
config.load_kube_config(os.environ["KUBECONFIG"])
b = client.BatchV1Api()
job = client.V1Job(metadata=client.V1ObjectMeta(name="py"), spec=client.V1JobSpec(
    completions=2, parallelism=2, template=client.V1PodTemplateSpec(spec=client.V1PodSpec(
        restart_policy="Never", containers=[client.V1Container(name="c", image="busybox",
                                                               command=["sh", "-c", "echo py"])]))))
j = b.create_namespaced_job("default", job)
print("created", j.metadata.name, j.spec.backoff_limit, j.spec.completion_mode)
for _ in range(600):
    s = b.read_namespaced_job_status("py", "default").status
    if s.succeeded == 2 and any(c.type == "Complete" and c.status == "True" for c in s.conditions or []):
        break
    time.sleep(0.2)
print("status", s.succeeded, [c.type for c in s.conditions or []])
print("list", sorted(x.metadata.name for x in b.list_namespaced_job("default").items if x.metadata.name == "py"))
b.delete_namespaced_job("py", "default", propagation_policy="Foreground")
for _ in range(300):
    if not [x for x in b.list_namespaced_job("default").items if x.metadata.name == "py"]:
        break
    time.sleep(0.2)
print("gone", [x.metadata.name for x in b.list_namespaced_job("default").items if x.metadata.name == "py"],
      len(client.CoreV1Api().list_namespaced_pod("default", label_selector="job-name=py").items))
PY
is "$(cat "$CL/py.out")" "created py 6 NonIndexed
status 2 ['SuccessCriteriaMet', 'Complete']
list ['py']
gone [] 0" "BatchV1Api: create, read_namespaced_job_status, list, delete (Foreground: the pods first)"
