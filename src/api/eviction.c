/* eviction.c — POST .../pods/NAME/eviction (policy/v1 Eviction, what
 * kubectl drain sends for each pod of the node): served as the graceful
 * delete of the pod that DELETE makes (delete.c: its Slurm job is
 * signalled and the pod goes once the job has ended), with the
 * deleteOptions the Eviction carries. There are no PodDisruptionBudgets,
 * so no eviction is refused for one (kube's 429). The router has
 * authorized "create pods/eviction": whoever may write the namespace. */
#include "api/decode.h"
#include "api/delete.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/nodeops.h"
#include "api/protobuf.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static json_t *eviction_body(api_req_t *r, sl_error_t *err)
{
    const char *ct = api_header(r, "Content-Type");
    if (ct && !strncmp(ct, "application/vnd.kubernetes.protobuf", 35))
        return api_pb_decode(r->body.data, r->body.len, err);
    return api_parse_body(r->body.data, r->body.len, ct && !strncmp(ct, "application/yaml", 16),
                          err);
}

/* deleteOptions of the Eviction into o (zeroed first) */
static void eviction_opts(api_req_t *r, json_t *ev, api_delopts_t *o)
{
    memset(o, 0, sizeof(*o));
    json_t *d = json_object_get(ev, "deleteOptions");
    json_t *g = json_object_get(d, "gracePeriodSeconds");
    if (json_is_integer(g)) {
        o->has_grace = true;
        o->grace = json_integer_value(g);
    }
    json_t *pre = json_object_get(d, "preconditions");
    const char *u = json_string_value(json_object_get(pre, "uid"));
    const char *v = json_string_value(json_object_get(pre, "resourceVersion"));
    const char *pp = json_string_value(json_object_get(d, "propagationPolicy"));
    snprintf(o->pre_uid, sizeof(o->pre_uid), "%s", u ? u : "");
    snprintf(o->pre_rv, sizeof(o->pre_rv), "%s", v ? v : "");
    snprintf(o->propagation, sizeof(o->propagation), "%s", pp ? pp : "");
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(d, "dryRun"), i, x)
    {
        if (json_is_string(x) && !strcmp(json_string_value(x), "All"))
            o->dry = true;
    }
    const char *qd = api_query(r, "dryRun");
    if (qd && !strcmp(qd, "All"))
        o->dry = true;
}

/* a concurrent write (the controller updating status) is retried unless
 * the client gave a precondition, as DELETE does */
static int evict(api_req_t *r, const api_path_t *p, const api_delopts_t *o, sl_error_t *err)
{
    int rc = -1;
    for (int attempt = 0; attempt < 5; attempt++) {
        json_t *old = sl_store_get(r->api->store, p->res->store_name, p->ns, p->name);
        if (!old)
            return api_store_error(errno, NULL, err);
        sl_error_clear(err);
        json_t *result = NULL;
        rc = api_delete_object(r->api, p->res, old, o, &result, err);
        json_decref(old);
        json_decref(result);
        bool stale = rc < 0 &&
                     (err->kind == SL_ERR_CONFLICT || err->kind == SL_ERR_ALREADY_EXISTS) &&
                     !o->pre_rv[0] && !o->pre_uid[0];
        if (!stale)
            break;
    }
    return rc < 0 ? -1 : 0;
}

enum MHD_Result api_handle_eviction(api_req_t *r, const api_path_t *p)
{
    if (strcmp(r->method, "POST") != 0)
        return api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    sl_error_t err = SL_ERROR_INIT;
    json_t *ev = eviction_body(r, &err);
    if (!ev)
        return api_reply_error(r, NULL, NULL, &err);
    const char *name = sl_kube_name(ev);
    if (name && *name && strcmp(name, p->name) != 0) {
        json_decref(ev);
        return api_reply_status(
            r, sl_kube_status_bad_request("name in URL does not match name in Eviction object"));
    }
    api_delopts_t o;
    eviction_opts(r, ev, &o);
    json_decref(ev);
    if (evict(r, p, &o, &err) < 0)
        return api_reply_error(r, p->res, p->name, &err);
    /* kube's answer to an eviction: a Success Status, 201 */
    return api_reply_json(r, 201,
                          json_pack("{s:s, s:s, s:{}, s:s, s:i}", "kind", "Status", "apiVersion",
                                    "v1", "metadata", "status", "Success", "code", 201));
}

/* pods/ephemeralcontainers (kubectl debug POD): a pod is a Slurm job whose
 * containers start together in its allocation; the shim starts no new
 * container in a running job, so the write is refused naming why (kube's
 * 422 shape, which kubectl prints as it is). */
enum MHD_Result api_handle_ephemeral(api_req_t *r, const api_path_t *p)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *pod = sl_store_get(r->api->store, p->res->store_name, p->ns, p->name);
    if (!pod)
        return api_reply_status(r, api_store_error_status(p->res, p->name, errno, NULL));
    json_decref(pod);
    sl_err_field_none(&err, SL_FE_FORBIDDEN, "spec.ephemeralContainers",
                      "ephemeral containers are not run: a pod is a Slurm job whose containers "
                      "start with it; use kubectl exec into one of its containers");
    err.kind = SL_ERR_INVALID;
    return api_reply_error(r, p->res, p->name, &err);
}
