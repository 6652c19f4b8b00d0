#!/bin/bash
# covers: src/image/ src/ctl/pull.c src/ctl/pullpool.c src/slurmif/acct.c
# The image's USER, by Kubernetes' rules, within the job user's rights:
# charliecloud runs the process as the image's ids inside its user namespace
# (ch-run --uid/--gid), mapped to the job's Unix user outside (what it
# writes belongs to the job user); runAsUser overrides USER; a named USER is
# looked up in the image's own /etc/passwd, and one that is not there fails
# the pod in runc's words, never as a Slurm job.
source "$(dirname "$0")/lib.sh"
plan 12

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"

cd "$T" || bail "cd"
umoci init --layout oci >/dev/null
mkimage() { # name USER
  umoci new --image "oci:$1" && umoci unpack --rootless --image "oci:$1" "b-$1" >/dev/null &&
    mkdir -p "b-$1/rootfs/bin" "b-$1/rootfs/etc" && cp /bin/busybox "b-$1/rootfs/bin/" &&
    for a in sh id touch stat; do ln -s busybox "b-$1/rootfs/bin/$a"; done &&
    printf 'root:x:0:0:root:/root:/bin/sh\napp:x:1234:2345::/:/bin/sh\n' >"b-$1/rootfs/etc/passwd" &&
    printf 'root:x:0:\napp:x:2345:\nstaff:x:50:app\n' >"b-$1/rootfs/etc/group" &&
    umoci repack --image "oci:$1" "b-$1" && rm -rf "b-$1" &&
    umoci config --image "oci:$1" --config.user "$2" &&
    skopeo copy --quiet --dest-tls-verify=false "oci:oci:$1" "docker://$REG/team/$1:v1"
}
for i in u1000:1000 uapp:app ustaff:app:staff ughost:ghost; do mkimage "${i%%:*}" "${i#*:}" || bail "image ${i%%:*}"; done
cd - >/dev/null || bail "cd"

cluster_up || bail "cluster up"
JU=$(id -u nobody) # the job user (slurm.run_as)
pod() { # name image [securityContext yaml]
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
${3:-}
  volumes: [{name: out, emptyDir: {}}]
  containers:
  - name: main
    image: $REG/team/$2:v1
    command: ["sh", "-c", "echo \$(id -u) \$(id -g); touch /out/f; stat -c %u /out/f"]
    volumeMounts: [{name: out, mountPath: /out}]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
done_() { is_phase "$1" Succeeded || is_phase "$1" Failed; }
show() { diag "$(kc get pod "$1" -o jsonpath='{.status}' 2>&1; cat "$CL"/pods/default/"$1"-*/logs/*/* 2>&1 | tail -5)"; }
owner() { stat -c %u "$CL"/pods/default/"$1"-*/volumes/out/f 2>/dev/null; }

pod p1000 u1000
wait_for 120 done_ p1000
is "$(phase p1000)" Succeeded "a pod of an image whose USER is 1000 runs" || show p1000
is "$(kc logs p1000 2>&1)" "1000 0
1000" "inside: uid 1000, gid 0 (no passwd entry: gid 0, as runc); its file is uid 1000 there"
is "$(owner p1000)" "$JU" "outside, the file belongs to the job user ($JU): the job user's rights only"

pod papp uapp
wait_for 120 done_ papp
is "$(kc logs papp 2>&1 | head -1)" "1234 2345" "a named USER: its uid and gid from the image's /etc/passwd" || show papp
pod pstaff ustaff
wait_for 120 done_ pstaff
is "$(kc logs pstaff 2>&1 | head -1)" "1234 50" "USER app:staff: the group from the image's /etc/group" || show pstaff

pod prau u1000 "  securityContext: {runAsUser: $JU}"
wait_for 120 done_ prau
is "$(kc logs prau 2>&1 | head -1)" "$JU $(id -g nobody)" "runAsUser overrides the image's USER: the job user's own ids" || show prau
pod prag u1000 "  securityContext: {runAsGroup: $(id -g nobody)}"
wait_for 120 done_ prag
is "$(kc logs prag 2>&1 | head -1)" "1000 $(id -g nobody)" "runAsGroup overrides the image's group, USER's uid stays" || show prag

pod pghost ughost
wait_for 120 done_ pghost
is "$(phase pghost)" Failed "a named USER the image's passwd lacks fails the pod"
msg=$(kc get pod pghost -o jsonpath='{.status.message} {.status.containerStatuses[0].state}' 2>&1)
like "$msg" 'unable to find user ghost: no matching entries in passwd file' "  in runc's words: $(head -c 200 <<<"$msg")"
is "$(kc get pod pghost -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')" "" "  and never became a Slurm job"
uid=$(kc get pod pghost -o jsonpath='{.metadata.uid}')
is "$( (squeue -h -t all -o '%k'; sacct -n -X -o comment%80) 2>/dev/null | grep -c "$uid")" 0 "  neither squeue nor sacct knows one"
ok test -n "$(grep -l '"User": "ghost"' "$CL"/images/sha256/*/image.json 2>/dev/null)" "the image's USER is recorded in image.json"
