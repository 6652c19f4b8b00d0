/* ctl.c — the ReplicaSet controller (kube's pkg/controller/replicaset):
 * each pass counts the pods whose controller ownerReference is the
 * ReplicaSet, replaces those that ended (Failed or Succeeded: their Slurm
 * job was cancelled, failed, or its node died), creates the missing ones
 * through the pod admission path (identity, policy, quota: admit.c) and
 * deletes the surplus, not-yet-running and not-ready ones and the newest
 * first (controller.ActivePods' order). Its status: replicas,
 * fullyLabeledReplicas, readyReplicas, availableReplicas (Ready for
 * minReadySeconds), observedGeneration.
 *
 * Nothing is remembered between passes: the store is read each time, so a
 * slurmlinkd killed in the middle creates no pod twice (a pod is stored
 * whole or not at all, and the next pass counts it). */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobpod.h"
#include "kinds/replicaset/replicaset.h"
#include "kinds/replicaset/rsctl.h"
#include "kube/meta.h"
#include "kube/selector.h"
#include "pod/schema.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RS_BURST 500 /* pods created in one pass at most */

const char *sl_rs_controller_of(json_t *obj, const char *kind)
{
    return ctl_controller_owner(obj, kind, "apps/v1");
}

json_t *sl_rs_owned_pods(sl_ctl_t *c, json_t *owner, const char *kind)
{
    json_t *all = ctl_pods_naming(c, sl_kube_namespace(owner), sl_kube_uid(owner));
    json_t *out = json_array();
    size_t i;
    json_t *pod;
    json_array_foreach(all, i, pod)
    {
        const char *o = sl_rs_controller_of(pod, kind);
        if (o && !strcmp(o, sl_kube_uid(owner)))
            json_array_append(out, pod);
    }
    json_decref(all);
    return out;
}

static bool pod_ended(json_t *pod)
{
    const char *ph = sl_kube_path_str(pod, "status.phase");
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
}

bool sl_rs_pod_active(json_t *pod)
{
    return !pod_ended(pod) && !sl_kube_meta_str(pod, "deletionTimestamp");
}

static json_t *new_pod(json_t *rs)
{
    json_t *pod = ctl_pod_from_template(sl_kube_path(rs, "spec.template"));
    json_t *meta = json_object_get(pod, "metadata");
    char sfx[6];
    sl_kube_rand_suffix(sfx, 5);
    char *name = sl_xasprintf("%.57s-%s", sl_kube_name(rs), sfx);
    char *gen = sl_xasprintf("%.57s-", sl_kube_name(rs));
    sl_kube_meta_set_str(pod, "name", name);
    sl_kube_meta_set_str(pod, "generateName", gen);
    free(name);
    free(gen);
    sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(rs));
    const char *user = sl_kube_annotation(rs, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", "apps/v1",
                                  "kind", "ReplicaSet", "name", sl_kube_name(rs), "uid",
                                  sl_kube_uid(rs), "controller", 1, "blockOwnerDeletion", 1));
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}

/* the ReplicaFailure condition; its lastTransitionTime kept while it stays
 * True (st holds the stored conditions) */
static void failure_condition(json_t *st, const char *why)
{
    json_t *cur = sl_kube_condition(json_object_get(st, "conditions"), "ReplicaFailure");
    const char *since = json_string_value(json_object_get(cur, "lastTransitionTime"));
    char *now = sl_kube_now_rfc3339();
    json_object_set_new(st, "conditions",
                        json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "type", "ReplicaFailure", "status",
                                  "True", "reason", "FailedCreate", "message", why,
                                  "lastTransitionTime", since ? since : now));
    free(now);
}

/* n new pods, each admitted on its own (a quota admits as many as fit, as
 * kube's slow-start batches do); the first refusal stops the pass: back-off,
 * FailedCreate, ReplicaFailure */
static void create_pods(sl_ctl_t *c, json_t *rs, long long n, json_t *st)
{
    if (ctl_create_waits(c, sl_kube_uid(rs)))
        return;
    for (long long i = 0; i < n && i < RS_BURST; i++) {
        json_t *pod = new_pod(rs), *one = json_pack("[O]", pod);
        sl_error_t err = SL_ERROR_INIT;
        bool forbidden = false;
        int rc = ctl_pods_create(c, one, &forbidden, &err);
        if (rc == 0) {
            ctl_create_admitted(c, sl_kube_uid(rs));
            ctl_event(c, rs, "Normal", "SuccessfulCreate", "Created pod: %s", sl_kube_name(pod));
        } else {
            ctl_create_refused(c, sl_kube_uid(rs));
            ctl_event(c, rs, "Warning", "FailedCreate", "Error creating: %s", err.text);
            failure_condition(st, err.text);
        }
        sl_error_clear(&err);
        json_decref(one);
        json_decref(pod);
        if (rc < 0)
            break;
    }
}

/* ctl_pod_mutate's fn: a graceful delete, as the API's (now + the pod's
 * terminationGracePeriodSeconds, default 30) */
static int mark_graceful_fn(json_t *pod, void *arg)
{
    (void)arg;
    if (sl_kube_meta_str(pod, "deletionTimestamp"))
        return 0;
    json_t *g = sl_kube_path(pod, "spec.terminationGracePeriodSeconds");
    long long grace = json_is_integer(g) ? json_integer_value(g) : 30;
    char *ts = sl_kube_rfc3339(sl_kube_now_ns() + grace * 1000000000LL, 0);
    sl_kube_meta_set_str(pod, "deletionTimestamp", ts);
    free(ts);
    json_object_set_new(sl_kube_meta(pod), "deletionGracePeriodSeconds", json_integer(grace));
    return 1;
}

void sl_rs_delete_pod(sl_ctl_t *c, json_t *pod, bool now)
{
    ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod),
                   now ? ctl_pod_mark_deleted_fn : mark_graceful_fn, NULL, NULL, NULL);
}

/* controller.ActivePods' order: the pod to delete first sorts first */
static int rank(json_t *p)
{
    const char *ph = sl_kube_path_str(p, "status.phase");
    int r = sl_kube_path_str(p, "spec.nodeName") ? 4 : 0;
    r += ph && !strcmp(ph, "Running") ? 2 : 0;
    return r + (sl_rs_pod_ready(p) ? 1 : 0);
}

static int cmp_delete_first(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int rx = rank(x), ry = rank(y);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    const char *cx = sl_kube_meta_str(x, "creationTimestamp");
    const char *cy = sl_kube_meta_str(y, "creationTimestamp");
    int c = strcmp(cy ? cy : "", cx ? cx : ""); /* newest first */
    return c ? c : strcmp(sl_kube_name(y), sl_kube_name(x));
}

static void delete_surplus(sl_ctl_t *c, json_t *rs, json_t *active, long long n)
{
    size_t k = json_array_size(active);
    json_t **v = sl_xcalloc(k + 1, sizeof(*v));
    for (size_t i = 0; i < k; i++)
        v[i] = json_array_get(active, i);
    qsort(v, k, sizeof(*v), cmp_delete_first);
    for (size_t i = 0; i < k && (long long)i < n; i++) {
        sl_rs_delete_pod(c, v[i], false);
        ctl_event(c, rs, "Normal", "SuccessfulDelete", "Deleted pod: %s", sl_kube_name(v[i]));
    }
    free(v);
}

/* the counts of the status from the active pods */
static void count(json_t *rs, json_t *active, json_t *st)
{
    long long ready = 0, avail = 0, labeled = 0;
    json_t *mr = sl_kube_path(rs, "spec.minReadySeconds");
    int64_t now = sl_kube_now_ns();
    json_t *tl = sl_kube_path(rs, "spec.template.metadata.labels");
    size_t i;
    json_t *pod;
    json_array_foreach(active, i, pod)
    {
        ready += sl_rs_pod_ready(pod);
        avail += sl_rs_pod_available(pod, json_integer_value(mr), now);
        json_t *pl = sl_kube_path(pod, "metadata.labels");
        const char *k;
        json_t *v;
        bool all = true;
        json_object_foreach(tl, k, v) all &= json_equal(v, json_object_get(pl, k));
        labeled += all;
    }
    json_object_set_new(st, "replicas", json_integer((json_int_t)json_array_size(active)));
    json_object_set_new(st, "fullyLabeledReplicas", json_integer(labeled));
    json_object_set_new(st, "readyReplicas", json_integer(ready));
    json_object_set_new(st, "availableReplicas", json_integer(avail));
    json_object_set(st, "observedGeneration", sl_kube_path(rs, "metadata.generation"));
}

typedef struct status_arg {
    const char *uid;
    json_t *status;
} status_arg_t;

static int status_fn(json_t *obj, void *arg)
{
    status_arg_t *a = arg;
    if (strcmp(sl_kube_uid(obj) ? sl_kube_uid(obj) : "", a->uid)) {
        errno = ENOENT;
        return -1;
    }
    if (json_equal(json_object_get(obj, "status"), a->status))
        return 0;
    json_object_set(obj, "status", a->status);
    return 1;
}

void sl_rs_write_status(sl_ctl_t *c, const char *store, json_t *obj, json_t *st)
{
    status_arg_t a = {sl_kube_uid(obj), st};
    sl_store_mutate(c->store, store, sl_kube_namespace(obj), sl_kube_name(obj), status_fn, &a, NULL,
                    NULL);
}

/* the pods: ended ones removed (their replacements counted missing), the
 * missing created, the surplus deleted */
static void rs_sync(sl_ctl_t *c, json_t *rs, json_t *pods, json_t *st)
{
    json_t *active = json_array();
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if (sl_rs_pod_active(pod))
            json_array_append(active, pod);
        else if (pod_ended(pod) && !sl_kube_meta_str(pod, "deletionTimestamp"))
            sl_rs_delete_pod(c, pod, true);
    }
    long long want = sl_rs_replicas(rs), have = (long long)json_array_size(active);
    json_t *old = sl_kube_path(rs, "status.conditions");
    if (json_is_array(old))
        json_object_set(st, "conditions", old);
    if (have < want)
        create_pods(c, rs, want - have, st);
    else if (have > want)
        delete_surplus(c, rs, active, have - want);
    if (have >= want) /* nothing failed to be created: no ReplicaFailure */
        json_object_del(st, "conditions");
    count(rs, active, st);
    json_decref(active);
}

void sl_rs_pods_follow(sl_ctl_t *c, json_t *rs, json_t *pods, bool orphan)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if (orphan)
            ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod),
                           ctl_drop_owner_fn, (void *)sl_kube_uid(rs), NULL, NULL);
        else if (!sl_kube_meta_str(pod, "deletionTimestamp"))
            sl_rs_delete_pod(c, pod, false);
    }
}

void sl_rs_finalize(sl_ctl_t *c, json_t *obj, const char *store, json_t *deps, sl_rs_deps_fn fn)
{
    const char *f = ctl_has_finalizer(obj, "orphan")               ? "orphan"
                    : ctl_has_finalizer(obj, "foregroundDeletion") ? "foregroundDeletion"
                                                                   : NULL;
    if (!f)
        return;
    bool orphan = !strcmp(f, "orphan");
    fn(c, obj, deps, orphan);
    if (!orphan && json_array_size(deps))
        return; /* it stays until they are gone */
    json_t *out = NULL;
    const char *ns = sl_kube_namespace(obj), *name = sl_kube_name(obj);
    if (sl_store_mutate(c->store, store, ns, name, ctl_drop_finalizer_fn, (void *)f, &out, NULL) ==
            0 &&
        !json_array_size(sl_kube_path(out, "metadata.finalizers")))
        sl_store_delete(c->store, store, ns, name, sl_kube_rv(out), NULL, NULL);
    json_decref(out);
}

static void rs_reconcile(sl_ctl_t *c, json_t *rs)
{
    json_t *pods = sl_rs_owned_pods(c, rs, "ReplicaSet");
    if (sl_kube_meta_str(rs, "deletionTimestamp")) {
        sl_rs_finalize(c, rs, "replicasets.apps", pods, sl_rs_pods_follow);
        json_decref(pods);
        return;
    }
    json_t *st = json_object();
    rs_sync(c, rs, pods, st);
    sl_rs_write_status(c, "replicasets.apps", rs, st);
    json_decref(st);
    json_decref(pods);
}

/* deleted (background propagation): its pods go */
static void rs_gone(sl_ctl_t *c, json_t *rs)
{
    json_t *pods = sl_rs_owned_pods(c, rs, "ReplicaSet");
    if (json_array_size(pods))
        sl_info("replicaset %s/%s deleted: %zu pods deleted with it", sl_kube_namespace(rs),
                sl_kube_name(rs), json_array_size(pods));
    sl_rs_pods_follow(c, rs, pods, false);
    json_decref(pods);
}

void sl_rs_collect_orphans(sl_ctl_t *c, const char *owner_store, const char *owner_kind,
                           const char *dep_store)
{
    json_t *owners = sl_store_list(c->store, owner_store, NULL, NULL);
    json_t *deps = owners ? sl_store_list(c->store, dep_store, NULL, NULL) : NULL;
    json_t *uids = json_object();
    size_t i;
    json_t *o;
    json_array_foreach(owners, i, o) json_object_set_new(uids, sl_kube_uid(o), json_true());
    json_array_foreach(deps, i, o)
    {
        const char *owner = sl_rs_controller_of(o, owner_kind);
        if (!owner || json_object_get(uids, owner) || sl_kube_meta_str(o, "deletionTimestamp"))
            continue;
        sl_info("%s %s/%s: its %s is gone: deleted", dep_store, sl_kube_namespace(o),
                sl_kube_name(o), owner_kind);
        if (!strcmp(dep_store, "pods"))
            sl_rs_delete_pod(c, o, false);
        else
            sl_store_delete(c->store, dep_store, sl_kube_namespace(o), sl_kube_name(o), 0, NULL,
                            NULL);
    }
    json_decref(uids);
    json_decref(deps);
    json_decref(owners);
}

static void rs_collect_gone(sl_ctl_t *c)
{
    sl_rs_collect_orphans(c, "replicasets.apps", "ReplicaSet", "pods");
}

const sl_kind_t sl_kind_replicaset = {
    .api = {"apps",
            "v1",
            "replicasets",
            "replicaset",
            "ReplicaSet",
            "ReplicaSetList",
            true,
            API_V_ALL,
            {"rs"},
            {"all"},
            true,
            false,
            "replicasets.apps",
            &sl_rs_api_ops},
    .pod_templates = {"spec.template.spec", NULL},
    .runs_as_creator = true,
    .owns_pods = true,
    .delete_finalizers = true,
    .ctl = {.needs_slurm = true,
            .reconcile = rs_reconcile,
            .gone = rs_gone,
            .collect_gone = rs_collect_gone},
};
