#!/bin/bash
# covers: scripts/demo.sh scripts/kubeflow-images.sh examples/ src/report/ src/kinds/pytorchjob/ src/ctl/ src/slurmif/acct.c
# slow
# 84-demo.t — the README's first command without its package install and
# build: scripts/demo.sh in a folder of its own ($SLURMLINK_DIR) on `up
# --nodes 2 --gpus 1 --accounting`, the AI team's path next to an HPC
# user's. It must exit 0 and leave the cluster running; then, from the
# cluster it leaves and its own output:
#   - the PyTorchJob demo-train Succeeded, its Master and Worker on the two
#     nodes, as ONE Slurm job of 2 nodes holding a GPU on each; both ranks'
#     loss fell and they agree on the parameters' digest;
#   - its image came from the demo's loopback registry by reference: each
#     pod's imageID is the registry's digest of kubeflow/torch:v1 (the
#     registry's own tag link), the registry's log has the pull of its
#     manifest, and the image store holds no imported image;
#   - the inference pod's answer over port-forward equals the prediction
#     computed here from the model file the training saved (and the model is
#     better than chance), and the pod Succeeded after /quit;
#   - the MPI job verified on both nodes and COMPLETED;
#   - the queued excess (a job pending while the training holds both GPUs);
#   - `slurmlink report` lists the three jobs (sbatch, the PyTorchJob's gang,
#     the inference pod) and its all-clear line, computed from the recorded
#     GPUs and accounting's times.
# The image is built once by scripts/kubeflow-images.sh and cached in
# .cache/kubeflow-images. The jobs' user is the cluster's run_as: nobody,
# or _slurmlink-jobs from Slurm 25.11 with accounting.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
# the MPI job runs srun --mpi=pmix: a release of SchedMD's built without
# PMIx (make SLURM=PREFIX test) skips, naming it (docs/deploy.md says how a
# site adds the plugin); Debian's Slurm has it
why=$(slurm_mpi_missing pmix)
[ -n "$why" ] && [ -n "${SL_SLURM_PREFIX:-}" ] && skip_all "$why"
plan 19
[ -x "$ROOT/build/mpi-stencil" ] || bail "build/mpi-stencil is missing (make)"
ptj_need_torch torch.distributed.run
for t in docker-registry skopeo umoci; do command -v $t >/dev/null || bail "$t is missing (scripts/deps.sh)"; done
D=$(tmpdir)
on_exit "'$SLURMLINK' down --dir '$D' >/dev/null 2>&1; rm -rf '$D'"
out=$(SLURMLINK_DIR=$D "$ROOT/scripts/demo.sh" 2>&1; echo "rc=$?")
diag "$(printf '%s\n' "$out" | grep -a '== ')"
diag "$(printf '%s\n' "$out" | tail -14)"
like "$out" 'rc=0$' "scripts/demo.sh exits 0" || diag "$(printf '%s\n' "$out" | tail -60)"
export SLURM_CONF=$D/etc/slurm.conf KUBECONFIG=$D/kubeconfig
kd() { kubectl "$@" 2>&1; }

# --- training -------------------------------------------------------------------------------
is "$(kd get pytorchjob demo-train -o jsonpath='{.status.conditions[?(@.type=="Succeeded")].status}')" True \
  "the PyTorchJob demo-train Succeeded"
nodes=$(kd get pods -l training.kubeflow.org/job-name=demo-train -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort)
is "$(echo $nodes)" "node1 node2" "its Master and Worker ran on the two nodes"
gang=$(kd get pod demo-train-master-0 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
is "$(kd get pod demo-train-worker-0 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}') $(sacct -n -X -P -j "$gang" -o NNodes,State 2>&1 | head -1) $(sacct -n -X -P -j "$gang" -o AllocTRES 2>&1 | grep -o 'gres/gpu=[0-9]*')" \
  "$gang 2|COMPLETED gres/gpu=2" "... as ONE Slurm job ($gang) of 2 nodes, COMPLETED, a GPU on each (AllocTRES)"
tl=$(printf '%s\n' "$out" | grep '^train rank=')
is "$(printf '%s\n' "$tl" | sed -E 's/^train rank=([01]) world=2 node=node[12] gpu=0 loss ([0-9.]+) -> ([0-9.]+) .*ranks-agree=True$/\1 \2>\3/' |
  awk '{split($2, l, ">"); print $1, (l[2] < l[1]) ? "falls" : "rises"}' | sort | tr '\n' ' ')" "0 falls 1 falls " \
  "each rank's loss fell, each ranks-agree=True, each on a GPU" || diag "$tl"
is "$(printf '%s\n' "$tl" | grep -o 'params-sha256=[0-9a-f]*' | sort | uniq -c | sed 's/^ *//')" \
  "2 $(printf '%s\n' "$tl" | grep -o 'params-sha256=[0-9a-f]*' | head -1)" "both ranks print the same parameter digest"

# --- the image, from the registry by reference ------------------------------------------------
reg=$(printf '%s\n' "$out" | sed -n 's|^docker-registry serving http://\([^ ]*\).*|\1|p' | head -1)
link=$(cat "$D/registry/data/docker/registry/v2/repositories/kubeflow/torch/_manifests/tags/v1/current/link" 2>&1)
ids=$(kd get pods -o jsonpath='{range .items[*]}{.metadata.name} {.status.containerStatuses[0].imageID}{"\n"}{end}' | grep '^demo-')
is "$(printf '%s\n' "$ids" | awk '{print $2}' | sort | uniq -c | sed 's/^ *//')" "3 $reg/kubeflow/torch@$link" \
  "the 3 pods ran the registry's kubeflow/torch:v1 (imageID = the registry's tag link $link)" || diag "$ids"
like "$(cat "$D/registry/registry.log" 2>&1)" 'GET /v2/kubeflow/torch/manifests/v1 ' "the registry's log: the pull of the manifest"
is "$("$SLURMLINK" image list --store "$D/images" 2>&1 | awk 'NR > 1 {print ($1 == r "/kubeflow/torch") ? "pulled" : "other"}' r="$reg" | sort | uniq -c | sed 's/^ *//')" \
  "1 pulled" "the image store holds the pulled image only (nothing from slurmlink image import)" ||
  diag "$("$SLURMLINK" image list --store "$D/images" 2>&1)"

# --- inference --------------------------------------------------------------------------------
answer=$(printf '%s\n' "$out" | grep '^{"accuracy"' | head -1)
model=$(kd get pv "$(kd get pvc demo-model -o jsonpath='{.spec.volumeName}')" -o jsonpath='{.spec.hostPath.path}')/model.pt
want=$(PYTHONPATH=$ROOT/examples/kubeflow-images /usr/bin/python3 "$ROOT/examples/kubeflow-images/demo_serve.py" --check "$model" 999 1000 2>&1)
is "$answer" "$want" "the inference server's answer (port-forward) equals the saved model's prediction computed here"
like "$answer" '"accuracy": 0\.[5-9]' "... and the model is far better than chance (0.1)"
is "$(kd get pod demo-infer -o jsonpath='{.status.phase} {.status.containerStatuses[0].state.terminated.exitCode}')" "Succeeded 0" \
  "the inference pod Succeeded after /quit"

# --- the MPI job, the queue, the report --------------------------------------------------------
like "$out" 'mpi-stencil: [0-9]+ ranks on 2 node\(s\) \[node1,[a-z0-9,]*node2\], 20000 cells, 500 sweeps: verified' \
  "the MPI job ran on both nodes and verified"
like "$out" $'\n'' *[0-9]+ +(mpi-demo|default/demo-infer) +[^ ]+ +PENDING +(Resources|Priority) ' \
  "the queued excess: the MPI job or the inference pending while a GPU job runs (squeue)"
like "$out" $'\n +[0-9]+  sbatch +'"$SL_ACCT_JOB_USER"$' +default +node\\[1-2\\] +node1:0,node2:0 +[0-9]+s +[0-9]+s  0:0\n' "report: the MPI job, both nodes' GPU"
like "$out" $'\n +'"$gang"$'  default/demo-train \\(PyTorchJob\\) +'"$SL_ACCT_JOB_USER"$' +default +node\\[1-2\\] +node1:0,node2:0 +[0-9]+s +[0-9]+s  0:0\n' \
  "report: the PyTorchJob's gang job, both nodes' GPU"
like "$out" $'\n +[0-9]+  default/demo-infer +'"$SL_ACCT_JOB_USER"$' +default +node[12] +node[12]:0 +[0-9]+s +[0-9]+s  0:0\n' \
  "report: the inference pod"
like "$out" 'no GPU was held by two jobs at once: 5 holdings of 2 \(node, GPU\) pair\(s\) by 3 GPU job\(s\)' \
  "report: the computed all-clear line"
is "$(sinfo -h -o '%D' 2>&1)" 2 "the cluster keeps running afterwards"
