#!/bin/bash
# tenant-walkthrough.sh — a tenant's path through a cluster on a Slurm of its
# own prefix, each step timed (docs/deploy.md, section 9):
#   scripts/tenant-walkthrough.sh BUILD SLURM_PREFIX DIR
# BUILD: a build folder made with `make SLURM=SLURM_PREFIX` (its slurmlink,
# slurmlinkd, shim); DIR: the cluster folder (root's, made by `slurmlink up`).
# As root: `slurmlink up --nodes 2 --accounting` with SLURM_PREFIX's daemons
# first on PATH; a real non-root Unix user (made here, removed at the end)
# with the kubeconfig `slurmlink kubeconfig` issues, write access to the
# namespace tenant-a in the policy, and its Slurm association made with
# sacctmgr as a site admin does; a docker-registry on loopback holding the
# images of scripts/kubeflow-images.sh. Then, as the tenant, with kubectl
# and Slurm's own commands: a Job of 3 completions, Kubeflow's cpu-demo
# PyTorchJob (t/data/kubeflow-examples, only its image: lines rewritten)
# over both nodes, `kubectl exec` into a running pod, `kubectl logs`, and
# `sacct` listing the jobs under the tenant's user and account.
# Prints one line per step ("== step | seconds | ok/FAILED") and the
# commands' output; exits non-zero when a step failed. Stops the cluster.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:?usage: tenant-walkthrough.sh BUILD SLURM_PREFIX DIR}" && pwd)
P=${2:?usage: tenant-walkthrough.sh BUILD SLURM_PREFIX DIR}
D=${3:?usage: tenant-walkthrough.sh BUILD SLURM_PREFIX DIR}
export PATH=$P/bin:$P/sbin:$PATH
unset SLURMLINKD
U=sltenant NS=tenant-a H=/home/sltenant
W=$(mktemp -d /tmp/walk.XXXXXX)
chmod 0755 "$W"
failed=0
step() { # NAME CMD...: run, time, report
  local name=$1 s e rc
  shift
  echo "-- $name: $*"
  s=$(date +%s.%N)
  "$@"
  rc=$?
  e=$(date +%s.%N)
  printf '== %s | %.1f s | %s\n' "$name" "$(echo "$e - $s" | bc)" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")"
  [ $rc = 0 ] || failed=1
  return $rc
}
finish() {
  [ -n "${REG_PID:-}" ] && kill "$REG_PID" 2>/dev/null
  "$B/slurmlink" down --dir "$D" >/dev/null 2>&1
  userdel -r "$U" >/dev/null 2>&1
  rm -rf "$W"
}
trap finish EXIT
as_tenant() { runuser -u "$U" -- env -i HOME=$H USER=$U LOGNAME=$U PATH="$PATH" SLURM_CONF="$D/etc/slurm.conf" "$@"; }
tk() { as_tenant kubectl "$@"; }
until_true() { # SECONDS CMD...
  local end=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || return 1
    sleep 1
  done
}

echo "# Slurm: $(slurmctld -V) from $(command -v slurmctld); slurmlink: $("$B/slurmlinkd" --version)"
echo "# host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %T') UTC"

# --- the site admin --------------------------------------------------------------------
mkdir -p "$D/etc" && chmod 0711 "$D"
cat >"$D/etc/policy.yaml" <<EOF
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  $NS: {write: {users: [$U]}}
users:
  $U: $U
EOF
up() { "$B/slurmlink" up --dir "$D" --nodes 2 --cpus 2 --gpus 0 --accounting; }
step "up: slurmctld, 2 slurmds, slurmdbd, slurmlinkd" up || exit 1
export SLURM_CONF=$D/etc/slurm.conf KUBECONFIG=$D/kubeconfig
user() {
  userdel -r "$U" >/dev/null 2>&1
  useradd -m -d "$H" -s /bin/bash "$U" && id "$U"
}
step "the tenant: a Unix user" user || exit 1
assoc() {
  sacctmgr -i add account "$NS" Description="namespace $NS" >/dev/null &&
    sacctmgr -i add user "$U" Account="$NS" DefaultAccount="$NS" >/dev/null &&
    sacctmgr -n -P show assoc user="$U" format=User,Account
}
step "the tenant's Slurm association (sacctmgr)" assoc || exit 1
creds() {
  mkdir -p "$H/.kube" &&
    "$B/slurmlink" kubeconfig --dir "$D" --user "$U" --cert --namespace "$NS" -o "$H/.kube/config" &&
    chown -R "$U:" "$H/.kube" && chmod 0600 "$H/.kube/config" &&
    kubectl create namespace "$NS"
}
step "the tenant's kubeconfig (slurmlink kubeconfig --cert), the namespace" creds || exit 1
step "busybox into the image store" "$B/slurmlink" image import busybox --busybox --store "$D/images" || exit 1
registry() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  REG=127.0.0.1:$port
  printf 'version: 0.1\nstorage: {filesystem: {rootdirectory: %s/regdata}}\nhttp: {addr: "%s"}\n' "$W" "$REG" >"$W/reg.yml"
  docker-registry serve "$W/reg.yml" >"$W/reg.log" 2>&1 &
  REG_PID=$!
  until_true 20 curl -fs "http://$REG/v2/" &&
    "$root/scripts/kubeflow-images.sh" "${KF_IMAGES:-$W/kf}" "$REG" >"$W/images.log" 2>&1 ||
    { tail -5 "$W/images.log"; return 1; }
  echo "registry $REG: $(curl -fs "http://$REG/v2/_catalog")"
}
step "a docker-registry on loopback, the Kubeflow example images pushed" registry || exit 1

# --- the tenant ------------------------------------------------------------------------
step "tenant: kubectl auth can-i create pods" tk auth can-i create pods
job() {
  tk apply -f - <<EOF && tk wait --for=condition=Complete job/count --timeout=180s &&
apiVersion: batch/v1
kind: Job
metadata: {name: count}
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: [sh, -c, 'echo "index \$JOB_COMPLETION_INDEX as \$(id -un) on \$(hostname)"']
        resources: {requests: {cpu: 500m, memory: 64Mi}}
  completionMode: Indexed
EOF
    tk get job count && tk get pods -l job-name=count -o wide && tk logs job/count
}
step "tenant: a Job of 3 completions (Indexed, parallelism 2)" job
ptj() {
  sed -E "s|^([[:space:]]*(- )?image:[[:space:]]*).*$|\1$REG/kubeflow/cpu-demo:v1|" \
    "$root/t/data/kubeflow-examples/pytorch-cpu-demo.yaml" >"$W/ptj.yaml" &&
    tk apply -f "$W/ptj.yaml" &&
    until_true 600 sh -c "runuser -u $U -- env -i HOME=$H kubectl get pytorchjob torchrun-cpu -o jsonpath='{.status.conditions[-1].type}' | grep -qx 'Succeeded\|Failed'" &&
    tk get pytorchjob torchrun-cpu && tk get pods -o wide -l training.kubeflow.org/job-name=torchrun-cpu &&
    tk logs torchrun-cpu-master-0 | tail -5 && tk logs torchrun-cpu-worker-0 | tail -3 &&
    [ "$(tk get pytorchjob torchrun-cpu -o jsonpath='{.status.conditions[-1].type}')" = Succeeded ]
}
step "tenant: Kubeflow's cpu-demo PyTorchJob from the registry, Master + Worker" ptj
execp() {
  tk run shell --image=busybox --restart=Never -- sh -c 'echo started; sleep 300' &&
    tk wait --for=condition=Ready pod/shell --timeout=120s &&
    tk exec shell -- sh -c 'echo "exec as $(id -un) uid $(id -u) on $(hostname)"' &&
    tk logs shell && tk delete pod shell --wait=false
}
step "tenant: kubectl exec into a running pod, kubectl logs" execp
acct() {
  local out
  out=$(as_tenant sacct -X -u "$U" -S now-1hour -o JobID%14,JobName%34,User,Account,State,NodeList,ExitCode) || return 1
  echo "$out"
  grep -q "$U .*$NS .*COMPLETED" <<<"$out" && ! grep -v "^ *JobID\|^---" <<<"$out" | grep -vq "$U .*$NS"
}
until_true 60 sh -c "sacct -X -n -u $U -s R,PD -o JobID | grep -q . && exit 1 || exit 0"
step "tenant: sacct, every job under the tenant's user and account" acct
exit $failed
