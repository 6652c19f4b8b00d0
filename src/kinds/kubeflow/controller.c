/* src/kinds/kubeflow/controller.c — the PyTorchJob controller: a kubeflow.org/v1 PyTorchJob runs as
 * ONE gang-scheduled Slurm job (gang.h), a node per replica.
 *
 * Each pass, per PyTorchJob: the replica pods of the current attempt
 * created (src/kinds/pytorchjob/pods.h) once no pod of an earlier attempt is left; then the
 * gang submitted (or adopted); then the status recomputed from the pods
 * as the Training Operator's does (conditions Created, Running,
 * Restarting, Succeeded, Failed with its reasons and messages,
 * replicaStatuses, startTime, completionTime). A failed replica whose
 * restartPolicy allows it (OnFailure, Always, ExitCode with a retryable
 * code: >= 128) restarts the whole gang: its job cancelled, its pods
 * deleted, attempt K+1, counted against runPolicy.backoffLimit.
 * Deletion (the PyTorchJob gone from the store) cancels the job and
 * deletes its pods.
 *
 * Annotations (the controller's bookkeeping, on the PyTorchJob):
 *   slurmlink.io/gang-attempt  K (the replica pods carry it too)
 *   slurmlink.io/gang-suspensions  the attempts a suspension ended (not restarts)
 *   slurmlink.io/slurm-jobs    the Slurm jobs submitted, "id,id"
 *   slurmlink.io/gang-nodes    a node range (elasticPolicy): "K:N", the nodes
 *                              Slurm allocated attempt K (its pods: N of them)
 *
 * An elastic PyTorchJob (minReplicas < maxReplicas) is one job of a node
 * range, --nodes=LO-HI: the pods of the first LO nodes are made before the
 * submission; once it runs on N nodes, those of nodes LO..N-1 are made and
 * joined to it (grow; gang.h ctl_gang_join), never more. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/carry.h"
#include "ctl/gang.h"
#include "ctl/gangowner.h"
#include "ctl/internal.h"
#include "ctl/jobtask.h"
#include "ctl/podstatus.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kinds/kubeflow/status.h"
#include "kinds/pytorchjob/pods.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANN_SUSPENDS "slurmlink.io/gang-suspensions" /* attempts ended by a suspension */
#define ANN_NODES "slurmlink.io/gang-nodes"  /* a node range: "K:N", attempt K's allocated nodes */
#define ANN_NEXT "slurmlink.io/gang-next-at" /* ms since the epoch: the next attempt not before */
#define RESTART_FIRST_MS 10000LL             /* the back-off before the first restart, doubling */
#define RESTART_MAX_MS 300000LL              /* ... up to (the kubelet's crash-loop cap) */

static long long ann_int(json_t *o, const char *key)
{
    const char *v = sl_kube_annotation(o, key);
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end && n >= 0 ? n : 0;
}

static void set_ann(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, const char *key,
                    const char *value)
{
    ctl_owner_set_annotation(c, k->res, k->kind, job, key, value);
}

static json_t *owned_pods(sl_ctl_t *c, json_t *job) { return ctl_owner_pods(c, job); }

static void delete_pods(sl_ctl_t *c, json_t *job, json_t *pods, bool all)
{
    ctl_owner_delete_pods(c, job, pods, all);
}

static void cancel_jobs(const ctl_tj_kind_t *k, json_t *job)
{
    ctl_owner_cancel_jobs(k->kind, job);
}

/* the failed attempts' pods not yet being deleted: their runs carried over
 * to the pods of the same names that replace them (carry.h) */
static void carry_older(sl_ctl_t *c, json_t *job, json_t *pods, long long att)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if (ann_int(pod, PTJ_ANN_ATTEMPT) < att && !sl_kube_meta_str(pod, "deletionTimestamp"))
            ctl_carry_save(c, job, pod);
    }
}

/* ---- pods and the gang ---------------------------------------------------------- */

/* the replica of node rank: the lead (Master) first, then Worker rank-lead */
static json_t *replica_at(const ctl_tj_kind_t *k, json_t *job, size_t rank)
{
    size_t lead = json_is_object(sl_kube_path(sl_kube_path(job, k->specs), k->types[0])) ? 1 : 0;
    if (lead && !rank)
        return json_pack("{s:s, s:I}", "type", k->types[0], "index", (json_int_t)0);
    return json_pack("{s:s, s:I}", "type", k->types[1], "index", (json_int_t)(rank - lead));
}

/* the replica pods of member indexes [from, to): all of them, or a node
 * range's first lo before its submission and the rest once allocated */
static void create_pods(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, long long attempt,
                        size_t from, size_t to)
{
    if (ctl_create_waits(c, sl_kube_uid(job)))
        return; /* refused before (a quota): the back-off runs */
    json_t *pods = json_array();
    for (size_t i = from; i < to; i++) {
        json_t *r = replica_at(k, job, i);
        json_t *pod = k->new_pod(job, r, i, attempt);
        ctl_carry_annotate(job, pod); /* replacing a failed one: its runs go on */
        json_t *have = sl_store_get(c->store, "pods", sl_kube_namespace(pod), sl_kube_name(pod));
        if (!have)
            json_array_append(pods, pod);
        json_decref(have);
        json_decref(pod);
        json_decref(r);
    }
    /* the gang admitted whole or not at all: every pod's requests, GPUs
     * included, against the quotas together */
    sl_error_t err = SL_ERROR_INIT;
    bool forbidden;
    if (!json_array_size(pods) || ctl_pods_create(c, pods, &forbidden, &err) == 0) {
        ctl_create_admitted(c, sl_kube_uid(job));
        size_t i;
        json_t *pod;
        json_array_foreach(pods, i, pod) ctl_event(c, job, "Normal", "SuccessfulCreatePod",
                                                   "Created pod: %s", sl_kube_name(pod));
    } else if (forbidden) {
        ctl_create_refused(c, sl_kube_uid(job));
        sl_info("%s %s/%s: its pods are refused: %s", k->kind, sl_kube_namespace(job),
                sl_kube_name(job), err.text);
        ctl_event(c, job, "Warning", "FailedCreate", "Error creating: %s", err.text);
    } else {
        sl_warn("%s %s/%s: cannot create its pods: %s", k->kind, sl_kube_namespace(job),
                sl_kube_name(job), err.text);
    }
    sl_error_clear(&err);
    json_decref(pods);
}

/* the pods made before the submission: a node range's least nodes, else all */
static size_t first_pods(const ctl_tj_kind_t *k, json_t *job)
{
    size_t lo, hi;
    if (k->range && k->range(job, &lo, &hi))
        return lo;
    json_t *reps = ctl_tj_replicas(k, job);
    size_t n = json_array_size(reps);
    json_decref(reps);
    return n;
}

/* the pod's member index (src/kinds/pytorchjob/pods.c's bookkeeping), or SIZE_MAX */
static size_t member_index(json_t *pod)
{
    const char *v = sl_kube_annotation(pod, "slurmlink.io/job-index");
    char *end;
    unsigned long i = v && *v ? strtoul(v, &end, 10) : 0;
    return v && *v && !*end ? (size_t)i : SIZE_MAX;
}

/* the pods of the attempt in rank order, all there and none submitted: the gang */
static void submit(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *pods,
                   long long attempt)
{
    size_t n = json_array_size(pods);
    if (!n || n > CTL_GANG_MAX)
        return;
    ctl_gang_member_t m[CTL_GANG_MAX];
    memset(m, 0, sizeof(m));
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        size_t at = member_index(pod);
        if (at >= n || m[at].pod || ctl_pod_job_id(pod) || ctl_pod_terminal(pod))
            return;
        m[at].pod = pod;
    }
    ctl_gang_t g = {.owner = job, .kind = k->kind, .attempt = attempt, .m = m, .n = n};
    char *head = k->shape(job, &g);
    g.head = head;
    uint32_t id = 0;
    int rc = ctl_gang_submit(c, &g, &id);
    free(head);
    free(g.hostfile);
    if (rc != 0)
        return;
    ctl_owner_record_job(c, k->res, k->kind, job, id);
}

/* a node range: the nodes Slurm allocated attempt K ("K:N" in ANN_NODES), 0 if not seen */
static size_t allocated(json_t *job, long long attempt)
{
    const char *v = sl_kube_annotation(job, ANN_NODES);
    long long k;
    size_t n;
    return v && sscanf(v, "%lld:%zu", &k, &n) == 2 && k == attempt ? n : 0;
}

/* the Slurm job of the attempt's pods (its member 0's), or 0 */
static uint32_t attempt_job(json_t *pods)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod) if (member_index(pod) == 0) return ctl_pod_job_id(pod);
    return 0;
}

/* the late members: pods of nodes beyond lo made, none submitted (n of them, into m) */
static size_t late_members(json_t *pods, size_t lo, ctl_gang_member_t *m)
{
    size_t n = 0, i;
    json_t *pod;
    json_array_foreach(pods, i, pod) if (member_index(pod) >= lo && !ctl_pod_job_id(pod) &&
                                         !ctl_pod_terminal(pod) && n < CTL_GANG_MAX) m[n++] =
        (ctl_gang_member_t){.pod = pod};
    return n;
}

/* a node range whose job runs: the pods of the nodes Slurm allocated
 * beyond the first lo made, then joined to the job (ctl_gang_join) */
static void grow(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *cur, long long att)
{
    size_t lo, hi, n = allocated(job, att);
    uint32_t id = attempt_job(cur);
    if (!k->range || !k->range(job, &lo, &hi) || !id)
        return;
    if (!n) {
        long now = ctl_gang_nodes_now(id);
        if (now <= 0)
            return; /* pending (or over: its pods say so) */
        n = (size_t)now < lo ? lo : (size_t)now > hi ? hi : (size_t)now;
        char buf[48];
        snprintf(buf, sizeof(buf), "%lld:%zu", att, n);
        set_ann(k, c, job, ANN_NODES, buf);
        sl_info("%s %s/%s: Slurm job %u runs on %zu node(s) of %zu-%zu", k->kind,
                sl_kube_namespace(job), sl_kube_name(job), id, n, lo, hi);
    }
    if (json_array_size(cur) < n) {
        create_pods(k, c, job, att, lo, n);
        return; /* joined once the pod controller knows them */
    }
    ctl_gang_member_t m[CTL_GANG_MAX];
    size_t late = late_members(cur, lo, m);
    if (!late)
        return;
    ctl_gang_t g = {.owner = job,
                    .kind = k->kind,
                    .attempt = att,
                    .m = m,
                    .n = late,
                    .nodes_min = lo,
                    .nodes = hi};
    ctl_gang_join(c, &g, id);
}

/* ---- status ------------------------------------------------------------------------- */

static void write_status(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *st)
{
    ctl_owner_write_status(c, k->res, k->kind, job, st);
}

/* the pods of attempt K, the others (earlier attempts) in *older */
static json_t *attempt_pods(json_t *pods, long long k, size_t *older)
{
    json_t *out = json_array();
    *older = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if (ann_int(pod, PTJ_ANN_ATTEMPT) == k)
            json_array_append(out, pod);
        else
            (*older)++;
    }
    return out;
}

/* an MPIJob's Workers end with its Launcher (the batch script ends their
 * steps): until they have, deleting one would cancel the job that is
 * ending by itself (sacct CANCELLED, not COMPLETED) */
static bool workers_ending(const ctl_tj_kind_t *k, json_t *pods)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod) if (k->launcher_rules && !ctl_pod_terminal(pod) &&
                                         !sl_kube_meta_str(pod, "deletionTimestamp")) return true;
    return false;
}

/* ttlSecondsAfterFinished past since completionTime: the PyTorchJob deleted
 * (its pods and job follow it: ptj_gone); cleanPodPolicy All/Running: the
 * pods deleted (Running: those not finished), as the operator does */
static void finished(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *pods)
{
    const char *cpp = sl_kube_path_str(job, "spec.runPolicy.cleanPodPolicy");
    if (cpp && (!strcmp(cpp, "All") || !strcmp(cpp, "Running")) && !workers_ending(k, pods))
        delete_pods(c, job, pods, !strcmp(cpp, "All"));
    json_t *ttl = sl_kube_path(job, "spec.runPolicy.ttlSecondsAfterFinished");
    const char *done = sl_kube_path_str(job, "status.completionTime");
    int64_t at = 0;
    if (!json_is_integer(ttl) || !done || sl_kube_parse_rfc3339(done, &at) < 0 ||
        sl_kube_now_ns() < at + json_integer_value(ttl) * 1000000000LL)
        return;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_delete(c->store, k->res, sl_kube_namespace(job), sl_kube_name(job), 0, NULL,
                        &err) == 0)
        sl_info("%s %s/%s: deleted %lld s after it finished (ttlSecondsAfterFinished)", k->kind,
                sl_kube_namespace(job), sl_kube_name(job), (long long)json_integer_value(ttl));
    sl_error_clear(&err);
}

static long long wall_ms(void) { return (long long)(sl_kube_now_ns() / 1000000); }

/* the condition of type in st, or NULL */
static json_t *cond_of(json_t *st, const char *type)
{
    size_t i;
    json_t *cd;
    json_array_foreach(json_object_get(st, "conditions"), i, cd)
    {
        const char *t = json_string_value(json_object_get(cd, "type"));
        if (t && !strcmp(t, type))
            return cd;
    }
    return NULL;
}

/* the gang of a failed replica restarted: its job cancelled, attempt K+1
 * after a back-off (RESTART_FIRST_MS doubling for each restart, at most
 * RESTART_MAX_MS); until then the failed attempt's pods stay (their status
 * and logs readable), then they are deleted and K+1's created (reconcile) */
static void restart(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *st, long long attempt)
{
    cancel_jobs(k, job);
    long long n = attempt + 1 - ann_int(job, ANN_SUSPENDS), delay = RESTART_FIRST_MS;
    for (long long i = 1; i < n && delay < RESTART_MAX_MS; i++)
        delay *= 2;
    if (delay > RESTART_MAX_MS)
        delay = RESTART_MAX_MS;
    char buf[24];
    snprintf(buf, sizeof(buf), "%lld", wall_ms() + delay);
    set_ann(k, c, job, ANN_NEXT, buf);
    snprintf(buf, sizeof(buf), "%lld", attempt + 1);
    set_ann(k, c, job, PTJ_ANN_ATTEMPT, buf);
    json_t *cond = cond_of(st, "Restarting");
    const char *reason = json_string_value(json_object_get(cond, "reason"));
    const char *msg = json_string_value(json_object_get(cond, "message"));
    if (reason)
        ctl_event(c, job, "Warning", reason, "%s", msg ? msg : "");
    sl_info("%s %s/%s: a replica failed, the gang restarts (attempt %lld) in %lld s", k->kind,
            sl_kube_namespace(job), sl_kube_name(job), attempt + 1, delay / 1000);
}

/* the restart's back-off still runs */
static bool backing_off(json_t *job) { return wall_ms() < ann_int(job, ANN_NEXT); }

/* Succeeded or Failed just now: the operator's event (Normal, the condition's reason) */
static void ended_event(sl_ctl_t *c, json_t *job, json_t *st)
{
    json_t *cond = cond_of(st, "Succeeded");
    if (!cond)
        cond = cond_of(st, "Failed");
    const char *reason = json_string_value(json_object_get(cond, "reason"));
    const char *msg = json_string_value(json_object_get(cond, "message"));
    if (reason)
        ctl_event(c, job, "Normal", reason, "%s", msg ? msg : "");
}

/* runPolicy.suspend (common/job.go): the gang's job cancelled and its pods
 * deleted, conditions Suspended True and Running False; resumed: Suspended
 * False and the gang created afresh. true while suspended. */
static bool attempt_has_pods(json_t *job, json_t *pods)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod) if (ann_int(pod, PTJ_ANN_ATTEMPT) ==
                                         ann_int(job, PTJ_ANN_ATTEMPT)) return true;
    return false;
}

static bool suspension(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *pods)
{
    json_t *st = json_deep_copy(json_object_get(job, "status"));
    if (!json_is_object(st)) {
        json_decref(st);
        st = json_object();
    }
    bool on = json_is_true(sl_kube_path(job, "spec.runPolicy.suspend"));
    char *now = sl_kube_now_rfc3339(), *msg, reason[64];
    if (on) {
        msg = ctl_tj_say(k, job, " is created.");
        snprintf(reason, sizeof(reason), "%sCreated", k->kind);
        ctl_ptj_set_condition(st, "Created", true, reason, msg, now);
        free(msg);
        msg = ctl_tj_say(k, job, " is suspended.");
        snprintf(reason, sizeof(reason), "%sSuspended", k->kind);
        if (ctl_ptj_condition(st, "Running"))
            ctl_ptj_set_condition(st, "Running", false, reason, msg, now);
        ctl_ptj_set_condition(st, "Suspended", true, reason, msg, now);
        json_object_del(st, "startTime");
        cancel_jobs(k, job);
        delete_pods(c, job, pods, true);
        if (attempt_has_pods(job, pods)) { /* resumed, the gang starts afresh: K+1, no restart */
            char buf[24];
            snprintf(buf, sizeof(buf), "%lld", ann_int(job, PTJ_ANN_ATTEMPT) + 1);
            set_ann(k, c, job, PTJ_ANN_ATTEMPT, buf);
            snprintf(buf, sizeof(buf), "%lld", ann_int(job, ANN_SUSPENDS) + 1);
            set_ann(k, c, job, ANN_SUSPENDS, buf);
        }
    } else {
        msg = ctl_tj_say(k, job, " is resumed.");
        snprintf(reason, sizeof(reason), "%sResumed", k->kind);
        if (ctl_ptj_condition(st, "Suspended"))
            ctl_ptj_set_condition(st, "Suspended", false, reason, msg, now);
    }
    write_status(k, c, job, st);
    json_object_set(job, "status", st); /* this pass goes on from it */
    free(msg);
    free(now);
    json_decref(st);
    return on;
}

/* once finished, the replicaStatuses still follow the pods while all of
 * them are there (a Worker that ends after the Master is counted), not
 * once cleanPodPolicy or a deletion removes them */
static void final_counts(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job, json_t *pods)
{
    size_t older = 0, i;
    json_t *cur = attempt_pods(pods, ann_int(job, PTJ_ANN_ATTEMPT), &older), *pod;
    json_t *reps = ctl_tj_replicas(k, job);
    size_t lo, hi, want = json_array_size(reps);
    if (k->range && k->range(job, &lo, &hi)) /* the pods made for the nodes allocated */
        want = allocated(job, ann_int(job, PTJ_ANN_ATTEMPT)) ?: lo;
    bool all = json_array_size(cur) == want;
    json_array_foreach(cur, i, pod) all &= !sl_kube_meta_str(pod, "deletionTimestamp");
    if (all) {
        json_t *st = json_deep_copy(json_object_get(job, "status"));
        ctl_tj_replica_statuses(k, job, cur, st);
        write_status(k, c, job, st);
        json_decref(st);
    }
    json_decref(reps);
    json_decref(cur);
}

void ctl_tj_reconcile(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job)
{
    json_t *pods = owned_pods(c, job);
    json_t *old = json_object_get(job, "status");
    if (ctl_ptj_condition(old, "Succeeded") || ctl_ptj_condition(old, "Failed")) {
        final_counts(k, c, job, pods);
        finished(k, c, job, pods);
        json_decref(pods);
        return;
    }
    if (suspension(k, c, job, pods)) {
        json_decref(pods);
        return;
    }
    long long att = ann_int(job, PTJ_ANN_ATTEMPT);
    size_t older = 0;
    json_t *cur = attempt_pods(pods, att, &older);
    ptj_next_t next;
    json_t *st =
        ctl_tj_status(k, job, cur, att - ann_int(job, ANN_SUSPENDS), sl_kube_now_ns(), &next);
    write_status(k, c, job, st);
    if (next == PTJ_RESTART) {
        restart(k, c, job, st, att);
    } else if (next == PTJ_STOP) {
        ended_event(c, job, st);
        if (ctl_ptj_condition(st, "Failed"))
            cancel_jobs(k, job); /* a success ends by itself: the Master's step is over */
    } else if (older) {
        if (!backing_off(job)) { /* an earlier attempt's: gone before the next starts */
            carry_older(c, job, pods, att);
            delete_pods(c, job, pods, true);
        }
    } else if (!json_array_size(cur)) {
        create_pods(k, c, job, att, 0, first_pods(k, job));
    } else {
        submit(k, c, job, cur, att);
        grow(k, c, job, cur, att);
    }
    json_decref(st);
    json_decref(cur);
    json_decref(pods);
}

/* ---- deletion ------------------------------------------------------------------------ */

void ctl_tj_gone(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job)
{
    cancel_jobs(k, job);
    ctl_jobtask_remove(c->o.pods_root, sl_kube_uid(job)); /* a node range's links */
    json_t *pods = owned_pods(c, job);
    delete_pods(c, NULL, pods, true);
    sl_info("%s %s/%s deleted: %zu pods deleted with it", k->kind, sl_kube_namespace(job),
            sl_kube_name(job), json_array_size(pods));
    json_decref(pods);
}
