#!/bin/bash
# covers: src/daemon/main.c src/config/
# serial: the ThreadSanitizer daemon is several times slower than the plain one: not beside another heavy file
# SIGHUP reloads under ThreadSanitizer (make tsan; this file builds nothing):
# the TSan slurmlinkd, started from the configuration file `slurmlink up
# --no-slurmlinkd` writes, takes 15 reloads of the policy, the TLS
# certificate and key, and the limits
# while kubectl lists and a watch run on the API's threads. Any report TSan
# writes fails the test (log_path gives each reporting process a file).
SL_SANITIZER=tsan
source "$(dirname "$0")/lib.sh"
plan 7

[ -x "$SLURMLINKD" ] || bail "no TSan daemon at $SLURMLINKD (make tsan)"
TS=$(tmpdir)
on_exit "rm -rf '$TS'"
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$ROOT/t/tsan.supp log_path=$TS/tsan"
cluster_up --no-slurmlinkd --gpus 1 --cpus 2 || bail "up --no-slurmlinkd"
LOG=$TS/daemon.log
SLURMLINK_DIR=$CL "$SLURMLINKD" --config "$CL/etc/slurmlinkd.conf" >"$LOG" 2>&1 &
pid=$!
on_exit "kill $pid"
ok wait_for 60 kc get --raw /healthz "the TSan slurmlinkd answers" || diag "$(tail -5 "$LOG")"
ok grep -q libtsan "/proc/$pid/maps" "it is the ThreadSanitizer build"
kc get pods -w >"$TS/watch.out" 2>&1 &
wpid=$!
on_exit "kill $wpid"
cp "$CL/etc/slurmlinkd.conf" "$TS/base.conf"
applied=0
for i in $(seq 1 15); do
  { cat "$TS/base.conf"; printf 'limits:\n  max_body_bytes: %d\n  max_per_user: %d\n' $((4096 + i)) $((100 + i)); } \
    >"$CL/etc/slurmlinkd.conf"
  kill -HUP $pid
  for _ in 1 2 3; do kc get pods >/dev/null 2>&1 & done
  wait_for 30 grep -q "limits.max_per_user: [0-9]* -> $((100 + i))\$" "$LOG" && applied=$((applied + 1))
done
wait $(jobs -p | grep -vx "$wpid" | grep -vx "$pid") 2>/dev/null
is "$applied" 15 "each of 15 SIGHUPs applied its limits"
is "$(grep -c 'SIGHUP: policy .* reloaded' "$LOG")" 15 "and reloaded the policy"
is "$(grep -c 'SIGHUP: TLS certificate .* reloaded' "$LOG")" 15 \
  "and the TLS certificate and key, swapped under the handshakes of the kubectl calls"
ok kill -0 $wpid "the watch stayed open through the reloads"
kill $wpid
kill -TERM $pid
wait $pid
rc=$?
reports=$(ls "$TS"/tsan.* 2>/dev/null)
is "$rc|$reports" "0|" "a clean stop (exit 0, not TSan's 66) and no TSan report" ||
  diag "$(cat "$TS"/tsan.* 2>/dev/null | head -60)"
