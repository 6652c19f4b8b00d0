/* killer — removed pods' jobs are cancelled on a few threads: every item
 * pushed runs once and is freed, several run at once (a slow slurmctld
 * answer holds one thread, not the queue), a pod's folder goes only after
 * its action, a stop runs what is still queued, and a killer that could not
 * start acts in place. */
#include "ctl/killer.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "ctl/remover.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define N 200

static atomic_int ran, freed, running, most, dir_gone_early;
static char base[] = "/tmp/killer-test-XXXXXX";

typedef struct {
    int slow;
    char *dir; /* the item's folder: still there while its action runs */
} item_t;

static int act(void *arg)
{
    item_t *it = arg;
    int now = atomic_fetch_add(&running, 1) + 1;
    for (int m = atomic_load(&most); now > m && !atomic_compare_exchange_weak(&most, &m, now);)
        ;
    struct stat st;
    if (it->dir && lstat(it->dir, &st) < 0)
        atomic_fetch_add(&dir_gone_early, 1);
    if (it->slow) /* an RPC that waits: the other threads go on */
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    atomic_fetch_sub(&running, 1);
    atomic_fetch_add(&ran, 1);
    return 0;
}

/* an action slurmctld does not answer `fails` times, then done */
typedef struct {
    int fails, tries;
    char *dir;
    long long first_ms, last_ms;
    int dir_gone_early;
} flaky_t;
static atomic_int flaky_freed;

static int flaky(void *arg)
{
    flaky_t *f = arg;
    struct stat st;
    f->dir_gone_early |= lstat(f->dir, &st) < 0;
    if (!f->tries++)
        f->first_ms = sl_now_ms();
    f->last_ms = sl_now_ms();
    return f->tries <= f->fails;
}

static void flaky_free(void *arg)
{
    (void)arg; /* the test reads it after: freed there */
    atomic_fetch_add(&flaky_freed, 1);
}

static int gone(const char *p)
{
    struct stat st;
    return lstat(p, &st) < 0;
}

static void item_free(void *arg)
{
    item_t *it = arg;
    free(it->dir);
    free(it);
    atomic_fetch_add(&freed, 1);
}

/* threads of this process named name */
static int threads_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f) && !strncmp(comm, name, strlen(name)))
            n++;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    tap_plan(17);
    if (!mkdtemp(base))
        return 1;
    ctl_remover_t *r = ctl_remover_start();
    ctl_killer_t *k = ctl_killer_start(CTL_KILLER_THREADS, r, 0);
    ok(k != NULL, "the killer starts");
    is_int(threads_named("sl-kill"), CTL_KILLER_THREADS, "it runs CTL_KILLER_THREADS threads");
    char *dirs[N];
    for (int i = 0; i < N; i++) {
        dirs[i] = sl_xasprintf("%s/pod%d", base, i);
        mkdir(dirs[i], 0700);
        item_t *it = sl_xcalloc(1, sizeof(*it));
        *it = (item_t){.slow = i < 16, .dir = sl_xstrdup(dirs[i])};
        ctl_killer_push(k, act, it, item_free, sl_xstrdup(dirs[i]));
    }
    ctl_killer_stop(k); /* runs what is still queued first */
    ctl_remover_stop(r);
    is_int(atomic_load(&ran), N, "after the stop every item pushed has run once");
    is_int(atomic_load(&freed), N, "and was freed");
    ok(atomic_load(&most) > 1, "several items ran at once (most at once: %d)", atomic_load(&most));
    is_int(atomic_load(&dir_gone_early), 0, "no folder went before its item's action");
    int left = 0;
    for (int i = 0; i < N; i++) {
        struct stat st;
        left += lstat(dirs[i], &st) == 0;
    }
    is_int(left, 0, "every item's folder went after its action");
    is_int(threads_named("sl-kill"), 0, "the stop ends the threads");

    /* an action that slurmctld does not answer: tried again, later each time */
    r = ctl_remover_start();
    k = ctl_killer_start(2, r, 20);
    char *fd = sl_xasprintf("%s/flaky", base), *sd = sl_xasprintf("%s/stuck", base);
    mkdir(fd, 0700);
    mkdir(sd, 0700);
    flaky_t f = {.fails = 3, .dir = fd}, stuck = {.fails = 1000000, .dir = sd};
    ctl_killer_push(k, flaky, &f, flaky_free, sl_xstrdup(fd));
    ctl_killer_push(k, flaky, &stuck, flaky_free, sl_xstrdup(sd));
    for (int i = 0; i < 200 && ctl_killer_backlog(k) > 1; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    is_int(f.tries, 4, "an action that asked three times to be run again ran four times");
    ok(f.last_ms - f.first_ms >= 20 + 40 + 80,
       "after delays that double (20, 40, 80 ms: %lld ms in all)", f.last_ms - f.first_ms);
    is_int((int)ctl_killer_backlog(k), 1, "the backlog counts the one still waiting");
    ok(ctl_killer_retries(k) >= 4, "retries counted (%lu)", ctl_killer_retries(k));
    is_int(f.dir_gone_early, 0, "its folder stayed until its action was done");
    ctl_killer_stop(k); /* the stuck one is dropped, its folder kept */
    ctl_remover_stop(r);
    ok(gone(fd), "then its folder went");
    ok(!gone(sd), "one still not done at the stop keeps its folder (the next start's sweep)");
    is_int(atomic_load(&flaky_freed), 2, "and is freed");
    rmdir(sd);
    free(fd);
    free(sd);

    char *d = sl_xasprintf("%s/inplace", base);
    mkdir(d, 0700);
    item_t *it = sl_xcalloc(1, sizeof(*it));
    it->dir = sl_xstrdup(d);
    int before = atomic_load(&ran);
    ctl_killer_push(NULL, act, it, item_free, sl_xstrdup(d));
    struct stat st;
    ok(atomic_load(&ran) == before + 1 && lstat(d, &st) < 0,
       "without a killer, a push acts and removes the folder at once");
    free(d);
    for (int i = 0; i < N; i++)
        free(dirs[i]);
    rmdir(base);
    return tap_done();
}
