#!/bin/bash
# covers: src/image/ src/cluster/pulluser.c src/ctl/pull.c
# 39-privsep-pullsite.t — the site's registry credentials (images.credentials)
# and the user a pull runs as (docs/security.md "Pulled images"). A pull with
# a pod's credentials runs skopeo as the pod's Unix user, reading a copy of
# the credentials that is that user's. The site's credentials are merged into
# every pod's: handed to alice's uid, alice (who controls every process of
# her uid) could read the site's secrets. A pull whose credentials include
# the site's runs as root, as before; the copy skopeo reads is root's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
for t in skopeo umoci docker-registry; do
  command -v $t >/dev/null || { plan 1; bail "$t is missing (scripts/deps.sh)"; }
done
plan 5

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
mkdir -p "$T/bin" "$T/wrap" "$T/who"
chmod 755 "$T/bin" "$T/wrap" && chmod 777 "$T/who"
for f in skopeo auth; do : >"$T/who/$f" && chmod 666 "$T/who/$f"; done
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
REG=127.0.0.1:$PORT
cat >"$T/wrap/skopeo" <<SH
#!/bin/sh
a=
for x; do case \$x in --authfile=* | --src-authfile=*) a=\${x#*=} ;; esac; done
echo "\$(id -u) \$1" >>"$T/who/skopeo"
[ -n "\$a" ] && echo "\$1 \$(stat -c '%u %a' "\$a" | tr '\n' ' ')\$(grep -c 'registry.site.example' "\$a")" >>"$T/who/auth"
exec $(command -v skopeo) "\$@"
SH
chmod 755 "$T/wrap/skopeo"
# the site's credentials: an entry for another registry (every pod's
# credentials include it)
printf '{"auths":{"registry.site.example":{"auth":"%s"}}}\n' "$(printf 'site:site-secret' | base64 -w0)" >"$T/site.json"
chmod 600 "$T/site.json"
SLURMLINKD=$(daemon_with "$T/bin" --image-credentials "$T/site.json")
sed -i "2i PATH=$T/wrap:\$PATH; export PATH" "$SLURMLINKD"
export SLURMLINKD
sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"

start_registry --addr "$REG" "$T" # (REG chosen above: the wrappers name it)
cd "$T" || bail cd
umoci init --layout oci >/dev/null && umoci new --image oci:app && umoci unpack --rootless --image oci:app b >/dev/null
mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh && echo app >b/rootfs/name
umoci repack --image oci:app b && rm -rf b
umoci config --image oci:app --config.cmd /bin/sh --config.cmd -c --config.cmd 'cat /name'
skopeo copy --quiet --dest-tls-verify=false oci:oci:app "docker://$REG/alice/app:v1" || bail "push"
cd - >/dev/null || bail cd

phase() { ka -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team-a","annotations":{"slurmlink.io/runtime":"charliecloud"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"%s","resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$REG/alice/app:v1" |
  kc alice create -f - >/dev/null
wait_for 120 is_phase team-a p Succeeded; r=$?
is "$r" 0 "alice's pod (no secret of hers, the site's credentials configured) runs"
[ "$r" = 0 ] || diag "$(phase team-a p; ka -n team-a get events 2>&1 | tail -5)"
is "$(ka -n team-a logs p 2>&1)" "app" "of the image it names"
like "$(cat "$T/who/auth")" " 1$" "skopeo was given credentials with the site's entry"
unlike "$(cut -d' ' -f1 "$T/who/skopeo" | sort -u | tr '\n' ' ')" "(^| )$UIDA " "skopeo never ran as alice ($UIDA), who could read the site's secret"
unlike "$(cat "$T/who/auth")" "^[a-z]+ $UIDA " "no copy of the credentials was alice's"
