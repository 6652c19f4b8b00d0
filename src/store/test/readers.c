/* readers: reads run side by side on sl_store_set_readers' reader
 * connections and never on more, a wait for a busy one counted; and a thread waiting for a revision or a kick is
 * woken while a write transaction is open (it does not wait for the
 * writer's lock). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/proc.h"
#include "common/tap.h"
#include "store/store.h"

static sl_store_t *s;
static atomic_int inside, most;

static void nap_ms(int ms) { nanosleep(&(struct timespec){0, ms * 1000000L}, NULL); }

static int slow_each(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)arg, (void)json, (void)len, (void)it;
    int now = atomic_fetch_add(&inside, 1) + 1;
    for (int m = atomic_load(&most); now > m && !atomic_compare_exchange_weak(&most, &m, now);)
        ;
    nap_ms(40); /* a long read holds its connection */
    atomic_fetch_sub(&inside, 1);
    return 0;
}

static void *reader(void *arg)
{
    (void)arg;
    sl_store_list_each(s, "pods", NULL, slow_each, NULL, NULL);
    return NULL;
}

static void *kicker(void *arg)
{
    sl_store_kick(arg);
    return NULL;
}

static long long woke_ms;
static void *waiter(void *arg)
{
    sl_store_mark_t *m = arg;
    long long t0 = sl_now_ms();
    sl_store_wait_mark(s, *m, 5000);
    woke_ms = sl_now_ms() - t0;
    return NULL;
}

int main(void)
{
    tap_plan(9);
    char dir[] = "/tmp/store-readers-XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/db", dir);
    s = sl_store_open(path, NULL);
    ok(s != NULL, "store opened");
    json_t *p = json_pack("{s:{s:s,s:s}}", "metadata", "name", "p", "namespace", "ns");
    sl_store_create(s, "pods", p, NULL);
    json_decref(p);
    is_int(sl_store_readers(s), 1, "one reader connection at first");

    ok(sl_store_set_readers(s, 3, NULL) == 0, "three reader connections set");
    pthread_t t[6];
    for (int i = 0; i < 6; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    for (int i = 0; i < 6; i++)
        pthread_join(t[i], NULL);
    is_int(atomic_load(&most), 3, "six slow reads at once: three ran side by side (the most)");
    is_int(sl_store_readers(s), 3, "on the three reader connections");
    double ws, rs;
    sl_store_waits(s, &ws, &rs);
    ok(rs > 0.02, "the reads that found every connection busy waited (%.3f s counted)", rs);

    /* a waiter for a kick while a batch holds the writer's lock */
    sl_store_mark_t m = sl_store_mark(s);
    pthread_t w;
    pthread_create(&w, NULL, waiter, &m);
    ok(sl_store_txn_begin(s, NULL) == 0, "a batch begins (the writer's lock held)");
    nap_ms(50);
    pthread_t k;
    /* the kick from another thread: the batch's own would not need the lock */
    pthread_create(&k, NULL, kicker, s);
    pthread_join(k, NULL);
    pthread_join(w, NULL);
    ok(woke_ms < 200, "a kick during the batch wakes the waiter at once (%lld ms, the batch "
                      "ends at 300)", woke_ms);
    nap_ms(250 - (int)woke_ms > 0 ? 250 - (int)woke_ms : 0);
    ok(sl_store_txn_commit(s, NULL) == 0, "the batch commits");
    sl_store_close(s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return tap_done();
}
