/* fault.h — fault-injection points for the tests.
 *
 * SL_FAULT("name") is a point where the test build (make asan, which
 * defines SL_FAULT_INJECTION) can be told to die: with the environment
 * variable SLURMLINKD_FAULT=name:N the Nth pass through that point logs
 * "fault injection: name #N: SIGKILL" and raises SIGKILL, as a crash or
 * kill -9 there would; with name:N:hold=PATH the Nth pass instead logs
 * "fault injection: name #N: held until PATH exists" and holds the thread
 * that got there until PATH exists (a race made deterministic); several
 * specs, each counted on its own, are separated by commas (up to four:
 * name1:N:hold=A,name2:M). Other builds compile the points to nothing.
 * Points: after-submit (src/ctl/submit.c: the job was accepted by
 * slurmctld, its id not yet stored); after-array-submit (src/kinds/job/controller.c:
 * the same for a Job's array); pull-fetched (src/image/pull.c: the
 * layers of a pull are fetched and unpacked in its work folder, the digest
 * folder not yet in place); shim-exited (src/ctl/ctl.c: a shim's push of a
 * container's exit, before it is applied; with hold=, an answer slower than
 * the shim waits for); shim-started (the same for a container's start);
 * job-started (src/ctl/ctl.c: the poll has found a pod's job started,
 * before it reads the pod folder's events.jsonl the first time);
 * job-ended (src/ctl/ctl.c: the controller's poll has found a pod's Slurm
 * job ended, before it is applied; with hold=, a poll later than the
 * shim's pushes); job-running (src/ctl/ctl.c: the poll has read a pod's
 * job as running, before that view is applied; with hold=, a view older
 * than the shim's pod-finished push); started-view (src/ctl/ctl.c: a
 * container's "started" push that came before the poll saw its job run has
 * read the job as running, before that view is applied; with hold=, a view
 * older than the shim's later pushes); pods-listed (src/ctl/ctl.c: the
 * controller has listed the stored pods' keys, at start-up or after falling
 * behind the change log, before it reads each pod; with hold=, a pod
 * deleted between the list and its read); submission-handed
 * (src/ctl/submit.c: the controller has handed a pod to a submission
 * worker; with hold=, the worker's result handed back while the controller
 * is still in its pass); quota-counted (src/api/quota.c: the API janitor
 * has counted a namespace's pods for its quotas, before status.used is
 * written; with hold=, a pod created between the count and the write);
 * quota-admission-counted (src/api/quota.c: a pod's admission counted the
 * namespace's pods for a quota whose status did not record its usage);
 * pod-deleted (src/ctl/ctl.c: the controller has removed a deleted pod
 * whose job is over from the store; with hold=, that removal's DELETED
 * change pushed out of the change log before the controller reads it);
 * up-checked (src/cluster/up.c: `slurmlink up` has checked the cluster
 * folder and its parents, before it makes the folder; with hold=, a folder
 * another user makes in between); sweep-listing (src/ctl/sweep.c: the
 * controller's first job poll is in, before the start-up sweep of the pod
 * folders whose pods are no longer stored; with hold=, a slurmctld that
 * stops answering in between); tree-emptied (src/common/safefs.c: a
 * folder being removed has been emptied, before its rmdir; with hold=, a
 * file made in it in between, as a cancelled job's last status);
 * nodes-loaded (src/ctl/nodes.c: the node poll has read Slurm's nodes,
 * before it writes them to the store; with hold=, a kubectl cordon or
 * uncordon in between).
 *
 * sl_fault_clock_offset(): the test build's shift of the CronJob
 * controller's clock (src/kinds/cronjob/controller.c), so a test can step it past
 * schedule times without waiting for them: the whole seconds written in the
 * file SLURMLINKD_FAULT_CLOCK names, read on every call (0 when unset,
 * missing or unreadable). Other builds: always 0. */
#ifndef SL_FAULT_H
#define SL_FAULT_H

#ifdef SL_FAULT_INJECTION
void sl_fault_point(const char *name);
long long sl_fault_clock_offset(void);
#define SL_FAULT(name) sl_fault_point(name)
#else
#define SL_FAULT(name) ((void)0)
#define sl_fault_clock_offset() 0LL
#endif

#endif
