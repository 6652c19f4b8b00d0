#!/bin/bash
# make-image.sh DIR — on the GPU machine: a charliecloud directory image at DIR
# (an image store folder, e.g. D/images/torch+latest) holding the machine's
# own PyTorch environment and nothing of its GPU driver: the Python that
# /opt/torch/.venv runs, the system's libraries and programs (/usr/bin,
# /usr/lib, /usr/lib64, /usr/sbin) and /opt/torch, as hard links when DIR is
# on their file system (else copies). The driver's libraries (libcuda*,
# libnvidia-*), /usr/local (the driver's /usr/local/nvidia, CUDA's toolkit)
# and /usr/share are left out: slurmlink-shim binds the node's driver into
# the container at run time (docs/pods.md, "GPUs in containers"). The venv's
# packages are compiled to bytecode in the image (as `pip install` does when an
# image is built), since a pip/uv venv may carry none and a container would
# then compile every module at every start (COMPILE=0: the image as it was).
set -eu
IMG=$1
VENV=${VENV:-/opt/torch/.venv}
rm -rf "$IMG"
mkdir -p "$IMG"/{dev,proc,sys,tmp,home,root,run,var/tmp,etc,opt,usr}
chmod 1777 "$IMG/tmp" "$IMG/var/tmp"
link_copy() { # SRC DST: hard links when possible, a copy otherwise
  cp -al "$1" "$2" 2>/dev/null || { rm -rf "$2"; cp -a "$1" "$2"; }
}
for d in bin sbin lib lib64; do
  if [ -d /usr/$d ] && [ ! -L /usr/$d ]; then link_copy /usr/$d "$IMG/usr/$d"; fi
  if [ -L /$d ]; then cp -P /$d "$IMG/$d"; elif [ -d /$d ]; then link_copy /$d "$IMG/$d"; fi
done
top=$(readlink -f "$VENV/bin/python3")
case "$top" in /usr/*) ;; *) p=$(dirname "$(dirname "$top")"); mkdir -p "$IMG$(dirname "$p")"; link_copy "$p" "$IMG$p" ;; esac
mkdir -p "$IMG$(dirname "$(dirname "$VENV")")"
link_copy "$(dirname "$VENV")" "$IMG$(dirname "$VENV")"
# no driver in the image
find "$IMG/usr/lib" "$IMG/usr/lib64" \( -name 'libcuda.so*' -o -name 'libnvidia-*.so*' -o -name 'libcudadebugger.so*' \) \
  -exec rm -f {} + 2>/dev/null || true
rm -f "$IMG/usr/bin/nvidia-smi" "$IMG/usr/bin/nvidia-debugdump"
for f in passwd group hosts resolv.conf nsswitch.conf ld.so.conf; do [ -e /etc/$f ] && cp -L /etc/$f "$IMG/etc/" || true; done
[ -d /etc/ld.so.conf.d ] && cp -rL /etc/ld.so.conf.d "$IMG/etc/" && rm -f "$IMG"/etc/ld.so.conf.d/*nvidia* "$IMG"/etc/ld.so.conf.d/zz-*
# the alternatives' links (libblas.so.3 -> /etc/alternatives/...): without
# them ldconfig -r drops those soname links from the image
[ -d /etc/alternatives ] && cp -a /etc/alternatives "$IMG/etc/"
ldconfig -r "$IMG" 2>/dev/null || true
site=$("$VENV/bin/python3" -c 'import site; print(site.getsitepackages()[0])')
if [ "${COMPILE:-1}" = 1 ]; then
  "$VENV/bin/python3" -m compileall -q -j 0 -s "$IMG" -p / "$IMG$site" >/dev/null 2>&1 || true
fi
echo "image $IMG: python $top, venv $VENV; $(find "$IMG" -xdev -type d | wc -l) folders, $(du -sh --apparent-size "$IMG" | cut -f1) apparent," \
  "$(find "$IMG$site" -name '*.pyc' | wc -l) bytecode files in $site;" \
  "driver files left in it: $(find "$IMG" \( -name 'libcuda.so*' -o -name 'libnvidia-ml.so*' \) | wc -l)"
