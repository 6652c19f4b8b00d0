/* store: CRUD, revisions, persistence, conflicts, change log, wait, threads. */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/internal.h"
#include "store/store.h"

static json_t *pod(const char *ns, const char *name)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s}},s:{s:[{s:s,s:s}]}}", "apiVersion", "v1", "kind",
                     "Pod", "metadata", "name", name, "namespace", ns, "labels", "app", "web",
                     "spec", "containers", "name", "c", "image", "busybox");
}

static void test_crud(sl_store_t *s)
{
    sl_error_t err;
    is_int(sl_store_revision(s), 0, "fresh store is at revision 0");
    json_t *p = pod("default", "p1");
    is_int(sl_store_create(s, "pods", p, &err), 0, "create p1");
    is_str(sl_kube_meta_str(p, "resourceVersion"), "1", "create sets resourceVersion 1");
    const char *uid = sl_kube_uid(p);
    ok(uid && strlen(uid) == 36 && uid[14] == '4', "create sets a v4 uid (%s)", uid ? uid : "");
    ok(sl_kube_meta_str(p, "creationTimestamp") != NULL, "create sets creationTimestamp");
    is_int(sl_store_revision(s), 1, "revision 1 after one create");

    json_t *dup = pod("default", "p1");
    int rc = sl_store_create(s, "pods", dup, &err);
    ok(rc == -1 && errno == EEXIST, "second create fails with EEXIST");
    has_str(err.text, "pods \"p1\" already exists", "error text says it exists");
    ok(sl_kube_uid(dup) == NULL && sl_kube_meta_str(dup, "resourceVersion") == NULL,
       "failed create leaves the object untouched");
    json_decref(dup);
    is_int(sl_store_revision(s), 1, "failed create takes no revision");

    json_t *other = pod("other", "p1");
    is_int(sl_store_create(s, "pods", other, &err), 0, "same name in another namespace");
    json_t *cm = json_pack("{s:{s:s,s:s},s:{s:s}}", "metadata", "name", "p1", "namespace",
                           "default", "data", "k", "v");
    is_int(sl_store_create(s, "configmaps", cm, &err), 0, "same name in another resource");
    json_t *node = json_pack("{s:{s:s}}", "metadata", "name", "n1");
    is_int(sl_store_create(s, "nodes", node, &err), 0, "cluster-scoped object");

    json_t *g = sl_store_get(s, "pods", "default", "p1");
    ok(g && json_equal(g, p), "get returns what create stored");
    json_decref(g);
    g = sl_store_get(s, "nodes", NULL, "n1");
    ok(g != NULL, "get cluster-scoped with ns NULL");
    json_decref(g);
    g = sl_store_get(s, "nodes", "", "n1");
    ok(g != NULL, "get cluster-scoped with ns \"\"");
    json_decref(g);
    errno = 0;
    ok(sl_store_get(s, "pods", "default", "nope") == NULL && errno == ENOENT,
       "get missing: NULL, ENOENT");

    /* update */
    json_t *u = json_deep_copy(p);
    sl_kube_set_label(u, "tier", "1");
    json_object_del(json_object_get(u, "metadata"), "uid");
    is_int(sl_store_update(s, "pods", u, 1, &err), 0, "update with the right rv");
    is_str(sl_kube_meta_str(u, "resourceVersion"), "5", "update takes the next revision");
    is_str(sl_kube_uid(u), sl_kube_uid(p), "update keeps the uid");
    json_t *stale = json_deep_copy(p);
    sl_kube_set_label(stale, "tier", "2");
    rc = sl_store_update(s, "pods", stale, 1, &err);
    ok(rc == -1 && errno == ESTALE, "update with a stale rv fails with ESTALE");
    has_str(err.text, "Operation cannot be fulfilled on pods \"p1\": the object has been modified",
            "conflict text");
    is_str(sl_kube_meta_str(stale, "resourceVersion"), "1", "failed update leaves rv as it was");
    is_int(sl_store_update(s, "pods", stale, 0, &err), 0, "unconditional update (rv 0)");
    is_str(sl_kube_meta_str(stale, "resourceVersion"), "6", "revision 6");
    json_t *same = json_deep_copy(stale);
    sl_kube_set_rv(same, 2);
    is_int(sl_store_update(s, "pods", same, 0, &err), 0, "no-op update succeeds");
    is_str(sl_kube_meta_str(same, "resourceVersion"), "6", "no-op update keeps the revision");
    is_int(sl_store_revision(s), 6, "no-op update takes no revision");
    json_t *missing = pod("default", "ghost");
    rc = sl_store_update(s, "pods", missing, 0, &err);
    ok(rc == -1 && errno == ENOENT, "update missing: ENOENT");
    json_decref(missing);
    json_decref(same);
    json_decref(stale);
    json_decref(u);

    /* list */
    json_t *more = pod("default", "a0");
    sl_store_create(s, "pods", more, NULL);
    json_decref(more);
    int64_t rv = 0;
    json_t *all = sl_store_list(s, "pods", NULL, &rv);
    is_int(json_array_size(all), 3, "list all namespaces: 3 pods");
    is_int(rv, 7, "list rv is the current revision");
    is_str(sl_kube_name(json_array_get(all, 0)), "a0", "ordered by namespace, name (1)");
    is_str(sl_kube_name(json_array_get(all, 1)), "p1", "ordered by namespace, name (2)");
    is_str(sl_kube_namespace(json_array_get(all, 2)), "other", "ordered by namespace, name (3)");
    json_decref(all);
    all = sl_store_list(s, "pods", "other", NULL);
    is_int(json_array_size(all), 1, "list one namespace");
    json_decref(all);
    all = sl_store_list(s, "secrets", NULL, NULL);
    ok(all && json_array_size(all) == 0, "list of an empty resource is []");
    json_decref(all);
    is_int(sl_store_count(s, "pods", NULL), 3, "count all");
    is_int(sl_store_count(s, "pods", "default"), 2, "count namespace");

    /* delete */
    json_t *old = NULL;
    rc = sl_store_delete(s, "pods", "default", "p1", 1, &old, &err);
    ok(rc == -1 && errno == ESTALE, "delete with stale rv: ESTALE");
    is_int(sl_store_delete(s, "pods", "default", "p1", 6, &old, &err), 0, "delete");
    is_str(sl_kube_meta_str(old, "resourceVersion"), "8", "deleted object carries a new rv");
    is_str(sl_kube_label(old, "tier"), "2", "deleted object is the last state");
    json_decref(old);
    errno = 0;
    ok(sl_store_get(s, "pods", "default", "p1") == NULL && errno == ENOENT, "gone after delete");
    rc = sl_store_delete(s, "pods", "default", "p1", 0, NULL, &err);
    ok(rc == -1 && errno == ENOENT, "delete missing: ENOENT");
    is_int(sl_store_revision(s), 8, "revision 8");

    json_decref(p);
    json_decref(other);
    json_decref(cm);
    json_decref(node);
}

static void test_generate_name(sl_store_t *s)
{
    json_t *p = json_pack("{s:{s:s,s:s}}", "metadata", "generateName", "job-", "namespace", "ns");
    is_int(sl_store_create(s, "pods", p, NULL), 0, "create with generateName");
    const char *n = sl_kube_name(p);
    ok(n && strlen(n) == 9 && strncmp(n, "job-", 4) == 0 &&
           strspn(n + 4, "bcdfghjklmnpqrstvwxz2456789") == 5,
       "name is generateName + 5 chars (%s)", n ? n : "");
    json_decref(p);
    char longp[80];
    memset(longp, 'a', 70);
    longp[70] = '\0';
    p = json_pack("{s:{s:s}}", "metadata", "generateName", longp);
    is_int(sl_store_create(s, "pods", p, NULL), 0, "create with a long generateName");
    is_int(strlen(sl_kube_name(p)), 63, "generated name is cut to 63");
    json_decref(p);
    p = json_pack("{s:{s:s}}", "metadata", "namespace", "ns");
    sl_error_t err;
    int rc = sl_store_create(s, "pods", p, &err);
    ok(rc == -1 && errno == EINVAL, "no name and no generateName: EINVAL");
    json_decref(p);
}

struct raw {
    int n, json_ok;
    char last[64];
};

static int raw_change(void *arg, int64_t rv, const char *type, const char *ns, const char *name,
                      const char *json, size_t len)
{
    struct raw *r = arg;
    json_t *o = json_loadb(json, len, 0, NULL);
    r->json_ok =
        (r->n == 0 || r->json_ok) && o && sl_kube_rv(o) == rv && !strcmp(sl_kube_name(o), name);
    json_decref(o);
    snprintf(r->last, sizeof r->last, "%s %s/%s", type, ns, name);
    r->n++;
    return 0;
}

/* pods PREFIX<from>..PREFIX<to - 1> created in namespace trim */
static void create_trim(sl_store_t *s, const char *prefix, int from, int to)
{
    for (int i = from; i < to; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        json_t *t = pod("trim", name);
        sl_store_create(s, "pods", t, NULL);
        json_decref(t);
    }
}

static void test_changes(sl_store_t *s)
{
    sl_error_t err;
    int64_t base = sl_store_revision(s);
    json_t *p = pod("w", "p");
    sl_store_create(s, "pods", p, NULL);
    sl_kube_set_label(p, "x", "y");
    sl_store_update(s, "pods", p, 0, NULL);
    sl_store_delete(s, "pods", "w", "p", 0, NULL, NULL);
    json_t *e = pod("w2", "e");
    sl_store_create(s, "events", e, NULL);
    json_decref(e);
    json_t *c = sl_store_changes(s, base, "pods", NULL, 0, &err);
    is_int(json_array_size(c), 3, "three pod changes after base");
    is_str(json_string_value(json_object_get(json_array_get(c, 0), "type")), "ADDED", "ADDED");
    is_str(json_string_value(json_object_get(json_array_get(c, 1), "type")), "MODIFIED",
           "MODIFIED");
    is_str(json_string_value(json_object_get(json_array_get(c, 2), "type")), "DELETED", "DELETED");
    is_int(json_integer_value(json_object_get(json_array_get(c, 2), "rv")), base + 3,
           "rv of DELETED");
    is_str(sl_kube_label(json_object_get(json_array_get(c, 2), "object"), "x"), "y",
           "DELETED carries the last object");
    json_decref(c);
    c = sl_store_changes(s, base + 1, "pods", NULL, 1, &err);
    ok(json_array_size(c) == 1 &&
           json_integer_value(json_object_get(json_array_get(c, 0), "rv")) == base + 2,
       "resume after an rv, limited by max");
    json_decref(c);
    c = sl_store_changes(s, base, "pods", "other-ns", 0, &err);
    is_int(json_array_size(c), 0, "namespace filter");
    json_decref(c);
    struct raw r = {0};
    is_int(sl_store_changes_each(s, base, "pods", NULL, 0, raw_change, &r, &err), 0,
           "raw change iteration");
    is_int(r.n, 3, "raw: three changes");
    is_str(r.last, "DELETED w/p", "raw: type, namespace and name of the last change");
    ok(r.json_ok, "raw: every text is the stored JSON of the object");
    c = sl_store_changes(s, base, "events", "w2", 0, &err);
    is_int(json_array_size(c), 1, "resource + namespace filter");
    json_decref(c);
    c = sl_store_changes(s, sl_store_revision(s) + 10, "pods", NULL, 0, &err);
    ok(c && json_array_size(c) == 0, "future rv: empty");
    json_decref(c);

    /* trimming */
    sl_store_set_log_limit(s, 10);
    create_trim(s, "t", 0, 200);
    int64_t rev = sl_store_revision(s);
    int64_t oldest = sl_store_oldest_rv(s);
    ok(oldest >= rev - 10 - 64 && oldest <= rev - 10, "oldest resumable rv %lld within bound",
       (long long)oldest);
    c = sl_store_changes(s, base, "pods", NULL, 0, &err);
    ok(c == NULL && errno == ERANGE, "resume from a trimmed rv: ERANGE");
    has_str(err.text, "too old resource version", "410 text");
    c = sl_store_changes(s, oldest, "pods", NULL, 0, &err);
    ok(c && (int64_t)json_array_size(c) == rev - oldest, "resume from the oldest rv works");
    json_decref(c);
    c = sl_store_changes(s, rev - 3, "pods", "trim", 0, &err);
    is_int(json_array_size(c), 3, "resume near the head");
    json_decref(c);

    /* an in-process reader's hold keeps what it has not read, up to
     * SL_STORE_HOLD_FACTOR times the bound (30 here: 120) */
    sl_store_set_log_limit(s, 30);
    int64_t held = sl_store_revision(s);
    sl_store_log_hold(s, held);
    create_trim(s, "h", 0, 100);
    c = sl_store_changes(s, held, "pods", NULL, 0, &err);
    ok(c && json_array_size(c) == 100, "held: the 100 changes after the hold are kept (bound 30)");
    json_decref(c);
    create_trim(s, "h", 100, 300);
    c = sl_store_changes(s, held, "pods", NULL, 0, &err);
    ok(c == NULL && errno == ERANGE, "300 changes after it, past 4 times the bound: ERANGE");
    oldest = sl_store_oldest_rv(s);
    rev = sl_store_revision(s);
    ok(oldest >= rev - 120 - 64 && oldest <= rev - 120, "held: the log keeps 4 times the bound");
    sl_store_log_hold(s, 0);
    create_trim(s, "h", 300, 301);
    oldest = sl_store_oldest_rv(s);
    rev = sl_store_revision(s);
    ok(oldest >= rev - 30 - 64 && oldest <= rev - 30, "hold dropped: the bound again (%lld, %lld)",
       (long long)oldest, (long long)rev);
    json_decref(p);
}

static int set_phase(json_t *obj, void *arg)
{
    json_object_set_new(obj, "status", json_pack("{s:s}", "phase", (const char *)arg));
    return 1;
}

static const char *prev_label(json_t *c, size_t i, const char *key)
{
    json_t *prev = json_object_get(json_array_get(c, i), "prev");
    return prev ? sl_kube_label(prev, key) : "(no prev)";
}

/* sl_store_changes_rows' fn for changes_prev: each change parsed, with its prev */
static int add_parsed(void *arg, const sl_store_change_t *c)
{
    json_t *ch = json_pack("{s:I,s:s,s:o}", "rv", (json_int_t)c->rv, "type", c->type, "object",
                           json_loadb(c->json, c->len, 0, NULL));
    if (c->prev)
        json_object_set_new(ch, "prev", json_loadb(c->prev, c->prev_len, 0, NULL));
    json_array_append_new(arg, ch);
    return 0;
}

/* The changes as the watches read them (sl_store_changes_rows), parsed:
 * [{rv, type, object[, prev]}], or NULL */
static json_t *changes_prev(sl_store_t *s, int64_t after_rv, const char *ns, sl_error_t *err)
{
    json_t *arr = json_array();
    if (sl_store_changes_rows(s, after_rv, "pods", ns, 0, add_parsed, arr, err) < 0) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* A MODIFIED change carries the object before it. */
static void test_prev(sl_store_t *s)
{
    sl_error_t err;
    int64_t base = sl_store_revision(s);
    json_t *p = pod("prev", "p");
    sl_store_create(s, "pods", p, NULL);
    sl_kube_set_label(p, "app", "db");
    sl_store_update(s, "pods", p, 0, NULL);
    json_decref(p);
    sl_store_mutate(s, "pods", "prev", "p", set_phase, "Running", NULL, NULL);
    sl_store_delete(s, "pods", "prev", "p", 0, NULL, NULL);
    json_t *c = changes_prev(s, base, "prev", &err);
    is_int(json_array_size(c), 4, "prev: four changes");
    ok(!json_object_get(json_array_get(c, 0), "prev"), "ADDED has no prev");
    is_str(prev_label(c, 1, "app"), "web", "update: prev is the object before the change");
    is_int(sl_kube_rv(json_object_get(json_array_get(c, 1), "prev")), base + 1,
           "with the resourceVersion it had");
    is_str(prev_label(c, 2, "app"), "db", "mutate: prev too");
    ok(!json_object_get(json_array_get(c, 2), "prev") ||
           !sl_kube_path_str(json_object_get(json_array_get(c, 2), "prev"), "status.phase"),
       "mutate: prev is before the mutation");
    ok(!json_object_get(json_array_get(c, 3), "prev"), "DELETED has no prev (its object is it)");
    json_decref(c);
    c = sl_store_changes(s, base, "pods", "prev", 0, &err);
    ok(!json_object_get(json_array_get(c, 1), "prev"), "sl_store_changes leaves prev out");
    json_decref(c);
}

static int sql(sqlite3 *db, const char *q) { return sqlite3_exec(db, q, NULL, NULL, NULL); }

/* A database of schema 1 (no prev column) opens, keeps its changes (without
 * prev) and logs new ones with prev. */
static void test_migration(const char *dir)
{
    char *path = sl_xasprintf("%s/v1.db", dir);
    sqlite3 *db;
    sqlite3_open(path, &db);
    int rc = sql(db, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                     "CREATE TABLE objects (resource TEXT NOT NULL, ns TEXT NOT NULL,"
                     " name TEXT NOT NULL, rv INTEGER NOT NULL, data TEXT NOT NULL,"
                     " PRIMARY KEY (resource, ns, name));"
                     "CREATE TABLE changes (rv INTEGER PRIMARY KEY, type INTEGER NOT NULL,"
                     " resource TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,"
                     " data TEXT NOT NULL);"
                     "INSERT INTO meta VALUES ('schema', '1');"
                     "INSERT INTO objects VALUES ('pods', 'm', 'old', 2,"
                     " '{\"metadata\":{\"name\":\"old\",\"namespace\":\"m\","
                     "\"resourceVersion\":\"2\",\"labels\":{\"a\":\"2\"}}}');"
                     "INSERT INTO changes VALUES (2, 2, 'pods', 'm', 'old',"
                     " '{\"metadata\":{\"name\":\"old\",\"namespace\":\"m\","
                     "\"resourceVersion\":\"2\",\"labels\":{\"a\":\"2\"}}}');");
    sqlite3_close(db);
    is_int(rc, SQLITE_OK, "a schema 1 database");
    sl_error_t err = SL_ERROR_INIT;
    sl_store_t *s = sl_store_open(path, &err);
    ok(s != NULL, "schema 1 opens (%s)", err.text);
    if (!s) {
        free(path);
        return;
    }
    is_int(sl_store_revision(s), 2, "its revision");
    json_t *o = sl_store_get(s, "pods", "m", "old");
    sl_kube_set_label(o, "a", "3");
    is_int(sl_store_update(s, "pods", o, 0, &err), 0, "update after the migration");
    json_decref(o);
    json_t *c = changes_prev(s, 1, NULL, &err);
    ok(c && json_array_size(c) == 2, "the old change and the new one");
    ok(!json_object_get(json_array_get(c, 0), "prev"), "the old change has no prev");
    is_str(prev_label(c, 1, "a"), "2", "the new one has");
    json_decref(c);
    sl_store_close(s);
    s = sl_store_open(path, &err);
    ok(s != NULL, "reopens at schema 2");
    sl_store_close(s);
    sqlite3_open(path, &db);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema'", -1, &st, NULL);
    sqlite3_step(st);
    is_str((const char *)sqlite3_column_text(st, 0), "2", "schema recorded as 2");
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
}

static void test_persistence(const char *path)
{
    sl_error_t err;
    sl_store_t *s = sl_store_open(path, &err);
    ok(s != NULL, "open %s", path);
    test_crud(s);
    int64_t rev = sl_store_revision(s);
    json_t *before = sl_store_get(s, "pods", "default", "a0");
    sl_store_close(s);

    s = sl_store_open(path, &err);
    ok(s != NULL, "reopen");
    is_int(sl_store_revision(s), rev, "revision survives restart");
    json_t *after = sl_store_get(s, "pods", "default", "a0");
    ok(after && json_equal(before, after), "object and its resourceVersion survive restart");
    json_t *c = sl_store_changes(s, rev - 1, "pods", NULL, 0, &err);
    ok(c && json_array_size(c) == 1, "change log survives restart");
    json_decref(c);
    json_t *p = pod("default", "new");
    sl_store_create(s, "pods", p, NULL);
    is_int(sl_kube_rv(p), rev + 1, "new revisions continue above the old ones");
    json_decref(p);
    json_decref(before);
    json_decref(after);
    sl_store_close(s);
}

struct waiter {
    sl_store_t *s;
    int64_t after, got;
    int timeout;
    int done;
};

static void *wait_thread(void *arg)
{
    struct waiter *w = arg;
    w->got = sl_store_wait(w->s, w->after, w->timeout);
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static int notified;
static void on_notify(void *arg, int64_t rv)
{
    (void)arg;
    __atomic_store_n(&notified, (int)rv, __ATOMIC_SEQ_CST);
}

static void test_wait(sl_store_t *s)
{
    int64_t rev = sl_store_revision(s);
    long long t0 = sl_now_ms();
    is_int(sl_store_wait(s, rev, 100), rev, "wait times out with the same revision");
    ok(sl_now_ms() - t0 >= 90, "and waited for the timeout");
    is_int(sl_store_wait(s, rev - 1, 5000), rev, "wait returns at once when already newer");

    int id = sl_store_notify_add(s, on_notify, NULL);
    /* waiters without a timeout: returning at all is being woken (a
     * missed wakeup hangs the test, which the runner fails) */
    struct waiter w = {.s = s, .after = rev, .timeout = -1};
    pthread_t th;
    pthread_create(&th, NULL, wait_thread, &w);
    sl_sleep_ms(50);
    json_t *p = pod("wait", "p");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    pthread_join(th, NULL);
    is_int(w.got, rev + 1, "a write wakes the waiter with the new revision");
    ok(__atomic_load_n(&w.done, __ATOMIC_SEQ_CST), "woken, with no timeout to end the wait");
    is_int(__atomic_load_n(&notified, __ATOMIC_SEQ_CST), rev + 1, "notify callback ran");
    sl_store_notify_remove(s, id);

    struct waiter wk = {.s = s, .after = rev + 1, .timeout = -1};
    pthread_create(&th, NULL, wait_thread, &wk);
    /* a kick is not sticky, and the thread may not be waiting yet on a
     * loaded machine: kick until it returns */
    while (!__atomic_load_n(&wk.done, __ATOMIC_SEQ_CST)) {
        sl_store_kick(s);
        sl_sleep_ms(10);
    }
    pthread_join(th, NULL);
    ok(wk.got == rev + 1, "kick wakes a waiter that has no timeout");
    ok(!sl_store_shutting_down(s), "kick is not shutdown");
    t0 = sl_now_ms();
    sl_store_wait(s, rev + 1, 100);
    ok(sl_now_ms() - t0 >= 90, "kick is not sticky: the next wait sleeps");

    /* a mark: a kick after it, even one before the wait begins, ends the
     * wait (a worker's result handed back while the waiter was busy) */
    sl_store_mark_t m = sl_store_mark(s);
    is_int(m.rev, rev + 1, "a mark holds the committed revision");
    sl_store_kick(s);
    t0 = sl_now_ms();
    is_int(sl_store_wait_mark(s, m, 60000), rev + 1, "a kick before the wait, after the mark:");
    ok(sl_now_ms() - t0 < 30000, "the wait from the mark returns at once");
    m = sl_store_mark(s);
    t0 = sl_now_ms();
    sl_store_wait_mark(s, m, 100);
    ok(sl_now_ms() - t0 >= 90, "a mark taken after that kick sleeps until its timeout");

    struct waiter w2 = {.s = s, .after = rev + 1, .timeout = -1};
    pthread_create(&th, NULL, wait_thread, &w2);
    sl_sleep_ms(50);
    sl_store_wakeup(s);
    pthread_join(th, NULL);
    is_int(w2.got, rev + 1, "wakeup releases a waiter with no timeout");
    ok(sl_store_shutting_down(s), "shutting down after wakeup");
    is_int(sl_store_wait(s, rev + 1, -1), rev + 1,
           "a later wait, even without a timeout, returns after wakeup");
}

#define NTHREADS 4
#define PER_THREAD 100
struct writer {
    sl_store_t *s;
    int id, failures;
};

static int bump(json_t *obj, void *arg)
{
    (void)arg;
    json_t *st = json_object_get(obj, "status");
    if (!st) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    json_object_set_new(st, "n", json_integer(json_integer_value(json_object_get(st, "n")) + 1));
    return 1;
}

static void *writer_thread(void *arg)
{
    struct writer *w = arg;
    for (int i = 0; i < PER_THREAD; i++) {
        char name[32];
        snprintf(name, sizeof name, "w%d-%d", w->id, i);
        json_t *p = pod("conc", name);
        if (sl_store_create(w->s, "pods", p, NULL) < 0)
            w->failures++;
        json_decref(p);
        if (sl_store_mutate(w->s, "pods", "conc", "counter", bump, NULL, NULL, NULL) < 0)
            w->failures++;
        json_t *l = sl_store_list(w->s, "pods", "conc", NULL);
        if (!l)
            w->failures++;
        json_decref(l);
    }
    return NULL;
}

static void test_concurrency(sl_store_t *s)
{
    sl_store_set_log_limit(s, 10000);
    json_t *c = pod("conc", "counter");
    sl_store_create(s, "pods", c, NULL);
    json_decref(c);
    int64_t rev = sl_store_revision(s);
    pthread_t th[NTHREADS];
    struct writer w[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (struct writer){.s = s, .id = i};
        pthread_create(&th[i], NULL, writer_thread, &w[i]);
    }
    int failures = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        failures += w[i].failures;
    }
    is_int(failures, 0, "no failures from %d concurrent writers", NTHREADS);
    is_int(sl_store_revision(s), rev + 2 * NTHREADS * PER_THREAD, "every write took one revision");
    json_t *cnt = sl_store_get(s, "pods", "conc", "counter");
    is_int(json_integer_value(json_object_get(json_object_get(cnt, "status"), "n")),
           NTHREADS * PER_THREAD, "mutate lost no increments");
    json_decref(cnt);
    is_int(sl_store_count(s, "pods", "conc"), NTHREADS * PER_THREAD + 1, "all creates stored");
    json_t *ch = sl_store_changes(s, rev, "pods", "conc", 0, NULL);
    int monotonic = 1;
    for (size_t i = 1; i < json_array_size(ch); i++)
        if (json_integer_value(json_object_get(json_array_get(ch, i), "rv")) !=
            json_integer_value(json_object_get(json_array_get(ch, i - 1), "rv")) + 1)
            monotonic = 0;
    ok(json_array_size(ch) == 2 * NTHREADS * PER_THREAD && monotonic,
       "change log holds every write, revisions without gaps");
    json_decref(ch);
}

static int refuse(json_t *obj, void *arg)
{
    (void)obj;
    (void)arg;
    errno = EPERM;
    return -1;
}
static int nothing(json_t *obj, void *arg)
{
    (void)arg;
    json_object_set_new(obj, "junk", json_true()); /* returns 0: must not be stored */
    return 0;
}

static void test_mutate_and_batch(sl_store_t *s)
{
    sl_error_t err;
    json_t *p = pod("m", "p");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    int64_t rev = sl_store_revision(s);
    json_t *out = NULL;
    is_int(sl_store_mutate(s, "pods", "m", "p", bump, NULL, &out, &err), 0, "mutate");
    is_int(sl_kube_rv(out), rev + 1, "mutate result has the new rv");
    json_decref(out);
    int rc = sl_store_mutate(s, "pods", "m", "p", refuse, NULL, NULL, &err);
    ok(rc == -1 && errno == EPERM, "mutate callback error passes through");
    is_int(sl_store_mutate(s, "pods", "m", "p", nothing, NULL, NULL, &err), 0, "mutate no-op");
    is_int(sl_store_revision(s), rev + 1, "failed and no-op mutates take no revision");
    rc = sl_store_mutate(s, "pods", "m", "ghost", bump, NULL, NULL, &err);
    ok(rc == -1 && errno == ENOENT, "mutate missing: ENOENT");

    /* batch: committed */
    is_int(sl_store_txn_begin(s, &err), 0, "batch begin");
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "b%d", i);
        json_t *b = pod("batch", name);
        sl_store_create(s, "pods", b, NULL);
        json_decref(b);
    }
    json_t *dup = pod("batch", "b0");
    rc = sl_store_create(s, "pods", dup, NULL);
    ok(rc == -1 && errno == EEXIST, "a failing write inside a batch fails alone");
    json_decref(dup);
    is_int(sl_store_count(s, "pods", "batch"), 5, "the batch's thread sees its writes");
    is_int(sl_store_revision(s), rev + 1, "revision not published before commit");
    is_int(sl_store_txn_commit(s, &err), 0, "batch commit");
    is_int(sl_store_revision(s), rev + 6, "commit publishes five revisions");
    json_t *ch = sl_store_changes(s, rev + 1, "pods", "batch", 0, NULL);
    is_int(json_array_size(ch), 5, "batch changes logged");
    json_decref(ch);

    /* batch: rolled back */
    sl_store_txn_begin(s, NULL);
    json_t *b = pod("batch", "gone");
    sl_store_create(s, "pods", b, NULL);
    json_decref(b);
    sl_store_txn_rollback(s);
    errno = 0;
    ok(sl_store_get(s, "pods", "batch", "gone") == NULL && errno == ENOENT,
       "rolled-back batch left nothing");
    b = pod("batch", "after");
    sl_store_create(s, "pods", b, NULL);
    is_int(sl_kube_rv(b), rev + 7, "revisions of a rolled-back batch are reused");
    json_decref(b);
}

/* Reading one resource's changes costs what that resource has, not what the
 * whole log holds: the controller and every watch hub read their resource's
 * changes after each write, and a log of Events must not be walked for a
 * resource that has none (jobs, cronjobs). Counted in SQLite's virtual
 * machine steps of the log query, which are exact, not timed. */
static void test_changes_by_resource(const char *dir)
{
    sl_error_t err;
    char *path = sl_xasprintf("%s/byres.db", dir);
    sl_store_t *s = sl_store_open(path, &err);
    sl_store_set_log_limit(s, 100000);
    json_t *p = pod("w", "p0");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    int64_t after = sl_store_revision(s);
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof(name), "e%d", i);
        json_t *e = pod("w", name);
        sl_store_create(s, "events", e, NULL);
        json_decref(e);
    }
    p = pod("w", "p1");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    struct sl_store_conn *c = sl_store_rlock(s);
    sqlite3_stmt_status(c->st[ST_LOG_ALL], SQLITE_STMTSTATUS_VM_STEP, 1);
    sqlite3_stmt_status(c->st[ST_LOG_NS], SQLITE_STMTSTATUS_VM_STEP, 1);
    sl_store_runlock(s, c);
    json_t *none = sl_store_changes(s, 0, "jobs", NULL, 0, &err);
    json_t *one = sl_store_changes(s, after, "pods", NULL, 0, &err);
    json_t *ns = sl_store_changes(s, after, "pods", "w", 0, &err);
    c = sl_store_rlock(s);
    int steps = sqlite3_stmt_status(c->st[ST_LOG_ALL], SQLITE_STMTSTATUS_VM_STEP, 0);
    int nsteps = sqlite3_stmt_status(c->st[ST_LOG_NS], SQLITE_STMTSTATUS_VM_STEP, 0);
    sl_store_runlock(s, c);
    ok(none && json_array_size(none) == 0 && one && json_array_size(one) == 1 && ns &&
           json_array_size(ns) == 1,
       "a resource's changes among 3,000 others: jobs none, pods one, pods of w one");
    ok(steps < 300, "the two reads took %d steps of the log query, not one per logged change",
       steps);
    ok(nsteps < 300, "a namespace's read took %d steps, not one per logged change", nsteps);
    json_decref(none);
    json_decref(one);
    json_decref(ns);
    sl_store_close(s);
    free(path);
}

/* sl_store_resource_rev: moved by a committed change to the resource, by
 * no other resource's, by no rolled-back transaction; a transaction that
 * touches more resources than are kept apart moves every one. */
static void test_resource_rev(const char *dir)
{
    sl_error_t err;
    char *path = sl_xasprintf("%s/resrev.db", dir);
    sl_store_t *s = sl_store_open(path, &err);
    json_t *p = pod("w", "p0");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    sl_store_close(s);
    s = sl_store_open(path, &err);
    int64_t open_rev = sl_store_revision(s);
    ok(sl_store_resource_rev(s, "pods") == open_rev &&
           sl_store_resource_rev(s, "namespaces") == open_rev,
       "after opening, every resource answers the store's revision (%lld)", (long long)open_rev);
    p = pod("w", "p1");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    ok(sl_store_resource_rev(s, "pods") == sl_store_revision(s) &&
           sl_store_resource_rev(s, "namespaces") == open_rev,
       "a pod created: pods moves to its revision, namespaces does not");
    int64_t pods_rev = sl_store_resource_rev(s, "pods");
    sl_store_txn_begin(s, &err);
    p = pod("", "ns1");
    sl_store_create(s, "namespaces", p, NULL);
    json_decref(p);
    ok(sl_store_resource_rev(s, "namespaces") == open_rev, "... not before its commit");
    sl_store_txn_rollback(s);
    ok(sl_store_resource_rev(s, "namespaces") == open_rev, "a rolled-back create moves nothing");
    p = pod("w", "p1");
    json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string("n"));
    ok(sl_store_update(s, "pods", p, 1, &err) < 0 && sl_store_resource_rev(s, "pods") == pods_rev,
       "a refused update (stale resourceVersion) moves nothing");
    json_decref(p);
    sl_store_txn_begin(s, &err);
    for (int i = 0; i < 10; i++) {
        char res[16];
        snprintf(res, sizeof(res), "r%d", i);
        p = pod("w", "x");
        sl_store_create(s, res, p, NULL);
        json_decref(p);
    }
    sl_store_txn_commit(s, &err);
    int64_t rev = sl_store_revision(s);
    ok(sl_store_resource_rev(s, "pods") == rev && sl_store_resource_rev(s, "namespaces") == rev &&
           sl_store_resource_rev(s, "r0") == rev,
       "one transaction touching 10 resources moves every resource's answer");
    sl_store_close(s);
    free(path);
}

/* sl_store_commits: one per write outside a batch, one per batch, none
 * for a rolled-back batch or a refused write */
static void test_commits(void)
{
    sl_error_t err;
    sl_store_t *s = sl_store_open(":memory:", &err);
    uint64_t c0 = sl_store_commits(s);
    json_t *p = pod("w", "c0");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    ok(sl_store_commits(s) == c0 + 1, "a create outside a batch: one commit");
    sl_store_txn_begin(s, &err);
    for (int i = 1; i <= 10; i++) {
        char name[16];
        snprintf(name, sizeof(name), "c%d", i);
        p = pod("w", name);
        sl_store_create(s, "pods", p, NULL);
        json_decref(p);
    }
    sl_store_txn_commit(s, &err);
    ok(sl_store_commits(s) == c0 + 2, "10 creates in one batch: one commit (%llu)",
       (unsigned long long)(sl_store_commits(s) - c0 - 1));
    sl_store_txn_begin(s, &err);
    p = pod("w", "c11");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    sl_store_txn_rollback(s);
    p = pod("w", "c0");
    int refused = sl_store_create(s, "pods", p, &err) < 0; /* it exists */
    json_decref(p);
    ok(refused && sl_store_commits(s) == c0 + 2, "a rolled-back batch and a refused create: none");
    sl_store_close(s);
}

/* sl_store_lock_stats: a write takes the writer lock, a batch takes it
 * once, a read of a file store takes the reader lock, and a writer that
 * holds the lock makes another wait */
struct hold_arg {
    sl_store_t *s;
    int64_t waited_ms;
    int started; /* atomic */
};

static void *write_one(void *arg)
{
    struct hold_arg *h = arg;
    __atomic_store_n(&h->started, 1, __ATOMIC_RELEASE);
    long long t0 = sl_now_ms();
    json_t *p = pod("w", "late");
    sl_store_create(h->s, "pods", p, NULL);
    json_decref(p);
    h->waited_ms = sl_now_ms() - t0;
    return NULL;
}

static void test_lock_stats(const char *dir)
{
    sl_error_t err;
    char *path = sl_xasprintf("%s/locks.db", dir);
    sl_store_t *s = sl_store_open(path, &err);
    sl_store_lockstat_t w0, r0, w1, r1;
    sl_store_lock_stats(s, &w0, &r0);
    json_t *p = pod("w", "l0");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    sl_store_lock_stats(s, &w1, &r1);
    ok(w1.acquired == w0.acquired + 1 && w1.held_ns > w0.held_ns,
       "a create takes the writer lock once and holds it (%llu ns)",
       (unsigned long long)(w1.held_ns - w0.held_ns));
    json_decref(sl_store_get(s, "pods", "w", "l0"));
    sl_store_lock_stats(s, &w0, &r0);
    ok(r0.acquired == r1.acquired + 1 && w0.acquired == w1.acquired,
       "a get takes the reader lock, not the writer's");
    sl_store_txn_begin(s, &err);
    struct hold_arg h = {s, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, write_one, &h);
    while (!__atomic_load_n(&h.started, __ATOMIC_ACQUIRE))
        sl_sleep_ms(1);
    sl_sleep_ms(300); /* the writer waits for most of it, even on a busy machine */
    sl_store_txn_commit(s, &err);
    pthread_join(th, NULL);
    sl_store_lock_stats(s, &w1, &r1);
    ok(w1.acquired == w0.acquired + 2, "a batch and the write that waited for it: two");
    ok(w1.wait_ns - w0.wait_ns >= 100000000ULL && w1.held_ns - w0.held_ns >= 300000000ULL,
       "the writer's wait (%lld ms) is counted, and the batch's hold: %llu and %llu ms",
       (long long)h.waited_ms, (unsigned long long)((w1.wait_ns - w0.wait_ns) / 1000000),
       (unsigned long long)((w1.held_ns - w0.held_ns) / 1000000));
    sl_store_close(s);
    free(path);
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void create_n(sl_store_t *s, const char *ns, int from, int n)
{
    for (int i = from; i < from + n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "w%d", i);
        json_t *p = pod(ns, name);
        sl_store_create(s, "pods", p, NULL);
        json_decref(p);
    }
}

/* The WAL file between checkpoints: not cut at each one (the autocheckpoint
 * restarts it at ~4 MB, and a cut to less made the next writes grow it
 * again), but cut back to 16 MiB once a checkpoint that could not finish
 * (a reader held an old snapshot) let it grow past that. */
static void test_wal_size(const char *dir)
{
    char *path = sl_xasprintf("%s/wal.db", dir), *wal = sl_xasprintf("%s/wal.db-wal", dir);
    sl_store_t *s = sl_store_open(path, NULL);
    long long peak = 0, low_after_peak = -1;
    for (int i = 0; i < 3000; i += 10) {
        create_n(s, "w", i, 10);
        long long sz = file_size(wal);
        if (sz > peak)
            peak = sz;
        if (peak > 3 * 1048576 && (low_after_peak < 0 || sz < low_after_peak))
            low_after_peak = sz;
    }
    ok(peak > 3 * 1048576 && low_after_peak >= 3 * 1048576,
       "3,000 creates: the WAL reaches %lld bytes and is not cut below 3 MiB after (least %lld)",
       peak, low_after_peak);

    sqlite3 *reader;
    sqlite3_open(path, &reader);
    sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM objects;", NULL, NULL, NULL);
    int n = 3000;
    while (file_size(wal) <= 20 * 1048576 && n < 20000) {
        create_n(s, "w", n, 50);
        n += 50;
    }
    long long grown = file_size(wal);
    sqlite3_exec(reader, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(reader);
    create_n(s, "w", n, 400); /* a checkpoint finishes, and a write starts the WAL again */
    long long cut = file_size(wal);
    ok(grown > 20 * 1048576 && cut <= 16 * 1048576 + 1048576,
       "a reader held an old snapshot: the WAL grew to %lld bytes, then was cut back to %lld",
       grown, cut);
    sl_store_close(s);
    free(path);
    free(wal);
}

/* skip_odd's record: the revisions it was asked about, in order */
typedef struct asked {
    int64_t rv[8];
    size_t n;
} asked_t;

static int skip_odd(void *arg, int64_t rv)
{
    asked_t *a = arg;
    if (a->n < 8)
        a->rv[a->n++] = rv;
    return rv % 2 != 0;
}

/* sl_store_changes_skip: every change comes, in order; a skipped one
 * without its object */
static void test_changes_skip(void)
{
    sl_error_t err;
    sl_store_t *s = sl_store_open(":memory:", &err);
    create_n(s, "w", 0, 4);
    asked_t a = {.n = 0};
    json_t *ch = sl_store_changes_skip(s, 0, "pods", NULL, 0, skip_odd, &a, &err);
    int shape = json_array_size(ch) == 4;
    for (size_t i = 0; shape && i < 4; i++) {
        json_t *e = json_array_get(ch, i);
        int64_t rv = json_integer_value(json_object_get(e, "rv"));
        shape = rv == (int64_t)i + 1 && (json_object_get(e, "object") == NULL) == (rv % 2 != 0) &&
                !strcmp(json_string_value(json_object_get(e, "type")), "ADDED");
    }
    ok(shape, "skipped changes (odd revisions) come without their object, the others with it");
    ok(a.n == 4 && a.rv[0] == 1 && a.rv[1] == 2 && a.rv[2] == 3 && a.rv[3] == 4,
       "skip asked of every change, in revision order (%zu)", a.n);
    json_decref(ch);
    a.n = 0;
    ch = sl_store_changes_skip(s, 2, "pods", NULL, 1, skip_odd, &a, &err);
    ok(json_array_size(ch) == 1 && a.n == 1 && a.rv[0] == 3,
       "after and max as for sl_store_changes");
    json_decref(ch);
    sl_store_close(s);
}

int main(void)
{
    tap_plan(163);
    char dir[] = "/tmp/sl-store-test.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *path = sl_xasprintf("%s/store.db", dir);

    test_persistence(path);

    sl_error_t err;
    sl_store_t *s = sl_store_open(path, &err);
    test_generate_name(s);
    test_changes(s);
    test_prev(s);
    test_mutate_and_batch(s);
    test_concurrency(s);
    test_wait(s);
    sl_store_close(s);

    s = sl_store_open(":memory:", &err);
    ok(s != NULL, "in-memory store");
    json_t *p = pod("default", "m");
    is_int(sl_store_create(s, "pods", p, NULL), 0, "in-memory create");
    json_t *l = sl_store_list(s, "pods", NULL, NULL);
    is_int(json_array_size(l), 1, "in-memory list");
    json_decref(l);
    json_decref(p);
    test_concurrency(s);
    sl_store_close(s);
    sl_store_close(NULL);

    s = sl_store_open("/nonexistent-dir/x/store.db", &err);
    ok(s == NULL && errno != 0, "open in a missing folder fails (%s)", err.text);

    test_migration(dir);
    test_changes_by_resource(dir);
    test_resource_rev(dir);
    test_commits();
    test_lock_stats(dir);
    test_changes_skip();
    test_wal_size(dir);
    sl_rm_rf(dir);
    free(path);
    return tap_done();
}
