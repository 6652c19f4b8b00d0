#!/bin/bash
# covers: src/api/ src/pki/
# TLS certificate and key reloaded on SIGHUP, without a restart: slurmlinkd
# (the ASan build when there is one) from the configuration file of
# `slurmlink up --no-slurmlinkd`. A key that is not the certificate's and a
# file that is no certificate are each refused with their reason in the log,
# and the certificate in use stays (the serial a new connection sees); a
# good new pair (same CA, a serial of our own) is what the next new
# connection gets, kubectl goes on working, and a watch opened before the
# reload stays open and still gets events; the old pair is freed when that
# watch's connection ends, and the daemon stops cleanly (no ASan report).
source "$(dirname "$0")/lib.sh"
plan 14

T=$(tmpdir)
on_exit "rm -rf '$T'"
cluster_up --no-slurmlinkd --gpus 1 --cpus 2 || bail "up --no-slurmlinkd"
P=$CL/pki
LOG=$T/daemon.log
SLURMLINK_DIR=$CL "$SLURMLINKD" --config "$CL/etc/slurmlinkd.conf" >"$LOG" 2>&1 &
pid=$!
on_exit "kill $pid"
ok wait_for 60 kc get --raw /healthz "slurmlinkd answers over TLS" || diag "$(tail -5 "$LOG")"
port=$(sed -n 's/^  port: //p' "$CL/etc/slurmlinkd.conf" | head -1)
addr=$(sed -n 's/^  address: "\(.*\)"/\1/p' "$CL/etc/slurmlinkd.conf" | head -1)
# the serial of the certificate a new TLS connection is served
served() { openssl s_client -connect "$addr:$port" </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null; }
old=$(openssl x509 -noout -serial -in "$P/server.crt")
is "$(served)" "$old" "a new connection sees the certificate of tls.cert ($old)"

kc get pods -w -o name >"$T/watch.out" 2>&1 &
wpid=$!
on_exit "kill $wpid"
kc run w1 --image=busybox --restart=Never --command -- true >/dev/null 2>&1
ok wait_for 30 grep -q pod/w1 "$T/watch.out" "a watch is open and gets events"

# a new pair from the folder's CA, with a serial of our own
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=slurmlinkd \
  -keyout "$T/new.key" -out "$T/new.csr" 2>/dev/null
printf 'subjectAltName=IP:%s,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n' \
  "$addr" >"$T/ext"
openssl x509 -req -in "$T/new.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -set_serial 0x5EED0123 \
  -days 1 -extfile "$T/ext" -out "$T/new.crt" 2>/dev/null
cp "$P/server.crt" "$T/old.crt"
cp "$P/server.key" "$T/old.key"

# --- bad pairs keep the one in use ------------------------------------------------------
cp "$T/new.key" "$P/server.key" # a key that is not the certificate's
kill -HUP $pid
ok wait_for 20 grep -q "SIGHUP: $P/server.key is not the private key of $P/server.crt's certificate: keeping the TLS certificate in use" "$LOG" \
  "a key that is not the certificate's: refused, the log says why" || diag "$(grep SIGHUP "$LOG")"
is "$(served)" "$old" "and new connections still get the old certificate"
printf 'not a certificate\n' >"$P/server.crt"
cp "$T/old.key" "$P/server.key"
kill -HUP $pid
ok wait_for 20 grep -q "SIGHUP: $P/server.crt: not a PEM certificate chain: .*keeping the TLS certificate in use" "$LOG" \
  "a file that is no certificate: refused, the log says why" || diag "$(grep SIGHUP "$LOG")"
ok kc get --raw /healthz "kubectl still works with the old certificate"

# --- a good pair: new connections get it -------------------------------------------------
cp "$T/new.crt" "$P/server.crt"
cp "$T/new.key" "$P/server.key"
kill -HUP $pid
ok wait_for 20 grep -q "SIGHUP: TLS certificate $P/server.crt (serial 5EED0123) and key $P/server.key reloaded" "$LOG" \
  "a good pair: the log names the new serial" || diag "$(grep SIGHUP "$LOG")"
is "$(served)" "serial=5EED0123" "a new connection sees the new certificate"
ok kc get --raw /healthz "kubectl (the same CA) works on a new connection"
unlike "$(grep SIGHUP "$LOG")" "tls.*restart needed" "nothing about TLS is said to need a restart"
ok kill -0 $wpid "the watch opened before the reloads is still open"
kc run w2 --image=busybox --restart=Never --command -- true >/dev/null 2>&1
ok wait_for 30 grep -q pod/w2 "$T/watch.out" "and it gets an event made after them"
kill $wpid
wait $wpid 2>/dev/null
kc get --raw /healthz >/dev/null # another connection, after the watch's has ended
kill -TERM $pid
wait $pid
rc=$?
is "$rc|$(grep -c 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$LOG")" "0|0" \
  "a clean stop: exit 0, no sanitizer report" || diag "$(grep -A20 Sanitizer "$LOG" | head -40)"
