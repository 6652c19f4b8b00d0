#!/bin/bash
# covers: src/image/ src/ctl/pull.c src/slurmif/acct.c
# 39-privsep-image.t — a hostile tenant against the image store
# (docs/security.md, "Pulled images"): two real Unix users, alice ($UA) and
# bob ($UB), on a real cluster; alice's pods name images of a loopback
# registry (hers: what a layer holds, its modes, owners and file types, is
# whatever its author wrote into the tar headers, no privilege needed):
#   1. a setuid-root and a setgid-root program, a file capability, a device
#      node, a FIFO and world-writable entries: slurmlinkd unpacked them as
#      root into the world-readable store, and alice ran the setuid copy on
#      the host as uid 0. Now nothing set-id, no capability, no special file,
#      nothing another user may write reaches the store;
#      A digest stored before (no "sanitized" stamp) is made safe at its
#      next use;
#   2. the store's lock files were 0644 in a 0755 folder: alice's flock on one
#      kept bob's pod of that image from starting. Now root's alone (0600 in
#      a 0700 folder);
#   3. a layer of a few KiB that unpacks to 64 MiB was stored whole (no limit):
#      now the unpack is stopped at images.max_image_size, the pull fails
#      with the image and the limit named, and no partial tree is left.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
for t in skopeo umoci docker-registry gcc setcap getcap flock; do
  command -v $t >/dev/null || { plan 1; bail "$t is missing (scripts/deps.sh)"; }
done
plan 27

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
mkdir -p "$T/bin"
LIMIT=$((32 << 20))
# a user for umoci alone, and a umoci that records who runs it
UU=slu$$u
userdel "$UU" >/dev/null 2>&1
useradd -M -s /usr/sbin/nologin "$UU" || bail "useradd $UU"
on_exit "userdel '$UU'"
mkdir -p "$T/wrap" "$T/who" && chmod 1777 "$T/who"
printf '#!/bin/sh\nid -u >>"%s/who/umoci"\nexec %s "$@"\n' "$T" "$(command -v umoci)" >"$T/wrap/umoci"
chmod 755 "$T/wrap" "$T/wrap/umoci"
# the daemon with a 32 MiB limit per image and umoci as $UU, when it has
# the options at all (point 3 says whether it does)
opts=()
keys=$("$SLURMLINKD" --config-keys 2>/dev/null)
grep -q '^images.max_image_size' <<<"$keys" && opts+=(--image-max-size "$LIMIT")
grep -q '^images.unpack_user' <<<"$keys" && opts+=(--image-unpack-user "$UU")
SLURMLINKD=$(daemon_with "$T/bin" "${opts[@]}")
sed -i "2i PATH=$T/wrap:\$PATH; export PATH" "$SLURMLINKD"
export SLURMLINKD
sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
as_a() { runuser -u "$UA" -- "$@"; }
S=$CL/images
GIDA=$(id -g "$UA")

# --- alice's registry and images ---------------------------------------------------
start_registry "$T"

cd "$T" || bail cd
cat >ids.c <<'C'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
    int g = setgid(0), u = setuid(0);
    printf("uid=%d euid=%d gid=%d egid=%d%s\n", (int)getuid(), (int)geteuid(), (int)getgid(),
           (int)getegid(), g == 0 && u == 0 ? " (became root)" : "");
    return 0;
}
C
gcc -O -o ids ids.c || bail "gcc ids.c"
umoci init --layout oci && umoci new --image oci:evil && umoci unpack --rootless --image oci:evil b >/dev/null
mkdir -p b/rootfs/bin b/rootfs/ww && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh
install -m 4755 ids b/rootfs/bin/suid && install -m 2755 ids b/rootfs/bin/sgid && install -m 755 ids b/rootfs/bin/capf
setcap cap_setuid,cap_setgid+ep b/rootfs/bin/capf
mknod -m 666 b/rootfs/null c 1 3 && mkfifo -m 666 b/rootfs/fifo
chmod 777 b/rootfs/ww && echo mine >b/rootfs/ww/f && chmod 666 b/rootfs/ww/f
umoci repack --image oci:evil b && rm -rf b
umoci config --image oci:evil --config.cmd /bin/sh --config.cmd -c --config.cmd 'echo ran'
ok skopeo copy --quiet --dest-tls-verify=false oci:oci:evil "docker://$REG/alice/evil:v1" "alice pushes an image with set-id programs, a capability, a device node, a FIFO"
umoci new --image oci:bomb && umoci unpack --rootless --image oci:bomb b >/dev/null
mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh
head -c $((64 << 20)) /dev/zero >b/rootfs/zeros
umoci repack --image oci:bomb b && rm -rf b
umoci config --image oci:bomb --config.cmd /bin/sh --config.cmd -c --config.cmd 'echo ran'
ok skopeo copy --quiet --dest-tls-verify=false oci:oci:bomb "docker://$REG/alice/bomb:v1" "and one whose 64 MiB of zeros is a layer of $(du -sk oci/blobs | cut -f1) KiB of blobs in all"
cd - >/dev/null || bail cd
is "${opts[*]:-}" "--image-max-size $LIMIT --image-unpack-user $UU" "slurmlinkd has images.max_image_size (a bound on what one image unpacks to) and images.unpack_user"

pod() { # ns name image
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","annotations":{"slurmlink.io/runtime":"charliecloud"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"%s","resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$2" "$1" "$3"
}
phase() { ka -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
wr() { ka -n "$1" get pod "$2" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
pull_failed() { case $(wr "$1" "$2") in ErrImagePull | ImagePullBackOff) return 0 ;; esac; return 1; }
msgs() { ka -n "$1" get events --field-selector involvedObject.name="$2" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1; }

# --- 1. set-id programs, capabilities, special files ------------------------------
pod team-a e1 "$REG/alice/evil:v1" | kc alice create -f - >/dev/null
wait_for 120 is_phase team-a e1 Succeeded; r=$?
is "$r" 0 "alice's pod of her image runs"
[ "$r" = 0 ] || diag "$(phase team-a e1; msgs team-a e1)"
D=$(ls "$S/sha256" 2>/dev/null | head -1)
R=$S/sha256/$D/rootfs
ok as_a test -x "$R/bin/suid" "alice reaches the stored tree (what follows is not vacuous): $R"
is "$(find "$S/sha256" -perm /6000 ! -type l 2>&1)" "" "no setuid or setgid entry in the store"
out=$(as_a "$R/bin/suid" 2>&1)
is "$out" "uid=$UIDA euid=$UIDA gid=$GIDA egid=$GIDA" "alice running the stored setuid-root program stays herself"
is "$(as_a "$R/bin/sgid" 2>&1)" "uid=$UIDA euid=$UIDA gid=$GIDA egid=$GIDA" "and the setgid-root one too"
is "$(getcap -r "$S/sha256" 2>&1)" "" "no file capability in the store"
is "$(as_a "$R/bin/capf" 2>&1)" "uid=$UIDA euid=$UIDA gid=$GIDA egid=$GIDA" "the program that had cap_setuid gets nothing"
is "$(find "$S/sha256" \( -type c -o -type b -o -type p -o -type s \) 2>&1)" "" "no device node, FIFO or socket in the store"
nok as_a sh -c "echo planted >'$R/ww/f'" "alice cannot change a file of the stored image (it was 0666 in the layer)"
nok as_a sh -c "echo planted >'$R/ww/new'" "nor add one to its world-writable folder"
is "$(find "$S/sha256" -perm /022 ! -type l ! \( -type d -perm -1000 \) 2>&1)" "" "nothing in the store is writable by group or others (but sticky folders)"

is "$(sort -u "$T/who/umoci" 2>&1)" "$(id -u "$UU")" "umoci ran as images.unpack_user, never as root"
is "$(find "$S/sha256" \( ! -user root -o ! -group root \) 2>&1)" "" "and what it wrote is root's in the store"
ok test -f "$S/sha256/$D/sanitized" "the digest says it was made safe"
# a digest from before this check: set-id and a writable folder put back, no stamp
chmod 4755 "$R/bin/suid" && chmod 777 "$R/ww" && rm -f "$S/sha256/$D/sanitized"

# --- 2. the store's lock files ----------------------------------------------------
L=$S/.locks/$D.lock
ok test -f "$L" "the digest's lock file: $L"
is "$(stat -c '%U %a' "$S/.locks" "$L" 2>&1 | tr '\n' ' ')" "root 700 root 600 " "the lock folder is root's 0700, the lock root's 0600"
as_a flock -n "$L" true 2>/dev/null; r=$?
ok [ "$r" != 0 ] "alice cannot take the lock (flock -n as alice: exit $r)"
as_a timeout 150 flock "$L" sleep 150 >/dev/null 2>&1 &
HOLD=$!
on_exit "kill $HOLD 2>/dev/null"
held() { ! flock -n "$L" true; }
wait_for 30 held # alice's flock has the lock
pod team-b b1 "$REG/alice/evil:v1" | kc bob create -f - >/dev/null
wait_for 60 is_phase team-b b1 Succeeded; r=$?
is "$r" 0 "bob's pod of the image runs while alice tries to hold its lock"
[ "$r" = 0 ] || diag "$(phase team-b b1; msgs team-b b1)"
is "$(find "$S/sha256" \( -perm /6000 -o -perm /022 \) ! -type l ! \( -type d -perm -1000 \) 2>&1)" "" \
  "a digest stored without the stamp (an older store) was made safe again at bob's use of it"
kill "$HOLD" 2>/dev/null

# --- 3. a layer that expands past the limit ---------------------------------------
pod team-a z1 "$REG/alice/bomb:v1" | kc alice create -f - >/dev/null
ok wait_for 120 pull_failed team-a z1 "the bomb's pull fails (ErrImagePull / ImagePullBackOff)"
m=$(msgs team-a z1)
like "$m" "Failed to pull image \"$REG/alice/bomb:v1\": .*$LIMIT bytes" "the event names the image and the limit"
[ -n "$m" ] && diag "$(grep -m1 'Failed to pull' <<<"$m")"
is "$(ls "$S/sha256" | wc -l)" 1 "the bomb is not in the store (only the first image is)"
uid=$(ka -n team-a get pod z1 -o jsonpath='{.metadata.uid}')
ka -n team-a delete pod z1 --wait=false >/dev/null
no_pull_dirs() { [ "$(ls -A "$S" | grep -c '^\.pull')" = 0 ]; }
ok wait_for 30 no_pull_dirs "no partial tree is left (the pod deleted, what a pull under way had made is gone)"
jobs=$(squeue -h -t all -o '%k' 2>&1; sacct -n -X -o comment%80 2>&1)
is "$(grep -c "$uid" <<<"$jobs")" 0 "the pod never became a Slurm job (queue and accounting)"
