#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-reopen.t — a finished pod's phase never goes back. The test
# build's fault point job-running holds the controller thread once it has
# read the pod's job as RUNNING (a poll read a moment before the job ends,
# as under load); meanwhile the shim finishes and its push makes the pod
# Succeeded. Released, the controller applies its stale RUNNING view: that
# must not reopen the pod (Succeeded → Pending → Running → Succeeded was
# seen in a 10,000-pod soak). A watch records every phase the pod had.
# The steps are t/56-recovery-reopen-lib.sh's (shared with its twin).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/56-recovery-reopen-lib.sh"
plan 6

reopen_case job-running \
  "the controller is held with the job read as RUNNING" \
  "the shim's push makes the pod Succeeded meanwhile" \
  "the controller is released"
