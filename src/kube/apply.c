/* apply.c — server-side apply, simplified but right for kubectl.
 *
 * kube-apiserver implements apply with structured-merge-diff: each manager
 * owns a set of fields (metadata.managedFields, FieldsV1), an apply merges
 * the configuration into the live object and removes the fields the
 * manager owned before but no longer applies, unless another manager owns
 * them too. We do the same with two simplifications:
 *   - only Apply managers' sets are tracked (fields written by Update
 *     operations belong to nobody here), and no conflicts are raised:
 *     every apply behaves as --force-conflicts;
 *   - the merge itself is a strategic merge of the configuration (lists
 *     merge by their patch merge key, ordered as the configuration orders
 *     them; other lists are replaced), which is how SSA treats the
 *     associative and atomic lists of the built-in kinds.
 */
#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/mergekeys.h"
#include "kube/meta.h"
#include "kube/patch.h"

/* Fields that are the server's, never a manager's. */
static int server_field(int top, int in_meta, const char *k)
{
    static const char *const meta[] = {"name",
                                       "namespace",
                                       "uid",
                                       "resourceVersion",
                                       "generation",
                                       "creationTimestamp",
                                       "managedFields",
                                       "deletionTimestamp",
                                       "deletionGracePeriodSeconds",
                                       "selfLink",
                                       NULL};
    if (top && (!strcmp(k, "apiVersion") || !strcmp(k, "kind")))
        return 1;
    for (size_t i = 0; in_meta && meta[i]; i++)
        if (!strcmp(k, meta[i]))
            return 1;
    return 0;
}

static json_t *fields_obj(json_t *obj, const struct smp_type *t, int top, int in_meta);

static json_t *fields_val(json_t *v, const struct smp_field *f, int in_meta_child)
{
    if (json_is_object(v)) {
        if (f && f->strategy == SMP_REPLACE)
            return json_object();
        return fields_obj(v, f ? f->type : NULL, 0, in_meta_child);
    }
    if (json_is_array(v) && f && f->strategy == SMP_MERGE) {
        json_t *set = json_object();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if (json_is_object(e) && f->merge_key && json_object_get(e, f->merge_key)) {
                json_t *kv = json_pack("{s:O}", f->merge_key, json_object_get(e, f->merge_key));
                char *ks = json_dumps(kv, JSON_COMPACT);
                char *key = sl_xasprintf("k:%s", ks);
                json_t *sub = fields_obj(e, f->type, 0, 0);
                json_t *item = json_pack("{s:{}}", ".");
                json_object_update(item, sub);
                json_object_set_new(set, key, item);
                json_decref(sub);
                json_decref(kv);
                free(ks);
                free(key);
            } else if (!json_is_object(e) && !json_is_array(e)) {
                char *vs = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
                char *key = sl_xasprintf("v:%s", vs);
                json_object_set_new(set, key, json_object());
                free(vs);
                free(key);
            }
        }
        return set;
    }
    return json_object(); /* scalars and atomic lists are leaves */
}

static json_t *fields_obj(json_t *obj, const struct smp_type *t, int top, int in_meta)
{
    json_t *set = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        if (k[0] == '$' || json_is_null(v) || server_field(top, in_meta, k))
            continue;
        char *key = sl_xasprintf("f:%s", k);
        json_object_set_new(
            set, key, fields_val(v, sl_kube_mergekeys_field(t, k), top && !strcmp(k, "metadata")));
        free(key);
    }
    return set;
}

json_t *sl_kube_fields_v1(const char *api_version, const char *kind, json_t *obj)
{
    return fields_obj(obj, sl_kube_mergekeys_for(api_version, kind), 1, 0);
}

/* Does list element e match every member of the key object? */
static int key_match(json_t *e, json_t *keyobj)
{
    const char *k;
    json_t *v;
    if (!json_is_object(e))
        return 0;
    json_object_foreach(keyobj, k, v)
    {
        json_t *have = json_object_get(e, k);
        if (!have)
            return 0;
        if (json_is_number(have) && json_is_number(v)) {
            if (json_number_value(have) != json_number_value(v))
                return 0;
        } else if (!json_equal(have, v)) {
            return 0;
        }
    }
    return 1;
}

/* The child of live named by a FieldsV1 key; *idx gets the list index. */
static json_t *child(json_t *live, const char *key, long *idx)
{
    *idx = -1;
    if (!strncmp(key, "f:", 2))
        return json_object_get(live, key + 2);
    int keyed = !strncmp(key, "k:", 2);
    if (!keyed && strncmp(key, "v:", 2))
        return NULL;
    json_t *want = json_loads(key + 2, JSON_DECODE_ANY, NULL);
    json_t *found = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(live, i, e)
    {
        if (keyed ? key_match(e, want) : json_equal(e, want)) {
            found = e;
            *idx = (long)i;
            break;
        }
    }
    json_decref(want);
    return found;
}

static void remove_child(json_t *live, const char *key)
{
    long idx;
    json_t *c = child(live, key, &idx);
    if (!c)
        return;
    if (idx >= 0)
        json_array_remove(live, (size_t)idx);
    else
        json_object_del(live, key + 2);
}

/* Remove from live what prev owned and neither cur nor any of others owns. */
static void prune(json_t *live, json_t *prev, json_t *cur, json_t *const *others, size_t n)
{
    const char *k;
    json_t *pc;
    void *tmp;
    json_object_foreach_safe(prev, tmp, k, pc)
    {
        if (!strcmp(k, "."))
            continue;
        json_t *nc = json_object_get(cur, k);
        json_t **oc = sl_xcalloc(n + 1, sizeof *oc);
        size_t no = 0;
        for (size_t i = 0; i < n; i++)
            if (json_object_get(others[i], k))
                oc[no++] = json_object_get(others[i], k);
        if (!nc && no == 0) {
            remove_child(live, k);
        } else if (json_object_size(pc) > 0) {
            long idx;
            json_t *c = child(live, k, &idx);
            if (json_is_object(c) || json_is_array(c))
                prune(c, pc, nc, oc, no);
        }
        free(oc);
    }
}

/* Give every merge list of the configuration a $setElementOrder so the
 * result lists follow the configuration's order. */
static void add_order(json_t *obj, const struct smp_type *t)
{
    const char *k;
    json_t *v;
    json_t *extra = json_object();
    json_object_foreach(obj, k, v)
    {
        const struct smp_field *f = sl_kube_mergekeys_field(t, k);
        if (json_is_object(v)) {
            add_order(v, f ? f->type : NULL);
        } else if (json_is_array(v) && f && f->strategy == SMP_MERGE) {
            json_t *order = json_array();
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                if (json_is_object(e)) {
                    add_order(e, f->type);
                    if (f->merge_key && json_object_get(e, f->merge_key))
                        json_array_append_new(order, json_pack("{s:O}", f->merge_key,
                                                               json_object_get(e, f->merge_key)));
                } else {
                    json_array_append(order, e);
                }
            }
            char *key = sl_xasprintf("$setElementOrder/%s", k);
            json_object_set_new(extra, key, order);
            free(key);
        }
    }
    json_object_update(obj, extra);
    json_decref(extra);
}

static json_t *managed_entry(const char *manager, const char *api_version, json_t *set)
{
    char *now = sl_kube_now_rfc3339();
    json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O}", "manager", manager, "operation", "Apply",
                          "apiVersion", api_version ? api_version : "v1", "time", now, "fieldsType",
                          "FieldsV1", "fieldsV1", set);
    free(now);
    return e;
}

static int is_apply_by(json_t *e, const char *manager)
{
    const char *m = json_string_value(json_object_get(e, "manager"));
    const char *op = json_string_value(json_object_get(e, "operation"));
    return m && op && !strcmp(op, "Apply") && (!manager || !strcmp(m, manager));
}

json_t *sl_kube_apply(json_t *live, json_t *applied, const char *manager, sl_error_t *err)
{
    if (!json_is_object(applied)) {
        errno = EINVAL;
        sl_errprintf(err, "apply configuration must be a JSON object");
        return NULL;
    }
    if (!manager || !*manager) {
        errno = EINVAL;
        sl_errprintf(err, "fieldManager is required for apply requests");
        return NULL;
    }
    const char *av = json_string_value(json_object_get(applied, "apiVersion"));
    const char *kind = json_string_value(json_object_get(applied, "kind"));
    if (live) {
        const char *lav = json_string_value(json_object_get(live, "apiVersion"));
        const char *lk = json_string_value(json_object_get(live, "kind"));
        if ((kind && lk && strcmp(kind, lk)) || (av && lav && strcmp(av, lav))) {
            errno = EINVAL;
            sl_errprintf(err, "apply configuration %s/%s does not match the object's %s/%s",
                         av ? av : "", kind ? kind : "", lav ? lav : "", lk ? lk : "");
            return NULL;
        }
        if (!av)
            av = lav;
        if (!kind)
            kind = lk;
    }
    json_t *config = json_deep_copy(applied);
    json_object_del(json_object_get(config, "metadata"), "managedFields");
    json_t *set = sl_kube_fields_v1(av, kind, config);

    json_t *base;
    json_t *managed = json_array();
    if (live) {
        base = json_deep_copy(live);
        json_t *mf = json_object_get(json_object_get(base, "metadata"), "managedFields");
        json_t *prev = NULL;
        size_t n = 0, i;
        json_t *e;
        json_t **others = sl_xcalloc(json_array_size(mf) + 1, sizeof *others);
        json_array_foreach(mf, i, e)
        {
            if (is_apply_by(e, manager))
                prev = json_object_get(e, "fieldsV1");
            else {
                if (is_apply_by(e, NULL))
                    others[n++] = json_object_get(e, "fieldsV1");
                json_array_append(managed, e);
            }
        }
        if (prev)
            prune(base, prev, set, others, n);
        free(others);
        json_object_del(json_object_get(base, "metadata"), "managedFields");
    } else {
        base = json_object();
    }
    add_order(config, sl_kube_mergekeys_for(av, kind));
    json_t *result = sl_kube_strategic_merge(av, kind, base, config, err);
    json_decref(base);
    json_decref(config);
    if (!result) {
        json_decref(set);
        json_decref(managed);
        return NULL;
    }
    json_array_append_new(managed, managed_entry(manager, av, set));
    json_decref(set);
    json_t *meta = sl_kube_meta(result);
    json_object_set_new(meta, "managedFields", managed);
    return result;
}
