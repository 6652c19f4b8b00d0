#!/bin/bash
# covers: src/translate/ src/pod/
# 30-translate-run: rendered pods really run (no Slurm needed): render
# --write lays out the pod folder, bash runs job.sh, slurmlink-shim runs the
# containers with charliecloud and on the host. Checks init containers,
# emptyDir, configMap, secret and downward API files, $(VAR) expansion, and
# that hostile argument and env bytes reach the process unchanged.
source "$(dirname "$0")/lib.sh"
plan 9
W=$(mktemp -d /tmp/sl-run.XXXXXX)
trap 'rm -rf "$W"' EXIT
export USER=${USER:-$(id -un)}
STORE=$W/store
"$SLURMLINK" image import busybox --busybox --store "$STORE" >/dev/null 2>&1
is "$?" 0 "busybox image imported"
# mount points the image has (charliecloud cannot create them read-only)
mkdir -p "$STORE/busybox+latest/srv/work" "$STORE/busybox+latest/srv/cfg" \
         "$STORE/busybox+latest/srv/info" "$STORE/busybox+latest/srv/sec"
render() { "$SLURMLINK" render --write --shim "$ROOT/build/slurmlink-shim" --pods-root "$W/pods" \
             --image-store "$STORE" "$@"; }
logs() { cat "$1"/logs/"$2"/0.log | sed 's/^[^ ]* [a-z]* [FP] //'; }

cat > "$W/ch.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: ch, uid: 44444444-0000-0000-0000-000000000001, labels: {app: run}}
spec:
  restartPolicy: Never
  initContainers:
  - name: prep
    image: busybox
    command: [sh, -c, 'echo prepared > /srv/work/ready']
    volumeMounts: [{name: work, mountPath: /srv/work}]
  containers:
  - name: main
    image: busybox
    command: [sh, -c]
    args: ['cat /srv/work/ready; cat /srv/cfg/greeting; echo; cat /srv/info/labels; echo; cat /srv/sec/pw; echo; echo "$MSG"; echo "$(PREFIX)"']
    env:
    - {name: PREFIX, value: pre}
    - {name: MSG, value: "it's \"$(PREFIX)\" `x` $(id) $$HOME"}
    volumeMounts:
    - {name: work, mountPath: /srv/work}
    - {name: cfg, mountPath: /srv/cfg}
    - {name: info, mountPath: /srv/info}
    - {name: sec, mountPath: /srv/sec}
  volumes:
  - {name: work, emptyDir: {}}
  - {name: cfg, configMap: {name: c}}
  - {name: sec, secret: {secretName: s}}
  - {name: info, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {greeting: hello from a configmap}}
---
{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {pw: czNjcjN0}}
EOF
render "$W/ch.yaml" >/dev/null 2>"$W/err"
is "$?" 0 "charliecloud pod renders and is written"
D=$W/pods/default/ch-44444444-0000-0000-0000-000000000001
is "$(stat -c %a "$D/volumes/sec/pw")" 600 "secret file is 0600"
(cd "$D" && timeout 120 bash job.sh >/dev/null 2>&1)
is "$?" 0 "job.sh runs the pod to success"
is "$(logs "$D" main)" "prepared
hello from a configmap
app=\"run\"
s3cr3t
it's \"pre\" \`x\` \$(id) \$HOME
pre" "init container, volumes, downward API and \$(VAR) rules seen from the container"

# host runtime: every byte of argv and env reaches the process
python3 - "$W/host.yaml" <<'PY'
import json, sys
evil = ["a'b", 'c"d', "$(touch /tmp/sl-run-pwned)", "`id`", "x;y", "l1\nl2", " lead", "tab\tx", "ü€"]
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "host", "uid": "44444444-0000-0000-0000-000000000002",
                    "annotations": {"slurmlink.io/runtime": "host"}},
       "spec": {"restartPolicy": "Never", "containers": [{
           "name": "main", "command": ["/usr/bin/python3", "-c",
               "import sys,os,json; print(json.dumps([sys.argv[1:], os.environ['EVIL']]))"],
           "args": evil, "env": [{"name": "EVIL", "value": "'; $(id) `id` \"\n\\"}]}]}}
json.dump(pod, open(sys.argv[1], "w"))
json.dump([evil, "'; $(id) `id` \"\n\\"], open(sys.argv[1] + ".want", "w"))
PY
render "$W/host.yaml" >/dev/null 2>&1
is "$?" 0 "host pod renders"
H=$W/pods/default/host-44444444-0000-0000-0000-000000000002
(cd "$H" && timeout 60 bash job.sh >/dev/null 2>&1)
is "$?" 0 "host pod runs"
python3 - "$H/logs/main/0.log" "$W/host.yaml.want" <<'PY'
import json, sys
line = open(sys.argv[1]).read().split(" ", 3)[3].rstrip("\n")
sys.exit(0 if json.loads(line) == json.load(open(sys.argv[2])) else 1)
PY
is "$?" 0 "argv and env bytes reach the process unchanged"
ok test ! -e /tmp/sl-run-pwned "nothing was executed"
done_testing
