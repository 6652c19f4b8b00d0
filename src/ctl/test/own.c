/* own: the controller's own writes (ctl_pod_mutate_own) come back from the
 * change log without their objects; a no-op, a terminal pod and a store
 * transaction rolled back are read as any change. */
#include "common/fsutil.h"
#include "common/tap.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <stdlib.h>
#include <string.h>

static int mark(json_t *pod, void *arg)
{
    sl_kube_set_annotation(pod, SL_ANN_JOB_ID, arg);
    return 1;
}

static int finish(json_t *pod, void *arg)
{
    (void)arg;
    json_object_set_new(pod, "status", json_pack("{s:s}", "phase", "Succeeded"));
    return 1;
}

/* the changes after rv as "<rv><o|->" (o: with its object), e.g. "3o4-" */
static void read_after(sl_ctl_t *c, int64_t rv, char *out, size_t len)
{
    json_t *ch = sl_store_changes_skip(c->store, rv, "pods", NULL, 0, ctl_own_skip, c, NULL);
    size_t i, k = 0;
    json_t *e;
    out[0] = '\0';
    json_array_foreach(ch, i, e)
    {
        k += (size_t)snprintf(out + k, len - k, "%lld%c",
                              (long long)json_integer_value(json_object_get(e, "rv")),
                              json_object_get(e, "object") ? 'o' : '-');
        if (k >= len)
            break;
    }
    json_decref(ch);
}

int main(void)
{
    tap_plan(9);
    char dir[] = "/tmp/sl-own.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[64];
    snprintf(path, sizeof(path), "%s/db", dir);
    sl_ctl_t c = {0};
    c.store = sl_store_open(path, NULL);
    json_t *pod =
        json_pack("{s:s, s:{s:s, s:s}, s:{s:[{s:s, s:s}]}}", "kind", "Pod", "metadata", "name", "p",
                  "namespace", "default", "spec", "containers", "name", "main", "image", "busybox");
    sl_store_create(c.store, "pods", pod, NULL); /* rv 1 */
    char *uid = strdup(sl_kube_uid(pod));
    json_decref(pod);
    char got[256];

    ok(ctl_pod_mutate_own(&c, "default", "p", uid, mark, "7", NULL, NULL) == 0, "own write (rv 2)");
    ok(ctl_pod_mutate_own(&c, "default", "p", uid, mark, "7", NULL, NULL) == 0 &&
           sl_store_revision(c.store) == 2,
       "the same again writes nothing");
    read_after(&c, 0, got, sizeof(got));
    is_str(got, "1o2-", "the create comes parsed, the own write without its object");

    /* a write of someone else's, then an own write that finishes the pod */
    ctl_pod_mutate(&c, "default", "p", uid, mark, "8", NULL, NULL);        /* rv 3 */
    ctl_pod_mutate_own(&c, "default", "p", uid, mark, "9", NULL, NULL);    /* rv 4 */
    ctl_pod_mutate_own(&c, "default", "p", uid, finish, NULL, NULL, NULL); /* rv 5 */
    read_after(&c, 2, got, sizeof(got));
    is_str(got, "3o4-5o", "another writer's change and a terminal pod's come parsed");

    /* an own write in a transaction that does not commit: its revision is
     * taken back, and the next writer's change, which gets it, is read */
    uint64_t m = ctl_own_mark(&c);
    sl_store_txn_begin(c.store, NULL);
    ctl_pod_mutate_own(&c, "default", "p", uid, mark, "10", NULL, NULL);
    sl_store_txn_rollback(c.store);
    ctl_own_undo(&c, m);
    ok(sl_store_revision(c.store) == 5, "the transaction rolled back");
    ctl_pod_mutate(&c, "default", "p", uid, mark, "11", NULL, NULL); /* rv 6 */
    read_after(&c, 5, got, sizeof(got));
    is_str(got, "6o", "the revision undone, then used by another write: parsed");

    /* notes no change came for are passed; one out of order is not kept */
    ctl_own_note(&c, 20);
    ctl_own_note(&c, 19);
    ok(c.own.n - c.own.head == 1, "a note below the last is not kept");
    ok(ctl_own_skip(&c, 21) == 0 && c.own.n == c.own.head, "a read past a note passes it");
    ok(ctl_own_skip(&c, 20) == 0, "... and it is not skipped later");

    ctl_own_free(&c);
    sl_store_close(c.store);
    free(uid);
    sl_rm_rf(dir);
    return tap_done();
}
