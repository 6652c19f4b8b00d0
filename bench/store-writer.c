/* bench/store-writer.c — how long a create holds the store's writer lock:
 * N creates (default 10,000) of the pod in bench/store-writer-pod.json (2.4 KB,
 * a pod as the API stores it), one transaction each, one thread, into a
 * fresh store at PATH. Prints the wall time per create and the writer
 * lock's held time per create (sl_store_lock_stats). Built against two
 * checkouts' libraries, it compares their creates on one machine:
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/store-writer.c build/libslurmlink.a \
 *      -ljansson -lsqlite3 -lpthread -o /tmp/sw-head      (and the same in BASE)
 *   /tmp/sw-head /var/tmp/sw/s.db [N [POD.json]]           (PATH's folder must exist and be empty)
 * Needs a library with sl_store_lock_stats (2d74719 or later). */
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH [N [POD.json]]\n", argv[0]);
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 10000;
    const char *podfile = argc > 3 ? argv[3] : "bench/store-writer-pod.json";
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
    double t0 = now();
    for (int i = 0; i < n; i++) {
        json_t *p = json_deep_copy(tmpl);
        char name[32];
        snprintf(name, sizeof name, "p-%d", i);
        json_object_set_new(json_object_get(p, "metadata"), "name", json_string(name));
        if (sl_store_create(s, "pods", p, &e) < 0) {
            fprintf(stderr, "create %s: %s\n", name, e.text);
            return 1;
        }
        json_decref(p);
    }
    double t1 = now();
    sl_store_lockstat_t w, r;
    sl_store_lock_stats(s, &w, &r);
    printf("%d creates: %.1f us each, the writer held %.1f us each\n", n, (t1 - t0) / n * 1e6,
           w.held_ns / 1e3 / n);
    sl_store_close(s);
    json_decref(tmpl);
    return 0;
}
