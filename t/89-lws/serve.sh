#!/bin/sh
# serve.sh — the command of t/89-lws.t's image, in place of nginx: prints
# the pod's LWS_* environment, serves HTTP on 8080 (the next free port when
# pods share a node's network) a page naming the pod's group and worker,
# and reaches its group by name: a worker the leader at LWS_LEADER_ADDRESS,
# the leader each worker at <leader>-<w>.<subdomain>.<ns>.
env | grep ^LWS_ | sort
page="group $LWS_LEADER_ADDRESS worker $LWS_WORKER_INDEX"
www=$(mktemp -d /tmp/lws-www.XXXXXX) # /tmp may be the node's, shared by its pods
echo "$page" >"$www/index.html"
(for p in 8080 8081 8082 8083 8084 8085 8086 8087; do httpd -f -p $p -h "$www"; done) &
# the page of worker $2 at host $1, on whichever port serves it
fetch() {
  for p in 8080 8081 8082 8083 8084 8085 8086 8087; do
    timeout 3 wget -q -O - "http://$1:$p/" 2>/dev/null | grep -qx "group $LWS_LEADER_ADDRESS worker $2" && return 0
  done
  return 1
}
reach() { # name worker
  i=0
  while [ $i -lt 60 ]; do
    fetch "$1" "$2" && { echo "reached $1"; return; }
    i=$((i + 1)); sleep 1
  done
  echo "did not reach $1"
}
if [ "$LWS_WORKER_INDEX" = 0 ]; then
  leader=${LWS_LEADER_ADDRESS%%.*} rest=${LWS_LEADER_ADDRESS#*.} w=1
  while [ $w -lt "$LWS_GROUP_SIZE" ]; do reach "$leader-$w.$rest" $w; w=$((w + 1)); done
else
  reach "$LWS_LEADER_ADDRESS" 0
fi
wait
