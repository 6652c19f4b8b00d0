#!/bin/bash
# covers: src/auth/ src/api/
# 77-kubectl-auth.t — kubectl auth can-i, can-i --list, auth whoami and
# --as against slurmlinkd, on a real Slurm cluster with two real tenants
# (alice writes team-a, bob team-b, every user reads the cluster). The
# answers come from the policy that authorizes real requests, so each is
# checked against what the same request then does. Run with the
# dispatcher's default kubectl (1.32) and with 1.30 and 1.33 pinned.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 50
sec_two_tenants --token || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
SDK=/usr/lib/google-cloud-sdk/bin

# kv VERSION USER ARGS...: kubectl VERSION as USER (admin: the cluster's kubeconfig)
kv() {
  local v=$1 u=$2 bin=kubectl; shift 2
  [ "$v" = default ] || bin=$SDK/kubectl.$v
  if [ "$u" = admin ]; then "$bin" --cache-dir "$CL/cache-admin-$v" "$@"
  else "$bin" --kubeconfig "$CL/$u.kc" --cache-dir "$CL/cache-$u-$v" "$@"; fi
}
# canI VERSION USER ARGS...: "rc: output" of kubectl auth can-i
canI() { local out rc; out=$(kv "$1" "$2" auth can-i "${@:3}" 2>&1); rc=$?; echo "$rc: $out"; }

for v in default 1.30 1.33; do
  is "$(canI $v alice create pods -n team-a)" "0: yes" "[$v] alice can-i create pods in team-a: yes"
  is "$(canI $v alice create pods -n team-b)" "1: no" "[$v] alice can-i create pods in team-b: no"
  is "$(canI $v bob create pods --subresource=exec -n team-b)" "0: yes" "[$v] bob (token) can-i create pods/exec in his team-b: yes"
  like "$(canI $v alice list nodes)" "^0: (.*"$'\n'")*yes$" "[$v] alice can-i list nodes (the cluster's read rule): yes"
  is "$(canI $v alice update pods --subresource=status -n team-a)" "1: no" "[$v] alice can-i update pods/status (admins only): no"
  is "$(canI $v admin '*' '*')" "0: yes" "[$v] the admin can-i * *: yes"
  u=$(kv $v alice auth whoami -o jsonpath='{.status.userInfo.username} {.status.userInfo.groups}' 2>&1)
  is "$u" 'alice ["system:authenticated"]' "[$v] alice's whoami: her name and groups"
done

# --- the answers agree with what the requests then do ----------------------------
out=$(kc bob get pods -n team-a 2>&1)
like "$out" 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "team-a"' \
  "bob's list in team-a is refused ..."
is "$(canI default bob list pods -n team-a)" "1: no" "... and can-i says no"
is "$(canI default alice create resourcequotas -n team-a)" "1: no" "alice can-i create resourcequotas (admins write them): no"
out=$(kc alice create quota q1 --hard=pods=1 -n team-a 2>&1)
like "$out" 'User "alice" cannot create resource "resourcequotas"' "... and the create is refused"
is "$(canI default alice get resourcequotas -n team-a)" "0: yes" "alice can-i get resourcequotas in her namespace: yes"
like "$(canI default alice get namespaces/team-a)" "^0: (.*"$'\n'")*yes$" "alice can-i get namespace team-a (it counts as inside itself): yes"
like "$(canI default alice get namespaces/team-b)" "^1: (.*"$'\n'")*no$" "alice can-i get namespace team-b: no"
is "$(canI default alice list pods -A)" "1: no" "alice can-i list pods in all namespaces: no"
is "$(canI default alice get /metrics)" "1: no" "alice can-i get /metrics (not granted): no"
is "$(canI default alice get /version)" "0: yes" "alice can-i get /version: yes"
is "$(kv default bob auth whoami -o jsonpath='{.status.userInfo.username}' 2>&1)" "bob" "bob's whoami (a token)"
like "$(kv default admin auth whoami 2>&1)" $'ATTRIBUTE +VALUE\nUsername +admin\nGroups +\\[system:masters system:authenticated\\]' \
  "the admin's whoami (a client certificate in system:masters)"

# --- can-i --list: what the policy grants in the namespace -------------------------
list=$(kv default alice auth can-i --list -n team-a 2>&1)
like "$list" $'(^|\n)pods +\\[\\] +\\[\\] +\\[get list watch create update patch delete deletecollection\\]' \
  "alice's --list in team-a: every verb on pods"
like "$list" $'(^|\n)pods/exec +\\[\\] +\\[\\] +\\[create get\\]' "... and pods/exec"
like "$list" $'(^|\n)resourcequotas +\\[\\] +\\[\\] +\\[get list watch\\]' "... resourcequotas read-only"
like "$list" $'(^|\n)nodes +\\[\\] +\\[\\] +\\[get list watch\\]' "... nodes read-only (the cluster's rule)"
like "$list" $'(^|\n)pods/status +\\[\\] +\\[\\] +\\[get\\]' "... pods/status read-only (the server writes it)"
like "$list" $'(^|\n)selfsubjectaccessreviews.authorization.k8s.io +\\[\\] +\\[\\] +\\[create\\]' "... the self reviews"
list=$(kv default alice auth can-i --list -n team-b 2>&1)
unlike "$list" $'(^|\n)pods ' "alice's --list in team-b: no pods"
like "$(kv default admin auth can-i --list -n team-b 2>&1)" $'(^|\n)\\*\\.\\* +\\[\\] +\\[\\] +\\[\\*\\]' "the admin's --list: everything"

# --- --as: impersonation is the admins' --------------------------------------------
is "$(canI default admin create pods -n team-a --as alice)" "0: yes" "admin can-i create pods in team-a --as alice: yes"
is "$(canI default admin create pods -n team-a --as bob)" "1: no" "admin can-i create pods in team-a --as bob: no"
like "$(ka get pods -n team-a --as bob 2>&1)" 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "team-a"' \
  "admin get pods in team-a --as bob: refused as bob"
is "$(kv default admin auth whoami --as bob --as-group devs -o jsonpath='{.status.userInfo.username} {.status.userInfo.groups}' 2>&1)" \
  'bob ["devs","system:authenticated"]' "admin whoami --as bob --as-group devs"
out=$(canI default alice create pods -n team-b --as bob)
is "$out" '1: Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' \
  "alice can-i --as bob: her impersonation is refused, not ignored"
out=$(kc alice get --raw /api/v1/namespaces/team-b/pods --as bob 2>&1)
like "$out" 'users "bob" is forbidden: User "alice" cannot impersonate resource "users"' \
  "alice get pods --as bob: refused (the header was ignored before: she got her own answer)"

# --- SubjectAccessReview: the admins' question about someone else --------------------
sar='{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"team-b","verb":"delete","resource":"pods"}}}'
is "$(ka create -f - -o jsonpath='{.status.allowed}' <<<"$sar" 2>&1)" "true" "admin's SubjectAccessReview: bob may delete pods in team-b"
is "$(ka create -f - -o jsonpath='{.status.allowed}' <<<"${sar//team-b/team-a}" 2>&1)" "false" "... and not in team-a"
like "$(kc alice create -f - -o name <<<"$sar" 2>&1)" 'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews"' \
  "a tenant may not ask about others"
