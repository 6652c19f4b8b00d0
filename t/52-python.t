#!/bin/bash
# covers: src/api/
# 52-python.t — the official Python client (python3-kubernetes, run by
# /usr/bin/python3) against slurmlinkd: create, list, watch from a
# resourceVersion, read_namespaced_pod_log (plain and follow), patch,
# delete, errors as ApiException with the Status.
source "$(dirname "$0")/50-api-lib.sh"
plan 18

api_up --watch-log 20 || bail "slurmlinkd up"

# the client prints "ok"/"not ok" lines itself; numbering is added here
cat >"$AD/client.py" <<'PY'
import json, sys, threading, time, os, subprocess
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config(os.environ["KUBECONFIG"])
v1 = client.CoreV1Api()
API = os.environ["API"]
AD = os.environ["AD"]

def check(cond, desc, detail=""):
    print(("ok" if cond else "not ok") + " - " + desc)
    if not cond and detail:
        print("# " + str(detail).replace("\n", "\n# "))
    sys.stdout.flush()

def status(ns, name, st):
    subprocess.run(["curl", "-sf", "-X", "PATCH", "-H", "Content-Type: application/merge-patch+json",
                    "--data-binary", json.dumps({"status": st}),
                    f"{API}/api/v1/namespaces/{ns}/pods/{name}/status"], check=True, stdout=subprocess.DEVNULL)

pod = client.V1Pod(
    metadata=client.V1ObjectMeta(name="py1", labels={"app": "py"}),
    spec=client.V1PodSpec(containers=[client.V1Container(
        name="main", image="busybox", command=["sh", "-c", "echo hi"],
        resources=client.V1ResourceRequirements(limits={"cpu": "1", "memory": "64Mi"}))]))
p = v1.create_namespaced_pod("default", pod)
check(p.metadata.name == "py1" and p.status.phase == "Pending" and p.metadata.uid,
      "create_namespaced_pod returns the stored pod", p.status)
check(p.status.qos_class == "Guaranteed", "requests default to limits: Guaranteed QoS", p.status.qos_class)
check(p.spec.containers[0].resources.requests == {"cpu": "1", "memory": "64Mi"},
      "requests defaulted from limits", p.spec.containers[0].resources)

try:
    v1.create_namespaced_pod("default", pod)
    check(False, "create twice raises")
except ApiException as e:
    body = json.loads(e.body)
    check(e.status == 409 and body["reason"] == "AlreadyExists" and body["message"] == 'pods "py1" already exists',
          "create twice: ApiException 409 AlreadyExists", e.body)

l = v1.list_namespaced_pod("default", label_selector="app=py")
check([x.metadata.name for x in l.items] == ["py1"] and l.metadata.resource_version.isdigit(),
      "list_namespaced_pod with a label selector", l.metadata)
rv = l.metadata.resource_version

# watch from the list's resourceVersion sees only what changed after it
events = []
def watcher():
    w = watch.Watch()
    for ev in w.stream(v1.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=3):
        events.append((ev["type"], ev["object"].metadata.name, ev["object"].status.phase))
# (no need to wait for the watch to open: from a resourceVersion it replays
# what changed after it, whenever it connects)
t = threading.Thread(target=watcher); t.start()
status("default", "py1", {"phase": "Running"})
v1.create_namespaced_pod("default", client.V1Pod(metadata=client.V1ObjectMeta(name="py2"),
    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")])))
t.join()
check(events == [("MODIFIED", "py1", "Running"), ("ADDED", "py2", "Pending")],
      "watch with resource_version: the changes after it, typed", events)

# a watch that starts too far back gets 410 Expired (the log keeps 20 changes, trimmed 64 at a time)
for i in range(100):
    v1.patch_namespaced_pod("py2", "default", {"metadata": {"annotations": {"n": str(i)}}})
w = watch.Watch()
try:
    got = [ev for ev in w.stream(v1.list_namespaced_pod, "default", resource_version="1", timeout_seconds=2)]
    check(False, "watch from a trimmed revision raises", got)
except ApiException as e:
    check(e.status == 410, "watch from a trimmed revision: ApiException 410", e)

# logs
uid = v1.read_namespaced_pod("py1", "default").metadata.uid
d = f"{AD}/state/pods/default/py1-{uid}/logs/main"
os.makedirs(d, exist_ok=True)
with open(f"{d}/0.log", "w") as f:
    f.write("2020-01-01T00:00:00.000000001Z stdout F first\n2020-01-01T00:00:01Z stderr F second\n")
log = v1.read_namespaced_pod_log("py1", "default")
check(log == "first\nsecond\n", "read_namespaced_pod_log", repr(log))
log = v1.read_namespaced_pod_log("py1", "default", tail_lines=1, timestamps=True)
check(log == "2020-01-01T00:00:01Z second\n", "read_namespaced_pod_log tail_lines, timestamps", repr(log))
# follow: read until the current lines are out, append one, read until it
# is out, then end the container; the stream ends by itself
resp = v1.read_namespaced_pod_log("py1", "default", follow=True, _preload_content=False,
                                  _request_timeout=120)
chunks = resp.stream(1)
streamed = b""
def read_until(s):
    global streamed
    try:
        while s not in streamed:
            streamed += next(chunks)
    except StopIteration:
        pass
read_until(b"second\n")
with open(f"{d}/0.log", "a") as f:
    f.write("2020-01-01T00:00:02Z stdout F third\n")
read_until(b"third\n")
status("default", "py1", {"phase": "Succeeded", "containerStatuses": [{"name": "main", "ready": False,
       "restartCount": 0, "image": "busybox", "imageID": "", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]})
streamed += b"".join(chunks)
check(streamed == b"first\nsecond\nthird\n", "read_namespaced_pod_log(follow=True) streams until the container ends", streamed)

# patch, configmaps, events with field selectors
p = v1.patch_namespaced_pod("py2", "default", {"metadata": {"labels": {"x": "y"}}})
check(p.metadata.labels == {"x": "y"}, "patch_namespaced_pod (strategic merge)", p.metadata.labels)
cm = v1.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg"), data={"k": "v"}))
check(cm.data == {"k": "v"}, "create_namespaced_config_map")
ev = client.CoreV1Event(metadata=client.V1ObjectMeta(name="py1.e"), involved_object=client.V1ObjectReference(
    kind="Pod", name="py1", namespace="default", uid=uid), reason="Started", message="m", type="Normal", count=1)
v1.create_namespaced_event("default", ev)
evs = v1.list_namespaced_event("default", field_selector=f"involvedObject.name=py1,involvedObject.uid={uid}")
check([e.reason for e in evs.items] == ["Started"], "events by involvedObject field selectors", evs.items)

# delete
st = v1.delete_namespaced_pod("py2", "default")
check(st.metadata.name == "py2", "delete_namespaced_pod returns the pod")
try:
    v1.read_namespaced_pod("py2", "default")
    check(False, "read after delete raises")
except ApiException as e:
    check(e.status == 404 and json.loads(e.body)["message"] == 'pods "py2" not found', "read after delete: 404 NotFound", e.body)
st = v1.delete_namespaced_config_map("cfg", "default")
check(st.status == "Success", "delete_namespaced_config_map returns a Success Status", st)
ns = v1.list_namespace()
check(sorted(n.metadata.name for n in ns.items) == ["default", "kube-public", "kube-system"], "list_namespace")
PY

export API AD
/usr/bin/python3 "$AD/client.py" >"$AD/py.out" 2>&1
rc=$?
n=0
while IFS= read -r line; do
  case "$line" in
    "ok - "*) _t_report 0 "${line#ok - }" ;;
    "not ok - "*) _t_report 1 "${line#not ok - }" ;;
    *) diag "$line" ;;
  esac
done <"$AD/py.out"
is "$rc" "0" "the client script ran to its end"
done_testing
