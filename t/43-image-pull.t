#!/bin/bash
# covers: src/image/ src/ctl/pull.c src/ctl/pullpool.c src/slurmif/acct.c
# Images from a registry: a real docker-registry on loopback, images built
# here with umoci from busybox-static and pushed with skopeo; `slurmlink
# image pull` (store per digest, layers with a deleted file, image config,
# cached second pull, clear errors), then pods that name registry images:
# pulled before submission, events, imageID, the image's entrypoint and
# env, a cached second pod, and failures that never become Slurm jobs.
source "$(dirname "$0")/lib.sh"
plan 50

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry --delete "$T" "log: {level: info, accesslog: {disabled: false}}"

# --- images: two layers (a file deleted in the upper one), then config -------
cd "$T" || bail "cd"
umoci init --layout oci && umoci new --image oci:app
umoci unpack --rootless --image oci:app b1 >/dev/null
mkdir -p b1/rootfs/bin b1/rootfs/data && cp /bin/busybox b1/rootfs/bin/ && ln -s busybox b1/rootfs/bin/sh && ln -s busybox b1/rootfs/bin/cat && ln -s busybox b1/rootfs/bin/echo
echo gone >b1/rootfs/data/deleted; echo kept >b1/rootfs/data/kept
umoci repack --image oci:app b1 && rm -rf b1
umoci unpack --rootless --image oci:app b2 >/dev/null && rm b2/rootfs/data/deleted
umoci repack --image oci:app b2 && rm -rf b2
umoci config --image oci:app --config.entrypoint /bin/sh --config.entrypoint -c \
  --config.cmd 'echo "entry cmd=$0 FOO=$FOO BAR=$BAR pwd=$(pwd)"' --config.cmd from-cmd \
  --config.env FOO=from-image --config.env BAR=image-bar --config.workingdir /data
ok skopeo copy --quiet --dest-tls-verify=false oci:oci:app "docker://$REG/team/app:v1" "skopeo pushes team/app:v1"
# a multi-arch index: linux/amd64 is app, linux/arm64 another image
umoci new --image oci:arm && umoci unpack --rootless --image oci:arm b3 >/dev/null
mkdir -p b3/rootfs && echo arm64 >b3/rootfs/arch && umoci repack --image oci:arm b3 && rm -rf b3
umoci config --image oci:arm --architecture arm64
desc() { jq -c --arg r "$1" --arg a "$2" '.manifests[] | select(.annotations."org.opencontainers.image.ref.name" == $r)
  | {mediaType, digest, size, platform: {os: "linux", architecture: $a}}' oci/index.json; }
idx=$(jq -cn --argjson a "$(desc app amd64)" --argjson b "$(desc arm arm64)"   '{schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests: [$b, $a]}')
IH=$(printf '%s' "$idx" | sha256sum | cut -d' ' -f1)
printf '%s' "$idx" >"oci/blobs/sha256/$IH"
jq --arg d "sha256:$IH" --argjson n "${#idx}" '.manifests += [{mediaType: "application/vnd.oci.image.index.v1+json",
  digest: $d, size: $n, annotations: {"org.opencontainers.image.ref.name": "multi"}}]' oci/index.json >oci/i.json && mv oci/i.json oci/index.json
ok skopeo copy --quiet --all --dest-tls-verify=false oci:oci:multi "docker://$REG/team/multi:v1" "skopeo pushes a multi-arch index"
# an image whose layer the registry will serve truncated
umoci new --image oci:brk && umoci unpack --rootless --image oci:brk b4 >/dev/null
head -c 300000 /dev/urandom >b4/rootfs/noise && umoci repack --image oci:brk b4 && rm -rf b4
skopeo copy --quiet --dest-tls-verify=false oci:oci:brk "docker://$REG/team/brk:v1"
cd - >/dev/null || bail "cd"

S=$T/store
img() { "$SLURMLINK" image "$@" --store "$S"; }
out=$(img pull "$REG/team/app:v1" --json 2>&1); rc=$?
is "$rc" 0 "image pull $REG/team/app:v1"
D=$(jq -r .digest <<<"$out")
like "$D" '^sha256:[0-9a-f]{64}$' "the manifest digest is reported"
is "$(jq -r .imageID <<<"$out")" "$REG/team/app@$D" "imageID is repository@digest"
R=$S/sha256/${D#sha256:}/rootfs
ok test -f "$R/data/kept" "stored per digest: $R"
ok test ! -e "$R/data/deleted" "the file deleted in the upper layer is absent (whiteout applied)"
is "$(jq -c .config.Entrypoint "$S/sha256/${D#sha256:}/image.json")" '["/bin/sh","-c"]' "image config stored beside the tree"
is "$(jq -r .digest "$S/refs/$REG%team%app+v1")" "$D" "the tag's resolution is recorded"
is "$(USER=$(id -un) ch-run "$R" -- cat /data/kept)" kept "ch-run runs the pulled tree"
blobs() { grep -c 'GET /v2/team/app/blobs/' "$T/reg.log"; }
n=$(blobs)
is "$(img pull "$REG/team/app:v1" --json | jq -r .cached)" true "a second pull finds the digest in the store"
is "$(blobs)" "$n" "and fetches no blob"
is "$(ls -A "$S" | grep -c '^\.pull')" 0 "no work folders left"

err=$(img pull "$REG/team/app:nope" 2>&1); rc=$?
is "$rc" 1 "a missing tag fails"
like "$err" 'manifest unknown' "with the registry's answer"
err=$(img pull "127.0.0.1:$(free_ports 1)/team/app:v1" 2>&1)
like "$err" 'connection refused' "a registry that is down: connection refused"
out=$(img pull "$REG/team/multi:v1" --json 2>&1)
is "$(jq -r .digest <<<"$out")" "$(jq -r '.manifests[] | select(.platform.architecture == "amd64") | .digest' <<<"$idx")" \
  "a multi-arch index resolves to the linux/amd64 manifest"
is "$(jq -r .imageID <<<"$out")" "$REG/team/multi@sha256:$IH" "imageID names the index digest the tag resolved to"
ok test ! -e "$(jq -r .path <<<"$out")/arch" "the arm64 image is not what was unpacked"
out=$(img pull "$REG/team/multi:v1" --platform linux/arm64 --json 2>&1)
is "$(jq -r .digest <<<"$out")" "$(jq -r '.manifests[] | select(.platform.architecture == "arm64") | .digest' <<<"$idx")" \
  "--platform linux/arm64 resolves the index to the arm64 manifest"
is "$(cat "$(jq -r .path <<<"$out")/arch" 2>&1)" arm64 "  and unpacks that image"
like "$(img pull "$REG/team/multi:v1" --platform arm64 2>&1)" 'want linux/ARCH' "a platform that is not linux/ARCH is refused"
L=$(jq -r '.layers[0].digest' "$T/oci/blobs/sha256/$(jq -r '.manifests[] | select(.annotations."org.opencontainers.image.ref.name" == "brk") | .digest' "$T/oci/index.json" | cut -d: -f2)")
B=$(find "$T/regdata" -path "*/blobs/sha256/*/${L#sha256:}/data")
truncate -s 1000 "$B"
err=$(img pull "$REG/team/brk:v1" 2>&1); rc=$?
is "$rc" 1 "a truncated blob fails the pull"
like "$err" 'Digest did not match|unexpected EOF' "with what was wrong: $(head -c 200 <<<"$err")"
is "$(ls -A "$S" | grep -c '^\.pull')" 0 "nothing half-pulled is left behind"
err=$(img pull "Team/App" 2>&1)
like "$err" 'invalid image reference.*lower-case' "a malformed reference is refused before any registry"

# --- pods -------------------------------------------------------------------
cluster_up || bail "cluster up"
KC=(kubectl --cache-dir "$CL/kcache")
pod() { # name image [container yaml]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: $2
    resources: {requests: {cpu: 100m, memory: 64Mi}}
${3:-}
YAML
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
show() { # what a pod that did not get there looks like
  diag "$(kc get pod "$1" -o jsonpath='{.status}' 2>&1)"
  diag "$(kc get events --field-selector involvedObject.name="$1" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1)"
  diag "$(cat "$CL"/pods/default/"$1"-*/job.out "$CL"/pods/default/"$1"-*/logs/*/* 2>&1 | tail -n 20)"
}
wr() { kc get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
is_wr() { [ "$(wr "$1")" = "$2" ]; }
pod p1 "$REG/team/app:v1" '    env: [{name: BAR, value: from-pod}]' | kc apply -f - >/dev/null
wait_for 120 is_phase p1 Succeeded; r=$?
is "$r" 0 "a pod of a registry image runs to Succeeded"
[ "$r" = 0 ] || show p1
is "$(kc logs p1 2>&1)" "entry cmd=from-cmd FOO=from-image BAR=from-pod pwd=/data" \
  "no command: the image's ENTRYPOINT and CMD run, image ENV under the pod's env, WORKDIR"
ev=$(kc get events --field-selector involvedObject.name=p1 --sort-by=.metadata.creationTimestamp -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' 2>&1)
like "$(tr '\n' ' ' <<<"$ev")" 'Pulling Pulled .*Started' "events: Pulling, Pulled, then the container starts"
like "$(kc get events --field-selector involvedObject.name=p1,reason=Pulled -o jsonpath='{.items[0].message}')" \
  "^Successfully pulled image \"$REG/team/app:v1\" in [0-9.]+s \\([0-9.]+s including waiting\\)\\. Image size: [0-9]+ bytes\\.$" "Pulled says how long and how big"
is "$(kc get pod p1 -o jsonpath='{.status.containerStatuses[0].imageID}')" "$REG/team/app@$D" "containerStatuses[0].imageID"

n=$(blobs)
pod p2 "$REG/team/app:v1" '    command: ["cat", "/data/kept"]' | kc apply -f - >/dev/null
wait_for 120 is_phase p2 Succeeded; r=$?
is "$r" 0 "a second pod of the image runs"
[ "$r" = 0 ] || show p2
is "$(kc logs p2 2>&1)" kept "command replaces the entrypoint"
is "$(blobs)" "$n" "the second pod pulls no blob (cached per digest)"

pod p3 "$REG/team/app:v1" '    imagePullPolicy: Never
    args: ["echo args replace cmd"]' | kc apply -f - >/dev/null
wait_for 120 is_phase p3 Succeeded; r=$?
is "$r" 0 "imagePullPolicy Never with the image present runs"
[ "$r" = 0 ] || show p3
is "$(kc logs p3 2>&1)" "args replace cmd" "args replace CMD, the ENTRYPOINT stays"

# concurrent pods of an image not yet pulled wait for one pull
for i in 1 2 3; do kc delete pod p$i --wait=false >/dev/null 2>&1; done
mark=$(wc -l <"$T/reg.log")
pids=()
for i in 1 2 3; do pod c$i "$REG/team/multi:v1" '    command: ["sh", "-c", "exit 0"]' | kc apply -f - >/dev/null & pids+=($!); done
wait "${pids[@]}" # not the registry's
n=0; for i in 1 2 3; do if wait_for 120 is_phase c$i Succeeded; then n=$((n + 1)); else show c$i; fi; done
is "$n" 3 "three concurrent pods of one image all run"
is "$(tail -n +"$((mark + 1))" "$T/reg.log" | grep -o 'GET /v2/team/multi/blobs/sha256:[0-9a-f]*' | sort | uniq -d | wc -l)" 0 \
  "no blob was fetched twice: one pull served all three (single-flight)"

# bad input: each a clear status, no Slurm job
err=$(pod bad1 "$REG/Team/App:v1" | kc apply -f - 2>&1)
like "$err" 'spec.containers\[0\].image: Invalid value: "127.0.0.1:[0-9]+/Team/App:v1": each name component is lower-case' "a malformed image is a 422 naming spec.containers[0].image"
pod miss "$REG/team/app:nope" | kc apply -f - >/dev/null
ok wait_for 60 is_wr miss ImagePullBackOff "a missing tag: waiting ImagePullBackOff"
like "$(kc get events --field-selector involvedObject.name=miss,reason=Failed -o jsonpath='{range .items[*]}{.message}{"\n"}{end}')" \
  "Failed to pull image \"$REG/team/app:nope\": .*manifest unknown" "Failed event with the registry's answer"
like "$(kc get events --field-selector involvedObject.name=miss -o jsonpath='{range .items[*]}{.reason}{" "}{end}')" 'BackOff' "BackOff event"
is "$(kc get pod miss -o jsonpath='{.status.phase}')" Pending "the pod stays Pending"
pod down "127.0.0.1:$(free_ports 1)/team/app:v1" | kc apply -f - >/dev/null
ok wait_for 60 is_wr down ImagePullBackOff "a registry that is down: ImagePullBackOff"
like "$(kc get pod down -o jsonpath='{.status.containerStatuses[0].state.waiting.message}')" 'Back-off pulling image' "its message"
pod never "$REG/team/other:v1" '    imagePullPolicy: Never' | kc apply -f - >/dev/null
ok wait_for 60 is_wr never ErrImageNeverPull "Never and not present: ErrImageNeverPull"
for p in miss down never; do
  is "$(kc get pod $p -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')" "" "$p never became a Slurm job"
done
uids=$(kc get pod miss down never -o jsonpath='{range .items[*]}{.metadata.uid}{"\n"}{end}')
jobs=$(squeue -h -o '%k' 2>&1; sacct -n -X -o comment%80 2>&1)
is "$(grep -cFf <(grep . <<<"$uids") <<<"$jobs")" 0 "neither squeue nor sacct knows a job of them"
