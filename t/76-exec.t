#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-exec.t — kubectl exec and cp into running pods on a real Slurm cluster
# (HTTPS, tenants as real Unix users): the command runs inside the
# container (charliecloud: the image's files, not the node's; host: the
# node's), as the pod's user, with its env and working directory; exit
# codes, the kubelet's text for a missing command, stdin, a tty (and its
# resize through the Python client), cp both ways, two execs at once,
# kubectl 1.30/1.32/1.33 and the Python client's stream(); refusals: a
# reader of the namespace (403), a finished pod, an unknown container; the
# log line and the Event; an exec ends with its pod.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 31

sec_users || bail "Unix users for the test"
sec_cluster --cert --gpus 0 --cpus 4 <<EOF || bail "slurmlink up, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  team-a: {write: {users: [alice]}, read: {users: [bob]}}
  team-b: {write: {users: [bob]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
ka create namespace team-a >/dev/null
ka create namespace team-b >/dev/null
KBIN=/usr/lib/google-cloud-sdk/bin
pod() { # name command [annotations]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {${3:-}}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "$2"]
    workingDir: /etc
    env: [{name: FOO, value: "b a r"}]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
running() { [ "$(kc alice get pod "$1" -o jsonpath='{.status.phase}')" = Running ]; }
pod cc 'sleep 600' | kc alice apply -f - >/dev/null
pod hp 'sleep 600' 'slurmlink.io/runtime: host' | kc alice apply -f - >/dev/null
pod done1 'true' | kc alice apply -f - >/dev/null
ok wait_for 60 running cc "the charliecloud pod runs"
ok wait_for 60 running hp "the host-runtime pod runs"

# --- inside the container, with each kubectl -------------------------------------------
for v in 1.30 1.32 1.33; do
  out=$("$KBIN/kubectl.$v" --kubeconfig "$CL/alice.kc" --cache-dir "$CL/cache-$v" exec cc -- \
        sh -c 'test -x /bin/busybox && ! test -e /etc/debian_version && echo "image $FOO $(id -u) $(pwd)"' 2>&1)
  is "$out" "image b a r $UIDA /etc" "kubectl $v: exec sees the image's files (not the node's), the container's env, the pod's user, its workingDir"
done
out=$(kc alice exec hp -- sh -c 'test -e /etc/debian_version && echo "node $(id -u) $(pwd)"' 2>&1)
is "$out" "node $UIDA /etc" "host runtime: the node's files, the pod's user, its workingDir"

# --- exit codes, a missing command --------------------------------------------------------
out=$(kc alice exec cc -- sh -c 'echo out; echo err >&2; exit 3' 2>&1); rc=$?
is "$rc" 3 "a command exiting 3: kubectl exits 3"
is "$(printf '%s\n' "$out" | sort)" "command terminated with exit code 3
err
out" "stdout, stderr and kubectl's exit-code line, nothing else (no line of srun's)"
kc alice exec cc -- true; is "$?" 0 "a command exiting 0: kubectl exits 0"
out=$(kc alice exec cc -- nosuchcmd 2>&1); rc=$?
is "$out" 'error: Internal error occurred: error executing command in container: OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in $PATH: unknown' "a missing command: the kubelet's text"
is "$rc" 1 "... and kubectl exits 1"

# --- stdin, tty, cp ---------------------------------------------------------------------------
is "$(printf 'hi\nthere\n' | kc alice exec -i cc -- cat)" "hi
there" "stdin reaches the command (echo | kubectl exec -i -- cat) and ends"
out=$(script -qec "kubectl --kubeconfig $CL/alice.kc --cache-dir $CL/cache-alice exec -it cc -- sh -c '[ -t 0 ] && [ -t 1 ] && echo TTY-YES'" /dev/null </dev/null 2>&1)
like "$out" "TTY-YES" "kubectl exec -t: the command has a terminal"
head -c 1048576 /dev/urandom >"$CL/blob"
kc alice cp "$CL/blob" cc:/tmp/blob-$$ >/dev/null 2>&1
kc alice cp cc:/tmp/blob-$$ "$CL/blob.back" >/dev/null 2>&1
ok cmp -s "$CL/blob" "$CL/blob.back" "kubectl cp in and out: 1 MiB comes back byte for byte"
is "$(kc alice exec cc -- sh -c "wc -c < /tmp/blob-$$")" 1048576 "... and is in the container at its size"
rm -f "/tmp/blob-$$"

# --- the Python client's stream() ----------------------------------------------------------
py=$(/usr/bin/python3 - "$CL/alice.kc" <<'PY' 2>&1
import sys, time
from kubernetes import client, config
from kubernetes.stream import stream
config.load_kube_config(config_file=sys.argv[1])
v = client.CoreV1Api()
r = stream(v.connect_get_namespaced_pod_exec, 'cc', 'team-a', command=['sh', '-c', 'echo o; echo e >&2; exit 3'],
           stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
r.run_forever(timeout=60)
print("exit", r.returncode, repr(r.read_stdout()), repr(r.read_stderr()))
r = stream(v.connect_get_namespaced_pod_exec, 'cc', 'team-a', command=['sh'],
           stderr=False, stdin=True, stdout=True, tty=True, _preload_content=False)
r.write_channel(4, '{"Width":123,"Height":45}')
r.write_stdin("sleep 1; stty size; exit 0\n")
r.run_forever(timeout=60)
print("tty", r.returncode, "size" if "45 123" in r.read_stdout() else "nosize")
PY
)
like "$py" "exit 3 'o\\\\n' 'e\\\\n'" "Python stream(): stdout and stderr apart, returncode 3"
like "$py" "tty 0 size" "Python stream() with a tty: a resize message sets the terminal's size (stty size: 45 123)"

# --- two at once ---------------------------------------------------------------------------
go=/tmp/slx-go-$$
kc alice exec cc -- sh -c "i=0; while [ ! -e $go ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done; test -e $go && echo first" >"$CL/first.out" 2>&1 &
p1=$!
wait_for 30 pgrep -f "^sh -c i=0; while \[ ! -e $go " # the first's shell runs in the container
is "$(kc alice exec cc -- sh -c "touch $go && echo second")" second "a second exec runs while the first waits for it"
wait "$p1"
is "$(cat "$CL/first.out")" first "... and the first sees what the second did"
rm -f "$go"

# --- refusals ------------------------------------------------------------------------------
ok kc bob get pod cc -n team-a "bob reads team-a"
out=$(kc bob exec cc -n team-a -- true 2>&1)
like "$out" "pods \"cc\" is forbidden: User \"bob\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"team-a\"" "a reader of the namespace cannot exec (403, kube's text)"
out=$(kc alice exec cc -c nope -- true 2>&1)
like "$out" "container nope is not valid for pod cc" "an unknown container: kube's text"
ok wait_for 60 sh -c "[ \"\$(kubectl --kubeconfig $CL/alice.kc --cache-dir $CL/cache-alice get pod done1 -o jsonpath='{.status.phase}')\" = Succeeded ]" "a pod that finished"
out=$(kc alice exec done1 -- true 2>&1)
like "$out" "cannot exec into a container in a completed pod; current phase is Succeeded" "exec into a finished pod: kube's text (kubectl)"
# the server's own check, for a client that does not make kubectl's: curl
# with alice's certificate and the WebSocket handshake
kcv() { kubectl config view --raw --kubeconfig "$CL/alice.kc" -o jsonpath="{$1}"; }
kcv '.users[0].user.client-certificate-data' | base64 -d >"$CL/a.crt"
kcv '.users[0].user.client-key-data' | base64 -d >"$CL/a.key"
kcv '.clusters[0].cluster.certificate-authority-data' | base64 -d >"$CL/a.ca"
srv=$(curl -s --cacert "$CL/a.ca" --cert "$CL/a.crt" --key "$CL/a.key" -H 'Connection: Upgrade' \
  -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \
  -H 'Sec-WebSocket-Protocol: v5.channel.k8s.io' -w ' %{http_code}' \
  "$(kcv '.clusters[0].cluster.server')/api/v1/namespaces/team-a/pods/done1/exec?command=true&stdout=true")
like "$srv" "\"message\":\"cannot exec into a container in a completed pod; current phase is Succeeded\".* 400$" "... and the server's own answer (400) to a client that does not check"

# --- log, Event ----------------------------------------------------------------------------
like "$(cat "$CL/log/slurmlinkd.log")" "exec: user alice, pod team-a/cc, container main, job [0-9]+: sh -c" "each exec is logged: who, pod, container, job, command"
ev=$(ka get events -n team-a --field-selector involvedObject.name=cc,reason=Exec -o jsonpath='{.items[*].message}')
like "$ev" "alice ran sh -c" "each exec is an Event of the pod (reason Exec)"
ok test -z "$(ls "$CL/pods/team-a/"cc-*/exec-*.status 2>/dev/null)" "the helpers' status files are gone after the sessions"

# --- an exec outlives neither its pod nor its job -----------------------------------------
pod short 'sleep 600' | kc alice apply -f - >/dev/null
wait_for 60 running short
kc alice exec short -- sleep 500 >/dev/null 2>&1 &
p2=$!
on_exit "kill $p2"
wait_for 30 sh -c "ps -eo args | grep -q '[s]leep 500'"
ok sh -c "ps -eo args | grep -q '[s]leep 500'" "an exec's command runs (sleep 500)"
kc alice delete pod short --grace-period=1 >/dev/null 2>&1 &
# kc is a function: $! is its subshell, the kubectl under it is what must go
on_exit "pkill -f '$CL/cache-alice delete pod short'"
ok wait_for 90 proc_gone "$p2" "deleting the pod ends kubectl exec"
ok wait_for 60 sh -c "! ps -eo args | grep -q '[s]leep 500'" "... and the command with it"
