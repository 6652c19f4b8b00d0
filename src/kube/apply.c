/* apply.c — server-side apply, simplified but right for kubectl.
 *
 * kube-apiserver implements apply with structured-merge-diff: each manager
 * owns a set of fields (metadata.managedFields, FieldsV1), an apply merges
 * the configuration into the live object and removes the fields the
 * manager owned before but no longer applies, unless another manager owns
 * them too. We do the same with two simplifications:
 *   - only Apply managers' sets are tracked (fields written by Update
 *     operations belong to nobody here), so conflicts are raised only
 *     between apply managers: a manager that applies a value other than
 *     the live one to a field another apply manager owns gets 409 Conflict
 *     naming both, unless it forces (--force-conflicts), which takes the
 *     field from the others;
 *   - the merge itself is a strategic merge of the configuration (lists
 *     merge by their patch merge key, ordered as the configuration orders
 *     them; other lists are replaced), which is how SSA treats the
 *     associative and atomic lists of the built-in kinds.
 */
#include <errno.h>
#include <stdlib.h>
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
        int meta = top && !strcmp(k, "metadata");
        json_t *sub = fields_val(v, sl_kube_mergekeys_field(t, k), meta);
        if (meta && json_object_size(sub) == 0) { /* only the server's fields: none owned */
            json_decref(sub);
            continue;
        }
        char *key = sl_xasprintf("f:%s", k);
        json_object_set_new(set, key, sub);
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

/* ---- conflicts between apply managers ---- */

/* One conflict: the other manager and the field's path as fieldpath prints
 * it (.metadata.labels.x, .spec.containers[name="c"].image). */
struct conflict {
    size_t seq; /* the order found: kept among one manager's conflicts */
    const char *manager;
    char *path;
    json_t *owner_set; /* the other manager's fieldsV1 (borrowed) */
    char **keys;       /* the FieldsV1 keys down to the field */
    size_t nkeys;
};

typedef struct {
    struct conflict *v;
    size_t n;
} conflicts_t;

/* The path element of a FieldsV1 key: .name, [k="v",...] or [=value]. */
static void path_elem(sl_buf_t *b, const char *key)
{
    if (!strncmp(key, "f:", 2)) {
        sl_buf_printf(b, ".%s", key + 2);
        return;
    }
    if (!strncmp(key, "v:", 2)) {
        sl_buf_printf(b, "[=%s]", key + 2);
        return;
    }
    json_t *kv = json_loads(key + 2, 0, NULL);
    const char *k;
    json_t *v;
    int first = 1;
    sl_buf_puts(b, "[");
    json_object_foreach(kv, k, v)
    {
        char *vs = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        sl_buf_printf(b, "%s%s=%s", first ? "" : ",", k, vs ? vs : "");
        free(vs);
        first = 0;
    }
    sl_buf_puts(b, "]");
    json_decref(kv);
}

/* Is this FieldsV1 node a leaf (nothing owned below it)? */
static int is_leaf(json_t *node)
{
    return json_object_size(node) == 0 ||
           (json_object_size(node) == 1 && json_object_get(node, "."));
}

static void add_conflict(conflicts_t *c, const char *manager, json_t *owner_set, char **keys,
                         size_t nkeys)
{
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < nkeys; i++)
        path_elem(&b, keys[i]);
    c->v = sl_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
    struct conflict *e = &c->v[c->n];
    e->seq = c->n++;
    e->manager = manager;
    e->path = sl_xstrdup(b.data ? b.data : "");
    e->owner_set = owner_set;
    e->keys = sl_xcalloc(nkeys, sizeof *e->keys);
    for (size_t i = 0; i < nkeys; i++)
        e->keys[i] = sl_xstrdup(keys[i]);
    e->nkeys = nkeys;
    sl_buf_free(&b);
}

#define MAX_DEPTH 64

/* Walk mine (the applier's new set) beside theirs (another apply manager's
 * set): a leaf both own whose live value differs from the configuration's
 * is a conflict; so is a scalar or list one owns as a leaf where the other
 * owns parts (a map one set owns with nothing under it, such as a
 * metadata holding only the name, owns no field). live and cfg are the
 * nodes at the same place. */
static void walk_conflicts(json_t *mine, json_t *theirs, json_t *live, json_t *cfg,
                           const char *manager, json_t *owner_set, char **keys, size_t depth,
                           conflicts_t *out)
{
    const char *k;
    json_t *mk;
    if (depth >= MAX_DEPTH)
        return;
    json_object_foreach(mine, k, mk)
    {
        json_t *tk = json_object_get(theirs, k);
        if (!strcmp(k, ".") || !tk)
            continue;
        long idx;
        json_t *lv = child(live, k, &idx), *cv = child(cfg, k, &idx);
        keys[depth] = (char *)k;
        int ml = is_leaf(mk), tl = is_leaf(tk);
        if (!ml && !tl)
            walk_conflicts(mk, tk, lv, cv, manager, owner_set, keys, depth + 1, out);
        else if (lv && cv && !json_equal(lv, cv) && ((ml && tl) || !json_is_object(cv)))
            add_conflict(out, manager, owner_set, keys, depth + 1);
    }
}

static int by_manager(const void *a, const void *b)
{
    const struct conflict *x = a, *y = b;
    int d = strcmp(x->manager, y->manager);
    return d ? d : (x->seq > y->seq) - (x->seq < y->seq);
}

/* kube-apiserver's text: one conflict on one line, several grouped by
 * manager (sorted), one "- path" line each. */
static void conflict_error(conflicts_t *c, sl_error_t *err)
{
    qsort(c->v, c->n, sizeof *c->v, by_manager);
    sl_buf_t b = SL_BUF_INIT;
    if (c->n == 1) {
        sl_buf_printf(&b, "Apply failed with 1 conflict: conflict with \"%s\": %s", c->v[0].manager,
                      c->v[0].path);
    } else {
        sl_buf_printf(&b, "Apply failed with %zu conflicts: ", c->n);
        for (size_t i = 0; i < c->n; i++) {
            if (!i || strcmp(c->v[i].manager, c->v[i - 1].manager))
                sl_buf_printf(&b, "%sconflicts with \"%s\":", i ? "\n" : "", c->v[i].manager);
            sl_buf_printf(&b, "\n- %s", c->v[i].path);
        }
    }
    errno = EBUSY;
    sl_errwholef(err, SL_ERR_CONFLICT, "%s", b.data);
    for (size_t i = 0; i < c->n; i++) {
        char *msg = sl_xasprintf("conflict with \"%s\"", c->v[i].manager);
        sl_err_cause(err, "FieldManagerConflict", c->v[i].path, msg);
        free(msg);
    }
    sl_buf_free(&b);
}

/* Force: the field leaves the other manager's set (and parents left empty
 * by that go too). */
static void disown(json_t *set, char **keys, size_t n)
{
    json_t *parent = set;
    for (size_t i = 0; parent && i + 1 < n; i++)
        parent = json_object_get(parent, keys[i]);
    if (!parent)
        return;
    json_object_del(parent, keys[n - 1]);
    if (n > 1 && json_object_size(parent) == 0)
        disown(set, keys, n - 1);
}

static void conflicts_free(conflicts_t *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].path);
        for (size_t k = 0; k < c->v[i].nkeys; k++)
            free(c->v[i].keys[k]);
        free(c->v[i].keys);
    }
    free(c->v);
}

/* The conflicts of the applier's set against every other apply manager's
 * entry of mf: -1 with a 409 in err unless force, which disowns them. */
static int check_conflicts(json_t *mf, const char *manager, json_t *set, json_t *live, json_t *cfg,
                           bool force, sl_error_t *err)
{
    conflicts_t c = {NULL, 0};
    char *keys[MAX_DEPTH];
    size_t i;
    json_t *e;
    json_array_foreach(mf, i, e)
    {
        if (is_apply_by(e, NULL) && !is_apply_by(e, manager)) {
            json_t *fv = json_object_get(e, "fieldsV1");
            walk_conflicts(set, fv, live, cfg, json_string_value(json_object_get(e, "manager")), fv,
                           keys, 0, &c);
        }
    }
    int rc = 0;
    if (c.n && !force) {
        conflict_error(&c, err);
        rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < c.n; k++)
        disown(c.v[k].owner_set, c.v[k].keys, c.v[k].nkeys);
    conflicts_free(&c);
    return rc;
}

json_t *sl_kube_apply(json_t *live, json_t *applied, const char *manager, bool force,
                      sl_error_t *err)
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
        if (check_conflicts(mf, manager, set, base, config, force, err) < 0) {
            json_decref(base);
            json_decref(config);
            json_decref(set);
            json_decref(managed);
            return NULL;
        }
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
