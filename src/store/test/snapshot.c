/* store: sl_store_list_at — lists as of an earlier revision from the change
 * log, from a key on, and ERANGE once the log no longer reaches back. */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/store.h"

static json_t *cm(const char *ns, const char *name, const char *v)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                     "metadata", "name", name, "namespace", ns, "data", "v", v);
}

/* "ns/name=v@rv ..." of what list_at gives; "!" after an item whose key
 * or revision (when known) is not the text's */
static int collect(void *arg, const char *text, size_t len, const sl_store_item_t *it)
{
    sl_buf_t *b = arg;
    json_t *o = json_loadb(text, len, 0, NULL);
    const char *mrv = sl_kube_meta_str(o, "resourceVersion");
    bool bad = strcmp(it->ns, sl_kube_namespace(o)) || strcmp(it->name, sl_kube_name(o)) ||
               (it->rv && it->rv != strtoll(mrv ? mrv : "", NULL, 10));
    sl_buf_printf(b, "%s%s/%s=%s@%s", b->len ? " " : "", sl_kube_namespace(o), sl_kube_name(o),
                  json_string_value(json_object_get(json_object_get(o, "data"), "v")),
                  sl_kube_meta_str(o, "resourceVersion"));
    if (bad)
        sl_buf_putc(b, '!');
    json_decref(o);
    return 0;
}

static char *list_at(sl_store_t *s, const char *ns, int64_t rv, const char *ans, const char *aname,
                     int *rc)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "");
    sl_error_t err = SL_ERROR_INIT;
    *rc = sl_store_list_at(s, "configmaps", ns, rv, ans, aname, collect, &b, &err);
    if (*rc < 0)
        *rc = -errno;
    return sl_buf_steal(&b);
}

static void put(sl_store_t *s, const char *ns, const char *name, const char *v)
{
    json_t *o = cm(ns, name, v);
    if (sl_store_create(s, "configmaps", o, NULL) < 0) {
        json_t *cur = sl_store_get(s, "configmaps", ns, name);
        json_object_set_new(o, "metadata", json_deep_copy(sl_kube_meta(cur)));
        sl_store_update(s, "configmaps", o, 0, NULL);
        json_decref(cur);
    }
    json_decref(o);
}

static void check(sl_store_t *s, const char *ns, int64_t rv, const char *ans, const char *aname,
                  const char *want, const char *what)
{
    int rc;
    char *got = list_at(s, ns, rv, ans, aname, &rc);
    is_int(rc, 0, "%s: no error", what);
    is_str(got, want, "%s", what);
    free(got);
}

/* The replaced versions go with the changes that replaced them (the log's
 * prev column: nothing else keeps them). */
static void test_prior_trimmed(void)
{
    char dir[] = "/tmp/sl-snap-test.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *path = sl_xasprintf("%s/store.db", dir);
    sl_error_t err;
    sl_store_t *s = sl_store_open(path, &err);
    sl_store_set_log_limit(s, 10);
    for (int i = 0; i < 1000; i++)
        put(s, "d", i % 2 ? "x" : "y", i % 3 ? "p" : "q");
    sl_store_close(s);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long n = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM changes WHERE prev IS NOT NULL", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    ok(n >= 0 && n <= 10 + 64, "1,000 updates with a log of 10: %ld replaced versions kept", n);
    char *wal = sl_xasprintf("%s-wal", path), *shm = sl_xasprintf("%s-shm", path);
    unlink(path);
    unlink(wal);
    unlink(shm);
    rmdir(dir);
    free(wal);
    free(shm);
    free(path);
}

int main(void)
{
    test_prior_trimmed();
    sl_error_t err;
    sl_store_t *s = sl_store_open(":memory:", &err);
    put(s, "a", "c1", "x"); /* rv 1 */
    put(s, "a", "c2", "x"); /* 2 */
    put(s, "a", "c3", "x"); /* 3 */
    put(s, "b", "c1", "x"); /* 4 */
    int64_t r = sl_store_revision(s);
    check(s, NULL, r, NULL, NULL, "a/c1=x@1 a/c2=x@2 a/c3=x@3 b/c1=x@4", "at the current revision");
    check(s, NULL, r, "a", "c1", "a/c2=x@2 a/c3=x@3 b/c1=x@4", "after a key");
    check(s, "a", r, "a", "c2", "a/c3=x@3", "in one namespace, after a key");
    check(s, NULL, 2, NULL, NULL, "a/c1=x@1 a/c2=x@2", "at an earlier revision");

    put(s, "a", "c2", "y");                                     /* 5: modified */
    sl_store_delete(s, "configmaps", "a", "c3", 0, NULL, NULL); /* 6: deleted */
    put(s, "a", "c0", "x");                                     /* 7: added before the cut */
    put(s, "a", "c4", "x");                                     /* 8: added after it */
    sl_store_delete(s, "configmaps", "b", "c1", 0, NULL, NULL); /* 9 */
    put(s, "b", "c1", "z");                                     /* 10: deleted and re-added */
    put(s, "a", "c2", "w");                                     /* 11: modified again */
    check(s, NULL, r, "a", "c1", "a/c2=x@2 a/c3=x@3 b/c1=x@4",
          "as of revision 4 after every kind of change: the objects of revision 4, once each");
    check(s, NULL, r, NULL, NULL, "a/c1=x@1 a/c2=x@2 a/c3=x@3 b/c1=x@4", "the whole list as of 4");
    is_int(sl_store_count_at(s, "configmaps", NULL, r, "a", "c1", NULL), 3,
           "count_at: the same objects counted");
    is_int(sl_store_count_at(s, "configmaps", "a", r, NULL, NULL, NULL), 3,
           "count_at in one namespace");
    check(s, NULL, 5, NULL, NULL, "a/c1=x@1 a/c2=y@5 a/c3=x@3 b/c1=x@4", "as of 5");
    check(s, NULL, sl_store_revision(s), NULL, NULL,
          "a/c0=x@7 a/c1=x@1 a/c2=w@11 a/c4=x@8 b/c1=z@10", "as of now");
    check(s, "b", 9, NULL, NULL, "", "as of 9 (between delete and re-create): nothing in b");

    sl_store_set_log_limit(s, 2);
    for (int i = 0; i < 100; i++) /* trims the log (in batches of 64) past revision 4 */
        put(s, "c", "churn", i % 2 ? "p" : "q");
    int rc;
    char *got = list_at(s, NULL, r, "a", "c1", &rc);
    is_int(rc, -ERANGE, "once the log no longer reaches back to the revision: ERANGE");
    free(got);
    int64_t now = sl_store_revision(s);
    check(s, "a", now, NULL, NULL, "a/c0=x@7 a/c1=x@1 a/c2=w@11 a/c4=x@8",
          "the current revision needs no log");
    put(s, "a", "c1", "v"); /* written at revision 1, long out of the log */
    check(s, "a", now, NULL, NULL, "a/c0=x@7 a/c1=x@1 a/c2=w@11 a/c4=x@8",
          "an object last written before the log's start, changed after the revision: its "
          "version then");
    sl_store_delete(s, "configmaps", "a", "c0", 0, NULL, NULL);
    check(s, "a", now, NULL, NULL, "a/c0=x@7 a/c1=x@1 a/c2=w@11 a/c4=x@8",
          "... and one deleted after it");
    sl_store_close(s);
    return tap_done();
}
