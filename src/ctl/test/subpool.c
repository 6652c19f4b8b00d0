/* subpool — the submission workers: every submission pushed runs exactly
 * once, on a worker thread, and comes back in the finished list; destroy
 * frees what was never run; the finished list wakes the kick once per
 * transition from empty. */
#include "ctl/subpool.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define N 2000

static atomic_int runs[N];
static atomic_int kicks, freed, on_main;
static atomic_int inflight, peak; /* runs under way, and the most at once */
static pthread_t main_thread;
static atomic_int gate = 1; /* 0: workers wait */

static void run(struct sl_ctl *c, ctl_sub_t *s)
{
    (void)c;
    int now = atomic_fetch_add(&inflight, 1) + 1;
    for (int m = atomic_load(&peak); now > m && !atomic_compare_exchange_weak(&peak, &m, now);)
        ;
    while (!atomic_load(&gate))
        usleep(1000);
    if (pthread_equal(pthread_self(), main_thread))
        atomic_fetch_add(&on_main, 1);
    atomic_fetch_add(&runs[s->tries], 1);
    s->job_id = (uint32_t)s->tries + 1;
    atomic_fetch_sub(&inflight, 1);
}

static void kick(void *arg)
{
    (void)arg;
    atomic_fetch_add(&kicks, 1);
}

static void free_sub(ctl_sub_t *s)
{
    atomic_fetch_add(&freed, 1);
    free(s);
}

static ctl_sub_t *sub(int i)
{
    ctl_sub_t *s = sl_xcalloc(1, sizeof(*s));
    s->tries = i;
    return s;
}

/* takes back and frees finished submissions until `n` came back */
static void drain(ctl_subpool_t *p, int n)
{
    for (int back = 0; back < n;) {
        ctl_sub_t *s = ctl_subpool_take(p);
        if (!s)
            usleep(1000);
        for (; s; back++) {
            ctl_sub_t *next = s->next;
            free(s);
            s = next;
        }
    }
}

static void wait_inflight(int n)
{
    while (atomic_load(&inflight) < n)
        usleep(1000);
}

/* a pool grown while its workers are busy runs more at once; shrunk, no
 * more than the new count; every submission still runs once */
static void resize_checks(void)
{
    atomic_store(&gate, 0);
    atomic_store(&peak, 0);
    ctl_subpool_t *p = ctl_subpool_create(NULL, 2, run, NULL, NULL);
    for (int i = 0; i < 16; i++)
        ctl_subpool_push(p, sub(i));
    wait_inflight(2);
    is_int(ctl_subpool_resize(p, 6), 6, "grown from 2 to 6 workers while the two are busy");
    wait_inflight(6);
    is_int(ctl_subpool_workers(p), 6, "six running");
    atomic_store(&gate, 1);
    is_int(ctl_subpool_resize(p, 1), 1, "shrunk to 1 (the five extra end after their run)");
    drain(p, 16);
    ok(atomic_load(&peak) == 6, "six ran at once before the shrink (peak %d)", atomic_load(&peak));
    atomic_store(&peak, 0);
    for (int i = 0; i < 40; i++)
        ctl_subpool_push(p, sub(i));
    drain(p, 40);
    ok(atomic_load(&peak) == 1, "after it one at a time (peak %d)", atomic_load(&peak));
    is_int(ctl_subpool_resize(p, 1000), 64, "a resize past 64 gives 64");
    ctl_subpool_destroy(p, free_sub);
}

int main(void)
{
    tap_plan(14);
    main_thread = pthread_self();
    ctl_subpool_t *p = ctl_subpool_create(NULL, 4, run, kick, NULL);
    ok(p != NULL, "four workers start");
    for (int i = 0; i < N; i++)
        ctl_subpool_push(p, sub(i));
    int back = 0, in_order_ids = 1;
    while (back < N) {
        ctl_sub_t *s = ctl_subpool_take(p);
        if (!s)
            usleep(1000);
        for (; s;) {
            ctl_sub_t *next = s->next;
            in_order_ids &= s->job_id == (uint32_t)s->tries + 1;
            back++;
            free(s);
            s = next;
        }
    }
    int once = 1;
    for (int i = 0; i < N; i++)
        once &= atomic_load(&runs[i]) == 1;
    ok(once, "each of %d submissions ran exactly once", N);
    ok(back == N && in_order_ids, "and came back finished, with what its run wrote");
    ok(atomic_load(&on_main) == 0, "none ran on the pushing thread");
    ok(ctl_subpool_busy(p) == 0, "nothing is queued or running after that");
    int k = atomic_load(&kicks);
    ok(k >= 1 && k <= N, "the finished list woke the kick (%d times for %d)", k, N);
    /* queued but never run: destroy frees them */
    atomic_store(&gate, 0);
    for (int i = 0; i < 10; i++)
        ctl_subpool_push(p, sub(i));
    ok(ctl_subpool_busy(p) == 10, "ten queued or running while the workers wait");
    atomic_store(&gate, 1);
    ctl_subpool_destroy(p, free_sub);
    is_int(atomic_load(&freed), 10, "destroy joins the workers and frees the ten, run or not");
    resize_checks();
    return tap_done();
}
