/* objects.c — create, get and update (PUT) of any served resource, plus
 * the helpers the other handlers share. Kind-specific behaviour comes from
 * the resource's ops (resource.h); everything else follows
 * kube-apiserver's generic registry (k8s.io/apiserver/pkg/registry/rest). */
#include "api/internal.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"

#include <errno.h>
#include <string.h>

#define GENERATE_NAME_TRIES 8 /* kube-apiserver retries generateName collisions too */

void api_set_type(const api_resource_t *res, json_t *obj)
{
    char gv[128];
    if (!json_is_object(obj))
        return;
    json_object_set_new(obj, "apiVersion",
                        json_string(api_resource_api_version(res, gv, sizeof(gv))));
    json_object_set_new(obj, "kind", json_string(res->kind));
}

json_t *api_store_error_status(const api_resource_t *res, const char *name, int e, const char *text)
{
    switch (e) {
    case ENOENT: return sl_kube_status_not_found(res->name, res->group, name);
    case EEXIST: return sl_kube_status_already_exists(res->name, res->group, name);
    case ESTALE: return sl_kube_status_conflict(res->name, res->group, name, NULL);
    case EINVAL: return sl_kube_status_bad_request(text && *text ? text : "invalid object");
    default: return sl_kube_status_internal(text && *text ? text : strerror(e));
    }
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

json_t *api_check_namespace(api_req_t *r, const api_resource_t *res, const char *ns,
                            const char *name)
{
    json_t *nso = sl_store_get(r->api->store, "namespaces", NULL, ns);
    if (!nso)
        return sl_kube_status_not_found("namespaces", "", ns);
    const char *phase = sl_kube_path_str(nso, "status.phase");
    bool terminating =
        sl_kube_meta_str(nso, "deletionTimestamp") || (phase && !strcmp(phase, "Terminating"));
    json_decref(nso);
    if (terminating && !strcmp(r->method, "POST")) {
        char *why = sl_xasprintf(
            "unable to create new content in namespace %s because it is being terminated", ns);
        json_t *st = sl_kube_status_forbidden(res->name, res->group, name, why);
        free(why);
        /* kube's NamespaceLifecycle admission names the field */
        char *cm = sl_xasprintf("namespace %s is being terminated", ns);
        json_t *det = json_object_get(st, "details");
        if (json_is_object(det))
            json_object_set_new(det, "causes",
                                json_pack("[{s:s, s:s, s:s}]", "reason", "NamespaceTerminating",
                                          "message", cm, "field", "metadata.namespace"));
        free(cm);
        return st;
    }
    return NULL;
}

/* kube's generic registry: AlreadyExists for an object that is being
 * deleted says so ("object is being deleted: ..."). */
static void being_deleted(sl_api_t *api, const api_resource_t *res, json_t *obj, json_t *st)
{
    json_t *cur =
        sl_store_get(api->store, res->store_name, sl_kube_namespace(obj), sl_kube_name(obj));
    const char *m = json_string_value(json_object_get(st, "message"));
    if (cur && m && sl_kube_meta_str(cur, "deletionTimestamp")) {
        char *msg = sl_xasprintf("object is being deleted: %s", m);
        json_object_set_new(st, "message", json_string(msg));
        free(msg);
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
    json_t *o = sl_store_get(r->api->store, "serviceaccounts", ns, sa);
    if (o) {
        json_decref(o);
        return 0;
    }
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
    return -1;
}

/* Namespace of the object vs the URL's (rest.EnsureObjectNamespaceMatchesRequestNamespace). */
static json_t *match_namespace(const api_resource_t *res, json_t *obj, const char *url_ns)
{
    const char *ns = sl_kube_namespace(obj);
    const char *want = res->namespaced ? url_ns : "";
    if (ns && *ns && strcmp(ns, want) && *want)
        return sl_kube_status_bad_request("the namespace of the provided object does not match "
                                          "the namespace sent on the request");
    if (*want)
        sl_kube_meta_set_str(obj, "namespace", want);
    else
        sl_kube_meta_set_str(obj, "namespace", NULL);
    return NULL;
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

/* The API edge of a kind's validator: the Status for its error (cleared). */
static json_t *invalid(const api_resource_t *res, json_t *obj, sl_error_t *err)
{
    const char *name = sl_kube_name(obj);
    json_t *st = sl_kube_status_error(err, res->name, res->group, res->kind, name ? name : "");
    sl_error_clear(err);
    return st;
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
 * a collision. A pod's quota hold ends here. NULL, or the error Status. */
static json_t *store_new(api_req_t *r, const api_resource_t *res, json_t *obj, const char *prefix,
                         bool is_pod)
{
    sl_error_t err = SL_ERROR_INIT;
    int rc = -1;
    for (int i = 0; i < GENERATE_NAME_TRIES; i++) {
        rc = sl_store_create(r->api->store, res->store_name, obj, &err);
        if (rc == 0 || errno != EEXIST || !prefix)
            break;
        generate_name(obj, prefix);
    }
    int e = errno;
    if (is_pod && api_quota_end(r, obj, rc == 0, rc == 0 ? &err : NULL) < 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0)
        return NULL;
    json_t *st = api_store_error_status(res, sl_kube_name(obj), e, err.text);
    if (e == EEXIST)
        being_deleted(r->api, res, obj, st);
    return st;
}

int api_create_object(api_req_t *r, const api_path_t *p, json_t *obj, json_t **status)
{
    const api_resource_t *res = p->res;
    json_t *st = NULL;
    char *genc = NULL;
    sl_error_t derr = SL_ERROR_INIT;
    int dry = dry_run(r, &derr);
    if (dry < 0) {
        *status = api_options_invalid(r, &derr);
        return -1;
    }
    if (json_object_get(obj, "metadata") && !json_is_object(json_object_get(obj, "metadata")))
        json_object_del(obj, "metadata");
    if ((st = match_namespace(res, obj, p->ns)))
        goto fail;
    clear_system_fields(obj);
    const char *name = sl_kube_name(obj);
    const char *gen = sl_kube_meta_str(obj, "generateName");
    genc = gen ? sl_xstrdup(gen) : NULL;
    bool generated = false;
    if ((!name || !*name) && genc && *genc) {
        generate_name(obj, genc);
        generated = true;
    }
    name = sl_kube_name(obj);
    /* admission (namespace lifecycle, service accounts) runs before
     * validation in kube-apiserver, so a missing namespace wins */
    if (res->namespaced && (st = api_check_namespace(r, res, p->ns, generated ? "" : name)))
        goto fail;
    bool is_pod = !strcmp(res->name, "pods");
    sl_error_t verr = SL_ERROR_INIT;
    if (is_pod && api_check_service_account(r, obj, &verr) < 0) {
        st = invalid(res, obj, &verr);
        goto fail;
    }
    /* mutating admission: before validation counts the annotations; a Job's
     * pods run as its creator (src/ctl/job.c), so a Job carries it too */
    if (is_pod || !strcmp(res->name, "jobs"))
        api_admit_pod_identity(r, obj);
    if (res->ops && res->ops->defaults)
        res->ops->defaults(obj);
    if (res->ops && res->ops->prepare_create)
        res->ops->prepare_create(obj);
    if (res->ops && res->ops->validate_create && res->ops->validate_create(obj, &verr) < 0) {
        st = invalid(res, obj, &verr);
        goto fail;
    }
    if (is_pod && api_admit_pod_create(r, obj, &verr) < 0) {
        st = invalid(res, obj, &verr);
        goto fail;
    }
    if ((st = api_check_object_size(r->api, obj)))
        goto fail;
    if (is_pod && api_quota_begin(r, obj, &verr) < 0) { /* holds the store lock until _end */
        st = invalid(res, obj, &verr);
        goto fail;
    }
    if (dry) {
        if (is_pod)
            api_quota_end(r, obj, false, NULL);
        fill_dry_run(obj);
        free(genc);
        return 0;
    }
    if ((st = store_new(r, res, obj, generated ? genc : NULL, is_pod)))
        goto fail;
    free(genc);
    if (!strcmp(res->name, "namespaces"))
        api_ensure_default_sa(r->api, sl_kube_name(obj));
    return 0;
fail:
    free(genc);
    *status = st;
    return -1;
}

enum MHD_Result api_handle_create(api_req_t *r, const api_path_t *p)
{
    enum MHD_Result mhd = MHD_NO;
    json_t *obj = api_decode_object(r, p->res, &mhd);
    if (!obj)
        return mhd;
    json_t *st = NULL;
    if (api_create_object(r, p, obj, &st) < 0) {
        json_decref(obj);
        return r->replied ? MHD_YES : api_reply_status(r, st);
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

/* Shared by PUT and PATCH: obj is the complete new object (consumed via
 * *objp, replaced by the stored result), old the stored one. */
int api_write_update(api_req_t *r, const api_path_t *p, json_t **objp, json_t *old,
                     int64_t expect_rv, json_t **status)
{
    const api_resource_t *res = p->res;
    json_t *obj = *objp;
    bool status_sub = p->sub && !strcmp(p->sub, "status");
    json_t *st;
    sl_error_t merr = SL_ERROR_INIT;
    if (check_meta_update(obj, old, &merr) < 0) {
        *status = sl_kube_status_invalid(res->kind, res->group, sl_kube_name(old), &merr);
        sl_error_clear(&merr);
        return -1;
    }
    if (p->sub && !strcmp(p->sub, "finalize")) {
        json_t *merged = finalize_merge(obj, old);
        json_decref(obj);
        *objp = obj = merged;
    } else if (status_sub) {
        json_t *merged = status_merge(obj, old);
        json_decref(obj);
        *objp = obj = merged;
        sl_error_t verr = SL_ERROR_INIT;
        if (res->ops && res->ops->validate_status &&
            res->ops->validate_status(obj, old, &verr) < 0) {
            *status = invalid(res, obj, &verr);
            return -1;
        }
    } else {
        carry_over(obj, old);
        sl_error_t aerr = SL_ERROR_INIT;
        if ((!strcmp(res->name, "pods") || !strcmp(res->name, "jobs")) &&
            api_admit_pod_update(r, obj, old, &aerr) < 0) {
            *status = invalid(res, obj, &aerr);
            return -1;
        }
        if (res->ops && res->ops->defaults)
            res->ops->defaults(obj);
        if (res->ops && res->ops->prepare_update)
            res->ops->prepare_update(obj, old);
        sl_error_t verr = SL_ERROR_INIT;
        if (res->ops && res->ops->validate_update &&
            res->ops->validate_update(obj, old, &verr) < 0) {
            *status = invalid(res, obj, &verr);
            return -1;
        }
    }
    if ((st = api_check_object_size(r->api, obj))) {
        *status = st;
        return -1;
    }
    sl_error_t derr = SL_ERROR_INIT;
    int dry = dry_run(r, &derr);
    if (dry < 0) { /* it went on as a dry run, after a 422 that never reached the client */
        *status = api_options_invalid(r, &derr);
        return -1;
    }
    if (dry) {
        json_t *rv = json_object_get(sl_kube_meta(old), "resourceVersion");
        if (rv)
            json_object_set(sl_kube_meta(obj), "resourceVersion", rv);
        return 0;
    }
    /* finalizers gone from an object being deleted: it goes away now
     * (pods are removed by the lifecycle controller, namespaces by the
     * namespace controller instead) */
    json_t *fin = json_object_get(sl_kube_meta(obj), "finalizers");
    if (strcmp(res->name, "pods") && strcmp(res->name, "namespaces") &&
        sl_kube_meta_str(obj, "deletionTimestamp") && json_array_size(fin) == 0) {
        json_t *gone = NULL;
        if (sl_store_delete(r->api->store, res->store_name, p->ns, p->name, expect_rv, &gone,
                            NULL) == 0) {
            json_decref(obj);
            *objp = gone;
            return 0;
        }
    }
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_update(r->api->store, res->store_name, obj, expect_rv, &err) < 0) {
        *status = api_store_error_status(res, p->name, errno, err.text);
        return -1;
    }
    return 0;
}

enum MHD_Result api_handle_update(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    enum MHD_Result mhd = MHD_NO;
    json_t *obj = api_decode_object(r, res, &mhd);
    if (!obj)
        return mhd;
    json_t *st = NULL, *old = NULL;
    const char *name = sl_kube_name(obj);
    if (!name || strcmp(name, p->name)) {
        char *msg = sl_xasprintf("the name of the object (%s) does not match the name on the URL "
                                 "(%s)",
                                 name ? name : "", p->name);
        st = sl_kube_status_bad_request(msg);
        free(msg);
        goto fail;
    }
    if ((st = match_namespace(res, obj, p->ns)))
        goto fail;
    int64_t rv = sl_kube_rv(obj);
    if (rv < 0) {
        st = sl_kube_status_conflict(res->name, res->group, p->name, NULL);
        goto fail;
    }
    old = sl_store_get(r->api->store, res->store_name, p->ns, p->name);
    if (!old) {
        st = api_store_error_status(res, p->name, errno, NULL);
        goto fail;
    }
    if (api_write_update(r, p, &obj, old, rv, &st) < 0)
        goto fail;
    json_decref(old);
    return api_reply_object(r, res, 200, obj);
fail:
    json_decref(obj);
    json_decref(old);
    return api_reply_status(r, st);
}
