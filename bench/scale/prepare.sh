#!/bin/bash
# bench/scale/prepare.sh [BASE_COMMIT] — here (Debian 12, root, from the
# project's root): pack into .devscale/ (.gitignore) what a bigger host with
# no Debian packages of its own needs to run bench/submit-throughput.py, every
# submission path side by side (docs/benchmarks.md, "Pods into Slurm on 16 cores"):
# bench/gpu/make-bundle.sh's bundle (Debian 12's Slurm 22.05 and munge,
# kubectl, slurmlink built from the committed HEAD), the in-process floor
# program, a busybox image for the pods, PyYAML (pure Python), bench/, and
# run.sh. With BASE_COMMIT, slurmlink's three programs built at that commit
# go too, as base/: run.sh then runs the api path with both daemons, in
# turns, on the same cluster (--daemons base=...,head=...).
# Then, on that host, from a copy that carries .devscale/: bash .devscale/run.sh
set -eu
TOP=$(git rev-parse --show-toplevel)
cd "$TOP"
O=$TOP/.devscale
SRC=${SRC:-/tmp/scale-src} S=${S:-/tmp/scale-stage}
export SRC S
rm -rf "$O"
mkdir -p "$O"
bash bench/gpu/make-bundle.sh "$O/b" >/dev/null
# the bench needs no kubectl: the bundle without it (a third of its size)
X=$(mktemp -d)
tar xzf "$O/b/bundle.tgz" -C "$X"
rm -f "$X/extra/kubectl"
tar czf "$O/b/bundle.tgz" -C "$X" .
rm -rf "$X"
cc -O2 -pthread "$SRC/bench/scale/folders.c" -o "$O/folders"
cc -D_GNU_SOURCE -I"$SRC/src" -O2 "$SRC/bench/submit-floor.c" "$SRC/build/libslurmlink.a" -lslurm -lpthread \
    -o "$O/submit-floor"
if [ -n "${1:-}" ]; then
    B=${BASE_SRC:-$SRC-base} # BASE_SRC: a checkout of BASE_COMMIT already built there
    if [ "$(git -C "$B" rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$1")" ] || [ ! -x "$B/build/slurmlinkd" ]; then
        rm -rf "$B"
        git clone -q "$TOP" "$B"
        git -C "$B" checkout -q "$1"
        (cd "$B" && make -j2 build/slurmlinkd build/slurmlink build/slurmlink-shim >/dev/null)
    fi
    mkdir -p "$O/base"
    cp "$B"/build/slurmlinkd "$B"/build/slurmlink "$B"/build/slurmlink-shim "$O/base/"
    strip "$O"/base/slurmlink*
    git -C "$B" log -1 --format='%h %s' | cut -c1-80 >"$O/base/COMMIT"
fi
I=$(mktemp -d)
"$SRC/build/slurmlink" image import busybox --busybox --store "$I/images" >/dev/null
tar czf "$O/bbimg.tgz" -C "$I" images
rm -rf "$I"
mkdir -p "$O/py"
cp -r /usr/lib/python3/dist-packages/yaml "$O/py/"
rm -f "$O"/py/yaml/*.so
cp -r "$SRC/bench" "$O/bench"
rm -rf "$O/bench/gpu"
cp "$SRC/bench/scale/run.sh" "$O/"
du -sh "$O"
