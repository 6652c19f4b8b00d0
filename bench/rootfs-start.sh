#!/bin/bash
# rootfs-start.sh — what the private writable root (src/shim/rootfs.c) costs
# at container start, against plain ch-run on the same image in the same run.
#   bench/rootfs-start.sh [RUNS] [DIRS]
# Runs slurmlink-shim (build/) as the user nobody on one pod folder, RUNS
# times each way, alternating: spec A is `ch-run IMAGE -- true` (the image
# read-only, no mount point can be made), spec B the same container with
# `rootfs` (user+mount namespace, tmpfs, every image folder mirrored,
# overlayfs, ch-run --write). Two images: busybox as imported by
# `slurmlink image import --busybox`, and the same with DIRS (default 4000)
# extra folders, about what a Python or CUDA image has. Prints the median and
# 90th percentile of the shim's wall time (fork to the container's exit).
# Needs root (to import and to run as nobody), ch-run, Linux >= 5.11.
set -eu
RUNS=${1:-50} DIRS=${2:-4000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/rootfs-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
"$ROOT/build/slurmlink" image import busybox --busybox --store "$T/images" >/dev/null
cp -a "$T/images/busybox+latest" "$T/images/many+latest"
python3 - "$T/images/many+latest/usr/lib/many" "$DIRS" <<'PY'
import os, sys
base, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    os.makedirs(os.path.join(base, "d%02d" % (i % 50), "s%05d" % i), exist_ok=True)
PY
cp "$ROOT/build/slurmlink-shim" "$T/shim"
spec() { # IMAGE ROOTFS(0|1)
  local w='' r=''
  [ "$2" = 1 ] && w='"--write",' && r=',"rootfs":{"lower":"'$1'","argvIndex":2,"readOnly":false}'
  printf '{"pod":{"namespace":"b","name":"b","uid":"u"},"restartPolicy":"Never","containers":[{"name":"main","argv":["ch-run",%s"%s","--","true"],"runtime":"charliecloud"%s}]}' "$w" "$1" "$r"
}
run() { # IMAGE ROOTFS → microseconds
  local d=$T/pod-$2
  rm -rf "$d" && mkdir -p "$d" && spec "$1" "$2" >"$d/shim.json" && chown -R nobody "$d"
  local t0 t1
  t0=$(date +%s%N)
  su -s /bin/sh nobody -c "USER=nobody '$T/shim' --pod-dir '$d' >/dev/null 2>&1" || { echo "shim failed: $(cat "$d/job.out" "$d/status.json" 2>/dev/null)" >&2; exit 1; }
  t1=$(date +%s%N)
  grep -q '"exitCode":0' "$d/status.json" || { echo "container failed: $(cat "$d/status.json")" >&2; exit 1; }
  echo $(((t1 - t0) / 1000))
}
stats() { sort -n | awk '{v[NR]=$1} END {printf "median %6.1f ms   p90 %6.1f ms   (n=%d)\n", v[int((NR+1)/2)]/1000, v[int(NR*0.9+0.5)]/1000, NR}'; }
for img in busybox many; do
  I=$T/images/$img+latest
  n=$(find "$I" -type d | wc -l)
  : >"$T/a" && : >"$T/b"
  for i in $(seq "$RUNS"); do run "$I" 0 >>"$T/a"; run "$I" 1 >>"$T/b"; done
  printf '%-8s (%5d folders)  plain ch-run:          %s\n' "$img" "$n" "$(stats <"$T/a")"
  printf '%-8s (%5d folders)  private root + ch-run: %s\n' "$img" "$n" "$(stats <"$T/b")"
done
