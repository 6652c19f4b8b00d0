#!/bin/bash
# covers: src/kinds/cronjob/controller.c src/kinds/cronjob/gc.c src/kube/cron.c src/api/ src/kinds/job/controller.c
# 87-cronjob.t — batch/v1 CronJob on the real local cluster, with the real
# kubectl (1.32, 1.30, 1.33) and the Python client (BatchV1Api). The CronJob
# controller's clock is stepped past schedule times with the test build's
# clock shift (SLURMLINKD_FAULT_CLOCK, src/common/fault.h): Slurm, the Jobs
# and their pods run in real time.
#   - served: api-resources (short name cj), explain, kubectl create cronjob
#     (protobuf), defaults, Table (wide too), describe, watch, the status;
#   - a schedule time passed: the Job <name>-<minutes> owned by the CronJob,
#     its scheduled-timestamp annotation, active then lastSuccessfulTime,
#     events SuccessfulCreate / SawCompletedJob;
#   - successfulJobsHistoryLimit: the oldest Job deleted with its pods;
#   - concurrencyPolicy Forbid (JobAlreadyActive) and Replace;
#   - suspend; startingDeadlineSeconds; more than 100 missed (one Job, the latest);
#   - timeZone: the schedule in America/New_York;
#   - the Jobs run as the CronJob's creator (server-owned annotations of
#     the template dropped);
#   - kubectl create job --from=cronjob/NAME;
#   - deletion: background, orphan, foreground (its Slurm jobs cancelled);
#   - bad input: 422 naming the field with kube's texts.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 62

[ -x "$ROOT/build-asan/slurmlinkd" ] || bail "needs make asan (the test build's clock shift)"
CLOCKD=$(tmpdir)
on_exit "rm -rf '$CLOCKD'"
CLOCK=$CLOCKD/offset
echo 0 >"$CLOCK"
SLURMLINKD_FAULT_CLOCK=$CLOCK cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
SDK=/usr/lib/google-cloud-sdk/bin
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
vnow() { echo $(($(date +%s) + $(cat "$CLOCK"))); }
set_clock() { echo $(($1 - $(date +%s))) >"$CLOCK"; }
# the controller's clock to 20 s past the next multiple of $1 minutes; prints that minute
step() {
  local p=$(($1 * 60)) n
  n=$(vnow)
  local t=$(((n / p + 1) * p))
  set_clock $((t + 20))
  echo $((t / 60))
}
exists() { kc get "$1" >/dev/null 2>&1; }
gone() { ! kc get "$1" >/dev/null 2>&1; }
events_of() { kc get events --field-selector "involvedObject.name=$1,involvedObject.kind=CronJob" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1; }
has_event() { events_of "$1" | grep -qF -- "$2"; }

# --- served ---------------------------------------------------------------------------------------
like "$(kc api-resources --api-group=batch)" $'cronjobs +cj +batch/v1 +true +CronJob' "api-resources: cronjobs, short name cj"
like "$(kc explain cronjob.spec.concurrencyPolicy 2>&1)" $'ENUM:\n +Allow\n +Forbid\n +Replace' "kubectl explain cronjob.spec (OpenAPI v3 of batch/v1)"
is "$(kc create cronjob tick --image=busybox --schedule='*/5 * * * *' -- sh -c 'echo tick' 2>&1)" "cronjob.batch/tick created" \
  "kubectl create cronjob (a protobuf body)"
is "$(jp cj/tick '{.spec.concurrencyPolicy} {.spec.suspend} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit} {.spec.jobTemplate.spec.template.spec.restartPolicy} {.spec.jobTemplate.spec.template.spec.containers[0].terminationMessagePolicy}')" \
  "Allow false 3 1 OnFailure File" "defaults: concurrencyPolicy, suspend, history limits; the pod template's"
like "$(kc get cronjobs 2>&1)" $'^NAME +SCHEDULE +TIMEZONE +SUSPEND +ACTIVE +LAST SCHEDULE +AGE\ntick +\\*/5 \\* \\* \\* \\* +<none> +False +0 +<none> +[0-9]+s' \
  "kubectl get cronjobs: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE"
for v in 1.30 1.33; do
  like "$($SDK/kubectl.$v --cache-dir "$CL/kcache$v" get cj tick 2>&1)" $'\ntick +\\*/5 \\* \\* \\* \\* +<none> +False +0 +<none>' "kubectl $v get cj"
done
tuid=$(jp cj/tick '{.metadata.uid}')
timeout 120 kubectl --cache-dir "$CL/kcache" get cronjobs --watch-only -o jsonpath='{.metadata.name} {.status.lastScheduleTime}{"\n"}' >"$CL/watch.out" 2>&1 &
WATCH=$!
on_exit "kill $WATCH 2>/dev/null"
# every version's active Job (an "echo tick" Job may be over before a read)
timeout 120 kubectl --cache-dir "$CL/kcache" get cronjobs --watch -o jsonpath='{.metadata.name} {.status.active[0].kind} {.status.active[0].name} {.status.lastScheduleTime}{"\n"}' >"$CL/active.out" 2>&1 &
on_exit "kill $! 2>/dev/null"
wait_for 60 test -s "$CL/active.out" # its first line (the list) came: the watch is on

# --- a schedule time passes: one Job, owned, annotated -------------------------------------------------
m1=$(step 5)
ok wait_for 30 exists "job/tick-$m1" "the clock past a schedule time: Job tick-$m1 (minutes since the epoch)"
is "$(jp "job/tick-$m1" '{.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].uid} {.metadata.ownerReferences[0].controller} {.metadata.ownerReferences[0].blockOwnerDeletion}')" \
  "batch/v1 CronJob tick $tuid true true" "the Job's ownerReference: the CronJob, controller"
is "$(jp "job/tick-$m1" '{.metadata.annotations.batch\.kubernetes\.io/cronjob-scheduled-timestamp}')" \
  "$(date -u -d "@$((m1 * 60))" +%Y-%m-%dT%H:%M:%SZ)" "annotation cronjob-scheduled-timestamp: the schedule time, RFC 3339"
is "$(jp "job/tick-$m1" '{.spec.selector.matchLabels.batch\.kubernetes\.io/controller-uid}')" "$(jp "job/tick-$m1" '{.metadata.uid}')" "the Job got the Job kind's generated selector"
want_active="tick Job tick-$m1 $(date -u -d "@$((m1 * 60))" +%Y-%m-%dT%H:%M:%SZ)"
saw_active() { grep -qxF "$want_active" "$CL/active.out"; }
ok wait_for 30 saw_active "status: active named the Job, with lastScheduleTime (a version the watch saw)" ||
  diag "$(cat "$CL/active.out")"
ok kc wait --for=condition=complete "job/tick-$m1" --timeout=120s "the Job runs in Slurm and completes"
is "$(kc logs "job/tick-$m1" 2>&1)" "tick" "kubectl logs job/tick-$m1"
no_active() { [ -z "$(jp cj/tick '{.status.active}')" ]; }
ok wait_for 30 no_active "the finished Job leaves status.active"
ok test -n "$(jp cj/tick '{.status.lastSuccessfulTime}')" "lastSuccessfulTime set"
ok wait_for 10 has_event tick "SuccessfulCreate: Created job tick-$m1" "event SuccessfulCreate"
ok wait_for 10 has_event tick "SawCompletedJob: Saw completed job: tick-$m1, condition: Complete" "event SawCompletedJob"
# LAST SCHEDULE: the shifted clock put lastScheduleTime ahead of the real one, which kubectl prints <invalid>
like "$(kc get cj tick -o wide 2>&1)" $'CONTAINERS +IMAGES +SELECTOR\ntick +\\*/5 \\* \\* \\* \\* +<none> +False +0 +(<invalid>|[0-9]+[sm]) +[0-9]+s +tick +busybox +<none>' "-o wide: LAST SCHEDULE, CONTAINERS IMAGES SELECTOR"
like "$(kc describe cronjob tick 2>&1)" "Schedule: +\\*/5 \\* \\* \\* \\*.*Concurrency Policy: +Allow.*SuccessfulCreate" "kubectl describe cronjob"
watched() { grep -q "^tick 20" "$CL/watch.out"; }
ok wait_for 10 watched "kubectl get --watch-only saw the status change"
is "$(kc get --raw /apis/batch/v1/namespaces/default/cronjobs/tick/status | jq -r '.kind + " " + (.status.active|length|tostring)')" "CronJob 0" "the cronjobs/status subresource"

# --- history: successfulJobsHistoryLimit 1 deletes the oldest with its pods ---------------------------------
kc patch cronjob tick --type=merge -p '{"spec":{"successfulJobsHistoryLimit":1}}' >/dev/null
m2=$(step 5)
ok wait_for 30 exists "job/tick-$m2" "the next schedule time: Job tick-$m2"
ok kc wait --for=condition=complete "job/tick-$m2" --timeout=120s "it completes"
ok wait_for 30 gone "job/tick-$m1" "successfulJobsHistoryLimit 1: the older Job deleted"
no_pods() { [ -z "$(kc get pods -l job-name="$1" -o name 2>/dev/null)" ]; }
ok wait_for 30 no_pods "tick-$m1" "its pods deleted with it"
ok wait_for 10 has_event tick "SuccessfulDelete: Deleted job tick-$m1" "event SuccessfulDelete"

# --- suspend; Forbid and Replace ------------------------------------------------------------------------------
kc patch cronjob tick --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
like "$(kc get cj tick 2>&1)" $'\ntick +\\*/5 \\* \\* \\* \\* +<none> +True ' "SUSPEND True"
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: slow}
spec:
  schedule: "*/5 * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: [sleep, "600"]}
YAML
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: late}
spec:
  schedule: "*/5 * * * *"
  startingDeadlineSeconds: 10
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: ["true"]}
YAML
# slow was created after the controller's clock passed tick-$m2's time: that
# missed schedule time is run at once (the most recent one only), as kube does
ok wait_for 30 exists "job/slow-$m2" "slow: the missed schedule time before its creation by the controller's clock, slow-$m2"
m3=$(step 5)
ok wait_for 30 has_event slow "JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid" \
  "Forbid, one still running: event JobAlreadyActive"
ok gone "job/slow-$m3" "and no second Job"
ok gone "job/tick-$m3" "tick suspended: no Job for that time"
ok eval 'exists cj/late && gone "job/late-$m3"' "late: the schedule time is 20 s past, its startingDeadlineSeconds 10: no Job"
is "$(kc get events --field-selector involvedObject.name=slow,reason=JobAlreadyActive -o jsonpath='{.items[*].count}')" 1 \
  "JobAlreadyActive once for the schedule time, not once per pass"
kc patch cronjob slow --type=merge -p '{"spec":{"concurrencyPolicy":"Replace"}}' >/dev/null
m4=$(step 5)
ok wait_for 30 exists "job/slow-$m4" "Replace: the new Job slow-$m4"
ok wait_for 30 gone "job/slow-$m2" "and the running one deleted"
is "$(jp cj/slow '{.status.active[*].name}')" "slow-$m4" "active: the new one only"

# --- more than 100 missed: one Job, the latest --------------------------------------------------------------
kc delete cronjob late >/dev/null
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: many}
spec:
  schedule: "* * * * *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: ["true"]}
YAML
set_clock $(( ($(vnow) / 60 + 300) * 60 + 20 ))
mm=$(( $(vnow) / 60 ))
kc patch cronjob many --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
ok wait_for 30 has_event many "TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew" \
  "300 minutes missed: event TooManyMissedTimes"
ok wait_for 30 exists "job/many-$mm" "only the latest schedule time gets a Job"
is "$(kc get jobs -o name | grep -c '^job.batch/many-')" 1 "one Job, not 300"
kc delete cronjob many >/dev/null

# --- timeZone ------------------------------------------------------------------------------------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: ny}
spec:
  schedule: "0 9 * * *"
  timeZone: America/New_York
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: ["true"]}
YAML
t9=$(/usr/bin/python3 -c '
import sys, datetime, zoneinfo
z = zoneinfo.ZoneInfo("America/New_York")
now = datetime.datetime.fromtimestamp(int(sys.argv[1]), z)
t = now.replace(hour=9, minute=0, second=0, microsecond=0)
if t <= now: t = (now + datetime.timedelta(days=1)).replace(hour=9, minute=0, second=0, microsecond=0)
print(int(t.timestamp()), t.isoformat())' "$(vnow)")
set_clock $(( ${t9% *} + 20 ))
nyj="job/ny-$(( ${t9% *} / 60 ))"
ok wait_for 30 exists "$nyj" "timeZone America/New_York: the Job of 09:00 there"
is "$(jp "$nyj" '{.metadata.annotations.batch\.kubernetes\.io/cronjob-scheduled-timestamp}')" "${t9#* }" \
  "its scheduled timestamp in the CronJob's zone"
like "$(kc get cj ny 2>&1)" $'\nny +0 9 \\* \\* \\* +America/New_York +False ' "TIMEZONE column"

# --- identity: the Jobs run as the CronJob's creator, whatever its template says ---------------------------
is "$(jp "job/tick-$m2" '{.metadata.annotations.slurmlink\.io/user}')" "admin" "a scheduled Job carries its CronJob's creator (slurmlink.io/user)"
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: inj}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    metadata:
      annotations: {slurmlink.io/user: mallory, slurmlink.io/job-uid: 00000000-0000-0000-0000-000000000000}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: ["true"]}
YAML
inj_job() { kc get jobs -o name | grep -m1 '^job.batch/inj-'; }
wait_for 30 inj_job >/dev/null # created behind the controller's shifted clock: its last missed time runs at once
ij=$(inj_job)
is "$(jp "${ij:-job/inj-none}" '{.metadata.annotations.slurmlink\.io/user} {.metadata.annotations.slurmlink\.io/job-uid}')" "admin " \
  "server-owned annotations in jobTemplate.metadata are dropped: the Job runs as the creator"
kc delete cronjob inj >/dev/null

# --- kubectl create job --from=cronjob ------------------------------------------------------------------------
is "$(kc create job manual --from=cronjob/tick 2>&1)" "job.batch/manual created" "kubectl create job --from=cronjob/tick"
is "$(jp job/manual '{.metadata.annotations.cronjob\.kubernetes\.io/instantiate} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name}')" \
  "manual CronJob tick" "annotated instantiate=manual, owned by the CronJob"
ok kc wait --for=condition=complete job/manual --timeout=120s "it runs and completes"

# --- deletion -------------------------------------------------------------------------------------------------
kc delete cronjob ny --cascade=orphan >/dev/null
ok wait_for 30 gone cj/ny "--cascade=orphan: the CronJob goes"
is "$(jp "$nyj" '{.metadata.ownerReferences}')" "" "its Job stays, no longer owned"
kc delete cronjob slow --cascade=foreground --wait=false >/dev/null
no_slow_jobs() { ! kc get jobs -o name | grep -q '^job.batch/slow-'; }
ok eval 'wait_for 60 gone cj/slow && no_slow_jobs' "--cascade=foreground: its running Job deleted, then the CronJob"
no_slurm_slow() { [ "$(squeue -h -t all -o '%j %T' | grep '^default/slow-' | grep -vc 'COMPLETED\|CANCELLED\|FAILED')" = 0 ]; }
ok wait_for 30 no_slurm_slow "no Slurm job of slow's is left pending or running"
kc delete cronjob tick >/dev/null
ok wait_for 30 gone "job/tick-$m2" "background (kubectl's default): the CronJob's Jobs deleted with it"
ok wait_for 30 no_pods "tick-$m2" "and their pods"

# --- bad input ------------------------------------------------------------------------------------------------
bad() { # manifest-patch expected-text desc
  local out
  out=$(kc create -f - 2>&1 <<YAML
apiVersion: batch/v1
kind: CronJob
metadata: {name: ${4:-bad}}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox}
  $1
YAML
)
  like "$out" "$2" "$3"
}
bad 'timeZone: Mars/Olympus' 'The CronJob "bad" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus' "422: an unknown timeZone"
bad 'concurrencyPolicy: Sometimes' 'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"' "422: concurrencyPolicy"
bad 'successfulJobsHistoryLimit: -1' 'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0' "422: a negative history limit"
bad 'startingDeadlineSeconds: 5' 'metadata.name: Invalid value: "a-name-of-fifty-three-characters-that-is-one-too-long": must be no more than 52 characters' "422: a name over 52 characters" a-name-of-fifty-three-characters-that-is-one-too-long
out=$(kc create cronjob b2 --image=busybox --schedule='61 * * * *' 2>&1)
like "$out" 'spec.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61' "422: the cron parser's text"
out=$(kc create cronjob b3 --image=busybox --schedule='CRON_TZ=UTC 0 * * * *' 2>&1)
like "$out" 'spec.schedule: Invalid value: "CRON_TZ=UTC 0 \* \* \* \*": cannot use TZ or CRON_TZ in schedule, use timeZone field instead' "422: CRON_TZ in a new schedule"
ok gone cj/b2 "nothing created"

# --- the Python client ----------------------------------------------------------------------------------------
/usr/bin/python3 - <<'PY' >"$CL/py.out" 2>&1
from kubernetes import client, config
config.load_kube_config()
b = client.BatchV1Api()
body = client.V1CronJob(metadata=client.V1ObjectMeta(name="py"), spec=client.V1CronJobSpec(
    schedule="@hourly", job_template=client.V1JobTemplateSpec(spec=client.V1JobSpec(
        template=client.V1PodTemplateSpec(spec=client.V1PodSpec(restart_policy="Never",
            containers=[client.V1Container(name="c", image="busybox", command=["true"])]))))))
b.create_namespaced_cron_job("default", body)
cj = b.patch_namespaced_cron_job("py", "default", {"spec": {"suspend": True}})
st = b.read_namespaced_cron_job_status("py", "default")
names = [c.metadata.name for c in b.list_namespaced_cron_job("default").items]
print(cj.spec.schedule, cj.spec.suspend, cj.spec.concurrency_policy, st.kind, "py" in names)
b.delete_namespaced_cron_job("py", "default")
PY
is "$(tail -1 "$CL/py.out")" "@hourly True Allow CronJob True" "BatchV1Api: create, patch, read status, list, delete"
