#!/bin/bash
# covers: src/kinds/cronjob/controller.c src/kinds/cronjob/gc.c src/kube/cron.c src/api/ src/kinds/job/controller.c
# 87-cronjob-events.t — the CronJob controller's Events as kube 1.32's
# cronjob controller (v2) records them: source.component and
# reportingComponent "cronjob-controller", kube's reasons, types and texts:
#   - SuccessfulCreate "Created job X", SawCompletedJob "Saw completed job:
#     X, condition: Complete", SuccessfulDelete "Deleted job X" (history limit);
#   - UnexpectedJob: a running Job owned by the CronJob that it did not create;
#   - MissingJob: an active Job deleted by hand;
#   - InvalidSchedule: a schedule that parses but never comes ("59 23 31 2 *",
#     kube's "time difference between two schedules is less than 1 second"),
#     once, and no Job;
#   - UnsupportedSchedule: TZ= in the schedule of a CronJob stored before the
#     API refused it (written into the store while slurmlinkd is down), which
#     still runs on that schedule.
# The controller's clock is stepped with the test build's clock shift
# (SLURMLINKD_FAULT_CLOCK, src/common/fault.h). Needs the ASan build.
source "$(dirname "$0")/lib.sh"
plan 15

[ -x "$ROOT/build-asan/slurmlinkd" ] || bail "needs make asan (the test build's clock shift)"
CLOCKD=$(tmpdir)
on_exit "rm -rf '$CLOCKD'"
CLOCK=$CLOCKD/offset
echo 0 >"$CLOCK"
SLURMLINKD_FAULT_CLOCK=$CLOCK cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
vnow() { echo $(($(date +%s) + $(cat "$CLOCK"))); }
set_clock() { echo $(($1 - $(date +%s))) >"$CLOCK"; }
step() { # the controller's clock to 20 s past the next multiple of 5 minutes; prints that minute
  local t=$((($(vnow) / 300 + 1) * 300))
  set_clock $((t + 20))
  echo $((t / 60))
}
exists() { kc get "$1" >/dev/null 2>&1; }
# the CronJob's events of a reason: type|source.component|reportingComponent|message
ev() { kc get events --field-selector "involvedObject.kind=CronJob,involvedObject.name=$1,reason=$2" \
  -o jsonpath='{range .items[*]}{.type}|{.source.component}|{.reportingComponent}|{.message}{"\n"}{end}' 2>&1; }
has() { [ -n "$(ev "$1" "$2")" ]; }
C=cronjob-controller
cronjob() { # name schedule command
  kc apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: CronJob
metadata: {name: $1}
spec:
  schedule: "$2"
  successfulJobsHistoryLimit: 1
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: busybox, command: [sh, -c, '$3']}
YAML
}

# --- create, completed, deleted ------------------------------------------------------------
cronjob ev '*/5 * * * *' 'true'
m1=$(step)
wait_for 30 has ev SuccessfulCreate
is "$(ev ev SuccessfulCreate)" "Normal|$C|$C|Created job ev-$m1" "SuccessfulCreate, from cronjob-controller"
kc wait --for=condition=complete "job/ev-$m1" --timeout=120s >/dev/null
wait_for 30 has ev SawCompletedJob
is "$(ev ev SawCompletedJob)" "Normal|$C|$C|Saw completed job: ev-$m1, condition: Complete" "SawCompletedJob"
m2=$(step)
kc wait --for=condition=complete "job/ev-$m2" --timeout=120s >/dev/null
wait_for 60 has ev SuccessfulDelete
is "$(ev ev SuccessfulDelete)" "Normal|$C|$C|Deleted job ev-$m1" "SuccessfulDelete: the older Job beyond successfulJobsHistoryLimit 1"

# --- a Job it did not create -------------------------------------------------------------------
uid=$(jp cj/ev '{.metadata.uid}')
kc apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: stray
  ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: ev, uid: $uid, controller: true}]
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "600"]}
YAML
ok wait_for 30 has ev UnexpectedJob "a running Job owned by the CronJob that it did not create: UnexpectedJob"
is "$(ev ev UnexpectedJob)" "Warning|$C|$C|Saw a job that the controller did not create or forgot: stray" "kube's text"
kc delete job stray --wait=false >/dev/null
kc delete cronjob ev >/dev/null

# --- an active Job deleted by hand -------------------------------------------------------------
cronjob gone '*/5 * * * *' 'sleep 600'
m3=$(step)
# (created behind the shifted clock, it also ran its last missed time at once)
active() { jp cj/gone '{.status.active[*].name}' | tr ' ' '\n' | grep -qx "gone-$m3"; }
ok wait_for 30 active "gone-$m3 is active"
kc delete job "gone-$m3" --wait=false >/dev/null
ok wait_for 30 has gone MissingJob "the active Job deleted by hand: MissingJob"
is "$(ev gone MissingJob)" "Normal|$C|$C|Active job went missing: gone-$m3" "kube's text"
kc delete cronjob gone >/dev/null

# --- a schedule that parses but never comes ----------------------------------------------------
cronjob feb31 '59 23 31 2 *' 'true'
ok wait_for 30 has feb31 InvalidSchedule "February 31st: InvalidSchedule"
is "$(ev feb31 InvalidSchedule)" \
  "Warning|$C|$C|invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second" "kube's text"
ok after_cronjob_passes 3 "the CronJob controller's next passes end (that it is not repeated)"
is "$(kc get events --field-selector involvedObject.name=feb31,reason=InvalidSchedule -o jsonpath='{.items[*].count}') $(kc get jobs -o name | grep -c feb31)" \
  "1 0" "said once, and no Job"

# --- TZ= in a schedule stored before the API refused it ----------------------------------------
cronjob legacy '*/5 * * * *' 'true'
DB=$(find "$CL" -name objects.db | head -1)
DPID=$(cat "$CL/run/slurmlinkd.pid")
kill -9 "$DPID"
dead() { ! kill -0 "$DPID" 2>/dev/null; }
wait_for 30 dead
sqlite3 "$DB" "UPDATE objects SET data = json_set(data, '\$.spec.schedule', 'TZ=UTC */5 * * * *') WHERE resource = 'cronjobs.batch' AND ns = 'default' AND name = 'legacy'"
ok env SLURMLINKD_FAULT_CLOCK="$CLOCK" "$SLURMLINK" up --dir "$CL" "slurmlinkd restarts with schedule 'TZ=UTC */5 * * * *' stored"
wait_for 30 has legacy UnsupportedSchedule
is "$(ev legacy UnsupportedSchedule)" \
  "Warning|$C|$C|CRON_TZ or TZ used in schedule \"TZ=UTC */5 * * * *\" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details" \
  "UnsupportedSchedule, kube's text" || diag "$(jp cj/legacy '{.spec.schedule}')"
m4=$(step)
ok wait_for 30 exists "job/legacy-$m4" "the schedule is still honoured: Job legacy-$m4"
