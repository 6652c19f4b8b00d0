#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/kubeflow/status.c src/api/ src/image/ src/slurmif/acct.c
# 87-kubeflow-registry.t — a PyTorchJob whose image is in a registry: its
# gang's pods go through the image pull worker (src/ctl/pull.c) as a single
# pod's and a Job's do, before the ONE gang job is submitted; a real
# docker-registry on loopback, an image built with umoci from
# busybox-static and pushed with skopeo, two nodes.
#   - Master + 1 Worker of the registry image: each pod Pulling / Pulled,
#     its imageID, the PyTorchJob Succeeded, each replica's log;
#   - a missing tag: its pods wait ErrImagePull / ImagePullBackOff, a
#     Warning event on the PyTorchJob, no Slurm job, the PyTorchJob not
#     failed;
#   - an image whose config has Entrypoint, Cmd, Env and WorkingDir, pulled
#     and imported (`slurmlink image import` of its OCI archive, as
#     `docker save` writes it): a pod without command: runs Entrypoint+Cmd
#     with its Env in its WorkingDir, either way.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 13

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"
push_busybox "$T" team/app:v1
# the same tree with an image config, pushed and saved as one OCI archive
(
  cd "$T" && umoci new --image oci:cfg && umoci unpack --rootless --image oci:cfg c >/dev/null &&
    mkdir -p c/rootfs/bin c/rootfs/work && cp /bin/busybox c/rootfs/bin/ && ln -s busybox c/rootfs/bin/sh &&
    umoci repack --image oci:cfg c &&
    umoci config --image oci:cfg --config.entrypoint /bin/sh --config.entrypoint -c \
      --config.entrypoint 'echo "greet=$GREET pwd=$PWD arg=$0"' --config.cmd from-cmd \
      --config.env GREET=hello --config.workingdir /work &&
    skopeo copy --quiet oci:oci:cfg oci:cfglayout:cfg && tar -C cfglayout -cf cfg.tar .
) >"$T/build2.log" 2>&1 || bail "umoci config: $(cat "$T/build2.log")"
skopeo copy --quiet --dest-tls-verify=false "oci:$T/oci:cfg" "docker://$REG/team/cfg:v1" || bail "skopeo copy cfg"

cluster_up --nodes 2 --cpus 2 --accounting || bail "cluster up --nodes 2"
reasons() { kc get events --field-selector "involvedObject.name=$1" --sort-by=.metadata.creationTimestamp -o jsonpath='{range .items[*]}{.reason} {end}' 2>&1; }
ptj() { # name image
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1}
spec:
  runPolicy: {backoffLimit: 0}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
        spec:
          containers:
          - name: pytorch
            image: $2
            command: [sh, -c, 'echo "pulled rank=\$RANK world=\$WORLD_SIZE"']
    Worker:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
        spec:
          containers:
          - name: pytorch
            image: $2
            command: [sh, -c, 'echo "pulled rank=\$RANK world=\$WORLD_SIZE"']
YAML
}

# --- a registry image ------------------------------------------------------------------------
ptj reg "$REG/team/app:v1" | kc apply -f - >/dev/null
ended() { ptj_conds "$1" | grep -qE '(Succeeded|Failed)=True'; }
wait_for 180 ended reg
like "$(ptj_conds reg)" 'Succeeded=True' "a PyTorchJob of a registry image succeeds" ||
  diag "$(kc get pods -o jsonpath='{range .items[*]}{.metadata.name} {.status.containerStatuses[0].state}{"\n"}{end}' 2>&1)"
is "$(kc logs reg-master-0 2>&1) / $(kc logs reg-worker-0 2>&1)" "pulled rank=0 world=2 / pulled rank=1 world=2" \
  "each replica ran the pulled image in the one gang"
n=0; for p in reg-master-0 reg-worker-0; do [[ "$(reasons "$p")" =~ Pulling\ .*Pulled ]] && n=$((n + 1)); done
is "$n" 2 "each replica pod: events Pulling, Pulled" ||
  diag "$(for p in reg-master-0 reg-worker-0; do echo "$p: $(reasons "$p")"; done)"
is "$(kc get pods -l training.kubeflow.org/job-name=reg -o jsonpath='{range .items[*]}{.status.containerStatuses[0].imageID}{"\n"}{end}' | sort -u | sed "s/@sha256:[0-9a-f]*$/@D/")" \
  "$REG/team/app@D" "containerStatuses[0].imageID of the pulled image"
wait_for 30 eval '[ -n "$(ptj_sacct reg)" ]'
is "$(ptj_sacct reg | awk '{print $2}' | tr '\n' ' ')" "2 " "ONE Slurm job of 2 nodes for the gang"

# --- a missing tag ----------------------------------------------------------------------------
ptj miss "$REG/team/app:nope" | kc apply -f - >/dev/null
muid=$(jp pytorchjob/miss '{.metadata.uid}')
wr() { kc get pod miss-master-0 -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
is_backoff() { [ "$(wr)" = ImagePullBackOff ]; }
ok wait_for 60 is_backoff "a missing tag: the replica pod waits ImagePullBackOff" ||
  diag "waiting: $(kc get pod miss-master-0 -o jsonpath='{.status.containerStatuses[0].state.waiting}' 2>&1)"
like "$(kc get events --field-selector involvedObject.kind=PyTorchJob,involvedObject.name=miss -o jsonpath='{range .items[*]}{.type} {.reason}: {.message}{"\n"}{end}' 2>&1)" \
  "Warning ErrImagePull: .*miss-(master|worker)-0.*Failed to pull image \"$REG/team/app:nope\"" \
  "a Warning event on the PyTorchJob names the pod and the image (either replica's: they share one pull)"
is "$(squeue -h -t all -o '%k' | grep -c "slurmlink:uid=$muid")" 0 "no Slurm job for it"
unlike "$(ptj_conds miss)" 'Failed=True' "the PyTorchJob has not failed"

# --- the image config: pulled and imported -----------------------------------------------------
imp=$("$SLURMLINK" image import local/cfg:v1 "$T/cfg.tar" --store "$CL/images" 2>&1)
is "$?" 0 "slurmlink image import of an OCI archive (docker save's format)" || diag "$imp"
pod() { # name image
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: $2}
YAML
}
pod cfg-pulled "$REG/team/cfg:v1" | kc apply -f - >/dev/null
pod cfg-imported local/cfg:v1 | kc apply -f - >/dev/null
over() { [[ "$(jp pod/$1 '{.status.phase}')" =~ Succeeded|Failed ]]; }
wait_for 120 over cfg-pulled; wait_for 60 over cfg-imported
is "$(kc logs cfg-pulled 2>&1)" "greet=hello pwd=/work arg=from-cmd" "a pulled image's Entrypoint+Cmd, Env and WorkingDir" ||
  diag "$(jp pod/cfg-pulled '{.status}')"
is "$(kc logs cfg-imported 2>&1)" "greet=hello pwd=/work arg=from-cmd" "an imported image's Entrypoint+Cmd, Env and WorkingDir" ||
  diag "$(jp pod/cfg-imported '{.status}')"
is "$(ls "$CL/images" | grep -c '^local%cfg+v1')" 2 "the imported tree and its config beside it ($(ls "$CL/images" | grep cfg | tr '\n' ' '))"
