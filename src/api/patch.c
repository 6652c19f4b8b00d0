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
#include "api/internal.h"
#include "api/jsonpatch.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"

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
                     const char *manager, size_t copy_limit, sl_error_t *err)
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
        out = sl_kube_apply(old, patch, manager, err);
        if (!out)
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
 * after replying (*mhd). */
static json_t *patch_body(api_req_t *r, enum ptype t, enum MHD_Result *mhd)
{
    sl_error_t perr = SL_ERROR_INIT;
    json_t *patch = api_parse_body(r->body.data, r->body.len, false, &perr);
    if (!patch && t == P_APPLY) /* apply configurations may be YAML */
        patch = api_parse_body(r->body.data, r->body.len, true, &perr);
    if (!patch) {
        *mhd = api_reply_status(r, sl_kube_status_error(&perr, NULL, NULL, NULL, NULL));
        return NULL;
    }
    if (t != P_JSON && !json_is_object(patch)) {
        json_decref(patch);
        *mhd = api_reply_status(
            r, sl_kube_status_bad_request("json: cannot unmarshal array into Go value of type "
                                          "map[string]interface {}"));
        return NULL;
    }
    return patch;
}

enum { APPLY_DONE, APPLY_RETRY, APPLY_REPLIED };

/* Server-side apply to an object that does not exist creates it: DONE with
 * *obj (created) or *st (refused), RETRY when it was created meanwhile (patch
 * it), REPLIED when the reply is sent (*mhd). */
static int apply_create(api_req_t *r, const api_path_t *p, json_t *patch, const char *manager,
                        const char *directive, json_t **obj, json_t **st, enum MHD_Result *mhd)
{
    const api_resource_t *res = p->res;
    json_t *o = sl_kube_apply(NULL, patch, manager, NULL);
    if (!o) {
        *st = sl_kube_status_bad_request("invalid apply configuration");
        return APPLY_DONE;
    }
    pin_identity(res, p, o);
    if (api_check_fields(r, res, o, directive, mhd) < 0) {
        json_decref(o);
        return APPLY_REPLIED;
    }
    if (api_create_object(r, p, o, st) < 0) {
        json_decref(o);
        if (!*st) {
            *mhd = MHD_YES;
            return APPLY_REPLIED;
        }
        return json_integer_value(json_object_get(*st, "code")) == 409 ? APPLY_RETRY : APPLY_DONE;
    }
    *obj = o;
    return APPLY_DONE;
}

enum MHD_Result api_handle_patch(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    enum ptype t;
    enum MHD_Result mhd = MHD_NO;
    const char *ct = api_header(r, "Content-Type");
    if (patch_type(ct, &t) < 0)
        return api_reply_status(
            r, sl_kube_status_unsupported_media_type("application/json-patch+json, "
                                                     "application/merge-patch+json, "
                                                     "application/strategic-merge-patch+json, "
                                                     "application/apply-patch+yaml"));
    sl_error_t verr = SL_ERROR_INIT;
    const char *directive = api_field_validation(r, &verr);
    if (!directive)
        return api_reply_status(r, api_options_invalid(r, &verr));
    const char *manager = api_query(r, "fieldManager");
    if (t == P_APPLY && (!manager || !*manager)) {
        sl_error_t err = SL_ERROR_INIT;
        sl_kube_cause_required(&err, "fieldManager", "is required for apply patch");
        json_t *st = sl_kube_status_invalid("PatchOptions", "meta.k8s.io", "", &err);
        sl_error_clear(&err);
        return api_reply_status(r, st);
    }
    json_t *patch = patch_body(r, t, &mhd);
    if (!patch)
        return mhd;
    /* resourceVersion in the patch: a precondition (kube: optimistic lock) */
    /* (null there is just the 3-way diff dropping a server-owned field) */
    const char *prv = t == P_JSON ? NULL : sl_kube_meta_str(patch, "resourceVersion");
    int64_t want_rv = prv && *prv ? sl_kube_rv_parse(prv) : 0;
    json_t *st = NULL, *obj = NULL, *old = NULL;
    unsigned code = 200;
    for (int attempt = 0; attempt < RETRIES; attempt++) {
        json_decref(st);
        st = NULL;
        json_decref(old);
        old = sl_store_get(r->api->store, res->store_name, p->ns, p->name);
        if (!old) {
            if (t == P_APPLY && !p->sub) { /* server-side apply creates */
                int ac = apply_create(r, p, patch, manager, directive, &obj, &st, &mhd);
                if (ac == APPLY_REPLIED) {
                    json_decref(patch);
                    return mhd;
                }
                if (ac == APPLY_RETRY)
                    continue; /* created meanwhile: patch it */
                if (obj)
                    code = 201;
                break;
            }
            st = api_store_error_status(res, p->name, errno, NULL);
            break;
        }
        sl_error_t aerr = SL_ERROR_INIT;
        obj = apply(t, res, old, patch, manager, r->api->max_body, &aerr);
        if (!obj)
            st = sl_kube_status_error(&aerr, res->name, res->group, res->kind, p->name);
        if (obj && (st = api_check_object_size(r->api, obj))) { /* before anything reads it */
            json_decref(obj);
            obj = NULL;
        }
        if (!obj)
            break;
        pin_identity(res, p, obj);
        if (api_check_fields(r, res, obj, directive, &mhd) < 0) {
            json_decref(obj);
            json_decref(old);
            json_decref(patch);
            return mhd;
        }
        int64_t expect = want_rv ? want_rv : sl_kube_rv(old);
        if (!want_rv) /* the stored rv; the patched one may carry anything */
            sl_kube_set_rv(obj, sl_kube_rv(old));
        if (api_write_update(r, p, &obj, old, expect, &st) == 0)
            break;
        json_decref(obj);
        obj = NULL;
        const char *reason = json_string_value(json_object_get(st, "reason"));
        bool conflict = reason && !strcmp(reason, "Conflict");
        if (!conflict || want_rv)
            break;
    }
    json_decref(patch);
    json_decref(old);
    if (!obj)
        return api_reply_status(r, st ? st : sl_kube_status_internal("patch failed"));
    json_decref(st);
    return api_reply_object(r, res, code, obj);
}
