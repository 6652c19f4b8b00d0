/* podtable — the controller's pods by uid, by job id and by array task:
 * lookups after adds, job changes, task changes and removals, with many
 * pods per chain (10,000 pods in CTL_HASH chains). */
#include "common/tap.h"
#include "common/xalloc.h"
#include "ctl/internal.h"

#include <stdio.h>
#include <stdlib.h>

#define N 10000

/* the pods of one job id: a gang's replicas share theirs (poll.c follow_gang) */
static size_t of_job(sl_ctl_t *c, uint32_t job, ctl_pod_t **out, size_t max)
{
    size_t n = 0;
    for (ctl_pod_t *p = ctl_pod_next_by_job(c, job, NULL); p && n < max;
         p = ctl_pod_next_by_job(c, job, p))
        out[n++] = p;
    return n;
}

static void gang_pods(sl_ctl_t *c)
{
    char uid[64];
    ctl_pod_t *r[4], *got[8];
    for (int i = 0; i < 4; i++) {
        snprintf(uid, sizeof(uid), "gang-%d", i);
        r[i] = ctl_pod_add(c, uid, "ns", uid);
        ctl_pod_set_job(c, r[i], 77777);
    }
    size_t n = of_job(c, 77777, got, 8);
    int all = n == 4;
    for (int i = 0; i < 4; i++) {
        int seen = 0;
        for (size_t k = 0; k < n; k++)
            seen += got[k] == r[i];
        all &= seen == 1;
    }
    ok(all, "the four replicas of job 77777 are each found once by its id (%zu)", n);
    ctl_pod_set_job(c, r[1], 88888);
    ctl_pod_remove(c, "gang-2");
    n = of_job(c, 77777, got, 8);
    ok(n == 2 && ((got[0] == r[0] && got[1] == r[3]) || (got[0] == r[3] && got[1] == r[0])),
       "one moved to another job, one removed: the other two are left (%zu)", n);
    ok(of_job(c, 88888, got, 8) == 1 && got[0] == r[1] && of_job(c, 99998, got, 8) == 0 &&
           of_job(c, 0, got, 8) == 0,
       "the moved one by its new id; an unknown job and job 0 find none");
}

int main(void)
{
    tap_plan(15);
    sl_ctl_t *c = sl_xcalloc(1, sizeof(*c));
    c->table = ctl_podtable_create();
    char uid[64];
    for (int i = 0; i < N; i++) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        ctl_pod_t *p = ctl_pod_add(c, uid, "ns", uid);
        if (i % 2)
            ctl_pod_set_job(c, p, 1000 + i);
        else {
            p->owner_uid = sl_xstrdup("job-uid");
            ctl_pod_set_task(c, p, 7 + i / 100, i % 100);
        }
    }
    ok(ctl_pods_count(c) == N, "%d pods in the table", N);
    int found = 1;
    for (int i = 1; i < N; i += 2) {
        ctl_pod_t *p = ctl_pod_by_job(c, 1000 + i);
        snprintf(uid, sizeof(uid), "uid-%d", i);
        found &= p && !strcmp(p->uid, uid);
    }
    ok(found, "each pod of its own is found by its job id");
    found = 1;
    for (int i = 0; i < N; i += 2) {
        ctl_pod_t *p = ctl_pod_by_task(c, 7 + i / 100, i % 100);
        snprintf(uid, sizeof(uid), "uid-%d", i);
        found &= p && !strcmp(p->uid, uid);
    }
    ok(found, "each Job's pod is found by its array task");
    ok(!ctl_pod_by_job(c, 999) && !ctl_pod_by_job(c, 0) && !ctl_pod_by_task(c, 7, 1),
       "an unknown job, job 0 and an unknown task find none");
    ctl_pod_t *p = ctl_pod_find(c, "uid-1");
    ctl_pod_set_job(c, p, 55555);
    ok(ctl_pod_by_job(c, 55555) == p && !ctl_pod_by_job(c, 1001),
       "a job id changed: found by the new one only");
    p = ctl_pod_find(c, "uid-0");
    ctl_pod_set_task(c, p, 99999, 3);
    ok(ctl_pod_by_task(c, 99999, 3) == p && !ctl_pod_by_task(c, 7, 0),
       "a task changed: found by the new one only");
    ok(!ctl_pod_by_task(c, 99999, SL_SLURM_NO_TASK), "the pending tasks' record is no task");
    for (int i = 0; i < N; i += 3) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        ctl_pod_remove(c, uid);
    }
    int gone = 1, kept = 1;
    for (int i = 0; i < N; i++) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        int removed = i % 3 == 0;
        uint32_t job = i == 1 ? 55555 : 1000 + i;
        ctl_pod_t *q = i % 2 ? ctl_pod_by_job(c, job)
                             : ctl_pod_by_task(c, i ? 7 + i / 100 : 99999, i ? i % 100 : 3);
        if (removed)
            gone &= !q && !ctl_pod_find(c, uid);
        else
            kept &= q && q == ctl_pod_find(c, uid);
    }
    ok(gone, "removed pods are in no index");
    ok(kept, "the others are still found by uid, job and task");
    /* the due list: insertion order, no duplicates, removal anywhere */
    ctl_pod_t *a = ctl_pod_find(c, "uid-1"), *b = ctl_pod_find(c, "uid-2"),
              *d = ctl_pod_find(c, "uid-4");
    ctl_due_add(c, a);
    ctl_due_add(c, b);
    ctl_due_add(c, a);
    ctl_due_add(c, d);
    ok(ctl_due_first(c) == a && a->due_next == b && b->due_next == d && !d->due_next &&
           ctl_due_last(c) == d,
       "the due list holds each pod once, in the order added");
    ctl_due_del(c, b);
    ctl_due_del(c, b);
    ok(ctl_due_first(c) == a && a->due_next == d && d->due_prev == a && !b->in_due,
       "a pod taken out of the middle (twice: a no-op)");
    ctl_pod_remove(c, "uid-4");
    ctl_pod_remove(c, "uid-1");
    ok(!ctl_due_first(c) && !ctl_due_last(c), "removed pods leave the due list");
    gang_pods(c);
    ctl_podtable_destroy(c);
    free(c);
    return tap_done();
}
