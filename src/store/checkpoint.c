/* checkpoint.c — the store's WAL checkpoints, on a thread of their own.
 *
 * SQLite checkpoints a WAL database by default in the thread whose commit
 * took the WAL past 1,000 pages: that commit then copies the WAL's pages
 * into the database and syncs both files, holding the store's write lock,
 * and every writer waits behind it. In a burst of creates, one commit in a
 * few hundred stalled them all for a checkpoint (docs/benchmarks.md).
 *
 * Here the writer connection only signals (its WAL hook, run after each
 * commit) when the WAL has reached STORE_CKPT_PAGES, and this thread runs a
 * PASSIVE checkpoint on its own connection: it copies what no reader still
 * needs and waits for no one, while writers go on appending. While the WAL
 * stays that long (writers kept it busy), the next checkpoint waits for
 * STORE_CKPT_STEP more pages: each one syncs both files. The writer
 * restarts the WAL from its start (cut back to journal_size_limit) at its
 * first commit after a checkpoint has copied everything, as before; while
 * writers keep appending, this thread never quite catches up, so at
 * STORE_CKPT_MAX pages the committing writer checkpoints what is left
 * itself, which bounds the WAL (a burst paid that every 1,000 pages before,
 * now every STORE_CKPT_MAX, with less left to copy).
 * Durability is unchanged (synchronous=NORMAL: commits are not synced,
 * checkpoints are). A :memory: store has no WAL and no thread. */
#include "store/internal.h"

#include <errno.h>
#include <string.h>

static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)name;
    struct store_ckpt *k = arg;
    if (pages < STORE_CKPT_PAGES)
        return SQLITE_OK;
    if (pages >= STORE_CKPT_MAX) {
        /* writers kept the thread from ever catching up (the WAL restarts
         * only at a commit that finds it all copied): this writer copies
         * the rest, as SQLite's own checkpoint would, so the next commit
         * restarts it */
        sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        return SQLITE_OK;
    }
    pthread_mutex_lock(&k->mu);
    /* again once STORE_CKPT_STEP pages came after the last checkpoint's,
     * or the WAL restarted since */
    if (pages < k->last_log || pages - k->last_log >= STORE_CKPT_STEP) {
        k->due = 1;
        pthread_cond_signal(&k->cond);
    }
    pthread_mutex_unlock(&k->mu);
    return SQLITE_OK;
}

static void *ckpt_main(void *arg)
{
    struct store_ckpt *k = arg;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (!k->due && !k->stop)
            pthread_cond_wait(&k->cond, &k->mu);
        if (k->stop)
            break;
        k->due = 0;
        pthread_mutex_unlock(&k->mu);
        /* an error (SQLITE_BUSY: a checkpoint already running) leaves the
         * WAL to the next signal */
        int log = 0;
        int rc = sqlite3_wal_checkpoint_v2(k->db, "main", SQLITE_CHECKPOINT_PASSIVE, &log, NULL);
        if (rc == SQLITE_OK)
            __atomic_add_fetch(&k->done, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&k->mu);
        if (rc == SQLITE_OK)
            k->last_log = log;
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

int sl_store_ckpt_start(sl_store_t *s, const char *path, sl_error_t *err)
{
    struct store_ckpt *k = &s->ckpt;
    int rc = sqlite3_open_v2(path, &k->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    /* a first read opens the file (and its WAL): a connection that has
     * read nothing takes the database for one without a WAL, and its
     * checkpoints do nothing */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(k->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        sl_store_dberr(s, k->db, rc, err, path);
        sqlite3_close(k->db);
        k->db = NULL;
        return -1;
    }
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cond, NULL);
    int e = pthread_create(&k->thread, NULL, ckpt_main, k);
    if (e) {
        pthread_cond_destroy(&k->cond);
        pthread_mutex_destroy(&k->mu);
        sqlite3_close(k->db);
        k->db = NULL;
        errno = e;
        return sl_errprintf(err, "store: checkpoint thread: %s", strerror(e));
    }
    k->running = 1;
    /* replaces SQLite's own checkpoint in the committing thread */
    sqlite3_wal_hook(s->w.db, wal_hook, k);
    return 0;
}

void sl_store_ckpt_stop(sl_store_t *s)
{
    struct store_ckpt *k = &s->ckpt;
    if (!k->running)
        return;
    if (s->w.db)
        sqlite3_wal_hook(s->w.db, NULL, NULL);
    pthread_mutex_lock(&k->mu);
    k->stop = 1;
    pthread_cond_signal(&k->cond);
    pthread_mutex_unlock(&k->mu);
    pthread_join(k->thread, NULL);
    pthread_cond_destroy(&k->cond);
    pthread_mutex_destroy(&k->mu);
    sqlite3_close(k->db);
    k->db = NULL;
    k->running = 0;
}

uint64_t sl_store_checkpoints(sl_store_t *s)
{
    return __atomic_load_n(&s->ckpt.done, __ATOMIC_RELAXED);
}
