#!/bin/bash
# covers: src/daemon/main.c src/config/config.c
# Every API connection is a thread, and glibc gives each new thread a malloc
# arena of its own until 8 per core exist, each keeping its own partly used
# heap resident. slurmlinkd caps them (--malloc-arenas, 4 by default): with
# 24 connections busy at once its arenas are at most the main one and 3
# more; with --malloc-arenas 0 (glibc's own limit) the same load makes more
# than that, which shows the count sees them.
# The plain build: ASan replaces malloc.
source "$(dirname "$0")/lib.sh"
plan 3

PLAIN=$ROOT/build/slurmlinkd
[ -x "$PLAIN" ] || bail "no plain build at $PLAIN (make all)"
D=$(tmpdir)
on_exit "rm -rf '$D'"
port=$(free_ports 1)
start() { # state folder, then flags: the daemon's pid in $pid once it answers
  local state=$1
  shift
  "$PLAIN" --port "$port" --state-dir "$D/$state" --no-controllers --max-per-ip 1000 "$@" \
    >"$D/$state.log" 2>&1 &
  pid=$!
  on_exit "kill $pid 2>/dev/null"
  wait_for 60 healthy
}
stop() { kill "$pid" && wait "$pid" 2>/dev/null; }
# 24 kept-alive connections, all open at once, each listing and creating
# pods: 24 connection threads that allocate at the same time
load() {
  /usr/bin/python3 - "$port" <<'PY'
import http.client, json, sys, threading
port, n = int(sys.argv[1]), 24
bar = threading.Barrier(n)
fails = []
def one(i):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/api/v1/namespaces/default/pods")
    c.getresponse().read()
    bar.wait()  # every connection open before any works
    for j in range(20):
        body = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"a{i}-{j}"},
                           "spec": {"containers": [{"name": "m", "image": "busybox"}]}})
        c.request("POST", "/api/v1/namespaces/default/pods", body, {"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        if r.status != 201:
            fails.append(r.status)
        c.request("GET", "/api/v1/namespaces/default/pods?limit=50")
        c.getresponse().read()
    bar.wait()  # every connection still open while the others work
ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("done" if not fails else f"failed: {fails[:5]}")
PY
}
# glibc's thread arenas, read from the daemon's memory: each heap starts at
# a 64 MiB boundary (an anonymous writable mapping there) with glibc's
# heap_info, whose first word is its arena's address; an arena's first heap
# holds the arena itself right after that header. So the arenas are the
# heaps whose arena lies within their first page: a second heap of one
# arena, or another mapping that falls on such a boundary by chance, is not
# one. Prints "ARENAS HEAPS".
arenas() {
  /usr/bin/python3 - "$pid" <<'PY'
import struct, sys
pid = sys.argv[1]
arenas = heaps = 0
with open(f"/proc/{pid}/mem", "rb") as mem:
    for ln in open(f"/proc/{pid}/maps"):
        f = ln.split()
        start = int(f[0].split("-")[0], 16)
        if len(f) < 6 and f[1].startswith("rw") and start % (64 << 20) == 0:
            heaps += 1
            mem.seek(start)
            ar_ptr, = struct.unpack("<Q", mem.read(8))
            arenas += 0 < ar_ptr - start < 4096
print(arenas, heaps)
PY
}

start capped
r=$(load)
read -r n heaps <<<"$(arenas)"
ok test "$r" = done -a "$n" -le 3 \
  "24 busy connections, default --malloc-arenas: $n arenas besides the main one ($heaps heaps), at most 3 ($r)"
stop

start uncapped --malloc-arenas 0
r=$(load)
read -r m heaps <<<"$(arenas)"
ok test "$r" = done -a "$m" -gt 3 \
  "--malloc-arenas 0: the same load makes $m arenas besides the main one ($heaps heaps), more than 3 ($r)"
stop
ok [ "$n" -lt "$m" ] "capped $n < glibc's own $m"
