#!/bin/bash
# covers: src/translate/ src/slurmif/ src/shim/
# 68-attack-texts-slurm.t — what a tenant reads about a failure names the
# reason, never the daemon's folders, temporary files or pid (those stay in
# slurmlinkd's log); on a real cluster (`slurmlink up`, the controllers
# writing pod folders):
#   - a config map item path no file system takes: the pod's status and its
#     FailedCreate event say "File name too long", no path, no pid;
#   - a config map key of 250 characters (valid: keys go to 253) is mounted:
#     writing it does not need a longer temporary name.
source "$(dirname "$0")/lib.sh"
plan 6

cluster_up || { echo "not ok 1 - slurmlink up"; exit 1; }
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
DPID=$(cat "$CL/run/slurmlinkd.pid")
ka() { kubectl --cache-dir "$CL/cache-admin" "$@"; }
long=$(printf 'x%.0s' {1..300})
key=$(printf 'k%.0s' {1..250})
ka create configmap cm --from-literal=a=b --from-literal="$key=long key" >/dev/null
pod() { # name, volume json, command
  cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"restartPolicy":"Never","volumes":[{"name":"v","configMap":$2}],
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","$3"],
   "volumeMounts":[{"name":"v","mountPath":"/home"}],
   "resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}
JSON
}
pod bad "{\"name\":\"cm\",\"items\":[{\"key\":\"a\",\"path\":\"d/$long\"}]}" "true" | ka create -f - >/dev/null
events() { ka get events --field-selector involvedObject.name=bad -o jsonpath='{.items[*].message}'; }
has_msg() { [ -n "$(events)" ]; }
ok wait_for 60 has_msg "a pod whose config map item path is too long fails to be set up"
texts="$(ka get pod bad -o jsonpath='{.status}') $(events)"
diag "what the tenant reads: $texts"
like "$texts" "File name too long" "... its status and events say why"
unlike "$texts" "(/tmp/|/var/|$CL|\\.tmp\\.|(^|[^0-9])$DPID([^0-9]|\$))" \
  "... and name no folder, temporary file or pid"
like "$(cat "$CL/log/slurmlinkd.log" 2>/dev/null)" "File name too long" "the detail is in slurmlinkd's log"

pod good "{\"name\":\"cm\"}" "cat /home/$key" | ka create -f - >/dev/null
done_good() { [ "$(ka get pod good -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 90 done_good "a config map key of 250 characters is mounted: the pod succeeds"
is "$(ka logs good 2>&1)" "long key" "... and reads it"
done_testing
