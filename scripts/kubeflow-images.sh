#!/bin/bash
# kubeflow-images.sh — the images Kubeflow's own examples name, made offline
# from this machine's files (no registry on the internet): Debian's Python
# 3.11 and python3-torch (CPU, gloo) with the libraries they load, busybox
# for a shell, and slurmlink's own small training scripts
# (examples/kubeflow-images/: not Kubeflow's code, synthetic data instead of
# a download). One layer, several tags that differ in their config only
# (entrypoint, working directory, environment), as the examples' Dockerfiles:
#   cpu-demo   WORKDIR /, /demo.py            (examples/pytorch/cpu-demo: `torchrun demo.py`)
#   echo       WORKDIR /workspace, ENTRYPOINT python -m torch.distributed.run
#                                              (examples/pytorch/elastic/echo: `... ./echo.py`)
#   mnist      ENTRYPOINT python /opt/mnist/src/mnist.py   (examples/pytorch/mnist)
#   sendrecv   ENTRYPOINT python /opt/mlkube/dist_sendrecv.py (examples/pytorch/smoke-dist)
#   torch      no entrypoint: python, torchrun and the scripts (the demo's
#              training and inference server, /opt/slurmlink/demo_*.py)
# and one image of its own for mpi-operator's v2beta1 pi example
# (examples/v2beta1/pi: mpioperator/openmpi, pi.cc built into
# /home/mpiuser/pi):
#   mpi-pi     Debian's OpenMPI (mpirun, orted, their plugins and every
#              library they load), busybox, a user mpiuser (uid 1000) with
#              /home/mpiuser, WORKDIR /home/mpiuser, and slurmlink's own pi
#              (examples/kubeflow-images/pi.c, built here with mpicc) at
#              /home/mpiuser/pi; no sshd: slurmlink reaches the Workers
#              through its rsh agent (docs/jobs.md, MPIJob)
# Every tag sets PET_REDIRECTS=2 and PET_TEE=2: Debian's torch 1.13 on Python
# 3.11 parses torchrun's default --redirects 0 as None and fails (Std.from_str);
# 2 sends each worker's stderr to the console as well as its log file.
#   scripts/kubeflow-images.sh OCI_DIR [REGISTRY [TAG...]]
# builds OCI_DIR (an OCI layout; kept while this script, the scripts and the
# Debian packages are unchanged, so a second run only pushes) and, with
# REGISTRY (HOST:PORT, plain HTTP), pushes each tag (or the TAGs named) as
# REGISTRY/kubeflow/TAG:v1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
oci=$(realpath -m "${1:?usage: kubeflow-images.sh OCI_DIR [REGISTRY [TAG...]]}")
reg=${2:-}
push=("${@:3}")
py=/usr/bin/python3
src=$root/examples/kubeflow-images
tags=(cpu-demo echo mnist sendrecv torch mpi-pi)

for t in umoci skopeo busybox mpicc; do command -v $t >/dev/null || { echo "$t is missing (scripts/deps.sh)" >&2; exit 1; }; done
$py -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null ||
  { echo "python3-torch with gloo is missing (scripts/deps.sh)" >&2; exit 1; }

stamp=$({
  cat "$0" "$src"/*.py "$src"/pi.c
  dpkg-query -W -f '${Package} ${Version}\n' python3-torch python3.11-minimal libpython3.11-stdlib python3-numpy busybox-static \
    openmpi-bin libopenmpi3 2>/dev/null
} | sha256sum | cut -c1-64)

# the host files the image needs: the interpreter, its standard library, the
# packages importing torch (and its launcher) loads, and every shared
# library those load (their ldd closure), each as /usr/... (merged /usr)
host_files() {
  $py - <<'PY'
import glob, os, subprocess, sys
import torch, torch.distributed.run, torch.nn, torch.optim, numpy  # noqa: F401
dp = "/usr/lib/python3/dist-packages/"
out = {"/usr/bin/python3.11", "/usr/lib/python3.11", "/usr/bin/torchrun"}
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None) or ""
    if f.startswith(dp):
        top = f[len(dp):].split("/")[0]
        out.add(dp + top)
out.update(glob.glob(dp + "torch-*-info"))  # torchrun's entry point metadata
def usr(p):  # /lib/x/y -> /usr/lib/x/y without resolving the last link
    return os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
def chain(p):  # every link on the way to p's file, and the file
    hops = []
    while os.path.islink(p):
        hops.append(usr(p))
        p = os.path.join(os.path.dirname(p), os.readlink(p))
    return hops + [os.path.realpath(p)]
sos = ["/usr/bin/python3.11"]
for d in [p for p in out if os.path.isdir(p)]:
    for r, _, fs in os.walk(d):
        for f in fs:
            f = os.path.join(r, f)
            if not os.path.exists(f):  # a dangling link (torch/lib's caffe2 ones)
                continue
            if os.path.islink(f):  # torch/lib/*.so: links into /usr/lib, loaded by ctypes
                out.update(chain(f))
            if ".so" in f:
                sos.append(os.path.realpath(f))
libs = set()
for i in range(0, len(sos), 200):
    o = subprocess.run(["ldd"] + sos[i:i + 200], capture_output=True, text=True).stdout
    libs.update(w for line in o.splitlines() for w in line.split() if w.startswith("/") and not w.endswith(":"))
for lib in libs:
    out.update(chain(lib))
for p in sorted(out):
    print(p.lstrip("/"))
PY
}

# mpi-pi's tree in $1 (a rootfs folder): OpenMPI with its libraries, busybox, mpiuser and pi
mpi_pi_tree() {
  local b=$1 mpi=/usr/lib/x86_64-linux-gnu files
  mpicc -O2 -o "$b.pi" "$src/pi.c"
  # the libraries of each program and plugin (ldd's "FILE:" header lines aside), the
  # programs, the plugin, help and configuration folders
  files=$( (ldd /usr/bin/orterun /usr/bin/orted "$b.pi" $mpi/openmpi/lib/openmpi3/*.so $mpi/pmix2/lib/pmix/*.so 2>/dev/null |
    awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $1 !~ /:$/ {print $1}'
    echo /usr/bin/mpirun /usr/bin/orterun /usr/bin/orted $mpi/openmpi $mpi/pmix2; for d in /usr/share/openmpi /usr/share/pmix /etc/openmpi; do [ ! -e "$d" ] || echo "$d"; done) |
    grep -v "^$b" | sort -u | sed 's|^/||')
  # shellcheck disable=SC2086 # one path a word
  (cd / && tar -chf - $files) | tar -C "$b" -xf -
  mkdir -p "$b/bin" "$b/etc" "$b/home/mpiuser" "$b/proc" "$b/dev" "$b/sys" "$b/tmp" && chmod 1777 "$b/tmp"
  cp /bin/busybox "$b/bin/busybox"
  for t in sh env cat ls sleep hostname id; do ln -sf busybox "$b/bin/$t"; done
  printf 'root:x:0:0:root:/root:/bin/sh\nmpiuser:x:1000:1000::/home/mpiuser:/bin/sh\n' >"$b/etc/passwd"
  printf 'root:x:0:\nmpiuser:x:1000:\n' >"$b/etc/group"
  printf '127.0.0.1 localhost\n::1 localhost\n' >"$b/etc/hosts" && : >"$b/etc/resolv.conf"
  install -m 755 "$b.pi" "$b/home/mpiuser/pi" && rm -f "$b.pi"
}

build() {
  local w=$oci.tmp b
  rm -rf "$w" && mkdir -p "$w"
  umoci init --layout "$w/oci" && umoci new --image "$w/oci:base"
  umoci unpack --rootless --image "$w/oci:base" "$w/b" >/dev/null
  b=$w/b/rootfs
  host_files >"$w/files"
  (cd / && tar -cf - --exclude=usr/lib/python3.11/test --exclude='__pycache__' -T "$w/files") | tar -C "$b" -xf -
  ln -s usr/bin "$b/bin" && ln -s usr/lib "$b/lib" && ln -s usr/sbin "$b/sbin" && mkdir -p "$b/usr/sbin" "$b/tmp"
  [ -e "$b/usr/lib64" ] && ln -s usr/lib64 "$b/lib64"
  chmod 1777 "$b/tmp"
  # what charliecloud binds over or reads: names for localhost, users
  mkdir -p "$b/etc" && printf '127.0.0.1 localhost\n::1 localhost\n' >"$b/etc/hosts" && : >"$b/etc/resolv.conf"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$b/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$b/etc/group"
  cp /bin/busybox "$b/usr/bin/busybox"
  for t in sh env cat ls sleep hostname id; do ln -sf busybox "$b/usr/bin/$t"; done
  ln -s python3.11 "$b/usr/bin/python3" && ln -s python3.11 "$b/usr/bin/python"
  install -D -m 644 "$src/slexample.py" "$b/opt/slurmlink/slexample.py"
  install -m 644 "$src/demo_train.py" "$src/demo_serve.py" "$b/opt/slurmlink/"
  install -m 644 "$src/demo.py" "$b/demo.py"
  install -D -m 644 "$src/echo.py" "$b/workspace/echo.py"
  install -D -m 644 "$src/mnist.py" "$b/opt/mnist/src/mnist.py"
  install -D -m 644 "$src/dist_sendrecv.py" "$b/opt/mlkube/dist_sendrecv.py"
  umoci repack --image "$w/oci:base" "$w/b" && rm -rf "$w/b"
  umoci config --image "$w/oci:base" --config.env PATH=/usr/local/bin:/usr/bin:/bin \
    --config.env PYTHONPATH=/opt/slurmlink --config.env PET_REDIRECTS=2 --config.env PET_TEE=2 \
    --config.env PYTHONUNBUFFERED=1
  umoci config --image "$w/oci:base" --tag cpu-demo --config.workingdir /
  umoci config --image "$w/oci:base" --tag torch --config.workingdir /
  umoci config --image "$w/oci:base" --tag echo --config.workingdir /workspace \
    --config.env PYTHONPATH=/opt/slurmlink:/workspace \
    --config.entrypoint python --config.entrypoint -m --config.entrypoint torch.distributed.run
  umoci config --image "$w/oci:base" --tag mnist --config.workingdir /opt/mnist/src \
    --config.entrypoint python --config.entrypoint /opt/mnist/src/mnist.py
  umoci config --image "$w/oci:base" --tag sendrecv --config.workingdir / \
    --config.entrypoint python --config.entrypoint /opt/mlkube/dist_sendrecv.py
  umoci new --image "$w/oci:mpi-pi"
  umoci unpack --rootless --image "$w/oci:mpi-pi" "$w/p" >/dev/null
  mpi_pi_tree "$w/p/rootfs"
  umoci repack --image "$w/oci:mpi-pi" "$w/p" && rm -rf "$w/p"
  umoci config --image "$w/oci:mpi-pi" --config.env PATH=/usr/local/bin:/usr/bin:/bin \
    --config.workingdir /home/mpiuser
  echo "$stamp" >"$w/stamp"
  rm -rf "$oci" && mv "$w" "$oci"
}

# one build at a time (t/84-demo and t/87-kubeflow-upstream may start at once
# on a fresh machine, both on .cache/kubeflow-images)
mkdir -p "$(dirname "$oci")"
exec 9>"$oci.lock"
flock 9
if [ "$(cat "$oci/stamp" 2>/dev/null)" != "$stamp" ]; then
  build >&2
fi
flock -u 9
[ -z "$reg" ] && exit 0
[ ${#push[@]} = 0 ] && push=("${tags[@]}")
for t in "${push[@]}"; do
  [[ " ${tags[*]} " == *" $t "* ]] || { echo "no tag $t (${tags[*]})" >&2; exit 1; }
  skopeo copy --quiet --dest-tls-verify=false "oci:$oci/oci:$t" "docker://$reg/kubeflow/$t:v1"
done
