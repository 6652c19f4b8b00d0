#!/bin/bash
# covers: src/metrics/ src/api/
# 80-metrics.t — slurmlinkd's /metrics (docs/metrics.md) on a real cluster,
# scraped by a real Prometheus:
#   - the exposition passes `promtool check metrics` and holds every family;
#   - a scraper identity granted by the policy (nonResourceURLs /metrics)
#     reads it with a bearer token; an identity without the grant gets
#     kube-apiserver's 403; no credential gets 401;
#   - Prometheus (Debian's), started here on a free port, scrapes slurmlinkd
#     over HTTPS with the cluster CA and the token; a PromQL query through its
#     HTTP API gives the pod counts by phase that kubectl shows;
#   - submissions (one that Slurm refuses), their latency, status latency,
#     Slurm RPCs and their errors, API requests and open watches were counted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

for t in prometheus promtool; do
  command -v $t >/dev/null || { plan 1; bail "$t is missing (scripts/deps.sh installs Debian's prometheus)"; }
done
sec_users || { echo "1..1"; echo "not ok 1 - Unix users for the test"; exit 1; }
plan 39
sec_cluster --token --gpus 2 --cpus 4 <<EOF || bail "slurmlink up, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
namespaces:
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
nonResourceURLs:
  /metrics: {users: [scraper]}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
for n in team-a team-b; do ka create namespace $n >/dev/null; done
"$SLURMLINK" kubeconfig --dir "$CL" --user scraper --token -o "$CL/scraper.kc" || bail "the scraper's token"
TOKEN=$(kubectl --kubeconfig "$CL/scraper.kc" config view --raw -o jsonpath='{.users[0].user.token}')
SERVER=$(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.server}')
HOSTPORT=${SERVER#https://}
BOBTOKEN=$(kubectl --kubeconfig "$CL/bob.kc" config view --raw -o jsonpath='{.users[0].user.token}')

# get URL TOKEN: the body in $BODY, the HTTP code in $CODE
BODY= CODE=
get() {
  local auth=()
  [ -z "$2" ] || auth=(-H "Authorization: Bearer $2")
  BODY=$(curl -sS --cacert "$CL/pki/ca.crt" "${auth[@]}" -w '\n%{http_code}' "$SERVER$1" 2>&1)
  CODE=${BODY##*$'\n'}
  BODY=${BODY%$'\n'*}
}

# --- pods: two that finish, one that runs (team-a), one that runs (team-b) ------------------------
pod() { # NAME COMMAND-JSON
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":%s,"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$1" "$2"
}
pod done1 '["true"]' | kc alice create -f - >/dev/null
pod done2 '["true"]' | kc alice create -f - >/dev/null
pod runs '["sleep","300"]' | kc alice create -f - >/dev/null
pod runs-b '["sleep","300"]' | kc bob create -f - >/dev/null
# and one that Slurm refuses (5 GPUs on a node of 2): a submission failure
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"toomany"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["true"],"resources":{"limits":{"nvidia.com/gpu":"5"}}}]}}' |
  kc bob create -f - >/dev/null
phases() { ka get pods -n "$1" -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' '; }
settled() { [ "$(phases team-a)" = "Running=1 Succeeded=2 " ] && [ "$(phases team-b)" = "Failed=1 Running=1 " ]; }
ok wait_for 120 settled "kubectl: team-a has 2 Succeeded and 1 Running pod, team-b 1 Running and 1 Failed"

# --- /metrics itself ------------------------------------------------------------------------------
get /metrics "$TOKEN"
is "$CODE" 200 "the granted scraper reads /metrics with its token"
METRICS=$BODY
is "$(curl -sS --cacert "$CL/pki/ca.crt" -H "Authorization: Bearer $TOKEN" -o /dev/null -w '%{content_type}' "$SERVER/metrics")" \
  "text/plain; version=0.0.4; charset=utf-8" "Prometheus' text format media type"
out=$(printf '%s\n' "$METRICS" | promtool check metrics 2>&1)
is "$?|$out" "0|" "promtool check metrics: no errors, no lint warnings"
[ -z "$out" ] || diag "$out"
missing=
for f in slurmlink_pods slurmlink_pod_submissions_total slurmlink_pod_submission_failures_total \
         slurmlink_pod_submit_latency_seconds slurmlink_pod_status_latency_seconds \
         slurmlink_submit_queue_length slurmlink_node_gpus slurmlink_node_gpus_allocated \
         slurmlink_slurm_rpc_duration_seconds slurmlink_slurm_rpc_errors_total \
         slurmlink_api_requests_total slurmlink_api_request_duration_seconds slurmlink_api_open_watches \
         slurmlink_slurm_job_poll_interval_seconds slurmlink_quota_recounts_total \
         slurmlink_quota_recount_pods_total slurmlink_job_views_total \
         slurmlink_storage_filesystem_used_bytes slurmlink_storage_filesystem_size_bytes \
         slurmlink_store_commits_total slurmlink_store_lock_acquisitions_total \
         slurmlink_store_lock_wait_seconds_total slurmlink_store_lock_held_seconds_total \
         slurmlink_store_drafts_total slurmlink_store_commit_seconds_total \
         slurmlink_store_group_commits_total slurmlink_store_grouped_writes_total; do
  grep -q "^# TYPE $f " <<<"$METRICS" || missing="$missing $f"
done
is "$missing" "" "every documented family is exposed"
like "$METRICS" $'\nslurmlink_pods\\{namespace="team-a",phase="Succeeded"\\} 2\n' "pods by namespace and phase in the text"
like "$METRICS" $'\nslurmlink_node_gpus\\{node="[^"]+"\\} 2\n' "the node's 2 GPUs"
like "$METRICS" $'\nslurmlink_node_gpus_allocated\\{node="[^"]+"\\} 0\n' "none allocated (the pods ask for none)"
like "$METRICS" $'\nslurmlink_storage_filesystem_size_bytes\\{storageclass="shared"\\} [1-9][0-9.e+]*\n' \
  "the filesystem of the default StorageClass's root (statfs)"
like "$METRICS" $'\nslurmlink_pod_submit_latency_seconds_count 4\n' "4 pods submitted: 4 create → job id latencies"
like "$METRICS" $'\nslurmlink_pod_status_latency_seconds_count 2\n' "2 containers exited: their status latencies"
like "$METRICS" $'\nslurmlink_slurm_rpc_duration_seconds_count\\{rpc="submit_batch_job"\\} 5\n' "5 submit_batch_job RPCs timed"
like "$METRICS" $'\nslurmlink_slurm_rpc_errors_total\\{rpc="submit_batch_job"\\} 1\n' "... one failed (the 5 GPUs)"
like "$METRICS" $'\nslurmlink_pod_submissions_total 5\n' "5 submissions"
like "$METRICS" $'\nslurmlink_pod_submission_failures_total 1\n' "... 1 failure"
# a gauge the controller sets at most once a node poll: a scrape may come
# before it counts the last pod's submission
queue_empty() { get /metrics "$TOKEN"; grep -qx 'slurmlink_submit_queue_length 0' <<<"$BODY"; }
ok wait_for 30 queue_empty "no pod waits for a submission"
gap=$(awk '$1 == "slurmlink_slurm_job_poll_interval_seconds" { print $2 }' <<<"$METRICS")
ok awk -v g="${gap:-x}" 'BEGIN { exit !(g ~ /^[0-9.e+-]+$/ && g >= 0.25 && g <= 5) }' \
  "the job poll's interval: the 250 ms period, or longer after a slow poll, at most 5 s (${gap:-none})"
like "$METRICS" $'\nslurmlink_api_requests_total\\{verb="create",resource="pods",subresource="",code="201"\\} 5\n' \
  "API requests by verb, resource and code (5 pod creates)"

# the store's locks: the writer's taken and held. A workload kind's pass
# (15 kinds: src/kinds/registry.c) reads its change log only when its
# resource changed and lists its objects only when it has some; it used to
# do both every pass of the controller, two reads per kind (27-30 a pass
# here). Only the default ClusterTrainingRuntime exists, and the pods'
# changes are read once a pass: fewer than 4 reads a pass in all.
value() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
like "$(value 'slurmlink_store_lock_acquisitions_total{lock="writer"}' "$METRICS")" '^[1-9][0-9.e+]*$' \
  "the store's writer lock was taken (slurmlink_store_lock_acquisitions_total)"
like "$(value 'slurmlink_store_lock_held_seconds_total{lock="writer"}' "$METRICS")" '^[0-9.e+-]+$' "... and held for a time"
dw=$(value 'slurmlink_store_drafts_total{outcome="written"}' "$METRICS")
dr=$(value 'slurmlink_store_drafts_total{outcome="redone"}' "$METRICS")
# the 4 job ids, and the pending views the job poll wrote (each drafted
# too, batch.c): at least 4, at most 4 more than the views applied
va=$(value 'slurmlink_job_views_total{result="applied"}' "$METRICS")
ok awk -v w="${dw:-x}" -v r="${dr:-x}" -v a="${va:-x}" 'BEGIN { d = w + r; exit !(w ~ /^[0-9]+$/ && a ~ /^[0-9]+$/ && d >= 4 && d <= 4 + a) }' \
  "each submitted pod's job id written from its worker's draft, and pending views: $dw as drafted, $dr made again ($va views applied)"
cs=$(value slurmlink_store_commit_seconds_total "$METRICS")
cn=$(value slurmlink_store_commits_total "$METRICS")
ok awk -v s="${cs:-x}" -v n="${cn:-x}" 'BEGIN { exit !(s ~ /^[0-9.e+-]+$/ && s > 0 && n > 0 && s / n < 1) }' \
  "the time in the store's commits is counted: $cs s over $cn commits"
gc=$(value slurmlink_store_group_commits_total "$METRICS")
gw=$(value slurmlink_store_grouped_writes_total "$METRICS")
ok awk -v c="${gc:-x}" -v w="${gw:-x}" 'BEGIN { exit !(c ~ /^[0-9]+$/ && w ~ /^[0-9]+$/ && w >= 2 * c) }' \
  "group commits and the creates they held: each group holds two or more ($gc groups, $gw creates)"
get /metrics "$TOKEN"
r0=$(value 'slurmlink_store_lock_acquisitions_total{lock="reader"}' "$BODY")
p0=$(value 'slurmlink_loop_passes_total{loop="jobs.batch"}' "$BODY")
sleep 5
get /metrics "$TOKEN"
r1=$(value 'slurmlink_store_lock_acquisitions_total{lock="reader"}' "$BODY")
p1=$(value 'slurmlink_loop_passes_total{loop="jobs.batch"}' "$BODY")
ok awk -v r0="$r0" -v r1="$r1" -v p0="$p0" -v p1="$p1" 'BEGIN { exit !(p1 - p0 >= 5 && r1 - r0 < 4 * (p1 - p0)) }' \
  "idle: fewer than 4 store reads ($r0 → $r1) a pass of the controller ($p0 → $p1)"

# --- who may read it -------------------------------------------------------------------------------
get /metrics "$BOBTOKEN"
is "$CODE" 403 "bob (no grant) gets 403"
is "$(status_of)" '403|Forbidden|forbidden: User "bob" cannot get path "/metrics"' "... kube-apiserver's Status"
get /metrics ''
is "$CODE" 401 "no credential: 401"
is "$(curl -sS --cacert "$CL/pki/ca.crt" -H "Authorization: Bearer $TOKEN" -X POST -o /dev/null -w '%{http_code}' "$SERVER/metrics")" \
  403 "the grant is for get only: the scraper's POST is 403"
like "$(ka create --raw /metrics -f /dev/null 2>&1)" 'MethodNotAllowed|method not allowed|does not allow this method' "an admin's POST is 405"

like "$(kc alice get --raw /metrics 2>&1)" 'Error from server \(Forbidden\)' "alice's certificate: kubectl get --raw /metrics is forbidden"
like "$(ka get --raw /metrics 2>&1)" $'# TYPE slurmlink_pods gauge' "the admin reads it with kubectl get --raw"

# --- open watches ---------------------------------------------------------------------------------
kubectl --kubeconfig "$CL/alice.kc" --cache-dir "$CL/cache-alice" get pods -w >/dev/null 2>&1 &
WATCHER=$! # kubectl itself (not a subshell), so that kill ends the watch
on_exit "kill $WATCHER"
watches_are() { get /metrics "$TOKEN"; grep -qx "slurmlink_api_open_watches $1" <<<"$BODY"; }
ok wait_for 30 watches_are 1 "kubectl get pods -w: slurmlink_api_open_watches 1"
kill $WATCHER; wait $WATCHER 2>/dev/null
ok wait_for 60 watches_are 0 "... 0 once the watch has ended"

# --- a real Prometheus scraping it ----------------------------------------------------------------
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
P=$CL/prometheus
mkdir -p "$P/data"
printf '%s' "$TOKEN" >"$P/token"
chmod 600 "$P/token"
cat >"$P/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: slurmlink
    scheme: https
    tls_config: {ca_file: $CL/pki/ca.crt}
    authorization: {type: Bearer, credentials_file: $P/token}
    static_configs: [{targets: ["$HOSTPORT"]}]
EOF
out=$(promtool check config "$P/prometheus.yml" 2>&1)
rc=$?
ok test $rc -eq 0 "promtool check config accepts the scrape configuration"
[ $rc -eq 0 ] || diag "$out"
PPORT= PROM=
for try in 1 2 3; do
  PPORT=$(free_port)
  prometheus --config.file="$P/prometheus.yml" --storage.tsdb.path="$P/data" \
    --web.listen-address="127.0.0.1:$PPORT" >"$P/log" 2>&1 &
  PROM=$!
  on_exit "kill $PROM; wait $PROM"
  listening() { curl -sf "http://127.0.0.1:$PPORT/-/ready"; }
  wait_for 60 listening && break
  kill $PROM 2>/dev/null; wait $PROM 2>/dev/null; PROM=
done
[ -n "$PROM" ] || { tail -n 20 "$P/log" | sed 's/^/# /'; bail "Prometheus did not start"; }
query() { curl -sf "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1"; }
up() { query 'up{job="slurmlink"}' | jq -e '.data.result[0].value[1] == "1"'; }
ok wait_for 60 up "Prometheus scrapes slurmlinkd over HTTPS with the token: target up"
[ -n "$(query 'up{job="slurmlink"}' | jq -r '.data.result[0].value[1]' | grep -x 1)" ] ||
  query 'up' | sed 's/^/# /'
# pod counts by phase through PromQL, against what kubectl shows now
promq() {
  query 'sum by (namespace, phase) (slurmlink_pods)' |
    jq -r '.data.result[] | "\(.metric.namespace)/\(.metric.phase)=\(.value[1])"' | sort | tr '\n' ' '
}
kubectl_view() {
  ka get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.status.phase}{"\n"}{end}' |
    sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' '
}
same() { [ "$(promq)" = "$(kubectl_view)" ] && [ -n "$(promq)" ]; }
wait_for 30 same
is "$(promq)" "$(kubectl_view)" "PromQL: pods by namespace and phase equal kubectl's"
is "$(promq)" "team-a/Running=1 team-a/Succeeded=2 team-b/Failed=1 team-b/Running=1 " \
  "... which is 1 Running and 2 Succeeded in team-a, 1 Running and 1 Failed in team-b"
ka delete pod runs -n team-a --wait=false >/dev/null
gone() { [ "$(query 'sum(slurmlink_pods{namespace="team-a",phase="Running"})' | jq -r '.data.result[0].value[1] // "0"')" = 0 ]; }
ok wait_for 120 gone "a deleted pod leaves the count (PromQL: team-a Running 0)"
# nothing of Prometheus is left behind
kill $PROM; wait $PROM 2>/dev/null
ok proc_gone $PROM "Prometheus stopped"
