# 56-recovery-reopen-lib.sh — what t/56-recovery-reopen.t and
# t/56-recovery-reopen-push.t share: a finished pod's phase never goes back
# when a view of its job running, held at a fault point of the test build,
# is applied after the shim's pushes made the pod Succeeded. Six points.
#   reopen_case POINT HELD SUCCEEDED RELEASED [FIRST]
# POINT: the fault point that holds the stale view; the others: the
# descriptions of the points "held", "Succeeded meanwhile" and "released";
# FIRST: a fault point that holds the controller's first look at the
# started job meanwhile (the pod stays unscheduled until POINT's view is
# written), released last.
# A watch records every phase the pod had.
reopen_case() {
  local point=$1 spec
  cluster_up --cpus 2 || bail "cluster up"
  "$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
  spec="$point:1:hold=$CL/go${5:+,$5:1:hold=$CL/first}"
  ok restart_with_fault "$spec" \
    "slurmlinkd restarts with SLURMLINKD_FAULT=$point:1:hold=…${5:+,$5:1:hold=…}"
  on_exit "touch '$CL/go' '$CL/first'"
  kc get pods -w -o jsonpath='{.metadata.name} {.status.phase}{"\n"}' >"$CL/phases" 2>&1 &
  on_exit "kill $! 2>/dev/null"
  kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: quick}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'sleep 2; echo done']}
YAML
  ok wait_for 90 log_has "fault injection: $point #1: held" "$2"
  ok wait_for 90 succeeded "$3"
  touch "$CL/go"
  ok wait_for 30 log_has "fault injection: $point #1: released" "$4"
  touch "$CL/first"
  wait_for 60 over # the job ends; every view after the stale one says so
  after_job_polls 2 # the controller's next passes
  is "$(grep '^quick ' "$CL/phases" | awk '{print $2}' | uniq | tr '\n' ' ')" "Pending Running Succeeded " \
    "the pod's phases as a watch saw them: Pending, Running, Succeeded, never back" || diag "$(cat "$CL/phases")"
  is "$(jp pod/quick '{.status.phase}')" "Succeeded" "it is Succeeded"
}
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log_has() { grep -q "$1" "$CL/log/slurmlinkd.log"; }
succeeded() { [ "$(jp pod/quick '{.status.phase}')" = Succeeded ]; }
over() { ! squeue -h -n default/quick | grep -q .; }
