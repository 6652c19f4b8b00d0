/* discovery.c — /version, and API discovery in both forms kubectl knows:
 * aggregated (apidiscovery.k8s.io/v2, two requests in all, with the exact
 * Content-Type kubectl insists on) and legacy (/api, /apis, /api/v1, ...).
 * Everything is generated from the resource table (resource.c). */
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/nodemetrics.h"
#include "api/resource.h"
#include "api/review.h"
#include "common/version.h"
#include "http/media.h"
#include "kube/status.h"

#include <string.h>

static const char *const verb_names[] = {"create", "delete", "deletecollection", "get",
                                         "list",   "patch",  "update",           "watch"};

static json_t *verbs_json(unsigned verbs)
{
    json_t *a = json_array();
    for (int i = 0; i < 8; i++)
        if (verbs & (1u << i))
            json_array_append_new(a, json_string(verb_names[i]));
    return a;
}

static json_t *strings_json(const char *const *v, size_t max)
{
    json_t *a = json_array();
    for (size_t i = 0; i < max && v[i]; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static unsigned status_verbs(const api_resource_t *r)
{
    unsigned v = API_V_GET;
    if (r->verbs & API_V_UPDATE)
        v |= API_V_UPDATE | API_V_PATCH;
    return v;
}

enum MHD_Result api_serve_version(api_req_t *r)
{
    json_t *v = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "major", "1", "minor", "32",
        /* kubectl's dispatcher picks kubectl 1.32 from minor; the build
         * metadata keeps gitVersion valid semver */
        "gitVersion", "v1.32.0+slurmlink." SLURMLINK_VERSION, "gitCommit", "", "gitTreeState",
        "clean", "buildDate", "", "goVersion", "", "compiler", "gc", "platform", "linux/amd64");
    return api_reply_json(r, 200, v);
}

/* Which discovery form the client asked for: 2 = apidiscovery v2,
 * 1 = v2beta1, 0 = legacy JSON. */
static int discovery_form(api_req_t *r)
{
    http_media_t m[8];
    int n = http_accept_parse(api_header(r, "Accept"), m, 8);
    for (int i = 0; i < n; i++) {
        if (!strcmp(m[i].type, "application/json") && !strcmp(m[i].as, "APIGroupDiscoveryList") &&
            !strcmp(m[i].g, "apidiscovery.k8s.io")) {
            if (!strcmp(m[i].v, "v2"))
                return 2;
            if (!strcmp(m[i].v, "v2beta1"))
                return 1;
            continue;
        }
        if (http_media_json(&m[i]))
            return 0;
    }
    return 0;
}

static json_t *agg_resource(const api_resource_t *x)
{
    json_t *kind = json_pack("{s:s, s:s, s:s}", "group", x->group, "version", x->version, "kind",
                             x->kind);
    json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:o}", "resource", x->name, "responseKind", kind,
                          "scope", x->namespaced ? "Namespaced" : "Cluster", "singularResource",
                          x->singular, "verbs", verbs_json(x->verbs));
    if (x->short_names[0])
        json_object_set_new(o, "shortNames", strings_json(x->short_names, 4));
    if (x->categories[0])
        json_object_set_new(o, "categories", strings_json(x->categories, 3));
    json_t *subs = json_array();
    if (x->log_sub)
        json_array_append_new(subs, json_pack("{s:s, s:O, s:[s]}", "subresource", "log",
                                              "responseKind", kind, "verbs", "get"));
    if (x->log_sub) /* pods: kubectl drain looks for policy/v1 Eviction here */
        json_array_append_new(subs, json_pack("{s:s, s:{s:s, s:s, s:s}, s:[s]}", "subresource",
                                              "eviction", "responseKind", "group", "policy",
                                              "version", "v1", "kind", "Eviction", "verbs",
                                              "create"));
    if (x->status_sub)
        json_array_append_new(subs, json_pack("{s:s, s:O, s:o}", "subresource", "status",
                                              "responseKind", kind, "verbs",
                                              verbs_json(status_verbs(x))));
    if (x->ops && x->ops->scale_sub) /* kubectl scale finds autoscaling/v1 Scale here */
        json_array_append_new(subs, json_pack("{s:s, s:{s:s, s:s, s:s}, s:o}", "subresource",
                                              "scale", "responseKind", "group", "autoscaling",
                                              "version", "v1", "kind", "Scale", "verbs",
                                              verbs_json(status_verbs(x))));
    if (json_array_size(subs))
        json_object_set_new(o, "subresources", subs);
    else
        json_decref(subs);
    return o;
}

/* Aggregated discovery of the core group (core = true) or of all others. */
static json_t *aggregated(bool core, int form)
{
    json_t *items = json_array();
    for (const api_resource_t *x = api_resources; x->name; x++) {
        if (core != !*x->group)
            continue;
        /* find or add the group item, then its version */
        json_t *item = NULL, *ver = NULL;
        size_t i;
        json_t *it;
        json_array_foreach(items, i, it)
        {
            if (!strcmp(json_string_value(json_object_get(json_object_get(it, "metadata"), "name")),
                        x->group))
                item = it;
        }
        if (!item) {
            item = json_pack("{s:{s:s, s:n}, s:[]}", "metadata", "name", x->group,
                             "creationTimestamp", "versions");
            json_array_append_new(items, item);
        }
        json_t *versions = json_object_get(item, "versions");
        json_array_foreach(versions, i, it) if (!strcmp(
            json_string_value(json_object_get(it, "version")), x->version)) ver = it;
        if (!ver) {
            ver = json_pack("{s:s, s:[], s:s}", "version", x->version, "resources", "freshness",
                            "Current");
            json_array_append_new(versions, ver);
        }
        json_array_append_new(json_object_get(ver, "resources"), agg_resource(x));
    }
    if (!core) {
        api_review_aggregated(items);
        api_nodemetrics_aggregated(items);
    }
    return json_pack("{s:s, s:s, s:{}, s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                     form == 2 ? "apidiscovery.k8s.io/v2" : "apidiscovery.k8s.io/v2beta1",
                     "metadata", "items", items);
}

static enum MHD_Result reply_aggregated(api_req_t *r, bool core, int form)
{
    /* kubectl only treats the body as aggregated discovery when the
     * Content-Type says so, exactly (kubectl 1.32 checks the Content-Type exactly) */
    const char *ct = form == 2
                         ? "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
                         : "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    return api_reply_json_ct(r, 200, ct, aggregated(core, form));
}

enum MHD_Result api_serve_api_versions(api_req_t *r)
{
    int form = discovery_form(r);
    if (form)
        return reply_aggregated(r, true, form);
    json_t *v = json_pack("{s:s, s:[s], s:[{s:s, s:s}]}", "kind", "APIVersions", "versions", "v1",
                          "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress",
                          r->api->server_address);
    return api_reply_json(r, 200, v);
}

static json_t *group_json(const char *group)
{
    json_t *versions = json_array();
    for (const api_resource_t *x = api_resources; x->name; x++) {
        if (strcmp(x->group, group))
            continue;
        char gv[128];
        api_resource_api_version(x, gv, sizeof(gv));
        bool seen = false;
        size_t i;
        json_t *it;
        json_array_foreach(versions, i, it) if (!strcmp(
            json_string_value(json_object_get(it, "groupVersion")), gv)) seen = true;
        if (!seen)
            json_array_append_new(versions, json_pack("{s:s, s:s}", "groupVersion", gv, "version",
                                                      x->version));
    }
    json_t *pref = json_deep_copy(json_array_get(versions, 0));
    return json_pack("{s:s, s:o, s:o}", "name", group, "versions", versions, "preferredVersion",
                     pref);
}

enum MHD_Result api_serve_group_list(api_req_t *r)
{
    int form = discovery_form(r);
    if (form)
        return reply_aggregated(r, false, form);
    json_t *groups = json_array();
    for (const api_resource_t *x = api_resources; x->name; x++) {
        if (!*x->group)
            continue;
        bool seen = false;
        for (const api_resource_t *y = api_resources; y != x; y++)
            if (!strcmp(y->group, x->group))
                seen = true;
        if (!seen)
            json_array_append_new(groups, group_json(x->group));
    }
    api_review_groups(groups);
    api_nodemetrics_groups(groups);
    return api_reply_json(r, 200, json_pack("{s:s, s:s, s:o}", "kind", "APIGroupList",
                                            "apiVersion", "v1", "groups", groups));
}

enum MHD_Result api_serve_group(api_req_t *r, const char *group)
{
    json_t *g = group_json(group);
    if (!json_array_size(json_object_get(g, "versions")) &&
        (api_review_group(group, NULL) || api_nodemetrics_group(group, NULL))) {
        json_t *one = json_array();
        api_review_groups(one); /* the review and metrics groups: one version each */
        api_nodemetrics_groups(one);
        for (size_t i = 0; i < json_array_size(one); i++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(one, i), "name")), group))
                json_object_update(g, json_array_get(one, i));
        json_decref(one);
    }
    json_object_set_new(g, "kind", json_string("APIGroup"));
    json_object_set_new(g, "apiVersion", json_string("v1"));
    return api_reply_json(r, 200, g);
}

enum MHD_Result api_serve_resource_list(api_req_t *r, const char *group, const char *version)
{
    json_t *list = json_array();
    char gv[128] = "";
    for (const api_resource_t *x = api_resources; x->name; x++) {
        if (strcmp(x->group, group) || strcmp(x->version, version))
            continue;
        api_resource_api_version(x, gv, sizeof(gv));
        json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", x->name, "singularName",
                              x->singular, "namespaced", x->namespaced, "kind", x->kind, "verbs",
                              verbs_json(x->verbs));
        if (x->short_names[0])
            json_object_set_new(o, "shortNames", strings_json(x->short_names, 4));
        if (x->categories[0])
            json_object_set_new(o, "categories", strings_json(x->categories, 3));
        json_array_append_new(list, o);
        char sub[128];
        if (x->log_sub) {
            snprintf(sub, sizeof(sub), "%s/log", x->name);
            json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:[s]}", "name", sub,
                                                  "singularName", "", "namespaced", x->namespaced,
                                                  "kind", x->kind, "verbs", "get"));
            snprintf(sub, sizeof(sub), "%s/eviction", x->name);
            json_array_append_new(
                list, json_pack("{s:s, s:s, s:b, s:s, s:s, s:s, s:[s]}", "name", sub,
                                "singularName", "", "namespaced", x->namespaced, "group",
                                "policy", "version", "v1", "kind", "Eviction", "verbs", "create"));
        }
        if (x->ops && x->ops->scale_sub) {
            snprintf(sub, sizeof(sub), "%s/scale", x->name);
            json_array_append_new(
                list, json_pack("{s:s, s:s, s:b, s:s, s:s, s:s, s:o}", "name", sub,
                                "singularName", "", "namespaced", x->namespaced, "group",
                                "autoscaling", "version", "v1", "kind", "Scale", "verbs",
                                verbs_json(status_verbs(x))));
        }
        if (x->status_sub) {
            snprintf(sub, sizeof(sub), "%s/status", x->name);
            json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", sub,
                                                  "singularName", "", "namespaced", x->namespaced,
                                                  "kind", x->kind, "verbs",
                                                  verbs_json(status_verbs(x))));
        }
    }
    if (api_review_group(group, version) || api_nodemetrics_group(group, version)) {
        snprintf(gv, sizeof(gv), "%s/%s", group, version);
        api_review_resources(group, version, list);
        api_nodemetrics_resources(group, version, list);
    }
    return api_reply_json(r, 200, json_pack("{s:s, s:s, s:s, s:o}", "kind", "APIResourceList",
                                            "apiVersion", "v1", "groupVersion", gv, "resources",
                                            list));
}
