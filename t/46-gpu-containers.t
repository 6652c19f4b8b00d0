#!/bin/bash
# covers: src/shim/gpu.c src/translate/
# 46-gpu-containers.t — a charliecloud container with nvidia.com/gpu gets
# exactly the GPUs Slurm bound to its job (src/shim/gpu.c): their device files
# at /dev/nvidiaN and no other GPU's, CUDA_VISIBLE_DEVICES and
# NVIDIA_VISIBLE_DEVICES as Slurm set them, and the node driver's libraries
# and programs bound read-only at /usr/local/nvidia without writing the image.
# The GPUs are `slurmlink up --gpus 2`'s fake ones (character devices with
# /dev/null's numbers as gres.conf File=), the driver a folder of fake files.
source "$(dirname "$0")/lib.sh"
plan 29

cluster_up --gpus 2 --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
IMG=$CL/images/busybox+latest
jp() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
tree_sum() { (cd "$1" && find . -printf '%p %y %m %U %G %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | md5sum; }
before=$(tree_sum "$IMG")

is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"])' "$CL/etc/slurmlink-gpu.json" 2>&1)" \
  "$CL/dev/gpu%d" "slurmlink up wrote the fake GPUs' device template beside slurm.conf"

# a fake driver: libraries (a link and its file), one library not on the list, a program
DRV=$CL/driver
mkdir -p "$DRV/lib" "$DRV/bin"
echo fake-libcuda-580 >"$DRV/lib/libcuda.so.580.1"
ln -s libcuda.so.580.1 "$DRV/lib/libcuda.so.1"
echo fake-nvml >"$DRV/lib/libnvidia-ml.so.1"
echo other >"$DRV/lib/libother.so.1"
printf '#!/bin/sh\necho "fake nvidia-smi sees: $(ls /dev | grep nvidia | tr "\\n" " ")"\n' >"$DRV/bin/nvidia-smi"
chmod 755 "$DRV" "$DRV/lib" "$DRV/bin" "$DRV/bin/nvidia-smi"
cat >"$CL/etc/slurmlink-gpu.json" <<EOF
{"devices": "$CL/dev/gpu%d", "driverDirs": ["$DRV/lib"], "programDirs": ["$DRV/bin"]}
EOF

SYNC=$(mktemp -d /tmp/slt-gsync.XXXXXX)
chmod 1777 "$SYNC"
on_exit "rm -rf '$SYNC'"
# pod NAME GPUS SCRIPT
pod() {
  local cmd lim=
  cmd=$(printf '%s' "$3" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
  [ "$2" -gt 0 ] && lim=',"limits":{"nvidia.com/gpu":'$2'}'
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/runtime":"charliecloud","slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}%s}}]}}' \
    "$1" "$cmd" "$lim" | kc create -f - >/dev/null
}
done_() { local p; p=$(jp "$1" '{.status.phase}'); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
result() { wait_for 120 done_ "$1"; echo "$(jp "$1" '{.status.phase}') $(kc logs "$1" 2>&1 | tr '\n' ' ')"; }

# what a container reports: its GPU variables, the NVIDIA files in /dev, the driver's files
LOOK='echo "cvd=$CUDA_VISIBLE_DEVICES nvd=$NVIDIA_VISIBLE_DEVICES"; echo "dev=$(ls /dev | grep nvidia | tr "\n" " ")"'
# two 1-GPU pods at once: each waits until the other has started
both="$LOOK"'; touch '$SYNC'/$(cat /proc/sys/kernel/random/uuid); n=0; while [ $(ls '$SYNC' | wc -l) -lt 2 ] && [ $n -lt 600 ]; do usleep 100000; n=$((n+1)); done; echo peers=$(ls '$SYNC' | wc -l)'
pod g1 1 "$both"
pod g2 1 "$both"
o1=$(result g1)
o2=$(result g2)
like "$o1" '^Succeeded cvd=[01] nvd=[01] dev=nvidia[01]  peers=2 $' "a 1-GPU pod sees one /dev/nvidiaN: $o1"
like "$o2" '^Succeeded cvd=[01] nvd=[01] dev=nvidia[01]  peers=2 $' "... and so does a second one, running at the same time: $o2"
n1=$(sed -E 's/.*dev=nvidia([01]).*/\1/' <<<"$o1")
n2=$(sed -E 's/.*dev=nvidia([01]).*/\1/' <<<"$o2")
c1=$(sed -E 's/.*cvd=([01]).*/\1/' <<<"$o1")
c2=$(sed -E 's/.*cvd=([01]).*/\1/' <<<"$o2")
isnt_() { [ "$1" != "$2" ]; }
ok isnt_ "$n1" "$n2" "the two pods got different devices ($n1, $n2)"
is "$n1 $n2" "$c1 $c2" "each pod's device is the one its CUDA_VISIBLE_DEVICES names"
is "$(sed -E 's/.*nvd=([01]).*/\1/' <<<"$o1")" "$c1" "NVIDIA_VISIBLE_DEVICES is the bound index too"

# the device file, the rest of /dev, the driver's files
pod d1 1 'test -c /dev/nvidia$CUDA_VISIBLE_DEVICES && echo chr; test -c /dev/null && test -c /dev/zero && test -c /dev/urandom && test -d /dev/pts && test -d /dev/shm && echo rest; ls /usr/local/nvidia/lib64 | tr "\n" " "; echo; cat /usr/local/nvidia/lib64/libcuda.so.1; readlink /usr/local/nvidia/lib64/libcuda.so.1; (echo x >/usr/local/nvidia/lib64/libcuda.so.1) 2>&1; (touch /usr/local/nvidia/lib64/new) 2>&1; echo "ld=$LD_LIBRARY_PATH"; nvidia-smi; echo x >/usr/local/nvidia/elsewhere && echo root-writable'
od=$(result d1)
like "$od" '^Succeeded chr ' "the bound GPU's file is a character device"
like "$od" ' rest ' "... and /dev still has null, zero, urandom, pts and shm"
like "$od" ' libcuda.so.1 libcuda.so.580.1 libnvidia-ml.so.1  fake-libcuda-580 libcuda.so.580.1 ' \
  "the driver's libraries are in /usr/local/nvidia/lib64 (the link stays a link), libother is not"
like "$od" 'libcuda.so.1: Read-only file system' "a driver library cannot be written"
like "$od" "touch: /usr/local/nvidia/lib64/new: Read-only file system" "... nor its folder"
like "$od" ' ld=/usr/local/nvidia/lib64 ' "LD_LIBRARY_PATH names the folder"
like "$od" 'fake nvidia-smi sees: nvidia[01] ' "nvidia-smi of the driver is in PATH and sees the one GPU"
like "$od" ' root-writable $' "the rest of the root stays the run's writable one"

# two GPUs
pod t2 2 "$LOOK"
is "$(result t2)" "Succeeded cvd=0,1 nvd=0,1 dev=nvidia0 nvidia1  " "a 2-GPU pod sees both GPUs and their files"

# no GPUs
pod n0 0 "$LOOK"'; test -e /usr/local/nvidia && echo driver-there; echo end'
is "$(result n0)" "Succeeded cvd= nvd= dev= end " "a pod without nvidia.com/gpu sees no GPU, no variable, no driver"

is "$(tree_sum "$IMG")" "$before" "the stored image is unchanged"
ok test ! -e "$IMG/usr/local/nvidia" "... and has no /usr/local/nvidia"
SPEC=$(ls "$CL"/pods/default/d1-*/shim.json 2>/dev/null | head -1)
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["containers"][0].get("gpus"))' "$SPEC" 2>&1)" 1 \
  "shim.json: the container's gpus is its nvidia.com/gpu"
SPEC0=$(ls "$CL"/pods/default/n0-*/shim.json 2>/dev/null | head -1)
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["containers"][0].get("gpus"))' "$SPEC0" 2>&1)" None \
  "... and absent without GPUs"

# the node's settings wrong: a clear StartError, no half-started container
cat >"$CL/etc/slurmlink-gpu.json" <<EOF
{"devices": "$CL/no-such/gpu%d", "driverDirs": ["$DRV/lib"]}
EOF
pod bad 1 'echo ran'
wait_for 120 done_ bad
is "$(jp bad '{.status.phase} {.status.containerStatuses[0].state.terminated.reason}')" "Failed StartError" \
  "a GPU whose device file is missing: the container does not start"
like "$(jp bad '{.status.containerStatuses[0].state.terminated.message}')" \
  "^GPUs: GPU [01]: $CL/no-such/gpu[01]: No such file or directory\$" "... and the message names the file"
echo '{"devices": ' >"$CL/etc/slurmlink-gpu.json"
pod bad2 1 'echo ran'
wait_for 120 done_ bad2
like "$(jp bad2 '{.status.containerStatuses[0].state.terminated.message}')" \
  "^GPUs: $CL/etc/slurmlink-gpu.json: " "a malformed settings file: StartError naming it"
unlike "$(kc logs bad2 2>&1)" 'ran' "... and the command never ran"
is "$(grep -c "$CL/.*/rootfs/" /proc/self/mountinfo)" 0 "no mount of the runs is visible outside them"

# --- the other runtimes' GPUs, slurmlink-shim run directly with stand-ins -------
SHIM=$ROOT/build/slurmlink-shim
[ -x "$ROOT/build-asan/slurmlink-shim" ] && SHIM=$ROOT/build-asan/slurmlink-shim
FAKE=$(mktemp -d /tmp/slt-gfake.XXXXXX)
on_exit "rm -rf '$FAKE'"
for p in podman enroot; do
  printf '#!/bin/sh\necho "%s $*"; echo "nvd=$NVIDIA_VISIBLE_DEVICES"\n' "$p" >"$FAKE/$p"
  chmod 755 "$FAKE/$p"
done
# shimrun NAME CONTAINER-JSON: the container's log lines, one line
shimrun() {
  mkdir -p "$FAKE/$1"
  printf '{"apiVersion":"slurmlink.io/v1","kind":"ShimSpec","pod":{"namespace":"default","name":"%s","uid":"uid-%s"},"restartPolicy":"Never","containers":[%s]}\n' "$1" "$1" "$2" >"$FAKE/$1/shim.json"
  env -u NVIDIA_VISIBLE_DEVICES PATH="$FAKE:$PATH" SLURM_JOB_GPUS=1,3 CUDA_VISIBLE_DEVICES=1,3 USER=root \
    timeout -s KILL 60 "$SHIM" --pod-dir "$FAKE/$1" >"$FAKE/$1.out" 2>&1
  sed -E 's/^[^ ]+ (stdout|stderr) [FP] //' "$FAKE/$1"/logs/*/0.log 2>/dev/null | tr '\n' ' '
}
is "$(shimrun pm '{"name":"main","argv":["podman","run","--rm","--device=nvidia.com/gpu=all","img","true"],"runtime":"podman","gpus":2}')" \
  "podman run --rm --device=nvidia.com/gpu=1 --device=nvidia.com/gpu=3 img true nvd=1,3 " \
  "podman: the CDI word for all GPUs becomes the bound GPUs' names (SLURM_JOB_GPUS=1,3)"
is "$(shimrun er '{"name":"main","argv":["enroot","start","--env=NVIDIA_VISIBLE_DEVICES","img","true"],"runtime":"enroot","gpus":2}')" \
  "enroot start --env=NVIDIA_VISIBLE_DEVICES img true nvd=1,3 " \
  "enroot: NVIDIA_VISIBLE_DEVICES is the bound GPUs, for its nvidia hook"
is "$(shimrun e0 '{"name":"main","argv":["enroot","start","img","true"],"runtime":"enroot"}')" \
  "enroot start img true nvd= " "a container without GPUs gets no NVIDIA_VISIBLE_DEVICES"
is "$(shimrun ev '{"name":"main","argv":["enroot","start","img","true"],"runtime":"enroot","gpus":1,"env":{"NVIDIA_VISIBLE_DEVICES":"none"}}')" \
  "enroot start img true nvd=none " "... and the pod's own value wins"
