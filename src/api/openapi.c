/* openapi.c — /openapi/v3: the index and one document per group-version.
 *
 * What kubectl needs from them: for each kind a PATCH
 * operation carrying x-kubernetes-group-version-kind and a fieldValidation
 * query parameter. Then `kubectl apply`/`create` at the default
 * --validate=strict leave validation to the server (fieldValidation=Strict).
 *
 * The PATCH operations deliberately carry no requestBody: kubectl then
 * computes client-side apply patches from its built-in Go types (exact
 * strategic-merge metadata) instead of from our schemas, which are empty.
 *
 * /openapi/v2: kubectl validates a manifest of kind v1 List on the client,
 * always against the v2 document (protobuf). An empty document (no
 * definitions) makes it skip that check ("resource is not present, let's
 * just skip validation"); the List's items are then validated by the
 * server like any object. */
#include "api/internal.h"
#include "common/version.h"
#include "kube/status.h"

#include <stdio.h>
#include <string.h>

static json_t *gvk(const api_resource_t *x)
{
    return json_pack("{s:s, s:s, s:s}", "group", x->group, "version", x->version, "kind", x->kind);
}

static json_t *param(const char *name, const char *in)
{
    return json_pack("{s:s, s:s, s:{s:s, s:b}}", "name", name, "in", in, "schema", "type", "string",
                     "uniqueItems", 1);
}

static json_t *op(const api_resource_t *x, const char *action, bool write)
{
    json_t *params = json_array();
    if (write) {
        json_array_append_new(params, param("dryRun", "query"));
        json_array_append_new(params, param("fieldManager", "query"));
        json_array_append_new(params, param("fieldValidation", "query"));
    }
    if (!strcmp(action, "patch"))
        json_array_append_new(params, param("force", "query"));
    char id[128];
    snprintf(id, sizeof(id), "%s%s", action, x->kind);
    return json_pack("{s:s, s:o, s:s, s:o, s:{s:{s:s}}}", "operationId", id,
                     "x-kubernetes-group-version-kind", gvk(x), "x-kubernetes-action", action,
                     "parameters", params, "responses", "200", "description", "OK");
}

static char *gv_prefix(const char *group, const char *version, char *buf, size_t len)
{
    if (!*group)
        snprintf(buf, len, "/api/%s", version);
    else
        snprintf(buf, len, "/apis/%s/%s", group, version);
    return buf;
}

static json_t *gv_document(const char *group, const char *version)
{
    json_t *paths = json_object();
    json_t *schemas = json_object();
    char pre[160], path[320];
    gv_prefix(group, version, pre, sizeof(pre));
    for (const api_resource_t *x = api_resources; x->name; x++) {
        if (strcmp(x->group, group) || strcmp(x->version, version))
            continue;
        const char *ns = x->namespaced ? "/namespaces/{namespace}" : "";
        snprintf(path, sizeof(path), "%s%s/%s", pre, ns, x->name);
        json_t *coll = json_object();
        if (x->verbs & API_V_LIST)
            json_object_set_new(coll, "get", op(x, "list", false));
        if (x->verbs & API_V_CREATE)
            json_object_set_new(coll, "post", op(x, "post", true));
        json_object_set_new(paths, path, coll);
        snprintf(path, sizeof(path), "%s%s/%s/{name}", pre, ns, x->name);
        json_t *item = json_object();
        if (x->verbs & API_V_GET)
            json_object_set_new(item, "get", op(x, "get", false));
        if (x->verbs & API_V_UPDATE)
            json_object_set_new(item, "put", op(x, "put", true));
        if (x->verbs & API_V_PATCH)
            json_object_set_new(item, "patch", op(x, "patch", true));
        if (x->verbs & API_V_DELETE)
            json_object_set_new(item, "delete", op(x, "delete", false));
        json_object_set_new(paths, path, item);
        char sname[160];
        snprintf(sname, sizeof(sname), "io.k8s.api.%s.%s.%s", *group ? group : "core", version,
                 x->kind);
        json_object_set_new(schemas, sname,
                            json_pack("{s:s, s:s, s:[o]}", "type", "object", "description", "",
                                      "x-kubernetes-group-version-kind", gvk(x)));
    }
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o}}", "openapi", "3.0.0", "info", "title",
                     "Kubernetes", "version", "v1.32.0", "paths", paths, "components", "schemas",
                     schemas);
}

/* The gnostic OpenAPIv2 Document {swagger=1: "2.0", info=2: {title=1,
 * version=2}} in protobuf, as kubectl asks for it. */
enum MHD_Result api_serve_openapi_v2(api_req_t *r)
{
    static const char doc[] = "\x0a\x03"
                              "2.0"
                              "\x12\x15"
                              "\x0a\x0a"
                              "Kubernetes"
                              "\x12\x07"
                              "v1.32.0";
    return api_reply_bytes(r, 200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                           doc, sizeof(doc) - 1);
}

/* A stable hash for the serverRelativeURL (kubectl caches by it). */
static unsigned long long fnv1a(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

enum MHD_Result api_serve_openapi(api_req_t *r, const char *rest)
{
    if (!*rest) {
        json_t *paths = json_object();
        for (const api_resource_t *x = api_resources; x->name; x++) {
            char key[160];
            if (!*x->group)
                snprintf(key, sizeof(key), "api/%s", x->version);
            else
                snprintf(key, sizeof(key), "apis/%s/%s", x->group, x->version);
            if (json_object_get(paths, key))
                continue;
            json_t *doc = gv_document(x->group, x->version);
            char *text = json_dumps(doc, JSON_COMPACT);
            json_decref(doc);
            char url[320];
            snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%016llX", key,
                     fnv1a(text ? text : "") ^ fnv1a(SLURMLINK_VERSION));
            free(text);
            json_object_set_new(paths, key, json_pack("{s:s}", "serverRelativeURL", url));
        }
        return api_reply_json(r, 200, json_pack("{s:o}", "paths", paths));
    }
    /* "api/v1" or "apis/G/V" */
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", rest);
    const char *group = NULL, *version = NULL;
    char *slash = strchr(buf, '/');
    if (slash) {
        *slash = '\0';
        if (!strcmp(buf, "api")) {
            group = "";
            version = slash + 1;
        } else if (!strcmp(buf, "apis")) {
            char *s2 = strchr(slash + 1, '/');
            if (s2) {
                *s2 = '\0';
                group = slash + 1;
                version = s2 + 1;
            }
        }
    }
    if (!group || strchr(version, '/'))
        return api_reply_status(r, sl_kube_status_not_found_url());
    bool served = false;
    for (const api_resource_t *x = api_resources; x->name; x++)
        if (!strcmp(x->group, group) && !strcmp(x->version, version))
            served = true;
    if (!served)
        return api_reply_status(r, sl_kube_status_not_found_url());
    return api_reply_json(r, 200, gv_document(group, version));
}
