#!/bin/bash
# bench/scale/podfs.sh [SETTLE...] — on the bigger host, from the copy of
# .devscale/ that bench/scale/prepare.sh made (as
# .devscale/bench/scale/podfs.sh): how much of the api path's rate is the
# file system under the pod folders. One cluster, 10,000 pods a round, in
# this order: head with its pod folders where `slurmlink up` puts them (the
# state folder on the host's disk), head with --pods-root on tmpfs
# (/dev/shm), head on the disk again (the drift of a run's later rounds),
# then slurmrestd; with a journalled ext4 mounted from a file (when the host
# allows it), head with its pod folders there too, before the second disk round. Each SETTLE (default: 0) is one such run with --settle.
# First it prints the file system of both folders and whether it keeps a
# journal (ext4 without one scans recently deleted inodes on every create),
# and bench/scale/folders.c's rates there. BEFORE=NAME=PATH,... puts more api
# daemons first (e.g. base=/opt/slurmlink/base/slurmlinkd, on the disk); WATCHERS=2
# watches each round's pods twice more (run.sh).
G=$(cd "$(dirname "$0")/../.." && pwd)
[ -e "$G/run.sh" ] || { echo "podfs.sh: run it from .devscale/bench/scale/ (bench/scale/prepare.sh)" >&2; exit 2; }
SL=/opt/slurmlink/build D=/var/tmp/slc
mkdir -p "$G/w" /var/tmp
printf '#!/bin/sh\nexec %s/slurmlinkd "$@" --pods-root /dev/shm/slpods\n' $SL >"$G/w/shm"
chmod 755 "$G/w/shm"
# a journalled ext4 of its own (a loop device), when this host lets root mount one
J=
if command -v mkfs.ext4 >/dev/null && truncate -s 8G /var/tmp/slj.img && mkfs.ext4 -q -F /var/tmp/slj.img &&
    mkdir -p /mnt/slj && mount -o loop /var/tmp/slj.img /mnt/slj 2>/dev/null; then
    J=/mnt/slj
    printf '#!/bin/sh\nexec %s/slurmlinkd "$@" --pods-root /mnt/slj/slpods\n' $SL >"$G/w/jext4"
    chmod 755 "$G/w/jext4"
else
    echo "no journalled ext4 of its own: mkfs.ext4 or a loop mount is not available here"
fi
for p in /var/tmp /dev/shm $J; do
    echo "$p: $(findmnt -no FSTYPE,SOURCE,OPTIONS -T $p | cut -c1-160)"
done
echo "journals (/proc/fs/jbd2): $(ls /proc/fs/jbd2 2>/dev/null | tr '\n' ' ')"
# the file system alone: 10,000 folders of two files, by 8 and 16 threads,
# in one parent or over 64 sub-folders (bench/scale/folders.c)
if [ -x "$G/folders" ]; then
    for p in /var/tmp/slfold /dev/shm/slfold ${J:+$J/slfold}; do
        for th in ${FOLDER_THREADS:-8 16}; do
            for sub in ${FOLDER_SUBS:-0 64}; do
                "$G/folders" $p 10000 $th $sub 3 | tail -2
                rm -rf $p
            done
        done
    done
fi
for s in ${@:-0}; do
    TAG=podfs-s$s ONLY=api,slurmrestd PODS=10000 REPEAT=1 SETTLE=$s LIMIT=${LIMIT:-420} \
        DAEMONS_SET=${BEFORE:+$BEFORE,}disk=$SL/slurmlinkd,tmpfs=$G/w/shm${J:+,ext4j=$G/w/jext4},disk2=$SL/slurmlinkd${EXTRA:-} bash "$G/run.sh"
done
