#!/bin/bash
# bench/scale/ab.sh — on the bigger host, from the copy of .devscale/ that
# bench/scale/prepare.sh BASE_COMMIT made (as .devscale/bench/scale/ab.sh):
# base and head side by side with their pod folders on a journalled ext4 of
# their own (a loop mount, as podfs.sh makes; the host's own disk has no
# journal, docs/benchmarks.md run 8), in the order base, head, head, base
# (a run's later rounds are slower: each daemon has an early and a late
# round), then slurmrestd; ROUNDS times (default 1), 10,000 pods a round,
# WATCHERS more watchers (default 2: three in all). EXTRA=,NAME=PATH,... adds daemons after head (e.g. head
# with other flags through a wrapper of W's). ORDER=NAME=PATH,... replaces the four turns, for
# a shorter call: e.g. ORDER=base=$PWD/.devscale/w/base,head=$PWD/.devscale/w/head (the
# wrappers this script writes there).
G=$(cd "$(dirname "$0")/../.." && pwd)
[ -e "$G/run.sh" ] && [ -d "$G/base" ] || { echo "ab.sh: run it from .devscale/bench/scale/ (bench/scale/prepare.sh BASE_COMMIT)" >&2; exit 2; }
SL=/opt/slurmlink/build J=/mnt/slj W=$G/w
mkdir -p "$W" /var/tmp
if ! mountpoint -q $J; then
    truncate -s 8G /var/tmp/slj.img && mkfs.ext4 -q -F /var/tmp/slj.img && mkdir -p $J &&
        mount -o loop /var/tmp/slj.img $J || { echo "ab.sh: no journalled ext4 here (mkfs.ext4, loop mount)" >&2; exit 2; }
fi
echo "$J: $(findmnt -no FSTYPE,SOURCE,OPTIONS -T $J | cut -c1-160); journals: $(ls /proc/fs/jbd2 | tr '\n' ' ')"
mkdir -p /opt/slurmlink/base
cp "$G"/base/slurmlinkd /opt/slurmlink/base/
printf '#!/bin/sh\nexec /opt/slurmlink/base/slurmlinkd "$@" --pods-root %s/base\n' $J >"$W/base"
printf '#!/bin/sh\nexec %s/slurmlinkd "$@" --pods-root %s/head\n' $SL $J >"$W/head"
chmod 755 "$W/base" "$W/head"
echo "base: $(cat "$G/base/COMMIT")"
TAG=${TAG:-ab} ONLY=api,slurmrestd PODS=10000 REPEAT=${ROUNDS:-1} WATCHERS=${WATCHERS:-2} LIMIT=${LIMIT:-480} \
    DAEMONS_SET=${ORDER:-base=$W/base,head=$W/head,head2=$W/head,base2=$W/base}${EXTRA:-} bash "$G/run.sh"
