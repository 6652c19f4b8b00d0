# 61-security-lib.sh — helpers for the security tests (t/6*-security*.t).
#   source "$(dirname "$0")/61-security-lib.sh"   (after lib.sh or 50-api-lib.sh)
#   sec_users            → $UA $UB: two new Unix users (uid >= 1000), removed on exit
#   sec_pki DIR          → DIR/pki/{ca,server}.{crt,key} (openssl, IP SAN 127.0.0.1),
#                          DIR/etc/tokens.csv (0600): enough for `slurmlink kubeconfig --dir DIR`
#   sec_kc DIR NAME URL [kubeconfig args] → DIR/NAME.kc
#   sec_cluster BOB_AUTH [up options] <policy.yaml
#                        → $CL: `slurmlink up` with that policy (in place before
#                          slurmlinkd starts), the busybox image, kubeconfigs
#                          alice (certificate, team-a) and bob (BOB_AUTH: --cert
#                          or --token, team-b); kc USER ARGS..., ka ARGS... (admin)
#   sec_two_tenants BOB_AUTH [--default] [--bob-reads-a] [-- UP_OPTION...]
#                        → sec_users and sec_cluster (one node, 4 CPUs, no GPUs;
#                          after --, slurmlink up's options instead, e.g.
#                          -- --nodes 2 --gpus 0 --cpus 2)
#                          with the usual two tenants: alice writes team-a, bob
#                          team-b, every authenticated user reads the cluster,
#                          admin runs as nobody (--default: the default
#                          namespace's Slurm account; --bob-reads-a: bob reads
#                          team-a too); both namespaces created
#   status_of            → "code|reason|message" of a Status in $BODY

# Two users no one else uses: names from the test's pid, removed by the exit
# trap even when the test fails half-way.
sec_users() {
  UA=sla$$a UB=sla$$b
  local u
  for u in "$UA" "$UB"; do
    userdel -r "$u" >/dev/null 2>&1
    if ! useradd -M -s /usr/sbin/nologin "$u" 2>/dev/null; then
      diag "useradd $u failed (the security tests create Unix users and need root)"
      return 1
    fi
    on_exit "userdel '$u'"
  done
  UIDA=$(id -u "$UA") UIDB=$(id -u "$UB")
}

sec_pki() {
  local d=$1
  mkdir -p "$d/pki" "$d/etc"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=sec-test-ca -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign \
    -keyout "$d/pki/ca.key" -out "$d/pki/ca.crt" >/dev/null 2>&1 || return 1
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=slurmlinkd \
    -keyout "$d/pki/server.key" -out "$d/pki/server.csr" >/dev/null 2>&1 || return 1
  printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$d/pki/ext"
  openssl x509 -req -in "$d/pki/server.csr" -CA "$d/pki/ca.crt" -CAkey "$d/pki/ca.key" \
    -CAcreateserial -days 2 -extfile "$d/pki/ext" -out "$d/pki/server.crt" >/dev/null 2>&1 || return 1
  printf '# tokens\n' >"$d/etc/tokens.csv"
  chmod 600 "$d/etc/tokens.csv" "$d/pki/ca.key" "$d/pki/server.key"
}

sec_kc() {
  local d=$1 name=$2 url=$3; shift 3
  "$SLURMLINK" kubeconfig --dir "$d" --server "$url" --user "$name" "$@" -o "$d/$name.kc"
}

sec_two_tenants() {
  local auth=$1 dflt="" bread="" up=(--gpus 0 --cpus 4)
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      --default) dflt="  default: {account: default}" ;;
      --bob-reads-a) bread=", read: {users: [bob]}" ;;
      --) shift; up=("$@"); break ;;
      *) diag "sec_two_tenants: unknown option $1"; return 1 ;;
    esac
    shift
  done
  sec_users || return 1
  local policy
  policy=$(sed '/^$/d' <<EOF
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
$dflt
  team-a: {write: {users: [alice]}$bread}
  team-b: {write: {users: [bob]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
)
  sec_cluster "$auth" "${up[@]}" <<<"$policy" || return 1 # here, not in a pipe: $CL stays set
  ka create namespace team-a >/dev/null && ka create namespace team-b >/dev/null
}

status_of() {
  printf '%s' "$BODY" | jq -r '[(.code|tostring), .reason, .message] | join("|")' 2>/dev/null
}

sec_cluster() {
  local bob_auth=$1; shift
  CL=$(tmpdir)
  on_exit "'$SLURMLINK' down --dir '$CL'; rm -rf '$CL'"
  mkdir -p "$CL/etc"
  cat >"$CL/etc/policy.yaml"
  if ! "$SLURMLINK" up --dir "$CL" "$@" >"$CL.up.log" 2>&1; then
    sed 's/^/# /' "$CL.up.log"; rm -f "$CL.up.log"; return 1
  fi
  rm -f "$CL.up.log"
  export SLURM_CONF=$CL/etc/slurm.conf KUBECONFIG=$CL/kubeconfig
  "$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null || return 1
  "$SLURMLINK" kubeconfig --dir "$CL" --user alice --cert --namespace team-a -o "$CL/alice.kc" || return 1
  "$SLURMLINK" kubeconfig --dir "$CL" --user bob "$bob_auth" --namespace team-b -o "$CL/bob.kc" || return 1
}
kc() { local u=$1; shift; kubectl --kubeconfig "$CL/$u.kc" --cache-dir "$CL/cache-$u" "$@"; }
ka() { kubectl --cache-dir "$CL/cache-admin" "$@"; }
