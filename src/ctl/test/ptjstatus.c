/* ptjstatus — a PyTorchJob's status from its replica pods, as the
 * Training Operator writes it: the conditions' reasons, messages and
 * setCondition rules, replicaStatuses, and the verdict (restart, fail,
 * succeed) by restartPolicy, retryable exit codes and backoffLimit. */
#include "ctl/ptjstatus.h"
#include "common/tap.h"
#include "ctl/ptjpod.h"

#include <stdlib.h>
#include <string.h>

static json_t *job(const char *policy, int backoff)
{
    json_t *j = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:{s:{s:i, s:s, s:{s:{s:[{s:s}]}}}, "
                          "s:{s:i, s:s, s:{s:{s:[{s:s}]}}}}, s:{}}}",
                          "apiVersion", "kubeflow.org/v1", "kind", "PyTorchJob", "metadata", "name",
                          "ddp", "uid", "u-1", "spec", "pytorchReplicaSpecs", "Master", "replicas",
                          1, "restartPolicy", policy, "template", "spec", "containers", "name",
                          "pytorch", "Worker", "replicas", 2, "restartPolicy", policy, "template",
                          "spec", "containers", "name", "pytorch", "runPolicy");
    if (backoff >= 0)
        json_object_set_new(json_object_get(json_object_get(j, "spec"), "runPolicy"),
                            "backoffLimit", json_integer(backoff));
    return j;
}

static json_t *pod(const char *type, const char *phase, int exit_code)
{
    return json_pack("{s:{s:{s:s}}, s:{s:s, s:[{s:{s:{s:i}}}]}}", "metadata", "labels",
                     "training.kubeflow.org/replica-type", type, "status", "phase", phase,
                     "containerStatuses", "state", "terminated", "exitCode", exit_code);
}

static const char *cond(json_t *st, const char *type, const char *what)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(st, "conditions"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "type")),
                                      type)) return json_string_value(json_object_get(c, what));
    return "";
}

static json_t *run(json_t *j, json_t *pods, long long attempt, ptj_next_t *next)
{
    json_t *st = ctl_ptj_status(j, pods, attempt, 1700000000000000000LL, next);
    json_object_set(j, "status", st);
    json_decref(pods);
    return st;
}

int main(void)
{
    tap_plan(14);
    json_t *j = job("OnFailure", 1);
    json_t *reps = ctl_ptj_replicas(j);
    is_int((long long)json_array_size(reps), 3, "three replicas in rank order");
    json_decref(reps);
    ptj_next_t next;
    json_t *st = run(j,
                     json_pack("[o, o, o]", pod("master", "Running", 0),
                               pod("worker", "Running", 0), pod("worker", "Pending", 0)),
                     0, &next);
    is_str(cond(st, "Created", "message"), "PyTorchJob ddp is created.",
           "Created, the operator's message");
    is_str(cond(st, "Running", "reason"), "PyTorchJobRunning", "the Master runs: Running");
    ok(next == PTJ_GO_ON, "nothing to do yet");
    is_int(json_integer_value(json_object_get(
               json_object_get(json_object_get(st, "replicaStatuses"), "Worker"), "active")),
           1, "replicaStatuses: one Worker active");
    json_decref(st);
    st = run(j,
             json_pack("[o, o, o]", pod("master", "Running", 0), pod("worker", "Failed", 1),
                       pod("worker", "Running", 0)),
             0, &next);
    ok(next == PTJ_RESTART, "a failed Worker with OnFailure: the gang restarts");
    is_str(cond(st, "Restarting", "message"),
           "PyTorchJob ddp is restarting because 1 Worker replica(s) failed.",
           "Restarting, the operator's message");
    is_str(cond(st, "Running", "status"), "", "Restarting replaces Running");
    json_decref(st);
    st = run(j,
             json_pack("[o, o, o]", pod("master", "Running", 0), pod("worker", "Failed", 1),
                       pod("worker", "Running", 0)),
             1, &next);
    ok(next == PTJ_STOP, "again after one restart, backoffLimit 1: stop");
    is_str(cond(st, "Failed", "message"),
           "Job ddp has failed because it has reached the specified backoff limit",
           "Failed: the backoff limit's message");
    json_decref(st);
    json_decref(j);
    j = job("ExitCode", -1);
    st = run(j, json_pack("[o]", pod("worker", "Failed", 137)), 0, &next);
    ok(next == PTJ_RESTART, "ExitCode, exit 137 (retryable: >= 128): restart");
    json_decref(st);
    json_object_del(j, "status");
    st = run(j, json_pack("[o]", pod("worker", "Failed", 2)), 0, &next);
    ok(next == PTJ_STOP && !strcmp(cond(st, "Failed", "reason"), "PyTorchJobFailed"),
       "ExitCode, exit 2: Failed");
    json_decref(st);
    json_object_del(j, "status");
    st = run(j,
             json_pack("[o, o, o]", pod("master", "Succeeded", 0), pod("worker", "Running", 0),
                       pod("worker", "Succeeded", 0)),
             0, &next);
    ok(next == PTJ_STOP && !strcmp(cond(st, "Succeeded", "reason"), "PyTorchJobSucceeded"),
       "the Master succeeded: Succeeded");
    ok(json_object_get(st, "completionTime") != NULL, "completionTime set");
    json_decref(st);
    json_decref(j);
    return tap_done();
}
