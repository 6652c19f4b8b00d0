/* router.c — URL → handler. Mirrors kube-apiserver's paths:
 *   /version /healthz /readyz /livez
 *   /api  /api/v1  /apis  /apis/G  /apis/G/V          (discovery)
 *   /openapi/v3[/...]                                  (OpenAPI v3)
 *   /api/v1[/watch]/namespaces/NS/RES[/NAME[/SUB]]     (namespaced)
 *   /api/v1[/watch]/RES[/NAME[/SUB]]                   (cluster-scoped, or all namespaces)
 *   /apis/G/V/...                                      (the same for groups)
 *   /internal/v1/shim/events                           (the in-job shim's pushes)
 *   /metrics                                           (Prometheus, metrics.c)
 * Anything else is a 404 Status; a known path with an unsupported method a
 * 405 Status. */
#include "api/handlers.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/nodemetrics.h"
#include "api/nodeops.h"
#include "api/resource.h"
#include "api/review.h"
#include "common/xalloc.h"
#include "kube/status.h"

#include <string.h>

#define MAX_SEGS 12

static enum MHD_Result not_found(api_req_t *r)
{
    return api_reply_status(r, sl_kube_status_not_found_url());
}

static enum MHD_Result not_allowed(api_req_t *r)
{
    return api_reply_status(
        r, sl_kube_status(405, "MethodNotAllowed",
                          "the server does not allow this method on the requested resource",
                          json_object()));
}

static bool is_get(const char *m) { return !strcmp(m, "GET") || !strcmp(m, "HEAD"); }

/* Split path into segments (in a copy); empty segments are kept so that
 * "/api/v1/pods//x" does not alias "/api/v1/pods/x". */
static int split(char *path, char **seg)
{
    int n = 0;
    char *p = path;
    if (*p == '/')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        if (n == MAX_SEGS)
            return -1;
        seg[n++] = p;
        char *slash = strchr(p, '/');
        if (!slash)
            break;
        *slash = '\0';
        p = slash + 1;
        if (!*p) /* trailing slash: ignored, as Go's mux redirects it */
            break;
    }
    return n;
}

static bool has_empty(char **seg, int n)
{
    for (int i = 0; i < n; i++)
        if (!*seg[i])
            return true;
    return false;
}

static bool group_served(const char *group, const char *version);

/* kube-apiserver's verb for a resource request (RequestInfo), as this
 * router serves it: GET → get, list or watch; POST create; PUT update;
 * PATCH patch; DELETE delete or deletecollection. */
static bool is_stream_sub(const char *sub)
{
    return !strcmp(sub, "exec") || !strcmp(sub, "attach") || !strcmp(sub, "portforward");
}

static const char *resource_verb(api_req_t *r, const api_path_t *p, char *buf, size_t len)
{
    const char *m = r->method;
    if (is_get(m)) {
        /* a WebSocket GET runs code: create, as kube-apiserver's
         * AuthorizePodWebsocketUpgradeCreatePermission */
        if (p->sub && is_stream_sub(p->sub))
            return "create";
        if (p->sub)
            return "get";
        if (p->watch_prefix)
            return "watch";
        if (!p->name)
            return api_query_bool(r, "watch") ? "watch" : "list";
        return "get";
    }
    if (!strcmp(m, "POST"))
        return "create";
    if (!strcmp(m, "PUT"))
        return "update";
    if (!strcmp(m, "PATCH"))
        return "patch";
    if (!strcmp(m, "DELETE"))
        return p->name ? "delete" : "deletecollection";
    return api_nonresource_verb(m, buf, len); /* no rule grants it: only admins */
}

/* [namespaces/NS/]RESOURCE[/NAME[/SUB]] into p and *resource; -1 when the
 * path has too many segments */
static int split_path(char **s, int n, api_path_t *p, const char **resource)
{
    if (!strcmp(s[0], "namespaces") && n >= 3 &&
        !(n == 3 && (!strcmp(s[2], "status") || !strcmp(s[2], "finalize")))) {
        p->ns = s[1];
        *resource = s[2];
        p->name = n > 3 ? s[3] : NULL;
        p->sub = n > 4 ? s[4] : NULL;
        return n > 5 ? -1 : 0;
    }
    *resource = s[0];
    p->name = n > 1 ? s[1] : NULL;
    p->sub = n > 2 ? s[2] : NULL;
    return n > 3 ? -1 : 0;
}

/* a path that names what the resource has: its scope, its subresources, a
 * watch prefix only on a GET of no subresource */
static bool path_fits(const api_req_t *r, const api_path_t *p, bool finalize)
{
    if (p->ns && !p->res->namespaced)
        return false;
    if (p->res->namespaced && !p->ns && p->name)
        return false;
    if (p->sub && !finalize &&
        !((!strcmp(p->sub, "status") && p->res->status_sub) ||
          (!strcmp(p->sub, "log") && p->res->log_sub) ||
          (is_stream_sub(p->sub) && p->res->log_sub) ||
          (!strcmp(p->sub, "eviction") && p->res->log_sub) ||
          (!strcmp(p->sub, "ephemeralcontainers") && p->res->log_sub) ||
          (!strcmp(p->sub, "scale") && p->res->ops && p->res->ops->scale_sub)))
        return false;
    return !(p->watch_prefix && (p->sub || !is_get(r->method)));
}

/* a subresource: log, finalize (a namespace's) or status */
static enum MHD_Result sub_request(api_req_t *r, api_path_t *p, bool finalize)
{
    const char *m = r->method;
    unsigned verbs = p->res->verbs;
    if (!strcmp(p->sub, "log")) {
        if (!is_get(m))
            return not_allowed(r);
        return api_handle_log(r, p);
    }
    if (!strcmp(p->sub, "scale")) /* kubectl scale: spec.replicas alone */
        return api_handle_scale(r, p);
    if (!strcmp(p->sub, "eviction")) /* kubectl drain: a graceful delete */
        return api_handle_eviction(r, p);
    if (!strcmp(p->sub, "ephemeralcontainers")) /* kubectl debug */
        return is_get(m)                                  ? api_handle_get(r, p)
               : !strcmp(m, "PATCH") || !strcmp(m, "PUT") ? api_handle_ephemeral(r, p)
                                                          : not_allowed(r);
    if (!strcmp(p->sub, "portforward"))
        return is_get(m) || !strcmp(m, "POST") ? api_handle_portforward(r, p) : not_allowed(r);
    if (!strcmp(p->sub, "exec") || !strcmp(p->sub, "attach"))
        return is_get(m) || !strcmp(m, "POST") ? api_handle_exec(r, p) : not_allowed(r);
    if (finalize) /* PUT only, as in kube-apiserver */
        return !strcmp(m, "PUT") ? api_handle_update(r, p) : not_allowed(r);
    if (is_get(m) && (verbs & API_V_GET))
        return api_handle_get(r, p);
    if (!(verbs & (API_V_UPDATE | API_V_PATCH)))
        return not_allowed(r);
    if (!strcmp(m, "PUT"))
        return api_handle_update(r, p);
    if (!strcmp(m, "PATCH"))
        return api_handle_patch(r, p);
    return not_allowed(r);
}

/* a collection: list, watch, create, delete collection */
static enum MHD_Result collection_request(api_req_t *r, api_path_t *p)
{
    const char *m = r->method;
    unsigned verbs = p->res->verbs;
    if (is_get(m)) {
        if (p->watch_prefix || api_query_bool(r, "watch"))
            return (verbs & API_V_WATCH) ? api_handle_watch(r, p) : not_allowed(r);
        return (verbs & API_V_LIST) ? api_handle_list(r, p) : not_allowed(r);
    }
    if (!strcmp(m, "POST"))
        return (verbs & API_V_CREATE) && (p->ns || !p->res->namespaced) ? api_handle_create(r, p)
                                                                        : not_allowed(r);
    if (!strcmp(m, "DELETE"))
        return (verbs & API_V_DELETECOLLECTION) && (p->ns || !p->res->namespaced)
                   ? api_handle_delete_collection(r, p)
                   : not_allowed(r);
    return not_allowed(r);
}

/* one object: get (or a watch of it), update, patch, delete */
static enum MHD_Result object_request(api_req_t *r, api_path_t *p)
{
    const char *m = r->method;
    unsigned verbs = p->res->verbs;
    if (is_get(m)) {
        if (p->watch_prefix)
            return (verbs & API_V_WATCH) ? api_handle_watch(r, p) : not_allowed(r);
        return (verbs & API_V_GET) ? api_handle_get(r, p) : not_allowed(r);
    }
    if (!strcmp(m, "PUT"))
        return (verbs & API_V_UPDATE) ? api_handle_update(r, p) : not_allowed(r);
    if (!strcmp(m, "PATCH"))
        return (verbs & API_V_PATCH) ? api_handle_patch(r, p) : not_allowed(r);
    if (!strcmp(m, "DELETE"))
        return (verbs & API_V_DELETE) ? api_handle_delete(r, p) : not_allowed(r);
    return not_allowed(r);
}

static enum MHD_Result resource_request(api_req_t *r, const char *group, const char *version,
                                        char **s, int n)
{
    api_path_t p = {0};
    if (n > 0 && !strcmp(s[0], "watch")) {
        p.watch_prefix = true;
        s++;
        n--;
    }
    r->m_resource = "other"; /* until the resource is found */
    const char *resource;
    if (n == 0 || has_empty(s, n) || split_path(s, n, &p, &resource) < 0)
        return not_found(r);
    /* authorization comes before the resource is looked up, as in
     * kube-apiserver: what a user may not touch is 403 whether it exists
     * or not. A namespace object counts as inside itself. */
    char vbuf[16];
    const char *verb = resource_verb(r, &p, vbuf, sizeof(vbuf));
    r->m_verb = verb != vbuf ? verb : NULL; /* vbuf lives on this stack only */
    const char *authz_ns = p.ns;
    if (!*group && !strcmp(resource, "namespaces") && p.name)
        authz_ns = p.name;
    if (api_authorize(r, verb, group, resource, p.sub, authz_ns, p.name) < 0)
        return MHD_YES;
    if (api_review_served(group, version, resource)) /* answered, never stored */
        return api_handle_review(r, &p, group, version, resource);
    if (api_nodemetrics_group(group, version)) /* read from Slurm at each request */
        return api_handle_nodemetrics(r, &p, resource);
    if (!group_served(group, version))
        return not_found(r);
    p.res = api_resource_find(group, version, resource);
    if (!p.res)
        return not_found(r);
    r->m_resource = p.res->name;
    r->m_sub = p.sub && !strcmp(p.sub, "status")                ? "status"
               : p.sub && !strcmp(p.sub, "log")                 ? "log"
               : p.sub && !strcmp(p.sub, "exec")                ? "exec"
               : p.sub && !strcmp(p.sub, "attach")              ? "attach"
               : p.sub && !strcmp(p.sub, "portforward")         ? "portforward"
               : p.sub && !strcmp(p.sub, "eviction")            ? "eviction"
               : p.sub && !strcmp(p.sub, "ephemeralcontainers") ? "ephemeralcontainers"
               : p.sub && !strcmp(p.sub, "scale")               ? "scale"
                                                                : "";
    bool finalize = p.sub && !strcmp(p.sub, "finalize") && !strcmp(p.res->name, "namespaces");
    if (!path_fits(r, &p, finalize))
        return not_found(r);
    if (!*group && !strcmp(p.res->name, "nodes") && p.name && !is_get(r->method))
        return !p.sub && !strcmp(r->method, "PATCH") ? api_handle_node_patch(r, &p) /* cordon */
                                                     : not_allowed(r);
    if (p.sub)
        return sub_request(r, &p, finalize);
    return p.name ? object_request(r, &p) : collection_request(r, &p);
}

static bool group_served(const char *group, const char *version)
{
    if (api_review_group(group, version) || api_nodemetrics_group(group, version))
        return true;
    for (const api_resource_t *x = api_resources; x->name; x++)
        if (!strcmp(x->group, group) && (!version || !strcmp(x->version, version)))
            return true;
    return false;
}

static enum MHD_Result route_segs(api_req_t *r, char **s, int n)
{
    const char *m = r->method;
    if (api_is_shim_push(r->url)) /* its own per-pod tokens, checked by the hook */
        return !strcmp(m, "POST") ? api_handle_shim_event(r) : not_allowed(r);
    /* resource requests are authorized in resource_request(); everything
     * else (discovery, /version, /openapi, /healthz, unknown paths) is a
     * non-resource URL */
    bool resource = n >= 3 && ((!strcmp(s[0], "api") && !strcmp(s[1], "v1")) ||
                               (!strcmp(s[0], "apis") && n >= 4));
    if (!resource) {
        char vbuf[16];
        if (api_authorize(r, api_nonresource_verb(m, vbuf, sizeof(vbuf)), NULL, NULL, NULL, NULL,
                          NULL) < 0)
            return MHD_YES;
    }
    if (n < 0)
        return not_found(r);
    if (n >= 1 && !strcmp(s[0], "internal"))
        return not_found(r);
    if (n >= 1 && (!strcmp(s[0], "healthz") || !strcmp(s[0], "readyz") || !strcmp(s[0], "livez"))) {
        if (!is_get(m))
            return not_allowed(r);
        return api_reply_bytes(r, 200, "text/plain; charset=utf-8", "ok", 2);
    }
    if (n == 1 && !strcmp(s[0], "version"))
        return is_get(m) ? api_serve_version(r) : not_allowed(r);
    if (n == 1 && !strcmp(s[0], "metrics"))
        return api_serve_metrics(r);
    if (n >= 2 && !strcmp(s[0], "openapi")) {
        if (!strcmp(s[1], "v3")) {
            if (!is_get(m))
                return not_allowed(r);
            /* rebuild "api/v1" or "apis/G/V" from the remaining segments */
            char rest[512] = "";
            for (int i = 2; i < n; i++) {
                if (i > 2)
                    strncat(rest, "/", sizeof(rest) - strlen(rest) - 1);
                strncat(rest, s[i], sizeof(rest) - strlen(rest) - 1);
            }
            return api_serve_openapi(r, rest);
        }
        if (!strcmp(s[1], "v2") && n == 2)
            return is_get(m) ? api_serve_openapi_v2(r) : not_allowed(r);
        return not_found(r);
    }
    if (n >= 1 && !strcmp(s[0], "api")) {
        if (n == 1)
            return is_get(m) ? api_serve_api_versions(r) : not_allowed(r);
        if (strcmp(s[1], "v1"))
            return not_found(r);
        if (n == 2)
            return is_get(m) ? api_serve_resource_list(r, "", "v1") : not_allowed(r);
        return resource_request(r, "", "v1", s + 2, n - 2);
    }
    if (n >= 1 && !strcmp(s[0], "apis")) {
        if (n == 1)
            return is_get(m) ? api_serve_group_list(r) : not_allowed(r);
        if (n == 2) {
            if (!group_served(s[1], NULL))
                return not_found(r);
            return is_get(m) ? api_serve_group(r, s[1]) : not_allowed(r);
        }
        if (n == 3) {
            if (!group_served(s[1], s[2]))
                return not_found(r);
            return is_get(m) ? api_serve_resource_list(r, s[1], s[2]) : not_allowed(r);
        }
        return resource_request(r, s[1], s[2], s + 3, n - 3);
    }
    return not_found(r);
}

enum MHD_Result api_route(api_req_t *r)
{
    char *ns, *id;
    const char *rest;
    if (api_service_proxy_path(r->url, &ns, &id, &rest)) { /* any depth of path below it */
        free(ns);
        free(id);
        return api_handle_service_proxy(r);
    }
    char *path = sl_xstrdup(r->url);
    char *seg[MAX_SEGS];
    int n = split(path, seg);
    enum MHD_Result ret = route_segs(r, seg, n);
    free(path);
    return ret;
}
