#!/bin/bash
# demo.sh — the README's first command runs this after building: a private
# real cluster of two nodes with one GPU each (munge, slurmctld, a slurmd per
# node in its own network namespace, MariaDB + slurmdbd, slurmlinkd), then
# the AI team's real path next to an HPC user's job, all in one Slurm queue:
#   - a loopback registry (Debian's docker-registry, on a free port, its data
#     in DIR/registry) holding the AI team's image, built offline from this
#     machine's Python and torch by scripts/kubeflow-images.sh (cached in
#     .cache/kubeflow-images, rebuilt when its inputs change) and pushed with
#     skopeo; the pods name it by reference and slurmlinkd pulls it;
#   - training: a Kubeflow PyTorchJob (examples/ai/train.yaml), Master +
#     Worker with a GPU each, torchrun and DDP over both nodes as ONE gang
#     Slurm job; the loss falls, the ranks agree on the parameters' digest,
#     the model is saved on a claim (examples/ai/model-pvc.yaml);
#   - an HPC user's MPI job through sbatch across both nodes, a GPU on each
#     (examples/mpi/gpu-job.sh: srun --mpi=pmix mpi-stencil, which checks its
#     own answer), submitted while the training holds both GPUs;
#   - inference: a pod with a GPU serving the trained model over HTTP
#     (examples/ai/serve.yaml), asked through `kubectl port-forward`; its
#     answer is checked against the saved model computed here, then it is
#     told to quit;
# more GPU work than GPUs, so Slurm queues the excess until a GPU frees.
# It ends with a summary from Slurm accounting and the API (`slurmlink
# report`): each job, where it came from, user, account, node, GPU, queue
# wait, run time, exit code, and a line computed from the recorded GPU
# indices and accounting's times that no GPU was held by two jobs at once
# (else it exits non-zero).
# The cluster is left running (the registry is stopped); `build/slurmlink
# down --dir DIR` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SLURMLINK_DIR:-/var/lib/slurmlink-cluster}
SL=build/slurmlink
PY=/usr/bin/python3

step() { printf '\n\033[1m== %s\033[0m  (at %d s)\n' "$*" $SECONDS; }
run() { printf '$ %s\n' "$*"; "$@"; }
die() { echo "demo: $*" >&2; exit 1; }
# until "$@" succeeds, at most $1 seconds
until_ok() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.5; done
}
free_port() { $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for t in docker-registry skopeo umoci curl; do command -v $t >/dev/null || die "$t is missing (scripts/deps.sh)"; done

step "slurmlink up --dir $DIR --nodes 2 --gpus 1 --accounting"
"$SL" up --dir "$DIR" --nodes 2 --gpus 1 --accounting
export SLURM_CONF=$DIR/etc/slurm.conf KUBECONFIG=$DIR/kubeconfig
"$SL" status --dir "$DIR"
run sinfo -N -o "%N %T %c %G"
kubectl delete pytorchjob demo-train --ignore-not-found --wait=true >/dev/null
kubectl delete pod demo-infer --ignore-not-found --wait=true >/dev/null

step "the AI team's image in a loopback registry (built offline, pushed with skopeo)"
RD=$DIR/registry
mkdir -p "$RD"
old=$(cat "$RD/pid" 2>/dev/null || true) # an earlier run's registry, if one was left
[ -n "$old" ] && [ "$(cat "/proc/$old/comm" 2>/dev/null)" = docker-registry ] && kill "$old" || true
REG=127.0.0.1:$(free_port)
printf 'version: 0.1\nstorage: {filesystem: {rootdirectory: %s/data}}\nhttp: {addr: "%s"}\n' "$RD" "$REG" >"$RD/config.yml"
docker-registry serve "$RD/config.yml" >"$RD/registry.log" 2>&1 &
echo $! >"$RD/pid"
PIDS=$!
trap 'kill $PIDS 2>/dev/null; rm -f "$RD/pid"' EXIT
until_ok 20 curl -fs "http://$REG/v2/" >/dev/null || die "docker-registry did not start: $(tail -3 "$RD/registry.log")"
echo "docker-registry serving http://$REG (log: $RD/registry.log)"
echo "$ scripts/kubeflow-images.sh .cache/kubeflow-images $REG torch"
t0=$SECONDS
scripts/kubeflow-images.sh .cache/kubeflow-images "$REG" torch >"$RD/build.log" 2>&1 ||
  die "scripts/kubeflow-images.sh: $(tail -5 "$RD/build.log")"
echo "(built or reused the cached image, pushed: $((SECONDS - t0)) s)"
run curl -fsS "http://$REG/v2/kubeflow/torch/tags/list"
IMG=$REG/kubeflow/torch:v1
ai() { sed "s|127\.0\.0\.1:5000/|$REG/|" "examples/ai/$1"; }

step "training: a PyTorchJob over both nodes, a GPU per replica (kubectl apply)"
run kubectl apply -f examples/ai/model-pvc.yaml
echo "$ kubectl apply -f examples/ai/train.yaml   # image: $IMG"
ai train.yaml | kubectl apply -f -
jobid() { kubectl get pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
has_job() { [ -n "$(jobid "$1")" ]; }
# slurmlinkd pulls the image (once per digest), then submits ONE gang job
until_ok 600 has_job demo-train-master-0 ||
  die "the PyTorchJob's gang job was never submitted: $(kubectl get events --field-selector involvedObject.name=demo-train-master-0 2>&1 | tail -3)"
run kubectl get events --field-selector involvedObject.name=demo-train-master-0
gang=$(jobid demo-train-master-0)
echo "the PyTorchJob is Slurm job $gang"

step "an HPC user's MPI job through sbatch, and the inference server: more GPU work than GPUs"
# as the user the cluster's pods run as (its slurmlinkd's slurm.run_as,
# registered in accounting by up): nobody, or from Slurm 25.11, whose
# slurmctld refuses nobody's jobs, _slurmlink-jobs. OpenMPI refuses root.
JU=$(sed -n 's/^  run_as: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$DIR/etc/slurmlinkd.conf")
JU=${JU:-nobody}
MPI=$DIR/mpi-demo
mkdir -p "$MPI" && cp build/mpi-stencil examples/mpi/gpu-job.sh "$MPI/" && chown -R "$JU" "$MPI"
per=$(sinfo -h -N -o %c | sort -n | head -1)
[ "$per" -gt 2 ] && per=2
mjob=$(cd "$MPI" && runuser -u "$JU" -- sbatch --parsable -J mpi-demo -N2 --ntasks-per-node="$per" \
  --gres=gpu:1 -o "$MPI/out-%j.txt" ./gpu-job.sh --cells 20000 --iters 500)
echo "Submitted batch job $mjob (sbatch -N2 --ntasks-per-node=$per --gres=gpu:1 gpu-job.sh: srun --mpi=pmix ./mpi-stencil)"
echo "$ kubectl apply -f examples/ai/serve.yaml   # image: $IMG"
ai serve.yaml | kubectl apply -f -
scheduled() { # the inference pod's PodScheduled condition
  printf 'demo-infer: PodScheduled %s\n' \
    "$(kubectl get pod demo-infer -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason}: {.status.conditions[?(@.type=="PodScheduled")].message}')"
}
# until Slurm has a job pending on Resources and the inference pod is
# submitted (captured, not piped to grep -q: with pipefail an early exit of
# grep fails the pipe)
queued() { [[ "$(squeue -h -o '%T %r')" == *"PENDING "* && ( "$(scheduled)" == *"is pending: "* || -n "$(jobid demo-infer)" ) ]]; }
until_ok 120 queued || true
run squeue -o "%.6i %.20j %.8u %.9T %.12r %.14b %N"
scheduled
run kubectl get pytorchjob demo-train

step "training: the loss falls, both ranks agree on the model"
ptj_state() { kubectl get pytorchjob demo-train -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}'; }
ptj_ended() { [[ "$(ptj_state)" == *Succeeded* || "$(ptj_state)" == *Failed* ]]; }
until_ok 900 ptj_ended || true
run kubectl get pytorchjob demo-train
[[ "$(ptj_state)" == *Succeeded* ]] ||
  { kubectl get pods -o wide; kubectl logs demo-train-master-0 | tail; die "the PyTorchJob did not succeed"; }
run kubectl get pods -l training.kubeflow.org/job-name=demo-train -o wide
gang=$(jobid demo-train-master-0) # the last attempt's (restartPolicy OnFailure restarts the gang)
tl=$(for p in master worker; do kubectl logs "demo-train-$p-0" | grep '^train ' || true; done)
printf '%s\n' "$tl"
ranks=$(printf '%s\n' "$tl" | grep -c '^train rank=.*ranks-agree=True' || true)
digests=$(printf '%s\n' "$tl" | grep -o 'params-sha256=[0-9a-f]*' | sort -u || true)
nodes=$(printf '%s\n' "$tl" | grep -o ' node=node[0-9]*' | sort -u | wc -l || true)
[ "$ranks" = 2 ] && [ "$(echo "$digests" | wc -l)" = 1 ] && [ "$nodes" = 2 ] ||
  die "training: want 2 ranks on 2 nodes agreeing on one digest"
echo "training verified: 2 ranks on 2 nodes, one model ($digests), saved on the claim"

step "inference: the server answers over kubectl port-forward"
run kubectl wait --for=condition=Ready pod/demo-infer --timeout=600s
LP=$(free_port)
kubectl port-forward pod/demo-infer "$LP:8080" >"$DIR/port-forward.log" 2>&1 &
PIDS+=" $!"
until_ok 30 grep -q '^Forwarding from' "$DIR/port-forward.log" || die "port-forward: $(cat "$DIR/port-forward.log")"
echo "$ kubectl port-forward pod/demo-infer $LP:8080 &"
cat "$DIR/port-forward.log"
echo "$ curl -fsS 'http://127.0.0.1:$LP/predict?seed=999&n=1000'"
answer=$(curl -fsS "http://127.0.0.1:$LP/predict?seed=999&n=1000") || die "inference: no answer"
printf '%s\n' "$answer"
# the same question answered here from the model file the training saved
pv=$(kubectl get pvc demo-model -o jsonpath='{.spec.volumeName}')
model=$(kubectl get pv "$pv" -o jsonpath='{.spec.hostPath.path}')/model.pt
want=$(PYTHONPATH=examples/kubeflow-images $PY examples/kubeflow-images/demo_serve.py --check "$model" 999 1000)
[ "$answer" = "$want" ] || die "inference: the server said $answer, the model here $want"
[[ "$want" == *"\"model\": \"${digests#params-sha256=}\""* ]] || die "inference: served model is not the trained one"
echo "inference verified: the server's predictions equal the saved model's computed here (model ${digests#params-sha256=})"
run curl -fsS -X POST "http://127.0.0.1:$LP/quit"
run kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/demo-infer --timeout=120s
run kubectl logs demo-infer

step "the MPI job"
mpi_ended() { [ -z "$(squeue -h -j "$mjob" -o %i 2>/dev/null)" ]; }
until_ok 600 mpi_ended || die "the MPI job did not end"
cat "$MPI/out-$mjob.txt"
grep -q 'verified$' "$MPI/out-$mjob.txt" || die "the MPI job did not verify"

step "one accounting: sacct lists every job of both paths"
infer=$(jobid demo-infer)
jobs=$gang,$mjob,$infer
# slurmdbd records each end a moment after slurmctld; on a loaded machine
# that moment can be long, and the report checks every job ended
ended() { [ "$(sacct -n -X -P -j "$jobs" -o End | grep -c '^20')" = 3 ]; }
until_ok 120 ended || true
run sacct -X -j "$jobs" -o JobID,JobName%20,User,Account,NodeList,State,ExitCode,Elapsed,AllocTRES%45,Comment%50

step "summary (slurmlink report: accounting + the pods + each job's recorded GPU)"
run "$SL" report --jobs "$jobs" --records "$MPI/out-$mjob.txt"

step "done (in $SECONDS s)"
echo "the cluster keeps running; to use it:"
echo "  export SLURM_CONF=$SLURM_CONF KUBECONFIG=$KUBECONFIG"
echo "to stop it:  $SL down --dir $DIR"
