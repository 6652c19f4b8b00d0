#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-attach-tty.t — containers with tty: true on a real Slurm cluster, driven
# by a real kubectl under a pseudo-terminal (t/76-attach-tty.py): the shim
# gives the container a pty, `kubectl attach -it` types into it and sees its
# answers, the terminal's size (at the start and after a resize) is the
# container's (`stty size`), `kubectl logs` has the session, the Python
# client's attach with tty=True works too, `kubectl run -it --rm` gives a
# prompt and `exit` ends and removes the pod, attach -t to a container without
# a tty gets kubectl's own refusal of the tty. Also kubectl exec -t's resize
# sent while srun still waits for slurmstepd (slurmd held with SIGSTOP): the
# command sees the size, srun loses neither it nor its resize thread.
source "$(dirname "$0")/lib.sh"
plan 19

cluster_up --gpus 0 --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
KC="kubectl --cache-dir $CL/kcache"
DRIVE="/usr/bin/python3 $(dirname "$0")/76-attach-tty.py"
phase() { kc get pod "$1" -o jsonpath='{.status.phase}'; }
ttypod() { # name command...: a container with stdin and tty, as kubectl run -it makes it
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
    tty: true
    command: [$2]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}

# --- attach -it: typed commands, the terminal's size, a resize ------------------------------
warn=$(ttypod t1 sh | kc apply -f - 2>&1 >/dev/null)
unlike "$warn" "(stdin|tty) is ignored" "the pod's stdin and tty are not warned about as ignored" || diag "$warn"
ok wait_for 120 running t1 "a pod with stdin: true, tty: true runs sh"
out=$($DRIVE 33 111 'send \r
send echo "ans-$((6*7))"; tty; echo "term-$TERM"\r
expect ans-42
expect /dev/pts/[0-9]+
expect term-xterm
send stty size\r
expect (?m)^33 111
size 40 132
send sleep 1; stty size\r
expect (?m)^40 132
send echo "session-$((5*5))"\r
expect session-25' -- $KC attach -it t1 2>&1)
like "$out" "matched: ans-42" "attach -it: a typed command runs in the container's shell and its answer comes back" || diag "$out"
like "$out" "matched: /dev/pts/[0-9]+" "... its stdin is a terminal (tty names a pty)"
like "$out" "matched: term-xterm" "... TERM=xterm, as the kubelet's runtime sets it"
like "$out" "matched: 33 111" "stty size in the container: the size of kubectl's terminal (33 rows, 111 columns)"
like "$out" "matched: 40 132" "a resize of kubectl's terminal reaches the container (stty size: 40 132)"
is "$(phase t1)" Running "the shell still runs after kubectl attach goes"
ok wait_for 60 sh -c "$KC logs t1 | grep -q '^session-25'" "kubectl logs has the session's output (the pty's output is the log's stdout)"
is "$(kc logs t1 | grep -x 'session-25')" session-25 "... as lines, without the terminal's carriage returns"

# --- the Python client's attach with tty=True -----------------------------------------------
py=$(timeout 180 /usr/bin/python3 - <<'PY' 2>&1
import time
from kubernetes import client, config
from kubernetes.stream import stream
config.load_kube_config()
r = stream(client.CoreV1Api().connect_get_namespaced_pod_attach, 't1', 'default', stdout=True,
           stderr=False, stdin=True, tty=True, _preload_content=False)
r.write_channel(4, '{"Width":123,"Height":45}')
r.write_stdin('echo "py-$((6*7))"; stty size\n')
out, end = "", time.time() + 120
while time.time() < end and r.is_open():
    r.update(timeout=0.5)
    out += r.read_stdout() if r.peek_stdout() else ""
    if "py-42" in out and "45 123" in out:
        break
print("py", repr(out))
r.close()
PY
)
like "$py" "py-42" "the Python client's attach with tty=True: a command typed into the pty runs"
like "$py" "45 123" "... and its resize message sets the container's terminal size"

# --- attach -t to a container without a tty ---------------------------------------------------
cat <<YAML | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: n1}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'i=0; while [ \$i -lt 600 ]; do echo plain-\$i; i=\$((i+1)); sleep 1; done']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
wait_for 120 running n1
out=$($DRIVE 24 80 'expect Unable to use a TTY - container main did not allocate one
expect plain-[0-9]+' -- $KC attach -it n1 2>&1)
like "$out" "matched: Unable to use a TTY - container main did not allocate one" "attach -t to a container without tty: true: kubectl's own message" || diag "$out"
like "$out" "matched: plain-[0-9]+" "... and its output streams as before"
kc delete pod n1 --wait=false >/dev/null

# --- kubectl run -it --rm ---------------------------------------------------------------------
ov='{"spec":{"containers":[{"name":"r1","image":"busybox","stdin":true,"stdinOnce":true,"tty":true,"command":["sh"],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}'
run_script='expect If you don.t see a command prompt
send \r
expect [$#] 
send echo "run-$((7*6))"\r
expect run-42
send exit\r
wait'
out=$($DRIVE 24 80 "$run_script" -- $KC run -it --rm r1 --image=busybox --restart=Never --overrides="$ov" 2>&1)
like "$out" "matched: run-42" "kubectl run -it --rm: a prompt comes, a typed command runs" || diag "$out"
like "$out" "exit 0" "... exit ends the shell and kubectl run exits 0"
ok wait_for 120 sh -c "! $KC get pod r1 >/dev/null 2>&1" "... and --rm removes the pod"

# --- exec -t: a resize while srun waits for slurmstepd ----------------------------------------
kc delete pod t1 --wait=false >/dev/null
cat <<YAML | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: e1}
spec:
  containers:
  - name: main
    image: busybox
    command: [sleep, '3600']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
wait_for 120 running e1
spid=$(cat "$CL/run/slurmd.daemon.pid")
on_exit "kill -CONT $spid"
py=$(timeout 240 /usr/bin/python3 - "$spid" "$(sed -n 's/^SlurmdPort=//p' "$SLURM_CONF")" <<'PY' 2>&1
import array, fcntl, os, re, subprocess, sys, termios, time
from kubernetes import client, config
from kubernetes.stream import stream
slurmd, port = int(sys.argv[1]), sys.argv[2]
config.load_kube_config()

def until(what, f, t=120):
    end = time.time() + t
    while time.time() < end:
        v = f()
        if v:
            return v
        time.sleep(0.05)
    raise SystemExit("timeout: " + what)

def srun():  # this session's srun, once it talks to the (stopped) slurmd
    for p in os.listdir("/proc"):
        try:
            a = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if a and a[0].endswith(b"srun") and b"--pty" in a and any(b"/e1-" in x for x in a):
            ss = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True).stdout
            if any(f"pid={p}," in l and re.search(f":{port}\\s", l) for l in ss.splitlines()):
                return int(p)
    return None

os.kill(slurmd, 19)  # SIGSTOP: the step cannot start; srun has read its size and waits
try:
    r = stream(client.CoreV1Api().connect_get_namespaced_pod_exec, 'e1', 'default', command=['sh'],
               stdin=True, stdout=True, stderr=False, tty=True, _preload_content=False)
    pid = until("srun connects to slurmd", srun)
    r.write_channel(4, '{"Width":123,"Height":45}')
    r.write_stdin('i=0; while [ "$(stty size)" = "24 80" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; echo "size:$(stty size)"; exit\n')
    slave = os.open(os.readlink(f"/proc/{pid}/fd/0"), os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    def typed():  # slurmlinkd has written the stdin bytes, so it has read the resize before them
        n = array.array("i", [0])
        fcntl.ioctl(slave, termios.FIONREAD, n)
        return n[0] > 0
    until("the typed line reaches srun's terminal", typed)
    os.close(slave)  # the pty's one opener left is the step's: its master ends when the command does
finally:
    os.kill(slurmd, 18)  # SIGCONT
r.run_forever(timeout=180)
print("out", repr(r.read_stdout()))
PY
)
like "$py" "size:45 123" "exec -t: a resize sent while srun waits for slurmstepd reaches the command (stty size 45 123)" || diag "$py"
unlike "$py" "accept failure" "... and srun's resize thread survives it (no 'pty: accept failure')"
