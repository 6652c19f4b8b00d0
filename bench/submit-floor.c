/* submit-floor.c — the in-process submission floor (docs/benchmarks.md):
 * N batch jobs for Unix user USER through sl_slurm_submit (the controller's
 * call: the user's credential on the calling thread, one RPC), from T
 * threads at once (T=1: the sequential floor). Put the partition DOWN first
 * so that the jobs queue and none runs. Prints jobs/s.
 *
 *   cc -D_GNU_SOURCE -Isrc -O2 bench/submit-floor.c build/libslurmlink.a -lslurm -lpthread \
 *      -o /tmp/submit-floor
 *   SLURM_CONF=D/etc/slurm.conf /tmp/submit-floor USER N T
 */
#include "slurmif/slurmif.h"

#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uid_t uid;
static gid_t gid;
static atomic_int left, ok;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
    (void)arg;
    const char *env[] = {"PATH=/usr/bin:/bin", NULL};
    const char *opts[] = {"--job-name=floor-bench", NULL};
    sl_slurm_submit_t req = {.script = "#!/bin/sh\ntrue\n", .env = env, .options = opts,
                             .uid = uid, .gid = gid, .work_dir = "/tmp", .std_out = "/dev/null"};
    while (atomic_fetch_sub(&left, 1) > 0) {
        uint32_t id;
        sl_error_t err = SL_ERROR_INIT;
        if (sl_slurm_submit(&req, &id, NULL, &err) == 0)
            atomic_fetch_add(&ok, 1);
        else
            fprintf(stderr, "submit: %s\n", err.text);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: submit-floor USER N THREADS\n");
        return 2;
    }
    struct passwd *pw = getpwnam(argv[1]);
    if (!pw)
        return 2;
    uid = pw->pw_uid;
    gid = pw->pw_gid;
    int n = atoi(argv[2]), t = atoi(argv[3]);
    if (n < 1 || t < 1 || t > 256)
        return 2;
    sl_error_t ierr = SL_ERROR_INIT;
    if (sl_slurm_init(NULL, &ierr) < 0) {
        fprintf(stderr, "%s\n", ierr.text);
        return 1;
    }
    atomic_store(&left, 1); /* warm: plugins loaded, connections made */
    worker(NULL);
    atomic_store(&left, n);
    atomic_store(&ok, 0);
    pthread_t th[256];
    double t0 = now();
    for (int i = 0; i < t; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < t; i++)
        pthread_join(th[i], NULL);
    double dt = now() - t0;
    printf("%d threads: %d of %d jobs in %.2f s: %.0f jobs/s\n", t, atomic_load(&ok), n, dt,
           atomic_load(&ok) / dt);
    return 0;
}
