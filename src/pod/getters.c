/* getters.c — typed access to the Pod JSON: a wrong type is a field error at its path. */
#include "pod/internal.h"

#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

void pod_type_error(pod_ctx_t *c, const json_t *v, const char *path, const char *key,
                    const char *want)
{
    char *raw = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    char *d = sl_xasprintf("must be of type %s", want);
    sl_err_invalid(c->errs, raw ? raw : "", d, "%s%s%s", path, *path ? "." : "", key);
    free(d);
    free(raw);
}

const char *pod_str(pod_ctx_t *c, const json_t *o, const char *key, const char *path)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        pod_type_error(c, v, path, key, "string");
        return NULL;
    }
    return json_string_value(v);
}

const json_t *pod_obj(pod_ctx_t *c, const json_t *o, const char *key, const char *path)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_object(v)) {
        pod_type_error(c, v, path, key, "object");
        return NULL;
    }
    return v;
}

const json_t *pod_arr(pod_ctx_t *c, const json_t *o, const char *key, const char *path)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_array(v)) {
        pod_type_error(c, v, path, key, "array");
        return NULL;
    }
    return v;
}

int64_t pod_int(pod_ctx_t *c, const json_t *o, const char *key, const char *path, int64_t def)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return def;
    if (!json_is_integer(v)) {
        pod_type_error(c, v, path, key, "integer");
        return def;
    }
    return (int64_t)json_integer_value(v);
}

int pod_bool(pod_ctx_t *c, const json_t *o, const char *key, const char *path, int def)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return def;
    if (!json_is_boolean(v)) {
        pod_type_error(c, v, path, key, "boolean");
        return def;
    }
    return json_is_true(v);
}

sl_pod_kv_t *pod_strmap(pod_ctx_t *c, const json_t *o, const char *key, const char *path, size_t *n)
{
    const json_t *m = pod_obj(c, o, key, path);
    *n = 0;
    if (!m)
        return NULL;
    sl_pod_kv_t *kv = pod_alloc(c->pod, json_object_size(m), sizeof(*kv));
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)m, k, v)
    {
        if (!json_is_string(v)) {
            char *p = sl_xasprintf("%s%s%s", path, *path ? "." : "", key);
            char *kk = sl_xasprintf("%s", k);
            pod_type_error(c, v, p, kk, "string");
            free(p);
            free(kk);
            continue;
        }
        kv[*n].key = k;
        kv[*n].value = json_string_value(v);
        (*n)++;
    }
    return kv;
}

void pod_check_mode(pod_ctx_t *c, int64_t mode, const char *path)
{
    if (mode != SL_POD_UNSET && (mode < 0 || mode > 0777))
        sl_err_field_int(c->errs, SL_FE_INVALID, path, mode,
                         "must be a number between 0 and 0777 (octal), both inclusive");
}

void pod_check_relpath(pod_ctx_t *c, const char *v, const char *path)
{
    if (v[0] == '/') {
        sl_err_invalid(c->errs, v, "must be a relative path", "%s", path);
        return;
    }
    /* '..' as a whole path element */
    const char *p = v;
    while (*p) {
        const char *s = strchr(p, '/');
        size_t n = s ? (size_t)(s - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            sl_err_invalid(c->errs, v, "must not contain '..'", "%s", path);
            return;
        }
        if (!s)
            break;
        p = s + 1;
    }
}
