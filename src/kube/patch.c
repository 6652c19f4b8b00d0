/* patch.c — JSON merge patch (RFC 7386) and strategic merge patch, after
 * k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (mergeMap,
 * mergeSlice, normalizeElementOrder): the same directives, the same list
 * ordering rules, the same error texts where a client could see them.
 *
 * Differences from the Go code, on purpose: values that the patch adds
 * (not merged into anything) are themselves passed through the merge, so
 * directives and nulls never end up stored (kube-apiserver drops them when
 * it decodes into typed structs; we store JSON as is); and a
 * $deleteFromPrimitiveList for a list the object lacks is a no-op.
 */
#include "kube/patch.h"

#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/mergekeys.h"

#define DIRECTIVE "$patch"
#define RETAIN_KEYS "$retainKeys"
#define SET_ORDER "$setElementOrder/"
#define DELETE_PRIMITIVE "$deleteFromPrimitiveList/"

/* ---- RFC 7386 --------------------------------------------------------- */

static json_t *merge_patch(json_t *target /* stolen */, json_t *patch)
{
    if (!json_is_object(patch)) {
        json_decref(target);
        return json_deep_copy(patch);
    }
    if (!json_is_object(target)) {
        json_decref(target);
        target = json_object();
    }
    const char *k;
    json_t *v;
    json_object_foreach(patch, k, v)
    {
        if (json_is_null(v)) {
            json_object_del(target, k);
            continue;
        }
        json_t *cur = json_object_get(target, k);
        json_object_set_new(target, k, merge_patch(json_incref(cur), v));
    }
    return target;
}

json_t *sl_kube_merge_patch(json_t *target, json_t *patch)
{
    return merge_patch(target ? json_deep_copy(target) : NULL, patch);
}

/* ---- strategic merge -------------------------------------------------- */

struct smp {
    sl_buf_t err;
};

static int smp_fail(struct smp *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int smp_fail(struct smp *m, const char *fmt, ...)
{
    if (m->err.len == 0) {
        va_list ap;
        va_start(ap, fmt);
        sl_buf_vprintf(&m->err, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *dumpv(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    return s ? s : sl_xstrdup("?");
}

/* Go's == on decoded JSON scalars (numbers are all float64 there). */
static int scalar_eq(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_is_object(a) || json_is_array(a) || json_is_object(b) || json_is_array(b))
        return 0;
    return json_equal(a, b);
}

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static json_t *merge_map(struct smp *m, json_t *orig, json_t *patch, const struct smp_type *t);
static json_t *merge_slice(struct smp *m, json_t *orig, json_t *patch, const struct smp_field *f,
                           int delete_list);

/* A patch value going where nothing was: merged onto nothing so its own
 * directives and nulls are applied. New reference, or NULL on error. */
static json_t *fresh(struct smp *m, json_t *v, const struct smp_field *f)
{
    if (json_is_object(v))
        return merge_map(m, NULL, v, f ? f->type : NULL);
    if (json_is_array(v)) {
        if (f && f->strategy == SMP_MERGE)
            return merge_slice(m, json_array(), v, f, 0);
        json_t *a = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            json_t *c =
                json_is_object(e) ? merge_map(m, NULL, e, f ? f->type : NULL) : json_deep_copy(e);
            if (!c) {
                json_decref(a);
                return NULL;
            }
            json_array_append_new(a, c);
        }
        return a;
    }
    return json_deep_copy(v);
}

/* Index of the element of list matching item: by merge key for maps, by
 * value for scalars; -1 when absent. */
static long list_index(json_t *list, json_t *item, const char *mk)
{
    json_t *want = mk ? json_object_get(item, mk) : item;
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        json_t *have = mk ? json_object_get(e, mk) : e;
        if (want && have && scalar_eq(want, have))
            return (long)i;
    }
    return -1;
}

/* normalizeSliceOrder: stable sort of items by their index in order. All
 * items are present in order where this is used. Insertion sort: lists are
 * short, and it is stable. */
static void sort_by_order(json_t **items, size_t n, json_t *order, const char *mk)
{
    for (size_t i = 1; i < n; i++) {
        json_t *x = items[i];
        long xi = list_index(order, x, mk);
        size_t j = i;
        while (j > 0) {
            long yi = list_index(order, items[j - 1], mk);
            if (xi >= 0 && yi >= 0 && yi > xi) {
                items[j] = items[j - 1];
                j--;
            } else {
                break;
            }
        }
        items[j] = x;
    }
}

/* Partition merged into the items present in patch_order and the rest,
 * sort each by its own order and interleave them (normalizeElementOrder +
 * mergeSortedSlice). Returns a new array. */
static json_t *normalize_order(json_t *merged, json_t *patch_order, json_t *server_order,
                               const char *mk)
{
    size_t n = json_array_size(merged), np = 0, ns = 0;
    json_t **p = sl_xcalloc(n + 1, sizeof *p), **s = sl_xcalloc(n + 1, sizeof *s);
    size_t i;
    json_t *e;
    json_array_foreach(merged, i, e)
    {
        if (list_index(patch_order, e, mk) >= 0)
            p[np++] = e;
        else
            s[ns++] = e;
    }
    sort_by_order(p, np, patch_order, mk);
    sort_by_order(s, ns, server_order, mk);
    json_t *out = json_array();
    size_t a = 0, b = 0; /* a: server-only (left), b: patch items (right) */
    while (a < ns || b < np) {
        if (a >= ns) {
            json_array_append(out, p[b++]);
        } else if (b >= np) {
            json_array_append(out, s[a++]);
        } else {
            long li = list_index(server_order, s[a], mk), ri = list_index(server_order, p[b], mk);
            if (li >= 0 && ri >= 0 && li < ri)
                json_array_append(out, s[a++]);
            else
                json_array_append(out, p[b++]);
        }
    }
    free(p);
    free(s);
    return out;
}

/* a list of scalars as a set: patch's values added (or, for
 * $deleteFromPrimitiveList, removed). orig is consumed. */
static json_t *merge_scalars(json_t *orig, json_t *patch, int delete_list)
{
    size_t i;
    json_t *e;
    json_t *merged = json_array();
    if (delete_list) {
        json_array_foreach(orig, i, e) if (list_index(patch, e, NULL) < 0)
            json_array_append(merged, e);
        json_decref(orig);
        return merged;
    }
    json_array_foreach(orig, i, e) if (list_index(merged, e, NULL) < 0)
        json_array_append(merged, e);
    json_array_foreach(patch, i, e) if (list_index(merged, e, NULL) < 0)
        json_array_append_new(merged, json_deep_copy(e));
    json_t *out = normalize_order(merged, patch, orig, NULL);
    json_decref(merged);
    json_decref(orig);
    return out;
}

/* mergeSliceWithSpecialElements: the patch's elements with a $patch
 * directive applied ("delete" removes from orig, "replace" sets *replace),
 * the others appended to plain */
static int special_elements(struct smp *m, json_t *orig, json_t *patch, const char *mk,
                            json_t *plain, int *replace)
{
    size_t i;
    json_t *e;
    json_array_foreach(patch, i, e)
    {
        if (!json_is_object(e))
            return smp_fail(m, "list element types are not identical");
        json_t *d = json_object_get(e, DIRECTIVE);
        if (!d) {
            json_array_append(plain, e);
            continue;
        }
        const char *ds = json_string_value(d);
        if (ds && !strcmp(ds, "delete")) {
            json_t *kv = json_object_get(e, mk);
            if (!kv) {
                char *s = dumpv(e);
                smp_fail(m, "map: %s does not contain declared merge key: %s", s, mk);
                free(s);
                return -1;
            }
            for (size_t j = json_array_size(orig); j-- > 0;)
                if (scalar_eq(json_object_get(json_array_get(orig, j), mk), kv))
                    json_array_remove(orig, j);
        } else if (ds && !strcmp(ds, "replace")) {
            *replace = 1;
        } else if (ds && !strcmp(ds, "merge")) {
            return smp_fail(m, "merging lists cannot yet be specified in the patch");
        } else {
            char *s = dumpv(d), *mp = dumpv(e);
            smp_fail(m, "unknown patch type: %s in map: %s", s, mp);
            free(s);
            free(mp);
            return -1;
        }
    }
    return 0;
}

/* $patch: replace: the list is the plain elements, each merged into nothing */
static json_t *replace_list(struct smp *m, json_t *plain, const struct smp_field *f)
{
    size_t i;
    json_t *e;
    json_t *out = json_array();
    json_array_foreach(plain, i, e)
    {
        json_t *c = merge_map(m, NULL, e, f->type);
        if (!c) {
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, c);
    }
    return out;
}

/* each plain element merged into orig's element of the same merge key (or
 * appended), then the order normalized: a new array */
static json_t *merge_by_key(struct smp *m, json_t *orig, json_t *plain, const struct smp_field *f,
                            const char *mk)
{
    size_t i;
    json_t *e;
    /* the post-deletion original fixes the server order */
    json_t *server_order = json_array();
    json_array_foreach(orig, i, e) json_array_append(server_order, e);
    json_array_foreach(plain, i, e)
    {
        json_t *kv = json_object_get(e, mk);
        if (!kv) {
            char *s = dumpv(e);
            smp_fail(m, "map: %s does not contain declared merge key: %s", s, mk);
            free(s);
            json_decref(server_order);
            return NULL;
        }
        long at = list_index(orig, e, mk);
        json_t *c = merge_map(m, at >= 0 ? json_incref(json_array_get(orig, (size_t)at)) : NULL, e,
                              f->type);
        if (!c) {
            json_decref(server_order);
            return NULL;
        }
        if (at >= 0)
            json_array_set_new(orig, (size_t)at, c);
        else
            json_array_append_new(orig, c);
    }
    /* server_order holds the old element objects; their keys are what count */
    json_t *out = normalize_order(orig, plain, server_order, mk);
    json_decref(server_order);
    return out;
}

static json_t *merge_slice(struct smp *m, json_t *orig, json_t *patch, const struct smp_field *f,
                           int delete_list)
{
    if (json_array_size(orig) == 0 && json_array_size(patch) == 0)
        return orig;
    json_t *first = json_array_size(orig) ? json_array_get(orig, 0) : json_array_get(patch, 0);
    if (json_is_array(first)) {
        json_decref(orig);
        smp_fail(m, "lists of lists are not supported");
        return NULL;
    }
    const char *mk = f ? f->merge_key : NULL;
    if (!json_is_object(first))
        return merge_scalars(orig, patch, delete_list);
    if (!mk) {
        json_decref(orig);
        smp_fail(m, "cannot merge lists without merge key for type map");
        return NULL;
    }
    json_t *plain = json_array(), *out = NULL;
    int replace = 0;
    if (special_elements(m, orig, patch, mk, plain, &replace) == 0)
        out = replace ? replace_list(m, plain, f) : merge_by_key(m, orig, plain, f, mk);
    json_decref(plain);
    json_decref(orig);
    return out;
}

/* $setElementOrder/<key>: merge the list named by it (if the patch has it)
 * and impose the order; the list is then done. */
static int set_element_order(struct smp *m, json_t *orig, json_t *patch, const char *dkey,
                             json_t *order, const struct smp_type *t, json_t *done)
{
    const char *key = dkey + strlen(SET_ORDER);
    if (!json_is_array(order))
        return smp_fail(m, "invalid patch format of setElementOrder list");
    const struct smp_field *f = sl_kube_mergekeys_field(t, key);
    json_t *ol = json_object_get(orig, key), *pl = json_object_get(patch, key);
    if (ol && !json_is_array(ol))
        ol = NULL;
    if (pl && !json_is_array(pl))
        return smp_fail(m, "invalid patch format of setElementOrder list");
    json_t *merged;
    if (ol && !pl)
        merged = json_incref(ol);
    else if (!ol && pl)
        merged = fresh(m, pl, f);
    else if (ol && pl)
        merged = f && f->strategy == SMP_MERGE ? merge_slice(m, json_copy(ol), pl, f, 0)
                                               : fresh(m, pl, f);
    else
        return 0;
    if (!merged)
        return -1;
    json_t *out = normalize_order(merged, order, ol, f ? f->merge_key : NULL);
    json_decref(merged);
    json_object_set_new(orig, key, out);
    json_object_set_new(done, key, json_true());
    return 0;
}

/* a map patch with a $patch directive: "replace" (the patch without it),
 * "delete" (an empty map), anything else an error. orig is consumed. */
static json_t *map_directive(struct smp *m, json_t *orig, json_t *patch, json_t *d,
                             const struct smp_type *t)
{
    const char *ds = json_string_value(d);
    json_decref(orig);
    if (ds && !strcmp(ds, "replace")) {
        json_t *copy = json_copy(patch);
        json_object_del(copy, DIRECTIVE);
        json_t *r = merge_map(m, NULL, copy, t);
        json_decref(copy);
        return r;
    }
    if (ds && !strcmp(ds, "delete"))
        return json_object();
    char *s = dumpv(d), *mp = dumpv(patch);
    smp_fail(m, "unknown patch type: %s in map: %s", s, mp);
    free(s);
    free(mp);
    return NULL;
}

/* orig as a map this merge may edit: a new one when it is none, a shallow
 * copy when it is shared (children are replaced, not edited). */
static json_t *own_map(json_t *orig)
{
    if (!json_is_object(orig)) {
        json_decref(orig);
        return json_object();
    }
    if (orig->refcount > 1) {
        json_t *c = json_copy(orig);
        json_decref(orig);
        return c;
    }
    return orig;
}

static int in_retain(json_t *retain, const char *k)
{
    size_t i;
    json_t *e;
    int found = 0;
    json_array_foreach(retain, i, e) if (json_is_string(e) && !strcmp(json_string_value(e), k))
        found = 1;
    return found;
}

/* $retainKeys: every key the patch sets must be listed; the keys of orig not
 * listed go. -1 on a bad list (nothing removed then). */
static int retain_keys(json_t *orig, json_t *patch, json_t *retain)
{
    const char *k;
    json_t *v;
    if (!json_is_array(retain))
        return -1;
    json_object_foreach(patch, k, v)
    {
        if (json_is_null(v) || k[0] == '$')
            continue;
        if (!in_retain(retain, k))
            return -1;
    }
    void *tmp;
    json_object_foreach_safe(orig, tmp, k, v)
    {
        if (!in_retain(retain, k))
            json_object_del(orig, k);
    }
    return 0;
}

/* $deleteFromPrimitiveList/<key>: remove the listed values from orig's list. */
static int delete_primitive(struct smp *m, json_t *orig, const char *k, json_t *v,
                            const struct smp_type *t)
{
    const char *key = k + strlen(DELETE_PRIMITIVE);
    json_t *ol = json_object_get(orig, key);
    if (!json_is_array(v))
        return smp_fail(m, "invalid patch format of primitive list");
    if (json_is_array(ol)) {
        json_t *r = merge_slice(m, json_incref(ol), v, sl_kube_mergekeys_field(t, key), 1);
        if (!r)
            return -1;
        json_object_set_new(orig, key, r);
    }
    return 0;
}

/* one key k of the patch, value v, into orig (neither a $setElementOrder
 * nor $retainKeys). */
static int merge_key(struct smp *m, json_t *orig, const char *k, json_t *v,
                     const struct smp_type *t)
{
    if (has_prefix(k, DELETE_PRIMITIVE))
        return delete_primitive(m, orig, k, v, t);
    if (k[0] == '$')
        return 0; /* an unknown directive: nothing to store */
    const struct smp_field *f = sl_kube_mergekeys_field(t, k);
    if (json_is_null(v)) {
        json_object_del(orig, k);
        return 0;
    }
    json_t *ov = json_object_get(orig, k);
    json_t *r;
    if (!ov)
        r = fresh(m, v, f);
    else if (json_is_object(ov) && json_is_object(v))
        r = f && f->strategy == SMP_REPLACE ? fresh(m, v, f)
                                            : merge_map(m, json_incref(ov), v, f ? f->type : NULL);
    else if (json_is_array(ov) && json_is_array(v))
        r = f && f->strategy == SMP_MERGE ? merge_slice(m, json_copy(ov), v, f, 0) : fresh(m, v, f);
    else
        r = fresh(m, v, f);
    if (!r)
        return -1;
    json_object_set_new(orig, k, r);
    return 0;
}

static json_t *merge_map(struct smp *m, json_t *orig, json_t *patch, const struct smp_type *t)
{
    json_t *d = json_object_get(patch, DIRECTIVE);
    if (d)
        return map_directive(m, orig, patch, d, t);
    orig = own_map(orig);
    json_t *retain = json_object_get(patch, RETAIN_KEYS);
    if (retain && retain_keys(orig, patch, retain) < 0) {
        smp_fail(m, "invalid patch format of retainKeys");
        json_decref(orig);
        return NULL;
    }
    const char *k;
    json_t *v;
    json_t *done = json_object();
    json_object_foreach(patch, k, v)
    {
        if (has_prefix(k, SET_ORDER) && set_element_order(m, orig, patch, k, v, t, done) < 0)
            goto fail;
    }
    json_object_foreach(patch, k, v)
    {
        if (json_object_get(done, k) || !strcmp(k, RETAIN_KEYS) || has_prefix(k, SET_ORDER))
            continue;
        if (merge_key(m, orig, k, v, t) < 0)
            goto fail;
    }
    json_decref(done);
    return orig;
fail:
    json_decref(done);
    json_decref(orig);
    return NULL;
}

json_t *sl_kube_strategic_merge(const char *api_version, const char *kind, json_t *original,
                                json_t *patch, sl_error_t *err)
{
    if (!json_is_object(patch)) {
        errno = EINVAL;
        sl_errprintf(err, "strategic merge patch must be a JSON object");
        return NULL;
    }
    struct smp m = {SL_BUF_INIT};
    const struct smp_type *t = sl_kube_mergekeys_for(api_version, kind);
    json_t *r = merge_map(&m, original ? json_deep_copy(original) : NULL, patch, t);
    if (!r) {
        errno = EINVAL;
        sl_errprintf(err, "%s", m.err.data ? m.err.data : "invalid strategic merge patch");
    }
    sl_buf_free(&m.err);
    return r;
}
