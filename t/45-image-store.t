#!/bin/bash
# covers: src/image/ src/ctl/pull.c src/ctl/pullpool.c
# The pulled images of the store: `slurmlink image list | rm | prune`
# (tags, digests, dangling images, leftovers), the size limit with least
# recently used removal (`pull --limit`, images.store_limit), and in use as
# slurmlinkd's live pods make it: rm refused while a pod uses the image, a
# pull that does not fit beside an image in use fails with "image store
# full" and no job, and succeeds once that pod is gone.
source "$(dirname "$0")/lib.sh"
plan 41

for t in skopeo umoci docker-registry jq; do command -v $t >/dev/null || bail "$t is missing (scripts/deps.sh)"; done
T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry --delete "$T"

# images: busybox and NOISE bytes of random data, pushed as team/NAME:v1
cd "$T" || bail "cd"
umoci init --layout oci >/dev/null
mkimage() { # name noise-bytes
  umoci new --image "oci:$1" && umoci unpack --rootless --image "oci:$1" "b-$1" >/dev/null &&
    mkdir -p "b-$1/rootfs/bin" && cp /bin/busybox "b-$1/rootfs/bin/" && ln -s busybox "b-$1/rootfs/bin/sh" &&
    ln -s busybox "b-$1/rootfs/bin/sleep" && head -c "$2" /dev/urandom >"b-$1/rootfs/noise" &&
    umoci repack --image "oci:$1" "b-$1" && rm -rf "b-$1" &&
    skopeo copy --quiet --dest-tls-verify=false "oci:oci:$1" "docker://$REG/team/$1:v1"
}
for i in a:100000 b:200000 c:300000 big:6000000; do mkimage "${i%%:*}" "${i#*:}" || bail "image ${i%%:*}"; done
cd - >/dev/null || bail "cd"

S=$T/store
img() { "$SLURMLINK" image "$@" --store "$S"; }
pulljson() { img pull "$REG/team/$1:v1" --json "${@:2}"; }
da=$(pulljson a | jq -r .digest); sa=$(jq -r .size "$S/sha256/${da#sha256:}/image.json")
db=$(pulljson b | jq -r .digest); sb=$(jq -r .size "$S/sha256/${db#sha256:}/image.json")
like "$da $db" '^sha256:[0-9a-f]{64} sha256:[0-9a-f]{64}$' "two images pulled"
list=$(img list)
is "$(head -1 <<<"$list" | tr -s ' ')" "REPOSITORY TAG DIGEST SIZE LAST-USED IN-USE PATH" "list header"
like "$(grep "team/a " <<<"$list")" "^$REG/team/a +v1 +${da:7:12} +[0-9.]+[KM]iB +- +0 +$S/sha256/${da#sha256:}/rootfs$" \
  "a row: repository, tag, digest (12 digits), size, never used, no pod"
js=$(img list -o json)
is "$(jq -r --arg d "$da" '.[] | select(.digest == $d) | "\(.kind) \(.ref) \(.size) \(.inUse | length)"' <<<"$js")" \
  "pulled $REG/team/a:v1 $sa 0" "list -o json: kind, ref, size as du counts it, inUse"
out=$(img rm "$REG/team/b:v1" 2>&1)
is "$out" "removed $REG/team/b:v1 ($db)" "rm by reference says which digest went"
ok test ! -e "$S/sha256/${db#sha256:}" -a ! -e "$S/refs/$REG%team%b+v1" "its digest folder and its tag are gone"
like "$(img rm "$REG/team/b:v1" 2>&1)" "no image $REG/team/b:v1 in $S" "rm of it again: no such image"
pulljson b >/dev/null
ok img rm "${db:7:12}" "rm by a 12-digit digest prefix"
ok test ! -e "$S/sha256/${db#sha256:}" "  gone"

# a tag pushed again: the old digest dangles until pruned
skopeo copy --quiet --dest-tls-verify=false "docker://$REG/team/c:v1" "docker://$REG/team/a:v1" --src-tls-verify=false
da2=$(pulljson a | jq -r .digest)
ok test "$da2" != "$da" "team/a:v1 now names another digest"
like "$(img list | grep "${da:7:12}")" '^<none> +<none> ' "the old digest is listed <none> <none> (dangling)"
is "$(img prune)" "removed $da
1 image removed" "prune removes the dangling one only"
ok test ! -e "$S/sha256/${da#sha256:}" -a -e "$S/sha256/${da2#sha256:}" "  the tagged one stays"
mkdir "$S/.pull-${da2#sha256:}-Xy12ab"
is "$(img prune --all | tail -1)" "1 image removed" "prune --all removes every unused image"
ok test ! -e "$S/sha256/${da2#sha256:}" -a ! -e "$S/.pull-${da2#sha256:}-Xy12ab" "  and the leftover of a pull cut short"

# conversions for enroot (squashfs, really built) and apptainer (not installed here)
pulljson a >/dev/null
out=$(img convert "$REG/team/a:v1" --to squashfs 2>&1)
like "$out" "^converted $REG/team/a:v1: $S/sha256/${da2#sha256:}/image.sqsh$" "convert --to squashfs: $out"
like "$(unsquashfs -l "$S/sha256/${da2#sha256:}/image.sqsh" 2>&1)" 'squashfs-root/bin/busybox' "  unsquashfs -l lists the image's files"
like "$(img convert "$REG/team/a:v1" --to squashfs 2>&1)" '^found ' "  a second convert finds it (once per digest)"
err=$(command -v apptainer >/dev/null || img convert "$REG/team/a:v1" --to sif 2>&1)
like "$err" 'cannot build the sif of .*: apptainer is not installed' "convert --to sif without apptainer: $err"
img rm "$REG/team/a:v1" >/dev/null
# the limit: least recently used first, then "image store full"
skopeo copy --quiet --src-tls-verify=false --dest-tls-verify=false "docker://$REG/team/a@$da" "docker://$REG/team/a:v1"
pulljson b >/dev/null
s0=$(date +%s)
wait_for 3 eval '[ "$(date +%s)" -gt "$s0" ]' # LAST-USED has one-second steps: the next one
dc=$(pulljson c | jq -r .digest)
sc=$(jq -r .size "$S/sha256/${dc#sha256:}/image.json")
da3=$(pulljson a --limit $((sc + sc + 100)) | jq -r .digest)
ok test -e "$S/sha256/${da3#sha256:}/image.json" -a -e "$S/sha256/${dc#sha256:}" "a pull over the limit is installed"
ok test ! -e "$S/sha256/${db#sha256:}" "  after the least recently used image (b) was removed"
err=$(img pull "$REG/team/big:v1" --limit 3000000 2>&1); rc=$?
is "$rc" 1 "an image bigger than the limit fails"
like "$err" 'image store full: the image needs [0-9]+ bytes' "  image store full: $err"
is "$(ls -A "$S" | grep -c '^\.pull\|^\.rm')" 0 "  nothing half-pulled is left"
is "$(ls "$S/sha256" | wc -l)" 0 "  and the unused images went trying"

# --- pods: in use is what slurmlinkd's live pods use ------------------------------
LIMIT=$((sc + sa + (sb - sa) / 2)) # c and a fit, c and b do not; b alone does
mkdir -p "$T/bin" && chmod 711 "$T" && chmod 755 "$T/bin"
printf '#!/bin/sh\nexec "%s" "$@" --image-store-limit %s\n' "$SLURMLINKD" "$LIMIT" >"$T/bin/slurmlinkd"
chmod +x "$T/bin/slurmlinkd"
ln -s "$(dirname "$SLURMLINKD")/slurmlink-shim" "$T/bin/slurmlink-shim"
SLURMLINKD=$T/bin/slurmlinkd cluster_up || bail "cluster up"
KC=(kubectl --cache-dir "$CL/kcache")
S=$CL/images
pod() { # name image command...
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: $REG/team/$2:v1
    command: [$3]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
users() { img list -o json | jq -r --arg r "$REG/team/$1:v1" '.[] | select(.ref == $r) | .inUse | join(",")'; }
is_users() { [ "$(users "$1")" = "$2" ]; }
pod long c '"sleep", "600"' | kc apply -f - >/dev/null
ok wait_for 120 is_phase long Running "a pod of team/c runs"
is "$(users c)" "default/long" "list: team/c is in use by default/long"
like "$(img list | grep "team/c ")" ' 1 +/' "  IN-USE 1"
err=$(img rm "$REG/team/c:v1" 2>&1); rc=$?
is "$rc" 1 "rm of an image a live pod uses is refused"
like "$err" "in use by pod default/long" "  naming the pod: $err"
img prune --all >/dev/null
ok test -e "$S/sha256/${dc#sha256:}/image.json" "prune --all leaves it"
pod other c '"sh", "-c", "exit 0"' | kc apply -f - >/dev/null
ok wait_for 120 is_phase other Succeeded "a second pod of the image runs"
ok wait_for 30 is_users c default/long "  and is no longer a user once Succeeded"

pod a1 a '"sh", "-c", "exit 0"' | kc apply -f - >/dev/null
ok wait_for 120 is_phase a1 Succeeded "team/a fits beside team/c"
wait_for 30 is_users a "" # its use record goes within the controller's 2 s sweep
pod b1 b '"sh", "-c", "exit 0"' | kc apply -f - >/dev/null
ev() { kc get events --field-selector involvedObject.name="$1",reason=Failed -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'; }
has_full() { ev b1 | grep -q 'image store full'; }
ok wait_for 60 has_full "team/b does not fit: team/a (unused) went, team/c is in use"
like "$(ev b1 | head -1)" "^Failed to pull image \"$REG/team/b:v1\": image store full: " "  Failed: $(ev b1 | head -1)"
ok test ! -e "$S/sha256/${da3#sha256:}" "  the unused team/a was removed trying" ||
  diag "a=$da3 c=$dc LIMIT=$LIMIT sa=$sa sb=$sb sc=$sc; $(ls -la "$S" "$S/sha256"; find "$S/uses" -type f; img list)"
is "$(kc get pod b1 -o jsonpath='{.status.phase} {.metadata.annotations.slurmlink\.io/job-id}')" "Pending " "  the pod stays Pending, no Slurm job"
kc delete pod long --wait=false >/dev/null
gone() { ! kc get pod "$1" >/dev/null 2>&1; }
wait_for 60 gone long
ok wait_for 120 is_phase b1 Succeeded "once the pod of team/c is gone, team/b is pulled (c removed) and runs" ||
  diag "$(ev b1; ls -la "$S/sha256"; find "$S/uses" -type f; img list; grep -i image "$CL/log/slurmlinkd.log" | tail)"
ok test ! -e "$S/sha256/${dc#sha256:}" "  team/c made room"
is "$(ls -A "$S" | grep -c '^\.pull\|^\.rm')" 0 "no work folders are left"
