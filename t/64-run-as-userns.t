#!/bin/bash
# covers: src/api/admission.c src/ctl/submit.c src/translate/translate.c src/runtime/
# 64-run-as-userns.t — securityContext.runAsUser as Kubernetes users expect
# it: the uid INSIDE the container. charliecloud runs each container in a
# user namespace; runAsUser N is uid N there, mapped by a one-entry map to
# the tenant's own uid outside, so a hostile tenant gains nothing by it. A
# real cluster, two real Unix tenants (alice $UA, bob $UB), charliecloud
# with the stored busybox image:
#   - runAsUser 1000: `id -u` is 1000 inside; a file it writes to a hostPath
#     and to an emptyDir belongs to alice outside;
#   - runAsUser 0: root inside only: a root-only file of the node (through a
#     hostPath) stays unreadable, a root-owned folder of the node unwritable;
#   - the host runtime (no container) keeps the rule: only alice's own uid,
#     422 naming the field and why; a Job's template the same at create,
#     and a charliecloud template's runAsUser 1000 is accepted;
#   - runAsNonRoot: true with an image without USER and no runAsUser: the
#     kubelet's refusal ("container has runAsNonRoot and image will run as
#     root"), never a Slurm job; with runAsUser 1000 it runs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 16
sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
GA=$(id -g "$UA")
H=$(tmpdir)
on_exit "rm -rf '$H'"
chmod 755 "$H"
mkdir -m 755 "$H/alice" "$H/rootdir" && chown "$UA" "$H/alice"
mkdir -m 755 "$H/secret" && echo root-only >"$H/secret/key" && chmod 600 "$H/secret/key"

# ccpod NAME RUNASUSER SCRIPT: alice's charliecloud pod with the node's
# $H mounted at /h and an emptyDir at /e
ccpod() {
  kc alice apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: team-a, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  securityContext: {runAsUser: $2}
  volumes: [{name: h, hostPath: {path: $H}}, {name: e, emptyDir: {}}]
  containers:
  - name: main
    image: busybox
    command: [sh, -c, '$3']
    volumeMounts: [{name: h, mountPath: /h}, {name: e, mountPath: /e}]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
ended() { [[ "$(kc alice get pod "$1" -o jsonpath="{.status.phase}" 2>/dev/null)" =~ ^(Succeeded|Failed)$ ]]; }
show() { diag "$(kc alice get pod "$1" -o jsonpath='{.status}' 2>&1; kc alice logs "$1" 2>&1 | tail -5)"; }

# --- runAsUser 1000: uid 1000 inside, alice outside --------------------------------------------
ccpod u1000 1000 'echo id $(id -u) $(id -g); echo x >/h/alice/f && echo x >/e/f && stat -c "stat %u" /h/alice/f'
wait_for 120 ended u1000
is "$(kc alice get pod u1000 -o jsonpath='{.status.phase}')" Succeeded "runAsUser 1000 in charliecloud: created and Succeeded" || show u1000
is "$(kc alice logs u1000 2>&1 | grep '^id ')" "id 1000 $GA" "inside: id -u is 1000 (the gid the job's group, $GA)" || show u1000
is "$(kc alice logs u1000 2>&1 | grep '^stat ')" "stat 1000" "... and the file it wrote is uid 1000 inside"
is "$(stat -c %u "$H/alice/f" 2>&1)" "$UIDA" "outside, its hostPath file belongs to alice ($UIDA), not to uid 1000"
is "$(stat -c %u "$CL"/pods/team-a/u1000-*/volumes/e/f 2>&1)" "$UIDA" "... and so does its emptyDir file"

# --- runAsUser 0: root inside the user namespace only ------------------------------------------
ccpod root0 0 'echo id $(id -u); cat /h/secret/key >/dev/null 2>&1 && echo read || echo no-read; touch /h/rootdir/x 2>/dev/null && echo wrote || echo no-write; chmod 777 /h/rootdir 2>/dev/null && echo chmod || echo no-chmod'
wait_for 120 ended root0
is "$(kc alice get pod root0 -o jsonpath='{.status.phase}')" Succeeded "runAsUser 0 in charliecloud: created and Succeeded" || show root0
is "$(kc alice logs root0 2>&1 | tr '\n' ' ')" "id 0 no-read no-write no-chmod " \
  "runAsUser 0: uid 0 inside, yet a root-only node file is unreadable and a root folder unwritable" || show root0
is "$(stat -c '%a %U' "$H/rootdir"; ls -A "$H/rootdir" | wc -l)" "755 root
0" "... the node's folder unchanged, nothing created in it"

# --- the host runtime: only the tenant's own uid ------------------------------------------------
out=$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"h1000","annotations":{"slurmlink.io/runtime":"host"}},"spec":{"securityContext":{"runAsUser":1000},"containers":[{"name":"main","image":"busybox","command":["true"]}]}}' |
  kc alice create -n team-a -f - 2>&1)
is "$out" "The Pod \"h1000\" is invalid: spec.securityContext.runAsUser: Invalid value: 1000: must be $UIDA, the uid of Unix user \"$UA\", which the jobs of user \"alice\" run as (the host runtime runs no container; runAsUser names a uid inside the container, mapped to that user, with charliecloud)" \
  "the host runtime: runAsUser 1000 refused, 422 naming the field and why"
job() { # NAME RUNTIME: a Job whose template says runAsUser 1000
  kc alice create -n team-a -f - 2>&1 <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  template:
    metadata: {annotations: {slurmlink.io/runtime: $2}}
    spec:
      restartPolicy: Never
      containers: [{name: m, image: busybox, command: ["true"], securityContext: {runAsUser: 1000}}]
YAML
}
like "$(job jhost host)" 'spec.template.spec.containers\[0\].securityContext.runAsUser: Invalid value: 1000: must be '"$UIDA"'.*the host runtime runs no container' \
  "a Job's host template: refused at create, naming the template's field"
is "$(job jcc charliecloud)" "job.batch/jcc created" "a Job's charliecloud template with runAsUser 1000: created"
is "$(ka get pods,jobs -n team-a -o name 2>&1 | grep -c 'h1000\|jhost')" 0 "nothing of the refused ones stored"

# --- runAsNonRoot: refused where the process would be root inside -------------------------------
nonroot() { # NAME [RUNASUSER]
  kc alice apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: team-a, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  securityContext: {runAsNonRoot: true${2:+, runAsUser: $2}}
  containers: [{name: main, image: busybox, command: [sh, -c, 'id -u'], resources: {requests: {cpu: 100m, memory: 64Mi}}}]
YAML
}
nonroot nr
nonroot nr1000 1000
wait_for 120 ended nr
is "$(kc alice get pod nr -o jsonpath='{.status.phase}')" Failed "runAsNonRoot, an image without USER, no runAsUser: the pod fails" || show nr
like "$(kc alice get pod nr -o jsonpath='{.status.message}')" 'container has runAsNonRoot and image will run as root \(container: main\)' \
  "... in the kubelet's words"
is "$(kc alice get pod nr -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')" "" "... and never became a Slurm job"
wait_for 120 ended nr1000
is "$(kc alice logs nr1000 2>&1)" 1000 "runAsNonRoot with runAsUser 1000: runs as uid 1000" || show nr1000
