#!/bin/bash
# make-bundle.sh [DEST] — here (Debian 12, root, from the project's root): build the
# committed HEAD in a copy and pack what the GPU machine lacks into DEST
# (default .gpubundle/, which must be git-ignored, e.g. in .git/info/exclude):
# Debian's Slurm 22.05 and munge, charliecloud's ch-run, kubectl, the shared
# libraries they need, slurmlink's three programs, and bench/gpu's scripts.
set -eu
TOP=$(git rev-parse --show-toplevel)
SRC=${SRC:-/tmp/gpu-src} S=${S:-/tmp/gpubundle-stage} OUTB=${1:-$TOP/.gpubundle}
rm -rf "$SRC"; git clone -q "$TOP" "$SRC"
(cd "$SRC" && make -j2 build/slurmlinkd build/slurmlink build/slurmlink-shim >/dev/null)
P=/usr/lib/x86_64-linux-gnu/slurm-wlm
rm -rf "$S"; mkdir -p $S/root/usr/sbin $S/root/usr/bin $S/root$P $S/libs $S/slurmlink/build $S/extra
cp -a "$SRC"/build/slurmlinkd "$SRC"/build/slurmlink "$SRC"/build/slurmlink-shim $S/slurmlink/build/
for f in munged slurmctld slurmd slurmstepd slurmrestd; do cp -L /usr/sbin/$f $S/root/usr/sbin/; done
for f in munge unmunge sbatch squeue scontrol sinfo srun scancel sacct ch-run; do cp -L /usr/bin/$f $S/root/usr/bin/; done
cp -a $P/. $S/root$P/
cp /usr/bin/curl $S/extra/curl
cp /usr/lib/google-cloud-sdk/bin/kubectl.1.32 $S/extra/kubectl
for b in $S/slurmlink/build/* $S/root/usr/sbin/* $S/root/usr/bin/* /usr/bin/curl $P/*.so; do ldd $b 2>/dev/null | awk '/=>/ {print $3}'; done |
  sort -u | grep -vE '/(libc|libm|libdl|libresolv|libpthread|librt|ld-linux[^/]*)\.so|libslurmfull' |
  while read -r l; do cp -L "$l" $S/libs/$(basename "$l"); done
rm -rf "$OUTB"; mkdir -p "$OUTB"; tar czf "$OUTB/bundle.tgz" -C $S .
cp "$SRC"/bench/gpu/*.sh "$SRC"/bench/gpu/*.py "$SRC"/bench/gpu/*.yaml "$OUTB/"
echo "$(git -C "$SRC" log -1 --format='%h %s' | cut -c1-80)" >"$OUTB/COMMIT"
ls -la "$OUTB"
