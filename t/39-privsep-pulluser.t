#!/bin/bash
# covers: src/image/ src/cluster/pulluser.c src/ctl/pull.c
# alone: point 1 removes the host's _slurmlink-pull to see up make it again
# (every other cluster's pulls use that user meanwhile)
# 39-privsep-pulluser.t — who runs a pull's tools (docs/security.md "Pulled
# images"). slurmlinkd is root; skopeo speaks to whatever registry a tenant
# names (any host and port the head node reaches) and reads the pod's
# registry credentials, umoci applies layers whose contents the image's
# author chose. Two real Unix tenants, alice ($UA) and bob, on a real cluster:
#   1. `slurmlink up` makes a system user for pulls (_slurmlink-pull, no
#      login, no home) and names it images.unpack_user in the folder's
#      slurmlinkd.conf; a second up keeps it. Before, there was none: umoci
#      ran as root unless a site set the option, skopeo always as root;
#   2. a public image: skopeo (the manifest request and the copy) and umoci
#      run as that user, never as root, and the stored tree is root's;
#   3. an image pulled with the pod's registry credentials: skopeo runs as
#      the pod's own Unix user (alice), reading a copy of the credentials
#      that is hers alone (0600 in a 0700 folder of hers), never root's file;
#   4. the shipped unit's RestrictSUIDSGID=yes (a seccomp filter: chmod to a
#      set-id mode fails with EPERM) made umoci fail on every image holding a
#      setuid file; the daemon runs here under the same filter whenever the
#      unit sets it, and such an image still becomes a running pod;
#   5. the daemon runs with the unit's capability bounding set: a pull whose
#      registry never answers is stopped when its pod is deleted (root
#      signals a tool of another user only with CAP_KILL, which the unit
#      lacked);
#   6. a daemon without images.unpack_user says at start that its pulls run
#      as root.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
for t in skopeo umoci docker-registry gcc useradd userdel capsh; do
  command -v $t >/dev/null || { plan 1; bail "$t is missing (scripts/deps.sh)"; }
done
plan 27
PU=_slurmlink-pull
UNIT=$(dirname "$0")/../dist/slurmlinkd.service

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
mkdir -p "$T/bin" "$T/wrap" "$T/who"
chmod 755 "$T/bin" "$T/wrap" && chmod 777 "$T/who"
for f in skopeo umoci auth; do : >"$T/who/$f" && chmod 666 "$T/who/$f"; done
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
REG=127.0.0.1:$PORT
# skopeo and umoci that record who runs them (and, for skopeo, the
# credentials file it is given: owner and mode of the file and its folder,
# whether it holds this registry's entry)
cat >"$T/wrap/skopeo" <<SH
#!/bin/sh
a=
for x; do case \$x in --authfile=* | --src-authfile=*) a=\${x#*=} ;; esac; done
echo "\$(id -u) \$1" >>"$T/who/skopeo"
[ -n "\$a" ] && echo "\$1 \$(stat -c '%u %a' "\$a" "\$(dirname "\$a")" | tr '\n' ' ')\$(grep -c '$REG' "\$a")" >>"$T/who/auth"
exec $(command -v skopeo) "\$@"
SH
printf '#!/bin/sh\necho "$(id -u)" >>"%s/who/umoci"\nexec %s "$@"\n' "$T" "$(command -v umoci)" >"$T/wrap/umoci"
chmod 755 "$T/wrap/skopeo" "$T/wrap/umoci"
gcc -O -Wall -o "$T/bin/nosuid" "$(dirname "$0")/39-privsep-pulluser-nosuid.c" || bail "gcc nosuid"
SLURMLINKD=$(daemon_with "$T/bin")
sed -i "2i PATH=$T/wrap:\$PATH; export PATH" "$SLURMLINKD"
# the unit's RestrictSUIDSGID, when it has it, as the same seccomp filter
SUIDSGID=$(grep -c '^RestrictSUIDSGID=yes' "$UNIT")
[ "$SUIDSGID" != 0 ] && sed -i "s|^exec |exec $T/bin/nosuid |" "$SLURMLINKD"
# the unit's CapabilityBoundingSet: every other capability dropped
keep=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z ' 'a-z\n' | sort)
drop=$(capsh --print | sed -n 's/^Bounding set =//p' | tr ',' '\n' | sort | comm -23 - <(echo "$keep") | paste -sd,)
sed -i "s|^exec |exec capsh --drop=$drop -- -c 'exec \"\$0\" \"\$@\"' |" "$SLURMLINKD"
export SLURMLINKD

# --- 1. slurmlink up makes the pull user -------------------------------------------
# a user left from an earlier run goes first, so that up is seen making it
if getent passwd "$PU" >/dev/null && ! pgrep -u "$PU" >/dev/null; then userdel "$PU"; fi
sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
as_a() { runuser -u "$UA" -- "$@"; }
pw=$(getent passwd "$PU")
ok [ -n "$pw" ] "slurmlink up made the user $PU: $pw"
IFS=: read -r _ _ PUID PGID _ PHOME PSHELL <<<"$pw"
ok sh -c "[ '${PUID:-0}' -gt 0 ] && [ '$PUID' -lt 1000 ] && [ '${PGID:-0}' -gt 0 ]" "a system user (uid $PUID, gid $PGID), not root's group"
is "$PSHELL$(test -e "$PHOME" && echo " and $PHOME exists")" "/usr/sbin/nologin" "no login shell, no home folder ($PHOME)"
like "$(cat "$CL/etc/slurmlinkd.conf")" "unpack_user: \"?$PU\"?" "the folder's slurmlinkd.conf names it as images.unpack_user"
"$SLURMLINK" up --dir "$CL" >"$T/up2.log" 2>&1; r=$?
is "$r" 0 "a second slurmlink up succeeds" || diag "$(cat "$T/up2.log")"
is "$(getent passwd "$PU")" "$pw" "and keeps the user as it was"

# --- the registry and its images -----------------------------------------------------
start_registry --addr "$REG" "$T" # (REG chosen above: the wrappers name it)
cd "$T" || bail cd
umoci init --layout oci >/dev/null
for img in suid priv; do
  umoci new --image oci:$img && umoci unpack --rootless --image oci:$img b >/dev/null
  mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh
  [ $img = suid ] && install -m 4755 /bin/busybox b/rootfs/bin/suid && install -d -m 2775 b/rootfs/sgid
  echo $img >b/rootfs/name
  umoci repack --image oci:$img b && rm -rf b
  umoci config --image oci:$img --config.cmd /bin/sh --config.cmd -c --config.cmd 'cat /name'
  skopeo copy --quiet --dest-tls-verify=false oci:oci:$img "docker://$REG/alice/$img:v1" || bail "push $img"
done
cd - >/dev/null || bail cd

pod() { # ns name image [spec lines]
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","annotations":{"slurmlink.io/runtime":"charliecloud"}},"spec":{%s"restartPolicy":"Never","containers":[{"name":"main","image":"%s","resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$2" "$1" "${4:-}" "$3"
}
phase() { ka -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
msgs() { ka -n "$1" get events --field-selector involvedObject.name="$2" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1; }
S=$CL/images

# --- 2. and 4. a public image with a setuid file -----------------------------------
if [ "$SUIDSGID" != 0 ]; then
  "$T/bin/nosuid" umoci raw unpack --rootless --image "$T/oci:suid" "$T/u" >"$T/u.log" 2>&1
  like "$(cat "$T/u.log")" "chmod .*operation not permitted" "under the unit's RestrictSUIDSGID filter, umoci alone cannot unpack the image"
else
  ok grep -q 'RestrictSUIDSGID' "$UNIT" "the unit says why it leaves RestrictSUIDSGID off"
fi
pod team-a pub "$REG/alice/suid:v1" | kc alice create -f - >/dev/null
wait_for 120 is_phase team-a pub Succeeded; r=$?
is "$r" 0 "alice's pod of a public image with a setuid file runs (the daemon under the unit's filters: $SUIDSGID)"
[ "$r" = 0 ] || diag "$(phase team-a pub; msgs team-a pub)"
is "$(ka -n team-a logs pub 2>&1)" "suid" "and prints what the image holds"
is "$(cut -d' ' -f1 "$T/who/skopeo" | sort -u | tr '\n' ' ')" "$PUID " "skopeo ran as $PU only"
like "$(cut -d' ' -f2 "$T/who/skopeo" | sort -u | tr '\n' ' ')" "copy inspect" "both for the manifest request (inspect) and the copy"
is "$(sort -u "$T/who/umoci" | tr '\n' ' ')" "$PUID " "umoci ran as $PU only"
D=$(ls "$S/sha256" 2>/dev/null | head -1)
ok test -n "$D" -a -d "$S/sha256/$D/rootfs" "the image is in the shared store"
is "$(find "$S/sha256" \( ! -user root -o ! -group root -o -perm /6000 \) ! -type l 2>&1)" "" "its tree is root's, nothing set-id"
is "$(find "$S" -maxdepth 1 -name '.pull-*' -o -maxdepth 1 -name '.resolve-*' | wc -l)" 0 "no work folder is left"

# --- 3. credentials: skopeo as the pod's user ------------------------------------
: >"$T/who/skopeo"
: >"$T/who/umoci"
ka -n team-a create secret docker-registry regcred --docker-server="$REG" --docker-username=alice --docker-password='s3cret' >/dev/null
pod team-a cred "$REG/alice/priv:v1" '"imagePullSecrets":[{"name":"regcred"}],' | kc alice create -f - >/dev/null
wait_for 120 is_phase team-a cred Succeeded; r=$?
is "$r" 0 "alice's pod with an imagePullSecret runs"
[ "$r" = 0 ] || diag "$(phase team-a cred; msgs team-a cred)"
is "$(ka -n team-a logs cred 2>&1)" "priv" "of the image it names"
is "$(cut -d' ' -f1 "$T/who/skopeo" | sort -u | tr '\n' ' ')" "$UIDA " "skopeo ran as alice ($UIDA) only"
like "$(cut -d' ' -f2 "$T/who/skopeo" | sort -u | tr '\n' ' ')" "copy inspect" "for the manifest request and the copy"
is "$(sort -u "$T/who/umoci" | tr '\n' ' ')" "$UIDA " "umoci too"
a=$(grep -v '^$' "$T/who/auth" | tail -2 | sort -u)
is "$a" "$(printf 'copy %s 600 %s 700 1\ninspect %s 600 %s 700 1' "$UIDA" "$UIDA" "$UIDA" "$UIDA")" \
  "the credentials skopeo read: a file of alice's (0600) in a folder of hers (0700), with this registry"
P=$(ls -d "$S/private/"*/sha256/* 2>/dev/null | head -1)
is "$(find "$P" \( ! -user root -o -perm /6000 \) ! -type l 2>&1)" "" "the private image's tree is root's (${P#$S/})"
ls "$CL/state"/pull-auth-* >/dev/null 2>&1
ok [ $? != 0 ] "no credentials file is left in the state folder"

# --- 5. a pull stopped under the unit's capabilities ---------------------------------
python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(64); print(s.getsockname()[1], flush=True); time.sleep(600)' >"$T/silent" &
on_exit "kill $!"
wait_for 10 test -s "$T/silent"
SIL=127.0.0.1:$(cat "$T/silent")
pod team-a slow "$SIL/x/y:v1" | kc alice create -f - >/dev/null
hanging() { pgrep -u "$PU" -f "skopeo.*$SIL" >/dev/null; }
ok wait_for 30 hanging "a pull from a registry that never answers: skopeo waits, as $PU"
ka -n team-a delete pod slow --wait=false >/dev/null
gone() { ! pgrep -f "skopeo.*$SIL" >/dev/null; }
ok wait_for 10 gone "the pod deleted, slurmlinkd (with the unit's capabilities, CAP_KILL: $(grep -c '^CapabilityBoundingSet=.*CAP_KILL' "$UNIT")) stops it"

# --- 6. the warning of a daemon without the setting ---------------------------------
unlike "$(cat "$CL/log/slurmlinkd.log")" "images.unpack_user" "the cluster's slurmlinkd (with the setting) warns of nothing about it"
sed '/unpack_user/d' "$CL/etc/slurmlinkd.conf" >"$T/nouser.conf"
mkdir -m 700 "$T/st2"
"$SLURMLINKD" --config "$T/nouser.conf" --port 0 --state-dir "$T/st2" >"$T/d2.log" 2>&1 &
D2=$!
wait_for 30 grep -q "listening on" "$T/d2.log"
kill "$D2" 2>/dev/null
wait "$D2" 2>/dev/null
like "$(cat "$T/d2.log")" "images.unpack_user is not set: registry pulls without credentials run skopeo and umoci as root" \
  "one without it warns at start that pulls run as root"
