/* Slurm job states and shim events → pod status. */
#include "ctl/podstatus.h"
#include "common/tap.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static json_t *pod(const char *policy, int with_init)
{
    json_t *p =
        json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:s, s:[{s:s, s:s}]}}", "kind", "Pod", "metadata",
                  "name", "p1", "namespace", "default", "uid", "u-1", "spec", "restartPolicy",
                  policy, "containers", "name", "main", "image", "busybox");
    if (with_init)
        json_object_set_new(json_object_get(p, "spec"), "initContainers",
                            json_pack("[{s:s, s:s}]", "name", "init", "image", "busybox"));
    return p;
}

static const char *path_str(json_t *o, const char *a, const char *b)
{
    return json_string_value(json_object_get(json_object_get(o, a), b));
}

static const char *cond(json_t *p, const char *type, const char *field)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(p, "status"), "conditions"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "type")), type))
            return json_string_value(json_object_get(c, field));
    }
    return NULL;
}

static json_t *cs(json_t *p, int init)
{
    return json_array_get(json_object_get(json_object_get(p, "status"),
                                          init ? "initContainerStatuses" : "containerStatuses"),
                          0);
}

static json_t *ev(const char *what, const char *ctr, int code, int restarts)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:s}", "event", what, "container", ctr, "exitCode", code,
                     "restartCount", restarts, "time", "2026-11-30T12:00:01.000001Z");
}

/* the shim's event e (taken) applied to p */
static int shim(json_t *p, json_t *e, int64_t now)
{
    int r = ctl_status_from_shim(p, e, now);
    json_decref(e);
    return r;
}

/* a container's start, its exit 0 and the pod's end, as the shim pushes them */
static void shim_run_ok(json_t *p, int64_t now)
{
    shim(p, ev("started", "main", 0, 0), now);
    shim(p, ev("exited", "main", 0, 0), now);
    shim(p, json_pack("{s:s, s:i}", "event", "pod-finished", "exitCode", 0), now);
}

/* a pod of job 13 (deleted: with a deletionTimestamp) whose container runs */
static json_t *started_pod(int deleted, int64_t now)
{
    json_t *p = pod("Never", 0);
    if (deleted)
        json_object_set_new(json_object_get(p, "metadata"), "deletionTimestamp",
                            json_string("2026-12-07T09:00:00Z"));
    ctl_status_init(p, now);
    ctl_status_submitted(p, 13, now);
    ctl_job_view_t j = {.job_id = 13, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    shim(p, ev("started", "main", 0, 0), now);
    return p;
}

/* job 13's view: over in Slurm's books as state, still COMPLETING */
static ctl_job_view_t ending(const char *state, int64_t now)
{
    return (ctl_job_view_t){
        .job_id = 13, .state = state, .node = "node1", .start_ns = now, .completing = 1};
}

int main(void)
{
    int64_t now = 1796040000LL * 1000000000LL;
    json_t *p = pod("Never", 0);
    ok(ctl_status_init(p, now) == 1, "init fills the status");
    is_str(path_str(p, "status", "phase"), "Pending", "new pod is Pending");
    is_str(cond(p, "PodScheduled", "status"), "False", "not scheduled yet");
    ok(json_object_get(json_object_get(cs(p, 0), "state"), "waiting") != NULL, "container waiting");
    ok(ctl_status_init(p, now) == 0, "init twice changes nothing");

    ok(ctl_status_submitted(p, 42, now) == 1, "submitted records the job");
    is_int(ctl_pod_job_id(p), 42, "job id annotation");
    ctl_job_view_t none = {.job_id = 42, .state = "PENDING", .reason = "None"};
    ok(ctl_status_from_job(p, &none, now) == 0,
       "pending with reason None (slurmctld has not looked at the job yet): nothing to write");
    is_str(cond(p, "PodScheduled", "message"), "Slurm job 42 submitted",
           "... the message stays 'submitted'");
    json_t *q = pod("Never", 0);
    ok(!ctl_status_just_submitted(q, 7), "a new pod: not 'just submitted'");
    ok(ctl_status_submitted(q, 7, now) == 1 && ctl_status_just_submitted(q, 7) &&
           !ctl_status_just_submitted(q, 8),
       "submitted (its status filled by the same write): 'just submitted' job 7, not 8");
    ok(json_object_get(json_object_get(cs(q, 0), "state"), "waiting") != NULL,
       "... its container waiting");
    ctl_job_view_t none7 = {.job_id = 7, .state = "PENDING", .reason = "None"};
    ok(ctl_status_from_job(q, &none7, now) == 0,
       "... so its first view (pending, None) writes nothing");
    json_decref(q);
    ctl_job_view_t j = {.job_id = 42, .state = "PENDING", .reason = "Resources"};
    ok(ctl_status_from_job(p, &j, now) == 1, "pending job updates the condition");
    is_str(cond(p, "PodScheduled", "message"), "Slurm job 42 is pending: Resources",
           "the pending reason is in the message");
    is_str(cond(p, "PodScheduled", "reason"), "Unschedulable", "reason Unschedulable");
    ok(ctl_status_from_job(p, &j, now) == 0, "the same state again changes nothing");

    j.state = "RUNNING";
    j.node = "node1";
    j.node_ip = "127.0.0.1";
    j.start_ns = now;
    ok(ctl_status_from_job(p, &j, now + 1000) == 1, "running job");
    is_str(cond(p, "PodScheduled", "status"), "True", "scheduled");
    is_str(path_str(p, "spec", "nodeName"), "node1", "nodeName from Slurm");
    is_str(path_str(p, "status", "hostIP"), "127.0.0.1", "hostIP from the node");
    is_str(path_str(p, "status", "phase"), "Pending", "still Pending until a container starts");

    json_t *e = ev("started", "main", 0, 0);
    ok(ctl_status_from_shim(p, e, now) == 1, "started event applies");
    json_decref(e);
    is_str(path_str(p, "status", "phase"), "Running", "Running after the start");
    is_str(path_str(json_object_get(cs(p, 0), "state"), "running", "startedAt"),
           "2026-11-30T12:00:01.000001Z", "startedAt from the shim");
    is_str(cond(p, "Ready", "status"), "True", "Ready");

    e = ev("exited", "main", 3, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    json_t *t = json_object_get(json_object_get(cs(p, 0), "state"), "terminated");
    is_int(json_integer_value(json_object_get(t, "exitCode")), 3, "exit code recorded");
    is_str(json_string_value(json_object_get(t, "reason")), "Error", "reason Error");
    e = json_pack("{s:s, s:i}", "event", "pod-finished", "exitCode", 3);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    is_str(path_str(p, "status", "phase"), "Failed", "pod Failed after a failing container");
    j.state = "FAILED";
    j.exit_code = 3;
    ctl_status_from_job(p, &j, now);
    is_str(path_str(p, "status", "phase"), "Failed", "Slurm FAILED keeps Failed");
    json_decref(p);

    /* Succeeded */
    p = pod("Never", 0);
    ctl_status_submitted(p, 7, now);
    j = (ctl_job_view_t){.job_id = 7, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    shim_run_ok(p, now);
    is_str(path_str(p, "status", "phase"), "Succeeded", "exit 0 → Succeeded");
    is_str(cond(p, "Ready", "reason"), "PodCompleted", "Ready False with PodCompleted");
    json_decref(p);

    /* restart with OnFailure → CrashLoopBackOff, lastState kept */
    p = pod("OnFailure", 0);
    ctl_status_submitted(p, 8, now);
    j = (ctl_job_view_t){.job_id = 8, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    e = ev("started", "main", 0, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    e = ev("exited", "main", 1, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    is_str(path_str(json_object_get(cs(p, 0), "state"), "waiting", "reason"), "CrashLoopBackOff",
           "OnFailure + exit 1 → CrashLoopBackOff");
    is_int(json_integer_value(json_object_get(
               json_object_get(json_object_get(cs(p, 0), "lastState"), "terminated"), "exitCode")),
           1, "lastState holds the failed run");
    e = ev("started", "main", 0, 1);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    is_int(json_integer_value(json_object_get(cs(p, 0), "restartCount")), 1, "restartCount 1");
    ok(json_object_get(json_object_get(cs(p, 0), "state"), "running") != NULL, "running again");

    /* a time limit from the Slurm side */
    j.state = "TIMEOUT";
    j.end_ns = now + 5;
    ctl_status_from_job(p, &j, now);
    is_str(path_str(p, "status", "phase"), "Failed", "TIMEOUT → Failed");
    is_str(path_str(p, "status", "reason"), "DeadlineExceeded", "reason DeadlineExceeded");
    is_str(json_string_value(json_object_get(
               json_object_get(json_object_get(cs(p, 0), "state"), "terminated"), "reason")),
           "DeadlineExceeded", "the running container is terminated");
    json_decref(p);

    /* node failure, OOM, cancel */
    const char *states[] = {"NODE_FAIL", "OUT_OF_MEMORY", "CANCELLED", "PREEMPTED"};
    const char *reasons[] = {"NodeLost", "OOMKilled", "Cancelled", "Preempted"};
    for (int i = 0; i < 4; i++) {
        p = pod("Always", 1);
        ctl_status_submitted(p, 9, now);
        j = (ctl_job_view_t){.job_id = 9, .state = "RUNNING", .node = "node1", .start_ns = now};
        ctl_status_from_job(p, &j, now);
        j.state = states[i];
        ctl_status_from_job(p, &j, now);
        is_str(path_str(p, "status", "phase"), "Failed", "%s → Failed", states[i]);
        is_str(path_str(p, "status", "reason"), reasons[i], "%s → reason %s", states[i],
               reasons[i]);
        ok(json_object_get(json_object_get(cs(p, 1), "state"), "terminated") != NULL,
           "%s terminates init containers too", states[i]);
        static const char *const disrupt[] = {"DeletionByTaintManager", NULL,
                                              "EvictionByEvictionAPI", "PreemptionByScheduler"};
        const char *dt = NULL;
        size_t k;
        json_t *cd;
        json_array_foreach(json_object_get(json_object_get(p, "status"), "conditions"), k, cd)
        {
            if (!strcmp(json_string_value(json_object_get(cd, "type")), "DisruptionTarget") &&
                !strcmp(json_string_value(json_object_get(cd, "status")), "True"))
                dt = json_string_value(json_object_get(cd, "reason"));
        }
        is_str(dt, disrupt[i], "%s: condition DisruptionTarget %s", states[i],
               disrupt[i] ? disrupt[i] : "absent");
        json_decref(p);
    }

    /* NODE_FAIL of a gang's job seen by a replica whose own node is up */
    p = pod("Never", 0);
    ctl_status_submitted(p, 9, now);
    j = (ctl_job_view_t){.job_id = 9, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    j.state = "NODE_FAIL";
    j.node_up = 1;
    ctl_status_from_job(p, &j, now);
    is_str(path_str(p, "status", "phase"), "Failed", "NODE_FAIL, its own node up → Failed");
    is_str(path_str(p, "status", "reason"), "Terminated", "... reason Terminated, not NodeLost");
    is_str(path_str(p, "status", "message"),
           "Pod was terminated: another node of its Slurm job 9 was lost (NODE_FAIL); its own "
           "node node1 is up",
           "... the message says another node was lost");
    json_decref(p);

    /* the shim said it ended (clean exit on SIGTERM), then Slurm says CANCELLED */
    p = pod("Never", 0);
    ctl_status_submitted(p, 11, now);
    j = (ctl_job_view_t){.job_id = 11, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    shim_run_ok(p, now);
    is_str(path_str(p, "status", "phase"), "Succeeded", "the shim reports a clean exit");
    j.state = "CANCELLED";
    ok(ctl_status_from_job(p, &j, now) == 1, "CANCELLED after the shim's report changes the pod");
    is_str(path_str(p, "status", "phase"), "Failed", "an admin's scancel fails the pod");
    is_str(path_str(p, "status", "reason"), "Cancelled", "with reason Cancelled");
    ok(ctl_status_from_job(p, &j, now) == 0, "and applying it again changes nothing");
    json_decref(p);

    /* init containers: PodInitializing, Init then Running */
    p = pod("Never", 1);
    ctl_status_init(p, now);
    is_str(path_str(json_object_get(cs(p, 0), "state"), "waiting", "reason"), "PodInitializing",
           "app container waits for init");
    ctl_status_submitted(p, 10, now);
    j = (ctl_job_view_t){.job_id = 10, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    e = ev("started", "init", 0, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    is_str(cond(p, "Initialized", "status"), "False", "not initialized while init runs");
    e = ev("exited", "init", 0, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    is_str(cond(p, "Initialized", "status"), "True", "initialized after init exits 0");
    json_decref(p);

    /* a stored status someone else wrote: what Slurm says wins */
    p = pod("Never", 0);
    ctl_status_init(p, now);
    json_object_set_new(json_object_get(p, "status"), "phase", json_string("Succeeded"));
    ok(ctl_pod_terminal(p) && !ctl_pod_gave_up(p), "Succeeded before submission: not given up");
    ctl_status_submitted(p, 11, now);
    is_str(path_str(p, "status", "phase"), "Pending", "submission puts a phase set before it back");
    j = (ctl_job_view_t){.job_id = 11, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    e = ev("started", "main", 0, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    json_object_set_new(json_object_get(p, "status"), "phase", json_string("Succeeded"));
    json_object_set_new(json_object_get(p, "status"), "reason", json_string("Forged"));
    ok(ctl_status_from_job(p, &j, now) == 0 && !strcmp(path_str(p, "status", "phase"), "Succeeded"),
       "a view made on another thread (no flag to read at the write) never reopens");
    atomic_int done = 0;
    j.shim_done_now = &done;
    ok(ctl_status_from_job(p, &j, now) == 1, "a running job contradicts a stored Succeeded");
    is_str(path_str(p, "status", "phase"), "Running", "... and the pod is Running again");
    ok(path_str(p, "status", "reason") == NULL, "... without the forged reason");
    json_object_set_new(json_object_get(p, "status"), "phase", json_string("Succeeded"));
    atomic_store(&done, 1);
    ok(ctl_status_from_job(p, &j, now) == 0, "the shim's pod-finished read at the write: the "
                                             "running job (finishing) keeps the terminal phase");
    j.shim_finished = 1;
    atomic_store(&done, 0);
    ok(ctl_status_from_job(p, &j, now) == 0, "after the shim's pod-finished, a running job "
                                             "(finishing) keeps the terminal phase");
    /* a view of the job ended was applied (another thread's, before the
     * shim's pushes came): the controller's older view of it running does
     * not reopen the pod; a requeue (a higher restart count) is not older */
    j.shim_finished = 0;
    atomic_uint ended = 1; /* 1 + restart count 0 */
    j.ended_now = &ended;
    ok(ctl_status_from_job(p, &j, now) == 0 && !strcmp(path_str(p, "status", "phase"), "Succeeded"),
       "a job seen ended: a view of it running is older, and does not reopen");
    atomic_store(&ended, 0);
    ok(ctl_status_from_job(p, &j, now) == 1 && !strcmp(path_str(p, "status", "phase"), "Running"),
       "never seen ended: the running job contradicts the stored phase");
    json_decref(p);

    /* the job ran before its id was written (a held submission worker): the
     * late record adds the id, and moves nothing back */
    p = pod("Never", 0);
    ctl_status_init(p, now);
    shim_run_ok(p, now);
    is_str(path_str(p, "status", "phase"), "Succeeded", "pushes before the job id: Succeeded");
    char *conds = json_dumps(json_object_get(json_object_get(p, "status"), "conditions"), 0);
    ok(ctl_status_submitted(p, 13, now) == 1, "the late record of the job id is a change");
    is_int(ctl_pod_job_id(p), 13, "... that writes the job id");
    is_str(path_str(p, "status", "phase"), "Succeeded", "... and keeps the phase the shim set");
    char *conds2 = json_dumps(json_object_get(json_object_get(p, "status"), "conditions"), 0);
    is_str(conds2, conds, "... and the conditions as they were");
    free(conds);
    free(conds2);
    ok(ctl_status_submitted(p, 13, now) == 0, "the same record again changes nothing");
    json_decref(p);
    p = pod("Never", 0);
    ctl_status_init(p, now);
    shim(p, ev("started", "main", 0, 0), now);
    json_object_set_new(json_object_get(p, "status"), "conditions",
                        json_pack("[{s:s}]", "type", "PodScheduled"));
    ctl_status_submitted(p, 14, now);
    is_str(path_str(p, "status", "phase"), "Running",
           "a started container (a condition without status) is evidence enough: still Running");
    json_decref(p);

    /* a condition without status (stored before status writes were validated) */
    p = pod("Never", 0);
    ctl_status_init(p, now);
    ctl_status_submitted(p, 12, now);
    json_object_set_new(json_object_get(p, "status"), "conditions",
                        json_pack("[{s:s}]", "type", "PodScheduled"));
    j = (ctl_job_view_t){.job_id = 12, .state = "RUNNING", .node = "node1", .start_ns = now};
    e = ev("exited", "main", 0, 0);
    ok(ctl_status_from_shim(p, e, now) == 1, "an exit applies to a condition without status");
    json_decref(e);
    ok(ctl_status_from_job(p, &j, now) == 1, "so does the running job");
    is_str(cond(p, "PodScheduled", "status"), "True", "... which the job's state then sets");
    json_decref(p);

    /* a deleted pod's job cancelled (the delete's grace period was shorter
     * than the pod's): Slurm says CANCELLED at once while the job's
     * processes still end (COMPLETING) */
    p = started_pod(1, now);
    j = ending("CANCELLED", now);
    ctl_status_from_job(p, &j, now);
    is_str(path_str(p, "status", "phase"), "Running",
           "a cancelled job still completing: the pod is still Running");
    ok(json_object_get(json_object_get(cs(p, 0), "state"), "running") != NULL,
       "... its container still running (its grace period)");
    j.completing = 0;
    ok(ctl_status_from_job(p, &j, now) == 1, "done completing, without the shim's word: a change");
    is_str(path_str(p, "status", "phase"), "Failed", "... Failed");
    is_str(path_str(p, "status", "reason"), "Cancelled", "... reason Cancelled");
    json_decref(p);
    /* a deleted pod whose job COMPLETED (its script exited) ends at once,
     * though Slurm still runs its Epilog (COMPLETING) */
    p = started_pod(1, now);
    j = ending("COMPLETED", now);
    ok(ctl_status_from_job(p, &j, now) == 1, "a deleted pod, its job COMPLETED and completing: a change");
    is_str(path_str(p, "status", "phase"), "Succeeded", "... Succeeded (its quota freed)");
    json_decref(p);
    /* a pod not deleted whose job is cancelled or timed out ends at once */
    p = started_pod(0, now);
    j = ending("CANCELLED", now);
    ok(ctl_status_from_job(p, &j, now) == 1, "a pod not deleted, its job cancelled: a change");
    is_str(path_str(p, "status", "phase"), "Failed", "... Failed");
    is_str(path_str(p, "status", "reason"), "Cancelled", "... reason Cancelled");
    json_decref(p);

    /* a job slurmctld purged, with no record of how it ended */
    p = pod("Never", 0);
    ctl_status_init(p, now);
    ctl_status_submitted(p, 77, now);
    j = (ctl_job_view_t){.job_id = 77, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    ok(ctl_status_job_purged(p, 77, now) == 1, "a purged job without a record ends the pod");
    is_str(path_str(p, "status", "phase"), "Failed", "... Failed");
    is_str(path_str(p, "status", "reason"), "JobPurged", "... reason JobPurged");
    is_str(path_str(p, "status", "message"),
           "Slurm no longer knows job 77 and there is no accounting to ask; its outcome is unknown",
           "... saying the outcome is unknown");
    json_t *term = json_object_get(json_object_get(cs(p, 0), "state"), "terminated");
    is_str(json_string_value(json_object_get(term, "reason")), "ContainerStatusUnknown",
           "... its container terminated, status unknown");
    ok(ctl_status_job_purged(p, 77, now) == 0, "a second time changes nothing");
    json_decref(p);
    p = pod("Never", 0);
    ctl_status_init(p, now);
    ctl_status_submitted(p, 78, now);
    e = ev("exited", "main", 0, 0);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    json_object_set_new(json_object_get(p, "status"), "phase", json_string("Succeeded"));
    ok(ctl_status_job_purged(p, 78, now) == 0, "a pod the shim saw finish keeps its outcome");
    is_str(path_str(p, "status", "phase"), "Succeeded", "... Succeeded");
    json_decref(p);

    json_t *failed = pod("Never", 0);
    ctl_status_submit_failed(failed, "invalid pod", 1, now);
    ok(ctl_pod_gave_up(failed), "a permanent submission failure is giving up");
    json_decref(failed);
    ok(ctl_job_active("RUNNING") && ctl_job_active("PENDING") && !ctl_job_active("COMPLETED") &&
           !ctl_job_active("") && !ctl_job_active(NULL),
       "active job states");

    /* shim events come from the pod's user: what reaches the status is checked */
    char why[128];
    json_t *good = ev("exited", "main", 3, 2);
    json_object_set_new(good, "reason", json_string("Error"));
    json_object_set_new(good, "signal", json_integer(9));
    is_int(ctl_shim_event_check(good, why, sizeof(why)), 0, "the shim's own event passes");
    json_decref(good);
    static const struct {
        const char *key, *json, *why;
    } bad[] = {
        {"time", "\"not-a-time\"", "invalid shim event: time: must be an RFC 3339 timestamp"},
        {"time", "17", "invalid shim event: time: must be an RFC 3339 timestamp"},
        {"restartCount", "-5",
         "invalid shim event: restartCount: must be an integer from 0 to 2147483647"},
        {"restartCount", "\"1\"",
         "invalid shim event: restartCount: must be an integer from 0 to 2147483647"},
        {"exitCode", "4294967296", "invalid shim event: exitCode: must be a 32-bit integer"},
        {"signal", "256", "invalid shim event: signal: must be an integer from 0 to 255"},
        {"reason", "\"\"", "invalid shim event: reason: must be a string of 1 to 128 bytes"},
        {"reason", "[]", "invalid shim event: reason: must be a string of 1 to 128 bytes"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *e2 = ev("exited", "main", 0, 0);
        json_object_set_new(e2, bad[i].key, json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
        why[0] = '\0';
        ok(ctl_shim_event_check(e2, why, sizeof(why)) < 0, "%s %s is refused", bad[i].key,
           bad[i].json);
        is_str(why, bad[i].why, "... saying why");
        json_decref(e2);
    }
    /* a usage sample (kubectl top pod): its containers checked */
    static const struct {
        const char *json;
        int rc;
    } usage[] = {
        {"{\"containers\": [{\"name\": \"main\", \"cpuNs\": 5, \"memoryBytes\": 4096}]}", 0},
        {"{\"containers\": []}", 0},
        {"{}", -1},
        {"{\"containers\": {}}", -1},
        {"{\"containers\": [{\"name\": \"\", \"cpuNs\": 5, \"memoryBytes\": 1}]}", -1},
        {"{\"containers\": [{\"name\": \"m\", \"cpuNs\": -1, \"memoryBytes\": 1}]}", -1},
        {"{\"containers\": [{\"name\": \"m\", \"cpuNs\": 1, \"memoryBytes\": \"1\"}]}", -1},
        {"{\"containers\": [7]}", -1},
    };
    for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
        json_t *u = json_loads(usage[i].json, 0, NULL);
        why[0] = '\0';
        is_int(ctl_usage_check(u, why, sizeof(why)), usage[i].rc, "usage sample %s: %s",
               usage[i].json, usage[i].rc ? "refused" : "passes");
        if (usage[i].rc)
            has_str(why, "invalid usage sample: containers", "... saying why");
        json_decref(u);
    }
    /* a finished pod whose job Slurm runs again (requeued): nothing changes */
    p = pod("OnFailure", 0);
    ctl_status_submitted(p, 9, now);
    j = (ctl_job_view_t){.job_id = 9, .state = "RUNNING", .node = "node1", .start_ns = now};
    ctl_status_from_job(p, &j, now);
    j.state = "COMPLETED";
    j.end_ns = now + 2000000000LL;
    ctl_status_from_job(p, &j, now);
    is_str(path_str(p, "status", "phase"), "Succeeded", "requeue: the job completes, Succeeded");
    ok(!ctl_job_reruns_finished(p, &j), "requeue: a completed job does not run again");
    json_t *before = json_deep_copy(p);
    j = (ctl_job_view_t){.job_id = 9, .state = "PENDING", .reason = "BeginTime", .restart_cnt = 1};
    ok(ctl_job_reruns_finished(p, &j), "requeue: pending again with restart 1 runs again");
    ctl_status_from_job(p, &j, now);
    ok(json_equal(p, before), "requeue: the pending rerun leaves the pod as it was");
    j = (ctl_job_view_t){.job_id = 9,
                         .state = "RUNNING",
                         .node = "node2",
                         .start_ns = now + 60000000000LL,
                         .restart_cnt = 1};
    ok(ctl_job_reruns_finished(p, &j), "requeue: running again after the finish runs again");
    ctl_status_from_job(p, &j, now);
    ok(json_equal(p, before), "requeue: the running rerun leaves the pod (no node, no Pending)");
    e = ev("started", "main", 1, 1);
    ctl_status_from_shim(p, e, now);
    json_decref(e);
    ok(json_equal(p, before), "requeue: a container start in the finished pod is not applied");
    j.state = "CANCELLED";
    j.end_ns = j.start_ns;
    ctl_status_from_job(p, &j, now);
    is_str(path_str(p, "status", "phase"), "Succeeded",
           "requeue: the cancelled rerun: still Succeeded");
    j = (ctl_job_view_t){
        .job_id = 9, .state = "RUNNING", .node = "node1", .start_ns = now, .restart_cnt = 1};
    ok(!ctl_job_reruns_finished(p, &j), "a run that started before the finish is not a rerun");
    j.restart_cnt = 0;
    j.start_ns = now + 60000000000LL;
    ok(!ctl_job_reruns_finished(p, &j), "nor one never requeued (a phase someone else wrote)");
    json_decref(before);
    json_decref(p);
    return tap_done();
}
