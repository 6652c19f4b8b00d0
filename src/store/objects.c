/* objects.c — create, get, update, mutate, delete, list and the change log
 * on top of the connections and locking of store.c. */
#include <errno.h>
#include <string.h>

#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/internal.h"

#define GENERATE_ATTEMPTS 8
#define GENERATE_SUFFIX 5
#define GENERATE_PREFIX_MAX (63 - GENERATE_SUFFIX) /* maxGeneratedNameLength */

static const char *nz(const char *ns) { return ns ? ns : ""; }

static void bind_key(sqlite3_stmt *st, const char *resource, const char *ns, const char *name)
{
    sqlite3_bind_text(st, 1, resource, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, nz(ns), -1, SQLITE_STATIC);
    if (name)
        sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
}

/* 1 found (*rv, *text set; caller frees text), 0 absent, -1 error. */
int sl_store_db_get(sl_store_t *s, struct sl_store_conn *c, const char *resource, const char *ns,
                    const char *name, int64_t *rv, char **text, sl_error_t *err)
{
    sqlite3_stmt *st = c->st[ST_GET];
    bind_key(st, resource, ns, name);
    int rc = sqlite3_step(st);
    int found = 0;
    if (rc == SQLITE_ROW) {
        *rv = sqlite3_column_int64(st, 0);
        *text = sl_xstrdup((const char *)sqlite3_column_text(st, 1));
        found = 1;
    } else if (rc != SQLITE_DONE) {
        found = sl_store_dberr(s, c->db, rc, err, "get");
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return found;
}

int sl_store_db_put(sl_store_t *s, int id, const char *resource, const char *ns, const char *name,
                    int64_t rv, const char *text, sl_error_t *err)
{
    sqlite3_stmt *st = s->w.st[id];
    bind_key(st, resource, ns, name);
    sqlite3_bind_int64(st, 4, rv);
    if (text)
        sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return sl_store_dberr(s, s->w.db, rc, err, "write object");
    return 0;
}

/* prev: the stored object a MODIFIED or DELETED change replaces (NULL for
 * ADDED). */
int sl_store_db_log(sl_store_t *s, int64_t rv, int type, const char *resource, const char *ns,
                    const char *name, const char *text, const char *prev, sl_error_t *err)
{
    sqlite3_stmt *st = s->w.st[ST_LOG_APPEND];
    sqlite3_bind_int64(st, 1, rv);
    sqlite3_bind_int(st, 2, type);
    sqlite3_bind_text(st, 3, resource, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, nz(ns), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, text, -1, SQLITE_STATIC);
    if (prev)
        sqlite3_bind_text(st, 7, prev, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return sl_store_dberr(s, s->w.db, rc, err, "append change");
    if (s->log_min == 0)
        s->log_min = rv;
    sl_store_touch(s, resource);
    return 0;
}

char *sl_store_dump(json_t *obj)
{
    char *t = json_dumps(obj, JSON_COMPACT);
    if (!t)
        abort(); /* only fails on OOM for a valid json_t */
    return t;
}

/* Restores obj's metadata when an operation fails (no side effects). */
static void restore_meta(json_t *obj, json_t *saved)
{
    if (saved)
        json_object_set(obj, "metadata", saved);
    else
        json_object_del(obj, "metadata");
}

static void draw_name(json_t *obj, const char *prefix)
{
    char suffix[GENERATE_SUFFIX + 1];
    sl_kube_rand_suffix(suffix, GENERATE_SUFFIX);
    char *n = sl_xasprintf("%s%s", prefix, suffix);
    sl_kube_meta_set_str(obj, "name", n);
    free(n);
}

/* a create's write, as sl_store_write runs it: the name (generated ones
 * drawn again while taken), the revision, the row and its change */
typedef struct create_op {
    sl_store_t *s;
    const char *resource, *ns, *prefix;
    json_t *obj;
    sl_store_pretext_t pt;
    int fast; /* pt holds the text */
} create_op_t;

static int create_write(void *arg, sl_error_t *err)
{
    create_op_t *c = arg;
    sl_store_t *s = c->s;
    if (sl_store_wbegin(s, err) < 0)
        return -1;
    int64_t rv = s->next_rev + 1;
    sl_kube_set_rv(c->obj, rv);
    char *text = NULL;
    const char *name = NULL;
    int rc = -1, fast = c->fast;
    for (int attempt = 0; attempt < (c->prefix ? GENERATE_ATTEMPTS : 1); attempt++) {
        if (attempt) { /* a generated name taken: another, dumped here */
            draw_name(c->obj, c->prefix);
            fast = 0;
        }
        name = sl_kube_name(c->obj);
        free(text);
        text = fast ? sl_store_pretext_fill(&c->pt, rv) : sl_store_dump(c->obj);
        rc = sl_store_db_put(s, ST_INSERT, c->resource, c->ns, name, rv, text, err);
        if (rc == 0 || errno != EEXIST)
            break;
    }
    if (rc < 0 && errno == EEXIST)
        sl_errprintf(err, "%s \"%s\" already exists", c->resource, name);
    if (rc == 0)
        rc = sl_store_db_log(s, rv, SL_CHANGE_ADDED, c->resource, c->ns, name, text, NULL, err);
    int saved_errno = errno;
    free(text);
    if (sl_store_wend(s, rc == 0, 1, err) < 0)
        return -1;
    errno = saved_errno;
    return rc;
}

int sl_store_create(sl_store_t *s, const char *resource, json_t *obj, sl_error_t *err)
{
    if (!json_is_object(obj)) {
        errno = EINVAL;
        return sl_errprintf(err, "store: object is not a JSON object");
    }
    const char *name = sl_kube_name(obj);
    const char *gen = sl_kube_meta_str(obj, "generateName");
    int generate = !name || !*name;
    if (generate && (!gen || !*gen)) {
        errno = EINVAL;
        return sl_errprintf(err, "store: metadata.name or metadata.generateName is required");
    }
    json_t *saved = json_deep_copy(json_object_get(obj, "metadata"));
    char *prefix = generate ? sl_xstrndup(gen, GENERATE_PREFIX_MAX) : NULL;
    if (!sl_kube_uid(obj) || !*sl_kube_uid(obj)) {
        char uid[37];
        sl_kube_uuid4(uid);
        sl_kube_meta_set_str(obj, "uid", uid);
    }
    char *ts = sl_kube_now_rfc3339();
    sl_kube_meta_set_str(obj, "creationTimestamp", ts);
    free(ts);
    if (generate)
        draw_name(obj, prefix);
    /* the text made before the writer lock, its revision put in under it */
    create_op_t c = {
        .s = s, .resource = resource, .ns = sl_kube_namespace(obj), .prefix = prefix, .obj = obj};
    c.fast = sl_store_pretext_make(obj, &c.pt) == 0;
    int rc = sl_store_write(s, create_write, &c, err);
    int saved_errno = errno;
    sl_store_pretext_free(&c.pt);
    if (rc < 0)
        restore_meta(obj, saved);
    json_decref(saved);
    free(prefix);
    errno = saved_errno;
    return rc;
}

json_t *sl_store_get(sl_store_t *s, const char *resource, const char *ns, const char *name)
{
    struct sl_store_conn *c = sl_store_rlock(s);
    int64_t rv;
    char *text = NULL;
    int found = sl_store_db_get(s, c, resource, ns, name, &rv, &text, NULL);
    sl_store_runlock(s, c);
    if (found <= 0) {
        if (found == 0)
            errno = ENOENT;
        return NULL;
    }
    json_t *obj = json_loads(text, 0, NULL);
    free(text);
    if (!obj)
        errno = EIO;
    return obj;
}

/* Under the write lock: load the stored object. Returns it (new ref) with
 * *rv, or NULL with errno ENOENT/ESTALE/EIO and err filled. textp (if not
 * NULL) gets its stored text on success (caller frees). */
static json_t *load_for_write(sl_store_t *s, const char *resource, const char *ns, const char *name,
                              int64_t expect_rv, int64_t *rv, char **textp, sl_error_t *err)
{
    char *text = NULL;
    int found = sl_store_db_get(s, &s->w, resource, ns, name, rv, &text, err);
    if (found <= 0) {
        if (found == 0) {
            errno = ENOENT;
            sl_errprintf(err, "%s \"%s\" not found", resource, name);
        }
        return NULL;
    }
    if (expect_rv != 0 && expect_rv != *rv) {
        free(text);
        errno = ESTALE;
        sl_errprintf(err,
                     "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                     "please apply your changes to the latest version and try again",
                     resource, name);
        return NULL;
    }
    json_t *obj = json_loads(text, 0, NULL);
    if (!obj) {
        errno = EIO;
        sl_errprintf(err, "store: stored %s \"%s\" is not valid JSON", resource, name);
    }
    if (obj && textp)
        *textp = text;
    else
        free(text);
    return obj;
}

/* Write obj (whose key is resource/ns/name) as the next revision, replacing
 * the stored object whose text is prev, and log a MODIFIED change. wmu
 * held. */
static int write_modified(sl_store_t *s, const char *resource, const char *ns, const char *name,
                          json_t *obj, const char *prev, sl_error_t *err)
{
    int64_t rv = s->next_rev + 1;
    sl_kube_set_rv(obj, rv);
    char *text = sl_store_dump(obj);
    int rc = sl_store_db_put(s, ST_UPDATE, resource, ns, name, rv, text, err);
    if (rc == 0)
        rc = sl_store_db_log(s, rv, SL_CHANGE_MODIFIED, resource, ns, name, text, prev, err);
    free(text);
    return rc;
}

void sl_store_carry_immutable(json_t *obj, json_t *old)
{
    static const char *const keep[] = {"uid", "creationTimestamp"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const char *v = sl_kube_meta_str(old, keep[i]);
        if (v)
            sl_kube_meta_set_str(obj, keep[i], v);
    }
}

int sl_store_update(sl_store_t *s, const char *resource, json_t *obj, int64_t expect_rv,
                    sl_error_t *err)
{
    const char *name = sl_kube_name(obj);
    if (!json_is_object(obj) || !name || !*name) {
        errno = EINVAL;
        return sl_errprintf(err, "store: update needs an object with metadata.name");
    }
    const char *ns = sl_kube_namespace(obj);
    json_t *saved = json_deep_copy(json_object_get(obj, "metadata"));
    if (sl_store_wbegin(s, err) < 0) {
        json_decref(saved);
        return -1;
    }
    int64_t old_rv;
    int rc = -1, used = 0;
    char *prev = NULL;
    json_t *old = load_for_write(s, resource, ns, name, expect_rv, &old_rv, &prev, err);
    if (old) {
        sl_store_carry_immutable(obj, old);
        sl_kube_set_rv(obj, old_rv);
        if (json_equal(old, obj)) {
            rc = 0; /* no-op: no revision, no change */
        } else {
            rc = write_modified(s, resource, ns, name, obj, prev, err);
            used = 1;
        }
        json_decref(old);
        free(prev);
    }
    int saved_errno = errno;
    if (sl_store_wend(s, rc == 0, used, err) < 0 || rc < 0) {
        if (rc < 0)
            errno = saved_errno;
        saved_errno = errno;
        restore_meta(obj, saved);
        json_decref(saved);
        errno = saved_errno;
        return -1;
    }
    json_decref(saved);
    return 0;
}

int sl_store_apply(json_t *old, int64_t rv, const char *ns, const char *name, sl_store_mutate_fn fn,
                   void *arg, json_t **work)
{
    *work = json_deep_copy(old);
    errno = 0;
    int r = fn(*work, arg);
    if (r < 0) {
        if (!errno)
            errno = EINVAL;
        json_decref(*work);
        *work = NULL;
        return -1;
    }
    /* the key and the immutable fields stay what they were */
    sl_kube_meta_set_str(*work, "name", name);
    sl_kube_meta_set_str(*work, "namespace", ns && *ns ? ns : NULL);
    sl_store_carry_immutable(*work, old);
    sl_kube_set_rv(*work, rv);
    return r > 0 && !json_equal(old, *work);
}

int sl_store_refused(sl_error_t *err, const char *resource, const char *name)
{
    return sl_errprintf(err, "%s \"%s\": update refused: %s", resource, name, strerror(errno));
}

int sl_store_mutate_locked(sl_store_t *s, const char *resource, const char *ns, const char *name,
                           sl_store_mutate_fn fn, void *arg, json_t **work, int *used,
                           sl_error_t *err)
{
    int64_t old_rv;
    int rc = 0;
    char *prev = NULL;
    *work = NULL;
    *used = 0;
    json_t *old = load_for_write(s, resource, ns, name, 0, &old_rv, &prev, err);
    if (!old)
        return -1;
    int r = sl_store_apply(old, old_rv, ns, name, fn, arg, work);
    if (r < 0) {
        rc = sl_store_refused(err, resource, name);
    } else if (r > 0) {
        rc = write_modified(s, resource, ns, name, *work, prev, err);
        *used = 1;
    }
    json_decref(old);
    free(prev);
    return rc;
}

int sl_store_wend_out(sl_store_t *s, int rc, int used, json_t *work, json_t **out, sl_error_t *err)
{
    int saved_errno = errno;
    if (sl_store_wend(s, rc == 0, used, err) < 0 || rc < 0) {
        json_decref(work);
        if (rc < 0)
            errno = saved_errno;
        return -1;
    }
    if (out)
        *out = work;
    else
        json_decref(work);
    return 0;
}

int sl_store_mutate(sl_store_t *s, const char *resource, const char *ns, const char *name,
                    sl_store_mutate_fn fn, void *arg, json_t **out, sl_error_t *err)
{
    if (sl_store_wbegin(s, err) < 0)
        return -1;
    json_t *work = NULL;
    int used = 0;
    int rc = sl_store_mutate_locked(s, resource, ns, name, fn, arg, &work, &used, err);
    return sl_store_wend_out(s, rc, used, work, out, err);
}

int sl_store_delete(sl_store_t *s, const char *resource, const char *ns, const char *name,
                    int64_t expect_rv, json_t **oldp, sl_error_t *err)
{
    if (sl_store_wbegin(s, err) < 0)
        return -1;
    int64_t old_rv;
    int rc = -1;
    char *prev = NULL;
    json_t *old = load_for_write(s, resource, ns, name, expect_rv, &old_rv, &prev, err);
    if (old) {
        int64_t rv = s->next_rev + 1;
        sl_kube_set_rv(old, rv);
        char *text = sl_store_dump(old);
        rc = sl_store_db_put(s, ST_DELETE, resource, ns, name, 0, NULL, err);
        if (rc == 0)
            rc = sl_store_db_log(s, rv, SL_CHANGE_DELETED, resource, ns, name, text, prev, err);
        free(text);
        free(prev);
    }
    int saved_errno = errno;
    if (sl_store_wend(s, rc == 0, 1, err) < 0 || rc < 0) {
        json_decref(old);
        if (rc < 0)
            errno = saved_errno;
        return -1;
    }
    if (oldp)
        *oldp = old;
    else
        json_decref(old);
    return 0;
}

/* ---- reads in one snapshot -------------------------------------------- */

/* Open a read snapshot on c and read the log bounds in it. */
static int snap_begin(sl_store_t *s, struct sl_store_conn *c, int64_t *min, int64_t *max,
                      sl_error_t *err)
{
    if (!sl_store_in_txn(s)) {
        sqlite3_stmt *b = c->st[ST_BEGIN];
        int rc = sqlite3_step(b);
        sqlite3_reset(b);
        if (rc != SQLITE_DONE)
            return sl_store_dberr(s, c->db, rc, err, "begin read");
    }
    sqlite3_stmt *st = c->st[ST_LOG_BOUNDS];
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *min = sqlite3_column_int64(st, 0);
        *max = sqlite3_column_int64(st, 1);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW) {
        int e = sl_store_dberr(s, c->db, rc, err, "read revision");
        if (!sl_store_in_txn(s)) {
            sqlite3_step(c->st[ST_COMMIT]);
            sqlite3_reset(c->st[ST_COMMIT]);
        }
        return e;
    }
    return 0;
}

static void snap_end(sl_store_t *s, struct sl_store_conn *c)
{
    if (sl_store_in_txn(s))
        return;
    sqlite3_step(c->st[ST_COMMIT]);
    sqlite3_reset(c->st[ST_COMMIT]);
}

int sl_store_list_each(sl_store_t *s, const char *resource, const char *ns, sl_store_each_fn fn,
                       void *arg, int64_t *rvp)
{
    struct sl_store_conn *c = sl_store_rlock(s);
    int64_t min, max;
    if (snap_begin(s, c, &min, &max, NULL) < 0) {
        int e = errno;
        sl_store_runlock(s, c);
        errno = e;
        return -1;
    }
    if (sl_store_in_txn(s))
        max = s->next_rev; /* the batch's own uncommitted revisions */
    sqlite3_stmt *st = c->st[ns ? ST_LIST_NS : ST_LIST_ALL];
    bind_key(st, resource, ns, NULL);
    int rc, ret = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        sl_store_item_t it = {(const char *)sqlite3_column_text(st, 1),
                              (const char *)sqlite3_column_text(st, 2),
                              sqlite3_column_int64(st, 3)};
        if (fn(arg, text, len, &it) < 0) {
            ret = -1;
            break;
        }
    }
    int e = errno;
    if (ret == 0 && rc != SQLITE_DONE) {
        e = sl_store_errno(rc);
        ret = -1;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    snap_end(s, c);
    sl_store_runlock(s, c);
    if (rvp) /* also when fn stopped it: what was read is consistent with max */
        *rvp = max;
    if (ret < 0) {
        errno = e ? e : EIO;
        return -1;
    }
    return 0;
}

static int append_parsed(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    json_t *o = json_loadb(json, len, 0, NULL);
    if (!o) {
        errno = EIO;
        return -1;
    }
    json_array_append_new(arg, o);
    return 0;
}

json_t *sl_store_list(sl_store_t *s, const char *resource, const char *ns, int64_t *rv)
{
    json_t *a = json_array();
    if (sl_store_list_each(s, resource, ns, append_parsed, a, rv) < 0) {
        int e = errno;
        json_decref(a);
        errno = e;
        return NULL;
    }
    return a;
}

long sl_store_count(sl_store_t *s, const char *resource, const char *ns)
{
    struct sl_store_conn *c = sl_store_rlock(s);
    sqlite3_stmt *st = c->st[ns ? ST_COUNT_NS : ST_COUNT_ALL];
    bind_key(st, resource, ns, NULL);
    long n = -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        n = (long)sqlite3_column_int64(st, 0);
    else
        errno = sl_store_errno(rc) ? sl_store_errno(rc) : EIO;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sl_store_runlock(s, c);
    return n;
}

static const char *const change_type[] = {[SL_CHANGE_ADDED] = "ADDED",
                                          [SL_CHANGE_MODIFIED] = "MODIFIED",
                                          [SL_CHANGE_DELETED] = "DELETED"};

/* One row of the change log, valid only during the callback; prev is NULL
 * unless MODIFIED (ST_LOG_*). */
typedef sl_store_change_t change_row_t;
typedef sl_store_change_row_fn change_row_fn;

/* Step through the rows of st (bound), calling fn; 0, or -1 with errno. */
static int each_row(sl_store_t *s, struct sl_store_conn *c, sqlite3_stmt *st, change_row_fn fn,
                    void *arg, sl_error_t *err)
{
    int rc, ret = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int type = sqlite3_column_int(st, 1);
        if (type < SL_CHANGE_ADDED || type > SL_CHANGE_DELETED) {
            rc = SQLITE_CORRUPT;
            break;
        }
        change_row_t row = {.rv = sqlite3_column_int64(st, 0),
                            .type = change_type[type],
                            .json = (const char *)sqlite3_column_text(st, 2),
                            .len = (size_t)sqlite3_column_bytes(st, 2),
                            .ns = (const char *)sqlite3_column_text(st, 3),
                            .name = (const char *)sqlite3_column_text(st, 4),
                            .prev = (const char *)sqlite3_column_text(st, 5),
                            .prev_len = (size_t)sqlite3_column_bytes(st, 5)};
        if (fn(arg, &row) < 0) {
            ret = -1;
            break;
        }
    }
    int e = errno;
    if (ret == 0 && rc != SQLITE_DONE) {
        ret = sl_store_dberr(s, c->db, rc, err, "read changes");
        e = errno;
    } else if (ret < 0) {
        sl_errprintf(err, "store: reading changes stopped: %s", strerror(e));
    }
    errno = e;
    return ret;
}

static int changes_rows(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                        size_t max, change_row_fn fn, void *arg, sl_error_t *err)
{
    struct sl_store_conn *c = sl_store_rlock(s);
    int64_t lo, hi;
    if (snap_begin(s, c, &lo, &hi, err) < 0) {
        int e = errno;
        sl_store_runlock(s, c);
        errno = e;
        return -1;
    }
    if (after_rv < 0)
        after_rv = 0;
    /* complete only if every rv in (after_rv, hi] is still in the log */
    if (after_rv < hi && lo > 0 && after_rv + 1 < lo) {
        snap_end(s, c);
        sl_store_runlock(s, c);
        errno = ERANGE;
        return sl_errprintf(err, "too old resource version: %lld (%lld)", (long long)after_rv,
                            (long long)(lo - 1));
    }
    int nsf = ns != NULL;
    sqlite3_stmt *st = c->st[nsf ? ST_LOG_NS : ST_LOG_ALL];
    sqlite3_bind_int64(st, 1, after_rv);
    sqlite3_bind_text(st, 2, resource, -1, SQLITE_STATIC);
    if (nsf)
        sqlite3_bind_text(st, 3, ns, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, nsf ? 4 : 3, max ? (sqlite3_int64)max : -1);
    int ret = each_row(s, c, st, fn, arg, err);
    int e = errno;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    snap_end(s, c);
    sl_store_runlock(s, c);
    errno = e;
    return ret;
}

typedef struct each_arg {
    sl_store_change_fn fn;
    void *arg;
} each_arg_t;

static int each_adapter(void *arg, const change_row_t *row)
{
    each_arg_t *a = arg;
    return a->fn(a->arg, row->rv, row->type, row->ns, row->name, row->json, row->len);
}

int sl_store_changes_rows(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                          size_t max, sl_store_change_row_fn fn, void *arg, sl_error_t *err)
{
    return changes_rows(s, after_rv, resource, ns, max, fn, arg, err);
}

int sl_store_changes_each(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                          size_t max, sl_store_change_fn fn, void *arg, sl_error_t *err)
{
    each_arg_t a = {fn, arg};
    return changes_rows(s, after_rv, resource, ns, max, each_adapter, &a, err);
}

/* A change copied out under the reader and parsed after it is let go: the
 * API's reads wait on that one reader meanwhile. type: change_type's. */
typedef struct text_change {
    int64_t rv;
    const char *type;
    char *json;
    size_t len;
} text_change_t;

typedef struct collect {
    text_change_t *v;
    size_t n, cap;
    sl_store_skip_fn skip; /* NULL: none skipped */
    void *skip_arg;
} collect_t;

static int copy_change(void *arg, const change_row_t *row)
{
    collect_t *c = arg;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->v = sl_xrealloc(c->v, c->cap * sizeof(*c->v));
    }
    text_change_t *t = &c->v[c->n++];
    *t = (text_change_t){row->rv, row->type, NULL, 0};
    if (c->skip && c->skip(c->skip_arg, row->rv))
        return 0; /* its object left out */
    t->json = sl_xstrndup(row->json, row->len);
    t->len = row->len;
    return 0;
}

static void copies_free(collect_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->v[i].json);
    free(c->v);
}

/* The copied changes as [{rv, type, object}] (a skipped one
 * without object), or NULL when one does not parse. */
static json_t *parse_changes(const collect_t *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const text_change_t *t = &c->v[i];
        if (!t->json) {
            json_array_append_new(arr,
                                  json_pack("{s:I,s:s}", "rv", (json_int_t)t->rv, "type", t->type));
            continue;
        }
        json_t *o = json_loadb(t->json, t->len, 0, NULL);
        if (!o) {
            json_decref(arr);
            return NULL;
        }
        json_array_append_new(
            arr, json_pack("{s:I,s:s,s:o}", "rv", (json_int_t)t->rv, "type", t->type, "object", o));
    }
    return arr;
}

static json_t *collect_changes(sl_store_t *s, int64_t after_rv, const char *resource,
                               const char *ns, size_t max, sl_store_skip_fn skip, void *skip_arg,
                               sl_error_t *err)
{
    collect_t c = {NULL, 0, 0, skip, skip_arg};
    json_t *arr = NULL;
    int e;
    if (changes_rows(s, after_rv, resource, ns, max, copy_change, &c, err) < 0) {
        e = errno;
    } else if (!(arr = parse_changes(&c))) {
        e = EIO;
        sl_errprintf(err, "store: a logged change does not parse");
    } else {
        e = 0;
    }
    copies_free(&c);
    if (!arr)
        errno = e;
    return arr;
}

json_t *sl_store_changes(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                         size_t max, sl_error_t *err)
{
    return collect_changes(s, after_rv, resource, ns, max, NULL, NULL, err);
}

json_t *sl_store_changes_skip(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                              size_t max, sl_store_skip_fn skip, void *arg, sl_error_t *err)
{
    return collect_changes(s, after_rv, resource, ns, max, skip, arg, err);
}

int64_t sl_store_oldest_rv(sl_store_t *s)
{
    struct sl_store_conn *c = sl_store_rlock(s);
    int64_t lo = 0, hi = 0;
    int rc = snap_begin(s, c, &lo, &hi, NULL);
    if (rc == 0)
        snap_end(s, c);
    sl_store_runlock(s, c);
    if (rc < 0)
        return -1;
    return lo > 0 ? lo - 1 : hi;
}
