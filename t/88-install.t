#!/bin/bash
# covers: Makefile scripts/ src/cluster/
# Deploying slurmlinkd as a site would: `make install DESTDIR=` into a fresh
# root (the file list, man pages that render without warnings, the systemd
# unit verified), the configuration file's checks (unknown key, wrong type,
# missing file, unreadable TLS key: one line naming the key, exit 2), the
# key table of docs/configuration.md against the program's, then the
# INSTALLED slurmlinkd started from the configuration file that
# `slurmlink up --no-slurmlinkd` writes for a two-node cluster: a pod runs
# to completion through kubectl; SIGHUP reloads the policy while a watch is
# open (the watch survives and sees a later event, a newly granted user can
# list), a bad policy keeps the old one, a changed listen address is named;
# `make uninstall` leaves no file.
source "$(dirname "$0")/lib.sh"
plan 42

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 0755 "$T" # job users run the installed shim from beneath it
R=$T/root

# --- make install ------------------------------------------------------------------
out=$(make -C "$ROOT" --no-print-directory install DESTDIR="$R" PREFIX=/usr 2>&1)
rc=$?
is "$rc" 0 "make install DESTDIR=... PREFIX=/usr succeeds" || diag "$out"
want='0644 etc/slurmlink/slurmlinkd.conf.example
0755 usr/bin/slurmlink
0644 usr/lib/systemd/system/slurmlinkd.service
0755 usr/libexec/slurmlink/slurmlink-mpi-rsh
0755 usr/libexec/slurmlink/slurmlink-shim
0755 usr/sbin/slurmlinkd
0644 usr/share/man/man1/slurmlink.1
0644 usr/share/man/man5/slurmlinkd.conf.5
0644 usr/share/man/man8/slurmlinkd.8'
is "$(cd "$R" && find . -type f -printf '%m %P\n' | sed 's/^755/0755/; s/^644/0644/' | sort -k2)" "$want" \
  "the installed files, where GNU's directories put them, with their modes"
for m in man1/slurmlink.1 man5/slurmlinkd.conf.5 man8/slurmlinkd.8; do
  page=$(MANWIDTH=80 man --warnings -l "$R/usr/share/man/$m" 2>"$T/man.err")
  ok test -n "$page" -a ! -s "$T/man.err" "man --warnings -l renders $m without warnings" ||
    diag "$(cat "$T/man.err")"
done
# verify needs the unit's programs where it says: a copy pointed into the root
sed "s|/usr/sbin/|$R/usr/sbin/|g" "$R/usr/lib/systemd/system/slurmlinkd.service" >"$T/slurmlinkd.service"
out=$(systemd-analyze verify --man=no "$T/slurmlinkd.service" 2>&1)
is "$?|$out" "0|" "systemd-analyze verify accepts the unit"
D=$R/usr/sbin/slurmlinkd
like "$("$D" --version)" "^slurmlinkd [0-9]" "the installed slurmlinkd runs"

# --- the documented keys are the program's -------------------------------------------
doc=$(sed -n '/<!-- keys: begin -->/,/<!-- keys: end -->/p' "$ROOT/docs/configuration.md" | sed '1d;$d')
is "$doc" "$("$ROOT/scripts/config-keys-md.sh" "$D")" "docs/configuration.md's key table is slurmlinkd --config-keys"

# --- the configuration file's checks --------------------------------------------------
C=$T/conf
mkdir -p "$C"
chmod 0755 "$C"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=t -days 1 \
  -keyout "$C/key.pem" -out "$C/cert.pem" 2>/dev/null
chmod 0644 "$C/cert.pem"
# the example, its files pointed at ones that exist
sed -e "s|\"/etc/slurmlink/pki/server.crt\"|\"$C/cert.pem\"|; s|\"/etc/slurmlink/pki/server.key\"|\"$C/key.pem\"|" \
  -e "s|\"/etc/slurmlink/pki/ca.crt\"|\"$C/cert.pem\"|; s|\"/etc/slurmlink/policy.yaml\"|null|" \
  -e "s|\"/etc/slurmlink/tokens.csv\"|null|; s|\"/etc/slurm/slurm.conf\"|\"$C/cert.pem\"|" \
  -e '/client_ca:/d' "$R/etc/slurmlink/slurmlinkd.conf.example" >"$C/example.conf"
"$D" --config "$C/example.conf" --check-config >"$C/eff.conf" 2>"$C/eff.err"
is "$?|$(cat "$C/eff.err")" "0|" "--check-config accepts the installed example (its files made real)"
"$D" --config "$C/eff.conf" --check-config >"$C/eff2.conf"
is "$(grep -v '^#' "$C/eff2.conf" | sed 's/  #.*//')" "$(grep -v '^#' "$C/eff.conf" | sed 's/  #.*//')" \
  "what --check-config prints is a configuration that reads back to the same settings"
like "$("$D" --config "$C/example.conf" --check-config --port 7777)" "  port: 7777  # command line" \
  "a command-line option overrides the file"
bad() { # name yaml → "rc|stderr" of --check-config
  printf '%s\n' "$2" >"$C/$1.conf"
  chmod 0644 "$C/$1.conf"
  local e rc
  e=$(${RUNAS:-} "$D" --config "$C/$1.conf" --check-config 2>&1 >/dev/null)
  rc=$?
  echo "$rc|$e"
}
is "$(bad unknown $'listen:\n  port: 7000\n  adress: 0.0.0.0')" "2|$C/unknown.conf: listen.adress: unknown key" \
  "an unknown key: exit 2, one line naming it"
is "$(bad group $'limit:\n  max_connections: 5')" "2|$C/group.conf: limit: unknown key" \
  "an unknown group: exit 2, one line naming it"
is "$(bad type $'listen:\n  port: "6443x"')" "2|$C/type.conf: listen.port: wrong type: want an integer, not a string" \
  "a wrong type: exit 2, one line naming the key and both types"
is "$(bad range $'limits:\n  max_connections: 0')" "2|$C/range.conf: limits.max_connections: must be 1..100000, not 0" \
  "a value out of range: exit 2, one line with the range"
is "$(bad missing "$(printf 'slurm:\n  conf: %s/nosuch.conf' "$C")")" \
  "2|$C/missing.conf: slurm.conf: $C/nosuch.conf: cannot read: No such file or directory" \
  "a missing file: exit 2, one line naming the key, the file and the reason"
chmod 0600 "$C/key.pem" # root's alone: the daemon run as nobody cannot read it
is "$(RUNAS="setpriv --reuid=nobody --regid=nogroup --clear-groups" bad unreadable \
  "$(printf 'tls:\n  cert: %s/cert.pem\n  key: %s/key.pem' "$C" "$C")")" \
  "2|$C/unreadable.conf: tls.key: $C/key.pem: cannot read: Permission denied" \
  "an unreadable TLS key: exit 2, one line naming the key, the file and the reason"

# --- the installed slurmlinkd against a cluster of `up --no-slurmlinkd` ----------------
# the INSTALLED slurmlink, SLURMLINKD unset: it finds slurmlinkd where make
# install put it (SBINDIR, not BINDIR beside itself) and names the installed
# shim (LIBEXECDIR/slurmlink) as shim.path
SLURMLINK=$R/usr/bin/slurmlink SLURMLINKD= cluster_up --nodes 2 --gpus 1 --cpus 2 --no-slurmlinkd
ok test -n "${CL:-}" -a -s "${CL:-/nonexistent}/etc/slurmlinkd.conf" \
  "the installed slurmlink up finds the installed slurmlinkd in SBINDIR" || bail "up --no-slurmlinkd"
like "$(grep -A1 '^shim:' "$CL/etc/slurmlinkd.conf")" "path: \"$R/usr/libexec/slurmlink/slurmlink-shim\"" \
  "its slurmlinkd.conf names the installed shim in LIBEXECDIR/slurmlink"
ok test -s "$CL/etc/slurmlinkd.conf" -a -z "$(pgrep -f "^[^ ]*slurmlinkd --config $CL/")" \
  "up --no-slurmlinkd writes D/etc/slurmlinkd.conf and starts no slurmlinkd"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
LOG=$CL/installed.log
SLURMLINK_DIR=$CL "$D" --config "$CL/etc/slurmlinkd.conf" >"$LOG" 2>&1 &
dpid=$!
on_exit "kill $dpid; wait $dpid"
KC=(kubectl --cache-dir "$CL/kcache")
ok wait_for 30 kc get --raw /healthz "the installed slurmlinkd answers kubectl over TLS" || diag "$(tail -5 "$LOG")"
pod() { # name command
  kc apply -f - <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, "$2"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
like "$(pod p1 'echo hello from the installed shim' 2>&1)" "pod/p1 created" "kubectl apply creates a pod"
ok wait_for 90 is_phase p1 Succeeded "the pod runs to completion (Succeeded)" || diag "$(kc get pod p1 -o yaml | tail -20)"
is "$(kc logs p1 2>&1)" "hello from the installed shim" "kubectl logs shows its output"
job=$(kc get pod p1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
is "$(squeue -h -t all -j "$job" -o %j 2>&1)" "default/p1" "Slurm ran it as job $job, default/p1"
like "$(scontrol write batch_script "$job" - 2>&1)" "$R/usr/libexec/slurmlink/slurmlink-shim" \
  "its batch script runs the installed shim (the file's shim.path)"

# --- SIGHUP: the policy reloaded under an open watch --------------------------------------
U=dave$$
"$SLURMLINK" kubeconfig --dir "$CL" --user "$U" --cert -o "$CL/u.kc" >/dev/null 2>&1
ku() { kubectl --kubeconfig "$CL/u.kc" --cache-dir "$CL/kcache-u" "$@"; }
like "$(ku get pods 2>&1)" "Forbidden.*User \"$U\" cannot list resource \"pods\"" "before the reload $U cannot list pods"
kc get pods -w -o name >"$CL/watch.out" 2>&1 &
wpid=$!
on_exit "kill $wpid"
ok wait_for 20 grep -q pod/p1 "$CL/watch.out" "a watch (kubectl get pods -w) is open"
cp "$CL/etc/policy.yaml" "$CL/policy.orig"
/usr/bin/python3 - "$CL/etc/policy.yaml" "$U" <<'PY'
import sys
p, u = sys.argv[1], sys.argv[2]
s = open(p).read().replace("  default:\n    account: default\n",
                           "  default:\n    account: reloaded\n    read: {users: [%s]}\n" % u, 1)
open(p, "w").write(s)
PY
grep -q "read: {users: \[$U\]}" "$CL/etc/policy.yaml" || diag "the policy edit did not apply"
kill -HUP $dpid
ok wait_for 20 grep -q "SIGHUP: policy .* reloaded" "$LOG" "SIGHUP: the log says the policy was reloaded"
ok wait_for 20 ku get pods "after the reload $U can list pods" || diag "$(ku get pods 2>&1)"
ok kill -0 $wpid "the watch is still open after the reload"
pod p2 'echo two' >/dev/null 2>&1
ok wait_for 30 grep -q pod/p2 "$CL/watch.out" "the watch receives an event after the reload"
job2() { kc get pod p2 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
has_job2() { [ -n "$(job2)" ]; }
wait_for 60 has_job2
is "$(squeue -h -t all -j "$(job2)" -o %a 2>&1)" "reloaded" \
  "a pod submitted after the reload is charged to the reloaded policy's account (the controllers use it too)"
printf 'namespaces: [this is not a mapping\n' >"$CL/etc/policy.yaml"
kill -HUP $dpid
ok wait_for 20 grep -q "keeping the policy in use" "$LOG" "a broken policy on SIGHUP: the log says the old one is kept"
ok ku get pods "and $U can still list (the old policy is in force)"
cp "$CL/policy.orig" "$CL/etc/policy.yaml"
sed -i 's/^  address: .*/  address: "127.0.0.2"/' "$CL/etc/slurmlinkd.conf"
printf 'limits:\n  max_body_bytes: 2048\n' >>"$CL/etc/slurmlinkd.conf"
kill -HUP $dpid
ok wait_for 20 grep -q "SIGHUP: listen.address changed: restart needed" "$LOG" \
  "a changed listen address is named as needing a restart"
ok kc get --raw /healthz "and slurmlinkd still serves on the address it has"
ok grep -q "SIGHUP: limits.max_body_bytes: 3145728 -> 2048" "$LOG" "a changed limit is applied and logged"
big=$(head -c 3000 /dev/zero | tr '\0' x)
like "$(pod big "echo $big" 2>&1)" "RequestEntityTooLarge|Request entity too large" \
  "a 3 kB request is now refused with 413 (limits.max_body_bytes 2048)"
ok kill -0 $wpid "the watch opened before the reloads is still open"
kill $wpid 2>/dev/null

# --- the cluster stopped by the installed slurmlink, then make uninstall -------------------
# (the teardown's own `down` would find no slurmlink once it is uninstalled)
kill $dpid 2>/dev/null
wait $dpid 2>/dev/null
"$R/usr/bin/slurmlink" down --dir "$CL" >/dev/null 2>&1
is "$(pgrep -f "$CL/" | wc -l)" 0 "the installed slurmlink down stops every daemon of the cluster" ||
  diag "$(pgrep -af "$CL/")"
make -C "$ROOT" --no-print-directory uninstall DESTDIR="$R" PREFIX=/usr >/dev/null 2>&1
is "$(find "$R" -type f -o -type l | wc -l)" 0 "make uninstall DESTDIR=... leaves no file in the root"
