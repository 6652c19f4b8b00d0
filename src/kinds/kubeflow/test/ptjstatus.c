/* ptjstatus — a PyTorchJob's status from its replica pods, as the
 * Training Operator writes it: the conditions' reasons, messages and
 * setCondition rules, replicaStatuses, and the verdict (restart, fail,
 * succeed) by restartPolicy, retryable exit codes and backoffLimit. */
#include "kinds/kubeflow/status.h"
#include "common/tap.h"
#include "kinds/pytorchjob/pods.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kube/meta.h"

#include <stdio.h>

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

/* a PyTorchJob of Workers only, elastic min..max (0 0: no elasticPolicy) */
static json_t *workers(int replicas, int min, int max)
{
    json_t *j = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:{s:{s:i, s:s, s:{s:{s:[{s:s, "
                          "s:[{s:s, s:i}]}]}}}}, s:{}}}",
                          "apiVersion", "kubeflow.org/v1", "kind", "PyTorchJob", "metadata", "name",
                          "el", "namespace", "default", "uid", "u-2", "spec", "pytorchReplicaSpecs",
                          "Worker", "replicas", replicas, "restartPolicy", "OnFailure", "template",
                          "spec", "containers", "name", "pytorch", "ports", "name",
                          "pytorchjob-port", "containerPort", 29400, "runPolicy");
    if (max)
        json_object_set_new(json_object_get(j, "spec"), "elasticPolicy",
                            json_pack("{s:i, s:i, s:i, s:[{s:s, s:s}]}", "minReplicas", min,
                                      "maxReplicas", max, "maxRestarts", 2, "rdzvConf", "key",
                                      "last_call_timeout", "value", "5"));
    return j;
}

static const char *env_of(json_t *pod, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(sl_kube_path(json_array_get(sl_kube_path(pod, "spec.containers"), 0), "env"),
                       i,
                       e) if (!strcmp(json_string_value(json_object_get(e, "name")),
                                      name)) return json_string_value(json_object_get(e, "value"));
    return NULL;
}

/* an elastic range: the node range, the operator's elastic variables */
static void elastic(void)
{
    json_t *j = workers(3, 1, 3), *r = json_pack("{s:s, s:i}", "type", "Worker", "index", 2);
    size_t lo = 0, hi = 0;
    ok(ctl_tj_pytorchjob.range(j, &lo, &hi) && lo == 1 && hi == 3,
       "minReplicas 1, maxReplicas 3, no Master: a node range 1-3");
    json_t *p = ctl_tj_pytorchjob.new_pod(j, r, 2, 0);
    is_str(sl_kube_name(p), "el-worker-2", "the pod of node 2: worker-2");
    char all[512];
    snprintf(all, sizeof(all), "%s %s %s %s %s %s", env_of(p, "PET_NNODES"),
             env_of(p, "PET_RDZV_BACKEND"), env_of(p, "PET_MAX_RESTARTS"),
             env_of(p, "PET_RDZV_CONF"), env_of(p, "RANK"), env_of(p, "WORLD_SIZE") ?: "-");
    is_str(all, "1:3 c10d 2 last_call_timeout=5 2 -",
           "PET_NNODES min:max, PET_RDZV_BACKEND c10d, PET_MAX_RESTARTS, PET_RDZV_CONF; no "
           "WORLD_SIZE");
    ok(!json_object_get(sl_kube_path(p, "metadata.labels"), "training.kubeflow.org/job-role"),
       "no job-role on a worker-0-less Worker (the Master's only)");
    ctl_gang_t g = {.owner = j, .kind = "PyTorchJob", .n = 1};
    char *head = ctl_tj_pytorchjob.shape(j, &g);
    ok(g.nodes_min == 1 && g.nodes == 3, "the gang: --nodes=1-3");
    ok(head && strstr(head, "export PET_RDZV_ENDPOINT=\"$(hostname):29400\""),
       "PET_RDZV_ENDPOINT: worker-0's node (the first) and the Worker's port");
    free(head);
    json_decref(p);
    json_decref(j);
    j = workers(2, 1, 2); /* and a Master: a node of the range, the first */
    json_object_set(json_object_get(json_object_get(j, "spec"), "pytorchReplicaSpecs"), "Master",
                    sl_kube_path(j, "spec.pytorchReplicaSpecs.Worker"));
    ok(ctl_tj_pytorchjob.range(j, &lo, &hi) && lo == 2 && hi == 3,
       "with a Master, minReplicas 1, maxReplicas 2: --nodes=2-3");
    head = ctl_tj_pytorchjob.shape(j, &g);
    ok(head && strstr(head, "sed -n 2p):29400"),
       "... PET_RDZV_ENDPOINT: worker-0's node, the job's second");
    free(head);
    json_decref(j);
    j = workers(2, 2, 2);
    ok(!ctl_tj_pytorchjob.range(j, &lo, &hi), "min = max: no range, a fixed size");
    json_decref(j);
    json_decref(r);
}

/* the operator's rules without a Master: all Workers succeeded, or with an
 * elasticPolicy any one */
static void workers_status(void)
{
    ptj_next_t next;
    json_t *j = workers(2, 0, 0);
    json_t *st = run(
        j, json_pack("[o, o]", pod("worker", "Running", 0), pod("worker", "Pending", 0)), 0, &next);
    is_str(cond(st, "Running", "message"), "PyTorchJob default/el is running.",
           "no Master: Running when a Worker runs, the operator's namespace/name message");
    json_decref(st);
    st = run(j, json_pack("[o, o]", pod("worker", "Succeeded", 0), pod("worker", "Running", 0)), 0,
             &next);
    ok(next == PTJ_GO_ON, "no elasticPolicy: one of two Workers succeeded is not the end");
    json_decref(st);
    st = run(j, json_pack("[o, o]", pod("worker", "Succeeded", 0), pod("worker", "Succeeded", 0)),
             0, &next);
    ok(next == PTJ_STOP && !strcmp(cond(st, "Succeeded", "message"),
                                   "PyTorchJob default/el successfully completed."),
       "all Workers succeeded: Succeeded");
    json_decref(st);
    json_decref(j);
    j = workers(3, 1, 3);
    st = run(j, json_pack("[o, o]", pod("worker", "Succeeded", 0), pod("worker", "Running", 0)), 0,
             &next);
    ok(next == PTJ_STOP, "elasticPolicy: one Worker succeeded is Succeeded (2 of 3 allocated)");
    json_decref(st);
    json_decref(j);
}

int main(void)
{
    tap_plan(27);
    elastic();
    workers_status();
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
