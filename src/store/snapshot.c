/* snapshot.c — lists as of an earlier revision, for consistent paging.
 *
 * The objects of a resource at revision R are
 *   - the stored objects whose resourceVersion is <= R (nothing has
 *     touched them since), and
 *   - for each key whose first change after R is a MODIFIED or DELETED
 *     (it existed at R), the version it had at R.
 * A key whose first change after R is ADDED did not exist at R. The version
 * it had at R is the `prev` of that first change: every MODIFIED and
 * DELETED change keeps the stored object it replaced (the same column a
 * filtered watch types its events from), and leaves the log with it. So a
 * list as of R works exactly while the log holds every change after R, as
 * kube-apiserver's does until etcd compacts R; otherwise ERANGE (the
 * caller's 410 Expired). It is one SQL statement in one read transaction,
 * so it cannot see half of a write. */
#include "store/internal.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* ?1 resource, ?2 R, ?3 ?4 the key to start after (NULL: from the first),
 * ?5 namespace or NULL. */
static const char sql_list_at[] =
    "WITH first AS (SELECT ns, name, min(rv) AS frv FROM changes"
    "  WHERE rv > ?2 AND resource = ?1 AND (?5 IS NULL OR ns = ?5) GROUP BY ns, name),"
    " touched AS (SELECT f.ns AS ns, f.name AS name, c.prev AS prev FROM first f"
    "  JOIN changes c ON c.rv = f.frv WHERE c.type != 1)"
    " SELECT o.ns, o.name, o.data, o.rv FROM objects o WHERE o.resource = ?1 AND o.rv <= ?2"
    "  AND (?5 IS NULL OR o.ns = ?5) AND (?3 IS NULL OR o.ns > ?3 OR (o.ns = ?3 AND o.name > ?4))"
    " UNION ALL"
    " SELECT t.ns, t.name, t.prev, 0 FROM touched t WHERE ?3 IS NULL OR t.ns > ?3 OR (t.ns = ?3 "
    "AND t.name > ?4)"
    " ORDER BY 1, 2";

/* The number of rows sql_list_at gives, without reading them out. */
static const char sql_count_at[] =
    "WITH first AS (SELECT ns, name, min(rv) AS frv FROM changes"
    "  WHERE rv > ?2 AND resource = ?1 AND (?5 IS NULL OR ns = ?5) GROUP BY ns, name),"
    " touched AS (SELECT f.ns AS ns, f.name AS name FROM first f"
    "  JOIN changes c ON c.rv = f.frv WHERE c.type != 1)"
    " SELECT (SELECT count(*) FROM objects o WHERE o.resource = ?1 AND o.rv <= ?2"
    "  AND (?5 IS NULL OR o.ns = ?5) AND (?3 IS NULL OR o.ns > ?3 OR (o.ns = ?3 AND o.name > ?4)))"
    " + (SELECT count(*) FROM touched t WHERE ?3 IS NULL OR t.ns > ?3"
    "  OR (t.ns = ?3 AND t.name > ?4))";

static const char sql_bounds[] = "SELECT coalesce((SELECT min(rv) FROM changes), 0),"
                                 " coalesce((SELECT max(rv) FROM changes), 0)";

static int run_simple(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* The log bounds in the current read transaction. */
static int log_bounds(sl_store_t *s, sqlite3 *db, int64_t *lo, int64_t *hi, sl_error_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql_bounds, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *lo = sqlite3_column_int64(st, 0);
        *hi = sqlite3_column_int64(st, 1);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : sl_store_dberr(s, db, rc, err, "read the change log bounds");
}

static int expired(int64_t at_rv, int64_t lo, sl_error_t *err)
{
    errno = ERANGE;
    return sl_errprintf(err, "too old resource version: %lld (%lld)", (long long)at_rv,
                        (long long)(lo > 0 ? lo - 1 : 0));
}

/* The rows of sql_list_at, each handed to fn; a row without data is a
 * change logged without its previous version (by a store of schema 1). */
static int each_row(sl_store_t *s, sqlite3 *db, sqlite3_stmt *st, int64_t at_rv, int64_t lo,
                    sl_store_each_fn fn, void *arg, sl_error_t *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 2) == SQLITE_NULL)
            return expired(at_rv, lo, err);
        const char *text = (const char *)sqlite3_column_text(st, 2);
        size_t len = (size_t)sqlite3_column_bytes(st, 2);
        sl_store_item_t it = {(const char *)sqlite3_column_text(st, 0),
                              (const char *)sqlite3_column_text(st, 1),
                              sqlite3_column_int64(st, 3)};
        if (fn(arg, text, len, &it) < 0) {
            int e = errno ? errno : EIO;
            sl_errprintf(err, "store: listing stopped: %s", strerror(e));
            errno = e;
            return -1;
        }
    }
    return rc == SQLITE_DONE ? 0 : sl_store_dberr(s, db, rc, err, "list as of a revision");
}

/* fn NULL: count instead, into *(long *)arg. */
static int list_at_locked(sl_store_t *s, sqlite3 *db, const char *resource, const char *ns,
                          int64_t at_rv, const char *after_ns, const char *after_name,
                          sl_store_each_fn fn, void *arg, sl_error_t *err)
{
    int64_t lo = 0, hi = 0;
    if (log_bounds(s, db, &lo, &hi, err) < 0)
        return -1;
    if (at_rv < hi && lo > 0 && at_rv + 1 < lo)
        return expired(at_rv, lo, err); /* changes after at_rv were trimmed */
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, fn ? sql_list_at : sql_count_at, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sl_store_dberr(s, db, rc, err, "prepare a list as of a revision");
    sqlite3_bind_text(st, 1, resource, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, at_rv);
    if (after_name) {
        sqlite3_bind_text(st, 3, after_ns ? after_ns : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, after_name, -1, SQLITE_STATIC);
    }
    if (ns)
        sqlite3_bind_text(st, 5, ns, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 5);
    int ret;
    if (fn)
        ret = each_row(s, db, st, at_rv, lo, fn, arg, err);
    else if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        *(long *)arg = (long)sqlite3_column_int64(st, 0);
        ret = 0;
    } else
        ret = sl_store_dberr(s, db, rc, err, "count as of a revision");
    int e = errno;
    sqlite3_finalize(st);
    errno = e;
    return ret;
}

static int list_at(sl_store_t *s, const char *resource, const char *ns, int64_t at_rv,
                   const char *after_ns, const char *after_name, sl_store_each_fn fn, void *arg,
                   sl_error_t *err)
{
    struct sl_store_conn *c = sl_store_rlock(s);
    bool own_txn = !sl_store_in_txn(s);
    int rc = own_txn ? run_simple(c->db, "BEGIN") : SQLITE_OK;
    int ret;
    if (rc != SQLITE_OK)
        ret = sl_store_dberr(s, c->db, rc, err, "begin read");
    else
        ret = list_at_locked(s, c->db, resource, ns, at_rv, after_ns, after_name, fn, arg, err);
    int e = errno;
    if (own_txn && rc == SQLITE_OK)
        run_simple(c->db, "COMMIT");
    sl_store_runlock(s, c);
    errno = e;
    return ret;
}

int sl_store_list_at(sl_store_t *s, const char *resource, const char *ns, int64_t at_rv,
                     const char *after_ns, const char *after_name, sl_store_each_fn fn, void *arg,
                     sl_error_t *err)
{
    return list_at(s, resource, ns, at_rv, after_ns, after_name, fn, arg, err);
}

long sl_store_count_at(sl_store_t *s, const char *resource, const char *ns, int64_t at_rv,
                       const char *after_ns, const char *after_name, sl_error_t *err)
{
    long n = -1;
    if (list_at(s, resource, ns, at_rv, after_ns, after_name, NULL, &n, err) < 0)
        return -1;
    return n;
}
