#!/bin/bash
# covers: src/doctor/ src/cmd/doctor.c src/slurmif/acct.c
# `slurmlink doctor` with slurmlinkd's configuration file, on a two-node
# cluster of `slurmlink up --nodes 2 --accounting` (slurmlinkd running, so
# the push address answers): every check ok and exit 0 on the good cluster;
# then each planted fault is named on its check's line with exit 1, the
# other lines staying ok:
#   the shim on node1 only (shim.path under D/pmix, which each node's mount
#   namespace covers with its own D/nodes/nodeK/pmix: src/cluster/netns.c);
#   a pods root that is not shared (the same trick: a node-local path);
#   gres.conf giving the GPUs a Count but no File=;
#   a runtime missing on the nodes (runtimes.default and --runtime);
# a configuration slurmlinkd would refuse: exit 2, its one line.
source "$(dirname "$0")/lib.sh"
plan 24

cluster_up --nodes 2 --gpus 1 --cpus 2 --accounting || bail "up --nodes 2 --accounting"
C=$CL/etc/slurmlinkd.conf
doc() { "$SLURMLINK" doctor "$@" 2>&1; }
line() { grep -E "^(ok|warn|FAIL) +$1 " <<<"$2"; }

# --- a good cluster --------------------------------------------------------------
out=$(doc --config "$C")
rc=$?
is "$rc" 0 "doctor exits 0 on a good cluster" || diag "$out"
is "$(grep -vE '^ok ' <<<"$out")" "doctor: no check failed" "every line is ok, then the summary" || diag "$out"
is "$(grep -oE '^ok +[a-z-]+' <<<"$out" | awk '{print $2}' | tr '\n' ' ')" \
  "config root slurm munge accounting nodes gres pods-root probe pods-shared shim runtimes clock push " \
  "one line per check, in order"
like "$(line probe "$out")" "srun as $SL_JOB_USER ran on node1,node2" "the probe ran on both nodes as the job user"
like "$(line accounting "$out")" "accounting_storage/slurmdbd" "accounting is found"
ok test -z "$(ls -A "$CL/pods" | grep slurmlink-doctor)" "the probe folder is gone afterwards"

# --- the shim on node1 only --------------------------------------------------------
cp "$CL/etc/slurmlinkd.conf" "$CL/base.conf"
cp "$ROOT/build/slurmlink-shim" "$CL/nodes/node1/pmix/slurmlink-shim"
sed "/^shim:/,/^[a-z]/ s|^  path: .*|  path: \"$CL/pmix/slurmlink-shim\"|" "$CL/base.conf" >"$CL/shim.conf"
grep -q "path: \"$CL/pmix/slurmlink-shim\"" "$CL/shim.conf" || diag "the shim.conf edit did not apply"
out=$(doc --config "$CL/shim.conf")
is "$?" 1 "shim missing on node2: exit 1" || diag "$out"
like "$(line shim "$out")" "^FAIL +shim +node2: $CL/pmix/slurmlink-shim: not found; fix: install slurmlink-shim" \
  "the shim line names node2 and the path, with a fix"
unlike "$(line shim "$out")" "node1" "node1, which has it, is not named"
is "$(grep -c '^FAIL' <<<"$out")" 1 "no other check fails" || diag "$out"

# --- a pods root that is not shared -------------------------------------------------
mkdir -p "$CL/pmix/pods" "$CL/nodes/node1/pmix/pods" "$CL/nodes/node2/pmix/pods"
chmod 0755 "$CL/pmix/pods" "$CL/nodes/node1/pmix/pods" "$CL/nodes/node2/pmix/pods"
sed "/^pods:/,/^[a-z]/ s|^  root: .*|  root: \"$CL/pmix/pods\"|" "$CL/base.conf" >"$CL/pods.conf"
out=$(doc --config "$CL/pods.conf")
is "$?" 1 "a pods root each node has its own of: exit 1" || diag "$out"
like "$(line pods-shared "$out")" "^FAIL +pods-shared +node1: .*not the same shared storage.*; node2: .*; fix: mount the pods root" \
  "the pods-shared line names both nodes, why, and the fix"
like "$(line pods-root "$out")" "^ok " "the head itself can still use it (pods-root ok)"
is "$(grep -c '^FAIL' <<<"$out")" 1 "no other check fails" || diag "$out"

# --- GPUs counted but not bound -------------------------------------------------------
cp "$CL/etc/gres.conf" "$CL/gres.orig"
on_exit "cp '$CL/gres.orig' '$CL/etc/gres.conf'"
printf 'NodeName=node[1-2] Name=gpu Count=1\n' >"$CL/etc/gres.conf"
out=$(doc --config "$C")
is "$?" 1 "gres.conf without File=: exit 1" || diag "$out"
like "$(line gres "$out")" "^FAIL +gres +$CL/etc/gres.conf: no File= for the GPUs of node1,node2.*; fix: .*File=" \
  "the gres line names gres.conf, the nodes and the fix"
printf 'NodeName=node1 Name=gpu File=%s\nNodeName=node2 Name=gpu Count=1\n' \
  "$(grep -o 'File=[^ ]*' "$CL/gres.orig" | head -1 | cut -d= -f2)" >"$CL/etc/gres.conf"
out=$(doc --config "$C")
like "$(line gres "$out")" "^FAIL +gres +.*no File= for the GPUs of node2:" "one node without File= is named alone"
cp "$CL/gres.orig" "$CL/etc/gres.conf"

# --- a runtime missing -------------------------------------------------------------------
{ cat "$CL/base.conf"; printf 'runtimes:\n  default: apptainer\n'; } >"$CL/rt.conf"
out=$(doc --config "$CL/rt.conf")
is "$?" 1 "runtimes.default apptainer, not installed: exit 1" || diag "$out"
like "$(line runtimes "$out")" "^FAIL +runtimes +node1: runtime apptainer: apptainer not found on PATH; node2: runtime apptainer: .*; fix: install the runtime" \
  "the runtimes line names the runtime on each node, with a fix"
unlike "$(line runtimes "$out")" "charliecloud" "charliecloud (ch-run, installed) is not named"
out=$(doc --config "$C" --runtime enroot)
like "$?|$(line runtimes "$out")" "^1\|FAIL +runtimes +node1: runtime enroot: enroot not found" \
  "--runtime enroot: exit 1, enroot named"

# --- a configuration slurmlinkd refuses -------------------------------------------------------
printf 'listen:\n  adress: 0.0.0.0\n' >"$CL/bad.conf"
out=$(doc --config "$CL/bad.conf")
is "$?|$out" "2|FAIL  config       $CL/bad.conf: listen.adress: unknown key; fix: slurmlinkd --check-config shows the same" \
  "a configuration slurmlinkd refuses: exit 2 and its one line"
out=$(doc --timeout 0 2>&1)
is "$?" 2 "a bad --timeout: exit 2"
like "$(doc --help)" "usage: slurmlink doctor" "doctor --help"
