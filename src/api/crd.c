/* crd.c — structural-schema walks of the served custom resources (crd.h). */
#include "api/crd.h"
#include "api/openapi_schemas.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/xalloc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CRD_GV_MAX 8
#define CRD_DEPTH_MAX 64

static struct {
    const api_openapi_schemas_t *src;
    json_t *schemas; /* parsed src->json */
    char *doc;       /* with the apimachinery definitions */
    size_t len;
} gvs[CRD_GV_MAX];
static size_t ngvs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* the core document's io.k8s.apimachinery.* definitions */
static json_t *apimachinery(void)
{
    json_t *out = json_object();
    for (const api_openapi_schemas_t *s = api_openapi_schemas; s->group; s++) {
        if (*s->group || strcmp(s->version, "v1"))
            continue;
        json_t *all = json_loadb(s->json, s->len, 0, NULL);
        const char *k;
        json_t *v;
        json_object_foreach(all, k, v) if (!strncmp(k, "io.k8s.apimachinery.", 20))
            json_object_set(out, k, v);
        json_decref(all);
    }
    return out;
}

static void load(void)
{
    json_t *am = apimachinery();
    for (const api_openapi_schemas_t *s = api_crd_schemas; s->group && ngvs < CRD_GV_MAX; s++) {
        gvs[ngvs].src = s;
        gvs[ngvs].schemas = json_loadb(s->json, s->len, 0, NULL);
        json_t *doc = json_deep_copy(gvs[ngvs].schemas);
        json_object_update_missing(doc, am);
        gvs[ngvs].doc = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
        gvs[ngvs].len = gvs[ngvs].doc ? strlen(gvs[ngvs].doc) : 0;
        json_decref(doc);
        ngvs++;
    }
    json_decref(am);
}

static size_t gv_find(const char *group, const char *version)
{
    pthread_once(&once, load);
    for (size_t i = 0; i < ngvs; i++)
        if (!strcmp(gvs[i].src->group, group) && !strcmp(gvs[i].src->version, version))
            return i;
    return ngvs;
}

const char *api_crd_gv_schemas(const char *group, const char *version, size_t *len)
{
    size_t i = gv_find(group, version);
    if (i == ngvs || !gvs[i].doc)
        return NULL;
    *len = gvs[i].len;
    return gvs[i].doc;
}

json_t *api_crd_schema(const char *group, const char *version, const char *kind)
{
    size_t i = gv_find(group, version);
    if (i == ngvs)
        return NULL;
    const char *k;
    json_t *v;
    json_object_foreach(gvs[i].schemas, k, v)
    {
        const char *dot = strrchr(k, '.');
        if (dot && !strcmp(dot + 1, kind))
            return v;
    }
    return NULL;
}

/* ---- the walks ---- */

typedef struct walk {
    json_t *unknown; /* pruning: `unknown field` texts, or NULL */
    sl_error_t *err; /* validation: field errors, or NULL */
} walk_t;

static void walk(walk_t *w, json_t *s, json_t *v, const char *prune_path, const char *path,
                 int depth);

static const char *type_of(json_t *v)
{
    if (json_is_object(v))
        return "object";
    if (json_is_array(v))
        return "array";
    if (json_is_string(v))
        return "string";
    if (json_is_integer(v))
        return "integer";
    if (json_is_real(v))
        return "number";
    if (json_is_boolean(v))
        return "boolean";
    return "null";
}

/* kube-openapi's type check: "in body must be of type T: \"GOT\"" */
static bool type_ok(walk_t *w, json_t *s, json_t *v, const char *path)
{
    const char *want = json_string_value(json_object_get(s, "type"));
    if (json_is_true(json_object_get(s, "x-kubernetes-int-or-string")))
        return json_is_integer(v) || json_is_string(v) || json_is_null(v);
    if (!want || json_is_null(v))
        return true;
    const char *got = type_of(v);
    bool ok = !strcmp(want, got) || (!strcmp(want, "number") && json_is_integer(v));
    if (!ok && w->err) {
        char *d = sl_xasprintf("%s in body must be of type %s: \"%s\"", path, want, got);
        sl_err_field(w->err, SL_FE_INVALID, path, got, d);
        free(d);
    }
    return ok;
}

static void required(walk_t *w, json_t *s, json_t *obj, const char *path)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(s, "required"), i, r)
    {
        const char *k = json_string_value(r);
        if (w->err && k && !json_object_get(obj, k)) {
            char *p = *path ? sl_xasprintf("%s.%s", path, k) : sl_xstrdup(k);
            sl_err_field_none(w->err, SL_FE_REQUIRED, p, "");
            free(p);
        }
    }
}

static void walk_object(walk_t *w, json_t *s, json_t *obj, const char *pp, const char *path,
                        int depth)
{
    json_t *props = json_object_get(s, "properties");
    json_t *add = json_object_get(s, "additionalProperties");
    const char *k;
    json_t *v;
    required(w, s, obj, path);
    json_object_foreach(obj, k, v)
    {
        if (!depth && !strcmp(k, "metadata"))
            continue;
        json_t *sub = json_object_get(props, k);
        bool is_map = !sub && json_is_object(add);
        char *p2 = *pp ? sl_xasprintf("%s.%s", pp, k) : sl_xstrdup(k);
        char *f2 = *path ? sl_xasprintf("%s.%s", path, k) : sl_xstrdup(k);
        if (sub || is_map)
            walk(w, sub ? sub : add, v, p2, f2, depth + 1);
        else if (w->unknown)
            json_array_append_new(w->unknown, json_sprintf("unknown field \"%s\"", p2));
        free(p2);
        free(f2);
    }
}

static void walk(walk_t *w, json_t *s, json_t *v, const char *pp, const char *path, int depth)
{
    if (!json_is_object(s) || depth > CRD_DEPTH_MAX || !type_ok(w, s, v, path))
        return;
    if (json_is_true(json_object_get(s, "x-kubernetes-preserve-unknown-fields")))
        return;
    if (json_is_object(v)) {
        walk_object(w, s, v, pp, path, depth);
    } else if (json_is_array(v) && json_is_object(json_object_get(s, "items"))) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            char *p2 = sl_xasprintf("%s[%zu]", pp, i), *f2 = sl_xasprintf("%s.%zu", path, i);
            walk(w, json_object_get(s, "items"), x, p2, f2, depth + 1);
            free(p2);
            free(f2);
        }
    }
}

void api_crd_unknown(json_t *schema, json_t *obj, json_t *unknown)
{
    walk_t w = {unknown, NULL};
    walk(&w, schema, obj, "", "", 0);
}

void api_crd_validate(json_t *schema, json_t *obj, sl_error_t *err)
{
    walk_t w = {NULL, err};
    walk(&w, schema, obj, "", "", 0);
}
