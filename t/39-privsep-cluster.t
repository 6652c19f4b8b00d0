#!/bin/bash
# covers: src/cluster/
# 39-privsep-cluster.t — a tenant against `slurmlink up` and `slurmlink
# doctor` (docs/security.md, "The cluster folder"), with real Unix users
# alice ($UA) and bob ($UB):
#   1. whoever made the cluster folder first owned the cluster: alice made
#      it (or etc/, pki/, the munge key inside root's folder, or a parent
#      folder she owns or anyone may write) and `up` used her munge key
#      (munged --force) and her CA. Now `up` refuses, in one line naming the
#      path, its owner and mode and why, with nothing started or written;
#      root's own folder still comes up, and munged runs without --force;
#      `status` and `down` read any folder without blocking on her FIFOs;
#   2. a FIFO alice planted in the doctor's probe folder, where the probe
#      job (run as her) writes its answer, made `slurmlink doctor` hang
#      forever. Now it answers within the probe timeout and names the file.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 40
sec_users || bail "Unix users"
as_a() { runuser -u "$UA" -- "$@"; }
T=$(tmpdir)
chmod 755 "$T"
on_exit "rm -rf '$T'"
# what a refused `up` must leave: the same files, owners and modes
snap() { find "$1" -printf '%p %u %m %y %s\n' 2>/dev/null | sort; }
refused() { # DIR WHAT_REGEX DESC: up refuses DIR, names WHAT, leaves DIR as it was
  local d=$1 want=$2 desc=$3 before out rc
  before=$(snap "$d")
  out=$("$SLURMLINK" up --dir "$d" 2>&1); rc=$?
  on_exit "'$SLURMLINK' down --dir '$d' >/dev/null 2>&1"
  like "$rc: $out" "^1: slurmlink up: $want" "$desc: refused in one line" || diag "$out"
  is "$(printf '%s\n' "$out" | wc -l)" 1 "$desc: one line" || diag "$out"
  is "$(procs_of "$d" | wc -l)|$(snap "$d")" "0|$before" "$desc: nothing started, nothing written"
}

# --- 1. the folder and what is in it -------------------------------------------
A=/tmp/slt-alice.$$
on_exit "rm -rf '$A'"
as_a mkdir -m 755 "$A"
refused "$A" "refusing $A: owned by uid $UIDA \\($UA\\) with mode 0755: .*root" \
  "a folder alice made first"

# alice's munge key and CA in her folder: old `up` took them as the cluster's
as_a mkdir -m 755 "$A/etc" "$A/pki"
as_a dd if=/dev/urandom of="$A/etc/munge.key" bs=1024 count=1 status=none
as_a chmod 600 "$A/etc/munge.key"
refused "$A" "refusing $A: owned by uid $UIDA" "alice's folder with her munge key"

R=$T/r1 # root's folder, etc/ alice's
mkdir -m 711 "$R"; mkdir -m 755 "$R/etc"; chown "$UA" "$R/etc"
refused "$R" "refusing $R/etc: owned by uid $UIDA \\($UA\\) with mode 0755" "root's folder, etc/ alice's"

R=$T/r2 # root's folder and etc/, the munge key alice's
mkdir -m 711 "$R"; mkdir -m 755 "$R/etc"
head -c 1024 /dev/urandom >"$R/etc/munge.key"; chmod 600 "$R/etc/munge.key"; chown "$UA" "$R/etc/munge.key"
refused "$R" "refusing $R/etc/munge.key: owned by uid $UIDA \\($UA\\) with mode 0600" "the munge key alice's"

R=$T/r3 # pki/ alice's (her CA would sign the admin's certificate)
mkdir -m 711 "$R"; mkdir -m 755 "$R/pki"; chown "$UA" "$R/pki"
refused "$R" "refusing $R/pki: owned by uid $UIDA" "pki/ alice's"

R=$T/r4 # root's munge key, readable by everyone
mkdir -m 711 "$R"; mkdir -m 755 "$R/etc"
head -c 1024 /dev/urandom >"$R/etc/munge.key"; chmod 644 "$R/etc/munge.key"
refused "$R" "refusing $R/etc/munge.key: owned by uid 0 \\(root\\) with mode 0644: .*readable by group or others" \
  "root's munge key readable by others"

W=$T/ww # a parent anyone may write, without the sticky bit: alice could swap the folder
mkdir -m 777 "$W"; chmod 777 "$W"
refused "$W/c" "refusing $W: owned by uid 0 \\(root\\) with mode 0777: .*sticky" "a parent anyone may write"
ok test ! -e "$W/c" "... and the folder is not made"

P=$T/pa # a parent alice owns
mkdir -m 755 "$P"; chown "$UA" "$P"
refused "$P/c" "refusing $P: owned by uid $UIDA \\($UA\\) with mode 0755" "a parent alice owns"

# alice makes the folder right after up checked that it was not there (the
# ASan build's fault point holds up there): up checks again once it made
# (found) the folder, and touches nothing in hers, not even to undo
Z=/tmp/slt-race.$$
on_exit "rm -rf '$Z'"
if [ -x "$ROOT/build-asan/slurmlink" ]; then
  SLURMLINKD_FAULT="up-checked:1:hold=$T/go" "$ROOT/build-asan/slurmlink" up --dir "$Z" >"$T/race.log" 2>&1 &
  up=$!
  wait_for 30 grep -q "held until" "$T/race.log"
  as_a mkdir -m 755 "$Z"
  touch "$T/go"
  wait "$up"; rc=$?
  like "$rc: $(grep -v 'fault injection' "$T/race.log")" "^1: slurmlink up: refusing $Z: owned by uid $UIDA" \
    "a folder alice made after the first check: refused at the second" || diag "$(cat "$T/race.log")"
  is "$(procs_of "$Z" | wc -l)|$(snap "$Z")" "0|$Z $UA 755 d 4096" "... nothing started, nothing written in it"
else
  skip "no build-asan/slurmlink (make asan): its fault point makes the race"
  skip "no build-asan/slurmlink"
fi

# --- root's own folder comes up, munged without --force ----------------------------
C=$T/ok
out=$("$SLURMLINK" up --dir "$C" --gpus 0 --cpus 2 2>&1); rc=$?
on_exit "'$SLURMLINK' down --dir '$C' >/dev/null 2>&1"
is "$rc" 0 "root's folder: up succeeds" || diag "$out"
ok "$SLURMLINK" status --dir "$C" "... and every daemon runs"
unlike "$(tr '\0' ' ' <"/proc/$(cat "$C/run/munged.pid")/cmdline" 2>/dev/null)" "--force" \
  "munged runs without --force (it checks its key's owner and mode itself)"
is "$(stat -c '%U %a' "$C" "$C/etc/munge.key" | tr '\n' ' ')" "root 711 root 600 " "the folder and key are root's"
out=$("$SLURMLINK" up --dir "$C" 2>&1)
like "$out" "already running" "up again on root's running folder: nothing to do"

# status and down read any folder they are given: alice's FIFOs for its
# cluster.json or a pidfile made them hang (a FIFO's open waits for a writer)
F=/tmp/slt-fifo.$$
on_exit "rm -rf '$F'"
as_a mkdir -m 755 "$F"
as_a mkfifo "$F/cluster.json"
out=$(timeout 20 "$SLURMLINK" status --dir "$F" 2>&1); rc=$?
like "$rc: $out" "^1: .*$F is not a slurmlink cluster folder" "status: cluster.json a FIFO is not read (no hang)"
as_a rm "$F/cluster.json"
cp "$C/cluster.json" "$F/cluster.json"; chown "$UA" "$F/cluster.json"
as_a mkdir -m 755 "$F/run"
as_a mkfifo "$F/run/munged.pid" "$F/run/slurmctld.pid"
out=$(timeout 20 "$SLURMLINK" down --dir "$F" 2>&1); rc=$?
like "$rc: $out" "^0: .*nothing was running" "down: pidfiles that are FIFOs are not read (no hang)"

# --- 2. doctor with a FIFO planted in its probe folder -------------------------------
# alice watches for the probe folder (its path is on srun's command line,
# which every user sees) and puts a FIFO where her probe job writes its
# answer: before the job writes (she reads it meanwhile, so the job's write
# goes through), or in place of the file it wrote. The head then reads it.
cat >"$T/plant.sh" <<'EOF'
trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
end=$((SECONDS + 150))
while [ $SECONDS -lt $end ]; do
  for d in $(ps -eo args= | grep -o '/[^ ]*/\.slurmlink-doctor-[0-9a-f]*' | sort -u); do
    f=$d/node1
    [ -d "$d" ] || continue
    if [ ! -e "$f" ]; then
      mkfifo "$f" 2>/dev/null && { cat "$f" >/dev/null & echo "planted $f"; }
    elif [ -f "$f" ] && [ -s "$f" ]; then
      rm -f "$f" && mkfifo "$f" && echo "planted $f"
    fi
  done
  sleep 0.01
done
EOF
as_a bash "$T/plant.sh" >"$T/plant.log" 2>&1 &
planter=$!
# the planter runs under runuser: its own bash is what the signal must reach
on_exit "pkill -f 'bash $T/plant.sh'; kill $planter"
t0=$SECONDS
out=$(timeout 90 "$SLURMLINK" doctor --config "$C/etc/slurmlinkd.conf" --probe-user "$UA" --timeout 30 2>&1); rc=$?
took=$((SECONDS - t0))
pkill -f "bash $T/plant.sh"
kill "$planter" 2>/dev/null
like "$(cat "$T/plant.log")" "planted $C/pods/\\.slurmlink-doctor-[0-9a-f]*/node1" "alice planted a FIFO for node1's answer"
ok test "$rc" -ne 124 "doctor does not hang on the FIFO (rc $rc after ${took}s)" || diag "$out"
ok test "$took" -lt 60 "... and answers within its probe timeout"
like "$(grep -E '^FAIL +pods-shared ' <<<"$out")" "node1: .*node1: not a regular file" \
  "the pods-shared line names the planted file" || diag "$out"
ok test -z "$(ls -A "$C/pods" | grep slurmlink-doctor)" "the probe folder is gone afterwards"
is "$rc" 1 "doctor exits 1 (a failed check)"
