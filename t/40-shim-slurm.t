#!/bin/bash
# covers: src/shim/ src/shimlib/
# slurmlink-shim inside real Slurm jobs: a hand-written batch script execs the
# shim on a hand-made spec with a charliecloud busybox container on a GRES GPU;
# logs, status.json, pushes and the job's exit code; scancel with a grace period.
source "$(dirname "$0")/lib.sh"
plan 24

SHIM=$ROOT/build/slurmlink-shim
PY=/usr/bin/python3
export USER=${USER:-$(id -un)}
cluster_up --gpus 2 || bail "cluster up"
is "$(sinfo -h -N -o '%N %G')" "node1 gpu:2" "private cluster up: node1 with gpu:2"

STORE=$CL/images
ok "$SLURMLINK" image import busybox --busybox --store "$STORE" "busybox image imported"
IMG=$STORE/busybox+latest

# a receiver standing in for slurmlinkd's push endpoint
cat >"$CL/recv.py" <<'PY'
import http.server, json, sys
log = open(sys.argv[1], 'a')
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        log.write(json.dumps({'auth': self.headers.get('Authorization'), 'body': body.decode()}) + '\n'); log.flush()
        self.send_response(204); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
open(sys.argv[2], 'w').write(str(s.server_address[1]))
s.serve_forever()
PY
$PY "$CL/recv.py" "$CL/recv.log" "$CL/recv.port" & rpid=$!
on_exit "kill $rpid"
ok wait_for 5 test -s "$CL/recv.port" "push receiver listening"
URL="http://127.0.0.1:$(cat "$CL/recv.port")/internal/v1/shim/events"

# podjob NAME GRES ARGV-JSON [GRACE]: pod folder, shim.json and job.sh; prints the folder
podjob() {
  local d=$CL/pods/default/$1-uid-$1
  mkdir -p "$d"; chmod 700 "$d"
  cat >"$d/shim.json" <<JSON
{"apiVersion":"slurmlink.io/v1","kind":"ShimSpec",
 "pod":{"namespace":"default","name":"$1","uid":"uid-$1"},
 "restartPolicy":"Never","terminationGracePeriodSeconds":${4:-30},
 "report":{"url":"$URL","token":"job-token"},
 "containers":[{"name":"main","runtime":"charliecloud","argv":$3}]}
JSON
  cat >"$d/job.sh" <<SH
#!/bin/bash
#SBATCH --job-name=default/$1
#SBATCH --comment=uid-$1
#SBATCH --output=$d/job.out
#SBATCH --gres=$2
# pod default/$1 (uid-$1)
exec '$SHIM' --pod-dir '$d'
SH
  echo "$d"
}
jobfield() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
gone() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }

# --- a GPU pod that prints its device and fails with 3 ----------------------------
D=$(podjob gpu gpu:1 '["ch-run","'"$IMG"'","--","/bin/sh","-c","echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; echo to-stderr >&2; exit 3"]')
id=$(sbatch --parsable "$D/job.sh")
ok test -n "$id" "sbatch of the hand-written script (job $id)"
ok wait_for 60 gone "$id" "job finishes"
is "$(jobfield "$id" JobState)" FAILED "Slurm sees the job FAILED"
is "$(jobfield "$id" ExitCode)" "3:0" "the job's exit code is the container's (3:0)"
like "$(cat "$D/logs/main/0.log" 2>/dev/null)" "Z stdout F CUDA_VISIBLE_DEVICES=[01]"$'\n' "the container saw its own GPU from Slurm's GRES, logged in CRI format"
like "$(cat "$D/logs/main/0.log" 2>/dev/null)" "Z stderr F to-stderr" "stderr logged apart"
is "$(jq -r '.containerStatuses[0].state.terminated | "\(.exitCode) \(.reason)"' "$D/status.json")" "3 Error" "status.json: exit 3, Error"
is "$(jq -r .slurmJobId "$D/status.json")" "$id" "status.json knows its Slurm job id"
is "$(jq -r .node "$D/status.json")" "$(hostname)" "and its node"
is "$(jq -r .body "$CL/recv.log" | jq -r 'select(.pod_uid=="uid-gpu") | .event' | tr '\n' ' ')" "pod-started started exited pod-finished " "every transition pushed from inside the job"
is "$(jq -r .auth "$CL/recv.log" | sort -u)" "Bearer job-token" "with the pod's token"
is "$(jq -r 'select(.event=="pod-started") | .slurmJobId' "$D/events.jsonl")" "$id" "pod-started event carries the job id"

# --- scancel: SIGTERM reaches the container, the grace period is honoured -------------
D=$(podjob term gpu:1 '["ch-run","'"$IMG"'","--","/bin/sh","-c","trap \"echo got-term; sleep 1; echo bye; exit 0\" TERM; echo up; while :; do sleep 0.2; done"]' 10)
id=$(sbatch --parsable "$D/job.sh")
ok test -n "$id" "second job submitted ($id)"
running() { [ "$(jq -r '.containerStatuses[0].state | keys[0]' "$D/status.json" 2>/dev/null)" = running ]; }
ok wait_for 60 running "container running inside the job"
t0=$(date +%s%N)
scancel "$id"
ok wait_for 30 gone "$id" "job ends after scancel"
el=$(( ($(date +%s%N) - t0) / 1000000 ))
ok test $el -ge 900 "the container had its time to finish (${el} ms)"
is "$(jq -r .terminating "$D/status.json")" true "status.json: terminating"
is "$(jq -r '.containerStatuses[0].state.terminated | "\(.exitCode) \(.reason)"' "$D/status.json")" "0 Completed" "container exited 0 from its TERM handler"
like "$(cat "$D/logs/main/0.log")" "stdout F got-term.*stdout F bye" "its handler's output is logged"
is "$(jq -r 'select(.event=="pod-finished") | .exitCode' "$D/events.jsonl")" 0 "pod-finished written before the job ended"
is "$(jobfield "$id" JobState)" CANCELLED "Slurm sees the job CANCELLED"

done_testing
