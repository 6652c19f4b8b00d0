#!/bin/bash
# covers: src/kinds/service/ src/api/svcproxy.c
# 95-service.t — Services on a real Slurm cluster (HTTPS, tenants as real
# Unix users): Endpoints and EndpointSlices list the ready pods a Service
# selects (a pending pod is not listed, a deleted one leaves); the service
# proxy (.../services/NAME:PORT/proxy/PATH) reaches busybox httpd in them
# through kubectl get --raw and curl with a bearer token; kubectl
# port-forward svc/NAME and kubectl expose pod; refusals: another tenant
# (403), a port that is not the pod's own user's (403), a Service without a
# ready endpoint (503), bad Services (422 naming the field), Endpoints are
# not tenants' to write.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 42

sec_two_tenants --token || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
W=$(tmpdir)
on_exit "rm -rf '$W'"
chmod 755 "$W"
head -c 200000 /dev/urandom >"$W/blob"
echo hello >"$W/index.html"
chmod 644 "$W/blob" "$W/index.html"
# a CGI script: what the pod receives of a proxied request
mkdir -p "$W/cgi-bin"
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n"\necho "method=$REQUEST_METHOD query=$QUERY_STRING auth=${HTTP_AUTHORIZATION:-none} x=${HTTP_X_TEST:-none}"\nhead -c "${CONTENT_LENGTH:-0}"\n' >"$W/cgi-bin/env"
chmod 755 "$W/cgi-bin" "$W/cgi-bin/env"
B=$(free_ports 4) || bail "free ports"
P1=$B P2=$((B + 1)) P3=$((B + 2)) L1=$((B + 3))
pod() { # name port [cpu]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: web}, annotations: {slurmlink.io/tmp: node}}
spec:
  containers:
  - name: main
    image: busybox
    command: [busybox, httpd, -f, -p, "$2", -h, "$W"]
    ports: [{name: http, containerPort: $2}]
    resources: {requests: {cpu: ${3:-100m}, memory: 64Mi}}
YAML
}
svc() { # name selector-app port targetPort
  cat <<YAML
apiVersion: v1
kind: Service
metadata: {name: $1}
spec:
  selector: {app: $2}
  ports: [{name: http, port: $3, targetPort: $4}]
YAML
}
pod web1 "$P1" | kc alice apply -f - >/dev/null
pod web2 "$P2" | kc alice apply -f - >/dev/null
pod bobweb "$P3" | kc bob apply -f - >/dev/null
running() { [ "$(kc "$1" get pod "$2" -o jsonpath='{.status.phase}')" = Running ]; }
ok wait_for 90 sh -c "$(declare -f kc running); CL='$CL'; running alice web1 && running alice web2 && running bob bobweb" \
  "the three web pods run"
# a pod the Service selects that cannot run yet (the node's 4 CPUs)
pod web3 "$((B + 9))" 4 | kc alice apply -f - >/dev/null
svc web web 80 http | kc alice apply -f - >/dev/null
svc bobsvc web 8080 "$P3" | kc bob apply -f - >/dev/null

out=$(kc alice get svc web)
like "$out" "NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE" "kubectl get svc: kube's columns"
like "$out" "web +ClusterIP +<none> +<none> +80/TCP" "... ClusterIP, no cluster IP, the port"
is "$(kc alice get svc web -o jsonpath='{.spec.sessionAffinity} {.spec.ports[0].protocol} {.spec.ipFamilies[0]}')" \
  "None TCP IPv4" "defaults: sessionAffinity None, protocol TCP, ipFamilies IPv4"

# names of the pods in the Endpoints' addresses (or notReadyAddresses), sorted
ep_pods() { kc alice get endpoints "$1" -o jsonpath="{range .subsets[*].${2:-addresses}[*]}{.targetRef.name}{'\n'}{end}" | sort | tr '\n' ' '; }
ok wait_for 60 sh -c "$(declare -f kc ep_pods); CL='$CL'; [ \"\$(ep_pods web)\" = 'web1 web2 ' ]" \
  "Endpoints list the two ready pods"
diag "endpoints: $(kc alice get endpoints web -o json | jq -c .subsets)"
is "$(kc alice get pod web3 -o jsonpath='{.status.phase}')" "Pending" "web3 waits for CPUs"
is "$(kc alice get endpoints web -o json | jq -r '[.subsets[] | (.addresses // [])[], (.notReadyAddresses // [])[] | .targetRef.name] | sort | join(" ")')" \
  "web1 web2" "... and is not listed, ready or not (it has no address yet)"
is "$(kc alice get endpoints web -o json | jq -c '[.subsets[] | .ports[0].port] | sort')" "[$P1,$P2]" \
  "the named targetPort resolves to each pod's own container port"
slices=$(kc alice get endpointslices -l kubernetes.io/service-name=web -o json)
is "$(jq -r '[.items[].endpoints[]? | select(.conditions.ready) | .targetRef.name] | sort | join(" ")' <<<"$slices")" \
  "web1 web2" "EndpointSlices (label kubernetes.io/service-name) list both as ready"
is "$(jq -r '[.items[].metadata.labels["endpointslice.kubernetes.io/managed-by"]] | unique | join(" ")' <<<"$slices")" \
  "endpointslice-controller.k8s.io" "... managed-by label as kube's controller sets"
like "$(kc alice get ep,endpointslices 2>&1)" "endpoints/web +.*:$P1" "kubectl get ep,endpointslices prints them"
like "$(kc alice describe svc web)" "Endpoints: +.*:($P1|$P2)" "kubectl describe svc: its Endpoints line"

# the service proxy
kc alice get --raw "/api/v1/namespaces/team-a/services/web:http/proxy/blob" >"$W/got1" 2>"$W/err1"
ok cmp -s "$W/got1" "$W/blob" "kubectl get --raw services/web:http/proxy/blob: the file, byte for byte"
is "$(kc alice get --raw '/api/v1/namespaces/team-a/services/web:80/proxy/index.html?x=1')" "hello" \
  "... by the port's number, a query passed on"
URL=$(kubectl config view --raw --kubeconfig "$CL/bob.kc" -o jsonpath='{.clusters[0].cluster.server}')
TOK=$(kubectl config view --raw --kubeconfig "$CL/bob.kc" -o jsonpath='{.users[0].user.token}')
kubectl config view --raw --kubeconfig "$CL/bob.kc" -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$W/ca.crt"
CURL=(curl -s --cacert "$W/ca.crt" -H "Authorization: Bearer $TOK")
"${CURL[@]}" -o "$W/got2" "$URL/api/v1/namespaces/team-b/services/bobsvc/proxy/blob"
ok cmp -s "$W/got2" "$W/blob" "curl with bob's token over the API's TLS: his Service's pod's file"
is "$("${CURL[@]}" -I -o /dev/null -w '%{http_code}' "$URL/api/v1/namespaces/team-b/services/bobsvc/proxy/index.html")" \
  "200" "... HEAD answered by the pod"
out=$("${CURL[@]}" -X POST -H 'X-Test: yes' --data-binary 'the-body' "$URL/api/v1/namespaces/team-b/services/bobsvc/proxy/cgi-bin/env?a=1&b=two")
like "$out" "^method=POST query=a=1&b=two auth=none x=yes" \
  "POST through the proxy: the method, query and headers reach the pod, the API's Authorization does not"
like "$out" "the-body\$" "... and the body"
ip=$(kc bob get pod bobweb -o jsonpath='{.status.podIP}')
like "$(curl -s -H 'Authorization: Bearer direct' "http://$ip:$P3/cgi-bin/env")" "auth=Bearer direct" \
  "... (the pod's server would show an Authorization header it got: asked directly, it does)"
code=$("${CURL[@]}" -o "$W/st" -w '%{http_code}' "$URL/api/v1/namespaces/team-a/services/web/proxy/blob")
is "$code $(jq -r .reason "$W/st")" "403 Forbidden" "bob cannot proxy to alice's Service (403)"

# alice aims a Service of her pod at bob's port on the node, and at sshd's
svc evil web 80 "$P3" | kc alice apply -f - >/dev/null
ok wait_for 30 sh -c "$(declare -f kc ep_pods); CL='$CL'; [ \"\$(ep_pods evil)\" != '' ]" "alice's Service aimed at bob's port has endpoints"
out=$(kc alice get --raw "/api/v1/namespaces/team-a/services/evil/proxy/blob" 2>&1)
like "$out" "reaches only a port the pod's own user listens on \\(1024 and up\\): not port $P3 of pod web1" \
  "... the proxy refuses a port another user listens on (403)"
svc ssh web 80 22 | kc alice apply -f - >/dev/null
ok wait_for 30 sh -c "$(declare -f kc ep_pods); CL='$CL'; [ \"\$(ep_pods ssh)\" != '' ]" "a Service aimed at port 22 has endpoints"
like "$(kc alice get --raw "/api/v1/namespaces/team-a/services/ssh/proxy/" 2>&1)" "not port 22 of pod web1" \
  "... the proxy refuses a port below 1024"
out=$(kc alice create -f - 2>&1 <<YAML
apiVersion: v1
kind: Endpoints
metadata: {name: web2x}
subsets: [{addresses: [{ip: 127.0.0.1}], ports: [{port: 6443}]}]
YAML
)
like "$out" "does not allow this method" "a tenant cannot write an Endpoints object (the controller's alone)"

# no ready endpoint: 503
svc nobody nothing 80 8080 | kc alice apply -f - >/dev/null
code=$(kc alice get --raw "/api/v1/namespaces/team-a/services/nobody/proxy/" 2>&1)
like "$code" 'no endpoints available for service \\?"nobody\\?"' "a Service with no ready pod: 503 no endpoints available"
"${CURL[@]}" -o "$W/st" "$URL/api/v1/namespaces/team-b/services/none/proxy/"
is "$(jq -r '.code' "$W/st")" "404" "a Service that does not exist: 404"

# kubectl port-forward svc/web (kubectl picks a pod by the selector)
: >"$W/pf.log"
kc alice port-forward svc/web "$L1:80" >"$W/pf.log" 2>&1 &
FPID=$!
on_exit "kill $FPID 2>/dev/null"
wait_for 30 grep -q "Forwarding from 127.0.0.1" "$W/pf.log" || diag "$(cat "$W/pf.log")"
curl -s --max-time 30 -o "$W/got3" "http://127.0.0.1:$L1/blob"
ok cmp -s "$W/got3" "$W/blob" "kubectl port-forward svc/web 80: the pod's file"
kill "$FPID" 2>/dev/null

# kubectl expose pod
kc alice expose pod web1 --name exp --port 9000 --target-port http >/dev/null 2>"$W/exp.err" || diag "$(cat "$W/exp.err")"
is "$(kc alice get svc exp -o jsonpath='{.spec.selector.app} {.spec.ports[0].port} {.spec.ports[0].targetPort}')" \
  "web 9000 http" "kubectl expose pod web1: the pod's labels as selector, the ports"

# a deleted pod leaves
kc alice delete pod web2 --wait=false >/dev/null
ok wait_for 60 sh -c "$(declare -f kc ep_pods); CL='$CL'; [ \"\$(ep_pods web)\" = 'web1 ' ]" "a deleted pod leaves the Endpoints"

# bad input: 422 naming the field
bad() { kc alice apply -f - 2>&1; }
like "$(printf 'apiVersion: v1\nkind: Service\nmetadata: {name: lb}\nspec: {type: LoadBalancer, ports: [{port: 80}]}\n' | bad)" \
  'spec.type: Invalid value: "LoadBalancer": not served: slurmlink has no virtual network' "type LoadBalancer: 422 on spec.type saying why"
like "$(printf 'apiVersion: v1\nkind: Service\nmetadata: {name: p0}\nspec: {ports: [{port: 0}]}\n' | bad)" \
  'spec.ports\[0\].port: Invalid value: 0: must be between 1 and 65535, inclusive' "port 0: 422 on spec.ports[0].port"
like "$(printf 'apiVersion: v1\nkind: Service\nmetadata: {name: 1abc}\nspec: {ports: [{port: 80}]}\n' | bad)" \
  'metadata.name: Invalid value: "1abc": a DNS-1035 label' "a name starting with a digit: 422 (DNS-1035)"
like "$(printf 'apiVersion: v1\nkind: Service\nmetadata: {name: ip}\nspec: {clusterIP: 10.0.0.1, ports: [{port: 80}]}\n' | bad)" \
  'spec.clusterIP: Invalid value: "10.0.0.1"' "a cluster IP asked for: 422 on spec.clusterIP"
like "$(printf 'apiVersion: v1\nkind: Service\nmetadata: {name: np}\nspec: {ports: [{name: a, port: 80}, {name: a, port: 81}]}\n' | bad)" \
  'spec.ports\[1\].name: Duplicate value: "a"' "duplicate port names: 422"

# kubectl create service (a protobuf body), explain, a watch, a malformed proxy name
kc alice create service clusterip made --tcp=80:8080 >/dev/null 2>"$W/made.err" || diag "$(cat "$W/made.err")"
is "$(kc alice get svc made -o jsonpath='{.spec.ports[0].name} {.spec.ports[0].targetPort} {.spec.selector.app}')" \
  "80-8080 8080 made" "kubectl create service clusterip (protobuf body): ports, targetPort, selector"
like "$(kc alice explain service.spec.sessionAffinity 2>&1)" "FIELD: +sessionAffinity <string>" "kubectl explain service.spec.sessionAffinity"
timeout 5 kubectl --kubeconfig "$CL/alice.kc" --cache-dir "$CL/cache-alice" get endpoints -w >"$W/watch" 2>&1 &
WPID=$!
wait_for 5 grep -q '^made ' "$W/watch"
kc alice delete pod web1 --wait=false >/dev/null
wait "$WPID"
like "$(cat "$W/watch")" "web +<none>" "a watch of Endpoints sees web lose its last pod"
like "$(kc alice get --raw '/api/v1/namespaces/team-a/services/ftp:web:80/proxy/' 2>&1)" \
  'BadRequest.*invalid service request \\?"ftp:web:80' "a scheme other than http/https: 400"

# a ResourceQuota counts Services (bob has bobsvc)
ka apply -n team-b -f - >/dev/null <<YAML
apiVersion: v1
kind: ResourceQuota
metadata: {name: svcq}
spec: {hard: {services: "2"}}
YAML
svc b2 web 80 8080 | kc bob apply -f - >/dev/null
out=$(svc b3 web 80 8080 | kc bob apply -f - 2>&1)
like "$out" 'exceeded quota: svcq, requested: services=1, used: services=2, limited: services=2' \
  "a third Service beyond services: 2 is refused (403 exceeded quota)"
kc bob delete svc b2 >/dev/null
ok wait_for 30 sh -c "svc() { :; }; $(declare -f svc); svc b3 web 80 8080 | kubectl --kubeconfig '$CL/bob.kc' --cache-dir '$CL/cache-bob' apply -f - >/dev/null 2>&1" \
  "... and admitted once one is deleted (the recount)"

# deleting the Service takes its Endpoints and slices
kc alice delete svc web >/dev/null
ok wait_for 30 sh -c "! kubectl --kubeconfig '$CL/alice.kc' --cache-dir '$CL/cache-alice' get endpoints web >/dev/null 2>&1 && [ -z \"\$(kubectl --kubeconfig '$CL/alice.kc' --cache-dir '$CL/cache-alice' get endpointslices -l kubernetes.io/service-name=web -o name)\" ]" \
  "deleting the Service deletes its Endpoints and EndpointSlices"
