#!/bin/bash
# covers: src/slurmif/bindir.c src/config/
# 39-slurm-bin-dir.t — slurm.bin_dir, the folder of Slurm's commands that
# the jobs' PATH starts with. A Slurm installed in a prefix of its own
# (SchedMD's 25.11 in /opt/slurm-25.11/bin) was not in the PATH slurmlinkd
# gave every job (a fixed /usr/local/bin:/usr/bin:/bin:...): a gang's batch
# script did not find srun, nor a pod's job scontrol. Here a folder of
# Slurm's commands of its own stands for that prefix: the option is known,
# a pod's job runs with it first in its PATH, and a folder another user may
# write (who could then put a srun of theirs in every job's way) is refused.
source "$(dirname "$0")/lib.sh"

plan 10
W=$(tmpdir)
chmod 755 "$W"
on_exit "rm -rf '$W'"
B=$W/slurm-bin
mkdir -m 755 "$B"
for p in srun scontrol sbatch squeue; do ln -s "$(command -v "$p")" "$B/$p"; done
SYS=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin

# --- the option -------------------------------------------------------------------------
out=$("$SLURMLINKD" --slurm-bin-dir "$B" --check-config 2>&1)
like "$out" "bin_dir: \"$B\"" "--check-config prints slurm.bin_dir" || diag "$out"
out=$("$SLURMLINKD" --check-config 2>&1)
like "$out" "bin_dir: null  # default" "unset by default (then: the folder of the srun in PATH)" ||
  diag "$out"

# --- a pod's job runs with it first in its PATH -----------------------------------------
cluster_up --gpus 0 --cpus 2 --daemon "$(daemon_with "$W" --slurm-bin-dir "$B")" || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
KC=(kubectl --cache-dir "$CL/kcache")
"${KC[@]}" apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: p1
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo started; sleep 60"]
    resources:
      requests: {cpu: 100m, memory: 64Mi}
YAML
running() { [ "$("${KC[@]}" get pod p1 -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }
ok wait_for 60 running "the pod runs"
job=$("${KC[@]}" get pod p1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
ok test -n "$job" "it is Slurm job ${job:-?}"
# the job's environment, as its shim (the batch script's program) has it:
# this cluster's job (other clusters on this host have jobs of the same id)
job_path() {
  local p env
  for p in $(pgrep -f slurmlink-shim); do
    env=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null)
    if grep -qx "SLURM_JOB_ID=$job" <<<"$env" && grep -qx "SLURM_CONF=$CL/etc/slurm.conf" <<<"$env"; then
      sed -n 's/^PATH=//p' <<<"$env"
      return 0
    fi
  done
  return 1
}
ok wait_for 30 job_path "the job's shim runs"
is "$(job_path)" "$B:$SYS" "the job's PATH starts with slurm.bin_dir, then the system's folders"
"${KC[@]}" delete pod p1 --grace-period=0 --force >/dev/null 2>&1
gone() { ! "${KC[@]}" get pod p1 >/dev/null 2>&1; }
ok wait_for 60 gone "the pod is deleted"

# --- a folder others may write is refused at start --------------------------------------
O=$W/open
mkdir "$O" && chmod 777 "$O"
W2=$W/w2
mkdir "$W2"
D2=$(tmpdir)
on_exit "'$SLURMLINK' down --dir '$D2' >/dev/null 2>&1; rm -rf '$D2'"
out=$("$SLURMLINK" up --dir "$D2" --gpus 0 --cpus 1 --daemon "$(daemon_with "$W2" --slurm-bin-dir "$O")" 2>&1)
isnt_zero=$?
ok test "$isnt_zero" -ne 0 "slurmlinkd does not start with slurm.bin_dir writable by others" || diag "$out"
like "$out$(cat "$D2/log/slurmlinkd.log" 2>/dev/null)" "slurm.bin_dir $O: writable by others \(mode 0777\)" \
  "its error names the folder and why"
ok test -z "$(procs_of "$D2" | xargs -r ps -o comm= -p 2>/dev/null | grep slurmlinkd)" "no slurmlinkd of it runs"
