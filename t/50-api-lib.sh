# 50-api-lib.sh — helpers for the API tests (t/50-53): a private slurmlinkd
# on a free loopback port, plain HTTP, no Slurm.
#   source "$(dirname "$0")/50-api-lib.sh"
#   api_up [daemon options]    (API_WRAP="valgrind ..." runs the daemon under a tool;
#                               API_SCHEME=https API_CURL_OPTS="--cacert F" API_CA=F for TLS)    → $API (base URL), $AD (folder), KUBECONFIG, k()
#   req METHOD PATH [curl args] → sets $CODE and $BODY (and $HDRS)
#   jqr FILTER                  → jq -r FILTER on $BODY
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBECTL=${KUBECTL:-kubectl}
PY=/usr/bin/python3

free_port() {
  $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# api_start DIR [options]: start slurmlinkd with its state in DIR/state;
# sets API_PID and API. The daemon's stderr goes to DIR/daemon.log.
api_start() {
  local dir=$1; shift
  local port
  port=$(free_port)
  # shellcheck disable=SC2086 # API_WRAP: a command prefix such as valgrind
  ${API_WRAP:-} "$SLURMLINKD" --listen 127.0.0.1 --port "$port" --state-dir "$dir/state" "$@" \
    >>"$dir/daemon.log" 2>&1 &
  API_PID=$!
  API=${API_SCHEME:-http}://127.0.0.1:$port
  API_PORT=$port
  local i
  for i in $(seq 1 ${API_START_TRIES:-100}); do
    # shellcheck disable=SC2086 # API_CURL_OPTS: e.g. --cacert FILE for HTTPS
    curl -sf ${API_CURL_OPTS:-} "$API/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$API_PID" 2>/dev/null || break
    sleep 0.1
  done
  diag "slurmlinkd did not come up:"; sed 's/^/#   /' "$dir/daemon.log"
  return 1
}

# api_stop: SIGTERM, wait; returns the daemon's exit status.
api_stop() {
  [ -n "${API_PID:-}" ] || return 0
  kill -TERM "$API_PID" 2>/dev/null
  local rc=0
  wait "$API_PID" || rc=$?
  API_PID=
  return $rc
}

api_up() {
  AD=$(tmpdir)
  on_exit "api_stop; rm -rf '$AD'"
  api_start "$AD" "$@" || return 1
  cat >"$AD/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- cluster: {server: "$API"${API_CA:+, certificate-authority: "$API_CA"}}
  name: t
contexts:
- context: {cluster: t, user: u, namespace: default}
  name: t
current-context: t
users:
- name: u
  user: {${API_TOKEN:+token: "$API_TOKEN"}}
EOF
  export KUBECONFIG=$AD/kubeconfig
}

# k [kubectl args]: kubectl (or $KUBECTL) with a private discovery cache
k() { "$KUBECTL" --cache-dir "$AD/cache-$(basename "$KUBECTL")" "$@"; }

# req METHOD PATH [curl args...]: $CODE, $BODY, $HDRS
req() {
  local m=$1 p=$2; shift 2
  local out
  out=$(curl -s -X "$m" -D "$AD/hdrs" -o "$AD/body" -w '%{http_code}' "$@" "$API$p")
  CODE=$out
  BODY=$(cat "$AD/body")
  HDRS=$(tr -d '\r' <"$AD/hdrs")
}
# post/put/patch helpers with JSON bodies
jpost() { req POST "$1" -H 'Content-Type: application/json' --data-binary "$2" "${@:3}"; }
jput() { req PUT "$1" -H 'Content-Type: application/json' --data-binary "$2" "${@:3}"; }
jpatch() { req PATCH "$1" -H "Content-Type: $2" --data-binary "$3" "${@:4}"; }
jqr() { printf '%s' "$BODY" | jq -r "$1"; }

# status_is CODE REASON MESSAGE DESC: the last reply is that exact Status
status_is() {
  local got
  got=$(printf '%s' "$BODY" | jq -r '[.kind, .status, (.code|tostring), .reason, .message] | join("|")' 2>/dev/null)
  is "$CODE|$got" "$1|Status|Failure|$1|$2|$3" "$4"
}

pod_json() { # name [extra spec json]
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":{"app":"t"}},"spec":{"containers":[{"name":"main","image":"busybox"}]%s}}' "$1" "${2:-}"
}

# set_status NS NAME JSON: what the lifecycle controller does (merge patch on /status)
set_status() {
  curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
    --data-binary "{\"status\":$3}" "$API/api/v1/namespaces/$1/pods/$2/status" >/dev/null
}

# cri_log NS NAME CONTAINER RESTART LINE...: append CRI lines to the pod's log file
cri_log() {
  local ns=$1 name=$2 c=$3 n=$4; shift 4
  local uid
  uid=$(curl -sf "$API/api/v1/namespaces/$ns/pods/$name" | jq -r .metadata.uid)
  local d=$AD/state/pods/$ns/$name-$uid/logs/$c
  mkdir -p "$d"
  local l
  for l in "$@"; do printf '%s\n' "$l" >>"$d/$n.log"; done
}

now_rfc3339() { date -u +%Y-%m-%dT%H:%M:%SZ; }
