/* store.h — slurmlinkd's object store: Kubernetes objects in SQLite, one
 * global revision (the resourceVersion of every object), and a bounded change
 * log that watches resume from.
 *
 * Objects are Kubernetes JSON objects (jansson). `resource` is the plural
 * lowercase name ("pods", "events", "namespaces", "configmaps", "secrets",
 * "serviceaccounts", "nodes", "jobs.batch", ...); the store does not interpret
 * it beyond using it as part of the key. `ns` is NULL or "" for cluster-scoped
 * objects. The key of an object is (resource, metadata.namespace or "",
 * metadata.name).
 *
 * Thread safety: every function may be called from any thread. Writes are
 * serialised by one mutex; reads (get, list, changes) use a second SQLite
 * connection (WAL lets them run while a write commits), so a long list does
 * not stall writers. A store opened on ":memory:" uses one connection.
 *
 * Errors: -1 / NULL with errno set, and text in the optional sl_error_t.
 * errno values callers map to HTTP: ENOENT (404 NotFound), EEXIST (409
 * AlreadyExists), ESTALE (409 Conflict), ERANGE (410 Expired), EINVAL (bad
 * object: no metadata.name, not a JSON object), anything else (500).
 *
 * Revisions: every create, update and delete takes the next revision; the
 * object's metadata.resourceVersion is that number as a decimal string. The
 * revision is persisted: after close/open every object keeps its
 * resourceVersion and new revisions continue above the old ones.
 */
#ifndef SL_STORE_H
#define SL_STORE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct sl_store sl_store_t;

/* Open (creating if needed) the SQLite file at path (WAL journal,
 * synchronous=NORMAL). path ":memory:" gives a private in-memory store (for
 * tests). The folder must exist. */
sl_store_t *sl_store_open(const char *path, sl_error_t *err);
/* Close; wakes and fails nobody: callers must have stopped using it.
 * NULL is a no-op. */
void sl_store_close(sl_store_t *s);

/* Current global revision (0 for an empty, never-written store). */
int64_t sl_store_revision(sl_store_t *s);
/* Write transactions committed since the store was opened: each create,
 * update, delete or mutate outside a batch is one, a batch is one. */
uint64_t sl_store_commits(sl_store_t *s);
/* Time spent in those commits, in ns (SQLite's COMMIT: the WAL written,
 * and the checkpoints SQLite runs in it). */
uint64_t sl_store_commit_ns(sl_store_t *s);
/* Group commit: while one thread creates, the creates other threads make
 * meanwhile queue and then commit together, up to n in one transaction
 * (default 64; 1: each create its own transaction). Each create returns
 * after its group's commit, with its own result (a refused create undoes
 * only itself; a failed COMMIT fails each). groups: transactions that
 * held more than one create; writes: the creates they held. */
void sl_store_set_group_max(sl_store_t *s, int n);
void sl_store_group_stats(sl_store_t *s, uint64_t *groups, uint64_t *writes);
/* The store's two locks since it was opened: the writers' (every write
 * transaction, a batch included, from its begin to its commit) and the
 * readers' (each read of the reader connection): how often each was taken,
 * the time threads waited for it and the time it was held, in ns. */
typedef struct sl_store_lockstat {
    uint64_t acquired, wait_ns, held_ns;
} sl_store_lockstat_t;
void sl_store_lock_stats(sl_store_t *s, sl_store_lockstat_t *writer, sl_store_lockstat_t *reader);

/* The revision of the last committed change to an object of resource, or
 * one after it: the store's revision when it was opened if none since, a
 * later one when a transaction touched more resources than are kept apart.
 * What was read of the resource after this answer was R stays true while
 * it answers R (a fact kept keyed by it; see api_facts). */
int64_t sl_store_resource_rev(sl_store_t *s, const char *resource);

/* Create. Modifies obj in place:
 *  - metadata.generateName without metadata.name: name = generateName + 5
 *    random chars from [bcdfghjklmnpqrstvwxz2456789] (retried on collision);
 *  - metadata.uid: a random v4 UUID unless already set;
 *  - metadata.creationTimestamp: now (RFC 3339, seconds), always;
 *  - metadata.resourceVersion: the new revision.
 * Fails with EEXIST when the key exists, EINVAL without name/generateName.
 * The caller keeps its reference to obj. */
int sl_store_create(sl_store_t *s, const char *resource, json_t *obj, sl_error_t *err);

/* Get: a new reference (caller json_decref's) or NULL with errno ENOENT. */
json_t *sl_store_get(sl_store_t *s, const char *resource, const char *ns, const char *name);

/* Update: replace the stored object by obj (key from obj's metadata).
 * expect_rv != 0 and the stored revision differs: ESTALE (409 Conflict).
 * ENOENT when missing. metadata.uid and metadata.creationTimestamp are
 * carried over from the stored object (they are immutable, as in
 * kube-apiserver). If obj equals the stored object apart from
 * resourceVersion, nothing is written, no revision is used and no change is
 * logged (kube-apiserver skips such no-op writes too); obj gets the stored
 * resourceVersion. Otherwise obj gets the new resourceVersion. */
int sl_store_update(sl_store_t *s, const char *resource, json_t *obj, int64_t expect_rv,
                    sl_error_t *err);

/* Read-modify-write under the write lock, without conflicts: fn is called
 * with a private copy of the stored object and changes it in place; it
 * returns 1 to store the change, 0 for "nothing to do" (no write), or -1 with
 * errno set to abort (the store returns -1 with that errno). fn must not call
 * the store. On success *out (if out != NULL) gets a new reference to the
 * resulting object. ENOENT when missing. Meant for controllers updating
 * status. */
typedef int (*sl_store_mutate_fn)(json_t *obj, void *arg);
int sl_store_mutate(sl_store_t *s, const char *resource, const char *ns, const char *name,
                    sl_store_mutate_fn fn, void *arg, json_t **out, sl_error_t *err);

/* Drafts: sl_store_mutate in two steps, so that a burst of writes holds
 * the writer lock briefly (the controller's job ids). sl_store_draft_of
 * calls fn on a copy of base, a stored object as some thread read it (at
 * its resourceVersion; base is not changed), with no lock held while fn runs
 * or the result is dumped. sl_store_draft_write writes that result if the
 * stored object is still that version (one indexed read under the writer
 * lock), and otherwise calls fn again on the stored version there, as
 * sl_store_mutate does: fn may be called twice and must give the same
 * result for the same object (a status it sets, not a count it adds).
 * Results are sl_store_mutate's: *out the written (or unchanged) object, -1
 * with fn's errno, ENOENT when missing. A draft may be written inside a
 * batch (sl_store_txn_begin), once, and is freed by sl_store_draft_free. */
typedef struct sl_store_draft sl_store_draft_t;
sl_store_draft_t *sl_store_draft_of(const char *resource, json_t *base, sl_store_mutate_fn fn,
                                    void *arg);
int sl_store_draft_write(sl_store_t *s, sl_store_draft_t *d, json_t **out, sl_error_t *err);
void sl_store_draft_free(sl_store_draft_t *d);
/* Drafts written so far: as drafted, and made again under the lock. */
void sl_store_draft_stats(sl_store_t *s, uint64_t *written, uint64_t *redone);

/* Delete: removes it and logs a DELETED change carrying the last object
 * with a new resourceVersion; that object is returned in *old (new ref) if
 * old != NULL. expect_rv as for update. ENOENT when missing. */
int sl_store_delete(sl_store_t *s, const char *resource, const char *ns, const char *name,
                    int64_t expect_rv, json_t **old, sl_error_t *err);

/* List: a JSON array (new ref) of the objects of resource in ns (NULL: all
 * namespaces), ordered by namespace, name. *rv (if non-NULL) gets the
 * revision the list is consistent with (a watch from it misses nothing).
 * NULL with errno on a database error. */
json_t *sl_store_list(sl_store_t *s, const char *resource, const char *ns, int64_t *rv);

/* The same list without parsing: fn is called for each object with its
 * stored JSON text (compact, NUL-terminated, valid only during the call),
 * in the same order. Lets the HTTP layer splice objects into a response
 * without a parse/serialise round trip. fn returns 0 to continue, -1 (errno
 * set) to stop; the list then returns -1 (*rv is set either way: a page
 * that stops early is consistent with it). fn must not call the store. */
typedef struct sl_store_item {
    const char *ns, *name; /* the object's key ("" namespace: cluster-scoped) */
    int64_t rv;            /* the revision this version was written at; 0: not known */
} sl_store_item_t;
/* it: the row's key and revision, read from the store's columns (no parse);
 * a revision names one version of one object for the store's lifetime. */
typedef int (*sl_store_each_fn)(void *arg, const char *json, size_t len, const sl_store_item_t *it);
int sl_store_list_each(sl_store_t *s, const char *resource, const char *ns, sl_store_each_fn fn,
                       void *arg, int64_t *rv);

/* The list as it was at revision at_rv (<= the current one), from the
 * change log (snapshot.c): fn gets the stored text of each object of
 * resource (in ns if non-NULL) as of at_rv, in (namespace, name) order,
 * starting after the key (after_ns, after_name) (after_name NULL: from the
 * first; after_ns "" for cluster-scoped). Fails with ERANGE (410 Expired)
 * when the log no longer holds every change after at_rv, or the version
 * at at_rv of an object changed since. fn as for sl_store_list_each. */
int sl_store_list_at(sl_store_t *s, const char *resource, const char *ns, int64_t at_rv,
                     const char *after_ns, const char *after_name, sl_store_each_fn fn, void *arg,
                     sl_error_t *err);

/* How many objects sl_store_list_at would give. -1 with errno (ERANGE as
 * there) on error. */
long sl_store_count_at(sl_store_t *s, const char *resource, const char *ns, int64_t at_rv,
                       const char *after_ns, const char *after_name, sl_error_t *err);

/* Number of objects of resource in ns (NULL: all). -1 on error. */
long sl_store_count(sl_store_t *s, const char *resource, const char *ns);

/* Change log for watch. Every create/update/delete appends
 * {rv, type ADDED|MODIFIED|DELETED, resource, ns, name, object}. It is kept
 * in SQLite (survives restarts) and bounded: the last `limit` changes
 * (default 10,000; trimmed in small batches, so slightly more may remain).
 *
 * changes: the changes with rv > after_rv for resource (and ns if non-NULL),
 * at most max (0: no limit), oldest first, as a JSON array (new ref) of
 *     {"rv":N,"type":"ADDED","object":{...}}
 * Fails with errno ERANGE when changes after after_rv have been trimmed
 * (after_rv + 1 < oldest retained rv) → 410 Expired. after_rv at or above
 * the current revision gives an empty array. */
json_t *sl_store_changes(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                         size_t max, sl_error_t *err);
/* sl_store_changes, where a change for which skip(arg, rv) says 1 comes as
 * {"rv":N,"type":T} alone: its object is neither copied nor parsed (a
 * reader that knows it already, as the controller knows its own writes).
 * skip is called under the store's read lock, in revision order. */
typedef int (*sl_store_skip_fn)(void *arg, int64_t rv);
json_t *sl_store_changes_skip(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                              size_t max, sl_store_skip_fn skip, void *arg, sl_error_t *err);
/* The same changes without parsing: fn gets each change's revision, type
 * ("ADDED", "MODIFIED", "DELETED"), namespace ("" for cluster-scoped), name
 * and the object's stored JSON text (valid only during the call), oldest
 * first. Lets a watch filter by name and write events without a
 * parse/serialise round trip. fn returns 0 to go on, -1 (errno set) to
 * stop (the call then returns -1). fn must not call the store. ERANGE as
 * for sl_store_changes. */
typedef int (*sl_store_change_fn)(void *arg, int64_t rv, const char *type, const char *ns,
                                  const char *name, const char *json, size_t len);
int sl_store_changes_each(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                          size_t max, sl_store_change_fn fn, void *arg, sl_error_t *err);
/* The same, each change as its stored texts with the version a MODIFIED
 * replaced (prev; NULL otherwise): what a watch hub keeps, without a
 * parse/serialise round trip of either (and not parsed while the store's
 * reader is held). Valid only during the call; fn as above. prev is the
 * object as it was just before the change (its resourceVersion the one it
 * had), so that a filtered watch can tell whether it matched before
 * (kube-apiserver's watch cache keeps the previous object for this too). A
 * DELETED change's previous state is its object; ADDED has none. Changes
 * logged by a store of schema 1 (before prev was kept) have no prev. */
typedef struct sl_store_change {
    int64_t rv;
    const char *type, *ns, *name;
    const char *json, *prev; /* NUL-terminated */
    size_t len, prev_len;
} sl_store_change_t;
typedef int (*sl_store_change_row_fn)(void *arg, const sl_store_change_t *c);
int sl_store_changes_rows(sl_store_t *s, int64_t after_rv, const char *resource, const char *ns,
                          size_t max, sl_store_change_row_fn fn, void *arg, sl_error_t *err);
/* The oldest revision a watch may still resume from (after_rv >= this). */
int64_t sl_store_oldest_rv(sl_store_t *s);
/* Set the change log bound (minimum 1). For tests and configuration. */
void sl_store_set_log_limit(sl_store_t *s, size_t limit);
/* An in-process reader of the change log (the controllers) has read up to
 * rv (0: no hold): the changes after it are kept beyond the log bound, up
 * to SL_STORE_HOLD_FACTOR times the bound, so that a reader busy for a
 * while is not sent back to a full re-read (ERANGE); one further behind
 * than that loses its place as any reader does. Any thread. */
#define SL_STORE_HOLD_FACTOR 4
void sl_store_log_hold(sl_store_t *s, int64_t rv);

/* Block until the revision is > after_rv, timeout_ms passes (<0: forever),
 * sl_store_kick() is called, or sl_store_wakeup() was called. Returns the
 * current revision. */
int64_t sl_store_wait(sl_store_t *s, int64_t after_rv, int timeout_ms);
/* A point to wait from: the committed revision and the kick generation. A
 * thread that takes a mark, does its work and then waits from the mark
 * misses nothing that came meanwhile: neither a commit nor a kick (a
 * worker's "I have a result for you" given while the work ran; with
 * sl_store_wait, a kick before the wait began is lost). */
typedef struct sl_store_mark {
    int64_t rev;
    unsigned kicks;
} sl_store_mark_t;
sl_store_mark_t sl_store_mark(sl_store_t *s);
/* sl_store_wait from a mark: also returns at once when kicked since it. */
int64_t sl_store_wait_mark(sl_store_t *s, sl_store_mark_t mark, int timeout_ms);
/* Shutdown: wake every waiter, and make every later sl_store_wait() return
 * at once. Sticky by design (a watcher that enters wait just after shutdown
 * must not sleep through it). Writes keep working. */
void sl_store_wakeup(sl_store_t *s);
/* Wake the threads waiting now, once (not sticky): for stopping one
 * component (a controller thread, a watch) while the store stays in use. */
void sl_store_kick(sl_store_t *s);
/* 1 after sl_store_wakeup(). */
int sl_store_shutting_down(sl_store_t *s);

/* Push notification, for event-loop callers that cannot block in wait:
 * fn(arg, rv) is called after each committed write (from the writing
 * thread, no store lock held, but serialised with other notifications and
 * with add/remove). fn must be quick and must not call notify_add/remove.
 * Returns an id > 0 for sl_store_notify_remove(). */
typedef void (*sl_store_notify_fn)(void *arg, int64_t rv);
int sl_store_notify_add(sl_store_t *s, sl_store_notify_fn fn, void *arg);
void sl_store_notify_remove(sl_store_t *s, int id);

/* Batches: between txn_begin and txn_commit the calling thread holds the
 * write lock and its writes share one SQLite transaction (much faster for
 * many writes: one commit). Each write still takes its own revision.
 * Other threads' writes wait; their reads see nothing of the batch until it
 * commits. Reads by the batch's own thread see its writes. Not nestable.
 * txn_rollback discards the batch (revisions used are given back). */
int sl_store_txn_begin(sl_store_t *s, sl_error_t *err);
int sl_store_txn_commit(sl_store_t *s, sl_error_t *err);
void sl_store_txn_rollback(sl_store_t *s);

#endif
