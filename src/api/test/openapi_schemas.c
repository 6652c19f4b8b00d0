/* openapi_schemas — the generated component schemas (openapi_schemas.c)
 * cover what resource.c serves: each kind and its list has its schema,
 * marked with its group-version-kind, and every $ref names a schema of the
 * same document. A kind added to resource.c without `make openapi` fails
 * here. And the documents' x-kubernetes-patch-strategy / -merge-key agree
 * with the server's strategic merge (kube/mergekeys.h, internal to src/kube:
 * read here only to compare) on every type the server models. */
#include "api/openapi_schemas.h"
#include "api/crd.h"
#include "api/resource.h"
#include "common/tap.h"
#include "kube/mergekeys.h"

#include <stdbool.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static json_t *schemas_of(const char *group, const char *version)
{
    size_t len = 0;
    const char *crd = api_crd_gv_schemas(group, version, &len); /* a custom resource's */
    if (crd)
        return json_loadb(crd, len, 0, NULL);
    for (const api_openapi_schemas_t *s = api_openapi_schemas; s->group; s++)
        if (!strcmp(s->group, group) && !strcmp(s->version, version))
            return json_loadb(s->json, s->len, 0, NULL);
    return NULL;
}

/* kube-openapi's name of a kind: io.k8s.api.GROUP.VERSION.KIND, a custom
 * resource's as kube-apiserver publishes a CRD: the reversed group
 * (kubeflow.org → org.kubeflow.v1.PyTorchJob) */
static void schema_name(char *out, size_t len, const api_resource_t *x, const char *kind)
{
    size_t n = 0;
    if (!api_crd_gv_schemas(x->group, x->version, &n)) {
        /* kube's groups: io.k8s.api.batch.v1, io.k8s.api.storage.v1 (no .k8s.io) */
        const char *g = *x->group ? x->group : "core", *k8s = strstr(g, ".k8s.io");
        snprintf(out, len, "io.k8s.api.%.*s.%s.%s", (int)(k8s ? (size_t)(k8s - g) : strlen(g)), g,
                 x->version, kind);
        return;
    }
    char g[128], rev[128] = "";
    snprintf(g, sizeof(g), "%s", x->group);
    for (char *dot; (dot = strrchr(g, '.')); *dot = '\0')
        snprintf(rev + strlen(rev), sizeof(rev) - strlen(rev), "%s.", dot + 1);
    snprintf(out, len, "%s%s.%s.%s", rev, g, x->version, kind);
}

/* The kind's schema carries {group, version, kind} among its GVKs. */
static int marked(json_t *schema, const char *group, const char *version, const char *kind)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(schema, "x-kubernetes-group-version-kind"), i, g)
    {
        const char *gg = json_string_value(json_object_get(g, "group"));
        const char *gv = json_string_value(json_object_get(g, "version"));
        const char *gk = json_string_value(json_object_get(g, "kind"));
        if (gg && gv && gk && !strcmp(gg, group) && !strcmp(gv, version) && !strcmp(gk, kind))
            return 1;
    }
    return 0;
}

static void check_kind(json_t *all, const api_resource_t *x, const char *kind)
{
    char name[200];
    schema_name(name, sizeof(name), x, kind);
    json_t *s = json_object_get(all, name);
    ok(s && marked(s, x->group, x->version, kind), "%s: schema %s with its group-version-kind",
       x->name, name);
}

/* Counts the $refs below v that name no schema of all. */
static int dangling(json_t *all, json_t *v)
{
    int n = 0;
    const char *k;
    json_t *e;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, e)
        {
            if (!strcmp(k, "$ref") && json_is_string(e)) {
                const char *r = json_string_value(e);
                const char *pre = "#/components/schemas/";
                if (strncmp(r, pre, strlen(pre)) || !json_object_get(all, r + strlen(pre))) {
                    printf("#   dangling %s\n", r);
                    n++;
                }
            } else {
                n += dangling(all, e);
            }
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) n += dangling(all, e);
    }
    return n;
}

/* The schema a property names: itself ({allOf: [{$ref}]}) or its items. */
static json_t *target(json_t *all, json_t *prop)
{
    json_t *p = json_object_get(prop, "items") ? json_object_get(prop, "items") : prop;
    json_t *ref = json_object_get(p, "$ref");
    if (!ref)
        ref = json_object_get(json_array_get(json_object_get(p, "allOf"), 0), "$ref");
    const char *pre = "#/components/schemas/";
    if (!json_is_string(ref) || strncmp(json_string_value(ref), pre, strlen(pre)))
        return NULL;
    return json_object_get(all, json_string_value(ref) + strlen(pre));
}

/* Does property p's patch metadata say what the server's field f does? */
static bool same_patch(json_t *p, const struct smp_field *f)
{
    const char *st = json_string_value(json_object_get(p, "x-kubernetes-patch-strategy"));
    const char *mk = json_string_value(json_object_get(p, "x-kubernetes-patch-merge-key"));
    bool merge = f && f->strategy == SMP_MERGE;
    const char *key = f ? f->merge_key : NULL;
    if ((st && !strncmp(st, "merge", 5)) != merge)
        return false;
    return mk ? key && !strcmp(mk, key) : !key;
}

/* Fields of schema s (at path) whose patch metadata the server's type t
 * does not share, down every field t gives a type. */
static int disagree(json_t *all, json_t *s, const struct smp_type *t, const char *path)
{
    int n = 0;
    const char *k;
    json_t *p;
    json_object_foreach(json_object_get(s, "properties"), k, p)
    {
        const struct smp_field *f = sl_kube_mergekeys_field(t, k);
        if (!same_patch(p, f)) {
            printf("#   %s.%s: the document and the server's strategic merge differ\n", path, k);
            n++;
        }
        if (f && f->type) {
            char sub[256];
            snprintf(sub, sizeof(sub), "%s.%s", path, k);
            json_t *ts = target(all, p);
            n += ts ? disagree(all, ts, f->type, sub) : 1;
        }
    }
    return n;
}

int main(void)
{
    /* 4 for each of the 23 kinds served (resource.c and the registry), 1 for each of the 8
     * documents */
    tap_plan(100);
    for (const api_resource_t *x = api_resources; x->name; x++) {
        json_t *all = schemas_of(x->group, x->version);
        ok(json_is_object(all), "%s: the schemas of %s/%s are a JSON object", x->name, x->group,
           x->version);
        check_kind(all, x, x->kind);
        check_kind(all, x, x->list_kind);
        json_decref(all);
    }
    for (const api_resource_t *x = api_resources; x->name; x++) {
        json_t *all = schemas_of(x->group, x->version);
        char name[200], av[64];
        schema_name(name, sizeof(name), x, x->kind);
        json_t *s = json_object_get(all, name);
        const struct smp_type *t =
            sl_kube_mergekeys_for(api_resource_api_version(x, av, sizeof(av)), x->kind);
        is_int(s ? disagree(all, s, t, x->kind) : -1, 0,
               "%s: patch strategies and merge keys as the server merges", x->kind);
        json_decref(all);
    }
    for (const api_openapi_schemas_t *s = api_openapi_schemas; s->group; s++) {
        json_t *all = json_loadb(s->json, s->len, 0, NULL);
        is_int(dangling(all, all), 0, "%s/%s: every $ref resolves", s->group, s->version);
        json_decref(all);
    }
    for (const api_openapi_schemas_t *s = api_crd_schemas; s->group; s++) {
        json_t *all = schemas_of(s->group, s->version);
        is_int(dangling(all, all), 0,
               "%s/%s (a CRD's, with the apimachinery types): every $ref "
               "resolves",
               s->group, s->version);
        json_decref(all);
    }
    return tap_done();
}
