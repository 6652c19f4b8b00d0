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
    uint64_t drafts_written, drafts_redone; /* changed with wmu, read atomically */
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
    /* group commit (group.c), with gmu: the writes queued, whether one
     * thread leads them, and the most one transaction takes */
    pthread_mutex_t gmu;
    struct store_gop *gqueue, **gtail;
    int gleader, group_max;
    uint64_t groups, grouped; /* atomic: transactions of several writes, their writes */
    uint64_t commit_ns;       /* atomic: time in COMMIT (with SQLite's checkpoints) */
};
typedef struct store_gop store_gop_t;

int sl_store_errno(int rc);
int sl_store_dberr(sl_store_t *s, sqlite3 *db, int rc, sl_error_t *err, const char *what);
int sl_store_in_txn(sl_store_t *s);
struct sl_store_conn *sl_store_rlock(sl_store_t *s);
void sl_store_runlock(sl_store_t *s, struct sl_store_conn *c);
int sl_store_wbegin(sl_store_t *s, sl_error_t *err);
int sl_store_wend(sl_store_t *s, int ok, int used_rev, sl_error_t *err);
/* resource changed in the open transaction (wmu held) */
void sl_store_touch(sl_store_t *s, const char *resource);

/* group.c: fn(arg, err) as one write (fn takes the writer with
 * sl_store_wbegin and ends with sl_store_wend), grouped into one
 * transaction with other threads' writes while they queue; it may run on
 * another thread, which sets *err and errno for it; 0 or -1 */
typedef int (*sl_store_write_fn)(void *arg, sl_error_t *err);
int sl_store_write(sl_store_t *s, sl_store_write_fn fn, void *arg, sl_error_t *err);
#define SL_STORE_GROUP_MAX 64
/* for tests: writes queued now, and (lead not NULL) whether a thread leads */
size_t sl_store_group_queued(sl_store_t *s, int *lead);

/* objects.c: rows (1 found, 0 absent, -1 error for db_get; 0 or -1 else),
 * an object's text, and a mutation inside an open write (wmu held: *work
 * the result, *used whether it took a revision) */
int sl_store_db_get(sl_store_t *s, struct sl_store_conn *c, const char *resource, const char *ns,
                    const char *name, int64_t *rv, char **text, sl_error_t *err);
int sl_store_db_put(sl_store_t *s, int id, const char *resource, const char *ns, const char *name,
                    int64_t rv, const char *text, sl_error_t *err);
int sl_store_db_log(sl_store_t *s, int64_t rv, int type, const char *resource, const char *ns,
                    const char *name, const char *text, const char *prev, sl_error_t *err);
char *sl_store_dump(json_t *obj);
void sl_store_carry_immutable(json_t *obj, json_t *old);
/* fn on a copy of old, stored at rv under ns/name, as a mutation sees it:
 * *work the result with old's key, immutable fields and revision; 1 when
 * it differs from old, 0 when there is nothing to write, -1 when fn refused
 * (errno set, EINVAL if fn set none; *work NULL). refused: err for that
 * refusal, from errno; -1. */
int sl_store_apply(json_t *old, int64_t rv, const char *ns, const char *name, sl_store_mutate_fn fn,
                   void *arg, json_t **work);
int sl_store_refused(sl_error_t *err, const char *resource, const char *name);
int sl_store_mutate_locked(sl_store_t *s, const char *resource, const char *ns, const char *name,
                           sl_store_mutate_fn fn, void *arg, json_t **work, int *used,
                           sl_error_t *err);
/* the end of such a write (rc its result): committed (rc 0) or rolled
 * back, then work handed to *out (out not NULL) or dropped; 0, or -1 with
 * the write's errno */
int sl_store_wend_out(sl_store_t *s, int rc, int used, json_t *work, json_t **out, sl_error_t *err);

/* draft.c: an object's text made before the writer lock is taken, with a
 * marker where its resourceVersion goes, so that under the lock the
 * revision is copied in instead of the whole object being dumped there.
 * make sets the marker as obj's metadata.resourceVersion (the caller sets
 * the real one after): 0, or -1 when the dumped text does not hold the
 * marker exactly once (the object's own strings hold it too): then dump
 * under the lock as before. fill: the text with rv in place (malloc'd). */
typedef struct sl_store_pretext {
    char *text;
    size_t len, at, mark_len;
} sl_store_pretext_t;
int sl_store_pretext_make(json_t *obj, sl_store_pretext_t *p);
char *sl_store_pretext_fill(const sl_store_pretext_t *p, int64_t rv);
void sl_store_pretext_free(sl_store_pretext_t *p);

#endif
