#!/bin/bash
# covers: src/events/ src/ctl/events.c
# 93-event-ttl.t — Events expire as kube-apiserver's do (--event-ttl): an
# Event whose lastTimestamp is older than the configured TTL is removed by
# the server's sweep, one updated since is kept. A short TTL (2 s) is swept
# at that interval, not only once a minute. No Slurm.
source "$(dirname "$0")/50-api-lib.sh"
plan 7

api_up --event-ttl 2 || bail "slurmlinkd up"
NS=/api/v1/namespaces/default

ev() { # NAME LASTTIMESTAMP
  printf '{"apiVersion":"v1","kind":"Event","metadata":{"name":"%s"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p"},"reason":"Test","message":"m","type":"Normal","count":1,"firstTimestamp":"%s","lastTimestamp":"%s"}' "$1" "$2" "$2"
}
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
later=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
jpost $NS/events "$(ev old "$now")"
is "$CODE" 201 "an Event last seen now is created"
jpost $NS/events "$(ev kept "$later")"
is "$CODE" 201 "an Event last seen in an hour is created"

gone() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$API$NS/events/$1")" = 404 ]; }
ok wait_for 30 gone old "the Event older than the 2 s TTL is removed"
req GET $NS/events/kept
is "$CODE" 200 "the Event last seen within the TTL is kept"

# an Event updated (aggregated: count and lastTimestamp) lives on from then
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
jpost $NS/events "$(ev bumped "$now")"
jpatch $NS/events/bumped application/merge-patch+json "{\"count\":2,\"lastTimestamp\":\"$later\"}"
is "$CODE $(jqr .count)" "200 2" "the Event is aggregated: count 2, lastTimestamp moved on"
# another with the same first timestamp: once it is swept, a sweep has run
# past the TTL of that timestamp
jpost $NS/events "$(ev witness "$now")"
ok wait_for 30 gone witness "an Event last seen with the first one's timestamp is removed"
req GET $NS/events/bumped
is "$CODE" 200 "the updated Event outlives its first lastTimestamp's TTL"
