/* store: group commit (group.c) — creates of several threads queued behind
 * a writer commit together, each with its own result. */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/internal.h"
#include "store/store.h"

#define K 6 /* threads queued behind the held writer */

typedef struct creator {
    sl_store_t *s;
    char name[64];
    int rc, err_no;
    int64_t rv;
    int visible; /* a reader saw the object when the create returned */
    sl_error_t err;
} creator_t;

static json_t *pod(const char *name)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:[{s:s,s:s}]}}", "apiVersion", "v1", "kind", "Pod",
                     "metadata", "name", name, "namespace", "default", "spec", "containers", "name",
                     "c", "image", "busybox");
}

static void *create_one(void *arg)
{
    creator_t *c = arg;
    json_t *p = pod(c->name);
    c->err = (sl_error_t)SL_ERROR_INIT;
    c->rc = sl_store_create(c->s, "pods", p, &c->err);
    c->err_no = c->rc < 0 ? errno : 0;
    const char *rv = sl_kube_meta_str(p, "resourceVersion");
    c->rv = rv ? atoll(rv) : 0;
    json_t *got = c->rc == 0 ? sl_store_get(c->s, "pods", "default", c->name) : NULL;
    c->visible = got != NULL;
    json_decref(got);
    json_decref(p);
    return NULL;
}

static size_t queued(sl_store_t *s) { return sl_store_group_queued(s, NULL); }

/* K creators started while this thread holds a batch; want: how many
 * queue (K - 1: the first leads and waits for the writer, the others queue
 * behind it; 0: group_commit 1, none queues); then the batch ends. */
static void run_held(sl_store_t *s, creator_t *c, const char *const *names, size_t want)
{
    sl_error_t err;
    pthread_t t[K];
    ok(sl_store_txn_begin(s, &err) == 0, "a batch holds the writer");
    for (int i = 0; i < K; i++) {
        c[i] = (creator_t){.s = s};
        snprintf(c[i].name, sizeof c[i].name, "%s", names[i]);
        pthread_create(&t[i], NULL, create_one, &c[i]);
        if (i == 0 && want) /* the leader: out of the queue, waiting for the writer */
            for (int lead = 0, w = 0; w < 500 && !lead; w++) {
                sl_store_group_queued(s, &lead);
                usleep(2000);
            }
    }
    size_t q = 0;
    for (int w = 0; w < (want ? 1000 : 25); w++)
        if ((q = queued(s)) >= want && want)
            break;
        else
            usleep(2000);
    if (want)
        is_int((long)q, (long)want, "%zu creates queued behind the one waiting for the writer",
               want);
    else
        is_int((long)q, 0, "no create queues for a group");
    ok(sl_store_txn_commit(s, &err) == 0, "the batch commits");
    for (int i = 0; i < K; i++)
        pthread_join(t[i], NULL);
}

static void test_grouped(const char *dir)
{
    sl_error_t err;
    char *path = sl_xasprintf("%s/g.db", dir);
    sl_store_t *s = sl_store_open(path, &err);
    ok(s != NULL, "open a store on disk");
    uint64_t c0 = sl_store_commits(s), g, w;
    creator_t c[K];
    const char *names[K] = {"a0", "a1", "a2", "a3", "a4", "a5"};
    run_held(s, c, names, K - 1);
    int all = 1, vis = 1;
    for (int i = 0; i < K; i++) {
        all &= c[i].rc == 0;
        vis &= c[i].visible;
    }
    ok(all, "every create succeeded");
    ok(vis, "each create's object is read back by another connection when it returns");
    is_int((long)(sl_store_commits(s) - c0), 3,
           "three commits: the batch, the leader's own create, one for the %d queued", K - 1);
    sl_store_group_stats(s, &g, &w);
    is_int((long)g, 1, "one group commit");
    is_int((long)w, K - 1, "it held the %d queued creates", K - 1);
    int distinct = 1;
    for (int i = 0; i < K; i++)
        for (int j = i + 1; j < K; j++)
            distinct &= c[i].rv != c[j].rv && c[i].rv > 0;
    ok(distinct, "each create has a revision of its own");
    is_int((long)sl_store_revision(s), K, "the store's revision counts every create");
    is_int(sl_store_count(s, "pods", "default"), K, "%d pods stored", K);

    /* a name taken twice in one group: one of the two is refused, alone */
    const char *dup[K] = {"b0", "b1", "dup", "b3", "dup", "b5"};
    run_held(s, c, dup, K - 1);
    int ok_n = 0, exist = 0;
    for (int i = 0; i < K; i++) {
        ok_n += c[i].rc == 0;
        exist += c[i].rc < 0 && c[i].err_no == EEXIST;
    }
    is_int(ok_n, K - 1, "the group's other creates succeeded");
    is_int(exist, 1, "the second create of the same name failed with EEXIST");
    for (int i = 0; i < K; i++)
        if (c[i].rc < 0)
            has_str(c[i].err.text, "pods \"dup\" already exists", "its error names the object");
    is_int(sl_store_count(s, "pods", "default"), 2 * K - 1, "%d pods stored", 2 * K - 1);
    is_int((long)sl_store_revision(s), 2 * K - 1, "the refused create took no revision");
    json_t *ch = sl_store_changes(s, K, "pods", NULL, 0, NULL);
    is_int((long)json_array_size(ch), K - 1, "the change log holds the %d new pods", K - 1);
    json_decref(ch);

    /* one at a time: each its own transaction, no group */
    c0 = sl_store_commits(s);
    creator_t one = {.s = s};
    snprintf(one.name, sizeof one.name, "single");
    create_one(&one);
    ok(one.rc == 0 && sl_store_commits(s) - c0 == 1, "a create alone commits on its own");
    sl_store_group_stats(s, &g, &w);
    is_int((long)g, 2, "still two group commits");
    sl_store_close(s);

    /* state.group_commit 1: the queued creates commit one by one */
    s = sl_store_open(path, &err);
    sl_store_set_group_max(s, 1);
    c0 = sl_store_commits(s);
    const char *off[K] = {"c0", "c1", "c2", "c3", "c4", "c5"};
    run_held(s, c, off, 0);
    all = 1;
    for (int i = 0; i < K; i++)
        all &= c[i].rc == 0;
    ok(all, "every create succeeded");
    is_int((long)(sl_store_commits(s) - c0), K + 1, "each in a commit of its own");
    sl_store_group_stats(s, &g, &w);
    is_int((long)g, 0, "no group commit");
    sl_store_close(s);
    free(path);
}

/* the COMMIT refused (a commit hook, as a full disk or an I/O error would
 * make it fail) for the nth commit from now */
static int fail_at;
static int commit_hook(void *arg)
{
    (void)arg;
    return --fail_at == 0;
}

static void test_commit_fails(const char *dir)
{
    sl_error_t err;
    char *path = sl_xasprintf("%s/f.db", dir);
    sl_store_t *s = sl_store_open(path, &err);
    creator_t c[K];
    const char *names[K] = {"f0", "f1", "f2", "f3", "f4", "f5"};
    sqlite3_commit_hook(s->w.db, commit_hook, NULL);
    fail_at = 3; /* the batch, the leader's own create, then the group's */
    run_held(s, c, names, K - 1);
    int failed = 0, restored = 0, rc0 = c[0].rc;
    for (int i = 1; i < K; i++) {
        failed += c[i].rc < 0 && c[i].err_no != 0 && c[i].err.text[0];
        restored += c[i].rv == 0;
    }
    ok(rc0 == 0, "the leader's own create, committed before the group, succeeded");
    is_int(failed, K - 1, "each create of the group whose COMMIT failed got an error (%s)",
           c[1].err.text);
    is_int(restored, K - 1, "... and its object back as it was (no resourceVersion)");
    is_int(sl_store_count(s, "pods", "default"), 1, "only the leader's pod is stored");
    is_int((long)sl_store_revision(s), 1, "the store's revision counts it alone");
    creator_t after = {.s = s};
    snprintf(after.name, sizeof after.name, "f1");
    create_one(&after);
    ok(after.rc == 0 && after.rv == 2 && after.visible,
       "a create after the failed group takes the next revision (%lld)", (long long)after.rv);
    json_t *ch = sl_store_changes(s, 0, "pods", NULL, 0, NULL);
    is_int((long)json_array_size(ch), 2, "the change log holds the two stored pods only");
    json_decref(ch);
    sqlite3_commit_hook(s->w.db, NULL, NULL);
    sl_store_close(s);
    free(path);
}

/* many threads creating at once, grouped or not: every create there once */
static void *create_many(void *arg)
{
    creator_t *c = arg;
    for (int i = 0; i < 200; i++) {
        creator_t one = {.s = c->s};
        snprintf(one.name, sizeof one.name, "%.16s-%d", c->name, i);
        create_one(&one);
        if (one.rc < 0 || !one.visible)
            c->rc = -1;
    }
    return NULL;
}

static void test_stress(const char *dir)
{
    sl_error_t err;
    char *path = sl_xasprintf("%s/m.db", dir);
    sl_store_t *s = sl_store_open(path, &err);
    creator_t c[8];
    pthread_t t[8];
    for (int i = 0; i < 8; i++) {
        c[i] = (creator_t){.s = s};
        snprintf(c[i].name, sizeof c[i].name, "t%d", i);
        pthread_create(&t[i], NULL, create_many, &c[i]);
    }
    int all = 1;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        all &= c[i].rc == 0;
    }
    ok(all, "8 threads x 200 creates: each succeeded and was visible when it returned");
    is_int(sl_store_count(s, "pods", "default"), 1600, "1600 pods stored");
    is_int((long)sl_store_revision(s), 1600, "revision 1600");
    uint64_t g, w;
    sl_store_group_stats(s, &g, &w);
    ok(sl_store_commits(s) + w - g == 1600,
       "commits and grouped creates add up (%llu commits, "
       "%llu groups of %llu creates)",
       (unsigned long long)sl_store_commits(s), (unsigned long long)g, (unsigned long long)w);
    ok(sl_store_commit_ns(s) > 0, "commit time is counted (%.1f ms)", sl_store_commit_ns(s) / 1e6);
    sl_store_close(s);
    free(path);
}

int main(void)
{
    tap_plan(45);
    char dir[] = "/tmp/sl-store-group.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    test_grouped(dir);
    test_commit_fails(dir);
    test_stress(dir);
    sl_rm_rf(dir);
    return tap_done();
}
