#!/bin/bash
# bench/scale/run.sh — on the bigger host, from .devscale/ (bench/scale/prepare.sh
# made it), as root: install the bundle, start a private cluster
# (slurmlink up --cpus $CPUS, nodes drained by the bench) and run
# bench/submit-throughput.py with every path side by side. Knobs:
#   PODS=1000,10000 REPEAT=2 THREADS=16 ONLY=api,sbatch,slurmrestd,floor CPUS=64
#   LIMIT=520 (seconds for the bench) TAG=a (the output's name under $OUT, or here)
#   FLOOR_USERS=nobody,root (the floor as the api path's and slurmrestd's users)
#   WORKERS="16 32" (the api path again with slurmlinkd --submit-workers N each)
#   CLIENTS=procs (the HTTP clients: processes; threads: of one Python process)
#   DAEMONS_SET=NAME=PATH,... (the api path's daemons instead of base, head and WORKERS)
#   SETTLE=S (each round S seconds after the one before was removed: --settle)
#   WATCHERS=K (K more watches of each api round's pods: --watchers)
#   ARGS="..." (more submit-throughput.py options, e.g. --delete-during)
# With base/ (prepare.sh BASE_COMMIT) the api path runs with base's daemon
# and HEAD's, in turns; the ratios then read against the last api daemon.
set -u
G=$(cd "$(dirname "$0")" && pwd)
W=/tmp/slwork B=/tmp/slwork/bundle SL=/opt/slurmlink/build D=/var/tmp/slc
OUTD=${OUT:-$G}
T0=$(date +%s)
echo "$(nproc) cores; $(head -1 /etc/os-release); $(grep -m1 'model name' /proc/cpuinfo)"
command -v nvidia-smi >/dev/null && nvidia-smi -L
if [ ! -e $W/ready ]; then
    mkdir -p $W $B && tar xzf "$G/b/bundle.tgz" -C $B || exit 1
    (cd $B/root && find . \( -type f -o -type l \)) | while read -r f; do
        dst=/${f#./}
        [ -e "$dst" ] || [ -L "$dst" ] || {
            mkdir -p "$(dirname "$dst")"
            cp -a "$B/root/$f" "$dst"
        }
    done
    mkdir -p /usr/local/lib/slurmlink-debian
    have=$(ldconfig -p | awk 'NR>1{print $1}' | sort -u)
    for l in $B/libs/*; do grep -qxF "$(basename $l)" <<<"$have" || cp "$l" /usr/local/lib/slurmlink-debian/; done
    echo /usr/local/lib/slurmlink-debian >/etc/ld.so.conf.d/zz-slurmlink-debian.conf
    ldconfig
    command -v curl >/dev/null || cp $B/extra/curl /usr/local/bin/curl
    command -v kubectl >/dev/null || cp $B/extra/kubectl /usr/local/bin/kubectl
    mkdir -p $SL && chmod 755 /opt/slurmlink $SL && cp $B/slurmlink/build/* $SL/ && chmod 755 $SL/*
    if [ -d "$G/base" ]; then
        mkdir -p /opt/slurmlink/base && cp "$G"/base/slurmlink* /opt/slurmlink/base/ && chmod 755 /opt/slurmlink/base/*
    fi
    cp "$G/submit-floor" /tmp/submit-floor
    chmod 755 /tmp/submit-floor
    cd /tmp && timeout 200 $SL/slurmlink up --dir $D --cpus "${CPUS:-64}" >$W/up.out 2>&1
    echo "up: $?"
    tail -4 $W/up.out
    tar xzf "$G/bbimg.tgz" -C $D
    touch $W/ready
fi
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf PATH=$SL:$PATH PYTHONPATH=$G/py PYTHONUNBUFFERED=1
echo "slurm: $(sbatch --version); head: $(cat "$G/b/COMMIT")"
[ -d "$G/base" ] && echo "base: $(cat "$G/base/COMMIT")"
DAEMONS=
[ -d /opt/slurmlink/base ] && DAEMONS=base=/opt/slurmlink/base/slurmlinkd
DAEMONS=${DAEMONS:+$DAEMONS,}head=$SL/slurmlinkd
for n in ${WORKERS:-}; do
    printf '#!/bin/sh\nexec %s "$@" --submit-workers %s\n' "$SL/slurmlinkd" "$n" >/opt/slurmlink/w$n
    chmod 755 /opt/slurmlink/w$n
    DAEMONS=$DAEMONS,w$n=/opt/slurmlink/w$n
done
[ "$DAEMONS" = "head=$SL/slurmlinkd" ] && DAEMONS=
# DAEMONS_SET=NAME=PATH,...: the api path's daemons as given (e.g. one daemon
# twice, first and last, to see the drift of a run's later rounds)
DAEMONS=${DAEMONS_SET:-$DAEMONS}
echo "setup took $(($(date +%s) - T0)) s; daemons: ${DAEMONS:-head}"
cd "$G/bench" && timeout "${LIMIT:-520}" python3 submit-throughput.py --dir $D --pods "${PODS:-1000,10000}" \
    --repeat "${REPEAT:-2}" --threads "${THREADS:-16}" --purge --only "${ONLY:-api,sbatch,slurmrestd,floor}" \
    --floor-users "${FLOOR_USERS:-nobody}" --clients "${CLIENTS:-procs}" --settle "${SETTLE:-0}" --watchers "${WATCHERS:-0}" ${ARGS:-} ${DAEMONS:+--daemons "$DAEMONS"} --slurmlink $SL/slurmlink 2>&1 |
    tee "$OUTD/scale-${TAG:-a}.txt"
echo "rc=$? total $(($(date +%s) - T0)) s"
