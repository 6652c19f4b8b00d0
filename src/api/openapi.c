/* openapi.c — /openapi/v3: the index and one document per group-version.
 *
 * Each document has, for each kind, the operations of its paths and the
 * component schemas of Kubernetes (openapi_schemas.c, generated with the
 * descriptions from a pinned package: `make openapi`), so `kubectl explain`
 * answers. A document's text is built once and served as it is; its hash
 * (SHA-512, as kube-openapi's) names it in the index (?hash=), and a
 * request carrying the right hash may be cached for good (Cache-Control
 * immutable), as from kube-apiserver.
 *
 * What kubectl needs for writes: for each kind a PATCH operation carrying
 * x-kubernetes-group-version-kind and a fieldValidation query parameter.
 * Then `kubectl apply`/`create` at the default --validate=strict leave
 * validation to the server (fieldValidation=Strict).
 *
 * The PATCH operations deliberately carry no requestBody: kubectl then
 * computes client-side apply patches from its built-in Go types (exact
 * strategic-merge metadata, the one kubectl's version was built with)
 * instead of from these schemas.
 *
 * /openapi/v2: kubectl validates a manifest of kind v1 List on the client,
 * always against the v2 document (protobuf). An empty document (no
 * definitions) makes it skip that check ("resource is not present, let's
 * just skip validation"); the List's items are then validated by the
 * server like any object. It also keeps kubectl apply from computing
 * patches from v2 definitions (it prefers those to its built-in types). */
#include "api/crd.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/openapi_schemas.h"
#include "api/resource.h"
#include "common/buf.h"
#include "kube/status.h"

#include <gnutls/crypto.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* The "paths" of group/version's document. */
static json_t *gv_paths(const char *group, const char *version)
{
    json_t *paths = json_object();
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
    }
    return paths;
}

/* One served document: built once, kept for the process. */
typedef struct gv_doc {
    char key[160]; /* "api/v1" or "apis/G/V" */
    char *text;
    size_t len;
    char hash[129]; /* SHA-512 of text, upper-case hex */
} gv_doc_t;

static gv_doc_t docs[API_MAX_RESOURCES];
static size_t ndocs;
static pthread_once_t docs_once = PTHREAD_ONCE_INIT;

static const char *gv_schemas(const char *group, const char *version, size_t *len)
{
    const char *crd = api_crd_gv_schemas(group, version, len);
    if (crd)
        return crd;
    for (const api_openapi_schemas_t *s = api_openapi_schemas; s->group; s++)
        if (!strcmp(s->group, group) && !strcmp(s->version, version)) {
            *len = s->len;
            return s->json;
        }
    *len = 2;
    return "{}";
}

static void gv_build(gv_doc_t *d, const char *group, const char *version)
{
    json_t *paths = gv_paths(group, version);
    char *ptext = json_dumps(paths, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(paths);
    size_t slen;
    const char *schemas = gv_schemas(group, version, &slen);
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "{\"components\":{\"schemas\":");
    sl_buf_append(&b, schemas, slen);
    sl_buf_puts(&b, "},\"info\":{\"title\":\"Kubernetes\",\"version\":\"v1.32.0\"},"
                    "\"openapi\":\"3.0.0\",\"paths\":");
    sl_buf_puts(&b, ptext ? ptext : "{}");
    sl_buf_puts(&b, "}\n");
    free(ptext);
    d->len = b.len;
    d->text = sl_buf_steal(&b);
    unsigned char sum[64];
    gnutls_hash_fast(GNUTLS_DIG_SHA512, d->text, d->len, sum);
    for (size_t i = 0; i < sizeof(sum); i++)
        snprintf(d->hash + 2 * i, 3, "%02X", sum[i]);
}

static void docs_build(void)
{
    for (const api_resource_t *x = api_resources; x->name && ndocs < API_MAX_RESOURCES; x++) {
        char key[160];
        if (!*x->group)
            snprintf(key, sizeof(key), "api/%s", x->version);
        else
            snprintf(key, sizeof(key), "apis/%s/%s", x->group, x->version);
        bool seen = false;
        for (size_t i = 0; i < ndocs; i++)
            seen |= !strcmp(docs[i].key, key);
        if (seen)
            continue;
        snprintf(docs[ndocs].key, sizeof(docs[ndocs].key), "%s", key);
        gv_build(&docs[ndocs++], x->group, x->version);
    }
}

static const gv_doc_t *doc_find(const char *key)
{
    pthread_once(&docs_once, docs_build);
    for (size_t i = 0; i < ndocs; i++)
        if (!strcmp(docs[i].key, key))
            return &docs[i];
    return NULL;
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

/* The serverRelativeURL of d, as the index lists it. */
static void doc_url(const gv_doc_t *d, char *url, size_t len)
{
    snprintf(url, len, "/openapi/v3/%.159s?hash=%.128s", d->key, d->hash);
}

/* As kube-openapi's handler3: the document with an ETag (its hash); with
 * ?hash= of this document, cacheable for good (public, immutable, a year);
 * with a stale hash, a 301 to the current URL; If-None-Match: 304. */
static enum MHD_Result serve_doc(api_req_t *r, const gv_doc_t *d)
{
    char etag[132], url[512], expires[64];
    snprintf(etag, sizeof(etag), "\"%s\"", d->hash);
    doc_url(d, url, sizeof(url));
    const char *hash = api_query(r, "hash");
    if (hash && *hash && strcmp(hash, d->hash)) {
        const char *h[] = {MHD_HTTP_HEADER_LOCATION, url, NULL};
        return api_reply_persistent(r, 301, "text/plain; charset=utf-8", "", 0, h);
    }
    const char *h[10] = {MHD_HTTP_HEADER_ETAG, etag, NULL};
    if (hash && *hash) { /* only then, as kube-openapi */
        time_t later = time(NULL) + 365 * 24 * 3600;
        struct tm tm;
        strftime(expires, sizeof(expires), "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&later, &tm));
        const char *more[] = {MHD_HTTP_HEADER_VARY,
                              "Accept",
                              MHD_HTTP_HEADER_CACHE_CONTROL,
                              "public, immutable",
                              MHD_HTTP_HEADER_EXPIRES,
                              expires,
                              NULL};
        memcpy(h + 2, more, sizeof(more));
    }
    const char *inm = api_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);
    if (inm && !strcmp(inm, etag))
        return api_reply_persistent(r, 304, NULL, "", 0, h);
    return api_reply_persistent(r, 200, "application/json", d->text, d->len, h);
}

enum MHD_Result api_serve_openapi(api_req_t *r, const char *rest)
{
    if (!*rest) {
        pthread_once(&docs_once, docs_build);
        json_t *paths = json_object();
        for (size_t i = 0; i < ndocs; i++) {
            char url[512];
            doc_url(&docs[i], url, sizeof(url));
            json_object_set_new(paths, docs[i].key, json_pack("{s:s}", "serverRelativeURL", url));
        }
        return api_reply_json(r, 200, json_pack("{s:o}", "paths", paths));
    }
    const gv_doc_t *d = doc_find(rest);
    if (!d)
        return api_reply_status(r, sl_kube_status_not_found_url());
    return serve_doc(r, d);
}
