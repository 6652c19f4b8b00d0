# lib.sh — shared helpers for integration tests (bash, TAP output).
#   source "$(dirname "$0")/lib.sh"
#   plan 5  (or done_testing 5 at the end: the count is fixed either way)
#   ok COND... "description"   is GOT WANT "description"   like TEXT REGEX "desc"
#   skip REASON (one point)   skip_all REASON (before any test)   bail DESC (one failing point, exit 1)
# The TAP lines (plan, ok/not ok, diag) go to stdout and, under t/run-tests,
# also to the file $SL_TAP_FILE, which is all the runner counts: output of the
# commands a test runs (a child printing "ok ...") is never taken for a result.
#   wait_for SECONDS CMD...   proc_gone PID   on_exit CMD   tmpdir
#   cluster_up [up options]  → $CL (folder), exports SLURM_CONF, KUBECONFIG; torn down on exit
set -u
ROOT=${SLURMLINK_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SLURMLINK=$ROOT/build/slurmlink
# the daemon: SL_SANITIZER=tsan picks the ThreadSanitizer build (make tsan,
# t/57-tsan.t), else the ASan build when there is one, else the plain one
if [ -z "${SLURMLINKD:-}" ]; then
  if [ "${SL_SANITIZER:-}" = tsan ]; then SLURMLINKD=$ROOT/build-tsan/slurmlinkd
  elif [ -x "$ROOT/build-asan/slurmlinkd" ]; then SLURMLINKD=$ROOT/build-asan/slurmlinkd; else SLURMLINKD=$ROOT/build/slurmlinkd; fi
fi
export SLURMLINKD
# ASan: leaks are checked by valgrind runs, not at every daemon exit
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# TSan: every report, the run goes on; frames of libraries that are not ours
# are suppressed (t/tsan.supp says which and why). A test sets log_path.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0 exitcode=66 suppressions=$ROOT/t/tsan.supp}

_T_N=0 _T_FAIL=0 _T_PLAN=
_T_CLEANUP=()
# the runner's TAP file is this script's alone: a test script run by this one
# (or anything else it starts) does not inherit it
_T_TAP=${SL_TAP_FILE:-}
unset SL_TAP_FILE
_t_tap() { # LINE: one TAP line to stdout and to the runner's file
  printf '%s\n' "$1"
  [ -z "$_T_TAP" ] || printf '%s\n' "$1" >>"$_T_TAP"
}
plan() { _T_PLAN=$1; _t_tap "1..$1"; }
_t_report() { # status desc
  _T_N=$((_T_N + 1))
  if [ "$1" = 0 ]; then _t_tap "ok $_T_N - $2"; else _t_tap "not ok $_T_N - $2"; _T_FAIL=$((_T_FAIL + 1)); fi
}
diag() { # every line of the text gets its "# "
  local l
  while IFS= read -r l; do _t_tap "# $l"; done <<<"$*"
}
# The Slurm the tests run: SL_SLURM_PREFIX (t/run-tests --slurm PREFIX, make
# SLURM=PREFIX test) puts PREFIX/bin and PREFIX/sbin first on PATH, so the
# clusters' daemons and every Slurm command come from that release alone
# (PREFIX/sbin/slurmctld, PREFIX/bin/sbatch, ...), never Debian's /usr ones;
# without it, the system's (Debian's 22.05). SL_SLURM_RELEASE: "25.11.7".
if [ -n "${SL_SLURM_PREFIX:-}" ]; then
  [ -x "$SL_SLURM_PREFIX/sbin/slurmctld" ] || { _t_tap "1..1"; _t_tap "not ok 1 - SL_SLURM_PREFIX=$SL_SLURM_PREFIX has no sbin/slurmctld"; exit 1; }
  export PATH=$SL_SLURM_PREFIX/bin:$SL_SLURM_PREFIX/sbin:$PATH
  # a make that a test runs (t/88-install's make install) builds against it
  # too: build/ is that build, which a make without SLURM= would rebuild
  export SLURM=$SL_SLURM_PREFIX
fi
SL_SLURM_RELEASE=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9][0-9.]*\).*/\1/p')
[ -z "${SL_SLURM_PREFIX:-}" ] || diag "Slurm $SL_SLURM_RELEASE from $SL_SLURM_PREFIX ($(command -v slurmctld), $(command -v sbatch))"
# slurm_at_least YY.MM: the Slurm the tests run is that release or newer
slurm_at_least() {
  local a b x y
  IFS=. read -r a b _ <<<"$SL_SLURM_RELEASE"; IFS=. read -r x y <<<"$1"
  [ -n "$a" ] && [ $((10#$a * 100 + 10#$b)) -ge $((10#$x * 100 + 10#$y)) ]
}
# SL_ACCT_JOB_USER: the Unix user `slurmlink up --accounting` gives pods on
# this Slurm (slurm.run_as and the policy's admin), for a policy a test
# writes before up: nobody, or _slurmlink-jobs from 25.11, whose slurmctld
# refuses nobody's jobs (src/cluster/runuser.c). After cluster_up,
# SL_JOB_USER says what the folder's slurmlinkd got.
SL_ACCT_JOB_USER=nobody
slurm_at_least 25.11 && SL_ACCT_JOB_USER=_slurmlink-jobs
# slurm_mpi_missing PLUGIN: prints why the Slurm the tests run has no
# mpi/PLUGIN (nothing when it has it): its plugin folder has no mpi_PLUGIN.so
slurm_mpi_missing() {
  local dir=/usr/lib/x86_64-linux-gnu/slurm-wlm
  [ -z "${SL_SLURM_PREFIX:-}" ] || dir=$SL_SLURM_PREFIX/lib/slurm
  [ -e "$dir/mpi_$1.so" ] && return 0
  echo "this Slurm ($SL_SLURM_RELEASE) has no mpi/$1 plugin: $dir/mpi_$1.so is missing (built without PMIx)"
}
# skip_all REASON: the whole file is skipped (the runner counts it as skipped)
skip_all() { _t_tap "1..0 # SKIP $*"; exit 0; }
# npm_unreachable: prints why the npm registry cannot be reached from here
# (nothing when it can). Tests that fetch pinned npm packages skip, with this
# reason, only when what they need is not cached already.
npm_unreachable() {
  command -v npm >/dev/null || { echo "npm is not installed"; return 0; }
  local out
  out=$(timeout 60 npm ping --loglevel=error 2>&1) && return 0
  echo "the npm registry cannot be reached from this machine: $(printf '%s\n' "$out" | grep -m1 -E 'code|reason|ERR' || echo "npm ping failed")"
}
# skip REASON: one point skipped (counted as skipped, not passed)
skip() { _T_N=$((_T_N + 1)); _t_tap "ok $_T_N # SKIP $*"; }
# bail DESC: a setup step failed; one failing point, then exit
bail() { [ -n "$_T_PLAN" ] || plan 1; _t_report 1 "$*"; exit 1; }
# Every assertion (ok, nok, is, like, unlike) returns 1 when it fails, so
# "is ... || diag ..." adds what explains the failure.
# ok CMD... DESC : runs CMD, passes when it exits 0
ok() {
  local desc=${*: -1}
  local cmd=("${@:1:$#-1}")
  if "${cmd[@]}" >/dev/null 2>&1; then _t_report 0 "$desc"; else _t_report 1 "$desc"; diag "command failed: ${cmd[*]}"; return 1; fi
}
# nok CMD... DESC : passes when CMD exits non-zero
nok() {
  local desc=${*: -1}
  local cmd=("${@:1:$#-1}")
  if "${cmd[@]}" >/dev/null 2>&1; then _t_report 1 "$desc"; diag "command unexpectedly succeeded: ${cmd[*]}"; return 1; else _t_report 0 "$desc"; fi
}
is() { # got want desc
  if [ "$1" == "$2" ]; then _t_report 0 "$3"; else _t_report 1 "$3"; diag "got:  [$1]"; diag "want: [$2]"; return 1; fi
}
like() { # text regex desc
  if [[ "$1" =~ $2 ]]; then _t_report 0 "$3"; else _t_report 1 "$3"; diag "text: [$(printf '%s' "$1" | head -c 600)]"; diag "does not match: [$2]"; return 1; fi
}
unlike() {
  if [[ "$1" =~ $2 ]]; then _t_report 1 "$3"; diag "text: [$(printf '%s' "$1" | head -c 600)]"; diag "matches: [$2]"; return 1; else _t_report 0 "$3"; fi
}
# done_testing [N]: the plan, when none was given first. With N, N points
# are expected, so a conditional block that silently ran fewer fails.
done_testing() {
  [ -z "$_T_PLAN" ] && [ -z "${1:-}" ] && _t_tap "# no fixed count: plan N or done_testing N"
  [ -z "$_T_PLAN" ] && _t_tap "1..${1:-$_T_N}"
  [ $_T_FAIL -eq 0 ]
}
# healthy: the slurmlinkd a test started itself, on plain HTTP at
# 127.0.0.1:$port, answers /healthz (e.g. wait_for 60 healthy)
healthy() { curl -s -m 1 "http://127.0.0.1:$port/healthz" | grep -q ok; }
# configmaps PREFIX N: N ConfigMaps PREFIX-1..N created (a create each) by
# one kubectl apply in cluster $CL: N changes in the store's change log
configmaps() {
  local i
  for i in $(seq 1 "$2"); do
    printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-%d}\ndata: {k: v}\n' "$1" "$i"
  done | kubectl --cache-dir "$CL/kcache" apply -f - >/dev/null
}
# sleep_job NAME SECONDS: a Job of one busybox pod of 1 CPU sleeping
# SECONDS applied in cluster $CL (images imported by the caller); prints
# the Job's uid
sleep_job() {
  kubectl --cache-dir "$CL/kcache" apply -o jsonpath='{.metadata.uid}' -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  completions: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "$2"], resources: {requests: {cpu: 1}}}
YAML
}
# slurm_of UID: the Slurm jobs and array tasks (-r: one line per task) whose
# comment carries the uid of a Job (or pod) that slurmctld still holds: "ID STATE"
slurm_of() { squeue -h -t all -r -o '%i %T %k' | awk -v u="slurmlink:uid=$1" 'index($0, u) {print $1, $2}'; }
# wait_for SECONDS CMD... : poll CMD every 0.2 s until it succeeds
wait_for() {
  local t=$1; shift
  local end=$(( $(date +%s%N) / 1000000 + t * 1000 ))
  while [ $(( $(date +%s%N) / 1000000 )) -lt $end ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}
# proc_gone PID: the process has exited (gone, or a zombie its parent has
# not reaped yet); for wait_for, e.g. wait_for 60 proc_gone $pid
proc_gone() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  st=${st##*) }
  [ "${st%% *}" = Z ]
}
on_exit() { _T_CLEANUP+=("$*"); }
_t_exit() {
  local i
  for ((i=${#_T_CLEANUP[@]}-1; i>=0; i--)); do eval "${_T_CLEANUP[$i]}" >/dev/null 2>&1; done
}
trap _t_exit EXIT
trap 'exit 130' INT TERM

# A private temporary folder under /tmp, short enough for Unix socket paths;
# under t/run-tests each is noted beside the file's TAP ($SL_TAP_FILE.dirs),
# where the runner looks for processes that outlive the file.
tmpdir() {
  local d
  d=$(mktemp -d /tmp/slt.XXXXXX) || return
  [ -n "$_T_TAP" ] && echo "$d" >>"$_T_TAP.dirs"
  echo "$d"
}

# restart_with_fault SPEC: kill -9 the slurmlinkd of cluster $CL, wait until
# no signal reaches it (reaped too: `up` takes a zombie's pid for a live
# daemon), and start it again with `slurmlink up` and SLURMLINKD_FAULT=SPEC
# (the test build's fault points, src/common/fault.h); up's exit status
_t_unsignalable() { ! kill -0 "$1" 2>/dev/null; }
restart_with_fault() {
  local old
  old=$(cat "$CL/run/slurmlinkd.pid")
  kill -9 "$old"
  wait_for 30 _t_unsignalable "$old"
  SLURMLINKD_FAULT=$1 "$SLURMLINK" up --dir "$CL"
}

# free_ports N: the first of N consecutive TCP ports free here (each bindable
# on IPv4's and IPv6's wildcard now), for a test's own servers and kubectl's
# local ports. Drawn at random from 10000-19999: below `slurmlink up`'s
# daemons (20000-32767) and the kernel's ephemeral ports (32768-60999 here),
# which other tests' clusters, sruns and clients take while this one runs.
free_ports() {
  /usr/bin/python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
def free(p):
    for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        try:
            s = socket.socket(fam, socket.SOCK_STREAM)
        except OSError:  # no IPv6 here
            continue
        try:
            if fam == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((addr, p))
        except OSError:
            return False
        finally:
            s.close()
    return True
for _ in range(1000):
    b = random.randrange(10000, 20000 - n)
    if all(free(b + k) for k in range(n)):
        print(b)
        sys.exit(0)
sys.exit("free_ports: no %d free ports in 10000-19999" % n)
PY
}

# daemon_with DIR ARGS...: a slurmlinkd wrapper in DIR (made 755, the jobs'
# user runs the shim through it) that adds ARGS to the daemon's command
# line, with the shim beside it; prints its path, for `cluster_up --daemon`
daemon_with() {
  local d=$1; shift
  chmod 755 "$d"
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$SLURMLINKD" "$*" >"$d/slurmlinkd"
  chmod +x "$d/slurmlinkd"
  ln -sf "$(dirname "$SLURMLINKD")/slurmlink-shim" "$d/slurmlink-shim" # up looks for it beside the daemon
  echo "$d/slurmlinkd"
}
# cluster_up [options] — start a private cluster in a new folder $CL
cluster_up() {
  CL=$(tmpdir)
  on_exit "'$SLURMLINK' down --dir '$CL'; rm -rf '$CL'"
  if ! "$SLURMLINK" up --dir "$CL" "$@" >"$CL.up.log" 2>&1; then
    diag "slurmlink up failed:"; sed 's/^/#   /' "$CL.up.log"
    rm -f "$CL.up.log"
    return 1
  fi
  rm -f "$CL.up.log"
  export SLURM_CONF=$CL/etc/slurm.conf KUBECONFIG=$CL/kubeconfig
  # the Unix user pods run as by default (slurm.run_as of the folder's
  # slurmlinkd.conf; up names one only where nobody cannot run jobs)
  SL_JOB_USER=$(sed -n 's/^  run_as: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$CL/etc/slurmlinkd.conf" 2>/dev/null)
  SL_JOB_USER=${SL_JOB_USER:-nobody}
}

# procs_of DIR — pids (one per line) that a cluster folder started: the same
# rule as `slurmlink down` (SLURMLINK_DIR=DIR, or DIR's SLURM_CONF with a job id)
procs_of() {
  /usr/bin/python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]
me = set()
p = os.getpid()
while p > 1:
    me.add(p)
    try:
        p = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
    except Exception:
        break
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) in me:
        continue
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except Exception:
        continue
    if state == "Z":
        continue
    mark = ("SLURMLINK_DIR=" + d).encode() in env
    job = ("SLURM_CONF=" + d + "/etc/slurm.conf").encode() in env and any(e.startswith(b"SLURM_JOB_ID=") for e in env)
    if mark or job:
        print(pid)
PY
}

# --- helpers every test file wrote for itself ---------------------------------
# kc ARGS...: kubectl on cluster $CL with the cluster's own cache (a file
# that talks as tenants defines its own kc USER ARGS... after sourcing this)
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
# sacct ARGS...: every job of the test's cluster. sacct's own default is the
# jobs since midnight (-S), so a run that crosses midnight missed the jobs
# before it; a later -S in ARGS wins. A tenant's sacct (as_user ... sacct)
# names -S itself.
sacct() { command sacct -S 1970-01-01T00:00:01 "$@"; }
# phase_of POD [kubectl options]: the pod's status.phase (empty when gone)
phase_of() { local p=$1; shift; kc get pod "$p" "$@" -o jsonpath='{.status.phase}' 2>/dev/null; }
# running POD [kubectl options]: the pod's phase is Running (for wait_for)
running() { [ "$(phase_of "$@")" = Running ]; }
# start_registry [--delete] [--addr HOST:PORT] DIR [YAML LINES]: a
# docker-registry on a free loopback port (or ADDR), its data in DIR/regdata (--delete: deletes allowed), its log
# in DIR/reg.log (YAML LINES add to its configuration, e.g. an access log);
# sets REG (host:port) and REG_PID, and returns once /v2/ answers (stopped
# on exit). Bails when skopeo, umoci or docker-registry is missing.
start_registry() {
  local del= addr= d t
  [ "$1" = --delete ] && { del=', delete: {enabled: true}'; shift; }
  [ "$1" = --addr ] && { addr=$2; shift 2; }
  d=$1
  for t in skopeo umoci docker-registry; do command -v $t >/dev/null || bail "$t is missing (scripts/deps.sh)"; done
  REG=${addr:-127.0.0.1:$(free_ports 1)}
  printf 'version: 0.1\nstorage: {filesystem: {rootdirectory: %s/regdata}%s}\nhttp: {addr: "%s"}\n%s\n' \
    "$d" "$del" "$REG" "${2:-}" >"$d/reg.yml"
  docker-registry serve "$d/reg.yml" >"$d/reg.log" 2>&1 &
  REG_PID=$!
  on_exit "kill $REG_PID"
  wait_for 20 curl -fs "http://$REG/v2/" || bail "docker-registry did not start: $(tail -3 "$d/reg.log")"
}
# push_busybox DIR REPO:TAG [COMMAND...]: an image of /bin/busybox (with sh
# and echo) built with umoci in DIR/oci and pushed with skopeo to
# $REG/REPO:TAG; COMMAND... runs in its unpacked rootfs folder before the
# repack (to add files)
push_busybox() {
  local d=$1 ref=$2 name=${2//[:\/]/-}
  shift 2
  (
    cd "$d" && { [ -d oci ] || umoci init --layout oci; } && umoci new --image "oci:$name" &&
      umoci unpack --rootless --image "oci:$name" "b-$name" >/dev/null &&
      mkdir -p "b-$name/rootfs/bin" && cp /bin/busybox "b-$name/rootfs/bin/" &&
      ln -s busybox "b-$name/rootfs/bin/sh" && ln -s busybox "b-$name/rootfs/bin/echo" &&
      { [ $# -eq 0 ] || (cd "b-$name/rootfs" && "$@"); } &&
      umoci repack --image "oci:$name" "b-$name" && rm -rf "b-$name"
  ) >"$d/build-$name.log" 2>&1 || bail "umoci: $(cat "$d/build-$name.log")"
  skopeo copy --quiet --dest-tls-verify=false "oci:$d/oci:$name" "docker://$REG/$ref" || bail "skopeo copy to $REG/$ref"
}
# slurm_rpcs RPC: how many times the slurmlinkd of $CL has called libslurm's
# RPC (load_jobs, submit_batch_job, ...) so far, from its /metrics
slurm_rpcs() {
  kc get --raw /metrics 2>/dev/null |
    awk -v r="slurmlink_slurm_rpc_duration_seconds_count{rpc=\"$1\"}" '$1 == r {print $2}'
}
# sched_says POD TEXT [KUBECTL...]: POD's PodScheduled condition message
# holds TEXT (a glob); KUBECTL, the command that reads it (default kc, e.g.
# kc bob); for wait_for
sched_says() {
  local pod=$1 text=$2; shift 2
  [ $# -gt 0 ] || set -- kc
  [[ "$("$@" get "pod/$pod" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' 2>&1)" == *$text* ]]
}
# event_says NAME TEXT [KUBECTL...]: the Events of the object NAME, their
# reasons then their messages, hold TEXT (a glob: "ProvisioningFailed*root");
# KUBECTL as for sched_says; for wait_for
event_says() {
  local name=$1 text=$2; shift 2
  [ $# -gt 0 ] || set -- kc
  [[ "$("$@" get events --field-selector involvedObject.name="$name" -o jsonpath='{.items[*].reason} {.items[*].message}' 2>&1)" == *$text* ]]
}
# loop_passes LOOP: the passes a background loop of slurmlinkd has ended
# (slurmlink_loop_passes_total: janitor, or a kind's store name such as
# jobs.batch or cronjobs.batch)
loop_passes() {
  kc get --raw /metrics 2>/dev/null |
    awk -v r="slurmlink_loop_passes_total{loop=\"$1\"}" '$1 == r {print $2}'
}
# after_loop_passes LOOP N [SECONDS]: wait until LOOP has ended N more passes
# (N=2: one that began after this call ended); for what is NOT to happen
after_loop_passes() {
  local c0
  c0=$(loop_passes "$1")
  # a count that is not a plain integer must fail this check, not abort the
  # caller's ok (an arithmetic error below would end it unreported)
  [[ "$c0" =~ ^[0-9]+$ ]] || { diag "after_loop_passes: no $1 count in /metrics (read: [$c0])"; return 1; }
  wait_for "${3:-60}" eval '[ "$(loop_passes '"$1"')" -ge '"$((c0 + $2))"' ]' ||
    { diag "after_loop_passes: $1 stayed at $(loop_passes "$1") passes (from $c0)"; return 1; }
}
# after_janitor_passes N, after_job_passes N, after_cronjob_passes N: the
# API janitor's (namespaces, quotas' status.used), the Job and the CronJob
# controllers' passes
after_janitor_passes() { after_loop_passes janitor "$@"; }
after_job_passes() { after_loop_passes jobs.batch "$@"; }
after_cronjob_passes() { after_loop_passes cronjobs.batch "$@"; }
# after_job_polls N [SECONDS]: wait until the controller has polled Slurm's
# jobs N more times (each poll a load_jobs): to see that something did NOT
# happen, wait for the passes that would have done it, not for seconds
after_job_polls() {
  local c0
  c0=$(slurm_rpcs load_jobs)
  [[ "$c0" =~ ^[0-9]+$ ]] || { diag "after_job_polls: no load_jobs count in /metrics (read: [$c0])"; return 1; }
  wait_for "${2:-60}" eval '[ "$(slurm_rpcs load_jobs)" -ge '"$((c0 + $1))"' ]'
}
