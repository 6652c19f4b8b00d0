#!/bin/bash
# covers: src/runtime/ src/shim/
# 42-runtimes.t — a pod runs with a runtime that is installed, or is told
# clearly why not, never as a Slurm job that dies with
# `exec apptainer: No such file or directory`:
#   - slurmlinkd checks its default runtime at start-up: one named with
#     runtimes.default that is not installed stops it (exit 2, one line);
#     without the setting it takes the first installed one and says so;
#   - a pod asking (slurmlink.io/runtime) for one that is not installed is
#     refused at admission, 422 naming the annotation;
#   - `kubectl run py --image=python:3.11` (a registry out of reach here):
#     the pull fails as the kubelet reports it, no exec error, no Slurm job;
#   - a runtime slurmlinkd sees that the node does not have: the container
#     fails before exec with StartError naming the runtime and its path.
source "$(dirname "$0")/lib.sh"
# what is said about missing runtimes needs them missing: charliecloud only
for p in apptainer singularity podman enroot; do
  command -v "$p" >/dev/null && skip_all "$p is installed here: this test needs a machine with charliecloud alone"
done
command -v ch-run >/dev/null || skip_all "charliecloud (ch-run) is not installed"
plan 18

D=$(tmpdir) # 0700 root: what slurmlinkd finds there, the jobs' users cannot run
on_exit "rm -rf '$D'"
cat >"$D/slurm.conf" <<CONF
ClusterName=rt
SlurmctldHost=localhost
SlurmctldPort=1
NodeName=node1 CPUs=1 State=UNKNOWN
PartitionName=p Nodes=node1 Default=YES
CONF

# --- start-up: an explicit default that is not installed ------------------------
timeout 60 "$SLURMLINKD" --port "$(free_ports 1)" --state-dir "$D/st1" --slurm-conf "$D/slurm.conf" \
  --default-runtime podman >"$D/out1" 2>&1
is "$?" 2 "runtimes.default podman, not installed: slurmlinkd exits 2"
like "$(cat "$D/out1")" "runtimes.default: podman is not installed: podman not found in PATH" \
  "... with one line naming the setting, the runtime and the program"
ok test ! -e "$D/st1" "... before any state is created"

# --- start-up: no setting, apptainer missing: the first installed one -----------
port=$(free_ports 1)
"$SLURMLINKD" --port "$port" --state-dir "$D/st2" --slurm-conf "$D/slurm.conf" >"$D/out2" 2>&1 &
pid=$!
ok wait_for 60 healthy "no runtimes.default and no apptainer: slurmlinkd starts"
kill "$pid"; wait "$pid"
like "$(cat "$D/out2")" "runtimes.default not set and apptainer is not installed: registry images run with charliecloud" \
  "... and says which runtime it took instead"

# --- a cluster with charliecloud, no apptainer, no podman --------------------------
cluster_up --gpus 0 --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
job() { jp "$1" '{.metadata.annotations.slurmlink\.io/job-id}'; }
failed() { [ "$(jp "$1" '{.status.phase}')" = Failed ]; }

# --- the annotation names a runtime that is not installed: 422 at admission -----
out=$(kc run pm --image=busybox --restart=Never --annotations=slurmlink.io/runtime=podman -- true 2>&1)
like "$out" 'metadata.annotations\[slurmlink.io/runtime\]: Invalid value: "podman": podman is not installed \(podman not found in PATH\); installed: charliecloud, host' \
  "slurmlink.io/runtime: podman, not installed: refused at admission naming the annotation"
like "$out" '(422|Invalid)' "... as 422 Invalid"
like "$(kc get pod pm 2>&1)" 'NotFound' "... and no pod was stored"

# --- the first pod of a new user --------------------------------------------------
# (a registry image: pulled for charliecloud before submission; docker.io is
# out of reach here, so the pull fails as the kubelet's would)
kc run py --image=python:3.11 --restart=Never -- python -c 'print(1)' >/dev/null 2>&1
pull_failed() { [[ $(jp "$1" '{.status.containerStatuses[0].state.waiting.reason}') =~ ^(ErrImagePull|ImagePullBackOff)$ ]]; }
ok wait_for 120 pull_failed py "kubectl run py --image=python:3.11: the pull fails (ErrImagePull / ImagePullBackOff)"
msg=$(jp py '{.status.containerStatuses[0].state.waiting.message}')
msg+=" $(kc get events --field-selector involvedObject.name=py -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' 2>/dev/null)"
diag "py: $msg"
like "$msg" 'Failed to pull image "python:3.11"' "... with the reason, naming the image"
unlike "$msg" 'No such file or directory' "... not an exec error"
is "$(job py)" "" "... and never becomes a Slurm job"

# --- a runtime chosen by the image (an absolute *.sif: apptainer), not installed --
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"sif"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"/srv/model.sif","command":["true"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
  | kc create -f - >/dev/null
ok wait_for 60 failed sif "an absolute .sif image without apptainer installed: the pod fails"
is "$(jp sif '{.status.reason}|{.status.message}')" \
  'SubmitFailed|spec.containers[0].image: Invalid value: "/srv/model.sif": runs with apptainer, which is not installed (apptainer not found in PATH); installed: charliecloud, host' \
  "... at submission, naming the image, the runtime and what is installed"
is "$(job sif)" "" "... and never becomes a Slurm job"

# --- slurmlinkd sees an apptainer that the node's jobs cannot run ----------------
mkdir "$D/bin"
printf '#!/bin/sh\necho fake apptainer\n' >"$D/bin/apptainer"
chmod 755 "$D/bin/apptainer"
PATH=$D/bin:$PATH cluster_up --gpus 0 --cpus 2 || bail "cluster up"
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ap","annotations":{"slurmlink.io/runtime":"apptainer"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"/srv/none.sif","command":["true"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
  | kc create -f - >/dev/null
ok wait_for 90 failed ap "apptainer seen by slurmlinkd but not on the node: the pod fails"
term() { jp ap '{.status.containerStatuses[0].state.terminated.reason}|{.status.containerStatuses[0].state.terminated.message}'; }
diag "ap: $(term)"
# the job's PATH: slurm.bin_dir first where it is not there already (a
# Slurm of its own prefix, t/run-tests --slurm), then the node's
like "$(term)" "^StartError\\|runtime apptainer: apptainer is not installed on node [^ ]+ \\(not found in PATH=${SL_SLURM_PREFIX:+$SL_SLURM_PREFIX/bin:}/usr/local/bin:" \
  "... StartError, the message names the runtime, the program and the node's PATH"
unlike "$(kc logs ap 2>&1)" 'No such file or directory' "... no exec error in its log"
