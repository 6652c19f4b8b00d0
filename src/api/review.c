/* review.c — the review resources: nothing stored, each POST answered at
 * once from the policy that authorizes real requests (src/auth/authz.c,
 * sl_authz_check_req), never from a copy of its rules:
 *   authorization.k8s.io/v1 selfsubjectaccessreviews   kubectl auth can-i
 *   authorization.k8s.io/v1 selfsubjectrulesreviews    kubectl auth can-i --list
 *   authorization.k8s.io/v1 subjectaccessreviews       any user, as the policy allows
 *   authentication.k8s.io/v1 selfsubjectreviews        kubectl auth whoami
 * The router authorizes the create first (every user may create the self
 * reviews; subjectaccessreviews is cluster-scoped: adminGroups or
 * cluster: write). With kubectl --as, impersonate.c has already made
 * r->user the impersonated user, so can-i --as answers for that user. */
#include "api/review.h"
#include "api/decode.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/protobuf.h"
#include "api/resource.h"
#include "auth/authn.h"
#include "auth/policy.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/status.h"

#include <string.h>

#define AUTHZ_GROUP "authorization.k8s.io"
#define AUTHN_GROUP "authentication.k8s.io"

typedef struct review_kind {
    const char *group, *resource, *kind;
} review_kind_t;

static const review_kind_t kinds[] = {
    {AUTHZ_GROUP, "selfsubjectaccessreviews", "SelfSubjectAccessReview"},
    {AUTHZ_GROUP, "selfsubjectrulesreviews", "SelfSubjectRulesReview"},
    {AUTHZ_GROUP, "subjectaccessreviews", "SubjectAccessReview"},
    {AUTHN_GROUP, "selfsubjectreviews", "SelfSubjectReview"},
    {NULL, NULL, NULL},
};

static const review_kind_t *find_kind(const char *group, const char *version, const char *res)
{
    if (!group || !version || !res || strcmp(version, "v1") != 0)
        return NULL;
    for (const review_kind_t *k = kinds; k->group; k++)
        if (!strcmp(k->group, group) && !strcmp(k->resource, res))
            return k;
    return NULL;
}

bool api_review_served(const char *group, const char *version, const char *resource)
{
    return find_kind(group, version, resource) != NULL;
}

bool api_review_group(const char *group, const char *version)
{
    for (const review_kind_t *k = kinds; k->group; k++)
        if (!strcmp(k->group, group) && (!version || !strcmp(version, "v1")))
            return true;
    return false;
}

static char *singular(const review_kind_t *k)
{
    return sl_xstrndup(k->resource, strlen(k->resource) - 1); /* "...reviews" */
}

void api_review_resources(const char *group, const char *version, json_t *list)
{
    for (const review_kind_t *k = kinds; k->group; k++) {
        if (strcmp(k->group, group) || strcmp(version, "v1"))
            continue;
        char *one = singular(k);
        json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:[s]}", "name", k->resource,
                                              "singularName", one, "namespaced", 0, "kind", k->kind,
                                              "verbs", "create"));
        free(one);
    }
}

void api_review_groups(json_t *groups)
{
    static const char *const gs[] = {AUTHN_GROUP, AUTHZ_GROUP, NULL};
    for (size_t i = 0; gs[i]; i++) {
        char *gv = sl_xasprintf("%s/v1", gs[i]);
        json_array_append_new(groups,
                              json_pack("{s:s, s:[{s:s, s:s}], s:{s:s, s:s}}", "name", gs[i],
                                        "versions", "groupVersion", gv, "version", "v1",
                                        "preferredVersion", "groupVersion", gv, "version", "v1"));
        free(gv);
    }
}

void api_review_aggregated(json_t *items)
{
    static const char *const gs[] = {AUTHN_GROUP, AUTHZ_GROUP, NULL};
    for (size_t i = 0; gs[i]; i++) {
        json_t *res = json_array();
        for (const review_kind_t *k = kinds; k->group; k++) {
            if (strcmp(k->group, gs[i]))
                continue;
            char *one = singular(k);
            json_array_append_new(
                res, json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:[s]}", "resource", k->resource,
                               "responseKind", "group", k->group, "version", "v1", "kind", k->kind,
                               "scope", "Cluster", "singularResource", one, "verbs", "create"));
            free(one);
        }
        json_array_append_new(items,
                              json_pack("{s:{s:s, s:n}, s:[{s:s, s:o, s:s}]}", "metadata", "name",
                                        gs[i], "creationTimestamp", "versions", "version", "v1",
                                        "resources", res, "freshness", "Current"));
    }
}

static const char *jstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* Does the policy grant u this request? Development mode (no policy):
 * everything, as the router lets everything through. */
static bool granted(sl_api_t *api, const sl_auth_user_t *u, const sl_authz_req_t *q)
{
    const sl_authz_policy_t *p = api->policy;
    if (!p)
        return true;
    sl_authz_req_t x = *q;
    x.user = u->name;
    x.groups = (const char *const *)u->groups;
    return sl_authz_check_req(p, &x, NULL) == 1;
}

/* spec.resourceAttributes or spec.nonResourceAttributes into q (borrowing
 * spec's strings); -1 when neither or both are given, or a verb is missing */
static int attributes(json_t *spec, sl_authz_req_t *q)
{
    json_t *ra = json_object_get(spec, "resourceAttributes");
    json_t *na = json_object_get(spec, "nonResourceAttributes");
    if (json_is_object(ra) == json_is_object(na))
        return -1;
    if (json_is_object(na)) {
        q->verb = jstr(na, "verb");
        q->path = jstr(na, "path");
    } else {
        q->verb = jstr(ra, "verb");
        q->api_group = jstr(ra, "group");
        q->resource = jstr(ra, "resource");
        q->subresource = jstr(ra, "subresource");
        q->namespace = jstr(ra, "namespace");
        q->name = jstr(ra, "name");
        /* a namespace object counts as inside itself (as the router) */
        if (!*q->api_group && !strcmp(q->resource, "namespaces") && *q->name)
            q->namespace = q->name;
    }
    return *q->verb ? 0 : -1;
}

static json_t *reply_object(const review_kind_t *k, json_t *spec, json_t *status)
{
    return json_pack("{s:s+, s:s, s:{s:n}, s:o, s:o}", "apiVersion", k->group, "/v1", "kind",
                     k->kind, "metadata", "creationTimestamp", "spec",
                     spec ? json_incref(spec) : json_object(), "status", status);
}

static json_t *access_status(sl_api_t *api, const sl_auth_user_t *u, json_t *spec)
{
    sl_authz_req_t q = {0};
    if (attributes(spec, &q) < 0)
        return NULL;
    bool ok = granted(api, u, &q);
    json_t *st = json_pack("{s:b}", "allowed", ok);
    if (ok)
        json_object_set_new(st, "reason", json_string("allowed by the slurmlink policy"));
    return st;
}

/* ---- rules: every served resource and verb put to the policy ---- */

static const char *const all_verbs[] = {
    "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", NULL};
static const char *const get_only[] = {"get", NULL};
static const char *const stream_verbs[] = {"create", "get", NULL};
static const char *const status_verbs[] = {"get", "update", "patch", NULL};
static const char *const create_only[] = {"create", NULL};

/* one resourceRule for group/res[/sub] with the verbs granted, if any */
static void add_rule(json_t *rules, sl_api_t *api, const sl_auth_user_t *u, sl_authz_req_t q,
                     const char *const *verbs)
{
    json_t *granted_verbs = json_array();
    for (size_t i = 0; verbs[i]; i++) {
        q.verb = verbs[i];
        if (granted(api, u, &q))
            json_array_append_new(granted_verbs, json_string(verbs[i]));
    }
    if (!json_array_size(granted_verbs)) {
        json_decref(granted_verbs);
        return;
    }
    char *res =
        q.subresource ? sl_xasprintf("%s/%s", q.resource, q.subresource) : sl_xstrdup(q.resource);
    json_t *rule = json_pack("{s:o, s:[s], s:[s]}", "verbs", granted_verbs, "apiGroups",
                             q.api_group, "resources", res);
    if (q.name)
        json_object_set_new(rule, "resourceNames", json_pack("[s]", q.name));
    json_array_append_new(rules, rule);
    free(res);
}

static void resource_rules(json_t *rules, sl_api_t *api, const sl_auth_user_t *u, const char *ns)
{
    for (const api_resource_t *x = api_resources; x->name; x++) {
        sl_authz_req_t q = {.api_group = x->group, .resource = x->name};
        q.namespace = x->namespaced ? ns : NULL;
        if (!*x->group && !strcmp(x->name, "namespaces")) /* the namespace itself */
            q.namespace = q.name = ns;
        add_rule(rules, api, u, q, all_verbs);
        if (x->status_sub) {
            q.subresource = "status";
            add_rule(rules, api, u, q, status_verbs);
        }
        if (x->log_sub) {
            static const char *const streams[] = {"exec", "attach", "portforward", NULL};
            q.subresource = "log";
            add_rule(rules, api, u, q, get_only);
            for (size_t i = 0; streams[i]; i++) {
                q.subresource = streams[i];
                add_rule(rules, api, u, q, stream_verbs);
            }
            q.subresource = "eviction";
            add_rule(rules, api, u, q, create_only);
        }
    }
    for (const review_kind_t *k = kinds; k->group; k++)
        add_rule(rules, api, u, (sl_authz_req_t){.api_group = k->group, .resource = k->resource},
                 create_only);
}

static json_t *nonresource_rules(sl_api_t *api, const sl_auth_user_t *u)
{
    static const char *const urls[] = {"/api",     "/api/*",     "/apis",    "/apis/*",
                                       "/healthz", "/livez",     "/readyz",  "/version",
                                       "/openapi", "/openapi/*", "/metrics", NULL};
    json_t *ok = json_array();
    for (size_t i = 0; urls[i]; i++)
        if (granted(api, u, &(sl_authz_req_t){.verb = "get", .path = urls[i]}))
            json_array_append_new(ok, json_string(urls[i]));
    json_t *rules = json_array();
    if (json_array_size(ok))
        json_array_append_new(rules,
                              json_pack("{s:[s], s:o}", "verbs", "get", "nonResourceURLs", ok));
    else
        json_decref(ok);
    return rules;
}

static json_t *rules_status(sl_api_t *api, const sl_auth_user_t *u, json_t *spec)
{
    const char *ns = jstr(spec, "namespace");
    /* one probe through the same code: may this user do any verb on
     * anything (adminGroups)? then kube's one wildcard rule */
    sl_authz_req_t all = {.verb = "*", .api_group = "*", .resource = "*", .namespace = ns};
    if (granted(api, u, &all))
        return json_pack("{s:[{s:[s], s:[s], s:[s]}], s:[{s:[s], s:[s]}], s:b}", "resourceRules",
                         "verbs", "*", "apiGroups", "*", "resources", "*", "nonResourceRules",
                         "verbs", "*", "nonResourceURLs", "*", "incomplete", 0);
    json_t *rr = json_array();
    resource_rules(rr, api, u, *ns ? ns : NULL);
    return json_pack("{s:o, s:o, s:b}", "resourceRules", rr, "nonResourceRules",
                     nonresource_rules(api, u), "incomplete", 0);
}

static json_t *user_info(const sl_auth_user_t *u)
{
    json_t *g = json_array();
    for (size_t i = 0; i < u->ngroups; i++)
        json_array_append_new(g, json_string(u->groups[i]));
    json_t *info = json_pack("{s:s, s:o}", "username", u->name, "groups", g);
    if (u->uid && *u->uid)
        json_object_set_new(info, "uid", json_string(u->uid));
    return info;
}

/* SubjectAccessReview: the user the spec names, not the caller */
static json_t *subject_status(sl_api_t *api, json_t *spec)
{
    const char *name = jstr(spec, "user");
    json_t *jg = json_object_get(spec, "groups");
    sl_argv_t groups = SL_ARGV_INIT;
    size_t i;
    json_t *v;
    json_array_foreach(jg, i, v) if (json_is_string(v)) sl_argv_add(&groups, json_string_value(v));
    json_t *st = NULL;
    if (*name || groups.n) {
        sl_auth_user_t *u =
            sl_auth_user_create(name, jstr(spec, "uid"), (const char *const *)groups.v);
        st = access_status(api, u, spec);
        sl_auth_user_destroy(u);
    }
    sl_argv_free(&groups);
    return st;
}

static const sl_auth_user_t *caller(api_req_t *r, sl_auth_user_t *dev)
{
    return r->user ? r->user : dev; /* development mode: no identity */
}

static json_t *answer(api_req_t *r, const review_kind_t *k, json_t *spec)
{
    static char dev_name[] = "system:anonymous", no_uid[] = "";
    static char *dev_groups[] = {NULL};
    sl_auth_user_t dev = {dev_name, no_uid, dev_groups, 0};
    const sl_auth_user_t *u = caller(r, &dev);
    if (!strcmp(k->resource, "selfsubjectaccessreviews"))
        return access_status(r->api, u, spec);
    if (!strcmp(k->resource, "selfsubjectrulesreviews"))
        return rules_status(r->api, u, spec);
    if (!strcmp(k->resource, "subjectaccessreviews"))
        return subject_status(r->api, spec);
    return json_pack("{s:o}", "userInfo", user_info(u));
}

static enum MHD_Result invalid(api_req_t *r, const review_kind_t *k)
{
    const char *why =
        !strcmp(k->resource, "subjectaccessreviews")
            ? "spec: exactly one of resourceAttributes or nonResourceAttributes, a verb, and a "
              "user or a group must be given"
            : "spec: exactly one of resourceAttributes or nonResourceAttributes, and a verb, "
              "must be given";
    char *msg = sl_xasprintf("%s.%s is invalid: %s", k->kind, k->group, why);
    enum MHD_Result m = api_reply_status(r, sl_kube_status(422, "Invalid", msg, json_object()));
    free(msg);
    return m;
}

enum MHD_Result api_handle_review(api_req_t *r, const api_path_t *p, const char *group,
                                  const char *version, const char *resource)
{
    const review_kind_t *k = find_kind(group, version, resource);
    if (!k || p->ns || p->name || p->sub || p->watch_prefix)
        return api_reply_status(r, sl_kube_status_not_found_url());
    if (strcmp(r->method, "POST") != 0)
        return api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    const char *ct = api_header(r, "Content-Type");
    bool yaml = ct && !strncmp(ct, "application/yaml", 16);
    bool proto = ct && !strncmp(ct, "application/vnd.kubernetes.protobuf", 35);
    sl_error_t err = SL_ERROR_INIT;
    json_t *obj = proto ? api_pb_decode(r->body.data, r->body.len, &err)
                        : api_parse_body(r->body.data, r->body.len, yaml, &err);
    if (!obj)
        return api_reply_error(r, NULL, NULL, &err);
    json_t *spec = json_object_get(obj, "spec");
    json_t *status = answer(r, k, spec);
    enum MHD_Result m =
        status ? api_reply_json(r, 201, reply_object(k, spec, status)) : invalid(r, k);
    json_decref(obj);
    return m;
}
