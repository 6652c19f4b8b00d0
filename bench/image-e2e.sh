#!/bin/bash
# image-e2e.sh — a pod of a registry image, end to end, cold (pull + unpack)
# and warm (cached), against the same by hand in the same run:
#   bench/image-e2e.sh [MB_PER_LAYER]
# Builds a three-layer image (busybox, then three files of MB_PER_LAYER
# (default 40) MB of random bytes), pushes it to Debian's docker-registry on
# loopback, starts a one-node cluster (`slurmlink up`), then times from
# `kubectl apply` to the job's submission (slurmlink.io/job-id: the pull is
# done) and to Succeeded for a first pod (cold store) and a second one
# (warm), each running `true` under charliecloud. By hand, same image, same
# run: `skopeo copy` to an OCI layout, `umoci raw unpack --rootless`, then
# the mount points ch-run needs, then `sbatch --wait` of `ch-run DIR -- true`
# as the job user (nobody).
# Needs root, skopeo, umoci, docker-registry, the build (make all).
set -eu
MB=${1:-40}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
T=$(mktemp -d /tmp/image-e2e.XXXXXX)
chmod 755 "$T"
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
REG=127.0.0.1:$(port)
printf 'version: 0.1\nstorage: {filesystem: {rootdirectory: %s/reg}}\nhttp: {addr: "%s"}\n' "$T" "$REG" >"$T/reg.yml"
docker-registry serve "$T/reg.yml" >"$T/reg.log" 2>&1 &
RPID=$!
trap '"$SL" down --dir "$T/cl" >/dev/null 2>&1; kill $RPID; rm -rf "$T"' EXIT
until curl -fs "http://$REG/v2/" >/dev/null; do sleep 0.1; done
now() { date +%s.%N; }
secs() { python3 -c "print('%.2f' % ($2 - $1))"; }

cd "$T"
umoci init --layout oci >/dev/null && umoci new --image oci:big
umoci unpack --rootless --image oci:big b >/dev/null && mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ &&
  for a in sh true; do ln -s busybox "b/rootfs/bin/$a"; done && umoci repack --image oci:big b && rm -rf b
for i in 1 2 3; do
  umoci unpack --rootless --image oci:big b >/dev/null && head -c "${MB}000000" /dev/urandom >"b/rootfs/f$i" &&
    umoci repack --image oci:big b && rm -rf b
done
skopeo copy --quiet --dest-tls-verify=false oci:oci:big "docker://$REG/bench/big:v1"
rm -rf oci

"$SL" up --dir "$T/cl" >/dev/null
export SLURM_CONF=$T/cl/etc/slurm.conf KUBECONFIG=$T/cl/kubeconfig
kc() { kubectl --cache-dir "$T/cl/kcache" "$@"; }
run_pod() { # name: prints "to-submission to-Succeeded" seconds
  local t0 ts="" ph
  t0=$(now)
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  containers: [{name: main, image: "$REG/bench/big:v1", command: ["true"], resources: {requests: {cpu: 100m, memory: 64Mi}}}]
YAML
  while :; do
    ph=$(kc get pod "$1" -o jsonpath='{.status.phase} {.metadata.annotations.slurmlink\.io/job-id}')
    [ -z "$ts" ] && [ -n "${ph#* }" ] && ts=$(now)
    case "$ph" in Succeeded*) break ;; Failed*) echo "pod $1 failed" >&2; exit 1 ;; esac
    sleep 0.05
  done
  echo "$(secs "$t0" "$ts") $(secs "$t0" "$(now)")"
}
cold=$(run_pod cold)
warm=$(run_pod warm)

t0=$(now)
skopeo copy --quiet --src-tls-verify=false "docker://$REG/bench/big:v1" "oci:$T/h:img"
t1=$(now)
mkdir "$T/hb" && umoci raw unpack --rootless --image "$T/h:img" "$T/hb/rootfs" >/dev/null 2>&1
(cd "$T/hb/rootfs" && mkdir -p proc sys dev tmp home etc && touch etc/passwd etc/group etc/hosts etc/resolv.conf) # what ch-run needs
chmod -R a+rX "$T/hb"
t2=$(now)
runuser -u nobody -- sbatch --quiet --wait -o /dev/null -D / --wrap "USER=nobody ch-run $T/hb/rootfs -- true" ||
  echo "sbatch of ch-run failed: $?" >&2
t3=$(now)
size=$(du -sb "$T/cl/images/sha256" | cut -f1)
echo "image: 3 layers of $MB MB + busybox; store: $size bytes"
echo "kubectl pod, cold (pull + unpack): to submission ${cold% *} s, to Succeeded ${cold#* } s"
echo "kubectl pod, warm (cached):        to submission ${warm% *} s, to Succeeded ${warm#* } s"
echo "by hand: skopeo copy $(secs "$t0" "$t1") s, umoci raw unpack $(secs "$t1" "$t2") s, sbatch --wait $(secs "$t2" "$t3") s, total $(secs "$t0" "$t3") s"
