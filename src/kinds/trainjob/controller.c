/* controller.c — the TrainJob controller: a trainer.kubeflow.org/v1alpha1
 * TrainJob runs as ONE gang-scheduled Slurm job (ctl/gang.h), a node per
 * trainer node (numNodes), its pods named and labelled as Kubeflow
 * Trainer's JobSet would name them (<tj>-node-0-<i>).
 *
 * Each pass, per TrainJob (reconcile): suspend honoured (the job cancelled,
 * the pods deleted, Suspended True; resumed: Suspended False and the gang
 * made afresh, attempt K+1); the runtime its runtimeRef names read (none:
 * an event, and the TrainJob waits for one; a kind or policy slurmlink
 * does not run: Failed, TrainingRuntimeNotSupported); the node pods of the
 * attempt created through the pods' admission (identity, policy, quota:
 * all or none); the gang submitted, or adopted after a crash (gang.h);
 * the status from the pods: jobsStatus, Complete or Failed (then the job
 * cancelled). gone: the job cancelled and the pods deleted.
 *
 * Annotations (the controller's, on the TrainJob): slurmlink.io/gang-attempt
 * K (its pods carry it too), slurmlink.io/slurm-jobs (gangowner.h),
 * slurmlink.io/waiting-for (why it waits: its event is said once). */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/gangowner.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kinds/trainjob/internal.h"
#include "kube/meta.h"
#include "pod/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIND "TrainJob"
#define ANN_WAIT "slurmlink.io/waiting-for"
#define MANAGER "trainer.kubeflow.org/trainjob-controller"

static long long ann_int(json_t *o, const char *key)
{
    const char *v = sl_kube_annotation(o, key);
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end && n >= 0 ? n : 0;
}

static void set_ann(sl_ctl_t *c, json_t *tj, const char *key, const char *value)
{
    ctl_owner_set_annotation(c, TJ_RES, KIND, tj, key, value);
}

/* the runtime (new ref); NULL with *why (new string) and *unsupported
 * when it is a kind slurmlink does not serve */
static json_t *runtime_of(sl_ctl_t *c, json_t *tj, char **why, bool *unsupported)
{
    const char *kind, *name = sl_kube_path_str(tj, "spec.runtimeRef.name");
    const char *res = trainjob_runtime_res(tj, &kind);
    *unsupported = !res;
    if (!res) {
        const char *g = sl_kube_path_str(tj, "spec.runtimeRef.apiGroup");
        *why = sl_xasprintf("unsupported runtime: %s.%s", kind, g ? g : TJ_GROUP);
        return NULL;
    }
    bool cluster = !strcmp(res, TJ_RES_CRT);
    json_t *rt = sl_store_get(c->store, res, cluster ? NULL : sl_kube_namespace(tj), name ?: "");
    if (!rt)
        *why = sl_xasprintf("%s.%s \"%s\" not found",
                            cluster ? "clustertrainingruntimes" : "trainingruntimes", TJ_GROUP,
                            name ? name : "");
    return rt;
}

/* the pods of attempt K (the others, an earlier attempt's, counted in *older) */
static json_t *attempt_pods(json_t *pods, long long k, size_t *older)
{
    json_t *out = json_array();
    *older = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if (ann_int(pod, TJ_ANN_ATTEMPT) == k)
            json_array_append(out, pod);
        else /* still there, deleted or not: the next pods share their names */
            (*older)++;
    }
    return out;
}

/* the gang's pods of the attempt (want: trainjob_pods), admitted together (all or none) */
static void create_pods(sl_ctl_t *c, json_t *tj, json_t *want)
{
    if (ctl_create_waits(c, sl_kube_uid(tj)))
        return; /* refused before (a quota): the back-off runs */
    size_t i;
    json_t *pod;
    json_array_foreach(want, i, pod)
    {
        sl_pod_apply_defaults(pod);
        ctl_status_init(pod, sl_kube_now_ns());
    }
    sl_error_t err = SL_ERROR_INIT;
    bool forbidden = false;
    if (ctl_pods_create(c, want, &forbidden, &err) == 0) {
        ctl_create_admitted(c, sl_kube_uid(tj));
        json_array_foreach(want, i, pod)
            ctl_event(c, tj, "Normal", "SuccessfulCreatePod", "Created pod: %s", sl_kube_name(pod));
    } else if (forbidden) {
        ctl_create_refused(c, sl_kube_uid(tj));
        sl_info(KIND " %s/%s: its pods are refused: %s", sl_kube_namespace(tj), sl_kube_name(tj),
                err.text);
        ctl_event(c, tj, "Warning", "FailedCreate", "Error creating: %s", err.text);
    } else {
        sl_warn(KIND " %s/%s: cannot create its pods: %s", sl_kube_namespace(tj), sl_kube_name(tj),
                err.text);
    }
    sl_error_clear(&err);
}

/* the pod's member index in the gang (runtime.c's bookkeeping), or SIZE_MAX */
static size_t member_of(json_t *pod)
{
    const char *v = sl_kube_annotation(pod, TJ_ANN_MEMBER);
    char *end;
    unsigned long i = v && *v ? strtoul(v, &end, 10) : 0;
    return v && *v && !*end ? (size_t)i : SIZE_MAX;
}

/* the pods of the attempt in member order, all there and none submitted:
 * the gang (the MPI policy: the launcher, member 0, in the batch step, the
 * hostfile of the job's nodes and OpenMPI's Slurm launcher, as an MPIJob's) */
static void submit(sl_ctl_t *c, json_t *tj, json_t *rt, json_t *pods, long long attempt, size_t n)
{
    if (json_array_size(pods) != n || !n || n > CTL_GANG_MAX)
        return;
    ctl_gang_member_t m[CTL_GANG_MAX];
    memset(m, 0, sizeof(m));
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        size_t at = member_of(pod);
        if (at >= n || m[at].pod || ctl_pod_job_id(pod) || ctl_pod_terminal(pod))
            return;
        m[at].pod = pod;
    }
    ctl_gang_t g = {.owner = tj, .kind = KIND, .attempt = attempt, .m = m, .n = n};
    const char *why, *policy = trainjob_policy(rt, &why);
    char *head = NULL;
    if (policy && !strcmp(policy, "mpi")) {
        long long slots = trainjob_mpi_slots(tj, rt);
        g.nodes = (size_t)trainjob_num_nodes(tj, rt);
        g.tasks_per_node = (unsigned)slots;
        m[0].batch = 1;
        g.head = head = ctl_gang_mpi_head("OpenMPI", slots, g.nodes);
    }
    uint32_t id = 0;
    if (ctl_gang_submit(c, &g, &id) == 0)
        ctl_owner_record_job(c, TJ_RES, KIND, tj, id);
    free(head);
}

/* waiting for a runtime: its event once per reason (the annotation) */
static void waiting(sl_ctl_t *c, json_t *tj, const char *why)
{
    const char *was = sl_kube_annotation(tj, ANN_WAIT);
    if (was && !strcmp(was, why))
        return;
    set_ann(c, tj, ANN_WAIT, why);
    ctl_event(c, tj, "Warning", "TrainJobResourcesCreationFailed", "%s", why);
    sl_info(KIND " %s/%s waits: %s", sl_kube_namespace(tj), sl_kube_name(tj), why);
}

/* spec.suspend: the job cancelled, the pods deleted, Suspended True; a
 * gang that had pods starts afresh when resumed (attempt K+1). true while
 * suspended. */
static bool suspension(sl_ctl_t *c, json_t *tj, json_t *st, json_t *pods, const char *now)
{
    bool on = json_is_true(sl_kube_path(tj, "spec.suspend"));
    json_t *conds = json_object_get(st, "conditions");
    if (!on) {
        if (sl_kube_condition_true(conds, "Suspended"))
            trainjob_set_condition(st, "Suspended", false, "Resumed", "TrainJob is resumed", now);
        return false;
    }
    ctl_owner_cancel_jobs(KIND, tj);
    ctl_owner_delete_pods(c, tj, pods, true);
    size_t older;
    long long att = ann_int(tj, TJ_ANN_ATTEMPT);
    json_t *cur = attempt_pods(pods, att, &older);
    if (json_array_size(cur)) {
        char buf[24];
        snprintf(buf, sizeof(buf), "%lld", att + 1);
        set_ann(c, tj, TJ_ANN_ATTEMPT, buf);
    }
    json_decref(cur);
    trainjob_set_condition(st, "Suspended", true, "Suspended", "TrainJob is suspended", now);
    json_t *none = json_array();
    trainjob_pods_status(st, none, 0, NULL, now);
    json_decref(none);
    return true;
}

/* the attempt's pods made, submitted and followed: the status from them
 * (the MPI policy's: by its launcher, member 0, as the runtime's
 * successPolicy says) */
static void follow(sl_ctl_t *c, json_t *tj, json_t *rt, json_t *st, json_t *pods, const char *now)
{
    long long att = ann_int(tj, TJ_ANN_ATTEMPT);
    const char *why = NULL;
    json_t *want = trainjob_pods(tj, rt, att, &why);
    if (!want) {
        char *msg = sl_xasprintf("unsupported runtime: %s", why);
        trainjob_set_condition(st, "Failed", true, "TrainingRuntimeNotSupported", msg, now);
        ctl_event(c, tj, "Warning", "TrainingRuntimeNotSupported", "%s", msg);
        free(msg);
        return;
    }
    size_t n = json_array_size(want), older = 0;
    json_t *cur = attempt_pods(pods, att, &older), *lead = NULL, *pod;
    const char *pwhy, *policy = trainjob_policy(rt, &pwhy);
    size_t i;
    json_array_foreach(cur, i, pod) if (policy && !strcmp(policy, "mpi") && member_of(pod) == 0)
        lead = pod;
    if (older) /* an earlier attempt's (a suspension's): gone before the next starts */
        ctl_owner_delete_pods(c, tj, pods, true);
    else if (!json_array_size(cur))
        create_pods(c, tj, want);
    else
        submit(c, tj, rt, cur, att, n);
    if (trainjob_pods_status(st, cur, n, lead, now)) {
        json_t *cd = sl_kube_condition(json_object_get(st, "conditions"), "Failed");
        bool failed = cd != NULL;
        if (!cd)
            cd = sl_kube_condition(json_object_get(st, "conditions"), "Complete");
        ctl_event(c, tj, failed ? "Warning" : "Normal", failed ? "Failed" : "Completed", "%s",
                  json_string_value(json_object_get(cd, "message")) ?: "");
        if (failed)
            ctl_owner_cancel_jobs(KIND, tj);
    }
    json_decref(cur);
    json_decref(want);
}

/* the runtime read and the attempt's pods made, submitted and followed */
static void run(sl_ctl_t *c, json_t *tj, json_t *st, json_t *pods, const char *now)
{
    char *why = NULL;
    bool unsupported = false;
    json_t *rt = runtime_of(c, tj, &why, &unsupported);
    const char *pwhy = NULL;
    if (rt && !trainjob_policy(rt, &pwhy)) {
        unsupported = true;
        why = sl_xasprintf("unsupported runtime: %s", pwhy);
    }
    if (unsupported) {
        trainjob_set_condition(st, "Failed", true, "TrainingRuntimeNotSupported", why, now);
        ctl_event(c, tj, "Warning", "TrainingRuntimeNotSupported", "%s", why);
    } else if (!rt) {
        waiting(c, tj, why);
    } else {
        follow(c, tj, rt, st, pods, now);
    }
    json_decref(rt);
    free(why);
}

void trainjob_reconcile(sl_ctl_t *c, json_t *tj)
{
    const char *mb = sl_kube_path_str(tj, "spec.managedBy");
    if (mb && strcmp(mb, MANAGER))
        return; /* another controller's (MultiKueue) */
    json_t *conds = sl_kube_path(tj, "status.conditions");
    if (sl_kube_condition_true(conds, "Complete") || sl_kube_condition_true(conds, "Failed"))
        return;
    json_t *st = json_deep_copy(json_object_get(tj, "status"));
    if (!json_is_object(st)) {
        json_decref(st);
        st = json_object();
    }
    char *now = sl_kube_now_rfc3339();
    json_t *pods = ctl_owner_pods(c, tj);
    if (!suspension(c, tj, st, pods, now))
        run(c, tj, st, pods, now);
    ctl_owner_write_status(c, TJ_RES, KIND, tj, st);
    json_decref(pods);
    json_decref(st);
    free(now);
}

void trainjob_gone(sl_ctl_t *c, json_t *tj)
{
    ctl_owner_cancel_jobs(KIND, tj);
    json_t *pods = ctl_owner_pods(c, tj);
    ctl_owner_delete_pods(c, NULL, pods, true);
    sl_info(KIND " %s/%s deleted: %zu pods deleted with it", sl_kube_namespace(tj),
            sl_kube_name(tj), json_array_size(pods));
    json_decref(pods);
}
