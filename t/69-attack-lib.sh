# 69-attack-lib.sh — the three tenants of t/69-attack-repeat.t.
#   source "$(dirname "$0")/69-attack-lib.sh"   (after lib.sh and 61-security-lib.sh)
#   att_three_tenants [up options]
#        → sec_users ($UA alice, $UB bob) and a third Unix user $UC (carol,
#          removed on exit); sec_cluster with the policy of sec_two_tenants
#          --token --default (alice writes team-a, bob team-b, the default
#          namespace's Slurm account) plus carol, who writes team-c and,
#          with bob, team-s, and team-q alone (for a quota); carol's kubeconfig (a certificate, team-c);
#          the namespaces team-a, team-b, team-c, team-s, team-q
#   kc carol ARGS...   (sec_cluster's kc, with $CL/carol.kc)
att_three_tenants() {
  sec_users || return 1
  UC=sla$$c
  userdel -r "$UC" >/dev/null 2>&1
  useradd -M -s /usr/sbin/nologin "$UC" 2>/dev/null || { diag "useradd $UC failed"; return 1; }
  on_exit "userdel '$UC'"
  UIDC=$(id -u "$UC") GIDC=$(id -g "$UC")
  sec_cluster --token --gpus 0 "$@" <<EOF || return 1
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  default: {account: default}
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
  team-c: {write: {users: [carol]}}
  team-s: {write: {users: [bob, carol]}}
  team-q: {write: {users: [carol]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
  carol: $UC
EOF
  "$SLURMLINK" kubeconfig --dir "$CL" --user carol --cert --namespace team-c -o "$CL/carol.kc" || return 1
  local n
  for n in team-a team-b team-c team-s team-q; do ka create namespace $n >/dev/null || return 1; done
}
