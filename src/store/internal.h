/* internal.h — shared between the store's files; not part of its interface. */
#ifndef SL_STORE_INTERNAL_H
#define SL_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>

#include "store/store.h"

#define SL_STORE_LOG_LIMIT 10000

enum stmt_id {
    ST_BEGIN,
    ST_BEGIN_IMMEDIATE,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_GET,
    ST_INSERT,
    ST_UPDATE,
    ST_DELETE,
    ST_LIST_ALL,
    ST_LIST_NS,
    ST_COUNT_ALL,
    ST_COUNT_NS,
    ST_LOG_APPEND,
    ST_LOG_TRIM,
    ST_LOG_BOUNDS,
    ST_LOG_ALL,
    ST_LOG_NS,
    ST_COUNT
};

enum { SL_CHANGE_ADDED = 1, SL_CHANGE_MODIFIED = 2, SL_CHANGE_DELETED = 3 };

struct sl_store_conn {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
};

struct sl_store_notify {
    sl_store_notify_fn fn; /* NULL: free slot */
    void *arg;
};

#define STORE_RES_NAME 64 /* a resource's name, its NUL included; longer: all_rev */
#define STORE_RES_MAX 64  /* resources with a revision of their own; more: all_rev */
#define STORE_TOUCHED_MAX 8

struct sl_store {
    struct sl_store_conn w; /* writer (and reader for :memory:) */
    struct sl_store_conn r; /* reader; unused for :memory: */
    int memory;
    pthread_mutex_t wmu, rmu, nmu;
    pthread_cond_t cond; /* broadcast on publish and shutdown; with wmu */
    int64_t rev;         /* committed revision (atomic reads) */
    int64_t next_rev;    /* last revision taken, committed or in a batch */
    int64_t log_min;     /* oldest rv in the change log (0: empty) */
    int64_t txn_log_min; /* log_min when the batch began */
    size_t log_limit;
    int64_t log_hold; /* atomic: sl_store_log_hold's revision (0: none) */
    int shutdown;
    unsigned kicks;   /* sl_store_kick() generation; changed with wmu, read atomically */
    uint64_t commits; /* write transactions committed; changed with wmu, read atomically */
    /* each lock's statistics (changed under it, read atomically) and when
     * its holder took it (monotonic ns) */
    sl_store_lockstat_t wstat, rstat;
    int64_t w_since, r_since;
    /* the revision of each resource's last committed change (resmu; set
     * at the commit from the resources the transaction touched, wmu), for
     * sl_store_resource_rev; all_rev: of any resource (too many touched) */
    pthread_mutex_t resmu;
    struct store_res_rev {
        char name[STORE_RES_NAME];
        int64_t rev;
    } res_revs[STORE_RES_MAX];
    size_t nres;
    int64_t open_rev, all_rev;
    char touched[STORE_TOUCHED_MAX][STORE_RES_NAME]; /* wmu: this transaction's resources */
    size_t ntouched;
    int touched_all;
    struct sl_store_notify *notify;
    size_t nnotify;
};

int sl_store_errno(int rc);
int sl_store_dberr(sl_store_t *s, sqlite3 *db, int rc, sl_error_t *err, const char *what);
int sl_store_in_txn(sl_store_t *s);
struct sl_store_conn *sl_store_rlock(sl_store_t *s);
void sl_store_runlock(sl_store_t *s, struct sl_store_conn *c);
int sl_store_wbegin(sl_store_t *s, sl_error_t *err);
int sl_store_wend(sl_store_t *s, int ok, int used_rev, sl_error_t *err);
/* resource changed in the open transaction (wmu held) */
void sl_store_touch(sl_store_t *s, const char *resource);

#endif
