/* ctl.c — the StatefulSet controller (kube's pkg/controller/statefulset),
 * one pass per StatefulSet, remembering nothing between passes:
 *
 *   - its pods are those whose controller ownerReference it is, each at
 *     the ordinal its name ends with (<sts>-<ordinal>); a pod that ended
 *     (its Slurm job failed, was cancelled, its node died) is deleted, and
 *     made again under the same name once the old one is gone from the
 *     store, so a replacement keeps its name, hostname and names;
 *   - OrderedReady: the lowest missing ordinal below replicas is made only
 *     once every lower one is Running and Ready, one per pass; the highest
 *     above replicas is deleted only while every other is Running and
 *     Ready, one at a time. Parallel: all at once, both ways;
 *   - the revision is a hash of the pod template (label
 *     controller-revision-hash, <sts>-<hash>); RollingUpdate deletes the
 *     highest ordinal at or above the partition whose revision is an older
 *     one, once every pod is Running and Ready and none is being deleted,
 *     and it comes back with the new template; OnDelete waits for the
 *     user's delete;
 *   - status: replicas, readyReplicas, currentReplicas, updatedReplicas,
 *     availableReplicas, currentRevision, updateRevision,
 *     observedGeneration.
 *
 * A pod is created through the pod admission path (identity, policy,
 * quota: admit.c) and stored whole or not at all, so a slurmlinkd killed
 * in the middle makes no pod twice: the next pass finds it by name. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/gangowner.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobpod.h"
#include "kinds/replicaset/replicaset.h"
#include "kinds/replicaset/rsctl.h"
#include "kinds/statefulset/statefulset.h"
#include "kube/meta.h"
#include "pod/schema.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STS_MAX 10000 /* ordinals followed (a pass made at most this many) */

/* the revision: <sts>-<FNV-1a of the template's JSON, sorted keys> */
static char *revision(json_t *sts)
{
    char *s = json_dumps(sl_kube_path(sts, "spec.template"), JSON_COMPACT | JSON_SORT_KEYS);
    uint32_t h = 2166136261u;
    for (const char *p = s; p && *p; p++) {
        h ^= (unsigned char)*p;
        h *= 16777619u;
    }
    free(s);
    static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
    char sfx[12];
    size_t i = 0;
    for (; i < 10; i++, h /= 27)
        sfx[i] = alpha[h % 27];
    sfx[i] = '\0';
    return sl_xasprintf("%.52s-%s", sl_kube_name(sts), sfx);
}

/* the ordinal of pod as a pod of sts (its name <sts>-<n>), -1 if none */
static long long ordinal(json_t *sts, json_t *pod)
{
    const char *n = sl_kube_name(pod), *s = sl_kube_name(sts);
    size_t k = strlen(s);
    if (!n || strncmp(n, s, k) || n[k] != '-' || !n[k + 1])
        return -1;
    char *end;
    long long v = strtoll(n + k + 1, &end, 10);
    return *end || v < 0 || v >= STS_MAX || (n[k + 1] == '0' && n[k + 2]) ? -1 : v;
}

static bool ended(json_t *pod)
{
    const char *ph = sl_kube_path_str(pod, "status.phase");
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
}

static bool running_ready(json_t *pod)
{
    const char *ph = sl_kube_path_str(pod, "status.phase");
    return ph && !strcmp(ph, "Running") && sl_rs_pod_ready(pod) &&
           !sl_kube_meta_str(pod, "deletionTimestamp");
}

static json_t *new_pod(json_t *sts, long long i, const char *rev)
{
    json_t *tmpl = sl_kube_path(sts, "spec.template");
    json_t *meta = json_deep_copy(json_object_get(tmpl, "metadata"));
    if (!json_is_object(meta)) {
        json_decref(meta);
        meta = json_object();
    }
    json_t *spec = json_deep_copy(json_object_get(tmpl, "spec"));
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", spec ? spec : json_object());
    ctl_drop_server_owned(pod);
    char *name = sl_xasprintf("%s-%lld", sl_kube_name(sts), i), idx[24];
    snprintf(idx, sizeof idx, "%lld", i);
    sl_kube_meta_set_str(pod, "name", name);
    sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(sts));
    sl_kube_set_label(pod, STS_REVISION_LABEL, rev);
    sl_kube_set_label(pod, STS_POD_NAME_LABEL, name);
    sl_kube_set_label(pod, STS_POD_INDEX_LABEL, idx);
    json_t *ps = json_object_get(pod, "spec");
    json_object_set_new(ps, "hostname", json_string(name));
    const char *svc = sl_kube_path_str(sts, "spec.serviceName");
    if (svc && *svc)
        json_object_set_new(ps, "subdomain", json_string(svc));
    const char *user = sl_kube_annotation(sts, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", "apps/v1",
                                  "kind", "StatefulSet", "name", sl_kube_name(sts), "uid",
                                  sl_kube_uid(sts), "controller", 1, "blockOwnerDeletion", 1));
    free(name);
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}

/* pod i made; false when the admission refused it (back-off, an Event) */
static bool create(sl_ctl_t *c, json_t *sts, long long i, const char *rev)
{
    if (ctl_create_waits(c, sl_kube_uid(sts)))
        return false;
    json_t *pod = new_pod(sts, i, rev), *one = json_pack("[O]", pod);
    sl_error_t err = SL_ERROR_INIT;
    bool forbidden = false;
    int rc = ctl_pods_create(c, one, &forbidden, &err);
    if (rc == 0) {
        ctl_create_admitted(c, sl_kube_uid(sts));
        ctl_event(c, sts, "Normal", "SuccessfulCreate",
                  "create Pod %s in StatefulSet %s successful", sl_kube_name(pod),
                  sl_kube_name(sts));
    } else {
        ctl_create_refused(c, sl_kube_uid(sts));
        ctl_event(c, sts, "Warning", "FailedCreate",
                  "create Pod %s in StatefulSet %s failed error: %s", sl_kube_name(pod),
                  sl_kube_name(sts), err.text);
    }
    sl_error_clear(&err);
    json_decref(one);
    json_decref(pod);
    return rc == 0;
}

static void delete_pod(sl_ctl_t *c, json_t *sts, json_t *pod, bool now)
{
    sl_rs_delete_pod(c, pod, now);
    ctl_event(c, sts, "Normal", "SuccessfulDelete", "delete Pod %s in StatefulSet %s successful",
              sl_kube_name(pod), sl_kube_name(sts));
}

/* the pass's view: the pod at each ordinal (borrowed; NULL: none stored) */
typedef struct view {
    json_t **at;
    long long n; /* ordinals followed: max(replicas, highest + 1) */
    long long replicas;
    char *rev;
} view_t;

static void view_init(view_t *v, json_t *sts, json_t *pods)
{
    v->replicas = sl_rs_replicas(sts);
    v->n = v->replicas;
    size_t i;
    json_t *p;
    json_array_foreach(pods, i, p) if (ordinal(sts, p) >= v->n) v->n = ordinal(sts, p) + 1;
    v->at = sl_xcalloc((size_t)v->n + 1, sizeof(json_t *));
    json_array_foreach(pods, i, p) if (ordinal(sts, p) >= 0) v->at[ordinal(sts, p)] = p;
    v->rev = revision(sts);
}

static const char *rev_of(json_t *pod) { return sl_kube_label(pod, STS_REVISION_LABEL); }

/* ended pods deleted; the missing below replicas made (OrderedReady: the
 * lowest, once those below it are Running and Ready); true when the pass
 * must stop there (OrderedReady waits) */
static bool make_missing(sl_ctl_t *c, json_t *sts, view_t *v)
{
    bool parallel = sts_parallel(sts);
    for (long long i = 0; i < v->replicas; i++) {
        json_t *p = v->at[i];
        if (p && ended(p) && !sl_kube_meta_str(p, "deletionTimestamp")) {
            delete_pod(c, sts, p, true); /* made again once it is gone */
            if (!parallel)
                return true;
            continue;
        }
        if (!p) {
            if (!create(c, sts, i, v->rev) || !parallel)
                return true;
            continue;
        }
        if (!parallel && !running_ready(p))
            return true; /* the next waits for this one */
    }
    return false;
}

/* the ordinals at or above replicas deleted: the highest first, one at a
 * time (OrderedReady), or all (Parallel) */
static bool remove_surplus(sl_ctl_t *c, json_t *sts, view_t *v)
{
    bool parallel = sts_parallel(sts), any = false;
    for (long long i = v->n - 1; i >= v->replicas; i--) {
        json_t *p = v->at[i];
        if (!p)
            continue;
        any = true;
        if (sl_kube_meta_str(p, "deletionTimestamp")) {
            if (!parallel)
                return true; /* one at a time */
            continue;
        }
        delete_pod(c, sts, p, false);
        if (!parallel)
            return true;
    }
    return any;
}

/* RollingUpdate: the highest ordinal at or above the partition of an
 * older revision deleted, once all are Running and Ready */
static void roll(sl_ctl_t *c, json_t *sts, view_t *v)
{
    if (sts_on_delete(sts))
        return;
    for (long long i = 0; i < v->replicas; i++)
        if (!v->at[i] || !running_ready(v->at[i]))
            return;
    for (long long i = v->replicas - 1; i >= sts_partition(sts); i--) {
        const char *r = rev_of(v->at[i]);
        if (!r || strcmp(r, v->rev)) {
            delete_pod(c, sts, v->at[i], false);
            return;
        }
    }
}

static void status(json_t *sts, view_t *v, json_t *st)
{
    long long replicas = 0, ready = 0, avail = 0, updated = 0, current = 0;
    const char *cur = sl_kube_path_str(sts, "status.currentRevision");
    json_t *mr = sl_kube_path(sts, "spec.minReadySeconds");
    int64_t now = sl_kube_now_ns();
    for (long long i = 0; i < v->n; i++) {
        json_t *p = v->at[i];
        if (!p || ended(p) || sl_kube_meta_str(p, "deletionTimestamp"))
            continue;
        replicas++;
        ready += sl_rs_pod_ready(p);
        avail += sl_rs_pod_available(p, json_integer_value(mr), now);
        const char *r = rev_of(p);
        updated += r && !strcmp(r, v->rev);
        current += r && cur && !strcmp(r, cur);
    }
    if (!cur || updated == v->replicas) { /* the update is complete */
        cur = v->rev;
        current = updated;
    }
    json_object_set_new(st, "replicas", json_integer(replicas));
    json_object_set_new(st, "readyReplicas", json_integer(ready));
    json_object_set_new(st, "currentReplicas", json_integer(current));
    json_object_set_new(st, "updatedReplicas", json_integer(updated));
    json_object_set_new(st, "availableReplicas", json_integer(avail));
    json_object_set_new(st, "currentRevision", json_string(cur));
    json_object_set_new(st, "updateRevision", json_string(v->rev));
    json_object_set_new(st, "collisionCount", json_integer(0));
    json_object_set(st, "observedGeneration", sl_kube_path(sts, "metadata.generation"));
}

static void sts_reconcile(sl_ctl_t *c, json_t *sts)
{
    json_t *pods = sl_rs_owned_pods(c, sts, "StatefulSet");
    if (sl_kube_meta_str(sts, "deletionTimestamp")) {
        sl_rs_finalize(c, sts, STS_STORE, pods, sl_rs_pods_follow);
        json_decref(pods);
        return;
    }
    view_t v;
    view_init(&v, sts, pods);
    if (!make_missing(c, sts, &v) && !remove_surplus(c, sts, &v))
        roll(c, sts, &v);
    json_t *st = json_object();
    status(sts, &v, st);
    sl_rs_write_status(c, STS_STORE, sts, st);
    json_decref(st);
    free(v.at);
    free(v.rev);
    json_decref(pods);
}

static void sts_gone(sl_ctl_t *c, json_t *sts)
{
    json_t *pods = sl_rs_owned_pods(c, sts, "StatefulSet");
    sl_rs_pods_follow(c, sts, pods, false);
    json_decref(pods);
}

static void sts_collect_gone(sl_ctl_t *c)
{
    sl_rs_collect_orphans(c, STS_STORE, "StatefulSet", "pods");
}

const sl_kind_t sl_kind_statefulset = {
    .api = {"apps",
            "v1",
            "statefulsets",
            "statefulset",
            "StatefulSet",
            "StatefulSetList",
            true,
            API_V_ALL,
            {"sts"},
            {"all"},
            true,
            false,
            STS_STORE,
            &sts_api_ops},
    .pod_templates = {"spec.template.spec", NULL},
    .runs_as_creator = true,
    .owns_pods = true,
    .delete_finalizers = true,
    .ctl = {.needs_slurm = true,
            .reconcile = sts_reconcile,
            .gone = sts_gone,
            .collect_gone = sts_collect_gone},
};
