/* bench/store-writer.c — how long a create holds the store's writer lock:
 * N creates (default 10,000) of the pod in bench/store-writer-pod.json (2.4 KB,
 * a pod as the API stores it), one transaction each, one thread, into a
 * fresh store at PATH. Prints the wall time per create and the writer
 * lock's held time per create (sl_store_lock_stats). THREADS (default 1)
 * threads share the N creates; GROUP (the library's default when not given;
 * 1: none) sets the group commit (sl_store_set_group_max; c144924 or later),
 * and the store's commits and groups are printed too. Built against two
 * checkouts' libraries, it compares their creates on one machine:
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/store-writer.c build/libslurmlink.a \
 *      -ljansson -lsqlite3 -lpthread -o /tmp/sw-head      (and the same in BASE)
 *   /tmp/sw-head /var/tmp/sw/s.db [N [POD.json [THREADS [GROUP]]]]  (PATH's folder must exist and
 * be empty) Needs a library with sl_store_lock_stats (2d74719 or later). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store/store.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct worker {
    sl_store_t *s;
    json_t *tmpl;
    int from, to, failed;
} worker_t;

static void *creates(void *arg)
{
    worker_t *w = arg;
    sl_error_t e = SL_ERROR_INIT;
    for (int i = w->from; i < w->to && !w->failed; i++) {
        json_t *p = json_deep_copy(w->tmpl);
        char name[32];
        snprintf(name, sizeof name, "p-%d", i);
        json_object_set_new(json_object_get(p, "metadata"), "name", json_string(name));
        if (sl_store_create(w->s, "pods", p, &e) < 0) {
            fprintf(stderr, "create %s: %s\n", name, e.text);
            w->failed = 1;
        }
        json_decref(p);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH [N [POD.json [THREADS [GROUP]]]]\n", argv[0]);
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 10000;
    const char *podfile = argc > 3 ? argv[3] : "bench/store-writer-pod.json";
    int nt = argc > 4 ? atoi(argv[4]) : 1;
    if (nt < 1 || nt > 256)
        nt = 1;
    sl_error_t e = SL_ERROR_INIT;
    json_error_t je;
    json_t *tmpl = json_load_file(podfile, 0, &je);
    if (!tmpl) {
        fprintf(stderr, "%s: %s\n", podfile, je.text);
        return 1;
    }
    sl_store_t *s = sl_store_open(argv[1], &e);
    if (!s) {
        fprintf(stderr, "%s: %s\n", argv[1], e.text);
        return 1;
    }
    if (argc > 5)
        sl_store_set_group_max(s, atoi(argv[5]));
    worker_t w[256];
    pthread_t t[256];
    double t0 = now();
    for (int i = 0; i < nt; i++) {
        w[i] = (worker_t){.s = s, .tmpl = tmpl, .from = n * i / nt, .to = n * (i + 1) / nt};
        pthread_create(&t[i], NULL, creates, &w[i]);
    }
    int failed = 0;
    for (int i = 0; i < nt; i++) {
        pthread_join(t[i], NULL);
        failed |= w[i].failed;
    }
    double t1 = now();
    sl_store_lockstat_t wl, r;
    sl_store_lock_stats(s, &wl, &r);
    uint64_t groups, grouped;
    sl_store_group_stats(s, &groups, &grouped);
    printf("%d creates by %d thread%s: %.1f us each, the writer held %.1f us each; %llu commits "
           "(%.1f ms committing), %llu groups of %llu creates\n",
           n, nt, nt == 1 ? "" : "s", (t1 - t0) / n * 1e6, wl.held_ns / 1e3 / n,
           (unsigned long long)sl_store_commits(s), sl_store_commit_ns(s) / 1e6,
           (unsigned long long)groups, (unsigned long long)grouped);
    sl_store_close(s);
    json_decref(tmpl);
    return failed;
}
