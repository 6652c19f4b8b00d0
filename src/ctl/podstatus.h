/* podstatus.h — how Slurm job states and the shim's container events become
 * a Pod's status (pure functions on jansson objects; no I/O, no locks).
 *
 * The mapping (docs/lifecycle.md):
 *   no job / PENDING      → Pending, PodScheduled=False (Unschedulable, Slurm's reason)
 *   RUNNING               → PodScheduled=True, nodeName/hostIP/podIP/startTime;
 *                           Pending (ContainerCreating) until the shim reports a start, then
 * Running COMPLETED             → Succeeded when every app container exited 0, else Failed FAILED
 * → Failed (exit codes from the shim, else the job's) TIMEOUT, DEADLINE     → Failed, reason
 * DeadlineExceeded OUT_OF_MEMORY         → Failed, containers terminated with reason OOMKilled
 *   NODE_FAIL             → Failed, reason NodeLost
 *   CANCELLED, PREEMPTED, BOOT_FAIL → Failed with that reason
 *   requeued              → Pending again, with the reason in the message
 *   purged, no record     → Failed, reason JobPurged (outcome unknown)
 *   requeued or run again after the pod finished → nothing changes: a
 *                           terminal phase is final (the controller cancels that run)
 *   a terminal phase the job contradicts (the job still active, the shim never
 *   said the pod finished; or set before submission) → Pending again
 * Every function returns 1 when it changed the pod, 0 when not.
 */
#ifndef SL_CTL_PODSTATUS_H
#define SL_CTL_PODSTATUS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* What the controller knows of the pod's Slurm job (a copy, not libslurm's). */
typedef struct ctl_job_view {
    uint32_t job_id;
    const char *state;  /* PENDING RUNNING COMPLETED FAILED ... or "" when unknown */
    const char *reason; /* pending reason */
    const char *node;   /* first node ("" while pending) */
    const char *node_ip;
    int64_t start_ns, end_ns;
    int exit_code;
    unsigned restart_cnt;
    int completing;                  /* Slurm's CG flag: the job's processes are still ending */
    int node_up;                     /* NODE_FAIL of a gang replica: 1 when its own node is up
                                      * (another node of its job was lost); 0, -1: its node */
    const atomic_int *shim_done_now; /* the controller's flag of it, read at the write (a
                                      * push may store the phase after the view was made);
                                      * NULL in a view made on another thread, which then
                                      * never reopens a terminal pod: it cannot know */
    const atomic_uint *ended_now;    /* the controller's: 1 + the restart count of the job when
                                      * a view of it ended was last applied (0: never), read at
                                      * the write: a view of it active, no later, is older */
    int shim_finished;               /* the shim reported pod-finished: a terminal phase may come
                                      * before the job ends; otherwise an active job in the
                                      * controller's view puts a terminal phase back to Pending
                                      * (someone else wrote it) */
} ctl_job_view_t;

/* Make sure status exists with phase Pending and the four conditions and one
 * containerStatus per container (waiting: ContainerCreating / PodInitializing). */
int ctl_status_init(json_t *pod, int64_t now_ns);

/* Submission outcome: job id recorded (annotation slurmlink.io/job-id) or a
 * failure message shown in the PodScheduled condition. */
int ctl_status_submitted(json_t *pod, uint32_t job_id, int64_t now_ns);
/* whether the pod says no more than that job job_id was submitted (a view
 * of it pending with reason None would change nothing) */
int ctl_status_just_submitted(json_t *pod, uint32_t job_id);
int ctl_status_submit_failed(json_t *pod, const char *message, int permanent, int64_t now_ns);
/* A submission that waits on something an administrator must fix (reason,
 * e.g. SlurmAccountMissing): PodScheduled False and each container waiting
 * with that reason and message (kubectl's STATUS column shows the reason);
 * the next submission's ctl_status_submitted puts them back. */
int ctl_status_submit_waiting(json_t *pod, const char *reason, const char *message, int64_t now_ns);

/* Apply what Slurm says of the job. */
int ctl_status_from_job(json_t *pod, const ctl_job_view_t *job, int64_t now_ns);

/* 1 when Slurm runs the job of a finished pod (phase Succeeded or Failed)
 * again: it was requeued (restart count > 0) and is pending (or was
 * cancelled so), or its current run started after the pod's containers
 * finished. Such a run must not change the pod, nor run its containers
 * unseen: the controller cancels an active one. */
int ctl_job_reruns_finished(json_t *pod, const ctl_job_view_t *job);

/* The job is gone from Slurm (purged) and nothing says how it ended: a pod
 * not yet terminal fails with reason JobPurged, its containers terminated
 * with reason ContainerStatusUnknown (exit code 137, as the kubelet's). */
int ctl_status_job_purged(json_t *pod, uint32_t job_id, int64_t now_ns);

/* Apply one shim event (docs/shim-spec.md). */
int ctl_status_from_shim(json_t *pod, json_t *event, int64_t now_ns);

/* Check the fields of a shim event that reach the status: the event comes
 * from the pod's user (the token is in her pod folder), and every reader of
 * the pod decodes them. "time" RFC 3339; restartCount 0..2^31-1; exitCode an
 * int; signal 0..255; reason a string of 1..128 bytes. 0, or -1 with why. */
int ctl_shim_event_check(json_t *event, char *why, size_t why_len);
/* A "usage" push (kubectl top pod): a list "containers" of at most
 * CTL_USAGE_MAX_CONTAINERS {name, cpuNs, memoryBytes}; 0, or -1 with why. */
#define CTL_USAGE_MAX_CONTAINERS 256
int ctl_usage_check(json_t *event, char *why, size_t why_len);

/* An applied "exited" event: the time from the container's exit (the
 * event's time) to now, when its status is stored, goes to the metrics
 * (slurmlink_pod_status_latency_seconds). Events without a time are not
 * measured. */
void ctl_status_latency_observe(json_t *event, int64_t now_ns);

/* 1 when phase is Succeeded or Failed. */
int ctl_pod_terminal(json_t *pod);

/* 1 when the controller gave up submitting it (Failed, reason SubmitFailed):
 * the only terminal phase that stops a pod without a job being submitted. */
int ctl_pod_gave_up(json_t *pod);

/* 1 for the Slurm job states of a job not over (PENDING, RUNNING, ...). */
int ctl_job_active(const char *state);

/* 1 when the pod's PodScheduled condition is True (the first PodScheduled
 * condition that has a status decides). */
int ctl_pod_scheduled(json_t *pod);

/* The job id recorded on the pod, 0 if none. */
uint32_t ctl_pod_job_id(json_t *pod);

/* gpustatus.c: the pod-started event's "gpus" (what Slurm bound, as the shim
 * saw it on the node) into the pod's slurmlink.io/gpus annotation and its GPU
 * containers' allocatedResourcesStatus; 1 if changed. The Event's text of it
 * ("GPU 1 (GPU-...) on node1, 1 shard(s)"; caller frees), NULL without GPUs. */
int ctl_status_gpus(json_t *pod, const json_t *ev);
char *ctl_gpus_text(const json_t *ev); /* NULL too when the event's "gpus" is malformed */

#endif
