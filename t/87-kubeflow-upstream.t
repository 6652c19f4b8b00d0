#!/bin/bash
# covers: src/kinds/pytorchjob/ src/kinds/kubeflow/ src/ctl/gang.c src/image/ scripts/kubeflow-images.sh t/data/kubeflow-examples/
# slow
# 87-kubeflow-upstream.t — Kubeflow's own examples, their manifests as
# upstream wrote them (t/data/kubeflow-examples/, each with the upstream
# repository, path and commit in its header; only the image: lines are
# rewritten here), from a registry on loopback, over two nodes:
#   - training-operator's v1 PyTorchJob examples: cpu-demo (torchrun with
#     nprocPerNode "2" in each of Master and Worker: a world of 4), mnist
#     with the gloo backend (a GPU per replica), elastic echo (c10d
#     rendezvous, 1..2 workers), sendrecv (Master + 3 Workers packed on the
#     two nodes): each Succeeded as ONE Slurm job of 2 nodes (per attempt:
#     OnFailure restarts the gang), each replica's log the training's own
#     lines;
#   - mpi-operator's v2beta1 pi (its Launcher and Workers runAsUser 1000,
#     the Workers running sshd): Succeeded as ONE Slurm job of 2 nodes,
#     pi's printed value that of its 2 ranks; runAsUser 1000 is uid 1000
#     inside charliecloud's user namespace (the test's user outside), the
#     Launcher's mpirun reaches the Workers through slurmlink's rsh agent
#     and the Workers wait for the Launcher instead of running sshd.
# The images are made from this machine's files by scripts/kubeflow-images.sh
# (Debian's Python and torch, slurmlink's own training scripts with the
# paths, entrypoints and working directories of the examples' Dockerfiles),
# cached in .cache/kubeflow-images and pushed with skopeo; pi's image is
# Debian's OpenMPI with slurmlink's own pi (examples/kubeflow-images/pi.c).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 26

ptj_need_torch torch.distributed.run
EX=$ROOT/t/data/kubeflow-examples
T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"
"$ROOT/scripts/kubeflow-images.sh" "$ROOT/.cache/kubeflow-images" "$REG" >"$T/images.log" 2>&1 ||
  bail "scripts/kubeflow-images.sh: $(tail -5 "$T/images.log")"
cluster_up --nodes 2 --cpus 2 --gpus 1 --accounting || bail "cluster up --nodes 2 --gpus 1"

# upstream's manifest with each image: line naming IMAGE, nothing else changed
example() { # FILE IMAGE
  sed -E "s|^([[:space:]]*(- )?image:[[:space:]]*).*$|\1$2|" "$EX/$1"
}
n=0
for f in pytorch-cpu-demo.yaml:cpu-demo pytorch-mnist-gloo.yaml:mnist pytorch-elastic-echo.yaml:echo pytorch-sendrecv.yaml:sendrecv mpi-pi.yaml:mpi-pi; do
  example "${f%%:*}" "$REG/kubeflow/${f#*:}:v1" >"$T/${f%%:*}"
  d=$(diff "$EX/${f%%:*}" "$T/${f%%:*}" | grep '^>' | grep -cvE '^>[[:space:]]*(- )?image:')
  [ "$d" = 0 ] && [ "$(diff "$EX/${f%%:*}" "$T/${f%%:*}" | grep -c '^>')" -gt 0 ] && n=$((n + 1))
  # pi later: its ttlSecondsAfterFinished would remove it before its point
  [ "${f%%:*}" = mpi-pi.yaml ] || kc apply -f "$T/${f%%:*}" >>"$T/apply.log" 2>&1
done
is "$n" 5 "each example applied as upstream wrote it, but for its image: lines" || diag "$(cat "$T/apply.log")"

ended() { ptj_conds "$1" | grep -qE '(Succeeded|Failed)=True'; }
why() { # what a PyTorchJob's pods and events say, for a failure's diagnostics
  diag "$(ptj_conds "$1")"
  diag "$(kc get pods -l "training.kubeflow.org/job-name=$1" -o wide 2>&1)"
  diag "$(kc get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1 | tail -5)"
  local p
  for p in $(kc get pods -l "training.kubeflow.org/job-name=$1" -o name 2>/dev/null); do diag "$p: $(kc logs "$p" 2>&1 | tail -8)"; done
}
succeeded() { # NAME: waits for its end, then the Succeeded test
  wait_for 400 ended "$1"
  like "$(ptj_conds "$1")" 'Succeeded=True' "$2" || why "$1"
}
# a Slurm job per attempt (the examples' restartPolicy OnFailure restarts
# the gang when a replica fails, as the operator does; a loaded machine has
# seen one), each of 2 nodes, the last COMPLETED
last_done() { [ "$(ptj_sacct "$1" | tail -1 | awk '{print $3}')" = COMPLETED ]; }
one_job() { # NAME
  wait_for 60 last_done "$1"
  local s
  s=$(ptj_sacct "$1")
  is "$(echo "$s" | awk '{print $2}' | sort -u) $(echo "$s" | tail -1 | awk '{print $3}')" "2 COMPLETED" \
    "$1: ONE Slurm job of 2 nodes per attempt, the last COMPLETED ($(echo "$s" | grep -c .) attempt(s))" || diag "$s"
  [ "$(echo "$s" | grep -c .)" = 1 ] ||
    diag "$1 restarted: $(kc get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1 | grep -i restart)"
}
lines() { kc logs "$1" 2>&1 | grep -E "^$2 " | sort; }

# --- cpu-demo: torchrun demo.py, nprocPerNode "2" ---------------------------------------------
succeeded torchrun-cpu "cpu-demo (torchrun, nprocPerNode \"2\"): Succeeded"
one_job torchrun-cpu
all=$( { lines torchrun-cpu-master-0 cpu-demo; lines torchrun-cpu-worker-0 cpu-demo; } | sed -E 's/ loss [^ ]+ -> [^ ]+//')
is "$(echo "$all" | sed -E 's/rank=[0-9]+ //' | sort | uniq -c | sed 's/^ *//')" "4 cpu-demo world=4 replicas-equal=True" \
  "cpu-demo: 2 processes in each of the 2 pods, a world of 4, the DDP replicas equal" || diag "$all"
is "$(echo "$all" | grep -o 'rank=[0-9]*' | sort | tr '\n' ' ')" "rank=0 rank=1 rank=2 rank=3 " "cpu-demo: ranks 0..3, each once"
diag "$(kc get pytorchjob torchrun-cpu 2>&1; kc get pods -l training.kubeflow.org/job-name=torchrun-cpu -o wide 2>&1
  kc get events --field-selector involvedObject.name=torchrun-cpu-master-0 2>&1; kc logs torchrun-cpu-master-0 2>&1 | grep -v '^\*\|OMP_NUM\|^WARNING')"
is "$(ptj_nodes torchrun-cpu | tr ' ' '\n' | grep -c . ) $(ptj_nodes torchrun-cpu | tr ' ' '\n' | grep . | sort -u | wc -l)" "2 2" \
  "cpu-demo: Master and Worker on the two nodes"

# --- mnist, gloo, a GPU each -----------------------------------------------------------------
succeeded pytorch-dist-mnist-gloo "mnist --backend gloo (nvidia.com/gpu: 1 each): Succeeded"
one_job pytorch-dist-mnist-gloo
is "$(lines pytorch-dist-mnist-gloo-master-0 mnist | grep -c 'rank=0 world=2 epoch=1') $(lines pytorch-dist-mnist-gloo-worker-0 mnist | grep -c 'rank=1 world=2 epoch=1')" "1 1" \
  "mnist: the Master is rank 0, the Worker rank 1, of 2"
like "$(lines pytorch-dist-mnist-gloo-worker-0 mnist)" 'accuracy=[0-9.]+ replicas-equal=True device=cpu backend=gloo' \
  "mnist: trained with gloo (args --backend gloo reach the image's entrypoint)"
jid=$(ptj_sacct pytorch-dist-mnist-gloo | awk 'NR == 1 {print $1}')
like "$(sacct -n -X -P -j "$jid" -o AllocTRES 2>&1)" 'gres/gpu=2' "mnist: its Slurm job holds a GPU on each node (AllocTRES)"

# --- elastic echo: torch.distributed.run --rdzv_backend=c10d ./echo.py ----------------------
succeeded elastic-example-echo "elastic echo (c10d rendezvous, minReplicas 1, maxReplicas 2): Succeeded"
one_job elastic-example-echo
e=$( { lines elastic-example-echo-worker-0 echo; lines elastic-example-echo-worker-1 echo; })
w=$(echo "$e" | grep -c .)
# nprocPerNode defaults to "auto" (PET_NPROC_PER_NODE): torchrun starts a
# process per CPU on each node, so the world is the processes of both
is "$(echo "$e" | sed -E 's/ (group_)?rank=[0-9]+//g' | sort -u)" "echo world=$w restarts=0 sum=$w" \
  "echo: every process of both workers in one rendezvous ($w), the all-reduce of ones = the world" || diag "$e"
is "$(echo "$e" | grep -o ' group_rank=[0-9]*' | sort -u | tr '\n' ' ')" " group_rank=0  group_rank=1 " \
  "echo: both workers (nodes) joined the rendezvous, group ranks 0 and 1"

# --- sendrecv: Master + 3 Workers on two nodes ---------------------------------------------------
succeeded pytorch-dist-basic-sendrecv "sendrecv (Master + 3 Workers): Succeeded"
one_job pytorch-dist-basic-sendrecv
is "$(lines pytorch-dist-basic-sendrecv-master-0 sendrecv)" "sendrecv rank=0 world=4 received=[1, 2, 3] sum=6" \
  "sendrecv: the Master received each Worker's rank"
is "$(for i in 0 1 2; do lines "pytorch-dist-basic-sendrecv-worker-$i" sendrecv; done | tr '\n' ' ')" \
  "sendrecv rank=1 world=4 sent=1 sendrecv rank=2 world=4 sent=2 sendrecv rank=3 world=4 sent=3 " \
  "sendrecv: each Worker sent its rank"
is "$(kc get pods -l training.kubeflow.org/job-name=pytorch-dist-basic-sendrecv -o jsonpath='{range .items[*]}{.status.containerStatuses[0].imageID}{"\n"}{end}' | sed 's/@sha256:[0-9a-f]*$/@D/' | sort | uniq -c | sed 's/^ *//')" \
  "4 $REG/kubeflow/sendrecv@D" "sendrecv: the 4 pods ran the pulled image (imageID)"

# --- mpi-operator's pi -------------------------------------------------------------------------
# the Launcher runs `mpirun -n 2 /home/mpiuser/pi` as uid 1000, the Workers
# `/usr/sbin/sshd -De -f /home/mpiuser/.sshd_config` as uid 1000; its
# ttlSecondsAfterFinished (60) removes it soon after it ends: applied now,
# read at once
kc apply -f "$T/mpi-pi.yaml" >"$T/pi-apply.log" 2>&1
like "$(tr '\n' ' ' <"$T/pi-apply.log")" \
  'sshd is not run: .*this Worker waits for the Launcher instead' "pi: apply's Warning says what slurmlink does instead of the Workers' sshd"
wait_for 60 eval 'kc get pod pi-worker-0 >/dev/null 2>&1' # cleanPodPolicy Running removes it at the end
is "$(jp pod/pi-worker-0 '{.spec.containers[0].command} {.spec.containers[0].args}')" '["/etc/mpi/rsh","--wait"] ' \
  "pi: a Worker's sshd replaced by the rsh agent's wait for the Launcher"
mconds() { jp "mpijob/$1" '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}'; }
mended() { mconds "$1" | grep -qE '(Succeeded|Failed)=True'; }
wait_for 300 mended pi
like "$(mconds pi)" 'Succeeded=True' "mpi-operator's pi (runAsUser 1000, Workers running sshd): Succeeded" ||
  diag "$(mconds pi; kc get pods -l training.kubeflow.org/job-name=pi -o wide 2>&1; kc logs pi-launcher 2>&1 | tail -20)"
log=$(kc logs pi-launcher 2>&1)
is "$(grep -E '^(Workers|pi is)' <<<"$log" | tr '\n' ' ')" "Workers: 2 pi is approximately 3.1415055000000001 " \
  "pi: mpirun ran 2 ranks and printed pi, the value of 2 ranks of examples/kubeflow-images/pi.c" || diag "$log"
is "$(grep -o '^Rank [01] on host [^ ]*' <<<"$log" | sort | awk '{print $5}' | sort -u | wc -l)" 2 \
  "pi: rank 0 and rank 1 each in a Worker, on the two nodes ($(grep -o '^Rank .*' <<<"$log" | tr '\n' ' '))"
one_job pi
