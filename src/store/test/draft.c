/* draft: the texts made before the writer lock (a create's, with its
 * revision put in under the lock) and drafts (store.h): written when the
 * object is unchanged since, made again under the lock when it changed,
 * refused, missing, a no-op, in a batch; fn runs outside the writer lock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/internal.h"
#include "store/store.h"

static json_t *pod(const char *name)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s}},s:{s:[{s:s,s:s}]}}", "apiVersion", "v1", "kind",
                     "Pod", "metadata", "name", name, "namespace", "d", "labels", "app", "web",
                     "spec", "containers", "name", "c", "image", "busybox");
}

/* status.n + 1 and status.job = the int arg points at (0: none) */
static int mark(json_t *obj, void *arg)
{
    json_t *st = json_object_get(obj, "status");
    if (!st)
        json_object_set_new(obj, "status", st = json_object());
    if (arg)
        json_object_set_new(st, "job", json_integer(*(int *)arg));
    else
        json_object_set_new(st, "n",
                            json_integer(json_integer_value(json_object_get(st, "n")) + 1));
    return 1;
}

static int refuse(json_t *obj, void *arg)
{
    (void)obj;
    (void)arg;
    errno = EPERM;
    return -1;
}

static int same(json_t *obj, void *arg)
{
    (void)obj;
    (void)arg;
    return 1; /* "changed", but equal: a no-op */
}

static int slow(json_t *obj, void *arg)
{
    sl_sleep_ms(*(int *)arg);
    return mark(obj, NULL);
}

/* a draft of the pod as a worker makes it: from the version it read (a
 * pod that is not stored: as if read before it went, at revision 1) */
static sl_store_draft_t *draft(sl_store_t *s, const char *name, sl_store_mutate_fn fn, void *arg)
{
    json_t *base = sl_store_get(s, "pods", "d", name);
    if (!base) {
        base = pod(name);
        sl_kube_set_rv(base, 1);
    }
    sl_store_draft_t *d = sl_store_draft_of("pods", base, fn, arg);
    json_decref(base);
    return d;
}

/* the stored object's raw text (as lists serve it) parsed */
static json_t *raw(sl_store_t *s, const char *name)
{
    json_t *l = sl_store_list(s, "pods", "d", NULL), *found = NULL, *it;
    size_t i;
    json_array_foreach(l, i, it) if (!strcmp(sl_kube_name(it), name)) found = json_incref(it);
    json_decref(l);
    return found;
}

static void test_create_text(sl_store_t *s)
{
    json_t *p = pod("c1");
    is_int(sl_store_create(s, "pods", p, NULL), 0, "create");
    json_t *got = sl_store_get(s, "pods", "d", "c1");
    ok(json_equal(got, p), "the stored text is the object, its revision in place");
    is_int(sl_kube_rv(got), sl_store_revision(s), "... at the store's revision");
    json_decref(got);
    json_decref(p);
    /* the marker's text in the object's own strings: dumped under the lock */
    p = pod("c2");
    json_object_set_new(json_object_get(p, "metadata"), "annotations",
                        json_pack("{s:s,s:s}", "resourceVersion", "\001rv\001", "x", "\001rv\001"));
    is_int(sl_store_create(s, "pods", p, NULL), 0, "create of an object that holds the marker");
    got = sl_store_get(s, "pods", "d", "c2");
    ok(json_equal(got, p) && sl_kube_rv(got) == sl_store_revision(s),
       "... stored as it is, with its revision (%s)", sl_kube_meta_str(got, "resourceVersion"));
    is_str(sl_kube_annotation(got, "resourceVersion"), "\001rv\001", "... its own strings kept");
    json_decref(got);
    json_decref(p);
    p = pod("c1");
    errno = 0;
    ok(sl_store_create(s, "pods", p, NULL) == -1 && errno == EEXIST, "a taken name: EEXIST");
    ok(!sl_kube_meta_str(p, "resourceVersion"), "... and the object's metadata is as it was");
    json_decref(p);
    p = pod("");
    json_object_set_new(json_object_get(p, "metadata"), "generateName", json_string("g-"));
    is_int(sl_store_create(s, "pods", p, NULL), 0, "a generated name");
    got = raw(s, sl_kube_name(p));
    ok(got && json_equal(got, p), "... stored under it (%s)", sl_kube_name(p));
    json_decref(got);
    json_decref(p);
}

static void test_draft_plain(sl_store_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    int64_t rv = sl_store_revision(s);
    int job = 7;
    uint64_t w0, r0, w1, r1;
    sl_store_draft_stats(s, &w0, &r0);
    sl_store_draft_t *d = draft(s, "c1", mark, &job);
    is_int(sl_store_revision(s), rv, "a draft writes nothing");
    json_t *out = NULL;
    is_int(sl_store_draft_write(s, d, &out, &err), 0, "the draft written");
    is_int(sl_kube_rv(out), rv + 1, "... as the next revision");
    json_t *got = sl_store_get(s, "pods", "d", "c1"), *text = raw(s, "c1");
    ok(json_equal(got, out) && json_equal(text, out),
       "... the stored object and its text are the result");
    is_int(json_integer_value(json_object_get(json_object_get(got, "status"), "job")), 7,
           "... with fn's change");
    json_t *ch = sl_store_changes(s, rv, "pods", "d", 0, NULL);
    ok(json_array_size(ch) == 1 &&
           json_equal(json_object_get(json_array_get(ch, 0), "object"), out),
       "one MODIFIED change, of the result");
    json_decref(ch);
    json_decref(got);
    json_decref(text);
    json_decref(out);
    sl_store_draft_free(d);
    sl_store_draft_stats(s, &w1, &r1);
    ok(w1 == w0 + 1 && r1 == r0, "counted as written as drafted");
}

static void test_draft_stale(sl_store_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    int job = 9;
    uint64_t w0, r0, w1, r1;
    sl_store_draft_stats(s, &w0, &r0);
    sl_store_draft_t *d = draft(s, "c1", mark, &job);
    json_t *other = NULL;
    sl_store_mutate(s, "pods", "d", "c1", mark, NULL, &other, &err); /* status.n = 1 */
    int64_t rv = sl_store_revision(s);
    json_t *out = NULL;
    is_int(sl_store_draft_write(s, d, &out, &err), 0, "a draft of a version changed since");
    json_t *st = json_object_get(out, "status");
    ok(json_integer_value(json_object_get(st, "n")) == 1 &&
           json_integer_value(json_object_get(st, "job")) == 9,
       "... made again on the stored version: both changes kept");
    is_int(sl_kube_rv(out), rv + 1, "... as the next revision");
    json_decref(out);
    json_decref(other);
    sl_store_draft_free(d);
    sl_store_draft_stats(s, &w1, &r1);
    ok(w1 == w0 && r1 == r0 + 1, "counted as made again");
}

static void test_draft_others(sl_store_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    int64_t rv = sl_store_revision(s);
    sl_store_draft_t *d = draft(s, "c1", refuse, NULL);
    errno = 0;
    ok(sl_store_draft_write(s, d, NULL, &err) == -1 && errno == EPERM, "fn's refusal: its errno");
    has_str(err.text, "update refused", "... named (%s)", err.text);
    sl_store_draft_free(d);
    d = draft(s, "c1", same, NULL);
    json_t *out = NULL;
    ok(sl_store_draft_write(s, d, &out, &err) == 0 && sl_kube_rv(out) == rv,
       "a no-op: the stored version");
    json_decref(out);
    sl_store_draft_free(d);
    is_int(sl_store_revision(s), rv, "refused and no-op drafts take no revision");
    d = draft(s, "ghost", mark, NULL);
    errno = 0;
    ok(sl_store_draft_write(s, d, NULL, &err) == -1 && errno == ENOENT, "missing: ENOENT");
    sl_store_draft_free(d);
    json_t *p = pod("gone");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    d = draft(s, "gone", mark, NULL);
    sl_store_delete(s, "pods", "d", "gone", 0, NULL, NULL);
    errno = 0;
    ok(sl_store_draft_write(s, d, NULL, &err) == -1 && errno == ENOENT,
       "deleted between the draft and its write: ENOENT");
    sl_store_draft_free(d);
}

static void test_draft_batch(sl_store_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    const char *names[] = {"b0", "b1", "b2"};
    int jobs[] = {100, 101, 102};
    sl_store_draft_t *d[3];
    for (int i = 0; i < 3; i++) {
        json_t *p = pod(names[i]);
        sl_store_create(s, "pods", p, NULL);
        json_decref(p);
    }
    int64_t rv = sl_store_revision(s);
    for (int i = 0; i < 3; i++)
        d[i] = draft(s, names[i], mark, &jobs[i]);
    sl_store_txn_begin(s, &err);
    int rc = 0;
    for (int i = 0; i < 3; i++)
        rc |= sl_store_draft_write(s, d[i], NULL, &err);
    is_int(rc, 0, "three drafts written in a batch");
    is_int(sl_store_revision(s), rv, "... not published before its commit");
    is_int(sl_store_txn_commit(s, &err), 0, "... committed");
    is_int(sl_store_revision(s), rv + 3, "... three revisions");
    json_t *got = sl_store_get(s, "pods", "d", "b2");
    is_int(json_integer_value(json_object_get(json_object_get(got, "status"), "job")), 102,
           "... each with its change");
    json_decref(got);
    for (int i = 0; i < 3; i++)
        sl_store_draft_free(d[i]);
}

/* a draft made from an object already read, not from the store */
static void test_draft_of(sl_store_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *base = sl_store_get(s, "pods", "d", "b0"), *out = NULL;
    json_t *before = json_deep_copy(base);
    int job = 200;
    sl_store_draft_t *d = sl_store_draft_of("pods", base, mark, &job);
    ok(json_equal(base, before), "a draft of a read object leaves it as it was");
    int64_t rv = sl_store_revision(s);
    ok(sl_store_draft_write(s, d, &out, &err) == 0 && sl_kube_rv(out) == rv + 1, "... written");
    is_int(json_integer_value(json_object_get(json_object_get(out, "status"), "job")), 200,
           "... with its change");
    json_decref(out);
    sl_store_draft_free(d);
    job = 201; /* base is now an old version: its draft is made again */
    d = sl_store_draft_of("pods", base, mark, &job);
    sl_store_mutate(s, "pods", "d", "b0", mark, NULL, NULL, &err);
    ok(sl_store_draft_write(s, d, &out, &err) == 0 && sl_kube_rv(out) == rv + 3,
       "a draft of an old version: written as the next revision");
    json_t *st = json_object_get(out, "status");
    ok(json_integer_value(json_object_get(st, "job")) == 201 &&
           json_integer_value(json_object_get(st, "n")) == 1,
       "... fn applied to the stored version, the other write kept");
    json_decref(out);
    sl_store_draft_free(d);
    json_decref(base);
    json_decref(before);
}

/* fn's time is not the writer's: a draft whose fn sleeps 300 ms, written
 * after, holds the writer lock for the write alone */
static void test_draft_unlocked(sl_store_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    int ms = 300;
    sl_store_lockstat_t w0, r0, w1, r1;
    sl_store_lock_stats(s, &w0, &r0);
    sl_store_draft_t *d = draft(s, "c1", slow, &ms);
    is_int(sl_store_draft_write(s, d, NULL, &err), 0, "a draft whose fn sleeps 300 ms");
    sl_store_lock_stats(s, &w1, &r1);
    ok(w1.acquired == w0.acquired + 1 && w1.held_ns - w0.held_ns < 300000000ULL,
       "... holds the writer once, not while fn runs (%llu us)",
       (unsigned long long)((w1.held_ns - w0.held_ns) / 1000));
    sl_store_draft_free(d);
    int64_t rv = sl_store_revision(s);
    d = draft(s, "c1", mark, NULL);
    sl_store_draft_free(d);
    is_int(sl_store_revision(s), rv, "a draft freed unwritten writes nothing");
}

int main(void)
{
    tap_plan(43);
    char dir[] = "/tmp/sl-draft-test.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *path = sl_xasprintf("%s/store.db", dir);
    sl_error_t err = SL_ERROR_INIT;
    sl_store_t *s = sl_store_open(path, &err);
    ok(s != NULL, "store opened");
    test_create_text(s);
    test_draft_plain(s);
    test_draft_stale(s);
    test_draft_others(s);
    test_draft_batch(s);
    test_draft_of(s);
    test_draft_unlocked(s);
    sl_store_close(s);
    s = sl_store_open(":memory:", &err);
    json_t *p = pod("m");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    sl_store_draft_t *d = draft(s, "m", mark, NULL);
    json_t *out = NULL;
    ok(sl_store_draft_write(s, d, &out, &err) == 0 && sl_kube_rv(out) == 2,
       "in memory: a draft written");
    json_decref(out);
    sl_store_draft_free(d);
    sl_store_close(s);
    sl_rm_rf(dir);
    free(path);
    return tap_done();
}
