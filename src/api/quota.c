/* quota.c — ResourceQuota admission of pods and the quotas' status, as
 * kube-apiserver's resourcequota admission plugin and kube-controller-
 * manager's quota controller do it, for the pod resources:
 *
 *   pods, count/pods                       one per pod
 *   requests.cpu (= cpu), limits.cpu       the pod's effective request / limit
 *   requests.memory (= memory), limits.memory, requests.ephemeral-storage, ...
 *   requests.X, X, limits.X                for extended resources (nvidia.com/gpu)
 *
 * and for PersistentVolumeClaims, each counted until it is deleted:
 *
 *   persistentvolumeclaims, count/persistentvolumeclaims     one per claim
 *   requests.storage                                         its request
 *   <class>.storageclass.storage.k8s.io/requests.storage     the same per class
 *   <class>.storageclass.storage.k8s.io/persistentvolumeclaims
 *
 * and Services, each counted until it is deleted:
 *
 *   services, count/services               one per Service
 *   services.nodeports, services.loadbalancers   none (those types are refused)
 *
 * A pod counts while its phase is neither Succeeded nor Failed and, when it
 * is being deleted, until its grace period has passed after deletionTimestamp
 * (its job may run that long). The check runs with the store's write lock
 * held (one transaction from counting to storing the pod), so concurrent
 * creates can never overshoot a quota. The usage admission checks is what
 * the quota's status.used records, raised by every admission in its
 * transaction and lowered only by the janitor's recount of the pods, so it
 * is never below the true usage (a quota that does not record it yet is
 * counted from the pods once).
 *
 * status.hard (= spec.hard) and status.used are rewritten after each pod
 * create and by the janitor's recount of a namespace where pods finished,
 * were deleted or were made by a controller, or whose quotas were edited
 * (quotawatch.c). The policy's defaultQuota becomes a ResourceQuota named
 * "default" in each namespace that has none (at the first pod create, or
 * when the janitor sees the namespace). */
#include "api/quota.h"
#include "api/facts.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "auth/policy.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/quantity.h"
#include "kube/status.h"
#include "metrics/metrics.h"
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_QUOTA "default"

/* ---- resource lists: name → quantity ---- */

typedef struct rlist {
    char **names;
    sl_quantity_t *q;
    size_t n;
} rlist_t;

static void rl_free(rlist_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    free(l->q);
    memset(l, 0, sizeof(*l));
}

static sl_quantity_t *rl_get(const rlist_t *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name))
            return &l->q[i];
    return NULL;
}

static sl_quantity_t *rl_slot(rlist_t *l, const char *name, sl_qformat_t fmt)
{
    sl_quantity_t *q = rl_get(l, name);
    if (q)
        return q;
    l->names = sl_xrealloc(l->names, (l->n + 1) * sizeof(char *));
    l->q = sl_xrealloc(l->q, (l->n + 1) * sizeof(sl_quantity_t));
    l->names[l->n] = sl_xstrdup(name);
    l->q[l->n] = (sl_quantity_t){0, fmt, 0};
    return &l->q[l->n++];
}

static void rl_add(rlist_t *l, const char *name, const sl_quantity_t *q)
{
    sl_quantity_t *s = rl_slot(l, name, q->format);
    s->nanos += q->nanos;
    s->huge |= q->huge;
}

static void rl_max(rlist_t *l, const char *name, const sl_quantity_t *q)
{
    sl_quantity_t *s = rl_slot(l, name, q->format);
    if (sl_quantity_cmp(q, s) > 0)
        *s = *q;
}

/* A JSON ResourceList (malformed quantities skipped: validation refused
 * them before they were stored). */
static void rl_from_json(rlist_t *l, json_t *map, bool max)
{
    const char *k;
    json_t *v;
    json_object_foreach(map, k, v)
    {
        sl_quantity_t q;
        if (sl_quantity_from_json(v, &q, NULL, NULL) == 0)
            (max ? rl_max : rl_add)(l, k, &q);
    }
}

/* ---- what one pod uses (podEvaluator.Usage) ---- */

/* requests or limits of the pod: the sum over app containers and sidecars,
 * at least the largest init container, plus the pod overhead */
static void pod_sum(json_t *pod, const char *which, rlist_t *out)
{
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(pod, "spec.containers"), i, c)
        rl_from_json(out, sl_kube_path(c, which), false);
    json_array_foreach(sl_kube_path(pod, "spec.initContainers"), i, c)
    {
        const char *rp = sl_kube_path_str(c, "restartPolicy");
        if (rp && !strcmp(rp, "Always")) /* a sidecar runs alongside */
            rl_from_json(out, sl_kube_path(c, which), false);
    }
    rlist_t init = {0};
    json_array_foreach(sl_kube_path(pod, "spec.initContainers"), i, c)
    {
        const char *rp = sl_kube_path_str(c, "restartPolicy");
        if (rp && !strcmp(rp, "Always"))
            continue;
        rlist_t one = {0};
        rl_from_json(&one, sl_kube_path(c, which), false);
        for (size_t k = 0; k < one.n; k++)
            rl_max(&init, one.names[k], &one.q[k]);
        rl_free(&one);
    }
    for (size_t k = 0; k < init.n; k++)
        rl_max(out, init.names[k], &init.q[k]);
    rl_free(&init);
    rl_from_json(out, sl_kube_path(pod, "spec.overhead"), false);
}

static void pod_usage(json_t *pod, rlist_t *u)
{
    sl_quantity_t one = {1000000000, SL_QF_DECIMAL_SI, 0};
    rl_add(u, "pods", &one);
    rl_add(u, "count/pods", &one);
    rlist_t req = {0}, lim = {0};
    pod_sum(pod, "resources.requests", &req);
    pod_sum(pod, "resources.limits", &lim);
    for (size_t i = 0; i < req.n; i++) {
        char *n = sl_xasprintf("requests.%s", req.names[i]);
        rl_add(u, n, &req.q[i]);
        rl_add(u, req.names[i], &req.q[i]); /* cpu, memory, nvidia.com/gpu */
        free(n);
    }
    for (size_t i = 0; i < lim.n; i++) {
        char *n = sl_xasprintf("limits.%s", lim.names[i]);
        rl_add(u, n, &lim.q[i]);
        free(n);
    }
    rl_free(&req);
    rl_free(&lim);
}

/* pvcEvaluator.Usage: one claim and its storage request, also per class */
static void claim_usage(json_t *pvc, rlist_t *u)
{
    sl_quantity_t one = {1000000000, SL_QF_DECIMAL_SI, 0}, q;
    const char *cls = sl_kube_path_str(pvc, "spec.storageClassName");
    json_t *req = sl_kube_path(pvc, "spec.resources.requests.storage");
    bool sized = req && sl_quantity_from_json(req, &q, NULL, NULL) == 0;
    rl_add(u, "persistentvolumeclaims", &one);
    rl_add(u, "count/persistentvolumeclaims", &one);
    if (sized)
        rl_add(u, "requests.storage", &q);
    if (cls && *cls) {
        char *n = sl_xasprintf("%s.storageclass.storage.k8s.io/persistentvolumeclaims", cls);
        rl_add(u, n, &one);
        free(n);
        n = sl_xasprintf("%s.storageclass.storage.k8s.io/requests.storage", cls);
        if (sized)
            rl_add(u, n, &q);
        free(n);
    }
}

static bool is_claim(json_t *obj)
{
    const char *k = json_string_value(json_object_get(obj, "kind"));
    return k && !strcmp(k, "PersistentVolumeClaim");
}

static bool is_service(json_t *obj)
{
    const char *k = json_string_value(json_object_get(obj, "kind"));
    return k && !strcmp(k, "Service");
}

bool api_quota_counts(const char *resource)
{
    return !strcmp(resource, "pods") || !strcmp(resource, "persistentvolumeclaims") ||
           !strcmp(resource, "services");
}

/* serviceEvaluator.Usage: one Service (NodePort and LoadBalancer, which
 * would count in services.nodeports and services.loadbalancers, are
 * refused) */
static void service_usage(json_t *svc, rlist_t *u)
{
    (void)svc;
    sl_quantity_t one = {1000000000, SL_QF_DECIMAL_SI, 0};
    rl_add(u, "services", &one);
    rl_add(u, "count/services", &one);
}

/* QuotaV1Pod: counted unless finished, or being deleted for longer than its
 * grace period past deletionTimestamp (a pod stuck terminating). A pod
 * deleted with a long grace period still holds its job, so it still counts. */
static bool pod_counts(json_t *pod)
{
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        return false;
    const char *del = sl_kube_meta_str(pod, "deletionTimestamp");
    json_t *grace = json_object_get(json_object_get(pod, "metadata"), "deletionGracePeriodSeconds");
    int64_t at = 0;
    if (!del || !json_is_integer(grace) || sl_kube_parse_rfc3339(del, &at) < 0)
        return true;
    return sl_kube_now_ns() <= at + json_integer_value(grace) * 1000000000LL;
}

struct usage_arg {
    rlist_t *used;
    bool deleting; /* a counted pod is being deleted (it stops counting in time) */
    size_t read;
};

static int add_usage(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    struct usage_arg *a = arg;
    a->read++;
    json_t *p = json_loadb(json, len, 0, NULL);
    if (p && pod_counts(p)) {
        pod_usage(p, a->used);
        a->deleting |= sl_kube_meta_str(p, "deletionTimestamp") != NULL;
    }
    json_decref(p);
    return 0;
}

/* The usage of the namespace's counted pods into a->used, one pod parsed
 * at a time (a: used set, the rest zero). */
static int add_claim_usage(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    struct usage_arg *a = arg;
    json_t *p = json_loadb(json, len, 0, NULL);
    if (p)
        claim_usage(p, a->used);
    json_decref(p);
    return 0;
}

static int add_service_usage(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    (void)json;
    (void)len;
    struct usage_arg *a = arg;
    service_usage(NULL, a->used);
    return 0;
}

static int ns_usage(sl_api_t *api, const char *ns, struct usage_arg *a)
{
    if (sl_store_list_each(api->store, "pods", ns, add_usage, a, NULL) < 0 ||
        sl_store_list_each(api->store, "persistentvolumeclaims", ns, add_claim_usage, a, NULL) <
            0)
        return -1;
    return sl_store_list_each(api->store, "services", ns, add_service_usage, a, NULL) < 0 ? -1
                                                                                          : 0;
}

/* ---- the policy's default quota ---- */

/* Create "default" from the policy when ns has no quota. The quotas of ns
 * (new ref), or NULL on a store error. */
static json_t *quotas_of(sl_api_t *api, const char *ns)
{
    json_t *qs = sl_store_list(api->store, "resourcequotas", ns, NULL);
    if (!qs || json_array_size(qs) || !api->policy)
        return qs;
    const char *const *names, *const *values;
    size_t n = sl_authz_default_quota(api->policy, ns, &names, &values);
    if (!n)
        return qs;
    json_t *hard = json_object();
    for (size_t i = 0; i < n; i++)
        json_object_set_new(hard, names[i], json_string(values[i]));
    json_t *q =
        json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:o}}", "apiVersion", "v1", "kind",
                  "ResourceQuota", "metadata", "name", DEFAULT_QUOTA, "namespace", ns, "labels",
                  "app.kubernetes.io/managed-by", "slurmlink-policy", "spec", "hard", hard);
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_create(api->store, "resourcequotas", q, &err) == 0) {
        sl_info("namespace %s: created ResourceQuota default from the policy's defaultQuota", ns);
        json_array_append(qs, q);
    } else if (errno != EEXIST) {
        sl_warn("namespace %s: cannot create the policy's default quota: %s", ns, err.text);
    }
    json_decref(q);
    return qs;
}

/* ---- status ---- */

struct status_arg {
    json_t *status;
    const char *rv; /* NULL, or: only while the quota is at this version */
    bool dropped;   /* it was not: left as it is */
};

static int set_status(json_t *obj, void *arg)
{
    struct status_arg *a = arg;
    const char *now = sl_kube_meta_str(obj, "resourceVersion");
    if (a->rv && (!now || strcmp(now, a->rv))) {
        a->dropped = true;
        return 0; /* written since it was read: by an admission's newer count */
    }
    if (json_equal(json_object_get(obj, "status"), a->status))
        return 0;
    json_object_set(obj, "status", a->status);
    return 1;
}

/* status.hard = spec.hard, status.used = used for those resources; with
 * if_unchanged, only if q (as read) is still the stored version (false
 * when it was not, or the write failed) */
static bool write_status(sl_api_t *api, json_t *q, const rlist_t *used, bool if_unchanged)
{
    json_t *hard = sl_kube_path(q, "spec.hard");
    json_t *u = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(hard, k, v)
    {
        sl_quantity_t *s = rl_get(used, k);
        sl_quantity_t zero = {0, SL_QF_DECIMAL_SI, 0};
        char *text = sl_quantity_string(s ? s : &zero);
        json_object_set_new(u, k, json_string(text));
        free(text);
    }
    struct status_arg a = {
        json_pack("{s:o, s:o}", "hard", hard ? json_deep_copy(hard) : json_object(), "used", u),
        if_unchanged ? sl_kube_meta_str(q, "resourceVersion") : NULL, false};
    if (if_unchanged && !a.rv) {
        json_decref(a.status);
        return false;
    }
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_mutate(api->store, "resourcequotas", sl_kube_namespace(q), sl_kube_name(q),
                        set_status, &a, NULL, &err) < 0 &&
        errno != ENOENT)
        sl_warn("quota %s/%s: cannot update its status: %s", sl_kube_namespace(q), sl_kube_name(q),
                err.text);
    json_decref(a.status);
    return !a.dropped && !err.text[0];
}

/* The janitor's recount of ns: its pods counted, then each quota's status
 * written. The count runs outside any transaction (it is O(pods) and
 * writers need not wait for it), so each write is conditional on the quota
 * not having changed since it was read before the count. A pod admitted
 * between the count and the write wrote its own, newer count into the
 * quota; the older one no longer overwrites it (a watcher saw used go 1,
 * 0, 1). True when ns must be recounted on the next pass: a write was so
 * dropped (the count it kept may be too high), a counted pod is being
 * deleted (it stops counting once its grace period is over), or the pods
 * could not be read. */
static bool sync_ns(sl_api_t *api, const char *ns, json_t *quotas)
{
    if (!json_array_size(quotas))
        return false;
    rlist_t used = {0};
    struct usage_arg a = {&used, false, 0};
    int r = ns_usage(api, ns, &a);
    sl_metrics_quota_recount(a.read);
    bool again = r < 0 || a.deleting;
    if (r == 0) {
        /* the test build: a pod admitted between a count and its write */
        SL_FAULT("quota-counted");
        size_t i;
        json_t *q;
        json_array_foreach(quotas, i, q) again |= !write_status(api, q, &used, true);
    }
    rl_free(&used);
    return again;
}

/* The janitor's pass: the namespaces whose usage may have changed behind
 * admission's back, or whose quotas changed (quotawatch.c), recounted. */
void api_quota_sync(sl_api_t *api, api_quota_watch_t *w)
{
    api_quota_watch_collect(w, api->store);
    sl_argv_t again = SL_ARGV_INIT;
    json_t *nss = sl_store_list(api->store, "namespaces", NULL, NULL);
    size_t i;
    json_t *ns;
    json_array_foreach(nss, i, ns)
    {
        const char *name = sl_kube_name(ns);
        if (sl_kube_meta_str(ns, "deletionTimestamp") || !api_quota_watch_wants(w, name))
            continue;
        json_t *qs = quotas_of(api, name);
        if (!qs || sync_ns(api, name, qs))
            sl_argv_add(&again, name);
        json_decref(qs);
    }
    json_decref(nss);
    api_quota_watch_done(w, &again);
}

/* ---- admission ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* prettyPrint: "a=1,b=2" sorted by name, of l's entries in names */
static char *pretty(const rlist_t *l, char **names, size_t n)
{
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        sl_quantity_t zero = {0, SL_QF_DECIMAL_SI, 0};
        const sl_quantity_t *q = rl_get(l, names[i]);
        char *s = sl_quantity_string(q ? q : &zero);
        sl_buf_printf(&b, "%s%s=%s", i ? "," : "", names[i], s);
        free(s);
    }
    char *out = sl_xstrdup(b.len ? b.data : "");
    sl_buf_free(&b);
    return out;
}

/* podEvaluator.Constraints: with cpu or memory under quota, every container
 * must state it: "must specify requests.cpu for: a,b; limits.memory for: a" */
static char *missing_constraints(json_t *pod, json_t *hard)
{
    static const char *const res[] = {"limits.cpu", "limits.memory", "requests.cpu",
                                      "requests.memory", NULL};
    sl_buf_t b = SL_BUF_INIT;
    for (int r = 0; res[r]; r++) {
        const char *base = strchr(res[r], '.') + 1;
        bool want =
            json_object_get(hard, res[r]) || (res[r][0] == 'r' && json_object_get(hard, base));
        if (!want)
            continue;
        const char *which = res[r][0] == 'l' ? "resources.limits" : "resources.requests";
        sl_buf_t who = SL_BUF_INIT;
        static const char *const lists[] = {"spec.containers", "spec.initContainers"};
        for (int l = 0; l < 2; l++) {
            size_t i;
            json_t *c;
            json_array_foreach(sl_kube_path(pod, lists[l]), i, c)
            {
                if (!json_object_get(sl_kube_path(c, which), base))
                    sl_buf_printf(&who, "%s%s", who.len ? "," : "",
                                  sl_kube_path_str(c, "name") ? sl_kube_path_str(c, "name") : "");
            }
        }
        if (who.len)
            sl_buf_printf(&b, "%s%s for: %s", b.len ? "; " : "must specify ", res[r], who.data);
        sl_buf_free(&who);
    }
    char *out = b.len ? sl_xstrdup(b.data) : NULL;
    sl_buf_free(&b);
    return out;
}

/* The resources of hard that used + req would exceed, into ex (room for
 * every key of hard; NULL: only counted); how many. */
static size_t exceeded(json_t *hard, const rlist_t *used, const rlist_t *req, char **ex)
{
    size_t nex = 0;
    const char *k;
    json_t *v;
    json_object_foreach(hard, k, v)
    {
        const sl_quantity_t *r = rl_get(req, k);
        sl_quantity_t limit;
        if (!r || !sl_quantity_sign(r) || sl_quantity_from_json(v, &limit, NULL, NULL) < 0)
            continue;
        sl_quantity_t total = {0, r->format, 0};
        const sl_quantity_t *u = rl_get(used, k);
        total.nanos = r->nanos + (u ? u->nanos : 0);
        total.huge = r->huge || (u && u->huge);
        if (sl_quantity_cmp(&total, &limit) <= 0)
            continue;
        if (ex)
            ex[nex] = (char *)k;
        nex++;
    }
    return nex;
}

/* One quota against used + the pod's usage: 0, or -1 with a Forbidden
 * err (kube's quota admission texts). */
static int check_quota(json_t *pod, json_t *q, const rlist_t *used, const rlist_t *req,
                       sl_error_t *err)
{
    json_t *hard = sl_kube_path(q, "spec.hard");
    char *miss = missing_constraints(pod, hard);
    if (miss) {
        sl_errkindf(err, SL_ERR_FORBIDDEN, "failed quota: %s: %s", sl_kube_name(q), miss);
        free(miss);
        return -1;
    }
    char **ex = sl_xcalloc(json_object_size(hard) + 1, sizeof(char *));
    size_t nex = exceeded(hard, used, req, ex);
    int rc = 0;
    if (nex) {
        qsort(ex, nex, sizeof(char *), cmp_str);
        rlist_t hl = {0};
        rl_from_json(&hl, hard, false);
        char *a = pretty(req, ex, nex), *b = pretty(used, ex, nex), *c = pretty(&hl, ex, nex);
        rc = sl_errkindf(err, SL_ERR_FORBIDDEN,
                         "exceeded quota: %s, requested: %s, used: %s, limited: %s",
                         sl_kube_name(q), a, b, c);
        free(a);
        free(b);
        free(c);
        rl_free(&hl);
    }
    free(ex);
    return rc;
}

/* Whether ns has a quota, or will have the policy's default at its first
 * pod; true when the store cannot tell (admission then fails in its
 * transaction, with the error). */
static bool has_quota(sl_api_t *api, const char *ns)
{
    int64_t rev = sl_store_resource_rev(api->store, "resourcequotas");
    int n;
    if (!api_facts_get(api->facts, API_FACT_HAS_QUOTA, ns, rev, &n)) {
        json_t *qs = sl_store_list(api->store, "resourcequotas", ns, NULL);
        n = qs ? json_array_size(qs) > 0 : 1;
        if (qs) /* a store error is not kept */
            api_facts_put(api->facts, API_FACT_HAS_QUOTA, ns, rev, n);
        json_decref(qs);
    }
    const char *const *names, *const *values;
    return n || (api->policy && sl_authz_default_quota(api->policy, ns, &names, &values));
}

/* What q's status.used records for every resource of its spec.hard, into
 * used; false (used empty) when it lacks one: a new quota, or one whose
 * hard limits gained a resource since it was last counted. */
static bool recorded_usage(json_t *q, rlist_t *used)
{
    json_t *st = sl_kube_path(q, "status.used");
    const char *k;
    json_t *v;
    if (!json_is_object(st))
        return false;
    json_object_foreach(sl_kube_path(q, "spec.hard"), k, v)
    {
        sl_quantity_t x;
        json_t *u = json_object_get(st, k); /* absent would read as 0 */
        if (!json_is_string(u) || sl_quantity_from_json(u, &x, NULL, NULL) < 0) {
            rl_free(used);
            return false;
        }
        rl_add(used, k, &x);
    }
    return true;
}

/* How admission knows a quota's usage (quota_usage). */
typedef enum { USAGE_RECORDED, USAGE_UNRECORDED, USAGE_REFUSING } usage_how_t;

/* The usage against q, in admission's transaction: what q records, which
 * every admission raises in its transaction and only the janitor's recount
 * lowers (written only while the quota is as it read it), so it is never
 * below the pods' true usage; or a count of the namespace's pods (O(pods)):
 * when q records too little (once per quota: the admission then records
 * it), or when the record would refuse req (the janitor lowers a record
 * only on its next pass, after the pods that held it ended or went). -1
 * when the pods cannot be read. */
static int quota_usage(sl_api_t *api, const char *ns, json_t *q, const rlist_t *req,
                       rlist_t *used, usage_how_t *how)
{
    *how = USAGE_UNRECORDED;
    if (recorded_usage(q, used)) {
        *how = exceeded(sl_kube_path(q, "spec.hard"), used, req, NULL) ? USAGE_REFUSING
                                                                       : USAGE_RECORDED;
        if (*how == USAGE_REFUSING)
            rl_free(used);
    }
    struct usage_arg a = {used, false, 0};
    return *how != USAGE_RECORDED ? ns_usage(api, ns, &a) : 0;
}

/* the usage of all of pods (a gang's pods are admitted together; a claim
 * is admitted alone) */
static void pods_usage(json_t *pods, rlist_t *u)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)(is_claim(pod)     ? claim_usage
                                     : is_service(pod) ? service_usage
                                                       : pod_usage)(pod, u);
}

int api_quota_begin_pods(api_req_t *r, const char *ns, json_t *pods, bool txn, sl_error_t *err)
{
    sl_api_t *api = r->api;
    /* A namespace without quotas: no transaction, so creates there do not
     * wait for one another through the count (unless txn: several pods
     * stored all or none). A quota created while this pod is being created
     * does not hold it (as if the pod came first); it counts it. */
    r->quota_txn = txn || has_quota(api, ns);
    if (!r->quota_txn)
        return 0;
    if (sl_store_txn_begin(api->store, err) < 0) {
        r->quota_txn = false;
        return -1; /* no kind: a 500 */
    }
    json_t *qs = quotas_of(api, ns);
    rlist_t req = {0};
    int rc = 0;
    if (!qs)
        rc = sl_errkindf(err, SL_ERR_INTERNAL, "cannot read the namespace's quotas");
    pods_usage(pods, &req);
    size_t i, k;
    json_t *q, *pod;
    json_array_foreach(qs, i, q)
    {
        rlist_t used = {0};
        usage_how_t how = USAGE_RECORDED;
        if (!rc && quota_usage(api, ns, q, &req, &used, &how) < 0)
            rc = sl_errkindf(err, SL_ERR_INTERNAL, "cannot count the namespace's pods");
        if (!rc && how == USAGE_UNRECORDED)
            SL_FAULT("quota-admission-counted"); /* the test build: a count per quota */
        json_array_foreach(pods, k, pod) if (!rc) rc = check_quota(pod, q, &used, &req, err);
        rl_free(&used);
    }
    rl_free(&req);
    json_decref(qs);
    if (rc < 0) {
        sl_store_txn_rollback(api->store);
        r->quota_txn = false;
    }
    return rc;
}

int api_quota_begin(api_req_t *r, json_t *pod, sl_error_t *err)
{
    json_t *one = json_pack("[O]", pod);
    int rc = api_quota_begin_pods(r, sl_kube_namespace(pod), one, false, err);
    json_decref(one);
    return rc;
}

int api_quota_end_pods(api_req_t *r, const char *ns, json_t *pods, bool created, sl_error_t *err)
{
    sl_api_t *api = r->api;
    if (!r->quota_txn)
        return 0;
    r->quota_txn = false;
    if (!created) {
        sl_store_txn_rollback(api->store);
        return 0;
    }
    /* each quota's usage raised by the pods' (a count, in this transaction,
     * includes the pods already; a record is counted again where begin
     * counted it, as it is still the stored one) */
    json_t *qs = sl_store_list(api->store, "resourcequotas", ns, NULL);
    rlist_t req = {0};
    pods_usage(pods, &req);
    size_t i;
    json_t *q;
    json_array_foreach(qs, i, q)
    {
        rlist_t used = {0};
        usage_how_t how;
        if (quota_usage(api, ns, q, &req, &used, &how) == 0) {
            for (size_t k = 0; how == USAGE_RECORDED && k < req.n; k++)
                rl_add(&used, req.names[k], &req.q[k]);
            write_status(api, q, &used, false);
        }
        rl_free(&used);
    }
    rl_free(&req);
    json_decref(qs);
    return sl_store_txn_commit(api->store, err);
}

int api_quota_end(api_req_t *r, json_t *pod, bool created, sl_error_t *err)
{
    json_t *one = json_pack("[O]", pod);
    int rc = api_quota_end_pods(r, sl_kube_namespace(pod), one, created, err);
    json_decref(one);
    return rc;
}
