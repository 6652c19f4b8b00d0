#!/bin/bash
# deps.sh — install, as root on Debian 12, every package slurmlink needs to
# build, run and test. Idempotent: packages already present cost one dpkg query.
set -euo pipefail

PKGS=(
  # build
  build-essential pkg-config clang libclang-rt-14-dev
  # libraries slurmlink links against
  libslurm-dev libmunge-dev libmicrohttpd-dev libjansson-dev libsqlite3-dev
  libgnutls28-dev libcurl4-openssl-dev libyaml-dev libwslay-dev zlib1g-dev
  # CronJob schedules in their time zone (src/kube/cron.c: ICU's calendar)
  libicu-dev
  # the cluster it drives
  slurm-wlm slurmctld slurmd slurm-client slurmdbd slurmrestd munge mariadb-server
  # containers and test images
  charliecloud-runtime busybox-static
  # images from registries (src/image/pull.c): skopeo speaks the registry
  # protocol, umoci unpacks OCI layers, mksquashfs builds enroot images;
  # docker-registry and htpasswd (apache2-utils) are the tests' registry
  # (docker-registry also the demo's, scripts/demo.sh)
  skopeo umoci squashfs-tools docker-registry apache2-utils
  # clients and tools used by tests and benchmarks
  python3 python3-kubernetes python3-yaml gnutls-bin openssl curl jq xz-utils tar procps psmisc iproute2
  valgrind strace hostname passwd util-linux sqlite3
  # make schema (scripts/schema.sh) and t/36-schema-gen.t
  nodejs
  # metrics: Prometheus and promtool (t/NN-metrics.t scrapes slurmlinkd with a real one)
  prometheus
  # make install's checks (t/88-install.t): man --warnings, systemd-analyze verify
  man-db groff-base systemd
  # the Debian packages (debian/, t/92-deb.t): dpkg-buildpackage, dh, lintian
  dpkg-dev debhelper lintian
  # distributed training in PyTorchJob tests (t/87-pytorchjob*.t): torch.distributed, gloo
  python3-torch
  # MPI: OpenMPI (mpicc builds the demo's stencil; srun --mpi=pmix runs it)
  openmpi-bin libopenmpi-dev
  # MPIJob's test (t/87-mpijob.t): an mpi4py all-reduce under the Launcher's mpirun
  python3-mpi4py
)

if [ "$(id -u)" != 0 ]; then
  echo "deps.sh: must run as root (apt-get install)" >&2
  exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing+=("$p")
done
# npm fetches the pinned packages of `make schema`/`make openapi`
# (scripts/npm-pinned.sh) and the JavaScript client with the Node.js it needs
# for t/52-client-node.t (scripts/client-node.sh, into .cache/). A node
# install that brings its own npm (NodeSource's) is enough: Debian's npm
# package would replace that nodejs, so it is asked for only when no npm is
# there.
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# packages must not start system-wide daemons: slurmlink runs its own, privately
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/slurmlink-deps.log 2>&1 || {
  echo "deps.sh: apt-get install failed; last lines of /tmp/slurmlink-deps.log:" >&2
  tail -n 20 /tmp/slurmlink-deps.log >&2
  exit 1
}
echo "deps.sh: done"
