#!/bin/bash
# covers: src/cluster/ src/cmd/cluster.c src/slurmif/
# slow
# slurmlink up / down / status against a real private cluster:
# GRES GPUs, accounting, double up, stale folder, taken port, failures.
source "$(dirname "$0")/lib.sh"
plan 52

# --- up with GPUs and accounting -------------------------------------------
cluster_up --gpus 2 --cpus 4 --accounting
ok test -n "${CL:-}" -a -f "${CL:-/nonexistent}/cluster.json" "up --gpus 2 --cpus 4 --accounting starts a cluster"
st=$("$SLURMLINK" status --dir "$CL")
is "$?" 0 "status exits 0 when every daemon runs"
for d in munged mysqld slurmdbd slurmctld slurmd slurmlinkd; do
  like "$st" "$d +running +[0-9]+" "status lists $d running with its pid"
done
json=$("$SLURMLINK" status --dir "$CL" --json)
is "$(printf '%s' "$json" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["daemons"]), d["running"])')" "6 True" "status --json lists 6 running daemons"
# a port in the kernel's ephemeral range can be any outgoing connection's
# source port between the pick and the daemon's bind (mysqld: "Address
# already in use"); the pick starts at a pid-derived offset, so the old
# range passed this by chance in about 6 of 10 runs
is "$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); lo,hi=map(int,open("/proc/sys/net/ipv4/ip_local_port_range").read().split()); print(sorted(k for k,v in d.items() if k.endswith("port") and isinstance(v,int) and lo<=v<=hi))' "$CL/cluster.json")" "[]" \
  "no daemon's port is in the kernel's ephemeral range"
# root's MariaDB keeps its temporary tables in the cluster's own folder, not
# in /tmp, where every tenant may plant or remove names (#sql-temptable-...)
is "$(mariadb --no-defaults -uroot --socket="$CL/run/mysql.sock" -N -e 'select @@tmpdir' 2>&1)" "$CL/db-tmp" \
  "mariadbd's tmpdir is the cluster's db-tmp folder"
apiport=$(printf '%s' "$json" | /usr/bin/python3 -c 'import json,sys; print([x["port"] for x in json.load(sys.stdin)["daemons"] if x["name"]=="slurmlinkd"][0])')
ADMIN=(--cacert "$CL/pki/ca.crt" --cert "$CL/pki/admin.crt" --key "$CL/pki/admin.key")
is "$(curl -s "${ADMIN[@]}" "https://127.0.0.1:$apiport/healthz")" "ok" "slurmlinkd answers /healthz over HTTPS"
like "$(curl -s "${ADMIN[@]}" "https://127.0.0.1:$apiport/version")" '"major":"1"' "slurmlinkd answers /version"
like "$(cat "$KUBECONFIG")" "server: https://127.0.0.1:$apiport" "kubeconfig points at slurmlinkd (HTTPS)"

is "$(sinfo -h -N -o '%N %T %G')" "node1 idle gpu:2" "sinfo shows node1 idle with gpu:2"

# --- double up changes nothing ------------------------------------------------
pid_before=$(cat "$CL/run/slurmctld.pid")
out=$("$SLURMLINK" up --dir "$CL" 2>&1); rc=$?
is "$rc" 0 "up on a running folder exits 0"
like "$out" "already running" "up on a running folder says so"
is "$(cat "$CL/run/slurmctld.pid")" "$pid_before" "up on a running folder changes nothing"

# --- three GPU jobs on two GPUs ---------------------------------------------
jobs=()
for i in 1 2 3; do
  j=$(sbatch --parsable --gres=gpu:1 -J "gpu$i" -o "$CL/job-%j.out" \
      --wrap 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; sleep 20') || j=
  jobs+=("$j")
done
ok test -n "${jobs[0]}" -a -n "${jobs[1]}" -a -n "${jobs[2]}" "three sbatch --gres=gpu:1 jobs submitted"
two_running() { [ "$(squeue -h -t R -o %i | wc -l)" = 2 ]; }
ok wait_for 15 two_running "two GPU jobs run at once"
third_waits() { squeue -h -o '%i %T %r' | grep -qx "${jobs[2]} PENDING Resources"; }
wait_for 15 third_waits # Slurm sets the reason at its next scheduling pass
q=$(squeue -h -o '%i %T %r')
like "$q" "${jobs[2]} PENDING Resources" "the third waits with reason Resources"
d1=$(grep -ho 'CUDA_VISIBLE_DEVICES=[0-9]' "$CL/job-${jobs[0]}.out" 2>/dev/null)
d2=$(grep -ho 'CUDA_VISIBLE_DEVICES=[0-9]' "$CL/job-${jobs[1]}.out" 2>/dev/null)
ok test -n "$d1" -a -n "$d2" -a "$d1" != "$d2" "the running jobs got different GPUs ($d1, $d2)"
all_done() { [ -z "$(squeue -h -o %i)" ]; }
ok wait_for 90 all_done "all three finish"
d3=$(grep -ho 'CUDA_VISIBLE_DEVICES=[0-9]' "$CL/job-${jobs[2]}.out" 2>/dev/null)
ok test -n "$d3" "the third job ran once a GPU was free ($d3)"
sacct_has() { [ "$(sacct -n -X -j "$(IFS=,; echo "${jobs[*]}")" -o JobID,State,AllocTRES%80 | grep COMPLETED | grep -c 'gres/gpu=1')" = 3 ]; }
ok wait_for 20 sacct_has "sacct lists all three COMPLETED with gres/gpu=1 in AllocTRES"
like "$(sacct -n -X -j "${jobs[0]}" -o Account)" "default" "jobs are accounted to the default account"

# --- a second cluster is not disturbed by the first's down ------------------
CL1=$CL
cluster_up --gpus 1
CL2=$CL
ok test "$CL1" != "$CL2" "a second cluster starts beside the first"
like "$("$SLURMLINK" status --dir "$CL2")" "slurmd +running" "second cluster runs"
"$SLURMLINK" down --dir "$CL2" >/dev/null
"$SLURMLINK" status --dir "$CL1" >/dev/null
is "$?" 0 "down of the second cluster leaves the first running"
export SLURM_CONF=$CL1/etc/slurm.conf

# --- down leaves no process of the folder -------------------------------------
j=$(sbatch --parsable -o "$CL1/down-job.out" --wrap 'echo up; sleep 300')
wait_for 30 grep -q up "$CL1/down-job.out" # (a job whose script runs during down)
out=$("$SLURMLINK" down --dir "$CL1"); rc=$?
is "$rc" 0 "down exits 0"
like "$out" "stopped slurmctld" "down reports what it stopped"
left=$(procs_of "$CL1" | wc -l)
is "$left" 0 "no process of the folder is left after down"
st=$("$SLURMLINK" status --dir "$CL1"); rc=$?
is "$rc" 1 "status exits 1 when stopped"
like "$st" "slurmctld +stopped" "status shows daemons stopped"
out=$("$SLURMLINK" down --dir "$CL1")
like "$out" "nothing was running" "down twice is harmless"

# --- a folder left by a killed run is recovered --------------------------------
"$SLURMLINK" up --dir "$CL1" >/dev/null 2>&1
ok "$SLURMLINK" status --dir "$CL1" "up again on a stopped folder"
killed=()
for d in slurmd slurmctld munged; do killed+=("$(cat "$CL1/run/$d.pid")"); kill -9 "${killed[-1]}" 2>/dev/null; done
for p in "${killed[@]}"; do wait_for 10 proc_gone "$p"; done
out=$("$SLURMLINK" up --dir "$CL1" 2>&1); rc=$?
is "$rc" 0 "up on a folder left by a killed run succeeds"
like "$out" "recovering" "up says it recovers the folder"
ok "$SLURMLINK" status --dir "$CL1" "all daemons run after recovery"
export SLURM_CONF=$CL1/etc/slurm.conf
like "$(sacct -n -X -o JobID | tr -s ' \n' ' ')" "${jobs[0]}" "accounting kept earlier jobs across the recovery"
"$SLURMLINK" down --dir "$CL1" >/dev/null

# --- failures: one clear line and a non-zero exit -----------------------------
F=$(tmpdir); on_exit "'$SLURMLINK' down --dir '$F'; rm -rf '$F'"
/usr/bin/python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1",0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$F.port" &
holder=$!; on_exit "kill $holder"
wait_for 5 test -s "$F.port"
port=$(cat "$F.port"); rm -f "$F.port"
out=$("$SLURMLINK" up --dir "$F" --api-port "$port" 2>&1); rc=$?
ok test "$rc" -ne 0 "up with a taken port fails"
is "$(printf '%s\n' "$out" | head -1)" "slurmlink up: port $port for slurmlinkd is already in use" "the taken port is named in one line"
is "$(procs_of "$F" | wc -l)" 0 "a failed up leaves nothing running"

out=$("$SLURMLINK" up --dir "$F" --daemon /bin/false 2>&1); rc=$?
ok test "$rc" -ne 0 "up fails when a daemon dies at start"
like "$(printf '%s\n' "$out" | head -1)" "slurmlinkd exited at start with status 1; last lines of $F/log/slurmlinkd.log" "the dead daemon and its log are named"
is "$(procs_of "$F" | wc -l)" 0 "the failed start stopped the daemons it had started"

if id nobody >/dev/null 2>&1; then
  out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$SLURMLINK" up --dir /tmp/slt-nobody 2>&1); rc=$?
  ok test "$rc" -ne 0 "up as a non-root user fails"
  like "$out" "^slurmlink up: must run as root" "and says it must run as root"
else
  skip "no user nobody to run up as"; skip "no user nobody to run up as"
fi
out=$("$SLURMLINK" status --dir /tmp/does-not-exist-$$ 2>&1); rc=$?
ok test "$rc" -ne 0 "status of a folder that is not a cluster fails"
like "$out" "is not a slurmlink cluster folder" "and says why"
out=$("$SLURMLINK" up --gpus many 2>&1); rc=$?
is "$rc" 2 "a bad option value is a usage error"
like "$out" "--gpus must be an integer" "naming the option"
done_testing
