/* patch.c — PATCH with the four content types kube-apiserver accepts:
 *   application/json-patch+json            RFC 6902 (jsonpatch.c)
 *   application/merge-patch+json           RFC 7386
 *   application/strategic-merge-patch+json kubectl apply's 3-way patches
 *   application/apply-patch+yaml           server-side apply (create or update)
 * The patched object then goes through the same path as a PUT: field
 * validation, defaults, kind validation (pod immutability), optimistic
 * concurrency. A patch that carries metadata.resourceVersion is a
 * precondition; otherwise conflicts with concurrent writers are retried
 * here, as kube-apiserver's GuaranteedUpdate does. */
#include "kube/patch.h"
#include "api/admission.h"
#include "api/decode.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/jsonpatch.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "store/store.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

enum ptype { P_JSON, P_MERGE, P_SMP, P_APPLY };

#define RETRIES 5

static int patch_type(const char *ct, enum ptype *t)
{
    if (!ct)
        return -1;
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    static const struct {
        const char *name;
        enum ptype t;
    } types[] = {{"application/json-patch+json", P_JSON},
                 {"application/merge-patch+json", P_MERGE},
                 {"application/strategic-merge-patch+json", P_SMP},
                 {"application/apply-patch+yaml", P_APPLY}};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strlen(types[i].name) == n && !strncasecmp(ct, types[i].name, n)) {
            *t = types[i].t;
            return 0;
        }
    return -1;
}

/* Apply the patch to old; new ref or NULL with err (its kind picks the
 * Status: BadRequest for a strategic merge or apply that fails, the JSON
 * patch's own kinds). copy_limit bounds what a JSON patch's `copy`
 * operations may duplicate. */
static json_t *apply(enum ptype t, const api_resource_t *res, json_t *old, json_t *patch,
                     const char *manager, bool force, size_t copy_limit, sl_error_t *err)
{
    char gv[128];
    api_resource_api_version(res, gv, sizeof(gv));
    json_t *out = NULL;
    switch (t) {
    case P_MERGE:
        out = sl_kube_merge_patch(old, patch);
        if (!out)
            sl_errkindf(err, SL_ERR_INTERNAL, "patch failed");
        break;
    case P_SMP:
        out = sl_kube_strategic_merge(gv, res->kind, old, patch, err);
        if (!out)
            err->kind = SL_ERR_BAD_REQUEST;
        break;
    case P_APPLY:
        out = sl_kube_apply(old, patch, manager, force, err);
        if (!out && err->kind != SL_ERR_CONFLICT)
            err->kind = SL_ERR_BAD_REQUEST;
        break;
    case P_JSON: out = api_json_patch(old, patch, copy_limit, err); break;
    }
    if (out && !json_is_object(out)) {
        json_decref(out);
        out = NULL;
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "the patch produced something that is not an object");
    }
    return out;
}

/* Identity fields a patch may not move: forced back to the URL's. */
static void pin_identity(const api_resource_t *res, const api_path_t *p, json_t *obj)
{
    api_set_type(res, obj);
    sl_kube_meta_set_str(obj, "name", p->name);
    sl_kube_meta_set_str(obj, "namespace", res->namespaced ? p->ns : NULL);
}

/* The request's patch: an object (a JSON patch may be an array); NULL
 * with a BadRequest in err. */
static json_t *patch_body(api_req_t *r, enum ptype t, sl_error_t *err)
{
    json_t *patch = api_parse_body(r->body.data, r->body.len, false, err);
    if (!patch && t == P_APPLY) /* apply configurations may be YAML */
        patch = api_parse_body(r->body.data, r->body.len, true, err);
    if (!patch)
        return NULL;
    if (t != P_JSON && !json_is_object(patch)) {
        json_decref(patch);
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "json: cannot unmarshal array into Go value of type map[string]interface {}");
        return NULL;
    }
    return patch;
}

enum { APPLY_DONE, APPLY_RETRY };

/* Server-side apply to an object that does not exist creates it: DONE with
 * *obj (created) or err (refused), RETRY when it was created meanwhile
 * (patch it). */
static int apply_create(api_req_t *r, const api_path_t *p, json_t *patch, const char *manager,
                        const char *directive, json_t **obj, sl_error_t *err)
{
    const api_resource_t *res = p->res;
    json_t *o = sl_kube_apply(NULL, patch, manager, true, NULL);
    if (!o) {
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "invalid apply configuration");
        return APPLY_DONE;
    }
    pin_identity(res, p, o);
    if (api_check_fields(r, res, o, NULL, directive, err) < 0 || api_create_object(r, p, o, err) < 0) {
        json_decref(o);
        bool exists = err->kind == SL_ERR_CONFLICT || err->kind == SL_ERR_ALREADY_EXISTS;
        return exists ? APPLY_RETRY : APPLY_DONE; /* kube: any 409 */
    }
    *obj = o;
    return APPLY_DONE;
}

/* The query's checks before the body: the patch type, fieldValidation
 * (the directive) and apply's fieldManager. 0, or -1 with err. */
static int patch_options(api_req_t *r, enum ptype *t, const char **directive, sl_error_t *err)
{
    if (patch_type(api_header(r, "Content-Type"), t) < 0)
        return sl_errkindf(err, SL_ERR_UNSUPPORTED_MEDIA_TYPE,
                           "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/strategic-merge-patch+json, "
                           "application/apply-patch+yaml");
    if (!(*directive = api_field_validation(r, err)))
        return -1;
    const char *manager = api_query(r, "fieldManager");
    if (*t == P_APPLY && (!manager || !*manager)) {
        sl_kube_cause_required(err, "fieldManager", "is required for apply patch");
        api_options_subject(r, err);
        return -1;
    }
    return 0;
}

/* One attempt at patching the stored old: 0 with *obj written, or -1 with
 * err (*obj NULL). */
static int patch_once(api_req_t *r, const api_path_t *p, enum ptype t, json_t *patch,
                      const char *directive, int64_t want_rv, json_t *old, json_t **obj,
                      sl_error_t *err)
{
    const api_resource_t *res = p->res;
    *obj = apply(t, res, old, patch, api_query(r, "fieldManager"), api_query_bool(r, "force"),
                 r->api->max_body, err);
    if (!*obj)
        return -1;
    if (api_check_object_size(r->api, *obj, err) < 0) /* before anything reads it */
        goto fail;
    pin_identity(res, p, *obj);
    if (api_check_fields(r, res, *obj, old, directive, err) < 0)
        goto fail;
    int64_t expect = want_rv ? want_rv : sl_kube_rv(old);
    if (!want_rv) /* the stored rv; the patched one may carry anything */
        sl_kube_set_rv(*obj, sl_kube_rv(old));
    if (api_write_update(r, p, obj, old, expect, err) == 0)
        return 0;
fail:
    json_decref(*obj);
    *obj = NULL;
    return -1;
}

enum MHD_Result api_handle_patch(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    enum ptype t;
    const char *directive;
    sl_error_t err = SL_ERROR_INIT;
    json_t *patch = NULL;
    if (patch_options(r, &t, &directive, &err) < 0 || !(patch = patch_body(r, t, &err)))
        return api_reply_error(r, NULL, NULL, &err);
    /* resourceVersion in the patch: a precondition (kube: optimistic lock) */
    /* (null there is just the 3-way diff dropping a server-owned field) */
    const char *prv = t == P_JSON ? NULL : sl_kube_meta_str(patch, "resourceVersion");
    int64_t want_rv = prv && *prv ? sl_kube_rv_parse(prv) : 0;
    json_t *obj = NULL, *old = NULL;
    unsigned code = 200;
    for (int attempt = 0; attempt < RETRIES; attempt++) {
        sl_error_clear(&err);
        json_decref(old);
        old = sl_store_get(r->api->store, res->store_name, p->ns, p->name);
        if (!old && t == P_APPLY && !p->sub) { /* server-side apply creates */
            if (apply_create(r, p, patch, api_query(r, "fieldManager"), directive, &obj, &err) ==
                APPLY_RETRY)
                continue; /* created meanwhile: patch it */
            code = 201;
            break;
        }
        if (!old) {
            api_store_error(errno, NULL, &err);
            break;
        }
        if (patch_once(r, p, t, patch, directive, want_rv, old, &obj, &err) == 0)
            break;
        if (err.kind != SL_ERR_CONFLICT || want_rv)
            break;
    }
    json_decref(patch);
    json_decref(old);
    if (!obj) {
        if (!err.kind && !*err.text) /* retries ran out on something else */
            sl_errkindf(&err, SL_ERR_INTERNAL, "patch failed");
        return api_reply_error(r, res, p->name, &err);
    }
    sl_error_clear(&err);
    return api_reply_object(r, res, code, obj);
}
