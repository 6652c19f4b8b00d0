#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-attach.t — kubectl attach (and the Python client's attach) to a running
# container on a real Slurm cluster: its output from the moment of the
# attach, stdout and stderr apart, across its end; a container with
# stdin: true reads what attach -i sends (stdinOnce: to its end, after the
# first attach; without it, from several attaches in turn), also through
# `kubectl run -i --rm`; without stdin: true attach -i says its stdin is
# not open; a finished pod is refused; an Event is recorded.
source "$(dirname "$0")/lib.sh"
plan 23

cluster_up --gpus 0 --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
GO=/tmp/slx-attach-$$
on_exit "rm -f $GO-*"
pod() { # name: prints three lines to each stream once $GO-name exists
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/tmp: node}} # the test touches its go-files in the node's /tmp
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'echo before; while [ ! -e $GO-$1 ]; do sleep 0.1; done; for i in 1 2 3; do echo out\$i; echo err\$i >&2; done']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
# the helper runs (srun has started the step) and has the container's log
# open (it follows it from its end)
attached() {
  local p
  for p in $(pgrep -f "slurmlink-shim attach --pod-dir=.*/$1-"); do
    ls -l "/proc/$p/fd" 2>/dev/null | grep -q '/logs/.*\.log$' && return 0
  done
  return 1
}

pod a1 | kc apply -f - >/dev/null
ok wait_for 60 running a1 "a pod runs"
kc attach a1 >"$CL/a1.out" 2>"$CL/a1.err" &
p=$!
wait_for 30 attached a1
touch "$GO-a1"
ok wait_for 60 proc_gone "$p" "kubectl attach ends when the container ends"
wait "$p"; rc=$?
is "$rc" 0 "... with exit status 0"
is "$(cat "$CL/a1.out")" "out1
out2
out3" "stdout: the lines written after the attach (not 'before'), in order"
is "$(grep -v "If you don't see a command prompt" "$CL/a1.err")" "err1
err2
err3" "stderr: apart from stdout"

pod a2 | kc apply -f - >/dev/null
wait_for 60 running a2
(wait_for 30 attached a2; touch "$GO-a2") &
out=$(echo typed | kc attach -i a2 2>&1)
like "$out" "slurmlink: attach streams the container's output only: its spec has no stdin: true, so its stdin is not open" "attach -i to a container without stdin: true says its stdin is not open"

pod a3 | kc apply -f - >/dev/null
wait_for 60 running a3
py=$(/usr/bin/python3 - "$GO-a3" <<'PY' 2>&1
import sys, threading, time
from kubernetes import client, config
from kubernetes.stream import stream
config.load_kube_config()
r = stream(client.CoreV1Api().connect_get_namespaced_pod_attach, 'a3', 'default', stdout=True, stderr=True,
           stdin=False, tty=False, _preload_content=False)
def go():  # once the helper has the container's log open (as the shell's attached() waits)
    import os, subprocess
    def reading():
        pids = subprocess.run(['pgrep', '-f', 'slurmlink-shim attach --pod-dir=.*/a3-'], capture_output=True, text=True).stdout.split()
        for p in pids:
            try:
                if any(os.readlink(f"/proc/{p}/fd/{fd}").endswith(".log") and "/logs/" in os.readlink(f"/proc/{p}/fd/{fd}")
                       for fd in os.listdir(f"/proc/{p}/fd")):
                    return True
            except OSError:
                pass
        return False
    for _ in range(300):
        if reading():
            break
        time.sleep(0.1)
    open(sys.argv[1], 'w').close()
threading.Thread(target=go).start()
r.run_forever(timeout=60)
print("py", repr(r.read_stdout()), repr(r.read_stderr()))
PY
)
like "$py" "py 'out1\\\\nout2\\\\nout3\\\\n' 'err1\\\\nerr2\\\\nerr3\\\\n'" "the Python client's attach gets both streams"

ok wait_for 60 sh -c "[ \"\$(kubectl --cache-dir $CL/kcache get pod a1 -o jsonpath='{.status.phase}')\" = Succeeded ]" "the first pod has finished"
like "$(kc attach a1 2>&1)" "cannot attach a container in a completed pod; current phase is Succeeded" "attach to a finished pod is refused"

reader() { # name, stdinOnce, command: a container that reads its stdin
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    stdin: true
    stdinOnce: $2
    command: [sh, -c, '$3']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}'; }

reader a4 true 'cat; echo cat-ended' | kc apply -f - >/dev/null
ok wait_for 60 running a4 "a pod with stdin: true, stdinOnce: true runs cat"
out=$(printf 'hello\nworld\n' | timeout 120 kubectl --cache-dir "$CL/kcache" attach -i a4 2>&1)
like "$out" "hello" "echo hello | kubectl attach -i: cat's output comes back"
ok wait_for 60 sh -c "[ \"\$(kubectl --cache-dir $CL/kcache get pod a4 -o jsonpath='{.status.phase}')\" = Succeeded ]" "stdinOnce: the first attach's end closes stdin, cat ends and the pod Succeeds"
is "$(kc logs a4)" "hello
world
cat-ended" "its log has what attach sent, then cat's end"

reader a6 true 'wc -c' | kc apply -f - >/dev/null
ok wait_for 60 running a6 "a pod with stdin: true, stdinOnce: true runs wc -c"
head -c 1048576 /dev/zero | timeout 120 kubectl --cache-dir "$CL/kcache" attach -i a6 >/dev/null 2>&1
wait_for 60 sh -c "[ \"\$(kubectl --cache-dir $CL/kcache get pod a6 -o jsonpath='{.status.phase}')\" = Succeeded ]"
is "$(kc logs a6 | tr -d ' ')" 1048576 "1 MiB through attach -i reaches the container whole"

reader a5 false 'while read l; do echo got:$l; done; echo ended' | kc apply -f - >/dev/null
ok wait_for 60 running a5 "a pod with stdin: true (no stdinOnce) runs a reader"
has_log() { kc logs "$1" 2>/dev/null | grep -qx "$2"; }
echo one | kubectl --cache-dir "$CL/kcache" attach -i a5 >/dev/null 2>&1 &
p=$! # kubectl itself: this attach's stdin ends at once, the container's stays open
ok wait_for 60 has_log a5 got:one "the first attach's line is read"
d5=$(ps -eo args | grep -o "[s]lurmlink-shim attach --pod-dir=[^ ]*/a5-[^ ]*" | head -1); d5=${d5#*--pod-dir=}
is "$(stat -c '%F %a' "$d5/stdin-main.fifo" 2>&1) $( [ "$(stat -c %u "$d5/stdin-main.fifo")" = "$(stat -c %u "$d5")" ] && [ "$(stat -c %u "$d5")" != 0 ] && echo pod-user)" "fifo 600 pod-user" "the container's stdin is a fifo of mode 0600 in the pod folder, owned by the pod's (non-root) user"
kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
echo two | kubectl --cache-dir "$CL/kcache" attach -i a5 >/dev/null 2>&1 &
p=$!
ok wait_for 60 has_log a5 got:two "without stdinOnce stdin stays open: a second attach's line is read too"
kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
is "$(phase a5)" Running "... and the reader still runs (its stdin was not closed)"
kc delete pod a5 --wait=false >/dev/null

reader a7 false 'while read l; do echo got:$l; done' | kc apply -f - >/dev/null
ok wait_for 60 running a7 "a reader for the Python client runs"
py=$(timeout 120 /usr/bin/python3 - <<'PY' 2>&1
import time
from kubernetes import client, config
from kubernetes.stream import stream
config.load_kube_config()
r = stream(client.CoreV1Api().connect_get_namespaced_pod_attach, 'a7', 'default', stdout=True, stderr=True,
           stdin=True, tty=False, _preload_content=False)
r.write_stdin("from-python\n")
out = ""
for _ in range(600):
    r.update(timeout=0.1)
    out += r.read_stdout() if r.peek_stdout() else ""
    if "got:from-python" in out:
        break
print("py", repr(out))
r.close()
PY
)
like "$py" "py 'got:from-python" "the Python client's attach with stdin=True writes to the container and reads its answer"
kc delete pod a7 --wait=false >/dev/null

out=$(echo hi | timeout 180 kubectl --cache-dir "$CL/kcache" run -i --rm r1 --image=busybox --restart=Never --overrides='{"spec":{"containers":[{"name":"r1","image":"busybox","stdin":true,"stdinOnce":true,"command":["cat"],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}' 2>&1)
is "$(printf '%s\n' "$out" | grep -x hi)" hi "echo hi | kubectl run -i --rm ... cat: hi comes back"
