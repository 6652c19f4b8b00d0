/* jsonpatch.c — RFC 6902 JSON Patch (application/json-patch+json): add,
 * remove, replace, move, copy, test on RFC 6901 pointers. Error texts
 * follow evanphx/json-patch, which kube-apiserver uses.
 *
 * Bounds, as kube-apiserver's: at most API_JSONPATCH_MAX_OPS operations
 * (413), and the values `copy` duplicates may add up to at most a limit
 * (422, evanphx's AccumulatedCopySizeLimit, which kube-apiserver sets to
 * 3 MiB): a `copy` of a value into itself doubles it, so a few hundred
 * bytes of operations could otherwise build gigabytes. `add` and
 * `replace` only copy values of the patch itself, which the body limit
 * bounds. */
#include "api/jsonpatch.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Split a pointer into its last token and the parent container.
 * Returns the parent (borrowed) or NULL; *key gets the unescaped last
 * token (caller frees). */
static json_t *resolve_parent(json_t *doc, const char *ptr, char **key)
{
    *key = NULL;
    if (*ptr != '/')
        return NULL;
    json_t *cur = doc;
    const char *p = ptr + 1;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char *tok = sl_xmalloc(n + 1);
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
                tok[w++] = p[i + 1] == '0' ? '~' : '/';
                i++;
            } else {
                tok[w++] = p[i];
            }
        }
        tok[w] = '\0';
        if (!slash) {
            *key = tok;
            return cur;
        }
        json_t *next = NULL;
        if (json_is_object(cur)) {
            next = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            char *end;
            long idx = strtol(tok, &end, 10);
            if (!*end && *tok && idx >= 0)
                next = json_array_get(cur, (size_t)idx);
        }
        free(tok);
        if (!next)
            return NULL;
        cur = next;
        p = slash + 1;
    }
}

static bool array_index(json_t *arr, const char *key, bool for_add, size_t *idx)
{
    if (for_add && !strcmp(key, "-")) {
        *idx = json_array_size(arr);
        return true;
    }
    char *end;
    long i = strtol(key, &end, 10);
    if (*end || !*key || i < 0)
        return false;
    size_t max = json_array_size(arr) + (for_add ? 1 : 0);
    if ((size_t)i >= max)
        return false;
    *idx = (size_t)i;
    return true;
}

/* value is stolen. */
static int do_add(json_t *doc, const char *path, json_t *value, sl_error_t *err)
{
    char *key;
    json_t *parent = resolve_parent(doc, path, &key);
    int rc = -1;
    if (parent && json_is_object(parent)) {
        json_object_set_new(parent, key, value);
        value = NULL;
        rc = 0;
    } else if (parent && json_is_array(parent)) {
        size_t i;
        if (array_index(parent, key, true, &i)) {
            json_array_insert_new(parent, i, value);
            value = NULL;
            rc = 0;
        }
    }
    if (rc < 0)
        sl_errkindf(err, SL_ERR_INVALID,
                    "add operation does not apply: doc is missing path: \"%s\"", path);
    json_decref(value);
    free(key);
    return rc;
}

/* Detach the value at path; new reference or NULL. */
static json_t *do_take(json_t *doc, const char *path)
{
    char *key;
    json_t *parent = resolve_parent(doc, path, &key);
    json_t *v = NULL;
    if (parent && json_is_object(parent)) {
        v = json_incref(json_object_get(parent, key));
        if (v)
            json_object_del(parent, key);
    } else if (parent && json_is_array(parent)) {
        size_t i;
        if (array_index(parent, key, false, &i)) {
            v = json_incref(json_array_get(parent, i));
            json_array_remove(parent, i);
        }
    }
    free(key);
    return v;
}

static json_t *do_get(json_t *doc, const char *path)
{
    if (!*path)
        return doc;
    char *key;
    json_t *parent = resolve_parent(doc, path, &key);
    json_t *v = NULL;
    if (parent && json_is_object(parent)) {
        v = json_object_get(parent, key);
    } else if (parent && json_is_array(parent)) {
        size_t i;
        if (array_index(parent, key, false, &i))
            v = json_array_get(parent, i);
    }
    free(key);
    return v;
}

/* *out: the copy of the value at from (NULL: from is missing), counted
 * against the copy budget; -1 with err (Invalid) when that is spent. */
static int copy_value(json_t *doc, const char *from, size_t limit, size_t *copied, json_t **out,
                      sl_error_t *err)
{
    json_t *v = do_get(doc, from);
    *out = NULL;
    if (!v)
        return 0;
    *copied += json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
    if (limit && *copied > limit)
        return sl_errkindf(err, SL_ERR_INVALID,
                           "Unable to complete the copy, the accumulated size increase of "
                           "copy is %zu, exceeding the limit %zu",
                           *copied, limit);
    *out = json_deep_copy(v);
    return 0;
}

json_t *api_json_patch(json_t *doc, json_t *patch, size_t copy_limit, sl_error_t *err)
{
    if (!json_is_array(patch)) {
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "json: cannot unmarshal %s into Go value of type jsonpatch.Patch",
                    json_is_object(patch) ? "object" : "value");
        return NULL;
    }
    if (json_array_size(patch) > API_JSONPATCH_MAX_OPS) {
        sl_errkindf(err, SL_ERR_TOO_LARGE,
                    "The allowed maximum operations in a JSON patch is %d, got %zu",
                    API_JSONPATCH_MAX_OPS, json_array_size(patch));
        return NULL;
    }
    size_t copied = 0;
    json_t *out = json_deep_copy(doc);
    size_t i;
    json_t *op;
    json_array_foreach(patch, i, op)
    {
        const char *kind = json_string_value(json_object_get(op, "op"));
        const char *path = json_string_value(json_object_get(op, "path"));
        const char *from = json_string_value(json_object_get(op, "from"));
        json_t *value = json_object_get(op, "value");
        if (!kind) {
            sl_errkindf(err, SL_ERR_INVALID, "Unexpected kind: unknown");
            goto fail;
        }
        if (!path) {
            sl_errkindf(err, SL_ERR_INVALID, "%s operation missing path", kind);
            goto fail;
        }
        if (!strcmp(kind, "add")) {
            if (!value) {
                sl_errkindf(err, SL_ERR_INVALID, "add operation missing value");
                goto fail;
            }
            if (do_add(out, path, json_deep_copy(value), err) < 0)
                goto fail;
        } else if (!strcmp(kind, "remove")) {
            json_t *v = do_take(out, path);
            if (!v) {
                sl_errkindf(err, SL_ERR_INVALID,
                            "remove operation does not apply: doc is missing path: "
                            "\"%s\"",
                            path);
                goto fail;
            }
            json_decref(v);
        } else if (!strcmp(kind, "replace")) {
            if (!value) {
                sl_errkindf(err, SL_ERR_INVALID, "replace operation missing value");
                goto fail;
            }
            json_t *v = do_take(out, path);
            if (!v) {
                sl_errkindf(err, SL_ERR_INVALID,
                            "replace operation does not apply: doc is missing key: %s", path);
                goto fail;
            }
            json_decref(v);
            if (do_add(out, path, json_deep_copy(value), err) < 0)
                goto fail;
        } else if (!strcmp(kind, "move") || !strcmp(kind, "copy")) {
            if (!from) {
                sl_errkindf(err, SL_ERR_INVALID, "%s operation missing from", kind);
                goto fail;
            }
            json_t *v = NULL;
            if (!strcmp(kind, "move"))
                v = do_take(out, from);
            else if (copy_value(out, from, copy_limit, &copied, &v, err) < 0)
                goto fail;
            if (!v) {
                sl_errkindf(err, SL_ERR_INVALID,
                            "%s operation does not apply: doc is missing from path: %s", kind,
                            from);
                goto fail;
            }
            if (do_add(out, path, v, err) < 0)
                goto fail;
        } else if (!strcmp(kind, "test")) {
            json_t *v = do_get(out, path);
            if (!(v ? value && json_equal(v, value) : value && json_is_null(value))) {
                sl_errkindf(err, SL_ERR_INVALID, "testing value %s failed: test failed", path);
                goto fail;
            }
        } else {
            sl_errkindf(err, SL_ERR_INVALID, "Unexpected kind: %s", kind);
            goto fail;
        }
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}
