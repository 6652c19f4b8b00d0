/* objects.c — create, get and update (PUT) of any served resource, plus
 * the helpers the other handlers share. Kind-specific behaviour comes from
 * the resource's ops (resource.h); everything else follows
 * kube-apiserver's generic registry (k8s.io/apiserver/pkg/registry/rest). */
#include "api/admission.h"
#include "api/decode.h"
#include "api/facts.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/http/table.h"
#include "api/internal.h"
#include "api/lifecycle.h"
#include "api/quota.h"
#include "auth/authn.h"
#include "auth/policy.h"
#include "common/xalloc.h"
#include "kinds/kind.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "pod/pod.h"
#include "store/store.h"

#include <errno.h>
#include <pwd.h>
#include <string.h>

#define GENERATE_NAME_TRIES 8 /* kube-apiserver retries generateName collisions too */

/* --- who may act as a workload's Unix user --- */

/* An admin (adminGroups): the one class the policy lets impersonate. */
static bool is_admin(api_req_t *r)
{
    sl_authz_req_t q = {.user = r->user->name,
                        .groups = (const char *const *)r->user->groups,
                        .verb = "impersonate",
                        .api_group = "",
                        .resource = "users"};
    return sl_authz_check_req(r->api->policy, &q, NULL) == 1;
}

/* The Unix user Kubernetes user `user` runs as: 0 with *uid, or -1. */
static int unix_uid(sl_api_t *api, const char *user, uid_t *uid)
{
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_authz_unix_user(api->policy, user, uid, NULL, NULL, &err);
    sl_error_clear(&err);
    return rc;
}

int api_may_act_as(api_req_t *r, uid_t uid, const char *what, char **why)
{
    uid_t mine = 0;
    *why = NULL;
    if (!r->api->policy || !r->user || is_admin(r))
        return 0;
    bool mapped = unix_uid(r->api, r->user->name, &mine) == 0;
    if (mapped && mine == uid)
        return 0;
    struct passwd *pw = getpwuid(uid);
    char *as = pw ? sl_xasprintf("%s (uid %u)", pw->pw_name, (unsigned)uid)
                  : sl_xasprintf("uid %u", (unsigned)uid);
    *why = mapped ? sl_xasprintf("%s runs as Unix user %s; user \"%s\" runs as uid %u, and only "
                                 "the same Unix user (or an admin) may %s",
                                 what, as, r->user->name, (unsigned)mine, "act as it")
                  : sl_xasprintf("%s runs as Unix user %s; user \"%s\" maps to no Unix user, and "
                                 "only the same Unix user (or an admin) may act as it",
                                 what, as, r->user->name);
    free(as);
    return -1;
}

/* An update of a workload (a pod, or a kind whose pods run as its
 * creator): only by its creator's Unix user, else its next pods would run
 * the updater's spec as the creator. 0, or -1 with err (Forbidden). */
int api_check_workload_owner(api_req_t *r, const api_path_t *p, json_t *old, sl_error_t *err)
{
    const char *creator = sl_kube_annotation(old, SL_ANN_USER);
    if (!creator || !r->api->policy || !r->user || !strcmp(creator, r->user->name))
        return 0;
    uid_t uid;
    char *why = NULL;
    if (unix_uid(r->api, creator, &uid) == 0) {
        char *what =
            sl_xasprintf("%s \"%s\" of user \"%s\"", p->res->kind, sl_kube_name(old), creator);
        api_may_act_as(r, uid, what, &why);
        free(what);
    } else if (!is_admin(r)) {
        why = sl_xasprintf("%s \"%s\" runs as the Unix user of user \"%s\", which maps to none "
                           "now: only that user (or an admin) may change it",
                           p->res->kind, sl_kube_name(old), creator);
    }
    if (!why)
        return 0;
    sl_errkindf(err, SL_ERR_FORBIDDEN, "%s", why);
    sl_err_subject(err, p->res->name, p->res->group, p->res->kind, sl_kube_name(old));
    free(why);
    return -1;
}

void api_set_type(const api_resource_t *res, json_t *obj)
{
    char gv[128];
    if (!json_is_object(obj))
        return;
    json_object_set_new(obj, "apiVersion",
                        json_string(api_resource_api_version(res, gv, sizeof(gv))));
    json_object_set_new(obj, "kind", json_string(res->kind));
}

int api_store_error(int e, const char *text, sl_error_t *err)
{
    char t[SL_ERROR_TEXT_MAX]; /* text may be err's own */
    snprintf(t, sizeof(t), "%s", text && *text ? text : "");
    switch (e) {
    case ENOENT: return sl_errkindf(err, SL_ERR_NOT_FOUND, "%s", "");
    case EEXIST: return sl_errkindf(err, SL_ERR_ALREADY_EXISTS, "%s", "");
    case ESTALE: return sl_errkindf(err, SL_ERR_CONFLICT, "%s", "");
    case EINVAL: return sl_errkindf(err, SL_ERR_BAD_REQUEST, "%s", *t ? t : "invalid object");
    default: return sl_errkindf(err, SL_ERR_INTERNAL, "%s", *t ? t : strerror(e));
    }
}

json_t *api_store_error_status(const api_resource_t *res, const char *name, int e, const char *text)
{
    sl_error_t err = SL_ERROR_INIT;
    api_store_error(e, text, &err);
    return api_error_status(res, name, &err);
}

enum MHD_Result api_reply_object(api_req_t *r, const api_resource_t *res, unsigned code,
                                 json_t *obj)
{
    int t = api_wants_table(r);
    if (t > 0) {
        json_t *arr = json_pack("[o]", obj);
        const char *rv = sl_kube_meta_str(obj, "resourceVersion");
        json_t *tbl = api_table(res, arr, rv ? rv : "", t, api_include_object(r), true);
        json_decref(arr);
        return api_reply_json(r, code, tbl);
    }
    return api_reply_json(r, code, obj);
}

enum { NS_ABSENT, NS_ACTIVE, NS_TERMINATING };

/* what namespace ns is: read, or kept while no namespace changed (facts.h) */
static int namespace_state(sl_api_t *api, const char *ns)
{
    int64_t rev = sl_store_resource_rev(api->store, "namespaces");
    int state;
    if (api_facts_get(api->facts, API_FACT_NAMESPACE, ns, rev, &state))
        return state;
    json_t *nso = sl_store_get(api->store, "namespaces", NULL, ns);
    int keep = nso || errno == ENOENT; /* a store error is not kept */
    const char *phase = sl_kube_path_str(nso, "status.phase");
    state = !nso ? NS_ABSENT
            : sl_kube_meta_str(nso, "deletionTimestamp") || (phase && !strcmp(phase, "Terminating"))
                ? NS_TERMINATING
                : NS_ACTIVE;
    json_decref(nso);
    if (keep)
        api_facts_put(api->facts, API_FACT_NAMESPACE, ns, rev, state);
    return state;
}

int api_check_namespace(api_req_t *r, const api_resource_t *res, const char *ns, const char *name,
                        sl_error_t *err)
{
    int state = namespace_state(r->api, ns);
    if (state == NS_ABSENT) {
        sl_errkindf(err, SL_ERR_NOT_FOUND, "%s", "");
        sl_err_subject(err, "namespaces", "", "Namespace", ns);
        return -1;
    }
    if (state != NS_TERMINATING || strcmp(r->method, "POST"))
        return 0;
    sl_errkindf(err, SL_ERR_FORBIDDEN,
                "unable to create new content in namespace %s because it is being terminated", ns);
    sl_err_subject(err, res->name, res->group, res->kind, name);
    /* kube's NamespaceLifecycle admission names the field */
    char *cm = sl_xasprintf("namespace %s is being terminated", ns);
    sl_err_cause(err, "NamespaceTerminating", "metadata.namespace", cm);
    free(cm);
    return -1;
}

/* kube's generic registry: AlreadyExists for an object that is being
 * deleted says so ("object is being deleted: ..."), err's kind kept. */
static void being_deleted(sl_api_t *api, const api_resource_t *res, json_t *obj, sl_error_t *err)
{
    json_t *cur =
        sl_store_get(api->store, res->store_name, sl_kube_namespace(obj), sl_kube_name(obj));
    if (cur && sl_kube_meta_str(cur, "deletionTimestamp")) {
        char *m = sl_kube_error_message(err, res->name, res->group, res->kind, sl_kube_name(obj));
        sl_errwholef(err, err->kind, "object is being deleted: %s", m);
        free(m);
    }
    json_decref(cur);
}

int api_check_service_account(api_req_t *r, json_t *pod, sl_error_t *err)
{
    const char *sa = sl_kube_path_str(pod, "spec.serviceAccountName");
    if (!sa || !*sa)
        sa = sl_kube_path_str(pod, "spec.serviceAccount");
    if (!sa || !*sa)
        sa = "default";
    const char *ns = sl_kube_namespace(pod);
    sl_api_t *api = r->api;
    char *key = sl_xasprintf("%s/%s", ns, sa);
    int64_t rev = sl_store_resource_rev(api->store, "serviceaccounts");
    int exists;
    if (!api_facts_get(api->facts, API_FACT_SERVICE_ACCOUNT, key, rev, &exists)) {
        json_t *o = sl_store_get(api->store, "serviceaccounts", ns, sa);
        exists = o != NULL;
        if (o || errno == ENOENT) /* a store error is not kept */
            api_facts_put(api->facts, API_FACT_SERVICE_ACCOUNT, key, rev, exists);
        json_decref(o);
    }
    free(key);
    if (exists)
        return 0;
    return sl_errkindf(err, SL_ERR_FORBIDDEN,
                       "error looking up service account %s/%s: serviceaccount \"%s\" not found",
                       ns, sa, sa);
}

/* dryRun=All: validate and answer, write nothing. 1 for a dry run, 0 for
 * none, -1 for another value: the field error in err. */
static int dry_run(api_req_t *r, sl_error_t *err)
{
    const char *d = api_query(r, "dryRun");
    if (!d || !*d)
        return 0;
    if (!strcmp(d, "All"))
        return 1;
    static const char *const allowed[] = {"All", NULL};
    json_t *v = json_string(d);
    sl_kube_cause_not_supported(err, "dryRun", v, allowed);
    json_decref(v);
    api_options_subject(r, err);
    return -1;
}

/* Namespace of the object vs the URL's (rest.EnsureObjectNamespaceMatchesRequestNamespace). */
static int match_namespace(const api_resource_t *res, json_t *obj, const char *url_ns,
                           sl_error_t *err)
{
    const char *ns = sl_kube_namespace(obj);
    const char *want = res->namespaced ? url_ns : "";
    if (ns && *ns && strcmp(ns, want) && *want)
        return sl_errkindf(err, SL_ERR_BAD_REQUEST,
                           "the namespace of the provided object does not match the namespace "
                           "sent on the request");
    if (*want)
        sl_kube_meta_set_str(obj, "namespace", want);
    else
        sl_kube_meta_set_str(obj, "namespace", NULL);
    return 0;
}

/* Fields only the server writes on create (rest.BeforeCreate). */
static void clear_system_fields(json_t *obj)
{
    json_t *m = sl_kube_meta(obj);
    json_object_del(m, "uid");
    json_object_del(m, "resourceVersion");
    json_object_del(m, "creationTimestamp");
    json_object_del(m, "deletionTimestamp");
    json_object_del(m, "deletionGracePeriodSeconds");
    json_object_del(m, "selfLink");
}

/* generateName: PREFIX and five random characters. */
static void generate_name(json_t *obj, const char *prefix)
{
    char suffix[6];
    sl_kube_rand_suffix(suffix, 5);
    char *n = sl_xasprintf("%s%s", prefix, suffix);
    sl_kube_meta_set_str(obj, "name", n);
    free(n);
}

/* What a dry-run create answers with that the store would have set. */
static void fill_dry_run(json_t *obj)
{
    char uid[37];
    sl_kube_uuid4(uid);
    if (!sl_kube_uid(obj) || !*sl_kube_uid(obj)) /* a Job's is set before (its selector) */
        sl_kube_meta_set_str(obj, "uid", uid);
    char *now = sl_kube_now_rfc3339();
    sl_kube_meta_set_str(obj, "creationTimestamp", now);
    free(now);
}

/* Store a new object; a generated name (prefix not NULL) is drawn again on
 * a collision. A pod's quota hold ends here. 0, or -1 with err. */
static int store_new(api_req_t *r, const api_resource_t *res, json_t *obj, const char *prefix,
                     bool is_pod, sl_error_t *err)
{
    int rc = -1;
    for (int i = 0; i < GENERATE_NAME_TRIES; i++) {
        rc = sl_store_create(r->api->store, res->store_name, obj, err);
        if (rc == 0 || errno != EEXIST || !prefix)
            break;
        generate_name(obj, prefix);
    }
    int e = errno;
    if ((is_pod || api_quota_counts(res->name)) &&
        api_quota_end(r, obj, rc == 0, rc == 0 ? err : NULL) < 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0)
        return 0;
    api_store_error(e, err->text, err);
    if (e == EEXIST)
        being_deleted(r->api, res, obj, err);
    return -1;
}

/* Admission and validation of a new object, in kube-apiserver's order:
 * 0, or -1 with err. A pod's quota hold begins here (api_quota_begin). */
static int admit_new(api_req_t *r, const api_resource_t *res, json_t *obj, bool is_pod,
                     sl_error_t *err)
{
    if (is_pod && api_check_service_account(r, obj, err) < 0)
        return -1;
    /* mutating admission: before validation counts the annotations; what a
     * workload kind makes runs as its creator (its row's runs_as_creator:
     * a Job's pods, a CronJob's Jobs), so the workload carries it too */
    const sl_kind_t *k = sl_kind_by_resource(res);
    if (is_pod || (k && k->runs_as_creator) ||
        !strcmp(res->name, "persistentvolumeclaims") || /* its folder is its creator's */
        !strcmp(res->name, "namespaces"))               /* its Slurm association (ctl/account.c) */
        api_admit_pod_identity(r, obj);
    if (res->ops && res->ops->defaults)
        res->ops->defaults(obj);
    if (res->ops && res->ops->prepare_create)
        res->ops->prepare_create(obj);
    if (res->ops && res->ops->validate_create && res->ops->validate_create(obj, err) < 0)
        return -1;
    if (is_pod && api_admit_pod_create(r, obj, err) < 0)
        return -1;
    if (!is_pod && api_admit_workload_create(r, res, obj, err) < 0)
        return -1;
    if (api_check_object_size(r->api, obj, err) < 0)
        return -1;
    /* holds the store lock until _end */
    return is_pod || api_quota_counts(res->name) ? api_quota_begin(r, obj, err) : 0;
}

int api_create_object(api_req_t *r, const api_path_t *p, json_t *obj, sl_error_t *err)
{
    const api_resource_t *res = p->res;
    int dry = dry_run(r, err);
    if (dry < 0)
        return -1;
    if (json_object_get(obj, "metadata") && !json_is_object(json_object_get(obj, "metadata")))
        json_object_del(obj, "metadata");
    if (match_namespace(res, obj, p->ns, err) < 0)
        return -1;
    clear_system_fields(obj);
    const char *name = sl_kube_name(obj);
    const char *gen = sl_kube_meta_str(obj, "generateName");
    char *genc = gen ? sl_xstrdup(gen) : NULL;
    bool generated = false;
    if ((!name || !*name) && genc && *genc) {
        generate_name(obj, genc);
        generated = true;
    }
    name = sl_kube_name(obj);
    bool is_pod = !strcmp(res->name, "pods");
    int rc = -1;
    /* admission (namespace lifecycle, service accounts) runs before
     * validation in kube-apiserver, so a missing namespace wins */
    if (res->namespaced && api_check_namespace(r, res, p->ns, generated ? "" : name, err) < 0)
        goto out;
    if (admit_new(r, res, obj, is_pod, err) < 0)
        goto out;
    if (dry) {
        if (is_pod || api_quota_counts(res->name))
            api_quota_end(r, obj, false, NULL);
        fill_dry_run(obj);
        rc = 0;
        goto out;
    }
    if (store_new(r, res, obj, generated ? genc : NULL, is_pod, err) < 0)
        goto out;
    if (!strcmp(res->name, "namespaces"))
        api_ensure_default_sa(r->api, sl_kube_name(obj));
    rc = 0;
out:
    free(genc);
    return rc;
}

enum MHD_Result api_handle_create(api_req_t *r, const api_path_t *p)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *obj = api_decode_object(r, p->res, NULL, &err);
    if (!obj)
        return api_reply_error(r, p->res, NULL, &err);
    if (api_create_object(r, p, obj, &err) < 0) {
        const char *name = sl_kube_name(obj);
        enum MHD_Result ret = api_reply_error(r, p->res, name ? name : "", &err);
        json_decref(obj);
        return ret;
    }
    return api_reply_object(r, p->res, 201, obj);
}

enum MHD_Result api_handle_get(api_req_t *r, const api_path_t *p)
{
    json_t *obj = sl_store_get(r->api->store, p->res->store_name, p->ns, p->name);
    if (!obj)
        return api_reply_status(r, api_store_error_status(p->res, p->name, errno, NULL));
    return api_reply_object(r, p->res, 200, obj);
}

/* Immutable metadata on update (ValidateObjectMetaUpdate): 0, or -1 with
 * field errors in err.
 * creationTimestamp is not checked: kube-apiserver's BeforeUpdate puts the
 * stored one back first (clients such as client-node send it back in
 * another form, "...:00.000Z"), and so does carry_over() here. */
static int check_meta_update(json_t *obj, json_t *old, sl_error_t *err)
{
    static const char *const fields[] = {"uid", NULL};
    for (int i = 0; fields[i]; i++) {
        const char *nv = sl_kube_meta_str(obj, fields[i]);
        const char *ov = sl_kube_meta_str(old, fields[i]);
        if (nv && *nv && ov && strcmp(nv, ov)) {
            char f[64];
            snprintf(f, sizeof(f), "metadata.%s", fields[i]);
            sl_kube_cause_invalid_str(err, f, nv, "field is immutable");
        }
    }
    return sl_err_nfields(err) ? -1 : 0;
}

/* What an update keeps from the stored object, whatever the client sent. */
static void carry_over(json_t *obj, json_t *old)
{
    json_t *m = sl_kube_meta(obj), *om = sl_kube_meta(old);
    static const char *const keep[] = {
        "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
        NULL};
    for (int i = 0; keep[i]; i++) {
        json_t *v = json_object_get(om, keep[i]);
        if (v)
            json_object_set(m, keep[i], v);
        else
            json_object_del(m, keep[i]);
    }
}

/* The object a status-subresource write produces: the stored object with
 * only its status replaced (kube resets metadata and spec for /status). */
static json_t *status_merge(json_t *obj, json_t *old)
{
    json_t *out = json_deep_copy(old);
    json_t *s = json_object_get(obj, "status");
    if (s)
        json_object_set(out, "status", s);
    else
        json_object_del(out, "status");
    return out;
}

/* PUT .../namespaces/NS/finalize: the stored namespace with only
 * spec.finalizers replaced (kube's finalize strategy). */
static json_t *finalize_merge(json_t *obj, json_t *old)
{
    json_t *out = json_deep_copy(old);
    json_t *spec = json_object_get(out, "spec");
    if (!json_is_object(spec))
        json_object_set_new(out, "spec", spec = json_object());
    json_t *fin = sl_kube_path(obj, "spec.finalizers");
    json_object_set_new(spec, "finalizers",
                        json_is_array(fin) ? json_deep_copy(fin) : json_array());
    return out;
}

/* The new object of an update, from what the client sent (obj, replaced
 * via *objp) and the stored one: /finalize and /status take one part of
 * it, a write of the object goes through admission and validation. 0, or
 * -1 with err. */
static int merge_update(api_req_t *r, const api_path_t *p, json_t **objp, json_t *old,
                        sl_error_t *err)
{
    const api_resource_t *res = p->res;
    json_t *obj = *objp;
    if (p->sub && !strcmp(p->sub, "finalize")) {
        *objp = finalize_merge(obj, old);
        json_decref(obj);
        return 0;
    }
    if (p->sub && !strcmp(p->sub, "status")) {
        *objp = status_merge(obj, old);
        json_decref(obj);
        if (res->ops && res->ops->validate_status)
            return res->ops->validate_status(*objp, old, err) < 0 ? -1 : 0;
        return 0;
    }
    carry_over(obj, old);
    const sl_kind_t *k = sl_kind_by_resource(res);
    if ((!strcmp(res->name, "pods") || (k && k->runs_as_creator)) &&
        (api_check_workload_owner(r, p, old, err) < 0 ||
         api_admit_pod_update(r, obj, old, err) < 0))
        return -1;
    if (res->ops && res->ops->defaults)
        res->ops->defaults(obj);
    if (res->ops && res->ops->prepare_update)
        res->ops->prepare_update(obj, old);
    if (res->ops && res->ops->validate_update && res->ops->validate_update(obj, old, err) < 0)
        return -1;
    return 0;
}

/* Finalizers gone from an object being deleted: it goes away now (pods
 * are removed by the lifecycle controller, namespaces by the namespace
 * controller instead). true when it went (*objp its last state). */
static bool delete_finalized(api_req_t *r, const api_path_t *p, json_t **objp, int64_t expect_rv)
{
    const api_resource_t *res = p->res;
    json_t *obj = *objp;
    json_t *fin = json_object_get(sl_kube_meta(obj), "finalizers");
    if (!strcmp(res->name, "pods") || !strcmp(res->name, "namespaces") ||
        !sl_kube_meta_str(obj, "deletionTimestamp") || json_array_size(fin) != 0)
        return false;
    json_t *gone = NULL;
    if (sl_store_delete(r->api->store, res->store_name, p->ns, p->name, expect_rv, &gone, NULL) < 0)
        return false;
    json_decref(obj);
    *objp = gone;
    return true;
}

int api_write_update(api_req_t *r, const api_path_t *p, json_t **objp, json_t *old,
                     int64_t expect_rv, sl_error_t *err)
{
    if (check_meta_update(*objp, old, err) < 0) {
        /* kube names the stored object */
        sl_err_subject(err, p->res->name, p->res->group, p->res->kind, sl_kube_name(old));
        return -1;
    }
    if (merge_update(r, p, objp, old, err) < 0 || api_check_object_size(r->api, *objp, err) < 0)
        return -1;
    int dry = dry_run(r, err);
    if (dry < 0) /* it went on as a dry run, after a 422 that never reached the client */
        return -1;
    if (dry) {
        json_t *rv = json_object_get(sl_kube_meta(old), "resourceVersion");
        if (rv)
            json_object_set(sl_kube_meta(*objp), "resourceVersion", rv);
        return 0;
    }
    if (delete_finalized(r, p, objp, expect_rv))
        return 0;
    if (sl_store_update(r->api->store, p->res->store_name, *objp, expect_rv, err) < 0)
        return api_store_error(errno, err->text, err);
    return 0;
}

/* PUT's own checks before the update: the name and namespace of the URL,
 * a resourceVersion; the stored object in *old. 0, or -1 with err. */
/* old: the stored object read before the body was decoded (NULL, with
 * old_errno, when the read failed) */
static int check_put(const api_path_t *p, json_t *obj, json_t *old, int old_errno, sl_error_t *err)
{
    const api_resource_t *res = p->res;
    const char *name = sl_kube_name(obj);
    if (!name || strcmp(name, p->name))
        return sl_errkindf(err, SL_ERR_BAD_REQUEST,
                           "the name of the object (%s) does not match the name on the URL (%s)",
                           name ? name : "", p->name);
    if (match_namespace(res, obj, p->ns, err) < 0)
        return -1;
    if (sl_kube_rv(obj) < 0)
        return sl_errkindf(err, SL_ERR_CONFLICT, "%s", "");
    if (!old)
        return api_store_error(old_errno, NULL, err);
    return 0;
}

enum MHD_Result api_handle_update(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    sl_error_t err = SL_ERROR_INIT;
    /* the stored object, read once: the decode's warnings leave out what it
     * draws too, and the update is checked and written against it */
    json_t *old = sl_store_get(r->api->store, res->store_name, p->ns, p->name);
    int old_errno = errno;
    json_t *obj = api_decode_object(r, res, old, &err);
    if (!obj) {
        json_decref(old);
        return api_reply_error(r, res, NULL, &err);
    }
    if (check_put(p, obj, old, old_errno, &err) < 0 ||
        api_write_update(r, p, &obj, old, sl_kube_rv(obj), &err) < 0) {
        json_decref(obj);
        json_decref(old);
        return api_reply_error(r, res, p->name, &err);
    }
    json_decref(old);
    return api_reply_object(r, res, 200, obj);
}

/* sl_store_list_each's fn: the object's name into a vector of strings */
static int add_name(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)json;
    (void)len;
    sl_argv_add(arg, it->name);
    return 0;
}

void api_store_names(sl_api_t *api, const api_resource_t *res, const char *ns, sl_argv_t *out)
{
    sl_store_list_each(api->store, res->store_name, ns, add_name, out, NULL);
}
