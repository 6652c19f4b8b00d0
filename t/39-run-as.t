#!/bin/bash
# covers: src/cluster/runuser.c src/cluster/up.c src/cluster/security.c src/doctor/head.c src/slurmif/info.c
# 39-run-as.t — the Unix user a cluster's pods run as by default, with
# accounting. From Slurm 25.11 slurmctld refuses every job of the user
# nobody (slurmlinkd's default slurm.run_as): sacctmgr maps that name to no
# uid (SLURM_AUTH_NOBODY), so no association matches the job ("Invalid
# account or account/partition combination"). There `slurmlink up
# --accounting` makes a system user of its own, gives it to slurmlinkd
# (slurm.run_as) and to the policy's admin, and a pod runs; on an earlier
# Slurm nobody stays. `slurmlink doctor` FAILs a run_as of nobody on such a
# Slurm, naming the option, the release and what to set.
source "$(dirname "$0")/lib.sh"

plan 9
cluster_up --accounting --gpus 0 --cpus 2 || bail "up --accounting"
C=$CL/etc/slurmlinkd.conf

# --- the user up chose ----------------------------------------------------------------
if slurm_at_least 25.11; then
  is "$SL_JOB_USER" _slurmlink-jobs "Slurm $SL_SLURM_RELEASE with accounting: up gives slurmlinkd a run-as user of its own" ||
    diag "$(cat "$C")"
else
  is "$SL_JOB_USER" nobody "Slurm $SL_SLURM_RELEASE: pods run as nobody, slurmlinkd's default"
fi
uid=$(id -u "$SL_JOB_USER" 2>/dev/null)
ok test "${uid:-0}" -gt 0 "$SL_JOB_USER is a Unix user and not root (uid ${uid:-none})"
ok grep -qx "  admin: $SL_JOB_USER" "$CL/etc/policy.yaml" "the policy's admin runs as $SL_JOB_USER"
is "$(sacctmgr -nP show assoc where user="$SL_JOB_USER" format=account 2>&1)" default \
  "$SL_JOB_USER has an association with the account default"

# --- a pod of the admin (no runAsUser) runs ---------------------------------------------
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, "id -u"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
done_p1() { [ "$(phase_of p1)" = Succeeded ]; }
ok wait_for 90 done_p1 "the pod runs to Succeeded" ||
  diag "phase $(phase_of p1): $(kc get pod p1 -o jsonpath='{.status.conditions}' 2>&1 | head -c 600)"
job=$(kc get pod p1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null)
acct_user() { [ -n "$job" ] && [ -n "$(sacct -X -n -P -j "$job" -o user 2>/dev/null)" ]; }
wait_for 30 acct_user
is "$(sacct -X -n -P -j "${job:-0}" -o user,account 2>&1)" "$SL_JOB_USER|default" \
  "its Slurm job ${job:-?} ran as $SL_JOB_USER, charged to default"

# --- slurmlink doctor ---------------------------------------------------------------------
line() { grep -E "^(ok|warn|FAIL) +$1 " <<<"$2"; }
out=$("$SLURMLINK" doctor --config "$C" 2>&1)
like "$(line accounting "$out")" "^ok " "doctor: the accounting line is ok with the cluster's run_as" || diag "$out"
if grep -q '^  run_as:' "$C"; then
  sed 's/^  run_as:.*/  run_as: nobody/' "$C" >"$CL/nobody.conf"
else
  sed 's/^slurm:$/slurm:\n  run_as: nobody/' "$C" >"$CL/nobody.conf"
fi
out=$("$SLURMLINK" doctor --config "$CL/nobody.conf" 2>&1)
if slurm_at_least 25.11; then
  like "$(line accounting "$out")" "^FAIL +accounting .*slurm\.run_as is nobody.*slurmctld $SL_SLURM_RELEASE" \
    "doctor: run_as nobody on Slurm $SL_SLURM_RELEASE with accounting FAILs, naming the option and the release" ||
    diag "$out"
  like "$out" "set slurm\.run_as to an unprivileged user" "its fix says what to set" || diag "$out"
else
  like "$(line accounting "$out")" "^ok " "doctor: run_as nobody is fine on Slurm $SL_SLURM_RELEASE" || diag "$out"
  unlike "$out" "slurm\.run_as is nobody" "and no line speaks of it"
fi
