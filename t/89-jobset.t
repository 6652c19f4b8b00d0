#!/bin/bash
# covers: src/kinds/jobset/ src/ctl/gang.c src/ctl/gangowner.c src/kinds/kubeflow/api.c src/ctl/podstatus.c
# 89-jobset.t — a jobset.x-k8s.io/v1alpha2 JobSet is ONE gang Slurm job, on
# a real two-node cluster (slurmlink up --nodes 2: slurmctld, two slurmd,
# slurmdbd) with the real kubectl; images from a loopback docker-registry
# (busybox with bash, built with umoci, pushed with skopeo).
#   - JobSet's own example site/static/examples/simple/success-policy.yaml,
#     unchanged but its image: leader (sleeps) + workers 2 pods: ONE Slurm
#     job of 2 nodes for the 3 pods; the workers succeed, successPolicy
#     (All of workers) makes it Completed while the leader still runs,
#     which then ends; pods named <js>-<rjob>-<job>-<index> with that
#     hostname and the JobSet's name as subdomain; replicatedJobsStatus,
#     terminalState; the CRD's columns in kubectl get; events;
#   - the downward API reads upstream's labels and annotations
#     (jobset-name, replicatedjob-name, job-index, job-global-index,
#     job-completion-index) and JOB_COMPLETION_INDEX; client pods fetch
#     from the server pod of another replicated Job (busybox httpd) by its
#     DNS name net-server-0-0.net, on the other node and on its own;
#   - startupPolicy InOrder: the second replicated Job's container starts
#     after the first's (whose init container takes 4 s), in one job;
#   - a failing pod with failurePolicy.maxRestarts 1: the gang restarts once
#     (two Slurm jobs, restarts 1) then Failed, ReachedMaxRestarts; a
#     FailJobSet rule: Failed at once, one job;
#   - bad input: 422 naming the field (duplicate replicatedJobs names,
#     replicas < 0, a success target that is no replicated Job, a bad
#     subdomain, an unknown field);
#   - suspend: no pods, no Slurm job, Suspended; resumed: it runs;
#     kubectl explain; no batch/v1 Job objects; ttlSecondsAfterFinished;
#   - delete: the pods and the Slurm job go with the JobSet.
source "$(dirname "$0")/lib.sh"
plan 41

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"
# busybox with bash (the examples' bash:latest): bash and its libraries, and the applets they call
push_busybox "$T" library/bash:latest sh -c 'cp /bin/bash bin/ &&
  for l in $(ldd /bin/bash | grep -o "/[^ ]*"); do mkdir -p ".$(dirname "$l")" && cp -L "$l" ".$l"; done &&
  for a in sleep seq cat env wget httpd mkdir; do ln -s busybox "bin/$a"; done'
IMG=$REG/library/bash:latest
EX=$(dirname "$0")/jobset/site/static/examples

cluster_up --nodes 2 --cpus 4 --accounting || bail "cluster up --nodes 2"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
uid_of() { jp "jobset/$1" '{.metadata.uid}'; }
slurm_jobs() { squeue -h -t all -o '%i|%D|%k' | awk -F'|' -v u="slurmlink:uid=$1" 'index($3, u) {print $1, $2}'; }
conds() { jp "jobset/$1" '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}'; }

# --- JobSet's own example: success policy ------------------------------------------------------
out=$(sed "s|image: bash:latest|image: $IMG|" "$EX/simple/success-policy.yaml" | kc apply -f - 2>&1)
is "$out" "jobset.jobset.x-k8s.io/success-policy created" "kubectl apply -f simple/success-policy.yaml"
sp_uid=$(uid_of success-policy)
three() { [ "$(kc get pods -l jobset.sigs.k8s.io/jobset-name=success-policy -o name | wc -l)" = 3 ]; }
wait_for 30 three
is "$(kc get pods -l jobset.sigs.k8s.io/jobset-name=success-policy -o jsonpath='{range .items[*]}{.metadata.name}={.spec.hostname}.{.spec.subdomain} {end}')" \
  "success-policy-leader-0-0=success-policy-leader-0-0.success-policy success-policy-workers-0-0=success-policy-workers-0-0.success-policy success-policy-workers-0-1=success-policy-workers-0-1.success-policy " \
  "pods <js>-<rjob>-<job>-<index>, that hostname, the JobSet's name as subdomain"
ok kc wait --for=condition=Completed jobset/success-policy --timeout=120s "kubectl wait --for=condition=Completed" ||
  diag "$(kc get pods -o wide 2>&1; conds success-policy)"
acct() { sacct -n -X -P --format=JobID,JobName,NNodes | awk -F'|' -v n="default/$1" '$2 == n {print $1, $3}'; }
wait_for 30 eval '[ -n "$(acct success-policy)" ]' # slurmdbd has the record a moment after slurmctld
is "$(slurm_jobs "$sp_uid" | wc -l) $(acct success-policy | wc -l) $(acct success-policy | awk '{print $2}')" "1 1 2" \
  "ONE Slurm job (squeue, sacct), of 2 nodes, for the set's 3 pods"
is "$(jp pod/success-policy-workers-0-0 '{.status.phase}') $(jp pod/success-policy-workers-0-1 '{.status.phase}')" "Succeeded Succeeded" "the workers succeeded"
lgone() { [ -z "$(kc get pod success-policy-leader-0-0 -o name 2>/dev/null)" ]; }
ok wait_for 60 lgone "the leader (sleep 10000), still active, is deleted once the set completed, as upstream deletes active Jobs"
like "$(conds success-policy)" "Completed=True:AllJobsCompleted" "condition Completed, reason AllJobsCompleted"
is "$(jp jobset/success-policy '{.status.terminalState} {.status.restarts} {range .status.replicatedJobsStatus[*]}{.name}:{.succeeded}/{.failed} {end}')" \
  "Completed 0 leader:0/0 workers:1/0 " "terminalState, restarts, replicatedJobsStatus"
hdr=$(kc get jobsets 2>&1 | head -1)
like "$hdr" "^NAME +TERMINALSTATE +RESTARTS +COMPLETED +SUSPENDED +AGE" "kubectl get jobsets: the CRD's columns ($hdr)"
like "$(kc get jobset success-policy --no-headers 2>&1)" "^success-policy +Completed +0 +True +[0-9]+s$" "... and its row"
like "$(kc get events --field-selector involvedObject.kind=JobSet,involvedObject.name=success-policy -o jsonpath='{range .items[*]}{.reason} {end}' 2>&1)" \
  "SuccessfulCreate.*AllJobsCompleted" "events SuccessfulCreate, AllJobsCompleted"

# --- the downward API, and a pod reaching another replicated Job's ------------------------------
# the clients reach the server by its pod DNS name <hostname>.<subdomain> (the subdomain: the JobSet's name);
# the server serves from a folder of its run's own (the pods' /tmp is the node's, shared by every run;
# a fixed folder stays the user's of the run that made it): /tmp/www-PID, $$$$ in a command being $$
# to the shell (Kubernetes turns $$ into $)
SERVER=net-server-0-0.net
cat >"$T/net.yaml" <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: net}
spec:
  successPolicy: {operator: All, targetReplicatedJobs: [client]}
  replicatedJobs:
  - name: server
    template:
      spec:
        template:
          spec:
            containers:
            - name: httpd
              image: $IMG
              env:
              - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
              command: [sh, -c, 'w=/tmp/www-\$\$\$\$ && mkdir -p \$w && echo "served by \$POD_NAME" >\$w/index.html && exec httpd -f -p 18089 -h \$w']
  - name: client
    replicas: 2
    template:
      spec:
        template:
          spec:
            containers:
            - name: c
              image: $IMG
              env:
              - {name: SERVER, value: $SERVER}
              - {name: JOBSET_NAME, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"}}}
              - {name: RJOB, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"}}}
              - {name: JOB_INDEX, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['jobset.sigs.k8s.io/job-index']"}}}
              - {name: GLOBAL, valueFrom: {fieldRef: {fieldPath: "metadata.labels['jobset.sigs.k8s.io/job-global-index']"}}}
              command: [sh, -c, 'echo "env \$JOBSET_NAME \$RJOB \$JOB_INDEX \$GLOBAL \$JOB_COMPLETION_INDEX"; for i in \$(seq 60); do r=\$(wget -q -O - http://\$SERVER:18089/) && break; sleep 1; done; echo "got \$r"']
YAML
is "$(kc apply -f "$T/net.yaml" 2>&1)" "jobset.jobset.x-k8s.io/net created" "a JobSet of a server and two clients"
ok kc wait --for=condition=Completed jobset/net --timeout=90s "it completes when the clients have (successPolicy targets client)" ||
  diag "$(conds net; kc logs net-client-0-0 2>&1 | tail -3)"
is "$(kc logs net-client-1-0 2>&1 | grep ^env)" "env net client 1 2 0" \
  "the downward API: jobset-name, replicatedjob-name, job-index, job-global-index; JOB_COMPLETION_INDEX"
is "$(kc logs net-client-0-0 2>&1 | grep ^got) / $(kc logs net-client-1-0 2>&1 | grep ^got)" \
  "got served by net-server-0-0 / got served by net-server-0-0" "each client fetched from the server pod by its DNS name net-server-0-0.net"

# --- startupPolicy InOrder: a later replicated Job's step starts after the earlier's containers --
# (the first's init container sleeps 4 s: at once, the second would start 4 s before it)
cat >"$T/order.yaml" <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: order}
spec:
  startupPolicy: {startupPolicyOrder: InOrder}
  replicatedJobs:
  - name: first
    template:
      spec:
        template:
          spec:
            initContainers: [{name: i, image: $IMG, command: [sleep, "4"]}]
            containers: [{name: c, image: $IMG, command: [sleep, "2"]}]
  - name: second
    template: {spec: {template: {spec: {containers: [{name: c, image: $IMG, command: [sleep, "1"]}]}}}}
YAML
kc apply -f "$T/order.yaml" >/dev/null 2>&1
ok kc wait --for=condition=Completed jobset/order --timeout=90s "an InOrder JobSet completes" || diag "$(conds order)"
t1=$(jp pod/order-first-0-0 '{.status.containerStatuses[0].state.terminated.startedAt}')
t2=$(jp pod/order-second-0-0 '{.status.containerStatuses[0].state.terminated.startedAt}')
ok test "$(date -d "$t2" +%s)" -ge "$(date -d "$t1" +%s)" "the second replicated Job's container started after the first's ($t1, $t2)"
like "$(conds order)" "StartupPolicyCompleted=True:InOrderStartupPolicyCompleted" "condition StartupPolicyCompleted"

# --- failurePolicy: a failing pod restarts the gang, up to maxRestarts ---------------------------
cat >"$T/fail.yaml" <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: fail}
spec:
  failurePolicy: {maxRestarts: 1}
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            containers:
            - {name: c, image: $IMG, command: [bash, -c, 'echo "index \$JOB_COMPLETION_INDEX"; [ "\$JOB_COMPLETION_INDEX" = 1 ] && exit 3; sleep 300']}
YAML
kc apply -f "$T/fail.yaml" >/dev/null 2>&1
f_uid=$(uid_of fail)
ok kc wait --for=condition=Failed jobset/fail --timeout=120s "a pod failing every time: the JobSet Failed" || diag "$(conds fail)"
like "$(conds fail)" "Failed=True:ReachedMaxRestarts" "reason ReachedMaxRestarts"
is "$(jp jobset/fail '{.status.restarts} {.status.restartsCountTowardsMax} {.status.terminalState}')" "1 1 Failed" "restarts 1, counted, terminalState Failed"
is "$(slurm_jobs "$f_uid" | wc -l)" 2 "two Slurm jobs: the first attempt's and the restart's"
like "$(kc get events --field-selector involvedObject.kind=JobSet,involvedObject.name=fail -o jsonpath='{range .items[*]}{.reason} {end}' 2>&1)" \
  "Restarting.*ReachedMaxRestarts" "events Restarting, ReachedMaxRestarts"
gone_all() { [ -z "$(squeue -h -o '%i %k' | grep "slurmlink:uid=$f_uid")" ]; }
ok wait_for 30 gone_all "no Slurm job of it left running"

# a rule: FailJobSet on the first failure, whatever maxRestarts says
sed -e 's/name: fail}/name: rule}/' -e 's/failurePolicy: {maxRestarts: 1}/failurePolicy: {maxRestarts: 3, rules: [{action: FailJobSet, targetReplicatedJobs: [w]}]}/' "$T/fail.yaml" |
  kc apply -f - >/dev/null 2>&1
r_uid=$(uid_of rule)
ok kc wait --for=condition=Failed jobset/rule --timeout=90s "failurePolicy.rules FailJobSet: Failed" || diag "$(conds rule)"
is "$(conds rule | grep -o 'Failed=True:[A-Za-z]*') $(jp jobset/rule '{.status.restarts}') $(slurm_jobs "$r_uid" | wc -l)" \
  "Failed=True:FailJobSetFailurePolicyAction 0 1" "reason FailJobSetFailurePolicyAction, no restart, one Slurm job"

# --- bad input --------------------------------------------------------------------------------
bad() { # name, then the replicatedJobs/spec YAML
  printf 'apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2" | kc apply -f - 2>&1
}
rj='  - name: a
    template: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}'
out=$(bad dup "  replicatedJobs:
$rj
$rj")
like "$out" 'is invalid: spec.replicatedJobs\[1\]: Duplicate value' "duplicate replicatedJobs names: 422 naming the field ($out)"
out=$(bad neg "  replicatedJobs:
  - name: a
    replicas: -1
    template: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}")
like "$out" 'spec.replicatedJobs\[0\].replicas: Invalid value: -1: must be greater than or equal to 0' "replicas < 0 ($out)"
out=$(bad tgt "  successPolicy: {operator: Any, targetReplicatedJobs: [nope]}
  replicatedJobs:
$rj")
like "$out" "spec.successPolicy.targetReplicatedJobs\\[0\\]: Invalid value: \"nope\": invalid replicatedJob name 'nope' does not appear" "a success target that is no replicated Job ($out)"
out=$(bad sub "  network: {subdomain: Bad_Sub}
  replicatedJobs:
$rj")
like "$out" 'spec.network.subdomain: Invalid value: "Bad_Sub"' "a bad subdomain ($out)"
out=$(bad unk "  replicatedJobz: []
  replicatedJobs:
$rj")
like "$out" 'unknown field "spec.replicatedJobz"' "an unknown field, strict decoding ($out)"
is "$(kc get jobsets -o name 2>&1 | grep -c -E '/(dup|neg|tgt|sub|unk)$')" 0 "none of them stored"

# --- suspend, resume; explain; no Job objects ----------------------------------------------------
cat >"$T/susp.yaml" <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: susp}
spec:
  suspend: true
  replicatedJobs:
  - name: r
    template: {spec: {template: {spec: {containers: [{name: c, image: $IMG, command: [sleep, "1"]}]}}}}
YAML
kc apply -f "$T/susp.yaml" >/dev/null 2>&1
s_uid=$(uid_of susp)
suspended() { [[ "$(conds susp)" == *"Suspended=True:SuspendedJobs"* ]]; }
ok wait_for 30 suspended "suspend: true: condition Suspended, reason SuspendedJobs"
after_job_polls 2 >/dev/null
is "$(kc get pods -l jobset.sigs.k8s.io/jobset-name=susp -o name 2>&1 | wc -l) $(slurm_jobs "$s_uid" | wc -l) $(jp jobset/susp '{.status.replicatedJobsStatus[0].suspended}')" \
  "0 0 1" "... no pod, no Slurm job, replicatedJobsStatus suspended 1"
kc patch jobset susp --type=merge -p '{"spec":{"suspend":false}}' >/dev/null 2>&1
ok kc wait --for=condition=Completed jobset/susp --timeout=60s "resumed: it runs and completes"
like "$(conds susp)" "Suspended=False:ResumeJobs" "condition Suspended False, reason ResumeJobs"
like "$(kc explain jobset.spec.successPolicy 2>&1)" "targetReplicatedJobs" "kubectl explain reads the pinned CRD's schema"
is "$(kc get jobs -o name 2>&1 | wc -l)" 0 "no batch/v1 Job objects: the set is one gang (docs/jobs.md)"

# ttlSecondsAfterFinished: the finished set deleted
out=$(sed -e 's/name: susp}/name: ttl}/' -e 's/suspend: true/ttlSecondsAfterFinished: 1/' "$T/susp.yaml" | kc apply -f - 2>&1)
[ "$out" = "jobset.jobset.x-k8s.io/ttl created" ] || diag "ttl: $out"
ttl_seen=$(kc get jobset ttl -o jsonpath='{.spec.ttlSecondsAfterFinished}' 2>&1)
ttl_gone() { [ -z "$(kc get jobset ttl -o name 2>/dev/null)" ] && [ -z "$(kc get pods -l jobset.sigs.k8s.io/jobset-name=ttl -o name 2>/dev/null)" ]; }
ok eval '[ "$ttl_seen" = 1 ] && wait_for 60 ttl_gone' "ttlSecondsAfterFinished: 1: the finished JobSet and its pods deleted (created with it: $ttl_seen)"

# --- delete cascades --------------------------------------------------------------------------
cat >"$T/long.yaml" <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: long}
spec:
  replicatedJobs:
  - name: s
    template: {spec: {parallelism: 2, completions: 2, template: {spec: {containers: [{name: c, image: $IMG, command: [sleep, "300"]}]}}}}
YAML
kc apply -f "$T/long.yaml" >/dev/null 2>&1
l_uid=$(uid_of long)
both_run() { [ "$(jp pod/long-s-0-0 '{.status.phase}') $(jp pod/long-s-0-1 '{.status.phase}')" = "Running Running" ]; }
wait_for 90 both_run || diag "long: $(kc get pods 2>&1 | grep long)"
kc delete jobset long --wait=true >/dev/null 2>&1
nopods() { [ -z "$(kc get pods -l jobset.sigs.k8s.io/jobset-name=long -o name 2>/dev/null)" ]; }
ok wait_for 60 nopods "kubectl delete jobset: its pods go with it"
nojob() { [ -z "$(squeue -h -o '%i %k' | grep "slurmlink:uid=$l_uid")" ]; }
ok wait_for 30 nojob "... and its Slurm job"
