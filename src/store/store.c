/* store.c — Kubernetes objects in SQLite (after flux-core's content-sqlite.c:
 * SQL in named constants, statements prepared once, WAL +
 * synchronous=NORMAL, SQLite result codes mapped to errno).
 *
 * Two tables: `objects` keyed by (resource, ns, name) with the compact JSON
 * text and its revision, and `changes`, the watch log, keyed by revision.
 * Every write appends exactly one change, so the global revision is
 * max(changes.rv); trimming always keeps the newest rows, so it survives
 * restarts without a separate counter.
 *
 * Locking: `wmu` serialises writers on the writer connection and guards the
 * committed revision and the condition variable; `rmu` serialises readers on
 * the reader connection. A thread inside sl_store_txn_begin() holds `wmu`
 * for the whole batch (tracked in a thread-local pointer) and reads through
 * the writer connection so it sees its own writes.
 */
#include "store/store.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>

#include "common/proc.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/internal.h"

static __thread sl_store_t *tls_txn; /* store whose batch this thread holds */

static const char *const sql_schema[] = {
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS objects ("
    " resource TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,"
    " rv INTEGER NOT NULL, data TEXT NOT NULL,"
    " PRIMARY KEY (resource, ns, name))",
    "CREATE TABLE IF NOT EXISTS changes ("
    " rv INTEGER PRIMARY KEY, type INTEGER NOT NULL, resource TEXT NOT NULL,"
    " ns TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL, prev TEXT)",
    /* the controller and each watch hub read one resource's changes after
     * every write: by this index, not by walking every change since */
    "CREATE INDEX IF NOT EXISTS changes_by_resource ON changes (resource, rv)",
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '2')",
};
/* schema 1 → 2: a MODIFIED or DELETED change keeps the object as it was
 * before it (prev): a filtered watch tells from it whether the object
 * matched before, and a list as of an earlier revision (snapshot.c) reads
 * the version an object had then */
static const char *const sql_migrate_1[] = {
    "BEGIN IMMEDIATE",
    "ALTER TABLE changes ADD COLUMN prev TEXT",
    "UPDATE meta SET value = '2' WHERE key = 'schema'",
    "COMMIT",
};
static const char sql_schema_version[] = "SELECT value FROM meta WHERE key = 'schema'";

/* Prepared once per connection, indexed by enum stmt_id in internal.h. */
static const char *const sql_stmt[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN",
    [ST_BEGIN_IMMEDIATE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT op",
    [ST_RELEASE] = "RELEASE op",
    [ST_ROLLBACK_TO] = "ROLLBACK TO op",
    [ST_GET] = "SELECT rv, data FROM objects WHERE resource = ?1 AND ns = ?2 AND name = ?3",
    [ST_INSERT] = "INSERT INTO objects (resource, ns, name, rv, data) VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_UPDATE] = "UPDATE objects SET rv = ?4, data = ?5"
                  " WHERE resource = ?1 AND ns = ?2 AND name = ?3",
    [ST_DELETE] = "DELETE FROM objects WHERE resource = ?1 AND ns = ?2 AND name = ?3",
    [ST_LIST_ALL] = "SELECT data, ns, name, rv FROM objects WHERE resource = ?1 ORDER BY ns, name",
    [ST_LIST_NS] =
        "SELECT data, ns, name, rv FROM objects WHERE resource = ?1 AND ns = ?2 ORDER BY name",
    [ST_COUNT_ALL] = "SELECT count(*) FROM objects WHERE resource = ?1",
    [ST_COUNT_NS] = "SELECT count(*) FROM objects WHERE resource = ?1 AND ns = ?2",
    [ST_LOG_APPEND] = "INSERT INTO changes (rv, type, resource, ns, name, data, prev)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_LOG_TRIM] = "DELETE FROM changes WHERE rv <= ?1",
    /* two subqueries: SQLite optimises min() or max() alone, not both in one */
    [ST_LOG_BOUNDS] = "SELECT coalesce((SELECT min(rv) FROM changes), 0),"
                      " coalesce((SELECT max(rv) FROM changes), 0)",
    /* prev for MODIFIED only: a watch types a DELETED from its object */
    [ST_LOG_ALL] = "SELECT rv, type, data, ns, name, CASE type WHEN 2 THEN prev END FROM changes"
                   " WHERE rv > ?1 AND resource = ?2 ORDER BY rv LIMIT ?3",
    [ST_LOG_NS] = "SELECT rv, type, data, ns, name, CASE type WHEN 2 THEN prev END FROM changes"
                  " WHERE rv > ?1 AND resource = ?2 AND ns = ?3 ORDER BY rv LIMIT ?4",
};

int sl_store_errno(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE: return 0;
    case SQLITE_NOMEM: return ENOMEM;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return EBUSY;
    case SQLITE_CONSTRAINT: return EEXIST;
    case SQLITE_FULL: return ENOSPC;
    case SQLITE_READONLY: return EROFS;
    case SQLITE_PERM:
    case SQLITE_AUTH: return EPERM;
    case SQLITE_CANTOPEN: return ENOENT;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return EINVAL;
    case SQLITE_TOOBIG: return E2BIG;
    default: return EIO;
    }
}

int sl_store_dberr(sl_store_t *s, sqlite3 *db, int rc, sl_error_t *err, const char *what)
{
    (void)s;
    errno = sl_store_errno(rc) ? sl_store_errno(rc) : EIO;
    return sl_errprintf(err, "store: %s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

static int conn_open(sl_store_t *s, struct sl_store_conn *c, const char *path, int flags,
                     sl_error_t *err)
{
    int rc = sqlite3_open_v2(path, &c->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        sl_store_dberr(s, c->db, rc, err, path);
        return -1;
    }
    sqlite3_busy_timeout(c->db, 5000);
    sqlite3_extended_result_codes(c->db, 1);
    return 0;
}

static int conn_exec(sl_store_t *s, struct sl_store_conn *c, const char *sql, sl_error_t *err)
{
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sl_store_dberr(s, c->db, rc, err, sql);
    return 0;
}

static int conn_prepare(sl_store_t *s, struct sl_store_conn *c, sl_error_t *err)
{
    for (int i = 0; i < ST_COUNT; i++) {
        int rc =
            sqlite3_prepare_v3(c->db, sql_stmt[i], -1, SQLITE_PREPARE_PERSISTENT, &c->st[i], NULL);
        if (rc != SQLITE_OK)
            return sl_store_dberr(s, c->db, rc, err, sql_stmt[i]);
    }
    return 0;
}

static void conn_close(struct sl_store_conn *c)
{
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(c->st[i]);
    if (c->db)
        sqlite3_close(c->db);
    memset(c, 0, sizeof *c);
}

/* Pages freed by deletions and the trimmed change log are given back to
 * the file system (maybe_trim runs PRAGMA incremental_vacuum): the file
 * had stayed at its largest. A store made before is converted once (VACUUM
 * rewrites it; seconds at 100,000 objects). */
static int vacuum_policy(sl_store_t *s, struct sl_store_conn *c, sl_error_t *err)
{
    sqlite3_stmt *st;
    int mode = -1, rc = sqlite3_prepare_v2(c->db, "PRAGMA auto_vacuum", -1, &st, NULL);
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        mode = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (mode == 2) /* INCREMENTAL */
        return 0;
    if (conn_exec(s, c, "PRAGMA auto_vacuum=INCREMENTAL", err) < 0)
        return -1;
    /* a fresh file takes the mode at once; one with tables needs VACUUM */
    return conn_exec(s, c, "VACUUM", err);
}

static int schema_init(sl_store_t *s, sl_error_t *err)
{
    struct sl_store_conn *c = &s->w;
    /* WAL lets the reader connection run beside the writer; NORMAL
     * synchronisation skips the fsync per commit (a power loss may lose the
     * last commits, never corrupt the file). */
    if (!s->memory && vacuum_policy(s, c, err) < 0)
        return -1;
    if (!s->memory && conn_exec(s, c, "PRAGMA journal_mode=WAL", err) < 0)
        return -1;
    /* the WAL file is cut back to 16 MiB after a checkpoint when it grew
     * past that (a burst whose checkpoints could not finish; else it stayed
     * at its largest for good). Not below SQLite's autocheckpoint size (1,000
     * pages, ~4 MB): a limit under it cut the file at every checkpoint, and
     * the next writes gave it its blocks and page cache back (20 times per
     * 1,000 new pods) */
    if (!s->memory && conn_exec(s, c, "PRAGMA journal_size_limit=16777216", err) < 0)
        return -1;
    if (conn_exec(s, c, "PRAGMA synchronous=NORMAL", err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof sql_schema / sizeof sql_schema[0]; i++)
        if (conn_exec(s, c, sql_schema[i], err) < 0)
            return -1;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, sql_schema_version, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sl_store_dberr(s, c->db, rc, err, "schema version");
    rc = sqlite3_step(st);
    char version[8] = "";
    if (rc == SQLITE_ROW)
        snprintf(version, sizeof version, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (!strcmp(version, "1")) {
        for (size_t i = 0; i < sizeof sql_migrate_1 / sizeof sql_migrate_1[0]; i++)
            if (conn_exec(s, c, sql_migrate_1[i], err) < 0) {
                sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
                return -1;
            }
        snprintf(version, sizeof version, "2");
    }
    if (strcmp(version, "2")) {
        errno = EINVAL;
        return sl_errprintf(err, "store: unknown schema version in database");
    }
    return 0;
}

static int load_revision(sl_store_t *s, sl_error_t *err)
{
    sqlite3_stmt *st = s->w.st[ST_LOG_BOUNDS];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return sl_store_dberr(s, s->w.db, rc, err, "read revision");
    }
    s->log_min = sqlite3_column_int64(st, 0);
    s->rev = s->next_rev = sqlite3_column_int64(st, 1);
    sqlite3_reset(st);
    return 0;
}

sl_store_t *sl_store_open(const char *path, sl_error_t *err)
{
    sl_store_t *s = sl_xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->wmu, NULL);
    pthread_mutex_init(&s->rmu, NULL);
    pthread_mutex_init(&s->nmu, NULL);
    pthread_mutex_init(&s->resmu, NULL);
    pthread_mutex_init(&s->gmu, NULL);
    s->gtail = &s->gqueue;
    s->group_max = SL_STORE_GROUP_MAX;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &ca);
    pthread_condattr_destroy(&ca);
    s->log_limit = SL_STORE_LOG_LIMIT;
    s->memory = !path || strcmp(path, ":memory:") == 0;

    int rw = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (conn_open(s, &s->w, s->memory ? ":memory:" : path, rw, err) < 0)
        goto fail;
    if (schema_init(s, err) < 0 || conn_prepare(s, &s->w, err) < 0)
        goto fail;
    if (!s->memory) {
        if (conn_open(s, &s->r, path, SQLITE_OPEN_READONLY, err) < 0 ||
            conn_prepare(s, &s->r, err) < 0)
            goto fail;
    }
    if (load_revision(s, err) < 0)
        goto fail;
    s->open_rev = s->rev;
    return s;
fail : {
    int saved = errno;
    sl_store_close(s);
    errno = saved;
    return NULL;
}
}

void sl_store_close(sl_store_t *s)
{
    if (!s)
        return;
    conn_close(&s->r);
    conn_close(&s->w);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->wmu);
    pthread_mutex_destroy(&s->rmu);
    pthread_mutex_destroy(&s->nmu);
    pthread_mutex_destroy(&s->resmu);
    pthread_mutex_destroy(&s->gmu);
    free(s->notify);
    free(s);
}

int64_t sl_store_revision(sl_store_t *s) { return __atomic_load_n(&s->rev, __ATOMIC_ACQUIRE); }

/* ---- each resource's last change ---------------------------------------- */

void sl_store_touch(sl_store_t *s, const char *resource)
{
    for (size_t i = 0; i < s->ntouched; i++)
        if (!strcmp(s->touched[i], resource))
            return;
    if (s->ntouched == STORE_TOUCHED_MAX || strlen(resource) >= STORE_RES_NAME) {
        s->touched_all = 1;
        return;
    }
    strcpy(s->touched[s->ntouched++], resource);
}

/* a transaction begins: what an earlier one touched and rolled back goes */
static void touched_clear(sl_store_t *s)
{
    s->ntouched = 0;
    s->touched_all = 0;
}

/* the committed transaction's resources changed at rev (wmu held) */
static void touched_publish(sl_store_t *s, int64_t rev)
{
    pthread_mutex_lock(&s->resmu);
    for (size_t i = 0; i < s->ntouched; i++) {
        size_t j = 0;
        while (j < s->nres && strcmp(s->res_revs[j].name, s->touched[i]))
            j++;
        if (j == s->nres && s->nres < STORE_RES_MAX)
            strcpy(s->res_revs[s->nres++].name, s->touched[i]);
        if (j < s->nres)
            s->res_revs[j].rev = rev;
        else
            s->all_rev = rev;
    }
    if (s->touched_all)
        s->all_rev = rev;
    pthread_mutex_unlock(&s->resmu);
    touched_clear(s);
}

int64_t sl_store_resource_rev(sl_store_t *s, const char *resource)
{
    pthread_mutex_lock(&s->resmu);
    int64_t rev = s->open_rev;
    for (size_t j = 0; j < s->nres; j++)
        if (!strcmp(s->res_revs[j].name, resource)) {
            rev = s->res_revs[j].rev;
            break;
        }
    if (s->all_rev > rev)
        rev = s->all_rev;
    pthread_mutex_unlock(&s->resmu);
    return rev;
}

/* ---- locking ---------------------------------------------------------- */

int sl_store_in_txn(sl_store_t *s) { return tls_txn == s; }

/* ---- the locks, timed ------------------------------------------------- */

static void stat_add(uint64_t *v, int64_t d)
{
    __atomic_fetch_add(v, (uint64_t)(d > 0 ? d : 0), __ATOMIC_RELAXED);
}

/* mu taken, the wait counted in st, *since its holder's start */
static void lock_timed(pthread_mutex_t *mu, sl_store_lockstat_t *st, int64_t *since)
{
    int64_t t0 = sl_now_ns();
    pthread_mutex_lock(mu);
    *since = sl_now_ns();
    stat_add(&st->acquired, 1);
    stat_add(&st->wait_ns, *since - t0);
}

static void unlock_timed(pthread_mutex_t *mu, sl_store_lockstat_t *st, int64_t since)
{
    stat_add(&st->held_ns, sl_now_ns() - since);
    pthread_mutex_unlock(mu);
}

static void wlock(sl_store_t *s) { lock_timed(&s->wmu, &s->wstat, &s->w_since); }
static void wunlock(sl_store_t *s) { unlock_timed(&s->wmu, &s->wstat, s->w_since); }

void sl_store_lock_stats(sl_store_t *s, sl_store_lockstat_t *writer, sl_store_lockstat_t *reader)
{
    const sl_store_lockstat_t *from[2] = {&s->wstat, &s->rstat};
    sl_store_lockstat_t *to[2] = {writer, reader};
    for (int i = 0; i < 2; i++) {
        to[i]->acquired = __atomic_load_n(&from[i]->acquired, __ATOMIC_RELAXED);
        to[i]->wait_ns = __atomic_load_n(&from[i]->wait_ns, __ATOMIC_RELAXED);
        to[i]->held_ns = __atomic_load_n(&from[i]->held_ns, __ATOMIC_RELAXED);
    }
}

struct sl_store_conn *sl_store_rlock(sl_store_t *s)
{
    if (tls_txn == s)
        return &s->w; /* the batch's own thread: already holds wmu */
    if (s->memory) {
        wlock(s);
        return &s->w;
    }
    lock_timed(&s->rmu, &s->rstat, &s->r_since);
    return &s->r;
}

void sl_store_runlock(sl_store_t *s, struct sl_store_conn *c)
{
    if (tls_txn == s)
        return;
    if (c == &s->w)
        wunlock(s);
    else
        unlock_timed(&s->rmu, &s->rstat, s->r_since);
}

static int step_simple(sl_store_t *s, struct sl_store_conn *c, int id, sl_error_t *err)
{
    sqlite3_stmt *st = c->st[id];
    int64_t t0 = id == ST_COMMIT ? sl_now_ns() : 0;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (t0)
        stat_add(&s->commit_ns, sl_now_ns() - t0);
    if (rc != SQLITE_DONE)
        return sl_store_dberr(s, c->db, rc, err, sql_stmt[id]);
    return 0;
}

/* Begin one write operation: the whole of create/update/delete/mutate is
 * atomic, as its own transaction or, inside a batch, as a savepoint. */
int sl_store_wbegin(sl_store_t *s, sl_error_t *err)
{
    if (tls_txn == s)
        return step_simple(s, &s->w, ST_SAVEPOINT, err);
    wlock(s);
    touched_clear(s);
    if (step_simple(s, &s->w, ST_BEGIN_IMMEDIATE, err) < 0) {
        int saved = errno;
        wunlock(s);
        errno = saved;
        return -1;
    }
    return 0;
}

static void notify_all(sl_store_t *s, int64_t rv)
{
    pthread_mutex_lock(&s->nmu);
    for (size_t i = 0; i < s->nnotify; i++)
        if (s->notify[i].fn)
            s->notify[i].fn(s->notify[i].arg, rv);
    pthread_mutex_unlock(&s->nmu);
}

/* Publish revisions up to next_rev: waiters and notifications. wmu held;
 * called once per committed transaction. */
static void publish_locked(sl_store_t *s)
{
    __atomic_store_n(&s->commits, s->commits + 1, __ATOMIC_RELAXED);
    touched_publish(s, s->next_rev);
    __atomic_store_n(&s->rev, s->next_rev, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&s->cond);
}

static void maybe_trim(sl_store_t *s)
{
    /* Trim in batches of 64 so the DELETE is amortised; the newest
     * log_limit changes always stay, so max(rv) is never lost; so do those
     * after an in-process reader's hold, up to SL_STORE_HOLD_FACTOR times
     * as many. */
    int64_t cut = s->next_rev - (int64_t)s->log_limit;
    int64_t hold = __atomic_load_n(&s->log_hold, __ATOMIC_RELAXED);
    int64_t floor = s->next_rev - (int64_t)s->log_limit * SL_STORE_HOLD_FACTOR;
    if (hold > 0 && hold < cut)
        cut = hold > floor ? hold : floor;
    if (cut < s->log_min + 64 || cut <= 0)
        return;
    sqlite3_stmt *st = s->w.st[ST_LOG_TRIM];
    sqlite3_bind_int64(st, 1, cut);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_DONE) {
        s->log_min = cut + 1;
        /* give the freed pages back (vacuum_policy); an error leaves them
         * free inside the file, to be reused */
        sqlite3_exec(s->w.db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
    }
}

/* End one write operation. ok: commit it (used_rev: revisions it took,
 * 0 for a no-op); !ok: undo it. Returns 0, or -1 if the commit failed. */
int sl_store_wend(sl_store_t *s, int ok, int used_rev, sl_error_t *err)
{
    if (tls_txn == s) {
        if (ok) {
            s->next_rev += used_rev;
            return step_simple(s, &s->w, ST_RELEASE, err);
        }
        step_simple(s, &s->w, ST_ROLLBACK_TO, NULL);
        step_simple(s, &s->w, ST_RELEASE, NULL);
        return 0;
    }
    if (ok) {
        int64_t saved_min = s->log_min;
        s->next_rev += used_rev;
        if (used_rev)
            maybe_trim(s);
        if (step_simple(s, &s->w, ST_COMMIT, err) < 0) {
            int saved = errno;
            step_simple(s, &s->w, ST_ROLLBACK, NULL);
            s->next_rev = s->rev;
            s->log_min = saved_min;
            wunlock(s);
            errno = saved;
            return -1;
        }
        publish_locked(s);
    } else {
        step_simple(s, &s->w, ST_ROLLBACK, NULL);
    }
    int64_t rv = s->next_rev;
    wunlock(s);
    if (ok && used_rev)
        notify_all(s, rv);
    return 0;
}

uint64_t sl_store_commits(sl_store_t *s) { return __atomic_load_n(&s->commits, __ATOMIC_RELAXED); }

uint64_t sl_store_commit_ns(sl_store_t *s)
{
    return __atomic_load_n(&s->commit_ns, __ATOMIC_RELAXED);
}

/* ---- batches ---------------------------------------------------------- */

int sl_store_txn_begin(sl_store_t *s, sl_error_t *err)
{
    if (tls_txn == s) {
        errno = EBUSY;
        return sl_errprintf(err, "store: batch already open in this thread");
    }
    wlock(s);
    touched_clear(s);
    if (step_simple(s, &s->w, ST_BEGIN_IMMEDIATE, err) < 0) {
        int saved = errno;
        wunlock(s);
        errno = saved;
        return -1;
    }
    s->txn_log_min = s->log_min;
    tls_txn = s;
    return 0;
}

int sl_store_txn_commit(sl_store_t *s, sl_error_t *err)
{
    if (tls_txn != s) {
        errno = EINVAL;
        return sl_errprintf(err, "store: no batch open in this thread");
    }
    tls_txn = NULL;
    int used = s->next_rev != s->rev;
    if (used)
        maybe_trim(s);
    if (step_simple(s, &s->w, ST_COMMIT, err) < 0) {
        int saved = errno;
        step_simple(s, &s->w, ST_ROLLBACK, NULL);
        s->next_rev = s->rev;
        s->log_min = s->txn_log_min;
        wunlock(s);
        errno = saved;
        return -1;
    }
    publish_locked(s);
    int64_t rv = s->next_rev;
    wunlock(s);
    if (used)
        notify_all(s, rv);
    return 0;
}

void sl_store_txn_rollback(sl_store_t *s)
{
    if (tls_txn != s)
        return;
    tls_txn = NULL;
    step_simple(s, &s->w, ST_ROLLBACK, NULL);
    s->next_rev = s->rev;
    s->log_min = s->txn_log_min;
    wunlock(s);
}

/* ---- wait, wakeup, notifications -------------------------------------- */

/* the kick generation now: read without wmu, as the revision is, so that
 * a wait takes the writers' lock once */
static unsigned kicks_now(sl_store_t *s) { return __atomic_load_n(&s->kicks, __ATOMIC_ACQUIRE); }

sl_store_mark_t sl_store_mark(sl_store_t *s)
{
    return (sl_store_mark_t){.rev = sl_store_revision(s), .kicks = kicks_now(s)};
}

int64_t sl_store_wait(sl_store_t *s, int64_t after_rv, int timeout_ms)
{
    return sl_store_wait_mark(s, (sl_store_mark_t){.rev = after_rv, .kicks = kicks_now(s)},
                              timeout_ms);
}

int64_t sl_store_wait_mark(sl_store_t *s, sl_store_mark_t mark, int timeout_ms)
{
    if (tls_txn == s) /* would wait on ourselves */
        return sl_store_revision(s);
    struct timespec deadline = sl_mono_after_ms(timeout_ms >= 0 ? timeout_ms : 0);
    pthread_mutex_lock(&s->wmu);
    while (s->rev <= mark.rev && !s->shutdown && s->kicks == mark.kicks) {
        int rc = timeout_ms < 0 ? pthread_cond_wait(&s->cond, &s->wmu)
                                : pthread_cond_timedwait(&s->cond, &s->wmu, &deadline);
        if (rc == ETIMEDOUT)
            break;
    }
    int64_t rv = s->rev;
    pthread_mutex_unlock(&s->wmu);
    return rv;
}

void sl_store_wakeup(sl_store_t *s)
{
    pthread_mutex_lock(&s->wmu);
    s->shutdown = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->wmu);
}

void sl_store_kick(sl_store_t *s)
{
    pthread_mutex_lock(&s->wmu);
    __atomic_add_fetch(&s->kicks, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->wmu);
}

int sl_store_shutting_down(sl_store_t *s)
{
    return __atomic_load_n(&s->shutdown, __ATOMIC_ACQUIRE);
}

int sl_store_notify_add(sl_store_t *s, sl_store_notify_fn fn, void *arg)
{
    pthread_mutex_lock(&s->nmu);
    size_t i;
    for (i = 0; i < s->nnotify; i++)
        if (!s->notify[i].fn)
            break;
    if (i == s->nnotify) {
        s->notify = sl_xrealloc(s->notify, (s->nnotify + 1) * sizeof *s->notify);
        s->nnotify++;
    }
    s->notify[i].fn = fn;
    s->notify[i].arg = arg;
    pthread_mutex_unlock(&s->nmu);
    return (int)i + 1;
}

void sl_store_notify_remove(sl_store_t *s, int id)
{
    pthread_mutex_lock(&s->nmu);
    if (id > 0 && (size_t)id <= s->nnotify)
        s->notify[id - 1].fn = NULL;
    pthread_mutex_unlock(&s->nmu);
}

void sl_store_log_hold(sl_store_t *s, int64_t rv)
{
    __atomic_store_n(&s->log_hold, rv > 0 ? rv : 0, __ATOMIC_RELAXED);
}

void sl_store_set_log_limit(sl_store_t *s, size_t limit)
{
    if (tls_txn != s)
        pthread_mutex_lock(&s->wmu);
    s->log_limit = limit < 1 ? 1 : limit;
    if (tls_txn != s)
        pthread_mutex_unlock(&s->wmu);
}
