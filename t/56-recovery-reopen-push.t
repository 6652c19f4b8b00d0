#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-reopen-push.t — a finished pod's phase never goes back, when
# the stale view is a push's. A container's "started" push that comes
# before the controller's poll saw the job run reads the job on the API
# thread (so the pod says where it runs: Scheduled before Started). Under
# load that read can be answered late: the test build's fault point
# started-view holds that thread once it has read the job as RUNNING; the
# shim does not wait for the answer, so its later pushes (the container's
# exit, pod-finished) replay the start from events.jsonl and make the pod
# Succeeded meanwhile. Released, the push applies its RUNNING view: that
# must not reopen the pod (a 1,000-pod soak saw 23 pods go Succeeded →
# Running → Succeeded this way). The fault point job-started holds the
# controller's first look at the started job meanwhile, so the push, not a
# poll, is the first to say where the pod runs (else the push reads no job:
# under load the poll came first and the point was never reached). A watch
# records every phase the pod had.
# The steps are t/56-recovery-reopen-lib.sh's (shared with its twin).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/56-recovery-reopen-lib.sh"
plan 6

reopen_case started-view \
  "the started push is held with the job read as RUNNING" \
  "the shim's later pushes make the pod Succeeded meanwhile" \
  "the push is released" \
  job-started
