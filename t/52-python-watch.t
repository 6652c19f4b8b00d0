#!/bin/bash
# covers: src/api/
# 52-python-watch.t — the official Python client (Debian's python3-kubernetes,
# run by /usr/bin/python3) watching pods the way controllers do:
#   - a `for event in Watch().stream(...)` loop over a pod watch: every event
#     a dict with a known type and a V1Pod, and the loop ends cleanly when
#     the server ends the watch (timeout_seconds);
#   - an informer-like loop (list, then watch from the list's
#     resourceVersion, resume from the last resourceVersion seen whenever the
#     watch ends) with a label selector: while the watch is broken pods are
#     created, changed, relabelled into and out of the selection and deleted;
#     the resumed watch delivers exactly kube-apiserver's events and the
#     cache stays equal to the server's list.
source "$(dirname "$0")/50-api-lib.sh"
plan 10

api_up || bail "slurmlinkd up"

cat >"$AD/client.py" <<'PY'
import json, os, sys, threading, time
from kubernetes import client, config, watch

config.load_kube_config(os.environ["KUBECONFIG"])
v1 = client.CoreV1Api()
NS = "default"

def check(cond, desc, detail=""):
    print(("ok" if cond else "not ok") + " - " + desc)
    if not cond and detail:
        print("# " + str(detail).replace("\n", "\n# "))
    sys.stdout.flush()

def pod(name, sel):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels={"sel": sel}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="main", image="busybox")]))

def relabel(name, sel):
    v1.patch_namespaced_pod(name, NS, {"metadata": {"labels": {"sel": sel}}})

def annotate(name, v):
    v1.patch_namespaced_pod(name, NS, {"metadata": {"annotations": {"v": v}}})

# ---- a plain Watch.stream loop that ends cleanly --------------------------
rv = v1.list_namespaced_pod(NS).metadata.resource_version
def changes():
    time.sleep(0.5)
    v1.create_namespaced_pod(NS, pod("w1", "no"))
    annotate("w1", "1")
    v1.delete_namespaced_pod("w1", NS)
t = threading.Thread(target=changes)
t.start()
seen, bad, err = [], [], None
t0 = time.monotonic()
try:
    for ev in watch.Watch().stream(v1.list_namespaced_pod, NS, resource_version=rv, timeout_seconds=3):
        if not isinstance(ev, dict) or ev.get("type") not in ("ADDED", "MODIFIED", "DELETED") \
                or not isinstance(ev.get("object"), client.V1Pod):
            bad.append(ev)
        else:
            seen.append(ev["type"] + ":" + ev["object"].metadata.name)
except Exception as e:
    err = e
t.join()
check(err is None, "the Watch.stream loop ends without an exception", err)
check(not bad, "every event is a dict with a type and a V1Pod", bad)
check(seen == ["ADDED:w1", "MODIFIED:w1", "DELETED:w1"], "the pod's events, in order", seen)
check(time.monotonic() - t0 >= 2.5, "it ended when the server ended the watch (timeout_seconds)")

# ---- an informer: list, watch, resume from the last resourceVersion --------
SEL = "sel=in"
for name, sel in (("keep", "in"), ("leave", "in"), ("gone", "in"), ("other", "no"), ("join", "no")):
    v1.create_namespaced_pod(NS, pod(name, sel))
lst = v1.list_namespaced_pod(NS, label_selector=SEL)
cache = {p.metadata.name: p.metadata.resource_version for p in lst.items}
last_rv = lst.metadata.resource_version
def watch_once(timeout):
    """One watch from last_rv until the server ends it; applies the events."""
    global last_rv
    w = watch.Watch()
    got = []
    for ev in w.stream(v1.list_namespaced_pod, NS, label_selector=SEL,
                       resource_version=last_rv, timeout_seconds=timeout):
        o = ev["object"]
        got.append(ev["type"] + ":" + o.metadata.name)
        if ev["type"] == "DELETED":
            cache.pop(o.metadata.name, None)
        else:
            cache[o.metadata.name] = o.metadata.resource_version
        last_rv = o.metadata.resource_version
    return got
def server_state():
    return {p.metadata.name: p.metadata.resource_version
            for p in v1.list_namespaced_pod(NS, label_selector=SEL).items}

watch_once(1)
# the watch is broken now: changes it has to catch up with on resuming
v1.create_namespaced_pod(NS, pod("new", "in"))      # ADDED
annotate("keep", "1")                               # MODIFIED
relabel("leave", "out")                             # DELETED (left the selection)
v1.delete_namespaced_pod("gone", NS)                # DELETED
annotate("other", "1")                              # (never matched: nothing)
v1.create_namespaced_pod(NS, pod("late", "no"))     # (not matching yet: nothing)
relabel("late", "in")                               # ADDED
relabel("join", "in")                               # ADDED
got = watch_once(2)
check(got == ["ADDED:new", "MODIFIED:keep", "DELETED:leave", "DELETED:gone", "ADDED:late", "ADDED:join"],
      "resumed from the last resourceVersion: exactly kube-apiserver's events", got)
check(cache == server_state(), "the cache equals the server's list", (cache, server_state()))

# changes while a watch is open, then more while it is broken
def live():
    time.sleep(0.5)
    annotate("new", "1")
    relabel("keep", "out")
    relabel("other", "in")
t = threading.Thread(target=live)
t.start()
watch_once(2)
t.join()
relabel("keep", "in")
v1.delete_namespaced_pod("join", NS)
relabel("leave", "in")
relabel("leave", "out")  # in and out again while broken: ADDED, then DELETED
for _ in range(3):
    watch_once(1)
check(cache == server_state(), "after live changes and another break: the cache equals the server's list",
      (cache, server_state()))
check(sorted(cache) == ["keep", "late", "new", "other"], "the cache holds what matches", sorted(cache))
PY

export AD
/usr/bin/python3 "$AD/client.py" >"$AD/py.out" 2>&1
rc=$?
while IFS= read -r line; do
  case "$line" in
    "ok - "*) _t_report 0 "${line#ok - }" ;;
    "not ok - "*) _t_report 1 "${line#not ok - }" ;;
    *) diag "$line" ;;
  esac
done <"$AD/py.out"
is "$rc" "0" "the client script ran to its end"
api_stop
is "$?" "0" "clean exit"
