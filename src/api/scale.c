/* scale.c — the scale subresource (GET, PUT, PATCH .../NAME/scale) of the
 * kinds whose hooks say they have one (api_kind_ops_t.scale_sub: a
 * Deployment's, a ReplicaSet's): an autoscaling/v1 Scale made of the
 * object's spec.replicas, status.replicas and selector (spec.selector, or
 * the string at the row's scale_selector_path: a LeaderWorkerSet's
 * status.hpaPodSelector), as kube-apiserver's
 * ScaleREST serves it (`kubectl scale`, autoscalers). A write changes
 * spec.replicas alone (a new generation), only by the creator's Unix user
 * as any update of a workload (objects.c); the Scale's resourceVersion,
 * when given, is a precondition on the object's. */
#include "api/decode.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/jsonpatch.h"
#include "api/nodeops.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/patch.h"
#include "kube/selector.h"
#include "kube/status.h"
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RETRIES 5

/* status.selector: spec.selector's text, or the string at the row's
 * selector path (empty while it is unset, as kube's ScaleREST for CRDs) */
static char *selector_text(const api_kind_ops_t *ops, json_t *obj)
{
    if (ops && ops->scale_selector_path) {
        const char *v = json_string_value(sl_kube_path(obj, ops->scale_selector_path));
        return sl_xstrdup(v ? v : "");
    }
    json_t *sel = sl_kube_path(obj, "spec.selector");
    sl_kube_selector_t *s =
        json_is_object(sel) ? sl_kube_label_selector_from_json(sel, NULL) : NULL;
    char *text = s ? sl_kube_selector_string(s) : sl_xstrdup("");
    sl_kube_selector_destroy(s);
    return text;
}

static json_t *scale_of(const api_kind_ops_t *ops, json_t *obj)
{
    char *text = selector_text(ops, obj);
    json_t *r = sl_kube_path(obj, "spec.replicas");
    char rv[32];
    snprintf(rv, sizeof(rv), "%lld", (long long)sl_kube_rv(obj));
    json_t *sc = json_pack(
        "{s:s, s:s, s:{s:s?, s:s?, s:s?, s:s, s:s?}, s:{s:I}, s:{s:I, s:s}}", "kind", "Scale",
        "apiVersion", "autoscaling/v1", "metadata", "name", sl_kube_name(obj), "namespace",
        sl_kube_namespace(obj), "uid", sl_kube_uid(obj), "resourceVersion", rv, "creationTimestamp",
        sl_kube_meta_str(obj, "creationTimestamp"), "spec", "replicas",
        (json_int_t)(json_is_integer(r) ? json_integer_value(r) : 1), "status", "replicas",
        (json_int_t)json_integer_value(sl_kube_path(obj, "status.replicas")), "selector", text);
    free(text);
    return sc;
}

/* the client's Scale: a PUT's body, or a PATCH applied to the current one */
static json_t *wanted_scale(api_req_t *r, json_t *cur, sl_error_t *err)
{
    json_t *body = api_parse_body(r->body.data, r->body.len, false, err);
    if (!body || !strcmp(r->method, "PUT"))
        return body;
    const char *ct = api_header(r, "Content-Type");
    json_t *out = NULL;
    if (ct && !strncasecmp(ct, "application/json-patch+json", 27))
        out = api_json_patch(cur, body, r->api->max_body, err);
    else if (ct && (!strncasecmp(ct, "application/merge-patch+json", 28) ||
                    !strncasecmp(ct, "application/strategic-merge-patch+json", 38)))
        out = sl_kube_merge_patch(cur, body);
    else
        sl_errkindf(err, SL_ERR_UNSUPPORTED_MEDIA_TYPE,
                    "the body of the request was in an "
                    "unknown format - accepted media types "
                    "include: application/json-patch+json, "
                    "application/merge-patch+json, "
                    "application/strategic-merge-patch+json");
    json_decref(body);
    if (out && !json_is_object(out)) {
        json_decref(out);
        out = NULL;
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "the patch produced something that is not an object");
    }
    return out;
}

/* ValidateScale, and the name in the body the URL's */
static int check_scale(json_t *sc, const char *name, sl_error_t *err)
{
    const char *n = sl_kube_name(sc);
    if (n && *n && strcmp(n, name))
        return sl_errkindf(err, SL_ERR_BAD_REQUEST,
                           "the name of the object (%s) does not match the name on the URL (%s)", n,
                           name);
    json_t *rep = sl_kube_path(sc, "spec.replicas");
    if (rep && !json_is_integer(rep))
        return sl_errkindf(err, SL_ERR_BAD_REQUEST,
                           "json: cannot unmarshal into Go struct field ScaleSpec.spec.replicas "
                           "of type int32");
    if (json_integer_value(rep) < 0) {
        sl_err_field_int(err, SL_FE_INVALID, "spec.replicas", json_integer_value(rep),
                         "must be greater than or equal to 0");
        sl_err_subject(err, "scale", "autoscaling", "Scale", name);
        return -1;
    }
    return 0;
}

/* one attempt: the object read, the Scale wanted, spec.replicas written */
static json_t *scale_once(api_req_t *r, const api_path_t *p, sl_error_t *err)
{
    json_t *obj = sl_store_get(r->api->store, p->res->store_name, p->ns, p->name);
    if (!obj) {
        api_store_error(errno, NULL, err);
        return NULL;
    }
    json_t *cur = scale_of(p->res->ops, obj), *sc = wanted_scale(r, cur, err), *out = NULL;
    json_decref(cur);
    /* its replicas run as its creator: scaled by that Unix user only */
    if (!sc || check_scale(sc, p->name, err) < 0 || api_check_workload_owner(r, p, obj, err) < 0)
        goto done;
    const char *prv = sl_kube_meta_str(sc, "resourceVersion");
    int64_t want = prv && *prv ? sl_kube_rv_parse(prv) : sl_kube_rv(obj);
    json_t *rep = sl_kube_path(sc, "spec.replicas");
    long long n = json_is_integer(rep) ? json_integer_value(rep) : 0;
    json_t *spec = json_object_get(obj, "spec"), *old = json_deep_copy(obj);
    if (!json_is_integer(json_object_get(spec, "replicas")) ||
        json_integer_value(json_object_get(spec, "replicas")) != n) {
        json_object_set_new(spec, "replicas", json_integer(n));
        json_object_set_new(
            sl_kube_meta(obj), "generation",
            json_integer(json_integer_value(sl_kube_path(obj, "metadata.generation")) + 1));
    }
    /* the kind's own limits on replicas (an LWS's 10000) hold for a scale */
    const api_kind_ops_t *ops = p->res->ops;
    int bad = ops && ops->validate_update && ops->validate_update(obj, old, err) < 0;
    json_decref(old);
    if (bad)
        goto done;
    if (sl_store_update(r->api->store, p->res->store_name, obj, want, err) < 0)
        api_store_error(errno, err->text, err);
    else
        out = scale_of(p->res->ops, obj);
done:
    json_decref(sc);
    json_decref(obj);
    return out;
}

enum MHD_Result api_handle_scale(api_req_t *r, const api_path_t *p)
{
    sl_error_t err = SL_ERROR_INIT;
    if (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD")) {
        json_t *obj = sl_store_get(r->api->store, p->res->store_name, p->ns, p->name);
        if (!obj)
            return api_reply_status(r, api_store_error_status(p->res, p->name, errno, NULL));
        json_t *sc = scale_of(p->res->ops, obj);
        json_decref(obj);
        return api_reply_json(r, 200, sc);
    }
    if (strcmp(r->method, "PUT") && strcmp(r->method, "PATCH"))
        return api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    json_t *sc = NULL;
    for (int i = 0; i < RETRIES && !sc; i++) {
        sl_error_clear(&err);
        sc = scale_once(r, p, &err);
        if (!sc && err.kind != SL_ERR_CONFLICT)
            break;
    }
    if (!sc)
        return api_reply_error(r, p->res, p->name, &err);
    sl_error_clear(&err);
    return api_reply_json(r, 200, sc);
}
